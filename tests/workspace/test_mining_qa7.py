"""QA pass 7, findings 5 and 6 (whys, headlines, types) on spdlog and attrs.

spdlog a44560d: the why was "That's typically not what we want, …", the second sentence of an "Also, …" side
paragraph pointing back at the side note; its headline "a bug in `sink_it_`: source file location" named no bug; the
hot spot on `sink_it_` counted "Fixed gcc9 conversion warning" as a fix. attrs 679e4b4: the why came from another
squashed item and opened on "Otherwise"; the "NG:" tag stayed in the headline. attrs ce89f5d: a why that only says
what the code now does. attrs 01aa333: removing a warning typed as an error pattern, said as an order. spdlog
033fe9f: a gerund headline; a symbol path with an internal "#2" in the middle named in a headline."""

from __future__ import annotations

from pathlib import Path

from forewarn.memory.vocabulary import MemoryType
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_lessons import POINTS_BACK, decision_headline, fix_headline, where
from forewarn.workspace.mine_rules import VerdictKind, classify, substantive_fix
from forewarn.workspace.mine_squash import off_topic
from tests.gitrepo import Repo
from tests.workspace.billing_history import billing_repo, kinds, mined, record

SIDE_PARAGRAPH_BODY = (
    "This is what my manpage says, and what the original blog post [1] says\nas well.\n\n"
    "Also, `sd_journal_send` can add the location of its own invocation to\nthe log. That's typically not what we "
    "want, so we have to suppress that\nfeature and instead put whatever is inside the spdlog message into the\n"
    "journal.\n\n[1] http://0pointer.de/blog/projects/journal-submit.html\n"
)
SQUASHED_BODY = (
    "* NG: convert on setattr by default\n\nNot doing that from the get-go was an oversight.\n\nFixes #835\n\n"
    "* Add optimization for default on_setattr w/ no work to do\n\n"
    "Otherwise we'd end up with an explicit setattr every time.\n\n"
    "* Fix optimization for NG default & j/ convert\n\n* NG is actually 3.6+\n\n"
    "* Add test for convert optimization for good measure\n"
)
WARNING_REMOVED_BODY = (
    "Since this warning is raised from the attr.ib/attr.field call, we cannot verify\nwhether order is on at all for "
    "the whole class. Fixing this would require to\ncheck _after_ the class is assembled which is both additional "
    "complexity as\nwell as performance overhead. Unless we get inundated by bug reports, this\ndoesn't seem worth it."
)


def test_a_side_paragraph_gives_no_why_not_even_its_sentence_that_points_back(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    verdict = classify(record("journald: fix source file location", SIDE_PARAGRAPH_BODY))
    assert not verdict.lesson and "That's" not in verdict.why
    repo = billing_repo(tmp_path / "repo")
    repo.edit("billing.py", "return -amount", "return -abs(amount)")
    repo.commit(f"refunds: fix source file location\n\n{SIDE_PARAGRAPH_BODY}")
    ws, _ = mined(repo, open_ws)
    assert not [m for m in ws.suggestions() if "not what we want" in m.text]
    # the same sentence after a paragraph that is no side note still brings the one before it
    kept = classify(
        record(
            "journald: fix source file location",
            "`sd_journal_send` adds the location of its own invocation to the log. That's typically not what we "
            "want, because the location is always the sink's own line.",
        )
    )
    assert kept.lesson and kept.why.startswith("`sd_journal_send` adds")


def test_a_why_from_a_later_squashed_item_that_points_back_at_its_title_is_off_topic() -> None:
    assert POINTS_BACK.match("Otherwise we'd end up with an explicit setattr every time.")
    subject = "NG: convert on setattr by default (#886)"
    assert off_topic(SQUASHED_BODY, subject, "Otherwise we'd end up with an explicit setattr every time.")
    titled = "Add optimization for default on_setattr w/ no work to do. Otherwise we'd end up with an explicit setattr."
    assert off_topic(SQUASHED_BODY, subject, titled)
    lead = "Converting on setattr by default was the plan, because NG classes should not need a setting for it."
    assert not off_topic(SQUASHED_BODY.replace("Not doing that from the get-go was an oversight.", lead), subject, lead)
    assert not classify(record(subject, SQUASHED_BODY)).lesson


def test_a_why_that_only_says_what_the_code_now_follows_is_no_why() -> None:
    body = "Follow common exception workflows instead of working around it.\n\nfixes #1514\n"
    verdict = classify(record("Fix message passing in frozen errors", body))
    assert not verdict.lesson and verdict.type != MemoryType.ERROR_PATTERN


def test_removing_a_warning_is_a_decision_said_as_how_the_code_is(tmp_path: Path, open_ws: list[Workspace]) -> None:
    subject = "Remove warning if eq is customized & order is not (#800)"
    verdict = classify(record(subject, WARNING_REMOVED_BODY))
    assert verdict.kind == VerdictKind.DECISION and verdict.type == MemoryType.DECISION
    repo = billing_repo(tmp_path / "repo")
    repo.edit("billing.py", "    return -amount", "    if not amount:\n        return 0\n    return -amount")
    repo.commit(f"Remove warning if amount is zero (#800)\n\n{WARNING_REMOVED_BODY}")
    ws, _ = mined(repo, open_ws)
    [lesson] = [m for m in ws.suggestions() if m.anchor is not None and m.anchor.symbol == "refund"]
    assert lesson.type == MemoryType.DECISION
    assert lesson.text.startswith("In `refund`: no warning if amount is zero (removed on purpose).")


def test_headlines_name_what_a_bug_affected_say_a_gerund_as_a_rule_and_drop_tags_and_overload_marks() -> None:
    assert (
        fix_headline("journald: fix source file location", "`sink_it_`")
        == "Avoid reintroducing a bug in `sink_it_` that affected the source file location."
    )
    assert (
        fix_headline("Fix crash when body is None", "`send`")
        == "Avoid reintroducing a bug in `send`: crash when body is None."
    )
    assert (
        decision_headline("Properly handling SPDLOG_PREVENT_CHILD_FD", "`fopen_s`")
        == "In `fopen_s`: handle SPDLOG_PREVENT_CHILD_FD properly."
    )
    assert (
        decision_headline("NG: convert on setattr by default (#886)", "`f`") == "In `f`: convert on setattr by default."
    )
    assert where("format.py", "get_cached_power#2.vformat") == "`get_cached_power.vformat`"
    # C++ and Rust write a qualified name with ``::``
    assert where("format-inl.h", "get_cached_power#2.vformat") == "`get_cached_power::vformat`"
    assert where("registry-inl.h", "spdlog.details.registry.get#2") == "`spdlog::details::registry::get`"
    assert where("src/body.rs", "Body.new") == "`Body::new`"
    assert where("src/Node.java", "Node.before#2") == "`Node.before`"


def _fix_refund(repo: Repo, line: str, message: str, date: str) -> str:
    """Add ``line`` at the top of ``refund`` (each fix's line stands at HEAD) and commit it; the sha."""
    repo.edit("billing.py", "def refund(card, amount):\n", f"def refund(card, amount):\n{line}\n")
    return repo.commit(message, date=date)


def test_a_compiler_warning_fix_is_no_fix_of_a_hot_spot(tmp_path: Path, open_ws: list[Workspace]) -> None:
    assert not substantive_fix("Fixed gcc9 conversion warning")
    assert not substantive_fix("Fix sign-compare warning in refund")
    assert substantive_fix("Fix wrong thread_id (TID) in systemd_sink.h")
    repo = billing_repo(tmp_path / "repo")
    _fix_refund(repo, "    amount = abs(amount)", "Fix refund of negative amounts", "2021-01-01T00:00:00")
    warning = _fix_refund(repo, "    amount = int(amount)", "Fixed gcc9 conversion warning", "2022-01-01T00:00:00")
    _fix_refund(repo, "    amount = min(amount, card.cap)", "Fix refund above the card cap", "2023-01-01T00:00:00")
    _fix_refund(repo, "    amount = amount or 0", "Fix refund of a missing amount", "2023-06-01T00:00:00")
    ws, _ = mined(repo, open_ws)
    [spot] = [m for m in kinds(ws, "hotspot") if m.anchor is not None and m.anchor.symbol == "refund"]
    assert spot.provenance is not None
    assert warning not in {c["sha"] for c in spot.provenance["commits"]}
    assert "has needed 3 fixes" in spot.text  # before: 4, the warning silenced counted as a fix


def test_style_and_a_single_warning_silenced_are_no_fix_of_a_hot_spot() -> None:
    """spdlog: "code style fixes" and "fix ringbuffer_sink moving warning" counted toward hot spots; a crash about a
    style sheet and a warning dialog that did not close are real fixes."""
    assert not substantive_fix("code style fixes")
    assert not substantive_fix("fix ringbuffer_sink moving warning (#2722)")
    assert not substantive_fix("Fix style issues in parser")
    assert substantive_fix("Fix crash when the style sheet is empty")
    assert substantive_fix("Fix warning dialog not closing")


def test_one_authors_tries_at_one_fix_within_hours_count_once_toward_a_hot_spot(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    """spdlog's ``circular_q::size``: "has needed 3 fixes" were one author's three tries in ten hours; a hot spot
    says the problem keeps coming back, so a run of one author's fixes within TRIES_HOURS counts once."""
    repo = billing_repo(tmp_path / "tries")
    _fix_refund(repo, "    amount = abs(amount)", "Fix refund of negative amounts", "2023-03-01T09:00:00")
    _fix_refund(repo, "    amount = amount or 0", "Fix refund of a missing amount", "2023-03-01T13:00:00")
    _fix_refund(repo, "    amount = min(amount, card.cap)", "Fix refund above the card cap", "2023-03-01T19:00:00")
    ws, _ = mined(repo, open_ws)
    assert not [m for m in kinds(ws, "hotspot") if m.anchor is not None and m.anchor.symbol == "refund"]

    repo = billing_repo(tmp_path / "authors")  # the same hours, two people: three fixes of a pattern
    _fix_refund(repo, "    amount = abs(amount)", "Fix refund of negative amounts", "2023-03-01T09:00:00")
    repo.edit("billing.py", "def refund(card, amount):\n", "def refund(card, amount):\n    amount = amount or 0\n")
    repo.commit("Fix refund of a missing amount", author="Bob", date="2023-03-01T13:00:00")
    _fix_refund(repo, "    amount = min(amount, card.cap)", "Fix refund above the card cap", "2023-03-01T19:00:00")
    ws, _ = mined(repo, open_ws)
    [spot] = [m for m in kinds(ws, "hotspot") if m.anchor is not None and m.anchor.symbol == "refund"]
    assert "has needed 3 fixes" in spot.text
