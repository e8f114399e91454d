"""Ranking: hybrid search (BM25 ∪ hnsw → RRF → temporal floor × trust × confidence → dedupe) and
proactive lookup for a file (anchors and graph neighbours, no embedding).

The scoring functions are pure and take ``now`` explicitly, so ``as_of`` searches are reproducible
and the benchmark can call exactly what the engine calls.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from typing import TYPE_CHECKING, Protocol, TypeVar

import numpy as np

from forewarn.memory.records import AnchoredRef, Memory, MemoryFilter, SearchRow
from forewarn.memory.store import MemoryStore
from forewarn.memory.text import from_iso, match_terms, normalise_text, query_terms, split_identifier
from forewarn.memory.vocabulary import ENDED_STATUSES, MemorySource, MemoryStatus, MemoryType

if TYPE_CHECKING:
    from forewarn.memory.vectors import VectorIndex

RRF_K = 60  # standard; flattens rank differences past the first few
# memories on the code a search found: a third RRF list (weight relative to the words and meaning lists); its
# strength counts for less than a direct match of the memory's own text (weight: bench/memory_code_bench.py)
CODE_LIST_WEIGHT = 0.5
CODE_STRENGTH_SHARE = 0.5
LEXICAL_CANDIDATES = 100  # BM25 list depth fed to fusion: deeper adds noise more than recall
VECTOR_CANDIDATES = 100  # hnsw list depth fed to fusion
# memories-on-code list depth, as deep as the other two: a hot file carries hundreds of memories, and judging each
# one costs a row load, a vector and a word match (issue 22: 4,900 memories took p95 2 s before this bound)
CODE_CANDIDATES = 100
VECTOR_OVERFETCH = 2  # hnsw holds superseded/archived memories too: fetch extra, filter by status after
LEXICAL_OVERFETCH = 2  # likewise for BM25 hits ranked without a join

# RRF keeps only ranks, so a weak match at rank 2 looks almost as good as a perfect one at rank 1; scaling
# by how strong the match is (relative to the best candidate) keeps recency from lifting weak matches
RELEVANCE_FLOOR = 0.3  # a candidate with almost no match strength keeps 30% of its fused score (bench-tuned)

# The floor on what search returns (issue 14): ranks and relative strengths say which memory matches best, never
# whether any matches, so an unrelated query would fill k. A memory is returned only when its own text (and
# anchor) matches the query on an absolute scale: its cosine to the query, or the share of the query's BM25
# weight it holds (``lexical_coverage``). Calibrated on bench/recall_bench.py with bench/offtopic_queries.txt.
# Two levels: a query is answered only when its best candidate clears the answer floor (an off-topic question's
# nearest memory is still some distance away; a real question's answer, or something close to it, is nearer), and
# then every result must clear the lower result floor, which cuts the unrelated tail without losing answers
# ranked below a stronger neighbour. Figures: bench/recall_bench.py's floor section (150 questions, 119 off-topic).
ANSWER_COSINE_FLOOR = 0.45  # the best candidate of all but one question had ≥ 0.48; of 92% of off-topic ones < 0.45
RESULT_COSINE_FLOOR = 0.25  # every answer found in the top 10 had ≥ 0.26
ANSWER_WORDS_FLOOR = 0.33  # by words alone (with ANSWER_TERMS): 90% of off-topic questions stay under, -0.8 points
RESULT_WORDS_FLOOR = 0.25  # cuts memories sharing one common word, which BM25 may rank above an answer
# with a query vector, words alone must cover more to answer: an off-topic question often shares a word or two with
# some memory (0.40 here would answer 12% of them), and meaning already speaks for paraphrases
ANSWER_WORDS_WITH_MEANING_FLOOR = 0.60
# answering by words takes two of the query's words (or all of it): an off-topic question sharing one rare word with
# a memory ("salt" in "how much salt goes in pasta water") is a coincidence; a real one shares several
ANSWER_TERMS = 2
WHOLE_QUERY = 0.999  # a coverage this high holds every word of the query (a one-word query, say)

RECENCY_HALF_LIFE_DAYS = 30.0  # recent memories get a gentle edge for a month or two
# decay stops here: RRF scores of neighbouring ranks differ by ~2%, so a 4% range breaks near-ties by age but
# cannot lift a weak recent match over a strong old one (recall_bench: legacy ≈ 0.97 × recent Recall@10)
RECENCY_FLOOR = 0.96
ACCESS_HALF_LIFE_DAYS = 30.0  # a memory used recently counts as fresh again, fading over a month
ACCESS_RECENCY_WEIGHT = 0.75  # access freshens less than creation: surfacing is weaker evidence than writing
ACCESS_GAIN = 0.03  # per log-unit of access count: +2% for one use, +7% for ten; relevance still dominates
MAX_ACCESS_BOOST = 1.1  # cap: a much-used memory must not become unbeatable

SOURCE_TRUST: Mapping[str, float] = {
    MemorySource.USER: 1.0,  # written by a person on purpose
    MemorySource.IMPORT: 0.9,  # a teammate's memory shared through the repository
    MemorySource.COMMIT: 0.85,  # mined from commit messages: real, but terse and sometimes off-topic
    MemorySource.AGENT: 0.7,  # an agent's note: useful, less vetted
}
DEFAULT_TRUST = 0.7  # unknown sources are treated like agents
STATUS_WEIGHT: Mapping[str, float] = {
    MemoryStatus.ACTIVE: 1.0,
    MemoryStatus.STALE: 0.8,  # the code changed since: maybe outdated, still worth seeing
    MemoryStatus.ORPHANED: 0.6,  # its code is gone; the lesson may still apply elsewhere
    MemoryStatus.SUPERSEDED: 0.3,  # only reachable when history is asked for explicitly
    MemoryStatus.ARCHIVED: 0.3,
}
DUPLICATE_COSINE = 0.92  # above this two memories say the same thing: keep the better-ranked one
DEDUPE_HEAD = 3  # candidates per wanted result loaded in full and checked for near-duplicates

SESSION_BOOST = 0.25  # a file touched this session lifts its memories by up to a quarter

# proactive (file open)
TYPE_PRIORITY: Mapping[str, float] = {  # what a hover shows first among one symbol's memories (a cap hides the tail)
    MemoryType.GOTCHA: 1.0,  # the reason Forewarn exists: show first
    MemoryType.ERROR_PATTERN: 0.95,  # bites too, but names a symptom more than a trap
    MemoryType.DECISION: 0.85,  # explains why the code is as it is: read before changing it
    MemoryType.DEAD_END: 0.8,  # saves someone from a wasted afternoon
    MemoryType.CONVENTION: 0.7,
    MemoryType.TODO: 0.6,
    MemoryType.PREFERENCE: 0.5,
    MemoryType.NOTE: 0.5,
}
# The order an open shows (docs/internals.md, "What a file open shows"): by place, then by type, then by score.
# A reader takes in the first few lines only, so the order is lexicographic, never a blend: a note on the code
# being read comes before a gotcha about something it calls, and any gotcha before any decision of the same place.
PLACE_DEFINITION = 0  # anchored to a definition of the opened file
PLACE_FILE = 1  # about the opened file as a whole
PLACE_NEIGHBOUR = 2  # on a definition of another file that this one really uses
# types in TYPE_PRIORITY's order (ties in declaration order): gotchas, error patterns, decisions, dead ends, …
TYPE_ORDER: Mapping[str, int] = {t: n for n, t in enumerate(sorted(TYPE_PRIORITY, key=lambda t: -TYPE_PRIORITY[t]))}
UNKNOWN_TYPE_ORDER = len(TYPE_ORDER)  # an imported type we do not know: after every known one
MAX_NEIGHBOUR_FILES = 10  # strongest dependencies with memories considered on open: the rest add noise and latency
MAX_NEIGHBOUR_CANDIDATES = 60  # strongest dependencies looked at for those (a C file's headers come first)
SECONDS_PER_DAY = 86400.0


@dataclass(frozen=True, slots=True)
class ScoredMemory:
    memory: Memory
    score: float
    lexical_rank: int | None = None  # 1-based rank in the BM25 list
    vector_rank: int | None = None  # 1-based rank in the vector list
    cosine: float | None = None
    # IDF-weighted share of the query's words this memory holds (``lexical_coverage``); with a floor, not counted
    # (0) for a memory whose cosine alone answers
    coverage: float | None = None
    terms: int = 0  # how many distinct query words it holds (likewise)
    # which of the query's words those are, and whether they were found in the code it sits on rather than in the
    # memory itself (its text, file and symbol): what a "words matched" explanation names
    words: tuple[str, ...] = ()
    words_in_code: bool = False


@dataclass(frozen=True, slots=True)
class ProactiveHit:
    memory: Memory
    score: float
    relation: str  # "file": anchored to the opened file; "dependency": to a definition the file uses
    via_file: str | None = None  # the dependency file, for "dependency"
    already_shown: bool = False  # shown earlier in this session
    line: int | None = None  # for "dependency": the opened file's first line using the definition (1-based)


@dataclass(slots=True)
class SearchTimings:
    lexical_ms: float = 0.0
    embed_ms: float = 0.0
    vector_ms: float = 0.0
    code_ms: float = 0.0  # the code search (its words and vectors), before the memories are ranked
    rank_ms: float = 0.0


@dataclass(slots=True)
class RankedSearch:
    hits: list[ScoredMemory]
    timings: SearchTimings = field(default_factory=SearchTimings)
    # when the floor left nothing: the candidate that came closest to it (None: nothing matched at all)
    closest: ScoredMemory | None = None


# ---------------------------------------------------------------- pure scoring


def decay(age_seconds: float, half_life_days: float) -> float:
    return 0.5 ** (max(0.0, age_seconds) / (half_life_days * SECONDS_PER_DAY))


class Scorable(Protocol):
    """What scoring reads: a ``Memory`` or an ``AnchoredRef``."""

    @property
    def created_at(self) -> str: ...
    @property
    def last_accessed_at(self) -> str | None: ...
    @property
    def access_count(self) -> int: ...
    @property
    def source(self) -> str: ...
    @property
    def confidence(self) -> float: ...


def temporal_factor(memory: Scorable, now: float, *, use_access: bool = True) -> float:
    """Recency that decays to ``RECENCY_FLOOR`` (never to zero), freshened and lifted by access."""
    fresh = decay(now - from_iso(memory.created_at), RECENCY_HALF_LIFE_DAYS)
    boost = 1.0
    if use_access and memory.last_accessed_at:
        accessed = from_iso(memory.last_accessed_at)
        if accessed <= now:
            fresh = max(fresh, ACCESS_RECENCY_WEIGHT * decay(now - accessed, ACCESS_HALF_LIFE_DAYS))
            boost = min(MAX_ACCESS_BOOST, 1.0 + ACCESS_GAIN * math.log1p(memory.access_count))
    return (RECENCY_FLOOR + (1.0 - RECENCY_FLOOR) * fresh) * boost


def trust(memory: Scorable) -> float:
    return SOURCE_TRUST.get(memory.source, DEFAULT_TRUST) * max(0.0, min(1.0, memory.confidence))


def status_weight(memory: Memory | SearchRow, as_of: str | None) -> float:
    if as_of and memory.status in ENDED_STATUSES and memory.ended_at and memory.ended_at > as_of:
        return STATUS_WEIGHT[MemoryStatus.ACTIVE]  # it was current at that time
    return STATUS_WEIGHT.get(memory.status, 0.5)


def rrf(ranks: Sequence[int | None]) -> float:
    return sum(1.0 / (RRF_K + r) for r in ranks if r is not None)


def relevance(strengths: Sequence[float | None]) -> float:
    """``RELEVANCE_FLOOR``…1 from the best of a candidate's per-list strengths (score / best score in that list)."""
    best = max((min(1.0, max(0.0, s)) for s in strengths if s is not None), default=0.0)
    return RELEVANCE_FLOOR + (1.0 - RELEVANCE_FLOOR) * best


def lexical_coverage(matched: Iterable[int], idfs: Sequence[float]) -> float:
    """How much of the query a memory holds, 0…1: the IDF-weighted share of the query terms it contains.

    BM25 has no absolute scale (it grows with the query's length, its words' rarity, a word's repetitions and a
    memory's shortness); this one does. Words no memory holds weigh the most, so a question in another domain
    that shares one word with a memory ("salt" in "how much salt goes in pasta water") covers little of it.
    """
    total = sum(idfs)
    if total <= 0:
        return 0.0
    return sum(idfs[i] for i in set(matched)) / total


_CODE_WORD_RE = re.compile(r"\w+")
MIN_AFFIX_CHARS = 4  # "retry" meets "retrying", "upload" meets "uploads": shorter words must match whole


CODE_WORDS_CACHE = 2048  # chunks whose words are kept between searches: the code the last few hundred queries hit


@functools.lru_cache(maxsize=CODE_WORDS_CACHE)
def code_words(text: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """A code text's words, lower-cased, and the parts of its identifiers (read once per chunk text): as a set, and
    sorted (those of ``MIN_AFFIX_CHARS`` or more) for the prefix look-ups of ``text_terms``."""
    words: set[str] = set()
    for w in set(_CODE_WORD_RE.findall(text)):  # a chunk repeats its names: split each distinct word once
        words.add(w.lower())
        words.update(split_identifier(w))
    return frozenset(words), tuple(sorted(w for w in words if len(w) >= MIN_AFFIX_CHARS))


def text_terms(terms: Sequence[str], text: str) -> set[int]:
    """``lexical_coverage`` for text outside the memory index (the code a memory sits on): the indexes of the query
    terms found among its words and the parts of its identifiers, a word meeting its inflections."""
    words, long_words = code_words(text)

    def found(term: str) -> bool:
        if term in words:
            return True
        if len(term) < MIN_AFFIX_CHARS:
            return False
        at = bisect.bisect_left(long_words, term)  # a word the term begins ("retry" in "retrying")
        if at < len(long_words) and long_words[at].startswith(term):
            return True
        return any(term[:n] in words for n in range(MIN_AFFIX_CHARS, len(term)))  # a word beginning the term

    return {i for i, t in enumerate(terms) if found(t)}


_C = TypeVar("_C")  # a candidate the floor judges: a memory's number while ranking, a scored hit in a benchmark
FloorMatch = tuple[float | None, float, int]  # how a candidate matches the query: cosine, coverage, terms held


@dataclass(frozen=True, slots=True)
class Floor:
    """The relevance floor's thresholds: the best candidate must clear ``answer_*`` for the query to be answered,
    each result ``result_*``; by meaning (cosine, when the query has a vector) or by words (coverage)."""

    answer_cosine: float = ANSWER_COSINE_FLOOR
    result_cosine: float = RESULT_COSINE_FLOOR
    answer_words: float = ANSWER_WORDS_FLOOR
    result_words: float = RESULT_WORDS_FLOOR
    answer_words_with_meaning: float = ANSWER_WORDS_WITH_MEANING_FLOOR
    answer_terms: int = ANSWER_TERMS

    def words_to_answer(self, cosine: float | None) -> float:
        return self.answer_words if cosine is None else self.answer_words_with_meaning

    def reached(self, cosine: float | None, coverage: float, *, answer: bool, terms: int = 0) -> bool:
        if cosine is not None and cosine >= (self.answer_cosine if answer else self.result_cosine):
            return True
        if not answer:
            return coverage >= self.result_words
        # answering by words takes several of them (or the whole query): one rare word shared is a coincidence
        return coverage >= self.words_to_answer(cosine) and (terms >= self.answer_terms or coverage >= WHOLE_QUERY)

    def passed(self, candidates: Sequence[_C], match: Callable[[_C], FloorMatch]) -> list[_C]:
        """The candidates that clear the result floor, in order, or none when no candidate clears the answer floor
        (``match``: a candidate's cosine, coverage and distinct query words held)."""
        matches = [match(c) for c in candidates]
        if not any(self.reached(cosine, coverage, answer=True, terms=terms) for cosine, coverage, terms in matches):
            return []
        return [
            c
            for c, (cosine, coverage, _) in zip(candidates, matches, strict=True)
            if self.reached(cosine, coverage, answer=False)
        ]

    def kept(self, hits: Sequence[ScoredMemory]) -> list[ScoredMemory]:
        """Hits ranked without a floor as this floor leaves them (what a benchmark sweeping floors compares)."""
        return self.passed(hits, lambda h: (h.cosine, h.coverage or 0.0, h.terms))

    def share(self, cosine: float | None, coverage: float) -> float:
        """How close a candidate comes to answering (1 = on the answer floor): what picks the closest miss."""

        def part(value: float, floor: float) -> float:
            return value / floor if floor > 0 else math.inf

        by_words = part(coverage, self.words_to_answer(cosine))
        return by_words if cosine is None else max(by_words, part(cosine, self.answer_cosine))


NO_FLOOR = Floor(0.0, 0.0, 0.0, 0.0, 0.0, 0)  # every candidate returned: the benchmark's rows without a floor


def matches_filter(m: Memory | SearchRow, flt: MemoryFilter) -> bool:
    """Python twin of ``MemoryStore._filter_sql`` for candidates that come from the vector index."""
    if flt.types and m.type not in flt.types:
        return False
    if flt.file and flt.file_only:
        if m.file != flt.file:
            return False
    elif flt.file:
        f = flt.file.rstrip("/")
        if m.file is None or not (m.file == f or m.file.startswith(f + "/")):
            return False
    if flt.since and m.created_at < flt.since:
        return False
    if flt.as_of:
        if m.created_at > flt.as_of:
            return False
        ended_later = m.status in ENDED_STATUSES and m.ended_at is not None and m.ended_at > flt.as_of
        if flt.statuses and m.status not in flt.statuses and not ended_later:
            return False
    elif flt.statuses and m.status not in flt.statuses:
        return False
    return not (flt.tags and not set(flt.tags) <= set(m.tags))


def dedupe(
    ranked: Sequence[ScoredMemory],
    k: int,
    vectors: Mapping[int, np.ndarray] | None,
    threshold: float = DUPLICATE_COSINE,
) -> list[ScoredMemory]:
    """Keep the best of each group of near-duplicates (cosine > threshold; same text when no vectors)."""
    kept: list[ScoredMemory] = []
    kept_vecs: list[np.ndarray] = []
    seen_text: set[str] = set()
    for hit in ranked:
        key = normalise_text(hit.memory.text)
        if key in seen_text:
            continue
        vec = vectors.get(hit.memory.num) if vectors else None
        if vec is not None and kept_vecs and float(np.max(np.stack(kept_vecs) @ vec)) > threshold:
            continue
        kept.append(hit)
        seen_text.add(key)
        if vec is not None:
            kept_vecs.append(vec)
        if len(kept) >= k:
            break
    return kept


# ---------------------------------------------------------------- search


@dataclass(frozen=True, slots=True)
class SearchParams:
    k: int = 10
    flt: MemoryFilter = field(default_factory=MemoryFilter)
    now: float = 0.0  # evaluation time (as_of or the clock)
    use_lexical: bool = True
    use_vector: bool = True
    use_temporal: bool = True
    file_boosts: Mapping[str, float] = field(default_factory=dict)  # session personalization: file → [0, 1]
    # memories anchored to the code a search found (nums, best first, with a strength in [0, 1]): a third list
    code_ranked: Sequence[tuple[int, float]] = ()
    # for those memories: the code that matched (its chunks' texts; memories on the same code share the same string
    # objects, whose words are read once per search) and its share (1: the memory's symbol; less: file-wide), so the
    # floor can judge a memory found through its code by that code's words when its own hold none
    code_texts: Mapping[int, tuple[Sequence[str], float]] = field(default_factory=dict)
    floor: Floor = field(default_factory=Floor)  # the relevance floor (``NO_FLOOR``: every candidate)


def lexical_candidates(
    store: MemoryStore, query: str, flt: MemoryFilter, limit: int
) -> tuple[list[tuple[int, float]], dict[int, SearchRow]]:
    """(num, bm25) best first, after filtering, and the rows loaded on the way.

    With only a status filter (the usual search) FTS5 ranks alone and statuses are checked on the rows
    returned: joining every match to ``memories`` first doubles the cost. Other filters, or too many
    rows filtered out, take the joined query.
    """
    kept = store.selective_terms(query_terms(query))
    match = match_terms(kept)
    if match is None:
        return [], {}
    floor = store.match_floor(kept)
    if flt == MemoryFilter(statuses=flt.statuses):
        fetch = limit * LEXICAL_OVERFETCH
        ranked = store.fts_ranked(match, fetch, floor)
        rows = store.search_rows([n for n, _ in ranked])
        passed = [(n, s) for n, s in ranked if n in rows and matches_filter(rows[n], flt)]
        if len(passed) >= limit or len(ranked) < fetch:
            return passed[:limit], rows
    return store.fts_candidates(match, flt, limit, floor), {}


def vector_candidates(
    store: MemoryStore, index: VectorIndex, qvec: np.ndarray, flt: MemoryFilter, limit: int
) -> tuple[list[tuple[int, float]], dict[int, SearchRow]]:
    """(num, cosine) best first, after filtering, and the rows loaded on the way."""
    raw = index.query(qvec, limit * VECTOR_OVERFETCH)
    rows = store.search_rows([n for n, _ in raw])
    out = [(n, c) for n, c in raw if n in rows and matches_filter(rows[n], flt)]
    return out[:limit], rows


def rank(
    store: MemoryStore,
    index: VectorIndex | None,
    query: str,
    qvec: np.ndarray | None,
    params: SearchParams,
    clock: Callable[[], float],
) -> RankedSearch:
    """The search pipeline. ``qvec`` is the already-embedded query (None: lexical only)."""
    timings = SearchTimings()
    t0 = clock()
    lex: list[tuple[int, float]] = []
    rows: dict[int, SearchRow] = {}
    if params.use_lexical:
        lex, rows = lexical_candidates(store, query, params.flt, LEXICAL_CANDIDATES)
    t1 = clock()
    vec: list[tuple[int, float]] = []
    if params.use_vector and index is not None and qvec is not None:
        vec, vec_rows = vector_candidates(store, index, qvec, params.flt, VECTOR_CANDIDATES)
        rows.update(vec_rows)
    t2 = clock()
    code: list[tuple[int, float]] = []
    if params.code_ranked:
        ranked_code = params.code_ranked[: CODE_CANDIDATES * LEXICAL_OVERFETCH]  # the caller ordered ties usefully
        code_rows = store.search_rows([n for n, _ in ranked_code if n not in rows])
        rows.update(code_rows)
        code = [(n, s) for n, s in ranked_code if n in rows and matches_filter(rows[n], params.flt)][:CODE_CANDIDATES]
    lex_rank = {n: i + 1 for i, (n, _) in enumerate(lex)}
    vec_rank = {n: i + 1 for i, (n, _) in enumerate(vec)}
    code_rank = {n: i + 1 for i, (n, _) in enumerate(code)}
    code_strength = dict(code)
    cos = dict(vec)
    best_bm25 = min((s for _, s in lex), default=0.0)  # FTS5 bm25 is negative: lower is better
    lex_strength = {n: (s / best_bm25 if best_bm25 < 0 else 0.0) for n, s in lex}
    best_cos = max((c for _, c in vec), default=0.0)
    vec_strength = {n: (c / best_cos if best_cos > 0 else 0.0) for n, c in vec}
    missing = [n for n in lex_rank if n not in rows]
    if missing:
        rows.update(store.search_rows(missing))
    candidates = [n for n in lex_rank.keys() | vec_rank.keys() | code_rank.keys() if n in rows]
    cosines, coverages, held, words = _own_match(store, index, query, qvec, params, candidates, cos)
    floor = params.floor
    passed = floor.passed(candidates, lambda n: (cosines.get(n), coverages[n], held.get(n, 0)))
    closest = None
    if candidates and not passed:
        near = max(candidates, key=lambda n: (floor.share(cosines.get(n), coverages[n]), -n))
        full_near = store.by_nums([near]).get(near)
        if full_near is not None:
            closest = ScoredMemory(full_near, 0.0, lex_rank.get(near), vec_rank.get(near), cosines.get(near),
                                   coverages[near], held.get(near, 0), *words.get(near, ((), False)))  # fmt: skip
    scored: list[tuple[float, str, int]] = []
    for num in passed:
        r = rows[num]
        score = rrf((lex_rank.get(num), vec_rank.get(num)))
        if num in code_rank:
            score += CODE_LIST_WEIGHT / (RRF_K + code_rank[num])
        score *= relevance(
            (
                lex_strength.get(num),
                vec_strength.get(num),
                CODE_STRENGTH_SHARE * code_strength[num] if num in code_rank else None,
            )
        )
        if params.use_temporal:
            score *= temporal_factor(r, params.now, use_access=params.flt.as_of is None)
        score *= trust(r) * status_weight(r, params.flt.as_of)
        if params.file_boosts and r.file is not None:
            score *= 1.0 + SESSION_BOOST * params.file_boosts.get(r.file, 0.0)
        scored.append((score, r.id, num))
    scored.sort(key=lambda t: (-t[0], t[1]))
    head = scored[: params.k * DEDUPE_HEAD]  # near-duplicates remove only a few: load and compare the head only
    full = store.by_nums([num for _, _, num in head])
    ranked = [
        ScoredMemory(
            full[num], score, lex_rank.get(num), vec_rank.get(num), cosines.get(num), coverages[num], held.get(num, 0)
        )
        for score, _, num in head
        if num in full
    ]
    vectors = index.vectors([h.memory.num for h in ranked]) if index is not None else None
    hits = dedupe(ranked, params.k, vectors)
    timings.lexical_ms = (t1 - t0) * 1000
    timings.vector_ms = (t2 - t1) * 1000
    timings.rank_ms = (clock() - t2) * 1000
    return RankedSearch(hits, timings, closest)


def _own_match(
    store: MemoryStore,
    index: VectorIndex | None,
    query: str,
    qvec: np.ndarray | None,
    params: SearchParams,
    nums: Sequence[int],
    cosines: Mapping[int, float],
) -> tuple[dict[int, float], dict[int, float], dict[int, int], dict[int, tuple[tuple[str, ...], bool]]]:
    """Each candidate's own match to the query, whichever list brought it: (cosine when the query has a vector,
    lexical coverage, distinct query words held, which words those are and whether the code it sits on held
    them rather than the memory). Candidates from one list only are scored on the other here
    (a memory found through its code or by meaning may hold the query's words too)."""
    cos = dict(cosines)
    if params.use_vector and index is not None and qvec is not None:
        todo = [n for n in nums if n not in cos]
        if todo:
            # one not embedded yet keeps no cosine: it is judged by its words alone, as in a lexical search
            cos.update({n: float(v @ qvec) for n, v in index.vectors(todo).items() if v.shape == qvec.shape})
    else:
        cos = {}
    cov: dict[int, float] = dict.fromkeys(nums, 0.0)
    held: dict[int, int] = {}
    words: dict[int, tuple[tuple[str, ...], bool]] = {}
    if params.use_lexical:
        kept = store.selective_terms(query_terms(query))
        idfs = store.term_idfs(kept)
        # a candidate whose meaning already answers needs no word count to pass the floor (a floor of 0, as the
        # benchmarks' replays use, needs every count)
        sure = params.floor.answer_cosine > 0 and params.floor.result_cosine <= params.floor.answer_cosine
        counted = [n for n in nums if not (sure and cos.get(n, -1.0) >= params.floor.answer_cosine)]
        matched = store.matched_terms([match_terms([t]) or "" for t in kept], counted)
        by_text: dict[str, set[int]] = {}  # each chunk's words are read once, however many memories sit on it
        for n in nums:
            if n not in params.code_texts:
                continue
            texts, share = params.code_texts[n]
            in_code: set[int] = set()
            for text in texts:
                found = by_text.get(text)
                if found is None:
                    found = by_text[text] = text_terms(kept, text)
                in_code |= found
            if share * lexical_coverage(in_code, idfs) > lexical_coverage(matched.get(n, ()), idfs):
                cov[n] = share * lexical_coverage(in_code, idfs)
                held[n] = len(in_code)
                words[n] = (tuple(kept[i] for i in sorted(in_code)), True)
        for n in nums:
            own = matched.get(n, set())
            if lexical_coverage(own, idfs) >= cov[n]:
                cov[n] = lexical_coverage(own, idfs)
                words[n] = (tuple(kept[i] for i in sorted(own)), False)
            held[n] = max(held.get(n, 0), len(own))
    return cos, cov, held, words


# the baseline the benchmark compares against: a plain weighted sum with exponential decay
BASELINE_VECTOR_WEIGHT = 0.7
BASELINE_LEXICAL_WEIGHT = 0.2
BASELINE_RECENCY_WEIGHT = 0.1
BASELINE_DECAY_PER_HOUR = 0.001  # λ: the half-life is about 29 days, and there is no floor


def baseline_rank(
    store: MemoryStore, index: VectorIndex, query: str, qvec: np.ndarray, k: int, flt: MemoryFilter, now: float
) -> list[ScoredMemory]:
    """0.7·cosine + 0.2·normalised BM25 + 0.1·exp(−λ·age_hours), over the same candidates."""
    lex, _ = lexical_candidates(store, query, flt, LEXICAL_CANDIDATES)
    vec, _ = vector_candidates(store, index, qvec, flt, VECTOR_CANDIDATES)
    best = max((-s for _, s in lex), default=0.0)
    lex_norm = {n: (-s / best if best > 0 else 0.0) for n, s in lex}
    nums = lex_norm.keys() | {n for n, _ in vec}
    loaded = store.by_nums(list(nums))
    vectors = index.vectors(list(nums))
    out: list[ScoredMemory] = []
    for n in nums:
        m = loaded.get(n)
        v = vectors.get(n)
        if m is None:
            continue
        cosine = float(v @ qvec) if v is not None else 0.0
        age_h = max(0.0, now - from_iso(m.created_at)) / 3600.0
        score = (
            BASELINE_VECTOR_WEIGHT * cosine
            + BASELINE_LEXICAL_WEIGHT * lex_norm.get(n, 0.0)
            + BASELINE_RECENCY_WEIGHT * math.exp(-BASELINE_DECAY_PER_HOUR * age_h)
        )
        out.append(ScoredMemory(m, score, cosine=cosine))
    out.sort(key=lambda h: (-h.score, h.memory.id))
    return out[:k]


# ---------------------------------------------------------------- proactive


@dataclass(frozen=True, slots=True)
class ProactiveCandidate:
    ref: AnchoredRef
    relation: str  # "file" | "dependency" (on a definition of another file that the opened one uses)
    dep_weight: float = 1.0  # dependency edge weight relative to the file's strongest, in [0, 1]

    @property
    def place(self) -> int:
        if self.relation != "file":
            return PLACE_NEIGHBOUR
        return PLACE_DEFINITION if self.ref.symbol else PLACE_FILE


def _static_weight(c: ProactiveCandidate) -> float:
    """Everything in a proactive score but time: trust, status and, for a neighbour, the dependency's strength."""
    r = c.ref
    return trust(r) * STATUS_WEIGHT.get(r.status, 0.5) * (c.dep_weight if c.relation != "file" else 1.0)


def rank_anchored(memories: Sequence[Memory], now: float) -> list[Memory]:
    """Memories on one anchor (a hover's symbol), best first: type, trust, status, then recency.

    The same weights as a file open less the place, which is equal here: a gotcha on the hovered
    symbol comes before ten newer notes on it.
    """

    def score(m: Memory) -> float:
        return TYPE_PRIORITY.get(m.type, 0.5) * trust(m) * STATUS_WEIGHT.get(m.status, 0.5) * temporal_factor(m, now)

    return sorted(memories, key=lambda m: (-score(m), m.id))


def proactive_score(c: ProactiveCandidate, now: float) -> float:
    """The score that orders candidates of one place and type (status × trust × recency × dependency strength)."""
    return _static_weight(c) * temporal_factor(c.ref, now)


def proactive_key(c: ProactiveCandidate, score: float) -> tuple[int, int, float, str]:
    """Where a candidate goes in an open's order: place, type, then score (best first); ties by id."""
    return (c.place, TYPE_ORDER.get(c.ref.type, UNKNOWN_TYPE_ORDER), -score, c.ref.id)


# temporal_factor never exceeds (floor + (1 - floor) x 1) x the access boost; the margin absorbs rounding
TEMPORAL_CEILING = MAX_ACCESS_BOOST * (1.0 + 1e-9)


def proactive_rank(
    candidates: Sequence[ProactiveCandidate], now: float, limit: int
) -> list[tuple[ProactiveCandidate, float]]:
    """The ``limit`` first candidates in an open's order (``proactive_key``), with their scores.

    Exact, but lazy: candidates are visited place by place and type by type, each group by its best possible
    score, and the time factor (the costly part) is computed only while a candidate could still place. A file
    with a thousand memories scores the few dozen that could show.
    """
    if limit <= 0:
        return []

    def group(c: ProactiveCandidate) -> tuple[int, int]:
        return (c.place, TYPE_ORDER.get(c.ref.type, UNKNOWN_TYPE_ORDER))

    bounded = sorted(((group(c), _static_weight(c), c) for c in candidates), key=lambda gwc: (gwc[0], -gwc[1]))
    scored: list[tuple[ProactiveCandidate, float]] = []
    placed = 0  # candidates of earlier groups that are in the answer
    for _, members in groupby(bounded, key=lambda gwc: gwc[0]):
        need = limit - placed
        if need <= 0:
            break  # earlier places and types fill the answer: nothing later can enter it
        kept: list[float] = []  # min-heap of this group's best ``need`` scores so far
        for _, weight, c in members:
            if len(kept) == need and weight * TEMPORAL_CEILING < kept[0]:
                break  # sorted by bound: nothing after this one in the group can place either
            score = weight * temporal_factor(c.ref, now)
            scored.append((c, score))
            if len(kept) < need:
                heapq.heappush(kept, score)
            elif score > kept[0]:
                heapq.heapreplace(kept, score)
        placed += len(kept)
    scored.sort(key=lambda cs: proactive_key(*cs))
    return scored[:limit]
