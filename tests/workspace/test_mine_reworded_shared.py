"""A reworded warning comment is the lesson a teammate shared (QA pass 6's leftover): a memory imported from the
team's file is matched as reworded as a memory mined here is, its text left as the teammate's; and a shared copy
carries the new wording's fingerprint, so a teammate importing it after the rewording gets no second suggestion."""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.memory.records import KEPT_EVENT, Memory
from forewarn.memory.vocabulary import MemorySource, MemoryStatus
from forewarn.workspace import mining
from forewarn.workspace.engine import Workspace
from tests.gitrepo import Repo
from tests.workspace.test_mine_reworded import CACHE, REWORDED, WARNING


def _comments(ws: Workspace) -> list[Memory]:
    return [m for m in ws.store.anchored_to_files(["cache.py"], [*MemoryStatus]) if m.source == MemorySource.COMMENT]


def _open(repo: Repo, opened: list[Workspace]) -> Workspace:
    ws = Workspace.open(repo.root, embedder=None)
    opened.append(ws)
    return ws


def _ann_shares(tmp_path: Path, opened: list[Workspace], *, reword_first: bool) -> tuple[Repo, Path]:
    """Ann mines the comment, accepts it and exports the team file (after rewording it, or before)."""
    ann = Repo(tmp_path / "ann")
    ann.write("cache.py", CACHE.format(comment=WARNING))
    ann.commit("Add the shared cache")
    ws = _open(ann, opened)
    mining.mine(ws, hold_back=False)
    [memory] = _comments(ws)
    ws.accept_suggestion(memory.id)
    if reword_first:
        ann.write("cache.py", CACHE.format(comment=REWORDED))
        ann.commit("Say more about the cache lock")
        assert mining.mine(ws, hold_back=False).reworded == {"accepted": 1}
    shared = tmp_path / "team.jsonl"
    ws.export(shared)
    return ann, shared


@pytest.mark.parametrize(("accept", "counted"), [(True, "accepted"), (False, "imported")])
def test_an_imported_comment_memory_is_the_lesson_of_its_reworded_comment(
    tmp_path: Path, open_ws: list[Workspace], accept: bool, counted: str
) -> None:
    ann, shared = _ann_shares(tmp_path, open_ws, reword_first=False)
    bob = Repo(tmp_path / "bob")
    bob.git("pull", "-q", str(ann.root), "main")
    ws = _open(bob, open_ws)
    assert ws.import_(shared, embed=False, accept=accept).added == 1
    [imported] = _comments(ws)
    bob.write("cache.py", CACHE.format(comment=REWORDED))
    bob.commit("Say more about the cache lock")
    report = mining.mine(ws, hold_back=False)
    assert report.reworded == {counted: 1} and report.added == 0, report
    [after] = _comments(ws)
    assert after.id == imported.id and after.text == imported.text  # the teammate's words stay
    assert [e.kind for e in ws.store.events(after.id)].count(KEPT_EVENT) == 1


def test_a_shared_copy_carries_its_reworded_comments_fingerprint(tmp_path: Path, open_ws: list[Workspace]) -> None:
    ann, shared = _ann_shares(tmp_path, open_ws, reword_first=True)
    bob = Repo(tmp_path / "bob")
    bob.git("pull", "-q", str(ann.root), "main")
    ws = _open(bob, open_ws)
    assert ws.import_(shared, embed=False, accept=True).added == 1
    report = mining.mine(ws, hold_back=False)
    assert report.added == 0 and report.reworded == {}, report  # the new wording is known from the copy
    assert len(_comments(ws)) == 1 and ws.suggestions() == []
