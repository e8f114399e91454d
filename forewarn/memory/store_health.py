"""The memory store's reads for the health report: what the trajectory replays and the lists beside it.

Part of :class:`forewarn.memory.store.MemoryStore` (a mixin, so the store still owns every line of memory SQL):
the memories' light rows, the events that change a status, how often each memory was shown per day (m012),
the memories people turned away, and how many current memories each file holds.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from typing import NamedTuple, cast

from forewarn.memory.vocabulary import CURRENT_STATUSES

SQL_VARIABLE_CHUNK = 500  # stays far below SQLite's bound-parameter limit (as the store's own reads)
HEALTH_READ_CHUNK = 5_000  # rows per locked read: a few ms with the store's lock held, then file opens get a turn


class LifeRow(NamedTuple):
    """What the trajectory needs of one memory: who wrote it, when, and what it is now."""

    id: str
    source: str
    status: str
    created_at: str
    updated_at: str


class StatusEventRow(NamedTuple):
    """One event that may change a memory's status (an imported one as its original), with what its detail says
    about the status that follows: ``status`` (restored, uncontested, revived) and whether it recorded a ``diff``."""

    memory_id: str
    at: str
    kind: str
    status: str | None = None
    diff: bool = False
    imported: bool = False  # it came from a shared file: a memory whose first event did arrived through an import


# status events whose detail says which status follows (timeline.STATUS_AFTER's None entries)
DETAILED: tuple[str, ...] = ("revived", "restored", "uncontested")


class PushbackRow(NamedTuple):
    """A memory people turned away (dismissed, marked outdated, forgot) within a window: how often, the latest."""

    memory_id: str
    times: int
    last_at: str
    last_kind: str


class HealthReads:
    """The health report's SQL (mixed into ``MemoryStore``, which provides the connection and its lock)."""

    conn: sqlite3.Connection
    _lock: threading.RLock

    def _record_shown_day(self, ids: Sequence[str], day: str) -> None:
        """Count each id once more as shown on ``day`` (inside the caller's transaction)."""
        self.conn.executemany(
            """INSERT INTO memory_shown_daily (day, memory_id, shown) VALUES (?, ?, 1)
               ON CONFLICT (day, memory_id) DO UPDATE SET shown = shown + 1""",
            [(day, i) for i in ids],
        )

    def _chunked(self, sql: str, params: dict[str, object]) -> list[tuple[object, ...]]:
        """The rows of ``sql``, read ``HEALTH_READ_CHUNK`` at a time with the store's lock held for one chunk only
        (a file open waits a few milliseconds at most, not for a 100k-row read). ``sql`` selects ``rowid`` first,
        filters ``rowid > :after``, orders by rowid and ends with ``LIMIT :chunk``; the rowid is left out."""
        out: list[tuple[object, ...]] = []
        after = 0
        while True:
            with self._lock:
                cur = self.conn.execute(sql, {**params, "after": after, "chunk": HEALTH_READ_CHUNK})
                cur.row_factory = None
                rows = cur.fetchall()
            out += [row[1:] for row in rows]
            if len(rows) < HEALTH_READ_CHUNK:
                return out
            after = int(rows[-1][0])

    def life_rows(self) -> list[LifeRow]:
        """Every memory's light row (a status replay needs every memory, whatever its status)."""
        rows = self._chunked(
            """SELECT num, id, source, status, created_at, updated_at FROM memories
               WHERE num > :after ORDER BY num LIMIT :chunk""",
            {},
        )
        return list(map(LifeRow._make, rows))

    def status_events(self, kinds: Sequence[str], imported_kind: str) -> dict[str, list[StatusEventRow]]:
        """Each memory's events of ``kinds``, oldest first; imported events (``imported_kind``) read as their
        original kind and detail (``imported`` set). Only the detail of the kinds in ``DETAILED`` is read, by
        SQLite's JSON functions (100k histories are not parsed in Python): a detail that is not JSON says nothing,
        and an imported event whose original kind cannot be read is left out."""
        marks = ", ".join(f":k{i}" for i in range(len(kinds)))
        detailed = ", ".join(f":d{i}" for i in range(len(DETAILED)))
        params: dict[str, object] = {
            "imported": imported_kind,
            **{f"k{i}": kind for i, kind in enumerate(kinds)},
            **{f"d{i}": kind for i, kind in enumerate(DETAILED)},
        }
        # what an event says about the status that follows, from its own detail or an import's original one
        detail_of = """CASE WHEN kind IN ({d}) THEN json_extract(detail, '$.{f}')
                       WHEN kind = :imported AND json_extract(detail, '$.original_kind') IN ({d})
                         THEN json_extract(detail, '$.original_detail.{f}') END"""
        rows = self._chunked(
            f"""SELECT rowid, memory_id, at, kind = :imported,
                  CASE WHEN kind != :imported THEN kind ELSE json_extract(detail, '$.original_kind') END,
                  {detail_of.format(d=detailed, f="status")}, {detail_of.format(d=detailed, f="diff")}
                FROM (SELECT rowid, memory_id, at, kind,
                        CASE WHEN json_valid(detail) THEN detail ELSE '{{}}' END AS detail
                      FROM memory_events NOT INDEXED  -- by rowid, chunk after chunk: never a sort of them all
                      WHERE rowid > :after AND (kind IN ({marks}) OR kind = :imported)
                      ORDER BY rowid LIMIT :chunk)""",
            params,
        )
        wanted = set(kinds)
        found: dict[str, list[StatusEventRow]] = {}
        for mid, at, imported, kind, status, diff in cast("list[tuple[str, str, int, str, object, int]]", rows):
            if kind in wanted:
                said = status if isinstance(status, str) else None
                found.setdefault(mid, []).append(StatusEventRow(mid, at, kind, said, bool(diff), bool(imported)))
        for events in found.values():  # read in rowid order, which is nearly time order: a short, cheap sort
            events.sort(key=_when)  # stable: events of the same time stay in the order they were written
        return found

    def change_stamp(self) -> tuple[int, int]:
        """Moves whenever the database changed: a write on this connection (``total_changes``, shown counts
        included) or a commit by another (``PRAGMA data_version``). What a cached report is valid for."""
        with self._lock:
            version = int(self.conn.execute("PRAGMA data_version").fetchone()[0])
            return self.conn.total_changes, version

    def shown_by_day(self, first_day: str, last_day: str) -> dict[str, int]:
        """Times memories were shown, per UTC day from ``first_day`` to ``last_day`` (inclusive, YYYY-MM-DD)."""
        with self._lock:
            rows = self.conn.execute(
                """SELECT day, sum(shown) FROM memory_shown_daily WHERE day BETWEEN ? AND ? GROUP BY day""",
                (first_day, last_day),
            ).fetchall()
        return {day: int(n) for day, n in rows}

    def shown_most(self, first_day: str, last_day: str, limit: int) -> list[tuple[str, int]]:
        """The memories shown most often between two UTC days (inclusive), with how often."""
        with self._lock:
            rows = self.conn.execute(
                """SELECT memory_id, sum(shown) AS n FROM memory_shown_daily WHERE day BETWEEN ? AND ?
                   GROUP BY memory_id ORDER BY n DESC, memory_id LIMIT ?""",
                (first_day, last_day, limit),
            ).fetchall()
        return [(mid, int(n)) for mid, n in rows]

    def pushback(self, kinds: Sequence[str], since: str, limit: int) -> list[PushbackRow]:
        """Memories with the most events of ``kinds`` at or after ISO time ``since``, most first, then latest."""
        marks = ", ".join("?" * len(kinds))
        with self._lock:
            rows = self.conn.execute(
                f"""SELECT memory_id, count(*) AS n, max(at) AS last,
                      (SELECT kind FROM memory_events l WHERE l.memory_id = e.memory_id AND l.kind IN ({marks})
                         AND l.at >= ? ORDER BY l.at DESC, l.id DESC LIMIT 1)
                    FROM memory_events e WHERE kind IN ({marks}) AND at >= ?
                    GROUP BY memory_id ORDER BY n DESC, last DESC, memory_id LIMIT ?""",
                (*kinds, since, *kinds, since, limit),
            ).fetchall()
        return [PushbackRow(mid, int(n), last, kind) for mid, n, last, kind in rows]

    def current_counts(self, files: Sequence[str]) -> dict[str, int]:
        """How many current memories each of ``files`` holds (files without any are left out)."""
        out: dict[str, int] = {}
        statuses = tuple(CURRENT_STATUSES)
        with self._lock:
            for start in range(0, len(files), SQL_VARIABLE_CHUNK):
                part = files[start : start + SQL_VARIABLE_CHUNK]
                rows = self.conn.execute(
                    f"""SELECT file, count(*) FROM memories
                        WHERE file IN ({", ".join("?" * len(part))}) AND status IN ({", ".join("?" * len(statuses))})
                        GROUP BY file""",
                    (*part, *statuses),
                ).fetchall()
                out.update({f: int(n) for f, n in rows})
        return out


def _when(event: StatusEventRow) -> str:
    return event.at
