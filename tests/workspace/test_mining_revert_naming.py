"""Blind labels of round 18 (set 6): two dead ends whose headline said nothing of what was undone. peewee's
"Reverts 09a1f78ca and instead ensures double quotes are escaped" named its commit by id at the start of its own
words, so the dead end read "Do not bring back “09a1f78ca and instead …”" and the reverted commit's lesson was not
withdrawn; nanopb's partial revert "Revert old fix for #617" read "Do not bring back “old fix for”". A revert that
names its commit by id speaks of it in that commit's words and withdraws it; a partial revert whose own words say
nothing once the issue number is cut borrows the subject of the commit it names, which stays proposed."""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_reverts import undone
from tests.gitrepo import Repo
from tests.workspace.billing_history import billing_repo, mined, record, revert

TRIED = "Quote totals in charge\n\nThe gateway reads a quoted total as text, so we quote it here to keep the cents."
REASON = "A quoted total made the gateway reject every charge in a batch, since it expects a number there."


def _dead_ends(ws: Workspace) -> list[str]:
    return [m.text for m in ws.suggestions() if "bring back" in m.text]


def _tried(repo: Repo) -> str:
    repo.edit("billing.py", "    total = amount\n", "    total = amount\n    total = f'\"{total}\"'\n")
    return repo.commit(TRIED)


def test_a_revert_naming_its_commit_by_id_says_that_commits_subject_and_withdraws_it(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo = billing_repo(tmp_path / "repo")
    tried = _tried(repo)
    revert(repo, tried, f"Reverts {tried[:9]} and instead sends the total as a number\n\n{REASON}")
    ws, _ = mined(repo, open_ws)
    [dead_end] = _dead_ends(ws)
    assert dead_end.startswith("Do not bring back “Quote totals in charge” in `charge`"), dead_end
    assert not [m for m in ws.suggestions() if "bring back" not in m.text and "Quote totals" in m.text]


def test_a_partial_revert_that_says_nothing_borrows_the_subject_it_names_and_withdraws_nothing(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo = billing_repo(tmp_path / "repo")
    tried = _tried(repo)
    repo.edit("billing.py", "    return -amount\n", "    return -abs(amount)\n")
    repo.commit("Fix refund of negative amounts\n\nA negative refund charged the card instead of paying back.")
    revert(repo, tried, f"Revert old fix for #617\n\nThis partially reverts commit {tried}.\n\n{REASON}")
    ws, _ = mined(repo, open_ws)
    [dead_end] = _dead_ends(ws)
    assert dead_end.startswith("Do not bring back “Quote totals in charge” in `charge`"), dead_end
    assert [m for m in ws.suggestions() if m.anchor is not None and m.anchor.symbol == "refund"]


def test_what_a_revert_names_by_id() -> None:
    sha = "09a1f78ca"
    assert undone(record(f"Reverts {sha} and instead ensures double quotes are escaped", REASON)) == ([sha], True)
    assert undone(record(f"Revert {sha}", REASON)) == ([sha], True)
    assert undone(record("Revert defaced handler", REASON)) == ([], True)  # a word, not an id (no digit)
    partial = record("Revert old fix for #617", f"This partially reverts commit {sha}.\n\n{REASON}")
    assert undone(partial) == ([], False)  # some of it still stands: nothing withdrawn
