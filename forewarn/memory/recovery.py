"""Salvaging a damaged memory database: move it aside, say so, and rebuild what SQLite can still read.

Memories are user data, so a database that cannot be opened is never deleted or silently replaced.
:func:`recover_memory_db` is what the memory store calls when opening ``memory.db`` raises
:class:`~forewarn.memory.store.MemoryDatabaseCorruptError`:

1. ``memory.db`` and its ``-wal``/``-shm`` companions (the WAL holds committed writes too) are
   renamed to ``memory.db.corrupt-<UTC time>`` (+ suffixes), never overwritten, never deleted.
2. Rows are salvaged from that copy table by table. A table whose full scan fails is read row by
   row by rowid, so one damaged page costs only the rows stored on it. If SQLite cannot even read
   the schema, the ``sqlite3`` command-line shell's ``.recover`` (when installed) scans the raw
   pages, and memory rows are taken from its output.
3. A fresh ``memory.db`` with the current schema receives the salvaged memories, their history
   events and their embeddings (the vector index is rebuilt from them on the next open).
4. The returned :class:`RecoveryReport` says what was moved where and how much came back; callers
   show ``report.message()`` to the user (a warning in the editor, stderr in the CLI).

A database that passes ``PRAGMA integrity_check`` is left exactly where it is (``corrupt`` False).
Only one process should recover at a time; a second one finds a healthy new database and stops.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forewarn.paths import FILE_MODE
from forewarn.sqlite import transaction

log = logging.getLogger(__name__)

SIDECARS = ("-wal", "-shm")
SALVAGED_TABLES = ("memories", "memory_events", "memory_vectors")  # parents first: vectors reference memories
PROBE_MISSES = 2_000  # consecutive absent rowids before a row-by-row scan gives up on a table
PROBE_CEILING = 50_000_000  # rowids are dense in practice; never probe an unbounded range
SQLITE_CLI_TIMEOUT_S = 300  # .recover on a large file is slow but bounded


@dataclass
class RecoveryReport:
    """What :func:`recover_memory_db` found and did."""

    path: Path
    corrupt: bool  # False: the database was healthy and left untouched
    moved_to: Path | None = None  # where the damaged file now lies (with its -wal/-shm beside it)
    recovered: dict[str, int] = field(default_factory=dict)  # table -> rows copied into the new database
    unreadable: dict[str, int] = field(default_factory=dict)  # table -> rowids that failed to read
    method: str = "none"  # "scan", "rowid-probe", "sqlite3 .recover" or "none"
    problems: list[str] = field(default_factory=list)

    @property
    def memories(self) -> int:
        return self.recovered.get("memories", 0)

    def message(self) -> str:
        if not self.corrupt:
            return f"The memory database {self.path} is healthy; nothing was changed."
        lost = self.unreadable.get("memories", 0)
        text = (
            f"The memory database {self.path} was damaged. The original was moved to {self.moved_to} "
            f"(kept, never deleted). {self.memories} memories were recovered ({self.method})"
        )
        text += f"; {lost} memory rows could not be read." if lost else "."
        if self.problems:
            text += " Problems: " + "; ".join(self.problems[:5])
        return text


def integrity_ok(path: Path) -> bool:
    """True when SQLite opens ``path`` and ``PRAGMA integrity_check`` answers ``ok``."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = conn.execute("PRAGMA integrity_check").fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return False
    return [tuple(r) for r in rows] == [("ok",)]


def recover_memory_db(path: Path) -> RecoveryReport:
    """Move a damaged ``memory.db`` aside and rebuild it from what can be read. See the module docs."""
    path = Path(path)
    if not path.exists():
        return RecoveryReport(path, corrupt=False, problems=["no database file"])
    if integrity_ok(path):
        return RecoveryReport(path, corrupt=False)
    report = RecoveryReport(path, corrupt=True)
    report.moved_to = _move_aside(path)
    log.warning("memory database %s is damaged; moved it to %s", path, report.moved_to)
    with tempfile.TemporaryDirectory(prefix="forewarn-recover-") as tmp:
        # read a copy: opening the damaged file may try to write (WAL replay) and must not change it
        work = Path(tmp) / "damaged.db"
        for suffix in ("", *SIDECARS):
            src = Path(str(report.moved_to) + suffix)
            if src.exists():
                shutil.copyfile(src, str(work) + suffix)
        rows = _salvage_with_sqlite(work, report)
        if not rows.get("memories"):
            cli_rows = _salvage_with_cli(work, Path(tmp), report)
            if cli_rows.get("memories"):
                rows = cli_rows
        _write_new_database(path, rows, report)
    log.warning("%s", report.message())
    return report


# ---------------------------------------------------------------- moving aside


def _move_aside(path: Path) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while any(Path(str(aside) + s).exists() for s in ("", *SIDECARS)):  # never overwrite an earlier one
        n += 1
        aside = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    os.rename(path, aside)
    for suffix in SIDECARS:
        side = Path(str(path) + suffix)
        if side.exists():
            os.rename(side, str(aside) + suffix)
    return aside


# ---------------------------------------------------------------- salvage through the sqlite3 module


Rows = dict[str, tuple[list[str], list[tuple[Any, ...]]]]  # table -> (columns, rows)


def _salvage_with_sqlite(db: Path, report: RecoveryReport) -> Rows:
    out: Rows = {}
    try:
        conn = sqlite3.connect(str(db))
    except sqlite3.DatabaseError as exc:
        report.problems.append(f"cannot open the copy: {exc}")
        return out
    try:
        methods: set[str] = set()
        for table in SALVAGED_TABLES:
            try:
                columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            except sqlite3.DatabaseError as exc:
                report.problems.append(f"{table}: schema unreadable ({exc})")
                continue
            if not columns:
                report.problems.append(f"{table}: missing from the schema")
                continue
            got, bad, method = _read_table(conn, table, columns)
            methods.add(method)
            out[table] = (columns, got)
            if bad:
                report.unreadable[table] = bad
        report.method = "rowid-probe" if "rowid-probe" in methods else ("scan" if methods else "none")
    finally:
        conn.close()
    return out


def _read_table(conn: sqlite3.Connection, table: str, columns: list[str]) -> tuple[list[tuple[Any, ...]], int, str]:
    """All rows of ``table``; by full scan, else row by row so damaged pages cost only their rows."""
    cols = ", ".join(columns)
    try:
        return [tuple(r) for r in conn.execute(f"SELECT {cols} FROM {table}")], 0, "scan"
    except sqlite3.DatabaseError as exc:
        log.warning("full scan of %s failed (%s); reading row by row", table, exc)
    rows: list[tuple[Any, ...]] = []
    bad = 0
    for rowid in _probe_range(conn, table):
        try:
            row = conn.execute(f"SELECT {cols} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.DatabaseError:
            bad += 1
            continue
        if row is not None:
            rows.append(tuple(row))
    return rows, bad, "rowid-probe"


def _probe_range(conn: sqlite3.Connection, table: str) -> Iterator[int]:
    """Rowids to try: up to max(rowid) when SQLite can tell it, else until a long run of misses."""
    try:
        top = conn.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0]
    except sqlite3.DatabaseError:
        top = None
    if isinstance(top, int):
        yield from range(1, min(top, PROBE_CEILING) + 1)
        return
    misses, rowid = 0, 0
    while misses < PROBE_MISSES and rowid < PROBE_CEILING:
        rowid += 1
        try:
            hit = conn.execute(f"SELECT 1 FROM {table} WHERE rowid = ?", (rowid,)).fetchone() is not None
        except sqlite3.DatabaseError:
            hit = True  # a damaged page: the row may have been there; keep probing past it
        misses = 0 if hit else misses + 1
        yield rowid


# ---------------------------------------------------------------- salvage through the sqlite3 shell


def _salvage_with_cli(db: Path, tmp: Path, report: RecoveryReport) -> Rows:
    """``sqlite3 db .recover`` reads raw pages when SQLite cannot; its rows pass the same copy checks."""
    cli = shutil.which("sqlite3")
    if cli is None:
        report.problems.append("the sqlite3 shell is not installed, so raw-page recovery was not tried")
        return {}
    try:
        dump = subprocess.run(
            [cli, str(db), ".recover"], capture_output=True, timeout=SQLITE_CLI_TIMEOUT_S, check=False
        ).stdout.decode("utf-8", "surrogateescape")
    except (OSError, subprocess.TimeoutExpired) as exc:
        report.problems.append(f"sqlite3 .recover failed: {exc}")
        return {}
    rebuilt = tmp / "recovered.db"
    conn = sqlite3.connect(str(rebuilt))
    try:
        conn.executescript(dump)
    except sqlite3.DatabaseError as exc:  # partial output still holds what loaded before the error
        report.problems.append(f"sqlite3 .recover output did not load fully: {exc}")
    finally:
        conn.close()
    rows = _salvage_with_sqlite(rebuilt, RecoveryReport(db, corrupt=True))
    if rows.get("memories", ([], []))[1]:
        report.method = "sqlite3 .recover"
    return rows


# ---------------------------------------------------------------- writing the new database


def _write_new_database(path: Path, rows: Rows, report: RecoveryReport) -> None:
    from forewarn.memory.store import MemoryStore  # the store owns the schema; recovery only copies rows

    store = MemoryStore(path)
    try:
        conn = store.conn
        with transaction(conn):
            memory_nums: set[int] = set()
            for table in SALVAGED_TABLES:
                if table not in rows:
                    continue
                source_cols, data = rows[table]
                target_cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
                keep = [i for i, c in enumerate(source_cols) if c in target_cols]
                names = [source_cols[i] for i in keep]
                sql = f"INSERT OR IGNORE INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
                copied = 0
                for row in data:
                    values = tuple(row[i] for i in keep)
                    if table == "memory_vectors":
                        num = dict(zip(names, values, strict=True)).get("memory_num")
                        if num not in memory_nums:
                            continue  # its memory was lost: a dangling vector would break the index
                    try:
                        cur = conn.execute(sql, values)
                    except sqlite3.DatabaseError as exc:  # a garbled row (NOT NULL, CHECK): skip it, count it
                        report.unreadable[table] = report.unreadable.get(table, 0) + 1
                        log.debug("skipping a salvaged %s row: %s", table, exc)
                        continue
                    copied += cur.rowcount
                if table == "memories":
                    memory_nums = {int(r[0]) for r in conn.execute("SELECT num FROM memories")}
                report.recovered[table] = copied
    finally:
        store.close()
    os.chmod(path, FILE_MODE)


__all__ = ["RecoveryReport", "integrity_ok", "recover_memory_db"]
