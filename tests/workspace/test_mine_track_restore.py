"""A commit that brings earlier behaviour back fixes a regression: it counts on the track record of the lesson whose
code it rewrote (QA pass 6, finding 17: jsoup 062d190 "Restore the behavior of cssSelector before v1.16.2 …" was not
counted on the lesson of ``Element.cssSelector``). Restoring anything else is no fix by its subject alone, and
neither is a body's closing keyword ("Fixes #2282"): features close issues too."""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_rules import real_fix
from tests.workspace.billing_history import billing_repo, mined

WHY = "A negative amount would refund a charge twice because the sign flips."


RESTORED = [
    "Restore the behavior of refund before v1.16.2 for credits (#2283)",
    "Restore previous behaviour of refund for zero amounts",
    "Bring back the old refund behavior for credits",
    "Refund credits as before. This restores pre v4.1.11 behavior.",
]
OTHER_RESTORES = ["Restore mouse drag mode (#3096)", "Restore original docs", "Restore Ruby 2.4 compatibility"]


def test_a_subject_that_restores_earlier_behaviour_names_a_fix_and_other_restores_do_not() -> None:
    assert [s for s in RESTORED if not real_fix(s)] == []
    assert [s for s in OTHER_RESTORES if real_fix(s)] == []


def test_a_later_restore_of_earlier_behaviour_counts_on_the_lessons_track_record(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo = billing_repo(tmp_path / "repo")
    repo.edit(
        "billing.py", "    return -amount", "    if amount < 0:\n        raise ValueError(amount)\n    return -amount"
    )
    lesson = repo.commit(f"Fix refund paying twice for negative amounts\n\n{WHY}")
    repo.edit("billing.py", "        raise ValueError(amount)", "        return 0")
    repo.commit("Refund nothing for negative amounts\n\nCallers asked for a quiet zero instead of an error here.")
    repo.edit("billing.py", "        return 0", "        raise ValueError(amount)")
    restore = repo.commit(  # 18 months on, as in jsoup: no pair of close fixes, so no hot spot folds it in
        "Restore the behavior of refund before v1.2 for negative amounts (#23)\n\nFixes #22\n",
        date="2025-07-01T12:00:00+02:00",
    )
    repo.edit("billing.py", "    return -amount", "    return -round(amount, 2)")
    repo.commit("Round refunds to cents\n\nFixes #24\n", date="2025-08-01T12:00:00+02:00")  # a closing keyword alone
    ws, _ = mined(repo, open_ws)
    (memory,) = [m for m in ws.suggestions() if m.provenance and lesson in str(m.provenance.get("commits"))]
    track = memory.provenance["track"] if memory.provenance else {}
    assert track["fixes"] == 1
    assert [d[:10] for d in track["fix_dates"]] == [repo.git("show", "-s", "--format=%as", restore)]
