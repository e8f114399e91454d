"""A fix that writes a function whole is that function's creation, not a fix of it (QA pass 7, finding 6: attrs'
``Attribute.__getstate__`` comment said "its code was fixed once in its history": e59c360, "Fix pickle support for
__slots__ classes", is the commit that wrote it and its comment)."""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace.engine import Workspace
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined

BEFORE = """\
def wrap(value):
    return value


class Refund:
    __slots__ = ("amount",)

    def __init__(self, amount):
        self.amount = amount
"""
GETSTATE = """
    def __getstate__(self):
        # Don't use the generic pickler since slotted classes have no __dict__ to copy.
        state = {}
        state["amount"] = self.amount
        return state
"""


def test_a_function_a_fix_wrote_whole_has_no_fix_in_its_track_record(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("ledger.py", BEFORE)
    repo.commit("Add refunds")
    repo.write("ledger.py", BEFORE.replace("    return value", "    return dict(value)") + GETSTATE)
    repo.commit("Fix pickle support for __slots__ classes\n\nPickling raised TypeError because slots have no dict.")
    repo.write("ledger.py", BEFORE.replace("def wrap(value):\n    return value\n\n\n", "") + GETSTATE)
    repo.commit("Remove the wrap helper nobody calls")
    ws, _ = mined(repo, open_ws)
    [comment] = [m for m in ws.suggestions() if m.anchor is not None and m.anchor.symbol == "Refund.__getstate__"]
    assert comment.provenance is not None
    assert comment.provenance["track"]["fixes"] == 0, comment.provenance["track"]  # before: 1, its own creation
