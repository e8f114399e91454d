"""QA pass 5, F9 and F10: a lesson's own evidence is no fix "since", and noise rules that missed on jq and fzf.

F9: a lesson that absorbed a hot spot on its symbol counted the hot spot's later fixes — now its evidence — again as
"its code was fixed 2 times since". F10: a compiler-warning fix proposed as a bug lesson (jq 70e72ab), "fixed-length"
read as a fix (fzf 49967f3), a why that only says what should be done "instead" (jq 5d058fa), and a follow-up "Better
fix for #4465" counted as a second fix of a hot spot (fzf 5818b58)."""

from __future__ import annotations

from pathlib import Path

from forewarn.memory.suggestions import track_line
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_rules import Noise, classify, real_fix, substantive_fix
from tests.gitrepo import Repo
from tests.workspace.billing_history import BILLING, billing_repo, kinds, mined, record

REFUND = "def refund(card, amount):\n    return -amount\n"


def _add_to_refund(repo: Repo, line: str, message: str, date: str | None = None) -> str:
    """Add ``line`` at the top of ``refund`` (each fix's line stands at HEAD) and commit it; the sha."""
    text = (repo.root / "billing.py").read_text(encoding="utf-8")
    repo.write("billing.py", text.replace("def refund(card, amount):\n", f"def refund(card, amount):\n{line}\n"))
    return repo.commit(message, date=date)


def test_a_hot_spot_s_fixes_folded_into_a_lesson_are_not_counted_again_as_fixes_since(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo = billing_repo(tmp_path / "repo")
    assert REFUND in BILLING
    lesson = _add_to_refund(
        repo,
        "    if amount is None:\n        return 0",
        "Fix refund crash on a missing amount\n\nA refund without an amount raised TypeError because None was negated.",
    )
    later = [
        _add_to_refund(repo, "    amount = abs(amount)", "Fix refund of negative amounts"),
        _add_to_refund(repo, "    amount = min(amount, card.cap)", "Fix refund above the card cap"),
    ]
    ws, _ = mined(repo, open_ws)
    assert kinds(ws, "hotspot") == []  # folded into the lesson
    [kept] = [m for m in ws.suggestions() if m.anchor is not None and m.anchor.symbol == "refund"]
    assert kept.provenance is not None and "History: its code has needed 3 fixes" in kept.text
    shas = [c["sha"] for c in kept.provenance["commits"]]
    assert shas[0] == lesson and set(later) <= set(shas)  # its own commit first, the later fixes its evidence
    assert kept.provenance["track"]["fixes"] == 0  # before: 2, "its code was fixed 2 times since"
    assert kept.provenance["track"]["fix_dates"] == [] and kept.provenance["track"]["last_fix"] is None
    line = track_line(kept.provenance)
    assert line is None or "since" not in line


def test_a_compiler_warning_fix_is_lint_work_not_a_bug_lesson() -> None:
    body = (
        "Whether `char` has a sign is implementation dependent, and `c >= 0` may\nresult in a compiler warning. "
        "We can use bitwise operator to check\nwhether the character is a control character, regardless of the sign."
    )
    verdict = classify(record("Fix compiler warning `type-limits` in `found_string` (ref #2911) (#3263)", body))
    assert verdict.reason == Noise.COSMETIC and not verdict.lesson and not verdict.fix
    assert classify(record("Fix -Wformat-truncation in jv_dump_term", body)).reason == Noise.COSMETIC
    crash = classify(record("Fix crash in jv_dump_term and a compiler warning", body))
    assert crash.reason != Noise.COSMETIC  # a headline that joins a real fix to it keeps it


def test_fixed_length_names_no_fix() -> None:
    assert not real_fix("Use fixed-length array when possible (#4488)")
    assert not real_fix("Switch to a fixed-size buffer for the header")
    assert real_fix("Fix fixed-size buffer overflow in the header reader")
    assert real_fix("Fixed crash when the list is empty")


def test_a_why_that_says_what_should_be_used_instead_is_why_only_should() -> None:
    verdict = classify(
        record(
            "Don't call SetConsoleOutputCP",
            "Should use wide-string function instead of SetConsoleOutputCP.\n\nFixes #1121",
        )
    )
    assert verdict.reason == Noise.WHY_ONLY_SHOULD and not verdict.lesson
    explained = classify(
        record(
            "Don't call SetConsoleOutputCP",
            "It fails on Windows 7 consoles, so we should use the wide-string function instead.\n\nFixes #1121",
        )
    )
    assert explained.reason != Noise.WHY_ONLY_SHOULD  # a cause beside the "should": a why


def test_a_follow_up_to_an_issue_s_fix_is_no_second_fix_of_a_pattern() -> None:
    assert not substantive_fix("Better fix for #4465 - remove unnecessary erase")
    assert not substantive_fix("Simplify fix for #4025: drop the extra flush")
    assert not substantive_fix("Follow-up to #12: the reader's buffer")
    assert substantive_fix("Fix rendering error when hiding a preview window without border")
    assert substantive_fix("Fix #4465: rendering error when hiding a preview window")


def test_a_side_note_on_what_else_the_commit_resolves_is_no_why() -> None:
    """jq 83f375c: "This commit also partly resolves #2148 and resolves #1206" was f_match's why."""
    from forewarn.workspace.mine_lessons import SIDE_NOTE

    for sentence in (
        "This commit also partly resolves #2148 and resolves #1206.",
        "The change additionally drops the old flag.",
        "It also fixes the docs.",
    ):
        assert SIDE_NOTE.match(sentence), sentence
    assert not SIDE_NOTE.match("This commit fixes a crash when the input is empty.")
