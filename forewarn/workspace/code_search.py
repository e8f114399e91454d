"""Code search: chunks by words (BM25) and by meaning (vectors), fused with RRF, ranked as files.

Pure functions over ranked lists; the facade (``Workspace.search_code``) fetches the lists. A file's score
aggregates its chunks' fused scores (``FILE_AGGREGATE``); test files rank below the code they test unless
the query asks about tests (``TEST_WEIGHT``); a folder or file filter keeps what lies under it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

RRF_K = 60  # the usual constant: flattens rank differences past the first few
LEXICAL_WEIGHT = 1.0
VECTOR_WEIGHT = 1.0
FILE_AGGREGATE = "top3"  # max | top3 | rrf: how a file's chunks make its score (bench/code_search_bench.py)
TOP_CHUNKS = 3  # top3: the sum of a file's three best chunks, each halving (1, 1/2, 1/4)
TEST_WEIGHT = 0.5  # a test file's score is multiplied by this unless the query is about tests
CHUNKS_PER_FILE = 3  # chunks shown under a file hit
LEXICAL_CANDIDATES = 300
VECTOR_CANDIDATES = 300

_TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs", "e2e"})
_TEST_FILE_RE = re.compile(
    r"(^test_.*|.*_test\.[a-z]+$|.*_tests\.[a-z]+$|^conftest\.py$|.*\.(test|spec)\.[jt]sx?$|.*Tests?\.java$|.*_spec\.rb$)"
)
_TEST_QUERY_RE = re.compile(r"\b(tests?|testing|pytest|unittest|spec|specs|fixtures?|mocks?)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ChunkMatch:
    """One chunk of a file hit: the indexer's ``CodeChunk``, its fused score and where it ranked per list."""

    chunk: Any
    score: float
    lexical_rank: int | None = None
    vector_rank: int | None = None


@dataclass(frozen=True, slots=True)
class FileHit:
    """A file matching a code search: its score, its best chunks (best first), whether it is a test file."""

    file: str
    score: float
    chunks: list[ChunkMatch] = field(default_factory=list)
    is_test: bool = False

    @property
    def best(self) -> ChunkMatch | None:
        return self.chunks[0] if self.chunks else None


def is_test_path(rel: str) -> bool:
    """Whether ``rel`` is test code by the usual conventions (a tests folder, test_*.py, *_test.go, *.spec.ts…)."""
    parts = rel.split("/")
    if any(p.lower() in _TEST_DIRS for p in parts[:-1]):
        return True
    return bool(_TEST_FILE_RE.match(parts[-1]))


def asks_about_tests(query: str) -> bool:
    return bool(_TEST_QUERY_RE.search(query))


def under(rel: str, scope: str | None) -> bool:
    """``rel`` is ``scope`` or lies in the folder ``scope`` (None: everything)."""
    if not scope:
        return True
    scope = posixpath.normpath(scope).rstrip("/")
    return scope in ("", ".") or rel == scope or rel.startswith(scope + "/")


def fuse(
    lexical: Sequence[tuple[Any, float]],
    vector: Sequence[tuple[Any, float]],
    *,
    lexical_weight: float = LEXICAL_WEIGHT,
    vector_weight: float = VECTOR_WEIGHT,
) -> list[ChunkMatch]:
    """RRF of two ranked chunk lists (``(chunk, score)``, best first; chunks compared by ``.id``), best first."""
    by_id: dict[int, Any] = {}
    lex_rank: dict[int, int] = {}
    vec_rank: dict[int, int] = {}
    for ranks, ranked in ((lex_rank, lexical), (vec_rank, vector)):
        for chunk, _ in ranked:
            if chunk.id not in ranks:
                ranks[chunk.id] = len(ranks) + 1
                by_id.setdefault(chunk.id, chunk)
    out = []
    for cid, chunk in by_id.items():
        lr, vr = lex_rank.get(cid), vec_rank.get(cid)
        score = (lexical_weight / (RRF_K + lr) if lr else 0.0) + (vector_weight / (RRF_K + vr) if vr else 0.0)
        out.append(ChunkMatch(chunk, score, lr, vr))
    out.sort(key=lambda m: (-m.score, m.chunk.rel, m.chunk.start_line))
    return out


def aggregate(score_lists: Iterable[Sequence[float]], how: str = FILE_AGGREGATE) -> list[float]:
    """A file's score from its chunks' scores (each list best first)."""
    out = []
    for scores in score_lists:
        if not scores:
            out.append(0.0)
        elif how == "max":
            out.append(scores[0])
        elif how == "top3":
            out.append(sum(s / (2**i) for i, s in enumerate(scores[:TOP_CHUNKS])))
        else:
            raise ValueError(f"unknown file aggregation {how!r}")
    return out


def rank_files(
    matches: Sequence[ChunkMatch],
    *,
    k: int,
    scope: str | None = None,
    allowed: Mapping[str, object] | None = None,
    include_tests: bool = False,
    how: str = FILE_AGGREGATE,
) -> list[FileHit]:
    """Files from fused chunk matches: aggregated, tests weighted down unless ``include_tests``, filtered by
    ``scope`` (a file or folder) and ``allowed`` (files permitted; None: all), best ``k`` first."""
    by_file: dict[str, list[ChunkMatch]] = {}
    for m in matches:
        rel = m.chunk.rel
        if not under(rel, scope) or (allowed is not None and rel not in allowed):
            continue
        by_file.setdefault(rel, []).append(m)
    if how == "rrf":
        # each file by the rank of its best chunk: 1/(k+rank) — the same shape as the lists it came from
        first: dict[str, int] = {}
        for rank, m in enumerate((m for m in matches if m.chunk.rel in by_file), start=1):
            first.setdefault(m.chunk.rel, rank)
        scores = [1.0 / (RRF_K + first[rel]) for rel in by_file]
    else:
        scores = aggregate(([m.score for m in ms] for ms in by_file.values()), how)
    hits = []
    for (rel, ms), score in zip(by_file.items(), scores, strict=True):
        test = is_test_path(rel)
        weight = 1.0 if include_tests or not test else TEST_WEIGHT
        hits.append(FileHit(rel, score * weight, ms[:CHUNKS_PER_FILE], test))
    hits.sort(key=lambda h: (-h.score, h.file))
    return hits[:k]
