"""Mining again after a person accepted a lesson: a new fix of the same code is counted by that lesson's track
record, not said again by a hot spot or folded into a new lesson as "Also" and "History" lines (QA pass 4, Q6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.workspace import mining
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_rules import Noise
from tests.gitrepo import Repo
from tests.workspace.billing_history import BILLING, billing_repo, kinds, mined


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return billing_repo(tmp_path / "repo")


def _fix_refund(repo: Repo, n: int, subject: str, why: str) -> str:
    repo.write("billing.py", BILLING.replace("return -amount", f"return -abs(amount) * {n}"))
    return repo.commit(f"{subject}\n\n{why}")


def test_a_new_fix_of_an_accepted_lesson_s_code_is_its_track_record(repo: Repo, open_ws: list[Workspace]) -> None:
    first = _fix_refund(
        repo, 1, "Fix refund sign", "A negative amount would refund a charge twice because the sign flips."
    )
    ws, _ = mined(repo, open_ws)
    [lesson] = [m for m in ws.suggestions() if m.anchor is not None and m.anchor.symbol == "refund"]
    ws.accept_suggestion(lesson.id)
    second = _fix_refund(
        repo,
        2,
        "Fix refund of partial captures",
        "A partial capture refunded the whole amount because the cap was lost.",
    )
    report = mining.mine(ws, hold_back=False)
    assert kinds(ws, "hotspot") == [] and report.noise[Noise.SYMBOL_HAS_MEMORY] == 1
    [new] = ws.suggestions()  # the new lesson, alone: the accepted one is not repeated in it
    assert new.provenance is not None and [c["sha"] for c in new.provenance["commits"]] == [second]
    assert "Also (commit" not in new.text and "History:" not in new.text
    accepted = ws.get(lesson.id)
    assert accepted is not None and accepted.provenance is not None
    assert accepted.provenance["track"]["fixes"] == 1  # "its code was fixed once since"
    ws.set_mining_state(mining.STATE_LAST_MINED, "")  # a full re-mine: nothing new, nothing folded again
    full = mining.mine(ws, hold_back=False)
    assert full.added == 0 and kinds(ws, "hotspot") == [] and first


def test_a_full_re_mine_does_not_fold_a_stored_lesson_into_a_new_one(repo: Repo, open_ws: list[Workspace]) -> None:
    first = _fix_refund(
        repo, 1, "Fix refund sign", "A negative amount would refund a charge twice because the sign flips."
    )
    ws, _ = mined(repo, open_ws)
    [lesson] = ws.suggestions()
    ws.accept_suggestion(lesson.id)
    capped = "    amount = min(amount, card.cap)\n    return -abs(amount) * 1"  # the first fix's line stays
    repo.write("billing.py", BILLING.replace("    return -amount", capped))
    second = repo.commit(
        "Fix refund of partial captures\n\nA partial capture refunded the whole amount because the cap was lost."
    )
    ws.set_mining_state(mining.STATE_LAST_MINED, "")  # read the whole history again, as `mine --all` does
    full = mining.mine(ws, hold_back=False)
    assert full.known == 1  # the accepted lesson, proposed again and known
    [new] = ws.suggestions()
    assert new.provenance is not None and [c["sha"] for c in new.provenance["commits"]] == [second]
    assert f"Also (commit {first[:7]})" not in new.text


def test_a_first_mine_counts_no_symbol_has_memory(repo: Repo, open_ws: list[Workspace]) -> None:
    """A noise rule is counted when it left something out; a hot spot on a symbol nobody remembers is proposed."""
    why = "A negative amount would refund a charge twice because the sign flips."
    _fix_refund(repo, 1, "Fix refund sign", why)
    _fix_refund(repo, 2, "Fix refund sign for credits", why)
    ws, report = mined(repo, open_ws)
    assert kinds(ws, "hotspot") or any(m.provenance and m.provenance.get("fixes") for m in ws.suggestions())
    assert str(Noise.SYMBOL_HAS_MEMORY) not in report.noise
