"""QA pass 7, finding 4: a lesson that absorbed a hot spot keeps its record on a repeat full run. On the second
``mine --all`` the hot spot is no longer folded (the symbol has a memory), so the lesson's fresh record counted the
fixes that are its evidence as fixes since, and overwrote the stored one: "fixed 2 times since" after nothing
changed."""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace import mining
from forewarn.workspace.engine import Workspace
from tests.workspace.billing_history import billing_repo, mined
from tests.workspace.test_mining_evidence_qa5 import _add_to_refund


def test_a_repeat_full_run_leaves_a_folded_lessons_track_record_as_it_was(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo = billing_repo(tmp_path / "repo")
    _add_to_refund(
        repo,
        "    if amount is None:\n        return 0",
        "Fix refund crash on a missing amount\n\nA refund without an amount raised TypeError because None was negated.",
    )
    _add_to_refund(repo, "    amount = abs(amount)", "Fix refund of negative amounts")
    _add_to_refund(repo, "    amount = min(amount, card.cap)", "Fix refund above the card cap")
    ws, _ = mined(repo, open_ws)
    [kept] = [m for m in ws.suggestions() if m.anchor is not None and m.anchor.symbol == "refund"]
    assert kept.provenance is not None and kept.provenance["track"]["fixes"] == 0
    ws.set_mining_state(mining.STATE_LAST_MINED, "")  # a full run again, nothing new in the history
    mining.mine(ws, hold_back=False)
    [again] = [m for m in ws.suggestions() if m.anchor is not None and m.anchor.symbol == "refund"]
    assert again.id == kept.id and again.provenance is not None
    assert again.provenance["track"]["fixes"] == 0, again.provenance["track"]  # before: 2
    assert again.confidence == kept.confidence


def test_a_warning_comment_that_absorbed_a_hot_spot_does_not_count_its_fixes_again(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    """QA pass 7 recheck: attrs' XXX comment on ``_create_slots_class`` folded the hot spot's four fixes as its
    evidence ("History: its code has needed 4 fixes") and also counted them as its record ("fixed 4 times")."""
    repo = billing_repo(tmp_path / "repo")
    repo.edit("billing.py", "def refund(card, amount):\n", "def refund(card, amount):\n"
              "    # XXX: a refund is never larger than its charge: the card network rejects it\n")  # fmt: skip
    repo.commit("Note the refund limit")
    _add_to_refund(repo, "    amount = abs(amount)", "Fix refund of negative amounts")
    _add_to_refund(repo, "    amount = min(amount, card.cap)", "Fix refund above the card cap")
    _add_to_refund(repo, "    amount = round(amount, 2)", "Fix refund rounding to cents")
    ws, _ = mined(repo, open_ws)
    on_refund = [m for m in ws.suggestions() if m.anchor is not None and m.anchor.symbol == "refund"]
    assert len(on_refund) == 1 and on_refund[0].provenance is not None, [m.text for m in on_refund]
    [kept] = on_refund
    assert kept.provenance.get("merged") and "History: its code has needed 3 fixes" in kept.text, kept.text
    assert kept.provenance["track"]["fixes"] == 0, kept.provenance["track"]  # before: 3, its own evidence again
