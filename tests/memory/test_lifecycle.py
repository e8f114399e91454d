"""Memories age with the code: staleness, re-anchoring, orphaning, renames, confirm, forget/restore, supersede."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from forewarn.memory.errors import InvalidMemoryError
from forewarn.workspace.engine import Workspace
from forewarn.workspace.results import memory_brief

STORE_PY = '''\
class TerminalStore:
    def flush(self):
        """Write pending lines."""
        self.lines.clear()

    def resize(self, rows):
        self.rows = rows


def helper():
    return 1
'''

MAIN_PY = """\
from app.store import TerminalStore, helper


def run():
    TerminalStore().flush()
    return helper()
"""


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    # a new mtime even within the filesystem's timestamp granularity, so the indexer re-reads it
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


@pytest.fixture
def engine(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    write(root, "app/store.py", STORE_PY)
    write(root, "app/main.py", MAIN_PY)
    eng = Workspace.open(root, embedder=None)
    eng.reindex()
    yield eng
    eng.close()


def test_anchor_records_symbol_span_and_code_hash(engine: Workspace) -> None:
    m = engine.remember("flush drops lines mid-render", type="gotcha", file="app/store.py", line=4).memory
    assert m.anchor is not None
    assert (m.anchor.file, m.anchor.symbol, m.anchor.start_line, m.anchor.end_line) == (
        "app/store.py", "TerminalStore.flush", 2, 4,
    )  # fmt: skip
    chunk = engine.indexer.chunk_by_symbol("app/store.py", "TerminalStore.flush")
    assert m.anchor.content_hash == chunk.content_hash
    with pytest.raises(InvalidMemoryError, match=r"no symbol 'nope'.*TerminalStore\.flush"):
        engine.remember("x", file="app/store.py", symbol="nope")
    # a typo names what was meant first; top-level code (``<module>``, ``<module>#2``) is no definition to name
    with pytest.raises(InvalidMemoryError, match=r"did you mean TerminalStore\.flush\? \(definitions there: Ter") as e:
        engine.remember("x", file="app/store.py", symbol="TerminalStore.flsh")
    assert "<module>" not in str(e.value)
    with pytest.raises(InvalidMemoryError, match="outside the workspace"):
        engine.remember("x", file="../elsewhere.py")


def test_a_symbol_in_a_file_the_index_skipped_says_why_and_how(engine: Workspace) -> None:
    table = "class EntitiesData:\n    POINTS = '" + "amp=38," * 600 + "'\n"  # one packed line: read as minified
    write(engine.root, "app/entities.py", table)
    engine.reindex(["app/entities.py"])
    with pytest.raises(InvalidMemoryError) as e:
        engine.remember("x", file="app/entities.py", symbol="EntitiesData")
    assert str(e.value) == (
        "no symbol 'EntitiesData' in app/entities.py (the index left it out: its average line is longer than "
        "index.max_line_length (read as minified); raise that to index it)"
    )


def test_changed_code_makes_the_memory_stale_and_confirm_clears_it(engine: Workspace) -> None:
    m = engine.remember("flush drops lines", type="gotcha", file="app/store.py", symbol="TerminalStore.flush").memory
    other = engine.remember("resize is cheap", file="app/store.py", symbol="TerminalStore.resize").memory
    write(engine.root, "app/store.py", STORE_PY.replace("self.lines.clear()", "self.lines = []"))
    report = engine.reindex(["app/store.py"])
    assert report.memories.stale == [m.id]
    stale = engine.get(m.id)
    assert stale.status == "stale" and "changed" in (stale.status_reason or "")
    assert engine.get(other.id).status == "active"
    assert [e.kind for e in engine.history(m.id).events[m.id]] == ["created", "stale"]
    # still shown on the file (as possibly outdated), still searchable
    assert [h.memory.id for h in engine.proactive("app/store.py")] == [m.id, other.id]
    confirmed = engine.confirm(m.id)
    assert confirmed.status == "active"
    assert confirmed.access_count == 1 and confirmed.last_accessed_at is not None
    new_hash = engine.indexer.chunk_by_symbol("app/store.py", "TerminalStore.flush").content_hash
    assert confirmed.anchor is not None and confirmed.anchor.content_hash == new_hash
    engine.reindex()  # nothing changed since: stays active
    assert engine.get(m.id).status == "active"


def test_moved_symbol_is_reanchored_without_going_stale(engine: Workspace) -> None:
    m = engine.remember("helper is hot", file="app/store.py", symbol="helper").memory
    write(engine.root, "app/store.py", "# a comment\n# and another\n\n" + STORE_PY)
    report = engine.reindex()
    assert report.memories.reanchored == [m.id]
    moved = engine.get(m.id)
    assert moved.status == "active"
    assert moved.anchor is not None and (moved.anchor.start_line, moved.anchor.end_line) == (13, 14)


def test_vanished_symbol_orphans_and_its_return_revives(engine: Workspace) -> None:
    m = engine.remember("resize must be called once", file="app/store.py", symbol="TerminalStore.resize").memory
    write(engine.root, "app/store.py", STORE_PY.replace("    def resize(self, rows):\n        self.rows = rows\n", ""))
    assert engine.reindex().memories.orphaned == [m.id]
    assert engine.get(m.id).status == "orphaned"
    assert engine.proactive("app/store.py") == []  # it has no code to sit on
    assert [h.memory.id for h in engine.search("resize called once").memories] == [m.id]  # but is still found
    write(engine.root, "app/store.py", STORE_PY)
    assert engine.reindex().memories.revived == [m.id]
    assert engine.get(m.id).status == "active"


def test_renamed_file_moves_anchors_and_deleted_file_orphans(engine: Workspace) -> None:
    m = engine.remember("store is not thread-safe", type="gotcha", file="app/store.py").memory
    s = engine.remember("flush twice is a bug", file="app/store.py", symbol="TerminalStore.flush").memory
    (engine.root / "app/store.py").rename(engine.root / "app/terminal_store.py")
    report = engine.reindex()
    assert sorted(report.memories.renamed) == sorted([m.id, s.id])
    for mid in (m.id, s.id):
        moved = engine.get(mid)
        assert moved.anchor is not None and moved.anchor.file == "app/terminal_store.py"
        assert moved.status == "active"
    assert engine.search("terminal_store thread").memories[0].memory.id == m.id  # FTS follows the new path
    (engine.root / "app/terminal_store.py").unlink()
    assert sorted(engine.reindex().memories.orphaned) == sorted([m.id, s.id])


def test_forget_archives_and_restore_brings_back(engine: Workspace) -> None:
    m = engine.remember("never rebase the release branch", type="convention").memory
    assert engine.forget(m.id).status == "archived"
    assert engine.search("rebase release branch").memories == []
    assert engine.list_memories() == []
    assert [x.id for x in engine.list_memories(statuses=("archived",))] == [m.id]
    assert engine.restore(m.id).status == "active"
    assert [h.memory.id for h in engine.search("rebase release branch").memories] == [m.id]
    with pytest.raises(InvalidMemoryError, match="not forgotten"):
        engine.restore(m.id)
    # a forgotten piece of history comes back as history
    newer = engine.supersede(m.id, "never rebase the release branch; merge instead")
    old = engine.get(m.id)
    assert engine.forget(m.id).status == "archived"
    back = engine.restore(m.id)
    assert (back.status, back.status_reason, back.ended_at) == ("superseded", old.status_reason, old.ended_at)
    assert [h.memory.id for h in engine.search("rebase release branch").memories] == [newer.id]


def test_supersede_keeps_history_and_never_returns_the_old_one(engine: Workspace) -> None:
    first = engine.remember("deploys go out on Tuesdays", type="decision").memory
    second = engine.supersede(first.id, "deploys go out on Thursdays")
    third = engine.supersede(second.id, "deploys go out any weekday after review")
    hits = engine.search("when do deploys go out").memories
    assert [h.memory.id for h in hits] == [third.id]
    history = engine.history(first.id)
    assert [m.id for m in history.chain] == [first.id, second.id, third.id]
    assert [m.status for m in history.chain] == ["superseded", "superseded", "active"]
    assert engine.get(first.id).superseded_by == second.id and third.supersedes == second.id
    assert [e.kind for e in history.events[first.id]] == ["created", "superseded"]
    with pytest.raises(InvalidMemoryError, match="already superseded"):
        engine.supersede(first.id, "x")
    # as of the moment it was written (before any supersession), the first was the current one
    earlier = engine.search("when do deploys go out", as_of=first.created_at)
    assert [h.memory.id for h in earlier.memories] == [first.id]


def test_mark_stale_and_lexical_merge_of_identical_lesson(engine: Workspace) -> None:
    m = engine.remember("helper returns one", file="app/store.py", symbol="helper").memory
    again = engine.remember("  Helper returns ONE ", file="app/store.py", symbol="helper")
    assert again.merged and again.memory.id == m.id and again.memory.access_count == 1
    assert engine.mark_stale(m.id).status == "stale"
    assert [e.kind for e in engine.history(m.id).events[m.id]] == ["created", "merged", "marked_stale"]


def test_a_symbol_may_be_written_as_its_language_does_and_overloads_are_listed_with_lines(engine: Workspace) -> None:
    """QA pass 7, finding 8: ``--symbol 'registry::get'`` found nothing and the list said ``get#2`` without saying
    which overload it is."""
    write(engine.root, "app/registry.py", "class Registry:\n    def get(self, key):\n        return key\n\n"
          "    def get(self, key, default):\n        return default\n")  # fmt: skip
    engine.reindex(["app/registry.py"])
    with pytest.raises(InvalidMemoryError, match=r"'Registry::get' names 2 definitions in app/registry.py: give one "
                       r"of Registry\.get#1 \(lines 2-3: get\(self, key\)\), Registry\.get#2 \(lines 5-6"):  # fmt: skip
        engine.remember("x", file="app/registry.py", symbol="Registry::get")  # two of that exact name: never guessed
    by_colons = engine.remember("x", file="app/registry.py", symbol="Registry::get#1").memory
    assert by_colons.anchor is not None and by_colons.anchor.symbol == "Registry.get"
    write(engine.root, "app/nested.py", "class Outer:\n    class Registry:\n        def get(self, key):\n"
          "            return key\n\n        def get(self, key, default):\n            return default\n")  # fmt: skip
    engine.reindex(["app/nested.py"])
    with pytest.raises(InvalidMemoryError, match=r"'Registry::get' names 2 definitions in app/nested.py: give one of "
                       r"Outer\.Registry\.get#1 \(lines 3-4: get\(self, key\)\), "
                       r"Outer\.Registry\.get#2 \(lines 6-7"):  # fmt: skip
        engine.remember("x", file="app/nested.py", symbol="Registry::get")  # a short name: which one is not guessed
    second = engine.remember("y", file="app/registry.py", symbol="Registry.get#2").memory
    assert memory_brief(second)["label"] == "Registry.get (lines 5-6)"  # stats and the editors show no #2
    with pytest.raises(InvalidMemoryError) as e:
        engine.remember("x", file="app/registry.py", symbol="Registry.put")
    assert "Registry.get#1 (lines 2-3)" in str(e.value) and "Registry.get#2 (lines 5-6)" in str(e.value), str(e.value)
