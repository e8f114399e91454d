"""m006 on a database written before it (m001-m005): every row kept with its number, the full-text index and
the vectors still pointing at it, ``contested`` accepted, and the relations table in place."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from forewarn.memory.records import Memory
from forewarn.memory.store import MIGRATIONS, MemoryStore
from forewarn.memory.vocabulary import MemoryStatus
from forewarn.sqlite import migrate

BEFORE_M006 = [m for m in MIGRATIONS if m.name < "m006"]


def m005_database(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    applied = migrate(conn, BEFORE_M006, what="test database")
    assert applied[-1] == "m005_visibility"
    conn.execute(
        """INSERT INTO memories (num, id, type, text, file, symbol, source, confidence, created_at, updated_at,
             status, tags, terms, visibility, recorded_by)
           VALUES (7, '01HZZZZZZZZZZZZZZZZZZZZZZ1', 'gotcha', 'charge_card retries declined cards once',
             'payments.py', 'charge_card', 'user', 1.0, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z',
             'stale', '["billing"]', 'charge card', 'private', 'Ann <ann@example.com>')"""
    )
    conn.execute(
        """INSERT INTO memory_vectors (memory_num, model_id, dim, vector) VALUES (7, 'm', 2, ?)""",
        (np.asarray([0.6, 0.8], dtype=np.float32).tobytes(),),
    )
    with pytest.raises(sqlite3.IntegrityError):  # the old CHECK refuses the new status
        conn.execute("""UPDATE memories SET status = 'contested' WHERE num = 7""")
    conn.commit()
    conn.close()


def test_m006_on_an_m005_database_keeps_every_row_and_accepts_contested(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    m005_database(path)
    store = MemoryStore(path)
    try:
        applied = [r[0] for r in store.conn.execute("SELECT name FROM _migrations ORDER BY rowid")]
        assert "m006_contested" in applied
        m = store.get("01HZZZZZZZZZZZZZZZZZZZZZZ1")
        assert isinstance(m, Memory)
        assert (m.num, m.status, m.tags, m.visibility, m.recorded_by) == (
            7, "stale", ("billing",), "private", "Ann <ann@example.com>"
        )  # fmt: skip
        assert [num for num, _ in store.fts_ranked('"declined"', 5)] == [7]  # the FTS index still reaches it
        assert list(store.vectors_for("m", [7])) == [7]
        store.update_status(m.id, MemoryStatus.CONTESTED, at="2026-01-02T00:00:00Z")
        assert store.resolve(m.id).status == MemoryStatus.CONTESTED
        with pytest.raises(sqlite3.IntegrityError):  # the visibility CHECK from m005 survived the rebuild
            store.conn.execute("""UPDATE memories SET visibility = 'public' WHERE num = 7""")
        with pytest.raises(sqlite3.IntegrityError):
            store.conn.execute("""UPDATE memories SET status = 'maybe' WHERE num = 7""")
        assert store.set_relation(m.id, "01HZZZZZZZZZZZZZZZZZZZZZZ0", "both", at="2026-01-02T00:00:00Z")
        assert [r.a for r in store.relations([m.id])] == ["01HZZZZZZZZZZZZZZZZZZZZZZ0"]
        # the triggers came back: an edited text is searchable
        store.conn.execute("""UPDATE memories SET text = 'charge_card retries twice' WHERE num = 7""")
        assert [num for num, _ in store.fts_ranked('"twice"', 5)] == [7]
    finally:
        store.close()
    reopened = MemoryStore(path)  # applied once: opening again changes nothing
    try:
        assert reopened.resolve("01HZZZZZZZZZZZZZZZZZZZZZZ1").status == MemoryStatus.CONTESTED
    finally:
        reopened.close()
