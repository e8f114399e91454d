"""The hnswlib index of memory embeddings, kept beside ``memory.db`` and rebuildable from it.

SQLite (``memory_vectors``) is the source of truth. The index lives in ``vectors.hnsw`` with a small
``vectors.json`` recording the model id, dimension, element count and the highest ``vec_id`` it
holds. On open the sidecar is checked against SQLite: missing, unreadable or for another model →
rebuilt; behind (another process added memories, or we crashed before saving) → caught up by
``vec_id``; any other mismatch → rebuilt. Vector ids only grow (AUTOINCREMENT), so "behind" is exact.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path

import hnswlib
import numpy as np

from forewarn import paths
from forewarn.memory.store import MemoryStore

log = logging.getLogger(__name__)

HNSW_M = 16  # graph degree: hnswlib's default; good recall at 384-d without much memory
HNSW_EF_CONSTRUCTION = 100  # build-time beam: near-perfect recall for ≤1M items at modest build cost
HNSW_EF_SEARCH = 128  # query beam: recall@100 ≈ 0.99 at 100k items, still well under a millisecond or two
INITIAL_CAPACITY = 1024
GROWTH = 1.5  # capacity multiplier when full: amortizes resizes
INDEX_FORMAT = 1


@dataclass(frozen=True, slots=True)
class VectorState:
    model_id: str
    dim: int
    count: int
    last_vec_id: int


class VectorIndex:
    """Approximate nearest neighbours over memory vectors of one model. Thread-safe (one lock)."""

    def __init__(self, directory: Path, store: MemoryStore, model_id: str, dim: int) -> None:
        self.path = Path(directory) / "vectors.hnsw"
        self.meta_path = Path(directory) / "vectors.json"
        self.store = store
        self.model_id = model_id
        self.dim = dim
        self._lock = threading.RLock()
        self._dirty = False
        self._last_vec_id = 0
        self._index = self._new_index(INITIAL_CAPACITY)
        self.rebuilt = False  # whether opening had to rebuild from SQLite (reported by stats/tests)
        self._open()

    # ------------------------------------------------------------ lifecycle

    def _new_index(self, capacity: int) -> hnswlib.Index:
        index = hnswlib.Index(space="ip", dim=self.dim)  # vectors are L2-normalised: inner product = cosine
        index.init_index(max_elements=max(capacity, INITIAL_CAPACITY), ef_construction=HNSW_EF_CONSTRUCTION, M=HNSW_M)
        index.set_ef(HNSW_EF_SEARCH)
        return index

    def _open(self) -> None:
        count, last = self.store.vector_state(self.model_id)
        meta = self._read_meta()
        if meta is not None and meta.model_id == self.model_id and meta.dim == self.dim and self.path.exists():
            try:
                index = hnswlib.Index(space="ip", dim=self.dim)
                index.load_index(str(self.path), max_elements=max(int(meta.count * GROWTH), INITIAL_CAPACITY))
                index.set_ef(HNSW_EF_SEARCH)
                if index.get_current_count() == meta.count and meta.last_vec_id <= last:
                    self._index = index
                    self._last_vec_id = meta.last_vec_id
                    self._catch_up()
                    if self._index.get_current_count() == count:
                        return
                    log.warning("vector index %s disagrees with the memory database; rebuilding", self.path)
                else:
                    log.warning("vector index %s does not match its metadata; rebuilding", self.path)
            except (RuntimeError, OSError, ValueError, MemoryError) as exc:
                log.warning("vector index %s is unreadable (%s); rebuilding from the memory database", self.path, exc)
        elif count:
            log.info("vector index %s missing or for another model; rebuilding from the memory database", self.path)
        self.rebuild()

    def _read_meta(self) -> VectorState | None:
        try:
            data = json.loads(self.meta_path.read_text(encoding="utf-8"))
            if data.get("format") != INDEX_FORMAT:
                return None
            return VectorState(str(data["model_id"]), int(data["dim"]), int(data["count"]), int(data["last_vec_id"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def rebuild(self) -> None:
        """Rebuild the whole index from SQLite."""
        with self._lock:
            count, _ = self.store.vector_state(self.model_id)
            self._index = self._new_index(int(count * GROWTH) + 1)
            self._last_vec_id = 0
            self._catch_up()
            self._dirty = True
            self.rebuilt = True
            self.save()

    def _catch_up(self) -> int:
        added = 0
        for nums, mat, last in self.store.iter_vectors(self.model_id, after_vec_id=self._last_vec_id):
            self._add(nums, mat)
            self._last_vec_id = last
            added += len(nums)
        if added:
            self._dirty = True
        return added

    def sync(self) -> int:
        """Pick up vectors written since we last looked (by this or another process). Cheap when none.

        Lock order is always this index's lock, then the store's; callers must not hold the store's
        lock (be inside ``store.batch()``) when they call this.
        """
        with self._lock:
            last = self.store.last_vec_id(self.model_id)
            if last == self._last_vec_id:
                return 0
            return self._catch_up()

    def save(self) -> None:
        """Write the index and its metadata atomically (index first: metadata never describes a newer file)."""
        with self._lock:
            if not self._dirty:
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            paths.replace_private(self.path, lambda tmp: self._index.save_index(str(tmp)))
            meta = {
                "format": INDEX_FORMAT,
                "model_id": self.model_id,
                "dim": self.dim,
                "count": self._index.get_current_count(),
                "last_vec_id": self._last_vec_id,
            }
            paths.write_private_text(self.meta_path, json.dumps(meta) + "\n")
            self._dirty = False

    # ------------------------------------------------------------ data

    def _add(self, nums: list[int], mat: np.ndarray) -> None:
        needed = self._index.get_current_count() + len(nums)
        if needed > self._index.get_max_elements():
            self._index.resize_index(int(needed * GROWTH) + 1)
        self._index.add_items(np.ascontiguousarray(mat, dtype=np.float32), np.asarray(nums, dtype=np.int64))

    def put(self, nums: list[int], mat: np.ndarray) -> None:
        """Store vectors in SQLite (the truth) only, inside the caller's transaction; ``sync()`` after it commits."""
        if nums:
            self.store.put_vectors(self.model_id, list(zip(nums, mat, strict=True)))

    def add(self, nums: list[int], mat: np.ndarray) -> None:
        """Store vectors in SQLite and add them to the index (outside any ``store.batch()``)."""
        self.put(nums, mat)
        self.sync()

    def __len__(self) -> int:
        return int(self._index.get_current_count())

    def query(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(memory num, cosine) of the ``k`` nearest memories, best first."""
        with self._lock:
            n = self._index.get_current_count()
            if n == 0 or k <= 0:
                return []
            k = min(k, n)
            self._index.set_ef(max(HNSW_EF_SEARCH, 2 * k))
            query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
            while True:
                try:
                    labels, dists = self._index.knn_query(query, k=k)
                    break
                except RuntimeError:  # many identical vectors can leave fewer than k reachable: ask for fewer
                    if k == 1:
                        return []
                    k = max(1, k // 2)
        return [(int(label), float(1.0 - d)) for label, d in zip(labels[0], dists[0], strict=True)]

    def vectors(self, nums: list[int]) -> dict[int, np.ndarray]:
        """Vectors of these memories (from SQLite, exact), for near-duplicate checks."""
        return self.store.vectors_for(self.model_id, nums)

    def close(self) -> None:
        self.save()
