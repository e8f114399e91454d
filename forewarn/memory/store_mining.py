"""The memory store's bookkeeping for mining and reconciliation: the fingerprints already mined, the code each
memory describes (m007), the symbols each file had, how far the store caught up with the code index, and the
miners' own state.

Part of :class:`forewarn.memory.store.MemoryStore` (a mixin, so the store still owns every line of memory SQL).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from forewarn.memory.records import Memory
from forewarn.memory.store_rows import _COLUMNS, _chunks, _placeholders, _row_to_memory


class MiningRecords:
    """Mining's and reconciliation's tables (mixed into ``MemoryStore``, which provides the connection, its lock
    and ``batch``)."""

    conn: sqlite3.Connection
    _lock: threading.RLock

    if TYPE_CHECKING:

        def batch(self) -> AbstractContextManager[None]: ...

    def mined(self, fingerprints: Sequence[str]) -> dict[str, tuple[str, str | None]]:
        """fingerprint → (memory id, that memory's status or None if the row is gone) for those seen before."""
        out: dict[str, tuple[str, str | None]] = {}
        with self._lock:
            for part in _chunks(list(fingerprints)):
                rows = self.conn.execute(
                    f"""SELECT mined.fingerprint, mined.memory_id, memories.status FROM mined
                          LEFT JOIN memories ON memories.id = mined.memory_id
                        WHERE mined.fingerprint IN ({_placeholders(len(part))})""",
                    tuple(part),
                ).fetchall()
                out.update({r[0]: (r[1], r[2]) for r in rows})
        return out

    def record_mined(self, items: Sequence[tuple[str, str]], *, at: str) -> None:
        """Remember (fingerprint, memory id) pairs for good; a fingerprint already known keeps its first memory."""
        with self.batch():
            self.conn.executemany(
                """INSERT OR IGNORE INTO mined (fingerprint, memory_id, first_seen) VALUES (?, ?, ?)""",
                [(fp, mid, at) for fp, mid in items],
            )

    def anchored_code(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """(syntax hash, code) each memory's anchored code had when written or last confirmed (m007)."""
        out: dict[str, tuple[str, str]] = {}
        with self._lock:
            for part in _chunks(list(memory_ids)):
                for mid, syntax, code in self.conn.execute(
                    f"""SELECT memory_id, syntax_hash, code FROM anchored_code
                        WHERE memory_id IN ({_placeholders(len(part))})""",
                    part,
                ):
                    out[mid] = (syntax, code)
        return out

    def without_anchored_code(self, statuses: Sequence[str], limit: int) -> list[Memory]:
        """Symbol-anchored memories whose code was never remembered (imported, mined, from before m007)."""
        with self._lock:
            return [
                _row_to_memory(r)
                for r in self.conn.execute(
                    f"""SELECT {_COLUMNS} FROM memories m WHERE symbol IS NOT NULL AND content_hash IS NOT NULL
                          AND status IN ({_placeholders(len(statuses))})
                          AND NOT EXISTS (SELECT 1 FROM anchored_code a WHERE a.memory_id = m.id)
                        LIMIT ?""",
                    (*statuses, limit),
                )
            ]

    def set_anchored_code(self, items: Sequence[tuple[str, str, str]], *, at: str) -> None:
        """Remember (memory id, syntax hash, code) as what each memory now describes."""
        if not items:
            return
        with self.batch():
            self.conn.executemany(
                """INSERT INTO anchored_code (memory_id, syntax_hash, code, at) VALUES (?, ?, ?, ?)
                   ON CONFLICT (memory_id) DO UPDATE SET syntax_hash = excluded.syntax_hash,
                     code = excluded.code, at = excluded.at""",
                [(mid, syntax, code, at) for mid, syntax, code in items],
            )

    def file_symbols(self, files: Sequence[str]) -> dict[str, set[str]]:
        """The symbols each file had when memories were last reconciled with it (absent: never looked at)."""
        out: dict[str, set[str]] = {}
        with self._lock:
            for part in _chunks(list(files)):
                for file, symbols in self.conn.execute(
                    f"""SELECT file, symbols FROM file_symbols WHERE file IN ({_placeholders(len(part))})""", part
                ):
                    out[file] = set(json.loads(symbols))
        return out

    def set_file_symbols(self, items: Sequence[tuple[str, Sequence[str]]]) -> None:
        if not items:
            return
        with self.batch():
            self.conn.executemany(
                """INSERT INTO file_symbols (file, symbols) VALUES (?, ?)
                   ON CONFLICT (file) DO UPDATE SET symbols = excluded.symbols""",
                [(file, json.dumps(sorted(set(symbols)))) for file, symbols in items],
            )

    def code_sync(self) -> tuple[str | None, int]:
        """(epoch, generation) of the code index this database last caught up with; (None, 0) never."""
        with self._lock:
            rows = dict(self.conn.execute("""SELECT key, value FROM code_sync""").fetchall())
        return rows.get("epoch"), int(rows.get("generation", 0))

    def set_code_sync(self, epoch: str, generation: int) -> None:
        with self.batch():
            self.conn.executemany(
                """INSERT INTO code_sync (key, value) VALUES (?, ?)
                   ON CONFLICT (key) DO UPDATE SET value = excluded.value""",
                [("epoch", epoch), ("generation", str(generation))],
            )

    def mining_state(self, key: str) -> str | None:
        with self._lock:
            row = self.conn.execute("""SELECT value FROM mining_state WHERE key = ?""", (key,)).fetchone()
        return str(row[0]) if row else None

    def set_mining_state(self, key: str, value: str) -> None:
        with self.batch():
            self.conn.execute(
                """INSERT INTO mining_state (key, value) VALUES (?, ?)
                   ON CONFLICT (key) DO UPDATE SET value = excluded.value""",
                (key, value),
            )
