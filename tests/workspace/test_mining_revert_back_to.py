"""A commit going "back to" an earlier design names the state it returns to, not what it undid (retrofit bca920e
"Revert back to an OnSubscribe-based RxJava adapter."): read as a dead end, it told readers not to bring back the
very design the code uses at HEAD. It is read as its own subject, with its why."""

from __future__ import annotations

from pathlib import Path

from forewarn.memory.vocabulary import MemoryType
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_rules import REVERT_SUBJECT
from tests.workspace.billing_history import billing_repo, mined


def test_going_back_to_a_design_is_no_revert_title() -> None:
    assert REVERT_SUBJECT.match("Revert back to an OnSubscribe-based RxJava adapter.") is None
    assert REVERT_SUBJECT.match("Revert to the old parser") is None
    assert (m := REVERT_SUBJECT.match('Revert "Use the new parser"')) is not None and m["what"] == "Use the new parser"


def test_going_back_to_a_design_is_never_a_dead_end_against_it(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = billing_repo(tmp_path / "repo")
    repo.edit("billing.py", "total = amount", "total = amount if amount else 0")
    repo.commit("Use a conditional for an empty amount in charge")
    repo.edit("billing.py", "total = amount if amount else 0", "total = amount")
    repo.commit("Revert back to charging the amount as given\n\nThe conditional charged nothing for a missing amount, "
                "so orders were shipped without payment.")  # fmt: skip
    ws, _ = mined(repo, open_ws)
    texts = [(m.type, m.text) for m in ws.suggestions()]
    assert not [t for kind, t in texts if kind == MemoryType.DEAD_END and "charging the amount as given" in t]
