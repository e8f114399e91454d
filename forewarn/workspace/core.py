"""The workspace's shared state and plumbing (``WorkspaceCore``): opening and closing, anchors, the checks every
write shares, vectors and code vectors, re-indexing. ``forewarn.workspace.engine.Workspace`` builds on it."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from forewarn import paths
from forewarn.config import Settings
from forewarn.errors import ForewarnError
from forewarn.memory import validation
from forewarn.memory.errors import InvalidMemoryError
from forewarn.memory.lifecycle import ReconcileReport, same_anchor
from forewarn.memory.records import Anchor, Memory
from forewarn.memory.redact import redact
from forewarn.memory.session import SessionMemory
from forewarn.memory.store import MemoryStore
from forewarn.memory.text import to_iso
from forewarn.memory.vocabulary import (
    CURRENT_STATUSES,
    MemorySource,
    MemoryStatus,
)
from forewarn.workspace import reconcile
from forewarn.workspace.anchors import AnchorResolver
from forewarn.workspace.graph_cache import GraphCache
from forewarn.workspace.protocols import IndexerLike
from forewarn.workspace.symbols import SymbolLookup

if TYPE_CHECKING:
    from forewarn.memory.embed_cache import PruneReport
    from forewarn.memory.vectors import VectorIndex
    from forewarn.workspace.code_vectors import CodeVectors

from forewarn.workspace.results import ReindexReport

log = logging.getLogger(__name__)

SYNC_BACKFILL_MAX = 256  # memories without vectors embedded on open; more waits for backfill_vectors()
DEFAULT_CONFIDENCE: dict[str, float] = {  # how sure the source usually is
    MemorySource.USER: 1.0,
    MemorySource.IMPORT: 1.0,
    MemorySource.COMMIT: 0.8,
    MemorySource.COMMENT: 0.8,
    MemorySource.AGENT: 0.7,
}


class WorkspaceCore:
    """Index + memories + embedder + session for one workspace: the state every part of the facade shares."""

    def __init__(
        self,
        root: Path,
        settings: Settings,
        indexer: IndexerLike,
        store: MemoryStore,
        embedder: Any | None,
        reason: str | None,
        clock: Callable[[], float] = time.time,
        *,
        backfill_on_open: bool = True,
    ) -> None:
        self.root = Path(root).resolve()
        self.settings = settings
        self.indexer = indexer
        self.store = store
        self.embedder = embedder
        self.reason = reason
        self.clock = clock
        self.session = SessionMemory(clock)
        self._lock = threading.RLock()
        self.graph = GraphCache(self.root, indexer, settings.index.max_file_bytes)
        self.symbol_lookup = SymbolLookup(indexer, self.graph)  # hovers, and which definitions a file uses
        # a neighbour file's cached memory rows (the store's tuple) → their positions by the name code calls their
        # definition by: file opens filter those rows by the names a file uses, again and again (opening.py)
        self._names_of_rows: dict[str, tuple[tuple[Any, ...], dict[str, list[int]]]] = {}
        self._names_lock = threading.Lock()
        self.anchors = AnchorResolver(self.root, indexer, self.reindex)
        self._chunk_pool = ThreadPoolExecutor(1, thread_name_prefix="forewarn-chunks")
        self._surfaced: list[str] = []  # memories shown on file opens, not yet counted in the store
        self._surfaced_lock = threading.Lock()
        self.vectors: VectorIndex | None = None
        self._code_vectors: CodeVectors | None = None  # opened on first use (its file is tens of MB on a large tree)
        self._code_lock = threading.Lock()
        self.last_reconcile = ReconcileReport()  # what the latest catch_up did (open's included)
        if embedder is not None:
            from forewarn.memory.vectors import VectorIndex  # hnswlib: only needed with an embedder

            self.vectors = VectorIndex(store.path.parent, store, embedder.model_id, embedder.dim)
            if backfill_on_open:  # the daemon backfills in its worker instead, in batches
                self.backfill_vectors(limit=SYNC_BACKFILL_MAX)

    @classmethod
    def open(
        cls,
        root: Path,
        settings: Settings | None = None,
        *,
        embedder: Any | str | None = "auto",
        clock: Callable[[], float] = time.time,
        indexer: IndexerLike | None = None,
        backfill_on_open: bool = True,
    ) -> Self:
        """Open the workspace's memories and index. ``embedder``: "auto" (from settings), an embedder, or None."""
        from forewarn.indexing.indexer import Indexer

        settings = settings or Settings()
        root = Path(root).resolve()
        wdir = paths.workspace_dir(root)
        store = MemoryStore(wdir / "memory.db")  # checked on open: a damaged one raises MemoryDatabaseCorruptError
        idx: IndexerLike | None = None
        try:
            reason: str | None = None
            emb: Any | None
            if embedder == "auto":
                emb, reason = _open_embedder(settings)
            else:
                emb = embedder
                reason = None if emb is not None else "the embedder was not requested"
            idx = indexer if indexer is not None else Indexer(root, settings)
            ws = cls(root, settings, idx, store, emb, reason, clock, backfill_on_open=backfill_on_open)
        except BaseException:  # damage found while loading vectors, a bad index: close what was opened
            store.close()
            if idx is not None and indexer is None:
                idx.close()
            raise
        try:  # whatever changed the code index since (another process's `forewarn index`, a branch switch)
            ws.catch_up()
        except (ForewarnError, sqlite3.OperationalError) as exc:  # a store refusing writes, or busy past the
            log.warning("memories not reconciled with the code index: %s", exc)  # timeout: still opens; next time
        return ws

    def close(self) -> None:
        self._chunk_pool.shutdown(wait=True)
        if self.store.damage is None:  # a damaged store refuses the write; closing must still close
            self._write_surfaced()
        with self._lock:
            if self.vectors is not None:
                self.vectors.close()
            if self._code_vectors is not None:
                self._code_vectors.close()
            self.store.close()
            self.indexer.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def flush(self) -> None:
        """Persist the vector index and the surfaced counts now (the daemon calls this when idle)."""
        self._write_surfaced()
        if self.vectors is not None:
            self.vectors.save()
        if self._code_vectors is not None:
            self._code_vectors.save()

    @property
    def embedder_problem(self) -> str | None:
        """Why search is lexical-only (None in hybrid mode)."""
        return None if self.vectors is not None else self.reason

    @property
    def mode(self) -> str:
        return "hybrid" if self.vectors is not None else "lexical"

    def _now(self) -> tuple[float, str]:
        now = self.clock()
        return now, to_iso(now)

    def rel_path(self, file: str | Path) -> str:
        """A workspace-relative POSIX path; clear errors for paths outside the workspace."""
        return self.anchors.rel_path(file)

    def lookup_path(self, file: str | Path) -> str:
        """``rel_path`` without touching the disk, for read-only lookups on hot paths (file open, hover)."""
        return self.anchors.lookup_path(file)

    def resolve_anchor(
        self,
        file: str | Path | None,
        symbol: str | None = None,
        line: int | None = None,
        lines: tuple[int, int] | None = None,
        *,
        as_indexed: bool = False,
    ) -> Anchor | None:
        """The anchor for a file, a symbol in it, or a line or selection in it (None: workspace-wide).
        ``as_indexed``: ``symbol`` is the index's own path (a mined lesson's, a code action's), not a name a person
        typed: the first of same-named definitions is taken, not refused."""
        return self.anchors.resolve(file, symbol, line, lines, as_indexed=as_indexed)

    def _validate(
        self, text: str, type_: str, source: str, tags: Sequence[str]
    ) -> tuple[str, list[str], tuple[str, ...]]:
        """The checks every way in shares (forewarn.memory.validation; import applies the same ones)."""
        validation.memory_type(type_)
        validation.source(source)
        safe, kinds = redact(validation.memory_text(text))
        return safe, kinds, validation.tags(tags)

    def _embed_one(self, text: str) -> np.ndarray | None:
        if self.embedder is None:
            return None
        try:
            return np.asarray(self.embedder.embed_documents([text])[0], dtype=np.float32)
        except Exception:  # a failing model must not lose the memory: store it, embed later
            log.exception("embedding a memory failed; it is stored and will be embedded by backfill")
            return None

    def _remember_code(self, memories: Sequence[Memory]) -> None:
        """Keep the anchored code as it is now (syntax hash and text): staleness and diffs compare against it."""
        items: list[tuple[str, str, str]] = []
        parsed: dict[str, Any] = {}
        for m in memories:
            a = m.anchor
            if a is None or a.symbol is None or a.content_hash is None:
                continue
            if a.file not in parsed:
                parsed[a.file] = reconcile.syntax_chunks(self.root, a.file)
            c = (parsed[a.file] or {}).get(a.symbol)
            if c is not None and c.content_hash == a.content_hash and len(c.text) <= reconcile.CODE_MAX_CHARS:
                items.append((m.id, c.syntax_hash, c.text))
        if items:
            _, at = self._now()
            with self.store.batch():
                self.store.set_anchored_code(items, at=at)
                self.store.set_file_symbols([(rel, list(chunks)) for rel, chunks in parsed.items() if chunks])

    def get(self, memory_id: str) -> Memory:
        return self.store.resolve(memory_id)

    def _at_anchor(self, anchor: Anchor | None, statuses: Sequence[str] = CURRENT_STATUSES) -> list[Memory]:
        if anchor is None:
            return self.store.workspace_wide(statuses)
        return [m for m in self.store.anchored_to_files([anchor.file], statuses) if same_anchor(m.anchor, anchor)]

    @staticmethod
    def _supersedable(old: Memory) -> Memory:
        if old.status == MemoryStatus.SUPERSEDED:
            raise InvalidMemoryError(
                f"memory {old.id} was already superseded by {old.superseded_by}; supersede that one"
            )
        if old.status == MemoryStatus.ARCHIVED:
            raise InvalidMemoryError(f"memory {old.id} is forgotten (archived); restore it before superseding it")
        if old.status in (MemoryStatus.SUGGESTED, MemoryStatus.DISMISSED):
            raise InvalidMemoryError(f"memory {old.id} is {old.status}, not a current memory; nothing to supersede")
        return old

    def warm(self) -> None:
        """Compute what file opens and hovers read once per index run (ranks, references) ahead of them."""
        self.graph.warm()

    def reindex(self, rels: Sequence[str] | None = None, progress: Any = None) -> ReindexReport:
        """Re-index (all files, or ``rels``) and bring memory anchors in line with the code."""
        report = self.indexer.index(progress) if rels is None else self.indexer.index_files(rels)
        if self._code_vectors is not None:
            self._code_vectors.invalidate()
        with self._lock:
            touched = {*report.changed, *report.added, *report.deleted, *(old for old, _ in report.renamed)}
            self.graph.invalidate(touched if rels is not None else None)
        return ReindexReport(report, self.catch_up(sweep=rels is None))

    def catch_up(self, *, sweep: bool = True) -> ReconcileReport:
        """Reconcile memories with whatever changed in the code index since they last were (by anyone).

        Called on open and after every re-index; cheap when nothing changed (two small reads). ``sweep``
        (open, full index): also remember the code of memories that never had it (imported, mined).
        """
        with self._lock:
            _, at = self._now()
            self.last_reconcile = reconcile.catch_up(self.root, self.indexer, self.store, at) or ReconcileReport()
            if sweep:
                reconcile.remember_missing_code(self.root, self.store, at)
            return self.last_reconcile

    def _sync_vectors(self) -> None:
        """Bring the hnsw index up to SQLite, after a write's transaction committed.

        Never inside ``store.batch()``: the vector index takes its own lock and then the store's, so
        taking them the other way round (store, then vectors) could deadlock against a search.
        """
        if self.vectors is not None:
            self.vectors.sync()

    def backfill_vectors(self, *, batch: int = 64, limit: int | None = None) -> int:
        """Embed memories that have no vector for the current model (lexical-mode writes, imports)."""
        if self.embedder is None or self.vectors is None:
            return 0
        done = 0
        while limit is None or done < limit:
            take = batch if limit is None else min(batch, limit - done)
            todo = self.store.nums_without_vector(self.embedder.model_id, limit=take)
            if not todo:
                break
            mat = self.embedder.embed_documents([t for _, t in todo])
            self.vectors.add([n for n, _ in todo], np.asarray(mat, dtype=np.float32))
            done += len(todo)
        return done

    @property
    def code_vectors(self) -> CodeVectors | None:
        """The code chunks' vectors (None without an embedder); opened on first use."""
        if self.embedder is None:
            return None
        with self._code_lock:
            if self._code_vectors is None:
                from forewarn.workspace.code_vectors import CodeVectors  # hnswlib: only needed with an embedder

                self._code_vectors = CodeVectors(self.store.path.parent, self.indexer, self.embedder)
            return self._code_vectors

    def embed_chunks(
        self,
        progress: Callable[[int, int], None] | None = None,
        limit: int | None = None,
        cancel: Callable[[], bool] | None = None,
        *,
        first: Sequence[str] = (),
        batch: int | None = None,
    ) -> int:
        """Give vectors to code chunks lacking one (``first`` files, then by PageRank); how many got one."""
        cv = self.code_vectors
        if cv is None:
            return 0
        try:
            ranks, _ = self.graph.file_ranks()
        except Exception:  # ranking failed: name order still embeds everything
            log.exception("ranking files for code embedding failed")
            ranks = {}
        first_rels = [self.rel_path(f) for f in first]
        kwargs = {} if batch is None else {"batch": batch}
        run = cv.embed(ranks, progress=progress, limit=limit, cancel=cancel, first=first_rels, **kwargs)
        return run.added

    def code_vector_state(self) -> tuple[int, int]:
        """(code chunks with a vector, code chunks in all); (0, total) without an embedder."""
        cv = self.code_vectors
        if cv is None:
            return 0, len(self.indexer.chunk_keys())
        return cv.state()

    def code_vector_hits(self, qvec: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(chunk row id in the code index, cosine) of the ``k`` nearest current chunks, best first."""
        cv = self.code_vectors
        return [] if cv is None else cv.hits(qvec, k)

    def prune_embedding_cache(self, *, now: float | None = None) -> PruneReport | None:
        """Mark the cache entries this workspace's current chunks and memories use; drop long-unused ones.

        None when there is no cache (no embedder, or one without a cache). Run after an index run.
        """
        from forewarn.memory.embed_cache import CachedEmbedder, text_key

        emb = self.embedder
        if not isinstance(emb, CachedEmbedder):
            return None
        cv = self.code_vectors
        keys = cv.text_keys() if cv is not None else set()
        keys.update(text_key(emb.document_input(m.text)) for m in self.store.iter_all() if m.text)
        return emb.cache.prune(emb.model_id, keys, now=now)

    def _write_surfaced(self) -> None:
        with self._surfaced_lock:
            ids, self._surfaced = self._surfaced, []
        if ids:
            self.store.record_surfaced(ids, to_iso(self.clock()))


def _open_embedder(settings: Settings) -> tuple[Any | None, str | None]:
    try:
        from forewarn.memory.embed_cache import CachedEmbedder
        from forewarn.memory.embedder import EmbedderUnavailable, open_embedder
    except ImportError as exc:  # llama-cpp-python missing from this install
        return None, f"the embedder cannot be imported ({exc}); searching lexically"
    try:
        return CachedEmbedder(open_embedder(settings.embedder)), None
    except EmbedderUnavailable as exc:
        log.info("embedder unavailable: %s", exc.reason)
        return None, exc.reason
