"""Salvaging a damaged memory database: move it aside, say so, and rebuild what its pages still hold.

Memories are user data, so a damaged database is never deleted or silently replaced. The store
refuses one (:class:`~forewarn.memory.store.MemoryDatabaseCorruptError`, naming ``forewarn memory
recover``); :func:`recover_memory_db` is what that command runs:

1. ``memory.db`` and its ``-wal``/``-shm`` companions (the WAL holds committed writes too) are
   renamed to ``memory.db.corrupt-<UTC time>`` (+ suffixes), never overwritten, never deleted.
2. A copy is read page by page (:mod:`forewarn.sqlite_pages`), after SQLite has merged its WAL into
   the copy where it still can: each table's b-tree is walked from its root, a page that does not
   parse is skipped, and leaves cut off by a damaged parent are found in one pass over the file. So a
   damaged page costs only the rows on it, and the work is bounded by the file's size (never by row
   ids: the old row-by-row probe tried up to 50 million of them).
3. The memories' id index and the history's key index list what existed, so the report says what
   was lost — memories (with their ids) and history events — not only what came back.
4. A fresh ``memory.db`` with the current schema receives the salvaged memories, their history
   events and their embeddings (the vector index is rebuilt from them on the next open).

A database that passes ``PRAGMA integrity_check`` is left exactly where it is (``corrupt`` False).
Only one process should recover at a time; a second one finds a healthy new database and stops.
"""

from __future__ import annotations

import json
import logging
import mmap
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forewarn.memory.vocabulary import MemoryStatus, MemoryType
from forewarn.paths import FILE_MODE
from forewarn.sqlite import transaction
from forewarn.sqlite_pages import PageFile, Value, Walk, schema

log = logging.getLogger(__name__)

SIDECARS = ("-wal", "-shm")
SALVAGED_TABLES = ("memories", "memory_events", "memory_vectors")  # parents first: vectors reference memories
LOST_IDS_SHOWN = 5  # lost memory ids named in the message: enough to look them up in an export
PROGRESS_STEPS = 10  # progress lines per pass over the pages…
PROGRESS_MIN_PAGES = 2_000  # …at most one per this many pages (~0.1 s of reading): a small file prints none

Say = Callable[[str], None]


@dataclass
class RecoveryReport:
    """What :func:`recover_memory_db` found and did."""

    path: Path
    corrupt: bool  # False: the database was healthy and left untouched
    moved_to: Path | None = None  # where the damaged file now lies (with its -wal/-shm beside it)
    recovered: dict[str, int] = field(default_factory=dict)  # table -> rows copied into the new database
    unreadable: dict[str, int] = field(default_factory=dict)  # table -> rows known to have existed, not saved
    lost_memory_ids: list[str] = field(default_factory=list)  # ids the id index still names, rows gone
    counts_exact: bool = True  # False: an index was damaged too, so the losses are "at least"
    damaged_pages: int = 0  # pages that did not parse
    method: str = "none"  # "pages" (read page by page) or "none"
    problems: list[str] = field(default_factory=list)

    @property
    def memories(self) -> int:
        return self.recovered.get("memories", 0)

    @property
    def events(self) -> int:
        return self.recovered.get("memory_events", 0)

    def message(self) -> str:
        if not self.corrupt:
            return f"The memory database {self.path} is healthy; nothing was changed."
        lost, lost_events = self.unreadable.get("memories", 0), self.unreadable.get("memory_events", 0)
        about = "" if self.counts_exact else "at least "
        text = (
            f"The memory database {self.path} was damaged. The original was moved to {self.moved_to} "
            f"(kept, never deleted). {self.memories} memories were recovered, with {self.events} history events "
            f"({self.damaged_pages} damaged pages skipped). "
        )
        if lost or lost_events:
            text += f"Lost: {about}{lost} memories and {about}{lost_events} history events."
            if self.lost_memory_ids:
                shown = ", ".join(self.lost_memory_ids[:LOST_IDS_SHOWN])
                more = ", …" if len(self.lost_memory_ids) > LOST_IDS_SHOWN else ""
                text += (
                    f" Lost memory ids: {shown}{more} (a teammate's export or .forewarn/memories.jsonl may hold them)."
                )
        else:
            text += "Nothing known to exist was lost." if self.counts_exact else "No losses could be counted."
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


def recover_memory_db(path: Path, progress: Say | None = None) -> RecoveryReport:
    """Move a damaged ``memory.db`` aside and rebuild it from what can be read. See the module docs.

    ``progress`` receives a line per step (the CLI prints them on stderr).
    """
    path = Path(path)
    say: Say = progress or (lambda _line: None)
    if not path.exists():
        return RecoveryReport(path, corrupt=False, problems=["no database file"])
    say(f"checking {path} ({path.stat().st_size:,} bytes)")
    if integrity_ok(path):
        return RecoveryReport(path, corrupt=False)
    report = RecoveryReport(path, corrupt=True, method="pages")
    report.moved_to = _move_aside(path)
    log.info("memory database %s is damaged; moved it to %s", path, report.moved_to)
    say(f"damaged: moved it to {report.moved_to} (kept)")
    with tempfile.TemporaryDirectory(prefix="forewarn-recover-") as tmp:
        # read a copy: opening the damaged file may try to write (WAL replay) and must not change it
        work = Path(tmp) / "damaged.db"
        for suffix in ("", *SIDECARS):
            src = Path(str(report.moved_to) + suffix)
            if src.exists():
                shutil.copyfile(src, str(work) + suffix)
        _merge_wal(work, report)
        rows = _salvage_pages(work, report, say)
        say("writing the salvaged rows into a fresh memory.db")
        _write_new_database(path, rows, report)
    log.info("%s", report.message())
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


# ---------------------------------------------------------------- salvage, page by page


Rows = dict[str, tuple[list[str], list[tuple[Any, ...]]]]  # table -> (columns, rows)


def _merge_wal(work: Path, report: RecoveryReport) -> None:
    """Let SQLite copy the copy's WAL into it (committed writes the file alone lacks), where it still can."""
    wal = Path(str(work) + "-wal")
    if not wal.exists() or wal.stat().st_size == 0:
        return
    try:
        conn = sqlite3.connect(str(work))
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        report.problems.append(f"the write-ahead log could not be merged ({exc}): its latest writes are missing")


def _ticker(say: Say, what: str, total: int) -> Callable[[int, int], None]:
    step = max(PROGRESS_MIN_PAGES, total // PROGRESS_STEPS)
    last = [0]

    def tick(done: int, _total: int) -> None:
        if done - last[0] >= step:
            last[0] = done
            say(f"{what}: {done:,} of {total:,} pages")

    return tick


def _columns(sql: Any, table: str) -> list[str]:
    """The column names of ``table``: from the damaged file's own CREATE statement, else today's schema."""
    from forewarn.memory.migrations import MIGRATIONS  # the schema is the migrations'
    from forewarn.sqlite import migrate

    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        if isinstance(sql, str) and sql.upper().startswith("CREATE TABLE"):
            try:
                conn.execute(sql)
            except sqlite3.DatabaseError:
                migrate(conn, MIGRATIONS, what="schema")
        else:
            migrate(conn, MIGRATIONS, what="schema")
        return [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
    finally:
        conn.close()


def _salvage_pages(work: Path, report: RecoveryReport, say: Say) -> Rows:
    try:
        pages = PageFile(work)
    except (OSError, ValueError) as exc:
        report.problems.append(f"cannot read the copy: {exc}")
        return {}
    try:
        say(f"reading {pages.page_count:,} pages of {pages.page_size:,} bytes")
        if not pages.header_ok:
            report.problems.append(f"the file header is destroyed; read it as {pages.page_size}-byte pages")
        entries, schema_walk = schema(pages)
        tables = {e["name"]: e for e in entries if isinstance(e.get("rootpage"), int) and e["rootpage"] > 0}
        if schema_walk.bad_pages or "memories" not in tables:
            report.problems.append("the schema is damaged: tables were found by the shape of their rows")
        columns = {t: _columns(tables.get(t, {}).get("sql"), t) for t in SALVAGED_TABLES}
        seen = set(schema_walk.pages) | schema_walk.bad_pages
        tick = _ticker(say, "walked", pages.page_count)
        walks: dict[str, Walk] = {
            name: pages.walk(e["rootpage"], seen=seen, progress=tick) for name, e in tables.items()
        }
        bad = set(schema_walk.bad_pages).union(*(w.bad_pages for w in walks.values()))
        found: dict[str, dict[int, list[Value]]] = {t: {} for t in SALVAGED_TABLES}
        for table in SALVAGED_TABLES:
            walk = walks.get(table)
            for rowid, values in walk.rows if walk else ():
                if _fits(table, values, columns[table]):  # a garbled row is lost, and counted as lost below
                    found[table][rowid] = values
        if bad or "memories" not in tables:
            say("looking for pages cut off from their tables")
            for _, leaf_rows in pages.orphan_leaves(seen, pages.freelist()):
                for rowid, values in leaf_rows:
                    owner = next((t for t in SALVAGED_TABLES if _fits(t, values, columns[t])), None)
                    if owner is not None:
                        found[owner].setdefault(rowid, values)
        report.damaged_pages = len(bad)
        _count_losses(tables, walks, found, columns, report)
        out: Rows = {}
        for table in SALVAGED_TABLES:
            cols = columns[table]
            key = _rowid_column(table)
            out[table] = (cols, [_as_row(rowid, values, cols, key) for rowid, values in sorted(found[table].items())])
        say(
            f"salvaged {len(found['memories']):,} memories, {len(found['memory_events']):,} history events, "
            f"{len(found['memory_vectors']):,} vectors"
        )
        return out
    finally:
        if isinstance(pages.data, mmap.mmap):
            pages.data.close()


def _rowid_column(table: str) -> str | None:
    """The INTEGER PRIMARY KEY (stored as the row id, NULL in the record) of each salvaged table."""
    return {"memories": "num", "memory_vectors": "vec_id"}.get(table)


def _as_row(rowid: int, values: list[Value], cols: list[str], key: str | None) -> tuple[Any, ...]:
    row = list(values) + [None] * (len(cols) - len(values))  # columns added later read as their default
    if key is not None and key in cols:
        row[cols.index(key)] = rowid
    return tuple(row)


def _fits(table: str, values: list[Value], cols: list[str]) -> bool:
    """Whether a decoded record is a sound row of ``table`` (a garbled one, or another table's, is not)."""
    if not 0 < len(values) <= len(cols):
        return False
    row = dict(zip(cols, values, strict=False))
    try:
        if table == "memories":
            tags = json.loads(str(row.get("tags", "[]")))
            return (
                len(values) >= cols.index("tags") + 1
                and isinstance(row.get("id"), str)
                and isinstance(row.get("text"), str)
                and row.get("type") in {t.value for t in MemoryType}
                and row.get("status") in {s.value for s in MemoryStatus}
                and isinstance(tags, list)
            )
        if table == "memory_events":
            return (
                len(values) == len(cols)
                and all(isinstance(row.get(c), str) for c in ("id", "memory_id", "at", "kind"))
                and isinstance(json.loads(str(row.get("detail"))), dict)
            )
        if table == "memory_vectors":
            blob, dim = row.get("vector"), row.get("dim")
            return (
                len(values) == len(cols)
                and isinstance(row.get("memory_num"), int)
                and isinstance(row.get("model_id"), str)
                and isinstance(dim, int)
                and isinstance(blob, bytes)
                and len(blob) == 4 * dim
            )
    except (ValueError, TypeError):
        return False
    return False


def _count_losses(
    tables: dict[str, Any],
    walks: dict[str, Walk],
    found: dict[str, dict[int, list[Value]]],
    columns: dict[str, list[str]],
    report: RecoveryReport,
) -> None:
    """What existed, from the unique indexes on memory ids and event ids (and the events' memory ids)."""
    id_at = {t: columns[t].index("id") for t in ("memories", "memory_events")}
    saved = {t: {str(v[id_at[t]]) for v in found[t].values()} for t in id_at}
    known = {t: set(saved[t]) for t in id_at}
    for table in id_at:
        index = next((n for n, e in tables.items() if e.get("tbl_name") == table and e.get("sql") is None), None)
        walk = walks.get(index) if index else None
        if walk is None or walk.bad_pages or walk.bad_cells or walks.get(table) is None:
            report.counts_exact = False
        for _, key in walk.rows if walk else ():
            if key and isinstance(key[0], str):
                known[table].add(key[0])
    mem_at = columns["memory_events"].index("memory_id")
    known["memories"].update(str(v[mem_at]) for v in found["memory_events"].values())
    lost = known["memories"] - saved["memories"]
    report.lost_memory_ids = sorted(lost)
    report.unreadable = {"memories": len(lost), "memory_events": len(known["memory_events"] - saved["memory_events"])}


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
                info = conn.execute(f"PRAGMA table_info({table})").fetchall()
                target_cols = [r[1] for r in info]
                # a row written before a column was added (ALTER TABLE … DEFAULT) lacks it on disk and reads as
                # the default: so here too (m005's NOT NULL visibility would refuse the row otherwise)
                defaults = {r[1]: conn.execute(f"SELECT {r[4]}").fetchone()[0] for r in info if r[3] and r[4]}
                keep = [i for i, c in enumerate(source_cols) if c in target_cols]
                names = [source_cols[i] for i in keep]
                sql = f"INSERT OR IGNORE INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
                copied = 0
                for row in data:
                    picked = zip(names, (row[i] for i in keep), strict=True)
                    values = tuple(defaults[n] if v is None and n in defaults else v for n, v in picked)
                    if table == "memory_vectors":
                        num = dict(zip(names, values, strict=True)).get("memory_num")
                        if num not in memory_nums:
                            continue  # its memory was lost: a dangling vector would break the index
                    try:
                        cur = conn.execute(sql, values)
                    except sqlite3.DatabaseError as exc:  # a garbled row (NOT NULL, CHECK): skip it, count it
                        report.unreadable[table] = report.unreadable.get(table, 0) + 1
                        report.problems.append(f"a salvaged {table} row was refused: {exc}")
                        continue
                    copied += cur.rowcount
                if table == "memories":
                    memory_nums = {int(r[0]) for r in conn.execute("SELECT num FROM memories")}
                report.recovered[table] = copied
    finally:
        store.close()
    os.chmod(path, FILE_MODE)


__all__ = ["RecoveryReport", "integrity_ok", "recover_memory_db"]
