"""The memory store's reads for the health report: what the trajectory replays and the lists beside it.

Part of :class:`forewarn.memory.store.MemoryStore` (a mixin, so the store still owns every line of memory SQL):
the memories' light rows, the events that change a status, how often each memory was shown per day (m012),
the memories people turned away, and how many current memories each file holds.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from typing import Any, NamedTuple

from forewarn.memory.vocabulary import CURRENT_STATUSES

SQL_VARIABLE_CHUNK = 500  # stays far below SQLite's bound-parameter limit (as the store's own reads)


class LifeRow(NamedTuple):
    """What the trajectory needs of one memory: who wrote it, when, and what it is now."""

    id: str
    source: str
    status: str
    created_at: str
    updated_at: str


class StatusEventRow(NamedTuple):
    """One event that may change a memory's status; an imported one carries its original kind and detail."""

    memory_id: str
    at: str
    id: str
    kind: str
    detail: dict[str, Any]


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

    def life_rows(self) -> list[LifeRow]:
        """Every memory's light row (a status replay needs every memory, whatever its status)."""
        with self._lock:
            rows = self.conn.execute("""SELECT id, source, status, created_at, updated_at FROM memories""").fetchall()
        return [LifeRow(*r) for r in rows]

    def status_events(self, kinds: Sequence[str], imported_kind: str) -> list[StatusEventRow]:
        """Events of ``kinds``, and imported events (``imported_kind``) unwrapped to their original kind and detail,
        ordered by memory, then time. Details that do not parse read as empty."""
        marks = ", ".join("?" * len(kinds))
        with self._lock:
            rows = self.conn.execute(
                f"""SELECT memory_id, at, id, kind, detail FROM memory_events WHERE kind IN ({marks}, ?)
                    ORDER BY memory_id, at, id""",
                (*kinds, imported_kind),
            ).fetchall()
        wanted = set(kinds)
        out: list[StatusEventRow] = []
        for memory_id, at, eid, kind, raw in rows:
            detail = _detail(raw) if kind == imported_kind or kind in NEEDS_DETAIL else {}
            if kind == imported_kind:
                original = detail.get("original_kind")
                if not isinstance(original, str) or original not in wanted:
                    continue
                inner = detail.get("original_detail")
                out.append(StatusEventRow(memory_id, at, eid, original, inner if isinstance(inner, dict) else {}))
                continue
            out.append(StatusEventRow(memory_id, at, eid, kind, detail))
        return out

    def imported_ids(self, imported_kind: str) -> set[str]:
        """Memories that arrived through an import: their oldest event is an imported one."""
        with self._lock:
            rows = self.conn.execute(
                """SELECT e.memory_id FROM memory_events e
                   WHERE e.kind = ? AND NOT EXISTS (
                     SELECT 1 FROM memory_events o WHERE o.memory_id = e.memory_id AND o.kind != ?
                       AND (o.at < e.at OR (o.at = e.at AND o.id < e.id)))""",
                (imported_kind, imported_kind),
            ).fetchall()
        return {r[0] for r in rows}

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


# status events whose detail says what status follows (timeline.STATUS_AFTER's None entries)
NEEDS_DETAIL = frozenset({"revived", "restored", "uncontested"})


def _detail(raw: str | None) -> dict[str, Any]:
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
