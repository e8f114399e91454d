"""``Workspace``: the facade the CLI and the daemon use — code index + memories + embedder + session.

Threading: the engine may be shared by the daemon's threads. The store, the vector index and the
indexer each serialise their own calls with a lock; the engine adds one re-entrant lock around
compound writes (remember, supersede, reconcile, import) so their read-decide-write steps are
atomic. Embedding runs outside every lock, so a slow embedding never blocks a file-open lookup.
Several processes (two editor windows, the CLI) may share one workspace: SQLite (WAL, busy
timeout) arbitrates writes, and the vector index catches up with rows other processes added before
each vector query.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from forewarn import paths
from forewarn.config import Settings
from forewarn.errors import ForewarnError
from forewarn.memory import contradictions, lifecycle, retrieval, transfer, validation
from forewarn.memory.lifecycle import ReconcileReport, anchors_overlap, event, same_anchor
from forewarn.memory.redact import redact
from forewarn.memory.retrieval import ProactiveHit, ScoredMemory, SearchParams, SearchTimings
from forewarn.memory.session import SessionMemory
from forewarn.memory.store import (
    NEIGHBOUR_ROWS_PER_FILE,
    RELATION_EVENT,
    STATUSES,
    Anchor,
    AnchoredRef,
    InvalidMemoryError,
    Memory,
    MemoryEvent,
    MemoryFilter,
    MemoryNotFoundError,
    MemoryStore,
)
from forewarn.memory.suggestions import (
    ANCHOR_FILE,
    ANCHOR_SYMBOL,
    ANCHOR_WORKSPACE,
    Suggestion,
    SuggestionReport,
    rank_suggestions,
)
from forewarn.memory.text import age_text, from_iso, new_id, query_terms, to_iso
from forewarn.memory.vocabulary import (
    ANCHORED_STATUSES,
    CURRENT_STATUSES,
    ENDED_STATUSES,
    MemorySource,
    MemoryStatus,
    MemoryType,
    Resolution,
    Visibility,
)
from forewarn.workspace import code_search, history, reconcile, team
from forewarn.workspace.anchors import AnchorResolver
from forewarn.workspace.code_search import FileHit
from forewarn.workspace.graph_cache import GraphCache
from forewarn.workspace.limits import MAX_TEXT_CHARS, PROACTIVE_LIMIT
from forewarn.workspace.protocols import IndexerLike

if TYPE_CHECKING:
    from forewarn.memory.embed_cache import PruneReport
    from forewarn.memory.vectors import VectorIndex
    from forewarn.workspace.code_vectors import CodeVectors

log = logging.getLogger(__name__)

MERGE_NEIGHBOURS = 10  # nearest memories checked for merge/supersession on remember
CONFLICT_CANDIDATES = 200  # current memories on the same place judged against a new one, newest first
MAX_CONFLICTS = 5  # conflicts a remember reports, most similar first: past a few, the place needs a cleanup
MEMORY_CODE_FILES = 5  # the best code files whose memories join a search's ranking (a third list)
CLOSEST_TEXT_CHARS = 80  # the closest miss a search names when none reached the floor: enough to recognise it
FILE_WIDE_SHARE = 0.7  # a file-wide memory on a matching file, against one on the matching symbol
SESSION_NEIGHBOUR_SHARE = 0.5  # a touched file's dependencies get half its session weight
SESSION_NEIGHBOURS = 8  # dependencies per touched file that inherit session weight
SYNC_BACKFILL_MAX = 256  # memories without vectors embedded on open; more waits for backfill_vectors()
DEFAULT_CONFIDENCE: dict[str, float] = {  # how sure the source usually is
    MemorySource.USER: 1.0,
    MemorySource.IMPORT: 1.0,
    MemorySource.COMMIT: 0.8,
    MemorySource.COMMENT: 0.8,
    MemorySource.AGENT: 0.7,
}


@dataclass(frozen=True, slots=True)
class Conflict:
    """A current memory on the same place that the new one seems to contradict, and the cues that say so."""

    memory: Memory
    cues: tuple[str, ...]  # forewarn.memory.contradictions' CUE_* names
    overlap: float  # shared content words, 0..1
    cosine: float | None  # meaning, when both have vectors

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.memory.id, "cues": list(self.cues), "overlap": self.overlap, "cosine": self.cosine}


@dataclass(frozen=True, slots=True)
class RememberResult:
    memory: Memory
    merged: bool  # True: it restated an existing memory, which was reinforced instead of duplicated
    candidates: list[Memory]  # the memories of ``conflicts``: what this one may replace
    redacted: list[str]  # kinds of secrets replaced before storage
    conflicts: list[Conflict] = field(default_factory=list)  # current memories it seems to contradict


@dataclass(frozen=True, slots=True)
class ChunkHit:
    """A code chunk matching a search (the indexer's ``CodeChunk``) and its BM25 score (higher is better)."""

    chunk: Any
    score: float


@dataclass(frozen=True, slots=True)
class ReindexReport:
    """What a re-index changed in the code (``index``) and in memory anchors (``memories``)."""

    index: Any  # the indexer's IndexReport
    memories: ReconcileReport

    def to_dict(self) -> dict[str, Any]:
        data = dict(self.index.to_dict())
        data["memories"] = self.memories.to_dict()
        return data


@dataclass(frozen=True, slots=True)
class OpenView:
    """What a file open shows (``hits``, ranked) and how many candidates the limit left out."""

    hits: list[ProactiveHit]
    more: int  # ranked below the limit: shown nowhere on open, reachable by search and list


@dataclass(frozen=True, slots=True)
class SearchResult:
    memories: list[ScoredMemory]
    mode: str  # "hybrid" or "lexical"
    reason: str | None = None  # why lexical, when it is
    timings: SearchTimings = field(default_factory=SearchTimings)
    files: list[FileHit] = field(default_factory=list)  # code hits ranked as files, best first
    closest: ScoredMemory | None = None  # no memory reached the relevance floor: the one that came closest

    @property
    def chunks(self) -> list[ChunkHit]:
        """Each code file's best chunk, with the file's score (the flat view symbol pickers and JSON show)."""
        return [ChunkHit(f.chunks[0].chunk, f.score) for f in self.files if f.chunks]

    def closest_summary(self) -> str | None:
        """Why no memory was returned, in a line: the closest one held back by the relevance floor, its match and
        the floor (None when memories were found, or none matched at all)."""
        c = self.closest
        if c is None or self.memories:
            return None
        floor = retrieval.Floor()
        why = [] if c.cosine is None else [f"similarity {c.cosine:.2f} < {floor.answer_cosine:.2f}"]
        words = floor.words_to_answer(c.cosine)
        if (c.coverage or 0.0) >= words and c.terms < floor.answer_terms:
            why.append(f"only {c.terms} word of the query matched")  # a rare word alone does not answer
        else:
            why.append(f"words matched {c.coverage or 0.0:.0%} < {words:.0%}")
        text = " ".join(c.memory.text.split())
        text = text if len(text) <= CLOSEST_TEXT_CHARS else text[: CLOSEST_TEXT_CHARS - 1] + "…"
        where = f" on {c.memory.file}" if c.memory.file else ""
        return f"“{text}” ({c.memory.type}{where}; {', '.join(why)})"

    def no_memory_message(self) -> str:
        """What a search that found no memory says: the closest one the floor held back, when there is one."""
        closest = self.closest_summary()
        return f"No memory matches; closest: {closest}" if closest else "No memory matches."


@dataclass(frozen=True, slots=True)
class SymbolInfo:
    file: str
    symbol: str
    kind: str
    start_line: int
    end_line: int
    memories: list[Memory]
    file_rank: int | None  # 1 = the most important file of the workspace by PageRank
    file_count: int
    dependents: int  # files that use this file's definitions


@dataclass(frozen=True, slots=True)
class History:
    chain: list[Memory]  # oldest first, following supersedes/superseded_by
    events: dict[str, list[MemoryEvent]]


@dataclass(frozen=True, slots=True)
class WorkspaceStats:
    total: int
    by_type: dict[str, int]
    by_status: dict[str, int]
    stale: int
    most_surfaced: list[Memory]
    important_without_memories: list[tuple[str, float]]  # (file, PageRank score), most important first
    mode: str
    reason: str | None
    vectors: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "by_type": self.by_type,
            "by_status": self.by_status,
            "stale": self.stale,
            "most_surfaced": [
                {"id": m.id, "type": m.type, "text": m.text, "surfaced": m.surfaced_count} for m in self.most_surfaced
            ],
            "important_without_memories": [{"file": f, "score": s} for f, s in self.important_without_memories],
            "mode": self.mode,
            "reason": self.reason,
            "vectors": self.vectors,
        }


class Workspace:
    """Index + memories + embedder + session for one workspace. Create with :meth:`open`."""

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
    ) -> Workspace:
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

    def __enter__(self) -> Workspace:
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

    # ------------------------------------------------------------ anchors (forewarn.workspace.anchors)

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
    ) -> Anchor | None:
        """The anchor for a file, a symbol in it, or a line or selection in it (None: workspace-wide)."""
        return self.anchors.resolve(file, symbol, line, lines)

    # ------------------------------------------------------------ writing

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

    def remember(
        self,
        text: str,
        *,
        type: str = MemoryType.NOTE,
        file: str | Path | None = None,
        symbol: str | None = None,
        line: int | None = None,
        lines: tuple[int, int] | None = None,
        tags: Sequence[str] = (),
        source: str = MemorySource.USER,
        confidence: float | None = None,
        anchor: Anchor | None = None,
        status: MemoryStatus = MemoryStatus.ACTIVE,
        provenance: dict[str, Any] | None = None,
        proposes_to_supersede: str | None = None,
        private: bool = False,
    ) -> RememberResult:
        """Store a new memory (redacted), or reinforce the same lesson already stored at the same anchor.

        ``status``: ``active``, or ``suggested`` for what waits for a person's review (an agent's note when
        agents are not trusted). ``provenance``: who proposed it (e.g. ``{"agent": {"name": …}}``).
        ``proposes_to_supersede``: a suggestion that, once accepted, replaces that current memory (an untrusted
        agent's supersede: nothing changes for the old one until a person accepts).
        ``private``: the writer's alone: never exported, and merged only into another private memory.
        """
        if status not in (MemoryStatus.ACTIVE, MemoryStatus.SUGGESTED):
            raise InvalidMemoryError(f"a new memory is active or suggested, not {status}")
        replaces: Memory | None = None
        if proposes_to_supersede is not None:
            if status != MemoryStatus.SUGGESTED:
                raise InvalidMemoryError("only a suggestion proposes to supersede; supersede replaces at once")
            replaces = self._supersedable(self.store.resolve(proposes_to_supersede))
        safe, kinds, clean_tags = self._validate(text, type, source, tags)
        prov = validation.provenance(provenance)
        if anchor is None:
            anchor = self.resolve_anchor(file, symbol, line, lines)
        vec = self._embed_one(safe)
        conf = DEFAULT_CONFIDENCE.get(source, 1.0) if confidence is None else max(0.0, min(1.0, confidence))
        with self._lock:
            now, at = self._now()
            merge_into = self._similar(safe, anchor, vec)
            visibility = Visibility.PRIVATE if private else Visibility.TEAM
            if merge_into is not None and merge_into.visibility != visibility:
                merge_into = None  # a private note inside a team memory's history would be exported with it
            if merge_into is not None and replaces is None:
                self.store.reinforce(
                    merge_into.id, at=at, confidence_gain=lifecycle.MERGE_CONFIDENCE_GAIN,
                    event=event(merge_into.id, "merged", at, text=safe, source=source, tags=list(clean_tags) or None),
                )  # fmt: skip
                merged = self.store.get(merge_into.id)
                assert merged is not None
                again = self._conflicts(safe, merged.anchor, vec, memory_id=merged.id)  # resolved pairs stay quiet
                return RememberResult(merged, True, [c.memory for c in again], kinds, again)
            memory = Memory(
                id=new_id(now), type=MemoryType(type), text=safe, anchor=anchor, source=source, confidence=conf,
                created_at=at, updated_at=at, session_id=self.session.current_session(), tags=clean_tags,
                status=status, provenance=prov, supersedes=replaces.id if replaces is not None else None,
                visibility=visibility, recorded_by=team.git_identity(self.root),
            )  # fmt: skip
            conflicts = self._conflicts(safe, anchor, vec)
            what = "suggested" if status == MemoryStatus.SUGGESTED else "created"
            with self.store.batch():
                stored = self.store.insert(memory, [event(memory.id, what, at, source=source, redacted=kinds or None)])
                if vec is not None and self.vectors is not None:
                    self.vectors.put([stored.num], vec.reshape(1, -1))
            self._sync_vectors()
            self._remember_code([stored])
            self.session.observe("memory", stored.id)
            return RememberResult(stored, False, [c.memory for c in conflicts], kinds, conflicts)

    def _similar(self, text: str, anchor: Anchor | None, vec: np.ndarray | None) -> Memory | None:
        """The current memory at the same place saying the same thing, to merge into (conflicts: ``_conflicts``)."""
        if vec is None or self.vectors is None:
            # lexical mode: only an identical lesson at the same place merges
            from forewarn.memory.text import normalise_text

            key = normalise_text(text)
            same = [m for m in self._at_anchor(anchor) if normalise_text(m.text) == key]
            return same[0] if same else None
        self.vectors.sync()
        near = self.vectors.query(vec, MERGE_NEIGHBOURS)
        loaded = self.store.by_nums([n for n, _ in near])
        for num, cos in near:
            m = loaded.get(num)
            if (
                m is not None
                and m.status in CURRENT_STATUSES
                and cos > lifecycle.MERGE_COSINE
                and same_anchor(m.anchor, anchor)
            ):
                return m
        return None

    def _conflicts(
        self, text: str, anchor: Anchor | None, vec: np.ndarray | None, *, memory_id: str | None = None
    ) -> list[Conflict]:
        """Current memories on the same place (symbol, file or workspace) that ``text`` seems to contradict.

        ``memory_id``: the memory the text is (an existing one): itself, and every memory a person already
        related it to (both hold, contested), are left out, so a resolved pair is never flagged again.
        """
        if anchor is None:
            others = self.store.workspace_wide(CURRENT_STATUSES, limit=CONFLICT_CANDIDATES)
        else:
            others = [
                m
                for m in self.store.anchored_to_files([anchor.file], CURRENT_STATUSES)
                if anchors_overlap(m.anchor, anchor)
            ]
            others.sort(key=lambda m: m.created_at, reverse=True)
            others = others[:CONFLICT_CANDIDATES]
        if memory_id is not None:
            related = {r.other(memory_id) for r in self.store.relations([memory_id])}
            others = [m for m in others if m.id != memory_id and m.id not in related]
        if not others:
            return []
        cosines: dict[int, float] = {}
        if vec is not None and self.vectors is not None:
            for num, v in self.vectors.vectors([m.num for m in others]).items():
                cosines[num] = float(np.dot(np.asarray(v, dtype=np.float32), vec))
        here = contradictions.anchor_words(anchor.symbol if anchor else None)
        found: list[Conflict] = []
        for m in others:
            there = contradictions.anchor_words(m.anchor.symbol if m.anchor else None)
            verdict = contradictions.judge(text, m.text, anchor=here | there, cosine=cosines.get(m.num))
            if verdict is None and memory_id is not None:  # an existing memory may be the older of the two
                verdict = contradictions.judge(m.text, text, anchor=here | there, cosine=cosines.get(m.num))
            if verdict is not None:
                found.append(Conflict(m, verdict.cues, verdict.overlap, verdict.cosine))
        found.sort(key=lambda c: -max(c.overlap, c.cosine or 0.0))
        return found[:MAX_CONFLICTS]

    def conflicts(self, memory_id: str) -> list[Conflict]:
        """The current memories an existing memory seems to contradict, leaving out pairs a person resolved."""
        m = self.store.resolve(memory_id)
        vec = None
        if self.vectors is not None and m.num is not None:
            got = self.vectors.vectors([m.num]).get(m.num)
            vec = None if got is None else np.asarray(got, dtype=np.float32)
        return self._conflicts(m.text, m.anchor, vec, memory_id=m.id)

    def contested_with(self, memory_ids: Sequence[str]) -> dict[str, list[Memory]]:
        """For each memory, the current memories it is contested with (a person marked the pair contested)."""
        pairs = [r for r in self.store.relations(memory_ids) if r.kind == Resolution.CONTESTED]
        others = self.store.get_many(list({x for r in pairs for x in (r.a, r.b)}))
        wanted = set(memory_ids)
        out: dict[str, list[Memory]] = {}
        for r in pairs:
            for mine in (r.a, r.b):
                other = others.get(r.other(mine))
                if mine in wanted and other is not None and other.status in CURRENT_STATUSES:
                    out.setdefault(mine, []).append(other)
        return out

    def resolve_conflict(self, memory_id: str, other_id: str, resolution: str) -> tuple[Memory, Memory]:
        """What a person decided about two memories that seem to contradict each other; both as they are now.

        ``replace``: ``memory_id`` stands and ``other_id`` is superseded by it (kept as history). ``both``:
        both hold; recorded, so the pair is never flagged again, and a contested one becomes current again.
        ``contested``: both are marked contested (a Warning wherever they show) until someone resolves them.
        """
        try:
            how = Resolution(resolution)
        except ValueError:
            raise InvalidMemoryError(f"unknown resolution '{resolution}'; use one of {', '.join(Resolution)}") from None
        m, o = self.store.resolve(memory_id), self.store.resolve(other_id)
        if m.id == o.id:
            raise InvalidMemoryError(f"memory {m.id} cannot contradict itself; name the other memory")
        for x in (m, o):
            if x.status not in CURRENT_STATUSES:
                raise InvalidMemoryError(
                    f"memory {x.id} is {x.status}, not a current memory; only current memories can be resolved"
                )
        with self._lock:
            _, at = self._now()
            with self.store.batch():
                if how == Resolution.REPLACE:
                    self.store.update_status(
                        o.id, MemoryStatus.SUPERSEDED, at=at, reason=f"superseded by {m.id}", ended_at=at,
                        superseded_by=m.id, event=event(o.id, "superseded", at, by=m.id, resolution=how.value),
                    )  # fmt: skip
                    self._settle_partners(o.id, at)
                    if m.supersedes is None:
                        self.store.set_supersedes(m.id, o.id, at=at)
                else:
                    self.store.set_relation(m.id, o.id, how.value, at=at)
                    self.store.add_events(
                        [
                            event(x.id, RELATION_EVENT, at, relation=how.value, **{"with": y.id})
                            for x, y in ((m, o), (o, m))
                        ]
                    )
                if how == Resolution.CONTESTED:
                    for x, y in ((m, o), (o, m)):
                        if x.status in (MemoryStatus.ACTIVE, MemoryStatus.STALE):
                            self.store.update_status(
                                x.id, MemoryStatus.CONTESTED, at=at, reason=f"contradicts {y.id}",
                                event=event(x.id, "contested", at, previous_status=x.status, **{"with": y.id}),
                            )  # fmt: skip
                else:
                    self._settle_contested([m.id] if how == Resolution.REPLACE else [m.id, o.id], at)
        return self.store.resolve(m.id), self.store.resolve(o.id)

    def _settle_partners(self, memory_id: str, at: str) -> None:
        """``memory_id`` is no longer current: the memories contested with it may be settled now."""
        partners = [r.other(memory_id) for r in self.store.relations([memory_id]) if r.kind == Resolution.CONTESTED]
        if partners:
            self._settle_contested(partners, at)

    def _settle_contested(self, memory_ids: Sequence[str], at: str) -> None:
        """A contested memory with no contested pair left goes back to the status it had before."""
        still = self.contested_with(memory_ids)
        for mid in memory_ids:
            m = self.store.get(mid)
            if m is None or m.status != MemoryStatus.CONTESTED or still.get(mid):
                continue
            previous = MemoryStatus.ACTIVE
            for ev in reversed(self.store.events(mid)):
                if ev.kind == "contested":
                    recorded = str(ev.detail.get("previous_status") or "")
                    if recorded in (MemoryStatus.ACTIVE, MemoryStatus.STALE):
                        previous = MemoryStatus(recorded)
                    break
            self.store.update_status(mid, previous, at=at, event=event(mid, "uncontested", at, status=previous))

    def _at_anchor(self, anchor: Anchor | None) -> list[Memory]:
        if anchor is None:
            return self.store.workspace_wide()
        return [
            m for m in self.store.anchored_to_files([anchor.file], CURRENT_STATUSES) if same_anchor(m.anchor, anchor)
        ]

    def get(self, memory_id: str) -> Memory:
        return self.store.resolve(memory_id)

    def supersede(self, memory_id: str, text: str, *, type: str | None = None) -> Memory:
        """Replace a memory with a new one at the same anchor; returns the new one.

        The old one stays as history (status superseded; ``new.supersedes`` is its id).
        """
        old = self._supersedable(self.store.resolve(memory_id))
        safe, kinds, tags = self._validate(text, type or old.type, old.source, old.tags)
        vec = self._embed_one(safe)
        with self._lock:
            now, at = self._now()
            anchor = lifecycle.current_anchor(old, self.indexer) if old.anchor else None
            new = Memory(
                id=new_id(now), type=_memory_type(type) if type else old.type, text=safe, anchor=anchor,
                source=old.source, confidence=old.confidence, created_at=at, updated_at=at, supersedes=old.id,
                session_id=self.session.current_session(), tags=tags, visibility=old.visibility,
                recorded_by=team.git_identity(self.root),
            )  # fmt: skip
            with self.store.batch():
                current = self.store.get(old.id)
                if current is None or current.status == MemoryStatus.SUPERSEDED:  # another process got there first
                    raise InvalidMemoryError(f"memory {old.id} was superseded meanwhile")
                stored = self.store.insert(
                    new, [event(new.id, "created", at, supersedes=old.id, redacted=kinds or None)]
                )
                self.store.update_status(
                    old.id, MemoryStatus.SUPERSEDED, at=at, reason=f"superseded by {new.id}", ended_at=at,
                    superseded_by=new.id, event=event(old.id, "superseded", at, by=new.id),
                )  # fmt: skip
                self._settle_partners(old.id, at)
                if vec is not None and self.vectors is not None:
                    self.vectors.put([stored.num], vec.reshape(1, -1))
            self._sync_vectors()
            self._remember_code([stored])
            return stored

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

    def forget(self, memory_id: str) -> Memory:
        """Archive (restorable): never returned as current, never deleted."""
        m = self.store.resolve(memory_id)
        if m.status == MemoryStatus.ARCHIVED:
            return m
        with self._lock:
            _, at = self._now()
            self.store.update_status(
                m.id, MemoryStatus.ARCHIVED, at=at, reason="forgotten", ended_at=m.ended_at or at,
                event=event(
                    m.id, "forgotten", at, previous_status=m.status, previous_reason=m.status_reason,
                    previous_ended_at=m.ended_at,
                ),
            )  # fmt: skip
            self._settle_partners(m.id, at)
        return self.store.resolve(m.id)

    def purge(self, memory_id: str) -> Memory:
        """Forget for good: the text leaves the database, its full-text index and the vectors; history keeps
        only that the memory was purged. Export never writes it again, and no import brings it back."""
        m = self.store.resolve(memory_id)
        if transfer.is_purged(m):
            return m
        with self._lock:
            _, at = self._now()
            self.store.purge(m.id, at=at, event=event(m.id, transfer.PURGED_EVENT, at, previous_status=m.status))
            if self.vectors is not None:
                self.vectors.rebuild()  # the hnsw file held the purged memory's vector too
        return self.store.resolve(m.id)

    def restore(self, memory_id: str) -> Memory:
        """Bring back a forgotten memory (to the status it had before)."""
        m = self.store.resolve(memory_id)
        if transfer.is_purged(m):
            raise InvalidMemoryError(f"memory {m.id} was purged; its text is gone, so there is nothing to restore")
        if m.status != MemoryStatus.ARCHIVED:
            raise InvalidMemoryError(f"memory {m.id} is {m.status}, not forgotten; nothing to restore")
        detail: dict[str, Any] = {}
        for ev in reversed(self.store.events(m.id)):
            if ev.kind == "forgotten":
                detail = ev.detail
                break
        recorded = str(detail.get("previous_status") or MemoryStatus.ACTIVE)
        previous = MemoryStatus(recorded) if recorded in STATUSES else MemoryStatus.ACTIVE
        if previous == MemoryStatus.ARCHIVED:
            previous = MemoryStatus.ACTIVE
        # a forgotten superseded memory goes back to being history, not current
        ended = detail.get("previous_ended_at") if previous == MemoryStatus.SUPERSEDED else None
        with self._lock:
            _, at = self._now()
            self.store.update_status(
                m.id, previous, at=at, reason=detail.get("previous_reason"), ended_at=ended,
                event=event(m.id, "restored", at, status=previous),
            )  # fmt: skip
        return self.store.resolve(m.id)

    def confirm(self, memory_id: str) -> Memory:
        """ "Still true": clears staleness (re-hashing the anchored code) and reinforces."""
        m = self.store.resolve(memory_id)
        if m.status in ENDED_STATUSES:
            raise InvalidMemoryError(f"memory {m.id} is {m.status}; only current memories can be confirmed")
        if m.status in (MemoryStatus.SUGGESTED, MemoryStatus.DISMISSED):  # confirming must not bypass review
            raise InvalidMemoryError(
                f"memory {m.id} is {m.status}, not a current memory; a person accepts suggestions (memory review)"
            )
        if m.status == MemoryStatus.CONTESTED:  # "still true" does not say which of the pair holds
            raise InvalidMemoryError(
                f"memory {m.id} is contested by another memory; settle the pair first "
                f"(forewarn memory resolve {m.id} --replace|--both|--contested)"
            )
        with self._lock:
            _, at = self._now()
            with self.store.batch():
                if m.status == MemoryStatus.ORPHANED:
                    a = m.anchor
                    new_anchor = Anchor(a.file) if a is not None and (self.root / a.file).is_file() else None
                    self.store.update_anchor(m.id, new_anchor, at=at, event=None)
                elif m.anchor is not None and m.anchor.symbol is not None:
                    self.store.update_anchor(m.id, lifecycle.current_anchor(m, self.indexer), at=at, event=None)
                self.store.update_status(
                    m.id, MemoryStatus.ACTIVE, at=at, event=event(m.id, "confirmed", at, previous_status=m.status)
                )
                self.store.reinforce(m.id, at=at, confidence_gain=lifecycle.CONFIRM_CONFIDENCE_GAIN, event=None)
        confirmed = self.store.resolve(m.id)
        self._remember_code([confirmed])  # "still true" of the code as it is now: later diffs start here
        return confirmed

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

    def reanchor(
        self, memory_id: str, file: str | Path, symbol: str | None = None, *, line: int | None = None
    ) -> Memory:
        """Anchor a memory to another definition by hand (an orphan's code found again, a wrong guess fixed).

        The memory becomes active again (the person says it describes that code) and its history records
        where it was and where it went.
        """
        m = self.store.resolve(memory_id)
        if m.status in ENDED_STATUSES or m.status == MemoryStatus.DISMISSED:
            raise InvalidMemoryError(
                f"memory {m.id} is {m.status}; only current memories and suggestions can be re-anchored"
            )
        anchor = self.resolve_anchor(file, symbol, line)
        with self._lock:
            _, at = self._now()
            old = m.anchor
            with self.store.batch():
                self.store.update_anchor(
                    m.id, anchor, at=at,
                    event=event(
                        m.id, reconcile.REANCHORED, at, how="by hand", from_file=old.file if old else None,
                        from_symbol=old.symbol if old else None, to_file=anchor.file if anchor else None,
                        to_symbol=anchor.symbol if anchor else None,
                    ),
                )  # fmt: skip
                if m.status in (MemoryStatus.ORPHANED, MemoryStatus.STALE):
                    self.store.update_status(
                        m.id, MemoryStatus.ACTIVE, at=at, event=event(m.id, "revived", at, previous_status=m.status)
                    )
        moved = self.store.resolve(m.id)
        self._remember_code([moved])
        return moved

    def stale_diff(self, memory_id: str) -> str | None:
        """What changed in a stale memory's code since it was written or last confirmed (None: unknown)."""
        m = self.store.resolve(memory_id)
        if m.status != MemoryStatus.STALE:
            return None
        for ev in reversed(self.store.events(m.id)):
            if ev.kind in ("stale", "revived") and ev.detail.get("diff"):
                return str(ev.detail["diff"])
            if ev.kind == "confirmed":
                break
        return None

    def mark_stale(self, memory_id: str, reason: str = "marked outdated") -> Memory:
        m = self.store.resolve(memory_id)
        if m.status not in ANCHORED_STATUSES:
            raise InvalidMemoryError(f"memory {m.id} is {m.status}; only current memories can be marked outdated")
        with self._lock:
            _, at = self._now()
            self.store.update_status(
                m.id, MemoryStatus.STALE, at=at, reason=reason, event=event(m.id, "marked_stale", at, reason=reason)
            )
        return self.store.resolve(m.id)

    def accept(self, memory_id: str) -> None:
        """The user acted on a memory (opened it, applied it): reinforce and remember it this session."""
        m = self.store.resolve(memory_id)
        _, at = self._now()
        self.store.record_access([m.id], at)
        self.session.observe("memory", m.id)

    # ------------------------------------------------------------ suggestions (mined, reviewed by a person)

    def add_suggestions(self, items: Sequence[Suggestion]) -> SuggestionReport:
        """Store mined memories as ``suggested``, in one transaction; idempotent by fingerprint.

        A fingerprint seen before (waiting, accepted or dismissed) is never added again. Each is checked and
        redacted as every memory is, and anchored at HEAD: its symbol, else its file, else workspace-wide
        (``provenance["anchor"]`` says which). Vectors come later, from ``backfill_vectors`` (as imports).
        """
        unique: dict[str, Suggestion] = {}
        for item in items:
            unique.setdefault(item.fingerprint, item)
        seen = self.store.mined(list(unique))
        known = sum(1 for _, status in seen.values() if status != MemoryStatus.DISMISSED)
        dismissed = len(seen) - known
        invalid = 0
        rows: list[tuple[Memory, list[MemoryEvent]]] = []
        fingerprints: list[tuple[str, str]] = []
        now, at = self._now()
        for n, (fp, item) in enumerate(unique.items()):
            if fp in seen:
                continue
            try:
                memory, kinds = self._suggested_memory(item, now + n * 1e-6, at)
            except (InvalidMemoryError, ValueError) as exc:
                log.warning("mined suggestion %s refused: %s", fp[:200], exc)
                invalid += 1
                continue
            rows.append((memory, [event(memory.id, "suggested", at, source=item.source, fingerprint=fp,
                                        redacted=kinds or None)]))  # fmt: skip
            fingerprints.append((fp, memory.id))
        with self._lock, self.store.batch():
            # another process may have stored some meanwhile: look again inside the transaction
            again = self.store.mined([fp for fp, _ in fingerprints])
            keep = [(r, fpm) for r, fpm in zip(rows, fingerprints, strict=True) if fpm[0] not in again]
            self.store.insert_many([r for r, _ in keep])
            self.store.record_mined([fpm for _, fpm in keep], at=at)
        known += len(rows) - len(keep)
        return SuggestionReport(added=len(keep), known=known, dismissed_before=dismissed, invalid=invalid)

    def _suggested_memory(self, item: Suggestion, now: float, at: str) -> tuple[Memory, list[str]]:
        safe, kinds, _ = self._validate(item.text, item.type, item.source, ())
        provenance = dict(validation.provenance(item.provenance) or {})
        created = to_iso(from_iso(item.created_at))
        anchor: Anchor | None = None
        outcome = ANCHOR_WORKSPACE
        if item.file is not None:
            if item.symbol is not None:
                try:
                    anchor, outcome = self.resolve_anchor(item.file, item.symbol), ANCHOR_SYMBOL
                except InvalidMemoryError:
                    anchor = None
            if anchor is None:
                try:
                    anchor, outcome = self.resolve_anchor(item.file), ANCHOR_FILE
                except InvalidMemoryError:
                    anchor, outcome = None, ANCHOR_WORKSPACE
        provenance["anchor"] = outcome
        memory = Memory(
            id=new_id(now), type=MemoryType(item.type), text=safe, anchor=anchor, source=item.source,
            confidence=DEFAULT_CONFIDENCE.get(item.source, 0.8), created_at=created, updated_at=at,
            status=MemoryStatus.SUGGESTED, provenance=provenance,
        )  # fmt: skip
        return memory, kinds

    def suggestions(self, file: str | Path | None = None, *, limit: int | None = None) -> list[Memory]:
        """Suggestions waiting for review (on ``file``, or everywhere), best first (``rank_suggestions``)."""
        rel = self.lookup_path(file) if file else None
        flt = MemoryFilter(file=rel, statuses=(MemoryStatus.SUGGESTED,))
        ranked = rank_suggestions(self.store.list_memories(flt, limit=-1), self.clock())  # -1: no limit
        return ranked if limit is None else ranked[: max(0, limit)]

    def accept_suggestion(self, memory_id: str, text: str | None = None) -> Memory:
        """A person agrees: the suggestion becomes an active memory (its text edited first when given)."""
        m = self.store.resolve(memory_id)
        if m.status != MemoryStatus.SUGGESTED:
            raise InvalidMemoryError(f"memory {m.id} is {m.status}, not a suggestion; nothing to accept")
        safe: str | None = None
        kinds: list[str] = []
        vec: np.ndarray | None = None
        if text is not None:
            safe, kinds, _ = self._validate(text, m.type, m.source, ())
            vec = self._embed_one(safe) if safe != m.text else None
        with self._lock:
            _, at = self._now()
            with self.store.batch():
                current = self.store.get(m.id)
                if current is None or current.status != MemoryStatus.SUGGESTED:  # reviewed meanwhile elsewhere
                    raise InvalidMemoryError(
                        f"memory {m.id} was reviewed meanwhile (it is {current and current.status})"
                    )
                edited = safe is not None and safe != m.text
                if edited and safe is not None:
                    self.store.set_text(m.id, safe, at=at)
                    if vec is not None and self.vectors is not None:
                        self.vectors.put([m.num], vec.reshape(1, -1))
                self.store.update_status(
                    m.id, MemoryStatus.ACTIVE, at=at,
                    event=event(m.id, "accepted", at, previous_text=m.text if edited else None, redacted=kinds or None),
                )  # fmt: skip
                old = self.store.get(m.supersedes) if m.supersedes else None
                if old is not None and old.status in CURRENT_STATUSES:  # it proposed to replace that one: now it does
                    self.store.update_status(
                        old.id, MemoryStatus.SUPERSEDED, at=at, reason=f"superseded by {m.id}", ended_at=at,
                        superseded_by=m.id, event=event(old.id, "superseded", at, by=m.id),
                    )  # fmt: skip
                    self._settle_partners(old.id, at)
            self._sync_vectors()
        accepted = self.store.resolve(m.id)
        self._remember_code([accepted])
        return accepted

    def dismiss_suggestion(self, memory_id: str) -> Memory:
        """A person says no: kept as history (status dismissed), and its fingerprint is never proposed again."""
        m = self.store.resolve(memory_id)
        if m.status == MemoryStatus.DISMISSED:
            return m
        if m.status != MemoryStatus.SUGGESTED:
            raise InvalidMemoryError(f"memory {m.id} is {m.status}, not a suggestion; use forget to archive it")
        with self._lock:
            _, at = self._now()
            self.store.update_status(
                m.id, MemoryStatus.DISMISSED, at=at, reason="dismissed", ended_at=at, event=event(m.id, "dismissed", at)
            )
        return self.store.resolve(m.id)

    def suggestion_diff(self, memory_id: str, *, max_lines: int = history.DIFF_CONTEXT_LINES) -> str:
        """What a mined memory stands on, for a reviewer: its newest commit's diff (the file as named
        then; a workspace-wide one: the commit's ``--stat``), or a warning comment's location."""
        m = self.store.resolve(memory_id)
        prov = m.provenance or {}
        raw = prov.get("commits")
        commits = [c for c in raw if isinstance(c, dict) and c.get("sha")] if isinstance(raw, list) else []
        if not commits:
            if prov.get("kind") and prov.get("line") is not None and m.file:
                where = f"{m.file}:{prov['line']}" + (f" ({m.anchor.symbol})" if m.anchor and m.anchor.symbol else "")
                head = f", mined at commit {str(prov['head'])[:7]}" if prov.get("head") else ""
                return f"warning comment ({prov['kind']}) at {where}{head}"
            raise InvalidMemoryError(f"memory {m.id} was not mined from history: it has no commit to show")
        newest = commits[0]  # mining lists a memory's commits newest first
        then = str(prov.get("then") or "").split("::", 1)[0]
        path = None if prov.get("anchor") == ANCHOR_WORKSPACE else then or m.file
        return history.commit_diff(self.root, str(newest["sha"]), path, max_lines=max_lines)

    def mining_state(self, key: str) -> str | None:
        """What mining remembers between runs (e.g. ``last_mined_commit``)."""
        return self.store.mining_state(key)

    def set_mining_state(self, key: str, value: str) -> None:
        self.store.set_mining_state(key, value)

    # ------------------------------------------------------------ reading

    def list_memories(
        self,
        *,
        types: Sequence[str] = (),
        file: str | None = None,
        statuses: Sequence[str] = CURRENT_STATUSES,
        tags: Sequence[str] = (),
        limit: int = 50,
        offset: int = 0,
    ) -> list[Memory]:
        for s in statuses:
            if s not in STATUSES:
                raise InvalidMemoryError(f"unknown status '{s}'; use one of {', '.join(STATUSES)}")
        rel = self.lookup_path(file) if file else None
        flt = MemoryFilter(types=tuple(types), file=rel, statuses=tuple(statuses), tags=tuple(tags))
        return self.store.list_memories(flt, limit=limit, offset=offset)

    def history(self, memory_id: str) -> History:
        """The supersession chain through this memory (oldest first) and each link's events."""
        m = self.store.resolve(memory_id)
        chain = [m]
        seen = {m.id}
        cur = m
        while cur.supersedes and cur.supersedes not in seen:
            prev = self.store.get(cur.supersedes)
            if prev is None:
                break
            chain.insert(0, prev)
            seen.add(prev.id)
            cur = prev
        cur = m
        while cur.superseded_by and cur.superseded_by not in seen:
            nxt = self.store.get(cur.superseded_by)
            if nxt is None:
                break
            chain.append(nxt)
            seen.add(nxt.id)
            cur = nxt
        return History(chain, {c.id: self.store.events(c.id) for c in chain})

    def expand_session(self, memory_id: str, *, limit: int = 20) -> list[Memory]:
        """The other memories written in the same session as this one (what else was learned then)."""
        m = self.store.resolve(memory_id)
        if not m.session_id:
            return []
        return [x for x in self.store.in_session(m.session_id, limit=limit + 1) if x.id != m.id][:limit]

    def search(
        self,
        query: str,
        k: int = 10,
        *,
        types: Sequence[str] = (),
        file: str | None = None,
        statuses: Sequence[str] = CURRENT_STATUSES,
        since: str | None = None,
        as_of: str | None = None,
        tags: Sequence[str] = (),
        chunks: int | None = None,
        record: bool = True,
        lexical_only: bool = False,
        include_suggestions: bool = False,
        code_only: bool = False,
        include_tests: bool | None = None,
    ) -> SearchResult:
        """Hybrid search over memories and code.

        Code: chunks by words and by meaning, fused (RRF) and ranked as files (``files``; ``chunks`` holds each
        file's best chunk). ``chunks``: how many code files (None: ``k``; 0: no code search). ``file`` and
        ``types`` narrow the code as well: to that file or folder, and to code carrying memories of those types.
        Memories anchored to the best code hits join the memory ranking as a third list, so a lesson on
        ``retry_upload`` is found by "where do we retry the upload" even in other words. Test files rank
        below other code unless the query is about tests (``include_tests`` decides when given).
        Suggestions (mined, not yet reviewed) are searched only with ``include_suggestions``.
        """
        if include_suggestions and MemoryStatus.SUGGESTED not in statuses:
            statuses = (*statuses, MemoryStatus.SUGGESTED)
        if k < 1:
            raise InvalidMemoryError(f"k must be at least 1, got {k}")
        n_code = k if chunks is None else max(0, chunks)
        for mtype in types:
            _memory_type(mtype)
        for s in statuses:
            if s not in STATUSES:
                raise InvalidMemoryError(f"unknown status '{s}'; use one of {', '.join(STATUSES)}")
        try:
            as_of_iso = to_iso(from_iso(as_of)) if as_of else None
            since_iso = to_iso(from_iso(since)) if since else None
        except ValueError as exc:
            raise InvalidMemoryError(str(exc)) from None
        rel = self.lookup_path(file) if file else None
        flt = MemoryFilter(
            types=tuple(types), file=rel, statuses=tuple(statuses), since=since_iso, as_of=as_of_iso, tags=tuple(tags)
        )
        now = from_iso(as_of_iso) if as_of_iso else self.clock()
        qvec: np.ndarray | None = None
        embed_ms = 0.0
        if self.embedder is not None and query.strip() and not lexical_only:
            t = time.perf_counter()
            try:
                qvec = np.asarray(self.embedder.embed_query(query[:MAX_TEXT_CHARS]), dtype=np.float32)
            except Exception:
                log.exception("embedding the query failed; searching lexically")
            embed_ms = (time.perf_counter() - t) * 1000
            if self.vectors is not None:
                self.vectors.sync()
        t = time.perf_counter()
        files: list[FileHit] = []
        if n_code > 0 and query.strip():
            wanted = n_code if code_only else max(n_code, MEMORY_CODE_FILES)
            files = self._code_files(query, wanted, rel, types, statuses, include_tests, qvec)
        code_ms = (time.perf_counter() - t) * 1000
        if code_only:
            hits: list[ScoredMemory] = []
            closest = None
            timings = SearchTimings(embed_ms=embed_ms)
        else:
            boosts = self._session_file_boosts() if as_of_iso is None else {}
            code_ranked, code_texts = (
                self._memories_on_code(files[:MEMORY_CODE_FILES]) if as_of_iso is None else ([], {})
            )
            params = SearchParams(
                k=k, flt=flt, now=now, file_boosts=boosts, code_ranked=code_ranked, code_texts=code_texts
            )
            ranked = retrieval.rank(self.store, self.vectors, query, qvec, params, time.perf_counter)
            hits, timings, closest = ranked.hits, ranked.timings, ranked.closest
            timings.embed_ms = embed_ms
        timings.code_ms = code_ms
        files = files[:n_code]
        if record and as_of_iso is None and hits:
            # shown, not yet used: access (which reinforces ranking) comes from accept/confirm, so results
            # do not feed on their own visibility
            self.store.record_surfaced([h.memory.id for h in hits])
        if record and query.strip():
            self.session.observe("search", query.strip()[:200])
        mode = "hybrid" if qvec is not None else "lexical"
        if mode == "hybrid":
            reason = None
        elif lexical_only:
            reason = "lexical search was asked for"
        else:
            reason = self.reason or "the query could not be embedded"
        return SearchResult(hits, mode, reason, timings, files, None if code_only else closest)

    def search_code(
        self, query: str, k: int = 10, *, file: str | None = None, include_tests: bool | None = None
    ) -> list[FileHit]:
        """The code files matching ``query``, best first (``search``'s code half alone)."""
        return self.search(query, k, file=file, code_only=True, include_tests=include_tests, record=False).files

    def _code_files(
        self,
        query: str,
        k: int,
        scope: str | None,
        types: Sequence[str],
        statuses: Sequence[str],
        include_tests: bool | None,
        qvec: np.ndarray | None,
    ) -> list[FileHit]:
        lexical = [(h.chunk, h.score) for h in self._search_chunks(query, code_search.LEXICAL_CANDIDATES)]
        vector: list[tuple[Any, float]] = []
        if qvec is not None and self.code_vectors is not None:
            try:
                found = self.code_vector_hits(qvec, code_search.VECTOR_CANDIDATES)
            except Exception:  # a damaged code-vector index is rebuildable: search by words meanwhile
                log.exception("code vector search failed; code is searched by words")
                found = []
            rows = self.indexer.chunks_by_ids([cid for cid, _ in found])
            vector = [(rows[cid], cos) for cid, cos in found if cid in rows]
        allowed: dict[str, object] | None = None
        if types:  # code that carries memories of these types
            flt = MemoryFilter(types=tuple(types), statuses=tuple(statuses))
            allowed = {m.file: None for m in self.store.list_memories(flt, limit=-1) if m.file is not None}
        tests = code_search.asks_about_tests(query) if include_tests is None else include_tests
        matches = code_search.fuse(lexical, vector)
        return code_search.rank_files(matches, k=k, scope=scope, allowed=allowed, include_tests=tests)

    def _search_chunks(self, query: str, limit: int) -> list[ChunkHit]:
        # the indexer matches the query's rarer terms only (a common word adds thousands of chunks to score)
        words = " ".join(query_terms(query))
        if not words:
            return []
        return [ChunkHit(c, float(s)) for c, s in self.indexer.search_chunks(words, limit)]

    def _memories_on_code(
        self, files: Sequence[FileHit]
    ) -> tuple[list[tuple[int, float]], dict[int, tuple[str, float]]]:
        """Memories anchored to the best code hits (nums, best first, with a strength in [0, 1]): on a matched
        symbol (or one inside or around it) at the file's strength, file-wide ones a little lower; and for each,
        the code text that brought it with that share (what the relevance floor reads)."""
        if not files:
            return [], {}
        peak = files[0].score or 1.0
        strength: dict[int, float] = {}
        texts: dict[int, tuple[str, float]] = {}
        memories = self.store.anchored_to_files([f.file for f in files], CURRENT_STATUSES)
        by_file: dict[str, list[Memory]] = {}
        for m in memories:
            if m.file is not None:
                by_file.setdefault(m.file, []).append(m)
        for f in files:
            for m in by_file.get(f.file, ()):
                sym = m.anchor.symbol if m.anchor is not None else None
                if sym is None:
                    share = FILE_WIDE_SHARE
                    code = [c.chunk.text for c in f.chunks]
                else:
                    code = [
                        c.chunk.text
                        for c in f.chunks
                        if sym == c.chunk.symbol or sym.startswith(c.chunk.symbol + ".")
                        or c.chunk.symbol.startswith(sym + ".")
                    ]  # fmt: skip
                    share = 1.0
                    if not code:
                        continue
                value = share * f.score / peak
                if value > strength.get(m.num, 0.0):
                    strength[m.num] = value
                    texts[m.num] = ("\n".join(code), share)
        return sorted(strength.items(), key=lambda item: -item[1]), texts

    def _session_file_boosts(self) -> dict[str, float]:
        touched = self.session.weights("file")
        boosts = dict(touched)
        for rel, w in touched.items():
            for dep, _ in list(self.graph.dependencies(rel).items())[:SESSION_NEIGHBOURS]:
                boosts[dep] = max(boosts.get(dep, 0.0), w * SESSION_NEIGHBOUR_SHARE)
        return boosts

    def warm(self) -> None:
        """Compute what file opens and hovers read once per index run (ranks, references) ahead of them."""
        self.graph.warm()

    # ------------------------------------------------------------ proactive and hover

    def proactive(self, file: str | Path, *, limit: int = PROACTIVE_LIMIT, record: bool = True) -> list[ProactiveHit]:
        """Memories to show when ``file`` opens: its own, then those on definitions it uses. No embedding."""
        return self.open_view(file, limit=limit, record=record).hits

    def open_view(self, file: str | Path, *, limit: int = PROACTIVE_LIMIT, record: bool = True) -> OpenView:
        """``proactive``'s hits and the count left below ``limit`` (counted from the candidates already read)."""
        rel = self.lookup_path(file)
        now = self.clock()
        deps = self.graph.dependencies(rel) if self.settings.diagnostics.include_neighbours else {}
        strongest = list(deps.items())[: retrieval.MAX_NEIGHBOUR_FILES]
        peak = max((w for _, w in strongest), default=0.0)
        dep_w = {d: w / peak for d, w in strongest if peak > 0}
        cached = self.store.recent_refs([rel, *(d for d in dep_w if d != rel)])
        own = cached.pop(rel)
        own_refs = own if own is not None else self.store.anchored_refs([rel])
        candidates = [retrieval.ProactiveCandidate(r, "file") for r in own_refs]
        if dep_w:
            used = self.graph.idents_used(rel)
            neighbours: list[AnchoredRef] = []
            kept: dict[str, list[str | None]] = {}  # files with too many memories to cache: the indexes filter them
            for dep, symbols in self.store.symbols_in([d for d, refs in cached.items() if refs is None]).items():
                keep = [s for s in symbols if s is None or _uses_symbol(used, s)]
                if keep:
                    kept[dep] = keep
            neighbours += self.store.neighbour_refs(kept)
            for refs in cached.values():
                neighbours += _neighbour_rows(refs or (), used)
            candidates += [
                retrieval.ProactiveCandidate(r, "dependency", dep_w[r.file], r.symbol is not None) for r in neighbours
            ]
        top = retrieval.proactive_rank(candidates, now, limit)
        full = self.store.by_nums([c.ref.num for c, _ in top])
        shown = self.session.shown()
        hits = [
            ProactiveHit(
                full[c.ref.num],
                score,
                c.relation,
                c.ref.file if c.relation == "dependency" else None,
                c.ref.id in shown,
            )
            for c, score in top
            if c.ref.num in full
        ]
        if record:
            self.session.observe("file", rel)
            ids = [h.memory.id for h in hits]
            self.session.mark_shown(ids)
            new_ids = [h.memory.id for h in hits if not h.already_shown]
            with self._surfaced_lock:  # written later (flush, stats): a write here would put commits and
                self._surfaced += new_ids  # WAL checkpoints on the file-open path
        return OpenView(hits, max(0, len(candidates) - len(top)))

    def for_symbol(self, file: str | Path, line: int) -> SymbolInfo | None:
        """The chunk at ``line`` (1-based), the memories anchored to it, and its importance."""
        rel = self.lookup_path(file)
        chunk = self.indexer.chunk_at(rel, line)
        if chunk is None:
            return None
        memories = retrieval.rank_anchored(self.store.anchored_to_symbol(rel, chunk.symbol), self.clock())
        scores, positions = self.graph.file_ranks()
        return SymbolInfo(
            rel, chunk.symbol, chunk.kind, chunk.start_line, chunk.end_line, memories,
            positions.get(rel), len(scores), self.graph.dependents_count(rel),
        )  # fmt: skip

    # ------------------------------------------------------------ indexing

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

    # ------------------------------------------------------------ vectors

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

    # ------------------------------------------------------------ code vectors

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

    # ------------------------------------------------------------ stats, transfer

    def _write_surfaced(self) -> None:
        with self._surfaced_lock:
            ids, self._surfaced = self._surfaced, []
        if ids:
            self.store.record_surfaced(ids)

    def stats(self, *, top: int = 10) -> WorkspaceStats:
        self._write_surfaced()
        s = self.store.stats(top=top)
        important: list[tuple[str, float]] = []
        try:
            scores, _ = self.graph.file_ranks()
            for rel in sorted(scores, key=lambda r: (-scores[r], r)):
                if rel not in s.anchored_files:
                    important.append((rel, scores[rel]))
                    if len(important) >= top:
                        break
        except Exception:
            log.exception("ranking files for stats failed")
        return WorkspaceStats(
            total=s.total, by_type=s.by_type, by_status=s.by_status, stale=s.by_status.get(MemoryStatus.STALE, 0),
            most_surfaced=s.most_surfaced, important_without_memories=important, mode=self.mode, reason=self.reason,
            vectors=len(self.vectors) if self.vectors is not None else 0,
        )  # fmt: skip

    def default_export_path(self) -> Path:
        return self.root / transfer.DEFAULT_RELATIVE_PATH

    def export(self, path: Path | None = None, *, include_archived: bool = False) -> transfer.TransferReport:
        """Write the team file: the default path only inside the real workspace (a symlinked .forewarn is refused)."""
        if path is None:
            return transfer.export_jsonl(
                self.store, self.default_export_path(), include_archived=include_archived, confine_to=self.root,
                commit=team.head_or_none(self.root),
            )  # fmt: skip
        return transfer.export_jsonl(
            self.store, path, include_archived=include_archived, commit=team.head_or_none(self.root)
        )

    def _same_meaning(self, text: str, ours: Memory) -> bool:
        """An incoming text as close to ``ours`` as ``remember`` needs to merge (restatements on import)."""
        stored = self.store.vectors_for(self.embedder.model_id, [ours.num]).get(ours.num) if self.embedder else None
        vec = self._embed_one(text) if stored is not None else None
        if vec is None or stored is None or stored.shape != vec.shape:
            return False
        cos = float(np.dot(vec, stored) / ((np.linalg.norm(vec) * np.linalg.norm(stored)) or 1.0))
        return cos > lifecycle.MERGE_COSINE

    def import_(
        self, path: Path | None = None, *, embed: bool = True, dry_run: bool = False, skip_invalid: bool = False
    ) -> transfer.TransferReport:
        """Merge a shared file (forewarn.memory.transfer): checked like ``remember``, anchors kept in the workspace."""
        with self._lock:
            # memories whose text changed lost their (derived) vectors; backfill embeds them again
            report = transfer.import_jsonl(
                self.store, path or self.default_export_path(), root=self.root, clock=self.clock, dry_run=dry_run,
                skip_invalid=skip_invalid, same_meaning=self._same_meaning if self.vectors is not None else None,
            )  # fmt: skip
        if embed and not dry_run:
            self.backfill_vectors()
        return report


def _uses_symbol(used: AbstractSet[str], symbol: str) -> bool:
    """A neighbour's memory matters to a file that uses the definition it sits on (any part of its name)."""
    return any(part in used for part in symbol.split("."))


def _neighbour_rows(refs: Iterable[AnchoredRef], used: AbstractSet[str]) -> list[AnchoredRef]:
    """The newest ``NEIGHBOUR_ROWS_PER_FILE`` of one neighbour's rows (newest first) that are file-wide or sit
    on a definition the opened file uses: what ``MemoryStore.neighbour_refs`` selects, from cached rows."""
    out: list[AnchoredRef] = []
    matters: dict[str | None, bool] = {}
    for ref in refs:
        symbol = ref.symbol
        hit = matters.get(symbol)
        if hit is None:
            hit = matters[symbol] = symbol is None or _uses_symbol(used, symbol)
        if hit:
            out.append(ref)
            if len(out) == NEIGHBOUR_ROWS_PER_FILE:
                break
    return out


def _memory_type(value: str) -> MemoryType:
    """``value`` as a memory type, or a message listing the types."""
    return validation.memory_type(value)


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


def memory_age(memory: Memory, now: float | None = None) -> str:
    """ "3 days", relative to ``now`` (the clock when None)."""
    return age_text((time.time() if now is None else now) - from_iso(memory.created_at))


__all__ = [
    "ChunkHit",
    "History",
    "InvalidMemoryError",
    "MemoryNotFoundError",
    "OpenView",
    "ProactiveHit",
    "RememberResult",
    "ScoredMemory",
    "SearchResult",
    "SymbolInfo",
    "Workspace",
    "WorkspaceStats",
    "memory_age",
]
