"""Vectors of code chunks: an hnswlib index beside the code index, rebuildable, never user data.

Labels are the indexer's chunk row ids, which are never reused (AUTOINCREMENT). A re-indexed file gets
new rows, so its old labels are marked deleted and its chunks come back as "missing"; embedding them
again goes through the embedding cache, keyed by the sha256 of the exact text embedded, so only
chunks whose text changed reach the model. Deleted slots are reused by later additions
(``allow_replace_deleted``), and the index is compacted when deleted slots outnumber live ones.

Beside ``code_vectors.hnsw``: ``code_vectors.json`` (model id, dimension, counts) and
``code_vectors.npz`` (per label: the chunk's content hash, checked against the code index so that a
rebuilt ``index.db`` whose ids start again never lends a vector to the wrong chunk, and the cache
key of the text embedded, which the cache's pruning keeps). Anything missing, unreadable or for
another model starts the index empty; the cache makes refilling it cheap.

Which chunks and how much of them (measured with ``bench/code_embed_bench.py --text-recall`` on click's
and requests' history): every chunk that carries text of its own, module chunks included (without them
dense recall fell: MRR -0.011 on requests, R@10 -0.011 on click), each with its whole own text (a lean
signature + docstring + identifiers saved a fifth of the tokens and cost 0.009-0.013 MRR).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hnswlib
import numpy as np

from forewarn import paths
from forewarn.indexing.records import Chunk
from forewarn.indexing.store import CodeChunk, fts_texts
from forewarn.memory.embed_cache import text_key
from forewarn.memory.vectors import GROWTH, HNSW_EF_CONSTRUCTION, HNSW_EF_SEARCH, HNSW_M, INITIAL_CAPACITY
from forewarn.workspace.protocols import IndexerLike

log = logging.getLogger(__name__)

FILE_STEM = "code_vectors"
INDEX_FORMAT = 1
# all-MiniLM-L6-v2 was tuned on sequences of up to 256 tokens (sentence-transformers' max_seq_length); a
# longer window costs more per chunk and its tail adds little to the vector. One window per chunk, never more
CODE_TEXT_MAX_TOKENS = 256
CODE_EMBED_BATCH = 32  # chunks per model call: batch 32 ran 1.3x batch 1 here (issue 3); the CLI's size
HIT_SLACK = 16  # extra neighbours asked for, so chunks replaced since the last fill do not leave k short
COMPACT_MIN_DELETED = 1024  # below this many deleted slots, compaction is not worth a rebuild
MODULE_SYMBOL = "<module>"
CHUNK_FIELDS = ("symbol", "kind", "start_line", "end_line", "start_byte", "end_byte", "signature", "content_hash",
                "text", "part")  # fmt: skip


@dataclass(frozen=True, slots=True)
class ChunkKey:
    """What the index remembers per label."""

    content_hash: str  # the chunk's, from the code index: a different chunk under the same id is caught
    text_key: bytes  # sha256 of the exact text embedded (the embedding cache's key)


def embed_text(rel: str, symbol: str, signature: str, own_text: str) -> str:
    """The text embedded for a chunk: its path, symbol path and signature before its own code.

    The signature is left out when the code starts with it (a whole definition), kept for a later
    part of a split definition, whose code starts mid-body.
    """
    head = [rel] if symbol == MODULE_SYMBOL else [rel, symbol]
    sig = signature.rstrip("…").strip()
    if sig and not " ".join(own_text.split()).startswith(" ".join(sig.split())):
        head.append(signature)
    return "\n".join(head) + "\n" + own_text.strip("\n")


def own_texts(chunks: Sequence[CodeChunk]) -> list[str | None]:
    """Each chunk's own text, as full-text search indexes it: a class keeps its header, fields and method
    signatures, not the method bodies (they are chunks of their own); None for a split definition's whole."""
    return fts_texts([Chunk(*(getattr(c, f) for f in CHUNK_FIELDS)) for c in chunks])


def chunk_texts(rel: str, chunks: Sequence[CodeChunk]) -> Iterator[tuple[CodeChunk, str]]:
    """Each chunk of file ``rel`` that carries text of its own, with the text embedded for it (``embed_text``,
    before the token cut): what indexing embeds, and what a benchmark must embed to measure it."""
    for c, own in zip(chunks, own_texts(chunks), strict=True):
        if own is not None:
            yield c, embed_text(rel, c.symbol, c.signature, own)


def fit_to_tokens(text: str, count_tokens: Callable[[str], int], budget: int) -> str:
    """``text`` cut (at a line end where one is near) to at most ``budget`` tokens, special tokens included."""
    n = count_tokens(text)
    for _ in range(8):  # proportional cuts converge in two or three tries
        if n <= budget:
            return text
        keep = max(1, int(len(text) * budget / n * 0.97))
        cut = text.rfind("\n", 0, keep)
        text = text[: cut if cut > keep * 0.8 else keep]
        n = count_tokens(text)
    return text if n <= budget else text[: max(1, len(text) // 2)]


class CodeVectorIndex:
    """Approximate nearest neighbours over code-chunk vectors of one model. Thread-safe (one lock)."""

    def __init__(self, directory: Path, model_id: str, dim: int) -> None:
        self.directory = Path(directory)
        self.path = self.directory / f"{FILE_STEM}.hnsw"
        self.meta_path = self.directory / f"{FILE_STEM}.json"
        self.keys_path = self.directory / f"{FILE_STEM}.npz"
        self.model_id = model_id
        self.dim = dim
        self._lock = threading.RLock()
        self._keys: dict[int, ChunkKey] = {}  # live labels
        self._deleted = 0  # slots marked deleted, reusable by the next additions
        self._dirty = False
        self._index = self._new_index(INITIAL_CAPACITY)
        self.loaded = self._load()  # False: started empty (first run, another model, damage)

    def _new_index(self, capacity: int) -> hnswlib.Index:
        index = hnswlib.Index(space="ip", dim=self.dim)  # L2-normalised vectors: inner product = cosine
        index.init_index(
            max_elements=max(capacity, INITIAL_CAPACITY),
            ef_construction=HNSW_EF_CONSTRUCTION,
            M=HNSW_M,
            allow_replace_deleted=True,
        )
        index.set_ef(HNSW_EF_SEARCH)
        return index

    def _load(self) -> bool:
        try:
            meta = json.loads(self.meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        if (
            not isinstance(meta, dict)
            or meta.get("format") != INDEX_FORMAT
            or meta.get("model_id") != self.model_id
            or meta.get("dim") != self.dim
        ):
            log.info("code vectors in %s are for another model or format; starting afresh", self.directory)
            return False
        try:
            with np.load(self.keys_path, allow_pickle=False) as data:
                ids = data["ids"].astype(np.int64)
                hashes = data["hashes"]
                text_keys = data["text_keys"]
            index = hnswlib.Index(space="ip", dim=self.dim)
            capacity = int(meta.get("capacity", 0)) or INITIAL_CAPACITY
            index.load_index(str(self.path), max_elements=capacity, allow_replace_deleted=True)
            index.set_ef(HNSW_EF_SEARCH)
            labels = set(int(x) for x in index.get_ids_list())
            stored = [int(x) for x in ids]
            if len(stored) != int(meta.get("count", -1)) or not labels.issuperset(stored):
                raise ValueError("the index and its keys disagree")
        except (OSError, ValueError, KeyError, RuntimeError, MemoryError) as exc:
            log.warning("code vectors in %s are unreadable (%s); starting afresh", self.directory, exc)
            return False
        self._index = index
        self._keys = {
            i: ChunkKey(str(h), bytes(t)) for i, h, t in zip(stored, hashes.tolist(), text_keys.tolist(), strict=True)
        }
        self._deleted = len(labels) - len(stored)
        return True

    def save(self) -> None:
        """Write the index, then its keys and metadata (metadata last: it never describes newer files)."""
        with self._lock:
            if not self._dirty:
                return
            self.directory.mkdir(parents=True, exist_ok=True)
            paths.replace_private(self.path, lambda tmp: self._index.save_index(str(tmp)))
            ids = np.fromiter(self._keys, dtype=np.int64, count=len(self._keys))
            hashes = np.array([k.content_hash for k in self._keys.values()], dtype="U")
            text_keys = np.array([k.text_key for k in self._keys.values()], dtype="S32")
            paths.replace_private(
                self.keys_path, lambda tmp: np.savez(tmp, ids=ids, hashes=hashes, text_keys=text_keys)
            )
            meta = {
                "format": INDEX_FORMAT,
                "model_id": self.model_id,
                "dim": self.dim,
                "count": len(self._keys),
                "capacity": int(self._index.get_max_elements()),
            }
            paths.write_private_text(self.meta_path, json.dumps(meta) + "\n")
            self._dirty = False

    def close(self) -> None:
        self.save()

    # ------------------------------------------------------------ data

    def __len__(self) -> int:
        return len(self._keys)

    def reconcile(self, current: dict[int, str]) -> list[int]:
        """Drop labels that are no longer current chunks (or hold another chunk); the current ids without a vector."""
        with self._lock:
            gone = [i for i, key in self._keys.items() if current.get(i) != key.content_hash]
            for i in gone:
                self._index.mark_deleted(i)
                del self._keys[i]
            if gone:
                self._deleted += len(gone)
                self._dirty = True
                if self._deleted >= COMPACT_MIN_DELETED and self._deleted > len(self._keys):
                    self._compact()
            return [i for i in current if i not in self._keys]

    def covered(self, current: dict[int, str]) -> int:
        """How many of ``current`` (id -> content hash) have a vector."""
        with self._lock:
            return sum(1 for i, h in current.items() if (k := self._keys.get(i)) is not None and k.content_hash == h)

    def add(self, ids: list[int], keys: list[ChunkKey], mat: np.ndarray) -> None:
        if not ids:
            return
        with self._lock:
            fresh = [n for n, i in enumerate(ids) if i not in self._keys]
            if not fresh:
                return
            ids = [ids[n] for n in fresh]
            mat = np.ascontiguousarray(np.asarray(mat, dtype=np.float32)[fresh])
            reused = min(self._deleted, len(ids))
            needed = self._index.get_current_count() + len(ids) - reused
            if needed > self._index.get_max_elements():
                self._index.resize_index(int(needed * GROWTH) + 1)
            self._index.add_items(mat, np.asarray(ids, dtype=np.int64), replace_deleted=reused > 0)
            self._deleted -= reused
            for n, i in zip(fresh, ids, strict=True):
                self._keys[i] = keys[n]
            self._dirty = True

    def query(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(chunk id, cosine) of the ``k`` nearest chunks, best first."""
        with self._lock:
            live = len(self._keys)
            if live == 0 or k <= 0:
                return []
            k = min(k, live)
            self._index.set_ef(max(HNSW_EF_SEARCH, 2 * k))
            query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
            try:
                labels, dists = self._index.knn_query(query, k=k)
            except RuntimeError:  # deleted slots can leave fewer than k reachable: ask for fewer
                labels, dists = self._index.knn_query(query, k=max(1, k // 2))
        return [(int(label), float(1.0 - d)) for label, d in zip(labels[0], dists[0], strict=True)]

    def content_hashes(self, ids: Iterable[int]) -> dict[int, str]:
        """The content hash each of these labels was embedded from."""
        with self._lock:
            return {i: k.content_hash for i in ids if (k := self._keys.get(i)) is not None}

    def text_keys(self) -> set[bytes]:
        """Cache keys of the texts behind the live vectors (what pruning the cache must keep)."""
        with self._lock:
            return {k.text_key for k in self._keys.values()}

    def _compact(self) -> None:
        """Rebuild without the deleted slots (their vectors are copied, nothing is embedded again)."""
        ids = list(self._keys)
        index = self._new_index(int(len(ids) * GROWTH) + 1)
        if ids:
            mat = np.asarray(self._index.get_items(ids), dtype=np.float32)
            index.add_items(mat, np.asarray(ids, dtype=np.int64))
        self._index = index
        self._deleted = 0
        self._dirty = True
        log.info("compacted the code vectors in %s to %d", self.directory, len(ids))

    def info(self) -> dict[str, Any]:
        with self._lock:
            return {"vectors": len(self._keys), "deleted_slots": self._deleted, "path": str(self.path)}


def order_files(files: Iterable[str], first: Iterable[str], ranks: dict[str, float]) -> list[str]:
    """``first`` (open files) in their order, then by PageRank, most important first, then by name."""
    wanted = set(files)
    head = [f for f in dict.fromkeys(first) if f in wanted]
    rest = sorted(wanted.difference(head), key=lambda r: (-ranks.get(r, 0.0), r))
    return head + rest


@dataclass
class EmbedRun:
    """What one ``CodeVectors.embed`` call did."""

    added: int = 0  # chunks that got a vector
    embedded: int = 0  # texts the model ran on (the rest came from the embedding cache)
    seconds: float = 0.0


class CodeVectors:
    """The vectors of a workspace's code chunks and how they are filled in; ``Workspace`` delegates here.

    ``embedder`` is the workspace's (normally a ``CachedEmbedder``: unchanged texts never reach the
    model). Thread-safe: filling runs on a background thread while searches query.
    """

    def __init__(self, directory: Path, indexer: IndexerLike, embedder: Any) -> None:
        self.indexer = indexer
        self.embedder = embedder
        self.index = CodeVectorIndex(directory, embedder.model_id, embedder.dim)
        self.budget = min(int(embedder.n_ctx), CODE_TEXT_MAX_TOKENS)
        self._keys: list[tuple[int, str, str]] | None = None  # the code index's chunks, until the next index run
        self._fill_lock = threading.Lock()  # one fill at a time (the LSP's background one, the CLI's)
        self.last_run = EmbedRun()

    def invalidate(self) -> None:
        """The code index changed: read its chunks again before the next fill or count."""
        self._keys = None

    def _current(self) -> list[tuple[int, str, str]]:
        keys = self._keys
        if keys is None:
            keys = self._keys = self.indexer.chunk_keys()
        return keys

    def state(self) -> tuple[int, int]:
        """(chunks with a vector, chunks that carry text of their own)."""
        keys = self._current()
        return self.index.covered({i: h for i, _, h in keys}), len(keys)

    def hits(self, qvec: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(chunk id, cosine) of the nearest current chunks, best first."""
        return [(c.id, score) for c, score in self.hit_chunks(qvec, k)]

    def hit_chunks(self, qvec: np.ndarray, k: int) -> list[tuple[CodeChunk, float]]:
        """(chunk, cosine) of the nearest current chunks, best first: the rows read once, for the check and the
        caller."""
        found = self.index.query(qvec, k + HIT_SLACK)
        if not found:
            return []
        live = self.indexer.chunks_by_ids([i for i, _ in found])
        held = self.index.content_hashes([i for i, _ in found])
        # a chunk replaced since the last fill is gone; one whose id now names other code (a rebuilt index.db) too
        return [(live[i], score) for i, score in found if i in live and live[i].content_hash == held.get(i)][:k]

    def embed(
        self,
        ranks: dict[str, float],
        *,
        progress: Callable[[int, int], None] | None = None,
        limit: int | None = None,
        cancel: Callable[[], bool] | None = None,
        first: Sequence[str] = (),
        batch: int = CODE_EMBED_BATCH,
    ) -> EmbedRun:
        """Give vectors to chunks that lack one: ``first`` files, then the rest by PageRank; up to ``limit``."""
        with self._fill_lock:
            started = time.perf_counter()
            run = EmbedRun()
            cache = getattr(self.embedder, "cache", None)
            misses = cache.stats.misses if cache is not None else 0
            keys = self._current()
            current = {i: h for i, _, h in keys}
            missing = set(self.index.reconcile(current))
            by_file: dict[str, list[int]] = {}
            for i, rel, _ in keys:
                if i in missing:
                    by_file.setdefault(rel, []).append(i)
            total = len(missing) if limit is None else min(limit, len(missing))
            pending: list[tuple[int, str, str]] = []  # id, content hash, text

            def flush() -> None:
                if not pending:
                    return
                texts = [t for _, _, t in pending]
                mat = self.embedder.embed_documents(texts)
                keys_ = [ChunkKey(h, text_key(self.embedder.document_input(t))) for _, h, t in pending]
                self.index.add([i for i, _, _ in pending], keys_, mat)
                run.added += len(pending)
                pending.clear()
                if progress is not None:
                    progress(run.added, total)

            for rel in order_files(by_file, first, ranks):
                if run.added + len(pending) >= total or (cancel is not None and cancel()):
                    break
                want = set(by_file[rel])
                chunks = self.indexer.chunks_for(rel)
                for c, whole in chunk_texts(rel, chunks):
                    if c.id not in want or current.get(c.id) != c.content_hash:
                        continue  # has a vector, or changed since the keys were read
                    text = fit_to_tokens(whole, self.count_tokens, self.budget)
                    pending.append((c.id, c.content_hash, text))
                    if run.added + len(pending) >= total:
                        break
                    if len(pending) >= batch:
                        flush()
                        if cancel is not None and cancel():
                            break
            flush()
            run.embedded = (cache.stats.misses - misses) if cache is not None else run.added
            run.seconds = time.perf_counter() - started
            self.last_run = run
            return run

    def count_tokens(self, text: str) -> int:
        return int(self.embedder.count_tokens(self.embedder.document_input(text)))

    def text_keys(self) -> set[bytes]:
        """Cache keys the current chunks' vectors came from."""
        self.index.reconcile({i: h for i, _, h in self._current()})
        return self.index.text_keys()

    def save(self) -> None:
        self.index.save()

    def close(self) -> None:
        self.index.close()
