"""QA pass 8 #1: zod's "Do not bring back “reject whitespace in z.base64() to close atob bypass”" — a security fix
reverted only because it "landed on main accidentally … will be re-applied via PR", and landed again (584b108) under
the same subject: the dead end told people to avoid the check ``isValidBase64`` runs today. A revert that says its
change comes back another way, or whose change a later commit lands again, is no dead end (``revert-to-reland``)."""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_headlines import said
from forewarn.workspace.mine_rules import Noise, VerdictKind, classify, revert_target
from tests.gitrepo import Repo
from tests.workspace.billing_history import billing_repo, mined, record, revert, round_charge

ACCIDENT = (
    "That commit landed on main accidentally — it was meant to be pushed to a\nnew branch but the worktree's "
    "upstream tracking pointed at main, so the\npush went there. Reverting so the change can go through a normal "
    "PR.\nThe work is preserved on the `base64-whitespace` branch and will be\nre-applied via PR.\n"
)


def test_a_revert_that_says_the_change_comes_back_another_way_is_no_dead_end() -> None:
    body = f"This reverts commit 91a7d0d1e0d3c8338e9fd92cf819cded87e8973f.\n\n{ACCIDENT}"
    verdict = classify(record('Revert "fix(v4): reject whitespace in z.base64() to close atob bypass"', body))
    assert verdict.kind == VerdictKind.NOISE and verdict.reason == Noise.REVERT_TO_RELAND
    kept = classify(record('Revert "Stream uploads"', "This reverts commit 1234567.\n\nIt broke uploads on Windows."))
    assert kept.kind == VerdictKind.REVERT  # a reason to give it up: still a dead end


def test_a_reverted_change_landed_again_under_its_subject_is_no_dead_end(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo: Repo = billing_repo(tmp_path / "repo")
    bad = round_charge(repo)
    revert(repo, bad, f'Revert "Round totals in charge"\n\nThis reverts commit {bad}.\n\n'
           "Rounding each charge lost cents on long invoices.")  # fmt: skip
    repo.edit("billing.py", "    total = amount\n", "    total = round(amount, 2)\n")
    repo.commit("Round totals in charge (#12)")  # landed again, the pull request's number added
    ws, report = mined(repo, open_ws)
    assert not [m for m in ws.suggestions() if "bring back" in m.text]
    assert report.noise[Noise.REVERT_TO_RELAND] == 1


def test_a_conventional_revert_and_a_reference_with_its_word_leave_the_headline() -> None:
    """zod's "revert(core): drop the exactOptional parse prototype from #6432 (#6438)" said "(core): drop the
    exactOptional parse prototype from": the scope stayed, and so did the "from" that pointed at #6432."""
    subject = "revert(core): drop the exactOptional parse prototype from #6432 (#6438)"
    assert revert_target(record(subject, "It broke optional keys in records.")) == (
        "drop the exactOptional parse prototype from #6432 (#6438)"
    )
    assert said("drop the exactOptional parse prototype from #6432 (#6438)") == "drop the exactOptional parse prototype"
    assert said("Fix crash introduced in #123") == "Fix crash introduced"
    assert said("Sign in with the key") == "Sign in with the key" and said("Fix #12 in parser") == "Fix #12 in parser"
