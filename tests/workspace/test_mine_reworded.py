"""A reworded warning comment is the lesson mined from it before (QA pass 6): a waiting suggestion takes the new
wording in place, an accepted memory keeps its text (the new wording in its history), a dismissed one stays
dismissed; none gets a second suggestion beside it. Two different warnings on one symbol stay two."""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.memory.records import Memory
from forewarn.memory.vocabulary import MemorySource, MemoryStatus
from forewarn.workspace import mining
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_reworded import KEPT_EVENT, REWORDED_EVENT, overlap
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined

WARNING = "# Must hold the lock before calling this: the cache is shared between worker threads"
REWORDED = "# Must hold the lock before calling this: the cache is shared between all worker threads, and writes race"
OTHER = "# Never call this from a signal handler: it allocates, and the allocator is not reentrant"

CACHE = """\
import threading

_lock = threading.Lock()
_cache = {{}}


def refresh(key, value):
    {comment}
    _cache[key] = value
    return len(_cache)
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "repo")
    repo.write("cache.py", CACHE.format(comment=WARNING))
    repo.commit("Add the shared cache")
    return repo


def _reword(repo: Repo, comment: str = REWORDED) -> None:
    repo.write("cache.py", CACHE.format(comment=comment))
    repo.commit("Say more about the cache lock")


def _comment_memories(ws: Workspace) -> list[Memory]:
    everything = [*MemoryStatus]
    return [m for m in ws.store.anchored_to_files(["cache.py"], everything) if m.source == MemorySource.COMMENT]


def _first(repo: Repo, open_ws: list[Workspace]) -> tuple[Workspace, Memory]:
    ws, _ = mined(repo, open_ws)
    [memory] = _comment_memories(ws)
    assert "between worker threads" in memory.text
    return ws, memory


def test_a_waiting_suggestion_takes_the_new_wording_in_place(repo: Repo, open_ws: list[Workspace]) -> None:
    ws, before = _first(repo, open_ws)
    _reword(repo)
    report = mining.mine(ws, hold_back=False)
    assert report.reworded == {"updated": 1} and report.added == 0 and report.known == 1
    [after] = _comment_memories(ws)
    assert after.id == before.id and after.status == MemoryStatus.SUGGESTED
    assert "between all worker threads, and writes race" in after.text
    assert after.provenance is not None and after.provenance["head"] == report.head
    [change] = [e for e in ws.store.events(after.id) if e.kind == REWORDED_EVENT]
    assert change.detail["previous_text"] == before.text  # the old wording is kept in its history
    ws.set_mining_state(mining.STATE_LAST_MINED, "")
    again = mining.mine(ws, hold_back=False)  # the new wording is known now
    assert again.reworded == {} and again.added == 0 and len(_comment_memories(ws)) == 1


def test_an_accepted_memory_keeps_its_text_and_gets_no_second_suggestion(repo: Repo, open_ws: list[Workspace]) -> None:
    ws, before = _first(repo, open_ws)
    ws.accept_suggestion(before.id)
    _reword(repo)
    report = mining.mine(ws, hold_back=False)
    assert report.reworded == {"accepted": 1} and report.added == 0
    [after] = _comment_memories(ws)
    assert after.id == before.id and after.status in (MemoryStatus.ACTIVE, MemoryStatus.STALE)
    assert after.text == before.text  # vetted words are a person's: never changed silently
    [kept] = [e for e in ws.store.events(after.id) if e.kind == KEPT_EVENT]
    assert "between all worker threads, and writes race" in kept.detail["text"]
    assert ws.suggestions() == []


def test_a_dismissed_lesson_stays_dismissed_when_its_comment_is_reworded(repo: Repo, open_ws: list[Workspace]) -> None:
    ws, before = _first(repo, open_ws)
    ws.dismiss_suggestion(before.id)
    _reword(repo)
    report = mining.mine(ws, hold_back=False)
    assert report.reworded == {"dismissed": 1} and report.dismissed_before == 1 and report.added == 0
    [after] = _comment_memories(ws)
    assert after.status == MemoryStatus.DISMISSED and after.text == before.text
    assert ws.suggestions() == []


def test_a_different_warning_on_the_same_symbol_is_a_new_suggestion(repo: Repo, open_ws: list[Workspace]) -> None:
    ws, before = _first(repo, open_ws)
    _reword(repo, OTHER)
    report = mining.mine(ws, hold_back=False)
    assert report.reworded == {} and report.added == 1
    texts = sorted(m.text for m in _comment_memories(ws))
    assert len(texts) == 2 and before.text in texts


def test_overlap_keeps_a_typo_fix_and_an_added_sentence_and_tells_two_warnings_apart() -> None:
    old = "In `refresh`: Must hold the lock before calling this: the cache is shared between worker threads"
    assert overlap(old, old.replace("shared", "sahred")) >= 0.5
    assert overlap(old, old + ". Writers that skip it corrupt the index.") >= 0.5
    other = "In `refresh`: Never call this from a signal handler: it allocates, and the allocator is not reentrant"
    assert overlap(old, other) < 0.5
    escaped = "In `quote`: trivial case: double quotes must be escaped, or the literal ends early"
    assert overlap(escaped, escaped.replace("must be", "must not be")) == 0.0  # the opposite lesson
    assert overlap("Don't call this twice: it frees the buffer", "Do not call this twice: it frees the buffer") >= 0.5
