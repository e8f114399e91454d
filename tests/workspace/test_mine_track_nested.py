"""A lesson's track record counts the later fixes of the code inside its anchor: jsoup's lesson on
``Attributes.iterator`` sat on the function that holds an anonymous class, and the later fixes of that class's
``hasNext`` were keyed by the method, so its record said no fix came since. A fix of a definition beside the anchor
(not inside it) still does not count."""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace.engine import Workspace
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined

LEDGER = """\
def refund(card, amount):
    def sign(value):
        if value > 0:
            return -value
        return value

    total = sign(amount)
    return total


def charge(card, amount):
    return amount
"""
WHY = "A negative amount would refund a charge twice because the sign flipped back."


def test_a_later_fix_of_a_nested_definition_counts_on_the_lessons_track_record(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("ledger.py", LEDGER)
    repo.commit("Add ledger")
    repo.edit("ledger.py", "    total = sign(amount)\n", "    if amount < 0:\n        raise ValueError(amount)\n"
              "    total = sign(amount)\n")  # fmt: skip
    lesson = repo.commit(f"Fix refund paying twice for negative amounts\n\n{WHY}")
    repo.edit("ledger.py", "        if value > 0:", "        if value >= 0:")
    inner_fix = repo.commit("Fix refund sign for zero amounts\n\nA zero refund was booked as a charge of zero.")
    repo.edit("ledger.py", "    return amount\n", "    return abs(amount)\n")
    repo.commit("Fix charge of negative amounts\n\nA negative charge paid the customer instead.")
    ws, _ = mined(repo, open_ws)
    (memory,) = [m for m in ws.suggestions() if m.provenance and lesson in str(m.provenance.get("commits"))]
    assert memory.anchor is not None and memory.anchor.symbol == "refund"
    track = memory.provenance["track"] if memory.provenance else {}
    assert track["fixes"] == 1, track  # the nested sign's fix; charge's is beside it, not inside
    assert [d[:10] for d in track["fix_dates"]] == [repo.git("show", "-s", "--format=%as", inner_fix)]
