"""Suggestions in the memory database: the m004 upgrade keeps everything; mined fingerprints and mining state."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from forewarn.memory.records import Anchor, Memory
from forewarn.memory.store import MIGRATIONS, MemoryStore
from forewarn.memory.suggestions import commit_count, provenance_line
from forewarn.memory.text import new_id, to_iso
from forewarn.memory.vocabulary import MemoryStatus, MemoryType
from forewarn.sqlite import connect, migrate

T0 = 1_700_000_000.0


def _old_database(path: Path, n: int) -> dict[str, int]:
    """A database as the previous release left it (migrations up to m003), with gaps in ``num``."""
    conn = connect(path)
    migrate(conn, MIGRATIONS[:3], what="test database")
    assert [r[0] for r in conn.execute("SELECT name FROM _migrations")] == [m.name for m in MIGRATIONS[:3]]
    nums: dict[str, int] = {}
    conn.execute("BEGIN")
    for i in range(n):
        mid = new_id(T0 + i)
        num = 10 + 3 * i  # not 1..n: the upgrade must keep the keys, not renumber
        iso = to_iso(T0 + i)
        status = ("active", "stale", "superseded", "archived", "orphaned")[i % 5]
        conn.execute(
            """INSERT INTO memories (num, id, type, text, file, symbol, start_line, end_line, source, confidence,
                 created_at, updated_at, status, tags, terms)
               VALUES (?, ?, 'gotcha', ?, ?, ?, 1, 2, 'user', 1.0, ?, ?, ?, ?, '')""",
            (num, mid, f"lesson {i} about zebracorn{i}", f"src/f{i % 3}.py", f"fn{i}", iso, iso, status,
             json.dumps([f"tag{i}"])),
        )  # fmt: skip
        conn.execute(
            """INSERT INTO memory_events (id, memory_id, at, kind, detail) VALUES (?, ?, ?, 'created', '{}')""",
            (f"ev-{mid}", mid, iso),
        )
        conn.execute(
            """INSERT INTO memory_vectors (memory_num, model_id, dim, vector) VALUES (?, 'm', 4, ?)""",
            (num, np.full(4, i, dtype=np.float32).tobytes()),
        )
        nums[mid] = num
    conn.execute("COMMIT")
    conn.close()
    return nums


def test_upgrade_from_m003_keeps_every_memory_event_fts_hit_num_and_index(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    nums = _old_database(path, 25)
    before = sqlite3.connect(path)
    old_indexes = {r[0] for r in before.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'memories'")}
    old_rows = before.execute("SELECT * FROM memories ORDER BY num").fetchall()
    before.close()

    store = MemoryStore(path)
    try:
        names = [r[0] for r in store.conn.execute("SELECT name FROM _migrations ORDER BY rowid")]
        assert names == [m.name for m in MIGRATIONS]
        new_indexes = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'memories'")}
        assert old_indexes <= new_indexes
        rows = store.conn.execute(f"SELECT * FROM memories ORDER BY num").fetchall()  # noqa: F541
        width = len(old_rows[0])  # provenance (m004), visibility and recorded_by (m005) come after
        terms = width - 1  # the last old column: m008 recomputes it (identifier_terms), everything else is kept
        assert [tuple(r)[:terms] for r in rows] == [tuple(r)[:terms] for r in old_rows]
        assert all(
            set(str(o[terms]).split()) <= set(str(r[terms]).split()) for r, o in zip(rows, old_rows, strict=True)
        )
        assert all(r["provenance"] is None for r in rows)
        for i, (mid, num) in enumerate(nums.items()):
            m = store.get(mid)
            assert m is not None and m.num == num and m.provenance is None
            assert [e.kind for e in store.events(mid)] == ["created"]
            assert [n for n, _ in store.fts_ranked(f"zebracorn{i}", 5)] == [num]
        vecs = store.vectors_for("m", list(nums.values()))
        assert sorted(vecs) == sorted(nums.values())
        assert store.conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        # the FTS triggers came back: an edit is searchable, and the new statuses are accepted
        first = next(iter(nums))
        store.set_text(first, "now about quokkas", at=to_iso(T0 + 100))
        assert [n for n, _ in store.fts_ranked("quokkas", 5)] == [nums[first]]
        assert store.fts_ranked("zebracorn0", 5) == []
        store.update_status(first, MemoryStatus.SUGGESTED, at=to_iso(T0 + 101))
        store.update_status(first, MemoryStatus.DISMISSED, at=to_iso(T0 + 102))
        with pytest.raises(sqlite3.IntegrityError):
            store.conn.execute("UPDATE memories SET status = 'bogus' WHERE id = ?", (first,))
    finally:
        store.close()


def test_provenance_round_trips_and_mined_fingerprints_are_remembered(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "memory.db")
    try:
        iso = to_iso(T0)
        prov = {"commits": [{"sha": "abc1234def", "author": "Ann", "date": "2024-03-02T10:00:00Z", "subject": "Fix x"}],
                "anchor": "symbol"}  # fmt: skip
        m = store.insert(
            Memory(
                id=new_id(T0), type=MemoryType.GOTCHA, text="t", anchor=Anchor("a.py", "f"), source="commit",
                confidence=0.8, created_at=iso, updated_at=iso, status=MemoryStatus.SUGGESTED, provenance=prov,
            )
        )  # fmt: skip
        got = store.get(m.id)
        assert got is not None and got.provenance == prov and got.to_dict()["provenance"] == prov
        store.record_mined([("fix:abc", m.id)], at=iso)
        store.record_mined([("fix:abc", "other")], at=iso)  # the first memory stays
        assert store.mined(["fix:abc", "fix:new"]) == {"fix:abc": (m.id, "suggested")}
        assert store.mining_state("last_mined_commit") is None
        store.set_mining_state("last_mined_commit", "abc")
        store.set_mining_state("last_mined_commit", "def")
        assert store.mining_state("last_mined_commit") == "def"
    finally:
        store.close()


def test_provenance_line() -> None:
    prov = {"commits": [{"sha": "abc1234def", "author": "Ann", "date": "2024-03-02T10:00:00Z", "subject": "Fix x"},
                        {"sha": "0123456789"}]}  # fmt: skip
    assert provenance_line(prov) == "from commit abc1234 by Ann on 2024-03-02: Fix x (+1 more commits)"
    assert commit_count(prov) == 2
    assert provenance_line(None) is None
    assert commit_count({}) == 0


def test_anchored_files_lists_the_files_of_the_statuses_asked_without_loading_memories(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "memory.db")
    at = to_iso(T0)
    statuses = (MemoryStatus.ACTIVE, MemoryStatus.SUGGESTED, MemoryStatus.DISMISSED, MemoryStatus.SUGGESTED)
    for i, status in enumerate(statuses):
        anchor = Anchor(f"src/f{i}.py", "fn", 1, 2) if i != 3 else None  # a workspace-wide suggestion has no file
        store.insert(
            Memory(new_id(T0 + i), MemoryType.GOTCHA, f"lesson {i}", anchor, "mined", 1.0, at, at, status=status)
        )
    assert store.anchored_files([MemoryStatus.ACTIVE, MemoryStatus.SUGGESTED]) == {"src/f0.py", "src/f1.py"}
    assert store.anchored_files([MemoryStatus.DISMISSED]) == {"src/f2.py"}
    assert store.anchored_files([MemoryStatus.ARCHIVED]) == set()
    store.close()
