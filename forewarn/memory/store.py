"""The memory database (user data): memories, their history, full-text index and vectors.

This module owns every line of memory SQL. ``memory.db`` holds:

- ``memories`` — one row per memory, with its anchor inline (file, symbol path, line span, content
  hash of the anchored code when recorded). ``file`` NULL means workspace-wide; ``symbol`` NULL
  means file-wide. ``num`` is the integer key shared with the FTS index and the hnsw labels.
- ``memory_events`` — the history of each memory (created, merged, superseded, stale, …); event
  ids are unique so imports merge histories without duplicating them.
- ``memory_fts`` — an external-content FTS5 index over text, tags, file, symbol and the split forms
  of compound identifiers, kept in sync by triggers inside the writing transaction.
- ``memory_vectors`` — embeddings per (memory, model), the source of truth for the hnsw index.
- ``memory_shown_daily`` — how often each memory was shown per UTC day (m012); the health report's reads of
  it and of the rest live in ``store_health.py``, a part of this class.

The class is built from mixins, one concern a module: ``store_search.py`` (FTS5 ranking and term statistics),
``store_anchored.py`` (reads by file and symbol, the file-open path), ``store_mining.py`` (mining's and
reconciliation's bookkeeping), ``store_vectors.py`` (embeddings) and ``store_health.py``; ``store_rows.py`` holds
the row mapping they share. This module keeps the connection, transactions, reads by id and filter, the writes,
relations and events.

Nothing is ever deleted: superseded and archived memories stay as inspectable history. A database
that cannot be read raises :class:`MemoryDatabaseCorruptError` naming the file; it is never replaced
here (moving it aside and recovering is the reliability layer's job, through that exception).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from forewarn.memory.errors import (
    AmbiguousMemoryIdError,
    MemoryDatabaseCorruptError,
    MemoryNotFoundError,
)
from forewarn.memory.migrations import MIGRATIONS
from forewarn.memory.records import (
    Anchor,
    AnchoredRef,
    Memory,
    MemoryEvent,
    MemoryFilter,
    Relation,
    StoreStats,
)
from forewarn.memory.store_anchored import AnchoredReads
from forewarn.memory.store_health import HealthReads
from forewarn.memory.store_mining import MiningRecords
from forewarn.memory.store_rows import (
    _COLUMNS,
    SQL_VARIABLE_CHUNK,
    _chunks,
    _placeholders,
    _provenance_json,
    _row_to_memory,
)
from forewarn.memory.store_search import DOC_COUNT_TTL_S, FullTextReads
from forewarn.memory.store_vectors import VectorRows
from forewarn.memory.text import identifier_terms, normalise_id_prefix
from forewarn.memory.vocabulary import (
    CURRENT_STATUSES,
    ENDED_STATUSES,
    MemorySource,
    MemoryStatus,
    MemoryType,
)
from forewarn.sqlite import (
    CACHE_KIB,
    GuardedConnection,
    connect_guarded,
    is_corruption,
    migrate,
    transaction,
)

log = logging.getLogger(__name__)

# plain-string views of the vocabulary (forewarn.memory.vocabulary), for choices and messages
MEMORY_TYPES: tuple[str, ...] = tuple(t.value for t in MemoryType)
STATUSES: tuple[str, ...] = tuple(s.value for s in MemoryStatus)
SOURCES: tuple[str, ...] = tuple(s.value for s in MemorySource)
AMBIGUOUS_IDS_SHOWN = 3  # ids listed when a prefix matches several: enough to see how much more to type
PURGED_REASON = "purged"  # status_reason of a memory whose text was removed for good (see MemoryStore.purge)


class MemoryStore(FullTextReads, AnchoredReads, MiningRecords, VectorRows, HealthReads):
    """The memory database. Thread-safe: one connection, every call serialized by a re-entrant lock.

    Compound writes run in one transaction via :meth:`batch`; single calls open their own.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._depth = 0
        self._stem_ready = False
        self._candidate_ready = False
        self._stem_cache: dict[str, list[str]] = {}
        self._df_cache: dict[str, int] = {}
        self._df_at = -DOC_COUNT_TTL_S
        self._doc_count = 0
        self._doc_count_at = -DOC_COUNT_TTL_S
        # recent_refs' cache: rows by file (None: too many to keep), valid while _refs_key() is unchanged
        self._refs: OrderedDict[str, tuple[AnchoredRef, ...] | None] = OrderedDict()
        self._refs_rows = 0
        self._refs_at: tuple[int, int] | None = None
        self._benign_changes = 0  # rows changed by writes no cached row shows (surfaced counts)
        # checked on open, then every statement stops at the first sign of damage: see GuardedConnection
        self._guard: GuardedConnection = connect_guarded(self.path, self._damaged)
        self.conn: sqlite3.Connection = self._guard
        try:
            self.conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
            migrate(self.conn, MIGRATIONS, what=f"memory database {self.path}")
            self.conn.execute("SELECT count(*) FROM memories").fetchone()
        except sqlite3.DatabaseError as exc:
            if is_corruption(exc):
                self._guard.refuse(exc)
            self.conn.close()
            raise
        except BaseException:
            self.conn.close()
            raise

    def _damaged(self, cause: BaseException) -> MemoryDatabaseCorruptError:
        return MemoryDatabaseCorruptError(self.path, cause)

    @property
    def damage(self) -> MemoryDatabaseCorruptError | None:
        """Why this store refuses every call (the database is damaged), or None while it is sound."""
        damage = self._guard.damage
        return damage if isinstance(damage, MemoryDatabaseCorruptError) else None

    def close(self) -> None:
        with self._lock:
            self.conn.close()

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: moves only when another connection (the CLI, a second editor) commits."""
        with self._lock:
            return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    # ------------------------------------------------------------ transactions

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group writes into one transaction (re-entrant: inner batches join the outer one)."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._depth = 1
            try:
                with transaction(self.conn):
                    yield
            finally:
                self._depth = 0

    # ------------------------------------------------------------ reads

    def get(self, memory_id: str) -> Memory | None:
        with self._lock:
            row = self.conn.execute(f"""SELECT {_COLUMNS} FROM memories WHERE id = ?""", (memory_id,)).fetchone()
        return _row_to_memory(row) if row else None

    def resolve(self, id_or_prefix: str) -> Memory:
        """A memory by full id or unique id prefix (what people type); clear errors otherwise."""
        prefix = normalise_id_prefix(id_or_prefix)
        if prefix is None:
            raise MemoryNotFoundError(f"'{id_or_prefix}' is not a memory id (give at least 4 of its characters)")
        with self._lock:
            rows = self.conn.execute(
                f"""SELECT {_COLUMNS} FROM memories WHERE id >= ? AND id < ? ORDER BY id LIMIT ?""",
                (prefix, prefix + "~", AMBIGUOUS_IDS_SHOWN + 1),
            ).fetchall()
        if not rows:
            raise MemoryNotFoundError(f"no memory with id '{id_or_prefix}'")
        if len(rows) > 1 and rows[0]["id"] != prefix:
            shown = ", ".join(str(r["id"]) for r in rows[:AMBIGUOUS_IDS_SHOWN])
            more = ", …" if len(rows) > AMBIGUOUS_IDS_SHOWN else ""
            raise AmbiguousMemoryIdError(
                f"'{id_or_prefix}' matches several memories ({shown}{more}); give more of the id to pick one"
            )
        return _row_to_memory(rows[0])

    def get_many(self, ids: Sequence[str]) -> dict[str, Memory]:
        return {m.id: m for m in self._where_in("id", ids)}

    def by_nums(self, nums: Sequence[int]) -> dict[int, Memory]:
        return {m.num: m for m in self._where_in("num", nums)}

    def _where_in(self, column: str, values: Sequence[Any]) -> list[Memory]:
        """Memories whose ``column`` (a fixed name, never user input) is one of ``values``, in bounded batches."""
        out: list[Memory] = []
        with self._lock:
            for part in _chunks(list(values)):
                rows = self.conn.execute(
                    f"""SELECT {_COLUMNS} FROM memories WHERE {column} IN ({_placeholders(len(part))})""", tuple(part)
                )
                out.extend(_row_to_memory(row) for row in rows)
        return out

    @staticmethod
    def _filter_sql(flt: MemoryFilter, alias: str = "") -> tuple[list[str], list[Any]]:
        p = alias + "." if alias else ""
        where_bits: list[str] = []
        where_args: list[Any] = []
        if flt.types:
            where_bits.append(f"{p}type IN ({_placeholders(len(flt.types))})")
            where_args += list(flt.types)
        if flt.file and flt.file_only:
            where_bits.append(f"{p}file = ?")
            where_args.append(flt.file)
        elif flt.file:
            folder = flt.file.rstrip("/") + "/"
            where_bits.append(f"({p}file = ? OR ({p}file >= ? AND {p}file < ?))")
            where_args += [flt.file.rstrip("/"), folder, folder[:-1] + "0"]  # "0" sorts right after "/"
        if flt.since:
            where_bits.append(f"{p}created_at >= ?")
            where_args.append(flt.since)
        if flt.as_of:
            where_bits.append(f"{p}created_at <= ?")
            where_args.append(flt.as_of)
            # current as of then: not yet superseded/archived at that time counts as current
            if flt.statuses:
                where_bits.append(
                    f"({p}status IN ({_placeholders(len(flt.statuses))})"
                    f" OR ({p}status IN ({_placeholders(len(ENDED_STATUSES))}) AND {p}ended_at > ?))"
                )
                where_args += [*flt.statuses, *ENDED_STATUSES, flt.as_of]
        elif flt.statuses:
            where_bits.append(f"{p}status IN ({_placeholders(len(flt.statuses))})")
            where_args += list(flt.statuses)
        for tag in flt.tags:
            where_bits.append(f"EXISTS (SELECT 1 FROM json_each({p}tags) WHERE json_each.value = ?)")
            where_args.append(tag)
        return where_bits, where_args

    def list_memories(self, flt: MemoryFilter = MemoryFilter(), *, limit: int = 50, offset: int = 0) -> list[Memory]:
        where_bits, where_args = self._filter_sql(flt)
        where = ("WHERE " + " AND ".join(where_bits)) if where_bits else ""
        with self._lock:
            rows = self.conn.execute(
                f"""SELECT {_COLUMNS} FROM memories {where} ORDER BY created_at DESC, num DESC LIMIT ? OFFSET ?""",
                (*where_args, limit, offset),
            ).fetchall()
        return [_row_to_memory(r) for r in rows]

    def count(self, flt: MemoryFilter = MemoryFilter(statuses=())) -> int:
        where_bits, where_args = self._filter_sql(flt)
        where = ("WHERE " + " AND ".join(where_bits)) if where_bits else ""
        with self._lock:
            return int(self.conn.execute(f"""SELECT count(*) FROM memories {where}""", where_args).fetchone()[0])

    def in_session(self, session_id: str, *, limit: int = 50) -> list[Memory]:
        with self._lock:
            rows = self.conn.execute(
                f"""SELECT {_COLUMNS} FROM memories WHERE session_id = ? ORDER BY created_at LIMIT ?""",
                (session_id, limit),
            ).fetchall()
        return [_row_to_memory(r) for r in rows]

    def events(self, memory_id: str) -> list[MemoryEvent]:
        with self._lock:
            rows = self.conn.execute(
                """SELECT id, memory_id, at, kind, detail FROM memory_events WHERE memory_id = ? ORDER BY at, id""",
                (memory_id,),
            ).fetchall()
        return [MemoryEvent(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    def iter_all(self, batch_size: int = 1000) -> Iterator[Memory]:
        """Every memory in creation order (export)."""
        last = 0
        while True:
            with self._lock:
                rows = self.conn.execute(
                    f"""SELECT {_COLUMNS} FROM memories WHERE num > ? ORDER BY num LIMIT ?""", (last, batch_size)
                ).fetchall()
            if not rows:
                return
            for r in rows:
                yield _row_to_memory(r)
            last = rows[-1][0]

    def stats(self, *, top: int = 5) -> StoreStats:
        with self._lock:
            by_type = dict(
                self.conn.execute(
                    f"""SELECT type, count(*) FROM memories WHERE status IN ({_placeholders(len(CURRENT_STATUSES))})
                        GROUP BY type ORDER BY count(*) DESC""",
                    CURRENT_STATUSES,
                ).fetchall()
            )
            by_status = dict(self.conn.execute("""SELECT status, count(*) FROM memories GROUP BY status""").fetchall())
            surfaced = [
                _row_to_memory(r)
                for r in self.conn.execute(
                    f"""SELECT {_COLUMNS} FROM memories WHERE surfaced_count > 0
                        ORDER BY surfaced_count DESC, num LIMIT ?""",
                    (top,),
                )
            ]
            files = {
                r[0]
                for r in self.conn.execute(
                    f"""SELECT DISTINCT file FROM memories
                        WHERE file IS NOT NULL AND status IN ({_placeholders(len(CURRENT_STATUSES))})""",
                    CURRENT_STATUSES,
                )
            }
        return StoreStats(sum(by_status.values()), by_type, by_status, surfaced, files)

    def anchored_files(self, statuses: Sequence[str]) -> set[str]:
        """The files memories in ``statuses`` are anchored to (one query; no memory is loaded)."""
        with self._lock:
            return {
                r[0]
                for r in self.conn.execute(
                    f"""SELECT DISTINCT file FROM memories
                        WHERE file IS NOT NULL AND status IN ({_placeholders(len(statuses))})""",
                    tuple(statuses),
                )
            }

    # ------------------------------------------------------------ writes

    def insert(self, memory: Memory, events: Iterable[MemoryEvent] = ()) -> Memory:
        """Insert a new memory with its events; returns it with ``num`` set."""
        return self.insert_many([(memory, list(events))])[0]

    def insert_many(self, items: Sequence[tuple[Memory, Sequence[MemoryEvent]]]) -> list[Memory]:
        out: list[Memory] = []
        with self.batch():
            for memory, events in items:
                a = memory.anchor
                cur = self.conn.execute(
                    """INSERT INTO memories (id, type, text, file, symbol, start_line, end_line, content_hash, source,
                         confidence, created_at, updated_at, status, status_reason, last_accessed_at, access_count,
                         surfaced_count, ended_at, supersedes, superseded_by, session_id, tags, terms, provenance,
                         visibility, recorded_by)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                    (
                        memory.id, memory.type, memory.text, a.file if a else None, a.symbol if a else None,
                        a.start_line if a else None, a.end_line if a else None, a.content_hash if a else None,
                        memory.source, memory.confidence, memory.created_at, memory.updated_at, memory.status,
                        memory.status_reason, memory.last_accessed_at, memory.access_count, memory.surfaced_count,
                        memory.ended_at, memory.supersedes, memory.superseded_by, memory.session_id,
                        json.dumps(list(memory.tags)),
                        identifier_terms(memory.text, a.file if a else None, a.symbol if a else None, *memory.tags),
                        _provenance_json(memory), memory.visibility, memory.recorded_by,
                    ),
                )  # fmt: skip
                self._add_events(events)
                out.append(replace(memory, num=int(cur.lastrowid or 0)))
        return out

    def replace_memory(self, memory: Memory) -> None:
        """Overwrite every field of an existing memory (by id) — used by import when the incoming copy is newer.

        The caller keeps the replaced version as history (an event holding its fields, forewarn.memory.transfer).
        ``visibility`` is never changed here: an import does not make a private memory team or the reverse.
        """
        a = memory.anchor
        with self.batch():
            self.conn.execute(
                """UPDATE memories SET type = ?, text = ?, file = ?, symbol = ?, start_line = ?, end_line = ?,
                     content_hash = ?, source = ?, confidence = ?, created_at = ?, updated_at = ?, status = ?,
                     status_reason = ?, last_accessed_at = ?, access_count = ?, surfaced_count = ?, ended_at = ?,
                     supersedes = ?, superseded_by = ?, session_id = ?, tags = ?, terms = ?,
                     provenance = coalesce(?, provenance), recorded_by = coalesce(?, recorded_by)
                   WHERE id = ?""",
                (
                    memory.type, memory.text, a.file if a else None, a.symbol if a else None,
                    a.start_line if a else None, a.end_line if a else None, a.content_hash if a else None,
                    memory.source, memory.confidence, memory.created_at, memory.updated_at, memory.status,
                    memory.status_reason, memory.last_accessed_at, memory.access_count, memory.surfaced_count,
                    memory.ended_at, memory.supersedes, memory.superseded_by, memory.session_id,
                    json.dumps(list(memory.tags)),
                    identifier_terms(memory.text, a.file if a else None, a.symbol if a else None, *memory.tags),
                    _provenance_json(memory), memory.recorded_by,
                    memory.id,
                ),
            )  # fmt: skip

    def purge(self, memory_id: str, *, at: str, event: MemoryEvent) -> None:
        """Remove a memory's text for good: the row's text, tags and search terms, the text merged into its
        events' details, its vectors, and the full-text index's copy (optimized, so old segments go too).

        The row stays (archived, reason ``purged``, empty text) with its events' kinds and times, so
        history shows that a memory was purged, not what it said. Freed pages are zeroed
        (``secure_delete``) and the WAL is checkpointed, so the text is not left in the files either.
        """
        with self._lock:
            row = self.conn.execute("""SELECT num, ended_at FROM memories WHERE id = ?""", (memory_id,)).fetchone()
            if row is None:
                raise MemoryNotFoundError(f"no memory with id '{memory_id}'")
            previous = self.conn.execute("PRAGMA secure_delete").fetchone()[0]
            self.conn.execute("PRAGMA secure_delete = ON")
            try:
                with self.batch():
                    self.conn.execute(
                        """UPDATE memories SET text = '', tags = '[]', terms = '', status = ?, status_reason = ?,
                             ended_at = ?, updated_at = ?
                           WHERE id = ?""",
                        (MemoryStatus.ARCHIVED, PURGED_REASON, row["ended_at"] or at, at, memory_id),
                    )
                    self.conn.execute("""UPDATE memory_events SET detail = '{}' WHERE memory_id = ?""", (memory_id,))
                    self.conn.execute("""DELETE FROM memory_vectors WHERE memory_num = ?""", (row["num"],))
                    self.conn.execute("""INSERT INTO memory_fts (memory_fts) VALUES ('optimize')""")
                    self._add_events([event])
                self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self.conn.execute(f"PRAGMA secure_delete = {int(previous)}")

    def update_status(
        self,
        memory_id: str,
        status: MemoryStatus,
        *,
        at: str,
        reason: str | None = None,
        ended_at: str | None = None,
        superseded_by: str | None = None,
        event: MemoryEvent | None = None,
    ) -> None:
        with self.batch():
            self.conn.execute(
                """UPDATE memories SET status = ?, status_reason = ?, ended_at = ?, updated_at = ?,
                     superseded_by = coalesce(?, superseded_by)
                   WHERE id = ?""",
                (status, reason, ended_at, at, superseded_by, memory_id),
            )
            if event:
                self._add_events([event])

    def update_anchor(self, memory_id: str, anchor: Anchor | None, *, at: str, event: MemoryEvent | None) -> None:
        with self.batch():
            row = self.conn.execute("""SELECT text, tags FROM memories WHERE id = ?""", (memory_id,)).fetchone()
            if row is None:
                raise MemoryNotFoundError(f"no memory with id '{memory_id}'")
            tags = json.loads(row[1])
            self.conn.execute(
                """UPDATE memories SET file = ?, symbol = ?, start_line = ?, end_line = ?, content_hash = ?,
                     updated_at = ?, terms = ?
                   WHERE id = ?""",
                (
                    anchor.file if anchor else None, anchor.symbol if anchor else None,
                    anchor.start_line if anchor else None, anchor.end_line if anchor else None,
                    anchor.content_hash if anchor else None, at,
                    identifier_terms(row[0], anchor.file if anchor else None, anchor.symbol if anchor else None, *tags),
                    memory_id,
                ),
            )  # fmt: skip
            if event:
                self._add_events([event])

    def move_spans(self, moves: Sequence[tuple[str, int, int]]) -> None:
        """Follow symbols that moved within their file: (id, start_line, end_line). No event: it is bookkeeping."""
        if not moves:
            return
        with self.batch():
            self.conn.executemany(
                """UPDATE memories SET start_line = ?, end_line = ? WHERE id = ?""",
                [(s, e, i) for i, s, e in moves],
            )

    def reinforce(self, memory_id: str, *, at: str, confidence_gain: float, event: MemoryEvent | None) -> None:
        with self.batch():
            self.conn.execute(
                """UPDATE memories SET access_count = access_count + 1, last_accessed_at = ?, updated_at = ?,
                     confidence = min(1.0, confidence + ?)
                   WHERE id = ?""",
                (at, at, confidence_gain, memory_id),
            )
            if event:
                self._add_events([event])

    def set_created_at(self, num: int, created_at: str) -> None:
        """Place a memory at another time. Benchmarks use it to ask the same question of an old and a new memory."""
        with self.batch():
            self.conn.execute("""UPDATE memories SET created_at = ? WHERE num = ?""", (created_at, num))

    def record_access(self, ids: Sequence[str], at: str) -> None:
        if not ids:
            return
        with self.batch():
            self.conn.executemany(
                """UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? WHERE id = ?""",
                [(at, i) for i in ids],
            )

    def record_surfaced(self, ids: Sequence[str], at: str | None = None) -> None:
        """Count ``ids`` as shown once more: in all (``surfaced_count``) and on the UTC day of ``at`` (default: now)."""
        if not ids:
            return
        day = (at or time.strftime("%Y-%m-%d", time.gmtime()))[:10]
        with self.batch():
            before = self.conn.total_changes
            self.conn.executemany(
                """UPDATE memories SET surfaced_count = surfaced_count + 1 WHERE id = ?""", [(i,) for i in ids]
            )
            self._record_shown_day(ids, day)
            self._benign_changes += self.conn.total_changes - before  # recent_refs' rows stay valid

    def set_text(self, memory_id: str, text: str, *, at: str) -> None:
        """Replace a memory's text in place (a reviewed suggestion edited before it is accepted)."""
        with self.batch():
            row = self.conn.execute("""SELECT file, symbol, tags FROM memories WHERE id = ?""", (memory_id,)).fetchone()
            if row is None:
                raise MemoryNotFoundError(f"no memory with id '{memory_id}'")
            self.conn.execute(
                """UPDATE memories SET text = ?, terms = ?, updated_at = ? WHERE id = ?""",
                (text, identifier_terms(text, row[0], row[1], *json.loads(row[2])), at, memory_id),
            )

    def relations(self, memory_ids: Sequence[str]) -> list[Relation]:
        """Every recorded relation with one of ``memory_ids`` on either side (m006)."""
        out: list[Relation] = []
        with self._lock:
            for part in _chunks(list(dict.fromkeys(memory_ids)), SQL_VARIABLE_CHUNK // 2):
                marks = _placeholders(len(part))
                out += [
                    Relation(*row)
                    for row in self.conn.execute(
                        f"""SELECT a, b, kind, at FROM memory_relations WHERE a IN ({marks})
                            UNION SELECT a, b, kind, at FROM memory_relations WHERE b IN ({marks})""",
                        (*part, *part),
                    )
                ]
        return sorted(set(out), key=lambda r: (r.a, r.b))

    def set_supersedes(self, memory_id: str, old_id: str, *, at: str) -> None:
        """``memory_id`` now stands in for ``old_id`` (a contradiction resolved by replacing the older)."""
        with self.batch():
            self.conn.execute(
                """UPDATE memories SET supersedes = ?, updated_at = ? WHERE id = ?""", (old_id, at, memory_id)
            )

    def set_relation(self, x: str, y: str, kind: str, *, at: str) -> bool:
        """Record what holds between two memories (``both`` or ``contested``); an older ``at`` than the one
        recorded changes nothing (imports replay history out of order). True when the row changed."""
        a, b = sorted((x, y))
        with self.batch():
            cur = self.conn.execute(
                """INSERT INTO memory_relations (a, b, kind, at) VALUES (?, ?, ?, ?)
                   ON CONFLICT (a, b) DO UPDATE SET kind = excluded.kind, at = excluded.at
                   WHERE excluded.at >= memory_relations.at AND excluded.kind != memory_relations.kind""",
                (a, b, kind, at),
            )
            return cur.rowcount > 0

    def add_events(self, events: Iterable[MemoryEvent]) -> int:
        with self.batch():
            return self._add_events(events)

    def _add_events(self, events: Iterable[MemoryEvent]) -> int:
        rows = [(e.id, e.memory_id, e.at, e.kind, json.dumps(e.detail, ensure_ascii=False)) for e in events]
        if not rows:
            return 0
        before = self.conn.total_changes
        self.conn.executemany(
            """INSERT OR IGNORE INTO memory_events (id, memory_id, at, kind, detail) VALUES (?, ?, ?, ?, ?)""", rows
        )
        return self.conn.total_changes - before
