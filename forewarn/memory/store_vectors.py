"""The memory store's vectors: the embeddings per (memory, model) in ``memory_vectors``, the source of truth the
hnsw index is built from, and the memories still waiting for one.

Part of :class:`forewarn.memory.store.MemoryStore` (a mixin, so the store still owns every line of memory SQL).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

import numpy as np

from forewarn.memory.store_rows import _chunks, _placeholders


class VectorRows:
    """``memory_vectors`` (mixed into ``MemoryStore``, which provides the connection, its lock and ``batch``)."""

    conn: sqlite3.Connection
    _lock: threading.RLock

    if TYPE_CHECKING:

        def batch(self) -> AbstractContextManager[None]: ...

    def put_vectors(self, model_id: str, items: Sequence[tuple[int, np.ndarray]]) -> None:
        """Store (memory num, vector) pairs for ``model_id``, replacing any previous vector of that memory."""
        if not items:
            return
        with self.batch():
            for num, vec in items:
                v = np.ascontiguousarray(vec, dtype=np.float32)
                self.conn.execute(
                    """DELETE FROM memory_vectors WHERE memory_num = ? AND model_id = ?""", (num, model_id)
                )
                self.conn.execute(
                    """INSERT INTO memory_vectors (memory_num, model_id, dim, vector) VALUES (?, ?, ?, ?)""",
                    (num, model_id, int(v.shape[0]), v.tobytes()),
                )

    def delete_vectors(self, num: int) -> None:
        """Drop a memory's vectors (all models) because its text changed: they are derived data, re-embedded later."""
        with self.batch():
            self.conn.execute("""DELETE FROM memory_vectors WHERE memory_num = ?""", (num,))

    def vectors_for(self, model_id: str, nums: Sequence[int]) -> dict[int, np.ndarray]:
        out: dict[int, np.ndarray] = {}
        with self._lock:
            for part in _chunks(list(nums)):
                cur = self.conn.execute(
                    f"""SELECT memory_num, vector FROM memory_vectors
                        WHERE model_id = ? AND memory_num IN ({_placeholders(len(part))})""",
                    (model_id, *part),
                )
                cur.row_factory = None  # plain tuples, fetched in one call: a search reads hundreds
                for num, blob in cur.fetchall():
                    out[int(num)] = np.frombuffer(blob, dtype=np.float32)
        return out

    def vector_state(self, model_id: str) -> tuple[int, int]:
        """(count, highest vec_id) of the vectors of ``model_id`` — what the hnsw sidecar must match."""
        with self._lock:
            row = self.conn.execute(
                """SELECT count(*), coalesce(max(vec_id), 0) FROM memory_vectors WHERE model_id = ?""", (model_id,)
            ).fetchone()
        return int(row[0]), int(row[1])

    def last_vec_id(self, model_id: str) -> int:
        """The highest ``vec_id`` of ``model_id`` (an index seek: cheap enough to call before every search)."""
        with self._lock:
            row = self.conn.execute(
                """SELECT max(vec_id) FROM memory_vectors WHERE model_id = ?""", (model_id,)
            ).fetchone()
        return int(row[0] or 0)

    def iter_vectors(
        self, model_id: str, *, after_vec_id: int = 0, batch_size: int = 5000
    ) -> Iterator[tuple[list[int], np.ndarray, int]]:
        """Batches of (memory nums, vectors matrix, last vec_id) with vec_id > ``after_vec_id``."""
        last = after_vec_id
        while True:
            with self._lock:
                rows = self.conn.execute(
                    """SELECT vec_id, memory_num, vector FROM memory_vectors
                       WHERE model_id = ? AND vec_id > ? ORDER BY vec_id LIMIT ?""",
                    (model_id, last, batch_size),
                ).fetchall()
            if not rows:
                return
            nums = [int(r[1]) for r in rows]
            mat = np.vstack([np.frombuffer(r[2], dtype=np.float32) for r in rows])
            last = int(rows[-1][0])
            yield nums, mat, last

    def nums_without_vector(self, model_id: str, *, limit: int = 10_000) -> list[tuple[int, str]]:
        """(num, text) of memories that have no vector for ``model_id`` yet (embedder added later, imports).

        Purged memories (empty text) never get one again."""
        with self._lock:
            rows = self.conn.execute(
                """SELECT m.num, m.text FROM memories AS m
                   WHERE NOT EXISTS (SELECT 1 FROM memory_vectors AS v WHERE v.memory_num = m.num AND v.model_id = ?)
                     AND m.text != ''
                   ORDER BY m.num LIMIT ?""",
                (model_id, limit),
            ).fetchall()
        return [(int(r[0]), str(r[1])) for r in rows]
