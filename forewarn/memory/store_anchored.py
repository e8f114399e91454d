"""The memory store's reads by anchor: the memories and light rows on files and symbols that a file open, a
hover and the neighbour context ask for, with the per-file cache of recent rows.

Part of :class:`forewarn.memory.store.MemoryStore` (a mixin, so the store still owns every line of memory SQL;
the store's ``__init__`` sets the cache declared here).
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from forewarn.memory.records import AnchoredRef, Memory
from forewarn.memory.store_rows import _COLUMNS, SQL_VARIABLE_CHUNK, _chunks, _placeholders, _row_to_memory
from forewarn.memory.vocabulary import ANCHORED_STATUSES, CURRENT_STATUSES

# a neighbour's memories can only add context: at most this many per file (newest first, after the symbol
# filter) are ranked on open; the workspace's PROACTIVE_LIMIT are shown in all, and a hot file's 500th
# memory cannot outrank its newest
NEIGHBOUR_ROWS_PER_FILE = 40
# file opens read the same neighbour files again and again (a project's core modules): their light rows are
# kept until the database next changes. A file with more memories than this is read through the indexes
# every time (its rows would crowd out the rest); the cache holds at most FILE_REFS_CACHE_ROWS rows in all
FILE_REFS_CACHE_FILE_MAX = 2_000
FILE_REFS_CACHE_ROWS = 20_000  # about 12 MB


class AnchoredReads:
    """Reads of what is anchored where (mixed into ``MemoryStore``, which provides the connection and its lock)."""

    conn: sqlite3.Connection
    _lock: threading.RLock
    _refs: OrderedDict[str, tuple[AnchoredRef, ...] | None]
    _refs_rows: int
    _refs_at: tuple[int, int] | None
    _benign_changes: int

    if TYPE_CHECKING:

        def data_version(self) -> int: ...

    def anchored_to_files(self, files: Sequence[str], statuses: Sequence[str] = ANCHORED_STATUSES) -> list[Memory]:
        if not files:
            return []
        out: list[Memory] = []
        with self._lock:
            for part in _chunks(list(files)):
                out += [
                    _row_to_memory(r)
                    for r in self.conn.execute(
                        f"""SELECT {_COLUMNS} FROM memories WHERE file IN ({_placeholders(len(part))})
                              AND status IN ({_placeholders(len(statuses))})""",
                        (*part, *statuses),
                    )
                ]
        return out

    def anchored_refs(
        self,
        files: Sequence[str],
        statuses: Sequence[str] = ANCHORED_STATUSES,
        *,
        keep: Callable[[str, str | None], bool] | None = None,
    ) -> list[AnchoredRef]:
        """Light rows of the memories anchored to ``files`` (the file-open path: no text, no tags).

        ``keep(file, symbol)`` drops rows before they become objects (most neighbour rows are dropped).
        """
        if not files:
            return []
        out: list[AnchoredRef] = []
        with self._lock:
            for part in _chunks(list(files)):
                cur = self.conn.execute(
                    f"""SELECT num, id, type, file, symbol, source, confidence, status, created_at,
                          last_accessed_at, access_count
                        FROM memories WHERE file IN ({_placeholders(len(part))})
                          AND status IN ({_placeholders(len(statuses))})""",
                    (*part, *statuses),
                )
                cur.row_factory = None  # plain tuples: this loop runs over hundreds of rows per file open
                out += [AnchoredRef._make(r) for r in cur.fetchall() if keep is None or keep(r[3], r[4])]
        return out

    def recent_refs(self, files: Sequence[str]) -> dict[str, tuple[AnchoredRef, ...] | None]:
        """Each file's light rows in an anchored status (ANCHORED_STATUSES), newest first, as
        ``neighbour_refs`` orders them; None for a file with more than ``FILE_REFS_CACHE_FILE_MAX``
        (read it through ``symbols_in``/``neighbour_refs``).

        Cached until the database changes: a row changed through this connection (``total_changes``,
        less the surfaced counts no cached row shows) or a commit by any other (``PRAGMA data_version``).
        """
        out: dict[str, tuple[AnchoredRef, ...] | None] = {}
        with self._lock:
            version = self.data_version()  # first: a damaged database refuses here, before the closed handle is read
            key = (self.conn.total_changes - self._benign_changes, version)
            if key != self._refs_at:
                self._refs.clear()
                self._refs_rows = 0
                self._refs_at = key
            placeholders = _placeholders(len(ANCHORED_STATUSES))
            for file in files:
                if file in self._refs:
                    self._refs.move_to_end(file)
                    out[file] = self._refs[file]
                    continue
                cur = self.conn.execute(
                    f"""SELECT num, id, type, file, symbol, source, confidence, status, created_at,
                          last_accessed_at, access_count
                        FROM memories INDEXED BY memories_file_recent
                        WHERE file = ? AND status IN ({placeholders})
                        ORDER BY created_at DESC LIMIT ?""",
                    (file, *ANCHORED_STATUSES, FILE_REFS_CACHE_FILE_MAX + 1),
                )
                cur.row_factory = None
                rows = cur.fetchall()
                refs = None if len(rows) > FILE_REFS_CACHE_FILE_MAX else tuple(map(AnchoredRef._make, rows))
                out[file] = self._refs[file] = refs
                self._refs_rows += len(refs or ())
                while self._refs_rows > FILE_REFS_CACHE_ROWS and len(self._refs) > 1:
                    _, evicted = self._refs.popitem(last=False)
                    self._refs_rows -= len(evicted or ())
        return out

    def symbols_in(
        self, files: Sequence[str], statuses: Sequence[str] = ANCHORED_STATUSES
    ) -> dict[str, list[str | None]]:
        """The distinct anchor symbols (None: file-wide) of each file's memories, read from an index only."""
        out: dict[str, list[str | None]] = {}
        if not files:
            return out
        with self._lock:
            for part in _chunks(list(files)):
                cur = self.conn.execute(
                    f"""SELECT DISTINCT file, symbol FROM memories INDEXED BY memories_anchor_cover
                        WHERE file IN ({_placeholders(len(part))}) AND status IN ({_placeholders(len(statuses))})""",
                    (*part, *statuses),
                )
                cur.row_factory = None
                for file, symbol in cur:
                    out.setdefault(file, []).append(symbol)
        return out

    def neighbour_refs(
        self,
        symbols_by_file: dict[str, list[str | None]],
        statuses: Sequence[str] = ANCHORED_STATUSES,
        *,
        per_file: int = NEIGHBOUR_ROWS_PER_FILE,
    ) -> list[AnchoredRef]:
        """Light rows anchored to these symbols (None: file-wide) of each file, at most ``per_file`` newest each."""
        out: list[AnchoredRef] = []
        with self._lock:
            for file, symbols in symbols_by_file.items():
                named = [s for s in symbols if s is not None][:SQL_VARIABLE_CHUNK]
                wide = len(named) < len(symbols)
                cur = self.conn.execute(
                    f"""SELECT num, id, type, file, symbol, source, confidence, status, created_at,
                          last_accessed_at, access_count
                        FROM memories INDEXED BY memories_file_recent
                        WHERE file = ? AND status IN ({_placeholders(len(statuses))})
                          AND (symbol IN ({_placeholders(len(named))}) OR (? AND symbol IS NULL))
                        ORDER BY created_at DESC LIMIT ?""",
                    (file, *statuses, *named, wide, per_file),
                )
                cur.row_factory = None
                out += map(AnchoredRef._make, cur.fetchall())
        return out

    def refs_on_code(
        self, file: str, symbols: Sequence[str], containers: Sequence[str], statuses: Sequence[str], *, limit: int
    ) -> list[AnchoredRef]:
        """Light rows of ``file``'s memories on one of ``symbols``, on a definition inside one of ``containers``
        (``Router`` holds ``Router.handle``), or file-wide: the newest ``limit``, read in date order from an index
        (a file with thousands of memories costs no sort and no row past the limit)."""
        named = list(dict.fromkeys(symbols))[: SQL_VARIABLE_CHUNK // 2]
        outer = list(dict.fromkeys(containers))[: SQL_VARIABLE_CHUNK // 4]
        inside = " OR ".join("substr(symbol, 1, ?) = ?" for _ in outer) or "0"
        with self._lock:
            cur = self.conn.execute(
                f"""SELECT num, id, type, file, symbol, source, confidence, status, created_at,
                      last_accessed_at, access_count
                    FROM memories INDEXED BY memories_file_recent
                    WHERE file = ? AND status IN ({_placeholders(len(statuses))})
                      AND (symbol IS NULL OR symbol IN ({_placeholders(len(named))}) OR {inside})
                    ORDER BY created_at DESC LIMIT ?""",
                (file, *statuses, *named, *(x for n in outer for x in (len(n) + 1, n + ".")), limit),
            )
            cur.row_factory = None
            return list(map(AnchoredRef._make, cur.fetchall()))

    def workspace_wide(self, statuses: Sequence[str] = CURRENT_STATUSES, *, limit: int = 1000) -> list[Memory]:
        with self._lock:
            rows = self.conn.execute(
                f"""SELECT {_COLUMNS} FROM memories WHERE file IS NULL AND status IN ({_placeholders(len(statuses))})
                    ORDER BY created_at DESC LIMIT ?""",
                (*statuses, limit),
            ).fetchall()
        return [_row_to_memory(r) for r in rows]

    def anchored_to_symbol(self, file: str, symbol: str, statuses: Sequence[str] = ANCHORED_STATUSES) -> list[Memory]:
        with self._lock:
            rows = self.conn.execute(
                f"""SELECT {_COLUMNS} FROM memories
                    WHERE file = ? AND symbol = ? AND status IN ({_placeholders(len(statuses))})
                    ORDER BY created_at DESC""",
                (file, symbol, *statuses),
            ).fetchall()
        return [_row_to_memory(r) for r in rows]
