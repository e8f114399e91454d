"""Search over memories and code: BM25, vectors and memories found through their code, fused."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from forewarn.memory import retrieval, validation
from forewarn.memory.errors import InvalidMemoryError
from forewarn.memory.records import AnchoredRef, MemoryFilter
from forewarn.memory.retrieval import ScoredMemory, SearchParams, SearchTimings
from forewarn.memory.store import STATUSES
from forewarn.memory.text import from_iso, query_terms, to_iso
from forewarn.memory.vocabulary import (
    CURRENT_STATUSES,
    MemoryStatus,
)
from forewarn.workspace import code_search
from forewarn.workspace.code_search import FileHit
from forewarn.workspace.core import WorkspaceCore
from forewarn.workspace.limits import MAX_TEXT_CHARS
from forewarn.workspace.results import ChunkHit, SearchResult

log = logging.getLogger(__name__)

MEMORY_CODE_FILES = 5  # the best code files whose memories join a search's ranking (a third list)
FILE_WIDE_SHARE = 0.7  # a file-wide memory on a matching file, against one on the matching symbol
SESSION_NEIGHBOUR_SHARE = 0.5  # a touched file's dependencies get half its session weight
SESSION_NEIGHBOURS = 8  # dependencies per touched file that inherit session weight


class SearchMixin(WorkspaceCore):
    """Hybrid search (part of ``Workspace``)."""

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
        below other code unless the query is about tests (``include_tests`` decides when given). ``code_matched``
        says whether the code matches the query (a memory answered, or one of the files found reaches
        ``code_search.CodeFloor()``) or is only the nearest code (D25).
        Suggestions (mined, not yet reviewed) are searched only with ``include_suggestions``.
        """
        if include_suggestions and MemoryStatus.SUGGESTED not in statuses:
            statuses = (*statuses, MemoryStatus.SUGGESTED)
        if k < 1:
            raise InvalidMemoryError(f"k must be at least 1, got {k}")
        n_code = k if chunks is None else max(0, chunks)
        for mtype in types:
            validation.memory_type(mtype)
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
                self._memories_on_code(files[:MEMORY_CODE_FILES], types, statuses) if as_of_iso is None else ([], {})
            )
            params = SearchParams(
                k=k, flt=flt, now=now, file_boosts=boosts, code_ranked=code_ranked, code_texts=code_texts
            )
            ranked = retrieval.rank(self.store, self.vectors, query, qvec, params, time.perf_counter)
            hits, timings, closest = ranked.hits, ranked.timings, ranked.closest
            timings.embed_ms = embed_ms
        timings.code_ms = code_ms
        # the code label: a memory that answered says the query is about this workspace; else the code must
        matched = bool(hits) or code_search.matches(files[:n_code], query_terms(query))
        if record and as_of_iso is None and hits:
            # shown, not yet used: access (which reinforces ranking) comes from accept/confirm, so results
            # do not feed on their own visibility
            self.store.record_surfaced([h.memory.id for h in hits], to_iso(self.clock()))
        if record and query.strip():
            self.session.observe("search", query.strip()[:200])
        mode = "hybrid" if qvec is not None else "lexical"
        if mode == "hybrid":
            reason = None
        elif lexical_only:
            reason = "lexical search was asked for"
        else:
            reason = self.reason or "the query could not be embedded"
        return SearchResult(
            hits, mode, reason, timings, files[:n_code], None if code_only else closest, code_matched=matched
        )

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
        cv = self.code_vectors if qvec is not None else None
        if cv is not None and qvec is not None:
            try:
                vector = cv.hit_chunks(qvec, code_search.VECTOR_CANDIDATES)
            except Exception:  # a damaged code-vector index is rebuildable: search by words meanwhile
                log.exception("code vector search failed; code is searched by words")
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
        self, files: Sequence[FileHit], types: Sequence[str], statuses: Sequence[str]
    ) -> tuple[list[tuple[int, float]], dict[int, tuple[tuple[str, ...], float]]]:
        """Memories anchored to the best code hits (nums, best first, with a strength in [0, 1]): on a matched
        symbol (or one inside or around it) at the file's strength, file-wide ones a little lower; and for each,
        the code that brought it with that share (what the relevance floor reads).

        A hot file carries hundreds of memories (thousands at 100k): per file only the newest
        ``retrieval.CODE_CANDIDATES`` on the matched code are read (in date order, from an index); among them the
        ones search would rank first anyway (strength, then trust and status, then recency) come first, and the
        list stops at ``retrieval.CODE_CANDIDATES``."""
        if not files:
            return [], {}
        peak = files[0].score or 1.0
        wanted = set(types)
        kept = [s for s in statuses if s in CURRENT_STATUSES]
        refs: list[AnchoredRef] = []
        for f in files:
            # the matched definitions, those around them (a memory on ``Router`` covers ``Router.handle``) and
            # those inside them
            matched = sorted({c.chunk.symbol for c in f.chunks})
            around = {
                ".".join(parts[:n]) for sym in matched for parts in [sym.split(".")] for n in range(1, len(parts))
            }
            limit = retrieval.CODE_CANDIDATES
            refs += self.store.refs_on_code(f.file, [*matched, *sorted(around)], matched, kept, limit=limit)
        code: dict[tuple[str, str | None], tuple[str, ...]] = {}  # (file, memory symbol) -> the chunks it matched
        chunks_of = {f.file: f.chunks for f in files}
        for r in refs:
            if (r.file, r.symbol) not in code:
                found = chunks_of[r.file]
                code[(r.file, r.symbol)] = tuple(
                    c.chunk.text for c in found if r.symbol is None or _nested(r.symbol, c.chunk.symbol)
                )
        score = {f.file: f.score / peak for f in files}
        ranked: list[tuple[float, float, str, str, AnchoredRef]] = []
        for r in refs:
            if wanted and r.type not in wanted:
                continue
            share = 1.0 if r.symbol is not None else FILE_WIDE_SHARE
            weight = retrieval.trust(r) * retrieval.STATUS_WEIGHT.get(r.status, 0.5)
            ranked.append((share * score[r.file], weight, r.created_at, r.id, r))
        ranked.sort(key=lambda t: t[2], reverse=True)  # newest first among equals (sorts below are stable)
        ranked.sort(key=lambda t: (-t[0], -t[1]))
        ranked = ranked[: retrieval.CODE_CANDIDATES]
        shown = {r.num: (code[(r.file, r.symbol)], 1.0 if r.symbol is not None else FILE_WIDE_SHARE)
                 for *_, r in ranked}  # fmt: skip
        return [(r.num, value) for value, *_, r in ranked], shown

    def _session_file_boosts(self) -> dict[str, float]:
        touched = self.session.weights("file")
        boosts = dict(touched)
        for rel, w in touched.items():
            for dep, _ in list(self.graph.dependencies(rel).items())[:SESSION_NEIGHBOURS]:
                boosts[dep] = max(boosts.get(dep, 0.0), w * SESSION_NEIGHBOUR_SHARE)
        return boosts


def _nested(a: str, b: str) -> bool:
    """The same definition, or one inside the other (``Router.handle`` and ``Router``)."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")
