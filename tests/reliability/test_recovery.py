"""A damaged memory database: refused untouched by the store, then moved aside and salvaged by recovery."""

from __future__ import annotations

import hashlib
import sqlite3
import time
from pathlib import Path

import pytest

from forewarn.memory.errors import MemoryDatabaseCorruptError
from forewarn.memory.records import Anchor, Memory
from forewarn.memory.recovery import integrity_ok, recover_memory_db
from forewarn.memory.store import MemoryStore
from forewarn.memory.text import new_id, to_iso

MEMORIES = 600  # enough rows to fill many pages, so damage to one page loses only a few of them


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build(path: Path, n: int = MEMORIES) -> list[str]:
    store = MemoryStore(path)
    ids = []
    batch = []
    for i in range(n):
        at = to_iso(1_700_000_000 + i)
        mid = new_id(1_700_000_000 + i)
        text = f"lesson {i}: the invoice rounding must use banker's rounding " + "detail " * 20
        batch.append((Memory(mid, "gotcha", text, Anchor(f"src/m{i % 7}.py"), "user", 1.0, at, at), []))
        ids.append(mid)
    store.insert_many(batch)
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # pages in the main file, where the damage goes
    store.close()
    return ids


def page_of_table(path: Path, table: str) -> tuple[int, int]:
    """(page size, a leaf page number in the middle of ``table``'s b-tree) via dbstat-free arithmetic."""
    conn = sqlite3.connect(str(path))
    try:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
    finally:
        conn.close()
    return page_size, pages // 3


def damage(path: Path, page: int, page_size: int) -> None:
    with open(path, "r+b") as f:
        f.seek((page - 1) * page_size)
        f.write(b"\xa5" * page_size)


def test_healthy_database_is_left_untouched(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    build(db, 20)
    before = sha(db)
    report = recover_memory_db(db)
    assert not report.corrupt
    assert sha(db) == before
    assert list(tmp_path.glob("memory.db.corrupt-*")) == []


def test_damaged_pages_are_moved_aside_and_rows_salvaged(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    ids = build(db)
    page_size, page = page_of_table(db, "memories")
    for p in (page, page + 1):
        damage(db, p, page_size)
    damaged = sha(db)
    assert not integrity_ok(db)

    report = recover_memory_db(db)

    assert report.corrupt
    assert report.moved_to is not None and sha(report.moved_to) == damaged  # the original, byte for byte
    assert integrity_ok(db)
    store = MemoryStore(db)  # the recovered database opens with the current schema, FTS included
    try:
        kept = {r[0] for r in store.conn.execute("SELECT id FROM memories")}
        assert kept <= set(ids)
        assert len(kept) == report.memories
        assert len(kept) >= MEMORIES * 0.8, report.message()
        hits = store.conn.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH 'banker'").fetchone()[0]
        assert hits == len(kept)
    finally:
        store.close()
    assert str(report.moved_to) in report.message()
    assert f"{report.memories} memories were recovered" in report.message()


def test_store_refuses_a_damaged_database_without_changing_it(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    build(db, 50)
    with open(db, "r+b") as f:
        f.write(b"this is not a database header")
    before = sha(db)
    with pytest.raises(MemoryDatabaseCorruptError) as info:
        MemoryStore(db)
    assert str(db) in str(info.value)
    assert "forewarn memory recover" in str(info.value)  # the message says what to do next
    assert sha(db) == before


def test_destroyed_header_keeps_the_original_and_still_reads_its_pages(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    build(db, 200)
    with open(db, "r+b") as f:
        f.write(b"\x00" * 100)  # the 100-byte header: SQLite no longer recognises the file at all
    damaged = sha(db)
    report = recover_memory_db(db)
    assert report.corrupt and report.moved_to is not None
    assert sha(report.moved_to) == damaged  # kept; never deleted
    assert integrity_ok(db)
    assert report.memories == 200  # the pages were read without SQLite's header (page size found from page 2)
    message = report.message()
    assert str(report.moved_to) in message and f"{report.memories} memories were recovered" in message
    assert "header is destroyed" in message


def test_recovery_time_is_bounded_by_the_file_not_by_row_ids(tmp_path: Path) -> None:
    """A damaged page among rows with huge row ids: the old probe walked every row id up to 50 million."""
    db = tmp_path / "memory.db"
    build(db)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE memories SET num = num + 40000000 WHERE num > 300")  # sparse, far-apart row ids
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    page_size, page = page_of_table(db, "memories")
    damage(db, page, page_size)
    lines: list[str] = []
    started = time.perf_counter()
    report = recover_memory_db(db, progress=lines.append)
    assert time.perf_counter() - started < 5.0
    assert report.corrupt and report.memories >= MEMORIES * 0.8, report.message()
    assert report.memories + report.unreadable["memories"] == MEMORIES  # the id index knows what was lost
    assert any(line.startswith("reading") for line in lines)


def test_cli_recovers_on_request(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    from forewarn import paths

    root = tmp_path / "ws"
    root.mkdir()
    db = paths.workspace_dir(root) / "memory.db"
    build(db)
    page_size, page = page_of_table(db, "memories")
    damage(db, page, page_size)
    cli = [sys.executable, "-m", "forewarn.cli.main"]

    done = subprocess.run(
        [*cli, "memory", "recover", "--json", "-w", str(root)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["corrupt"] and Path(report["moved_to"]).exists()
    assert report["recovered"]["memories"] >= MEMORIES * 0.8

    assert integrity_ok(db)
    listed = subprocess.run(
        [*cli, "memory", "list", "--json", "-w", str(root)], capture_output=True, text=True, timeout=120
    )
    assert listed.returncode == 0, listed.stderr
