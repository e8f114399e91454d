"""Suggestions follow their code like memories (QA pass 5, F13): a hint, and the warning it becomes once accepted, sit
on the definition it names after that code moves; code that changed or vanished is said, never silently confirmed,
and only a person turns a suggestion into a memory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.memory.records import Memory
from forewarn.memory.vocabulary import MemoryStatus
from forewarn.workspace import reconcile
from forewarn.workspace.engine import Workspace
from tests.gitrepo import Repo

PAY = """\
def charge(card, amount):
    total = amount * 100
    return card.debit(total)


def refund(card, amount):
    return card.credit(amount)
"""
MOVED_DOWN = (
    '''\
def audit(entry):
    """Write one line to the audit log."""
    print(entry)


'''
    + PAY
)  # five lines above charge: it now starts on line 6
CHANGED = MOVED_DOWN.replace("total = amount * 100", "total = round(amount * 100)")
GONE = MOVED_DOWN.replace("def charge(card, amount):\n    total = amount * 100\n    return card.debit(total)\n\n\n", "")


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "ws")
    r.write("pay.py", PAY)
    r.commit("Add pay")
    return r


@pytest.fixture
def ws(repo: Repo) -> Iterator[Workspace]:
    w = Workspace.open(repo.root, embedder=None)
    w.reindex()
    yield w
    w.close()


def _suggest(ws: Workspace) -> Memory:
    written = ws.remember(
        "charge debits cents: never pass euros", type="gotcha", file="pay.py", symbol="charge",
        status=MemoryStatus.SUGGESTED,
    )  # fmt: skip
    a = written.memory.anchor
    assert a is not None and (a.start_line, a.end_line) == (1, 3)
    return written.memory


def _edit(ws: Workspace, repo: Repo, text: str) -> Memory:
    repo.write("pay.py", text)
    ws.reindex()
    [m] = ws.suggestions()
    return m


def _lines(m: Memory) -> tuple[int | None, int | None]:
    assert m.anchor is not None
    return m.anchor.start_line, m.anchor.end_line


def test_a_suggestion_follows_its_definition_and_is_accepted_on_its_lines(ws: Workspace, repo: Repo) -> None:
    s = _suggest(ws)
    moved = _edit(ws, repo, MOVED_DOWN)
    assert _lines(moved) == (6, 8) and moved.status == MemoryStatus.SUGGESTED and moved.status_reason is None
    accepted = ws.accept_suggestion(s.id)
    assert accepted.status == MemoryStatus.ACTIVE and _lines(accepted) == (6, 8)


def test_a_suggestion_whose_code_changed_says_so_and_is_stale_once_accepted(ws: Workspace, repo: Repo) -> None:
    s = _suggest(ws)
    written_on = s.anchor.content_hash if s.anchor else None
    changed = _edit(ws, repo, CHANGED)
    assert changed.status == MemoryStatus.SUGGESTED  # only a person makes it a memory, current or stale
    assert _lines(changed) == (6, 8)
    assert changed.status_reason == reconcile.SUGGESTION_CHANGED_REASON.format(symbol="charge")
    assert changed.anchor is not None and changed.anchor.content_hash == written_on  # what it was written on
    [ev] = [e for e in ws.store.events(s.id) if e.kind == reconcile.SUGGESTION_CHANGED]
    assert "round(amount * 100)" in ev.detail["diff"]
    assert _edit(ws, repo, CHANGED + "\n# end\n").status_reason is not None  # said once, kept
    assert [e.kind for e in ws.store.events(s.id)].count(reconcile.SUGGESTION_CHANGED) == 1
    ws.accept_suggestion(s.id)
    repo.write("pay.py", CHANGED + "\n# end of file\n")
    ws.reindex()
    now = ws.get(s.id)
    assert now.status == MemoryStatus.STALE and _lines(now) == (6, 8)


def test_a_suggestion_whose_code_comes_back_no_longer_says_it_changed(ws: Workspace, repo: Repo) -> None:
    s = _suggest(ws)
    assert _edit(ws, repo, CHANGED).status_reason is not None
    back = _edit(ws, repo, MOVED_DOWN)
    assert back.status == MemoryStatus.SUGGESTED and back.status_reason is None and _lines(back) == (6, 8)
    assert reconcile.SUGGESTION_FOUND in [e.kind for e in ws.store.events(s.id)]


def test_a_suggestion_whose_definition_vanished_keeps_no_lines_and_stays_a_suggestion(
    ws: Workspace, repo: Repo
) -> None:
    s = _suggest(ws)
    gone = _edit(ws, repo, GONE)
    assert gone.status == MemoryStatus.SUGGESTED  # not orphaned: an orphan is a memory nobody accepted
    assert _lines(gone) == (None, None) and gone.anchor is not None and gone.anchor.symbol == "charge"
    assert gone.status_reason is not None and "charge" in gone.status_reason
    back = _edit(ws, repo, MOVED_DOWN)
    assert _lines(back) == (6, 8) and back.status_reason is None and back.id == s.id


def test_an_accepted_suggestion_whose_code_changed_is_stale_at_once(ws: Workspace, repo: Repo) -> None:
    s = _suggest(ws)
    _edit(ws, repo, CHANGED)
    ws.accept_suggestion(s.id)  # accepting settles it (reconcile.settle_accepted): not active until its file changes
    now = ws.get(s.id)
    assert now.status == MemoryStatus.STALE and now.status_reason == reconcile.STALE_REASON.format(symbol="charge")
    assert _lines(now) == (6, 8)


def test_an_accepted_suggestion_whose_definition_vanished_is_orphaned_at_once(ws: Workspace, repo: Repo) -> None:
    s = _suggest(ws)
    _edit(ws, repo, GONE)
    ws.accept_suggestion(s.id)
    assert ws.get(s.id).status == MemoryStatus.ORPHANED
