"""Memory retrieval benchmark: recall on real text over two years of timestamps, supersession, latency at 100k.

Corpus (real text written by others, no templates): every function/class docstring of the Django
5.2.19 sdist and of this Python's standard library. A docstring whose summary (first paragraph, or
first sentence) is followed by more prose gives a query/answer pair: the summary is the query, the
rest of the docstring is the memory that must be found. Docstrings without such a split join the
corpus as distractor memories. Memories are workspace-wide (no anchors), so nothing but their text
can match. Timestamps are spread uniformly over the two years before a fixed "now". Each sampled
query is asked twice, with its answer placed recent (< 30 days old) and legacy (> 180 days old) and
everything else unchanged, so recent vs legacy compares the same questions.

Prints, for lexical only, vector only, fused (Forewarn's ranking) and the plain exponential-decay
baseline (0.7·cosine + 0.2·BM25 + 0.1·exp(−0.001·age_hours)): Recall@10 and MRR@10, recent vs
legacy. Then 1,000 supersession chains (held-out docstrings, three growing versions each, written
through the engine among the recall corpus) and the number of superseded memories returned as
current. Then latency at 100,000 memories anchored to the indexed Django tree: search p50/p95
(excluding the query embedding, which the embedder bench times) and proactive (file open) p50/p99,
hover p99.

    python bench/recall_bench.py            # full run (first run embeds ~15k texts: minutes on 2 cores)
    python bench/recall_bench.py --quick    # fewer queries and 20k memories for latency
    python bench/recall_bench.py --model e5 --docs 4000 --no-floor --skip context --skip latency
                                            # the model comparison (bench/model_compare.py): a seeded sample of
                                            # the corpus, ranked without the floor (calibrated for MiniLM only)

Embeddings go through Forewarn's embedding cache in bench/.corpora/, so reruns embed nothing.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import os
import random
import re
import shutil
import statistics
import sys
import sysconfig
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _corpus  # bench/ is not a package
from _stats import percentile

BENCH_DIR = Path(__file__).resolve().parent
WORK_DIR = BENCH_DIR / ".corpora" / "recall"
SEED = 20_251_121
NOW_ISO = "2026-01-01T00:00:00Z"
DAY = 86400.0
SPAN_DAYS = 730  # two years of history
RECENT_DAYS, LEGACY_DAYS = 30, 180
K = 10
MIN_QUERY_WORDS, MAX_QUERY_WORDS = 4, 40  # summaries outside this are titles or essays, not questions
MIN_ANSWER_WORDS = 8  # shorter "rest of docstring" is a fragment, not a lesson
MAX_MEMORY_CHARS = 400  # memories are a few sentences; longer docstrings are cut at a word boundary
QUERIES = 600
CHAINS = 1000
LATENCY_MEMORIES = 100_000
LATENCY_QUERIES = 300
PROACTIVE_FILES = 500
EMBED_BATCH = 64
OFFTOPIC_FILE = BENCH_DIR / "offtopic_queries.txt"  # questions the corpus cannot answer: the floor's other side
# the floor's sweep: each threshold varied around the shipped one, the others as shipped
FLOOR_SWEEP_ANSWER_COSINE = (0.40, 0.42, 0.44, 0.45, 0.46, 0.48, 0.50)
FLOOR_SWEEP_RESULT_COSINE = (0.0, 0.20, 0.25, 0.30, 0.35)
FLOOR_SWEEP_ANSWER_WORDS = (0.25, 0.30, 0.32, 0.33, 0.34, 0.35, 0.40, 0.45)
FLOOR_SWEEP_RESULT_WORDS = (0.0, 0.10, 0.15, 0.20, 0.25, 0.30)
FLOOR_SWEEP_ANSWER_WORDS_1TERM = (0.30, 0.33, 0.35, 0.40)  # one word shared may answer
FLOOR_SWEEP_WORDS_WITH_MEANING = (0.40, 0.50, 0.60, 1.01)  # 1.01: meaning alone answers
TARGETS = {"legacy_vs_recent": 0.95, "search_p95_ms": 50.0, "proactive_p99_ms": 15.0}


# ---------------------------------------------------------------- corpus


@dataclass(frozen=True)
class Doc:
    source: str  # "django:path::Name" — where the text comes from
    query: str | None  # the summary, when the docstring splits into summary + rest
    text: str  # the memory


_DOCTEST = re.compile(r"^\s*(>>>|\.\.\.|:param|:type|:return|:rtype|:raises|Args:|Returns:|Raises:|Example)", re.M)


def _clean(text: str) -> str:
    return " ".join(text.split())


def _cut(text: str) -> str:
    if len(text) <= MAX_MEMORY_CHARS:
        return text
    return text[:MAX_MEMORY_CHARS].rsplit(" ", 1)[0]


def _prose(paragraphs: Sequence[str]) -> str:
    keep = [p for p in paragraphs if not _DOCTEST.search(p) and not p.lstrip().startswith(("-", "=", "*", "|"))]
    return _clean(" ".join(keep))


def split_docstring(doc: str) -> tuple[str | None, str]:
    """(summary, rest) when the docstring has a summary and more prose; (None, whole) otherwise."""
    paragraphs = re.split(r"\n\s*\n", doc.strip())
    if len(paragraphs) >= 2:
        summary, rest = _clean(paragraphs[0]), _prose(paragraphs[1:])
    else:
        sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z])", _clean(paragraphs[0]))
        summary, rest = (sentences[0], " ".join(sentences[1:])) if len(sentences) > 1 else ("", "")
    if MIN_QUERY_WORDS <= len(summary.split()) <= MAX_QUERY_WORDS and len(rest.split()) >= MIN_ANSWER_WORDS:
        return summary, _cut(rest)
    return None, _cut(_prose(paragraphs))


def docs_from(root: Path, label: str, exclude: set[str]) -> Iterator[Doc]:
    for path in sorted(root.rglob("*.py")):
        if exclude & set(path.relative_to(root).parts):
            continue
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                doc = ast.get_docstring(node)
                if doc:
                    query, text = split_docstring(doc)
                    if len(text.split()) >= MIN_ANSWER_WORDS:
                        yield Doc(f"{label}:{path.relative_to(root)}::{node.name}", query, text)


def load_corpus() -> list[Doc]:
    django = _corpus.django()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    docs = [
        *docs_from(django, "django", {"docs"}),
        *docs_from(stdlib, "stdlib", {"site-packages", "test", "tests", "idlelib", "lib2to3", "__pycache__"}),
    ]
    seen_text: set[str] = set()
    seen_query: set[str] = set()
    out: list[Doc] = []
    for d in docs:
        key = d.text.casefold()
        if key in seen_text:
            continue
        seen_text.add(key)
        if d.query is not None:
            q = d.query.casefold()
            if q in seen_query:  # the same summary with two answers would make the answer ambiguous
                d = Doc(d.source, None, d.text)
            seen_query.add(q)
        out.append(d)
    return out


# ---------------------------------------------------------------- helpers


def embed_all(embedder: object, texts: Sequence[str], what: str) -> np.ndarray:
    out = np.zeros((len(texts), embedder.dim), dtype=np.float32)  # type: ignore[attr-defined]
    started = time.perf_counter()
    for i in range(0, len(texts), EMBED_BATCH):
        out[i : i + EMBED_BATCH] = embedder.embed_documents(texts[i : i + EMBED_BATCH])  # type: ignore[attr-defined]
        if (i // EMBED_BATCH) % 40 == 0:
            print(f"  embedding {what}: {min(i + EMBED_BATCH, len(texts))}/{len(texts)}", file=sys.stderr, flush=True)
    print(f"  embedded {len(texts)} {what} in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    return out


def embed_queries(embedder: object, queries: Sequence[str]) -> np.ndarray:
    """Queries as search embeds them (with the model's query prefix, e.g. e5's "query: ")."""
    return np.stack([embedder.embed_query(q) for q in queries])  # type: ignore[attr-defined]


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def open_embedder(model: str = "minilm") -> object:
    import model_compare

    from forewarn.memory.embed_cache import CachedEmbedder, EmbeddingCache
    from forewarn.memory.embedder import EmbedderUnavailable
    from forewarn.memory.embedder import open_embedder as open_raw

    try:
        raw = open_raw(model_compare.candidate_settings(model))
    except EmbedderUnavailable as exc:
        sys.exit(f"recall_bench needs the embedding model: {exc.reason}")
    return CachedEmbedder(raw, EmbeddingCache(WORK_DIR / "embeddings.db"))


# ---------------------------------------------------------------- recall


@dataclass
class Scores:
    hits: int = 0
    rr: float = 0.0
    n: int = 0

    def add(self, rank: int | None) -> None:
        self.n += 1
        if rank is not None and rank <= K:
            self.hits += 1
            self.rr += 1.0 / rank

    @property
    def recall(self) -> float:
        return self.hits / self.n if self.n else 0.0

    @property
    def mrr(self) -> float:
        return self.rr / self.n if self.n else 0.0


def run_recall(args: argparse.Namespace, embedder: object, docs: list[Doc]) -> dict[str, dict[str, Scores]]:
    from forewarn.config import Settings
    from forewarn.memory import retrieval
    from forewarn.memory.records import Memory, MemoryFilter
    from forewarn.memory.text import from_iso, new_id, to_iso
    from forewarn.workspace.engine import Workspace

    rng = random.Random(SEED)
    now = from_iso(NOW_ISO)
    ws = WORK_DIR / "recall-ws"
    ws.mkdir(parents=True, exist_ok=True)
    texts = [d.text for d in docs]
    vectors = embed_all(embedder, texts, "memories")
    ages = [rng.uniform(0, SPAN_DAYS) for _ in docs]
    engine = Workspace.open(ws, Settings(), embedder=embedder, clock=Clock(now))
    store = engine.store
    memories = []
    for d, age in zip(docs, ages, strict=True):
        at = to_iso(now - age * DAY)
        memories.append(
            Memory(
                id=new_id(now - age * DAY),
                type="note",
                text=d.text,
                anchor=None,
                source="user",
                confidence=1.0,
                created_at=at,
                updated_at=at,
            )
        )
    started = time.perf_counter()
    stored = store.insert_many([(m, []) for m in memories])
    assert engine.vectors is not None
    engine.vectors.add([m.num for m in stored], vectors)
    print(f"  stored {len(stored)} memories with vectors in {time.perf_counter() - started:.1f} s", file=sys.stderr)

    pairs = [i for i, d in enumerate(docs) if d.query is not None]
    chosen = rng.sample(pairs, min(args.queries, len(pairs)))
    all_q = [docs[i].query for i in chosen]
    qvecs = dict(zip(all_q, embed_queries(embedder, all_q), strict=True))  # type: ignore[arg-type]

    flt = MemoryFilter(as_of=NOW_ISO)
    modes: dict[str, Callable[[str, np.ndarray], list[str]]] = {}

    def ranked(use_lexical: bool, use_vector: bool) -> Callable[[str, np.ndarray], list[str]]:
        def run(query: str, qvec: np.ndarray) -> list[str]:
            params = retrieval.SearchParams(k=K, flt=flt, now=now, use_lexical=use_lexical, use_vector=use_vector)
            if args.no_floor:
                params = dataclasses.replace(params, floor=retrieval.NO_FLOOR)
            return [
                h.memory.id for h in retrieval.rank(store, engine.vectors, query, qvec, params, time.perf_counter).hits
            ]

        return run

    modes["lexical only"] = ranked(True, False)
    modes["vector only"] = ranked(False, True)
    modes["fused (forewarn)"] = ranked(True, True)
    modes["exp-decay baseline"] = lambda q, v: [
        h.memory.id
        for h in retrieval.baseline_rank(store, engine.vectors, q, v, K, flt, now)  # type: ignore[arg-type]
    ]
    results: dict[str, dict[str, Scores]] = {m: {"recent": Scores(), "legacy": Scores()} for m in modes}
    # the same questions twice: once with the answer written recently, once long ago (everything else unchanged),
    # so the recent/legacy ratio measures what time does to ranking, not which questions happened to be sampled
    conditions = {"recent": (0.0, RECENT_DAYS), "legacy": (LEGACY_DAYS, SPAN_DAYS)}
    for i in chosen:
        query = docs[i].query
        assert query is not None
        target = stored[i]
        for split, (lo, hi) in conditions.items():
            store.set_created_at(target.num, to_iso(now - rng.uniform(lo, hi) * DAY))
            for mode, fn in modes.items():
                ids = fn(query, qvecs[query])
                results[mode][split].add(ids.index(target.id) + 1 if target.id in ids else None)
        store.set_created_at(target.num, target.created_at)
    real = [(docs[i].query or "", stored[i].id) for i in chosen]
    floor = [] if args.no_floor else run_floor(engine, embedder, real, qvecs, now)
    engine.close()
    print(
        f"\nRecall over {len(docs)} memories ({len(pairs)} with a query); {len(chosen)} queries, each asked with "
        f"its answer recent (< {RECENT_DAYS} d) and legacy (> {LEGACY_DAYS} d)"
    )
    print(
        f"{'mode':<22}{'R@10 recent':>12}{'R@10 legacy':>12}{'legacy/recent':>14}{'MRR recent':>12}{'MRR legacy':>12}"
    )
    for mode, by in results.items():
        r, lg = by["recent"], by["legacy"]
        ratio = lg.recall / r.recall if r.recall else 0.0
        print(f"{mode:<22}{r.recall:>12.3f}{lg.recall:>12.3f}{ratio:>14.3f}{r.mrr:>12.3f}{lg.mrr:>12.3f}")
    if floor:
        print_floor(floor, len(chosen))
    return results


# ---------------------------------------------------------------- the relevance floor


def offtopic_queries() -> list[str]:
    lines = (OFFTOPIC_FILE).read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


@dataclass
class FloorRun:
    """One search mode's figures: real queries found in the top 10 with and without the floor, off-topic
    queries left empty by it, and the sweep that chose the floor (settings → recall, empty share)."""

    mode: str
    floor: str
    recall_without: float
    recall_with: float
    offtopic_empty: float
    sweep: list[tuple[str, float, float]]


def run_floor(
    engine: object, embedder: object, real: list[tuple[str, str]], qvecs: dict[str, np.ndarray], now: float
) -> list[FloorRun]:
    """Real queries (a docstring's summary, its answer among the recall corpus) and off-topic ones, searched
    with the shipped floor and without; the sweep ranks once without a floor and replays thresholds over
    every candidate's own match (cosine, lexical coverage), which is what the floor filters on."""
    from forewarn.memory import retrieval
    from forewarn.memory.records import MemoryFilter

    off = offtopic_queries()
    off_vecs = dict(zip(off, embed_queries(embedder, off), strict=True))
    store, vectors = engine.store, engine.vectors  # type: ignore[attr-defined]
    flt = MemoryFilter(as_of=NOW_ISO)
    every = 10_000  # no k: every candidate comes back, so any threshold can be replayed exactly
    runs: list[FloorRun] = []
    for mode, use_vector in (("hybrid", True), ("lexical", False)):

        def search(query: str, qvec: np.ndarray, k: int, *, floor: bool) -> list[retrieval.ScoredMemory]:
            params = retrieval.SearchParams(k=k, flt=flt, now=now, use_vector=use_vector)  # noqa: B023
            if not floor:
                params = dataclasses.replace(params, floor=retrieval.NO_FLOOR)
            return retrieval.rank(store, vectors, query, qvec, params, time.perf_counter).hits

        found_without = found_with = 0
        pools: list[tuple[str | None, list[retrieval.ScoredMemory]]] = []
        for query, answer in real:
            pool = search(query, qvecs[query], every, floor=False)
            found_without += answer in [h.memory.id for h in pool[:K]]
            found_with += answer in [h.memory.id for h in search(query, qvecs[query], K, floor=True)]
            pools.append((answer, pool))
        empty = sum(not search(q, off_vecs[q], K, floor=True) for q in off)
        off_pools = [(None, search(q, off_vecs[q], every, floor=False)) for q in off]
        shipped = retrieval.Floor()
        if use_vector:
            grid = [dataclasses.replace(shipped, answer_cosine=c) for c in FLOOR_SWEEP_ANSWER_COSINE]
            grid += [dataclasses.replace(shipped, result_cosine=c) for c in FLOOR_SWEEP_RESULT_COSINE]
            grid += [dataclasses.replace(shipped, answer_words_with_meaning=w) for w in FLOOR_SWEEP_WORDS_WITH_MEANING]
        else:
            grid = [dataclasses.replace(shipped, answer_words=w) for w in FLOOR_SWEEP_ANSWER_WORDS]
            grid += [dataclasses.replace(shipped, result_words=w) for w in FLOOR_SWEEP_RESULT_WORDS]
            grid += [
                dataclasses.replace(shipped, answer_terms=1, answer_words=w) for w in FLOOR_SWEEP_ANSWER_WORDS_1TERM
            ]
        sweep = []
        for f in grid:
            hit = sum(answer in [h.memory.id for h in f.kept(pool)[:K]] for answer, pool in pools)
            quiet = sum(not f.kept(pool) for _, pool in off_pools)
            sweep.append((floor_label(f, use_vector), hit / len(real), quiet / len(off)))
        runs.append(
            FloorRun(
                mode,
                floor_label(shipped, use_vector),
                found_without / len(real),
                found_with / len(real),
                empty / len(off),
                sweep,
            )
        )
    return runs


def floor_label(f: object, meaning: bool) -> str:
    answer = f.answer_words_with_meaning if meaning else f.answer_words  # type: ignore[attr-defined]
    two = f", {f.answer_terms} word{'s' if f.answer_terms > 1 else ''}"  # type: ignore[attr-defined]
    words = f"words {answer:.2f}/{f.result_words:.2f}{two}"  # type: ignore[attr-defined]
    return f"cosine {f.answer_cosine:.2f}/{f.result_cosine:.2f}, {words}" if meaning else words  # type: ignore[attr-defined]


def print_floor(runs: list[FloorRun], n_real: int) -> None:
    n_off = len(offtopic_queries())
    print(
        f"\nRelevance floor: {n_real} real queries (answers at their own age), {n_off} off-topic queries "
        f"({OFFTOPIC_FILE.name}); R@10 without and with the floor, off-topic queries answered with nothing; "
        "floor: answer/result (the best candidate must reach the first, every result the second)"
    )
    print(f"{'mode':<10}{'floor':<50}{'R@10 without':>14}{'R@10 with':>11}{'drop':>8}{'off-topic empty':>17}")
    for r in runs:
        drop = (r.recall_without - r.recall_with) * 100
        print(
            f"{r.mode:<10}{r.floor:<50}{r.recall_without:>14.3f}{r.recall_with:>11.3f}{drop:>7.1f}p"
            f"{r.offtopic_empty:>16.0%}"
        )
    print("  sweep (replayed over every candidate ranked without a floor):")
    for r in runs:
        for label, recall, quiet in r.sweep:
            print(f"  {r.mode:<8}{label:<50}R@10 {recall:.3f} (drop {(r.recall_without - recall) * 100:4.1f}p)  "
                  f"off-topic empty {quiet:4.0%}")  # fmt: skip


# ---------------------------------------------------------------- context in the vectors


def vector_text(type_: str, file: str | None, symbol: str | None, text: str) -> str:
    """A memory with its context, as issue 14 proposed: ``gotcha · billing/cart.py · Cart.total — text``."""
    where = " · ".join(p for p in (type_.replace("_", " "), file, symbol) if p)
    return f"{where} — {text}"


def run_context(args: argparse.Namespace, embedder: object, docs: list[Doc]) -> dict[str, dict[str, Scores]]:
    """Memories anchored where their docstring sits (file, symbol), embedded bare and as
    ``type · file · symbol — text`` (``vector_text``), with the same queries: does the anchor in the vector
    help? The lexical list is the same in both (FTS indexes file and symbol already). Measured 2026-11-23:
    it does not (fused R@10 0.327 vs 0.520 bare, vector-only 0.273 vs 0.333), so memories are embedded bare."""
    from forewarn.config import Settings
    from forewarn.memory import retrieval
    from forewarn.memory.records import Anchor, Memory, MemoryFilter
    from forewarn.memory.text import from_iso, new_id, to_iso
    from forewarn.workspace.engine import Workspace

    rng = random.Random(SEED)
    now = from_iso(NOW_ISO)
    ages = [rng.uniform(0, SPAN_DAYS) for _ in docs]  # the same draws as run_recall: the same queries
    pairs = [i for i, d in enumerate(docs) if d.query is not None]
    chosen = rng.sample(pairs, min(args.queries, len(pairs)))
    anchors = []
    for d in docs:
        path, _, name = d.source.split(":", 1)[1].partition("::")
        anchors.append(Anchor(path, name))
    bare = embed_all(embedder, [d.text for d in docs], "memories")
    ctx = embed_all(
        embedder, [vector_text("note", a.file, a.symbol, d.text) for d, a in zip(docs, anchors, strict=True)],
        "memories with their context",
    )  # fmt: skip
    queries = [docs[i].query for i in chosen]
    qvecs = dict(zip(queries, embed_queries(embedder, queries), strict=True))  # type: ignore[arg-type]
    out: dict[str, dict[str, Scores]] = {}
    for label, vectors in (("bare text", bare), ("type · file · symbol — text", ctx)):
        ws = WORK_DIR / "context-ws"
        shutil.rmtree(ws, ignore_errors=True)
        ws.mkdir(parents=True)
        engine = Workspace.open(ws, Settings(), embedder=embedder, clock=Clock(now))
        memories = [
            Memory(id=new_id(now - age * DAY), type="note", text=d.text, anchor=a, source="user", confidence=1.0,
                   created_at=to_iso(now - age * DAY), updated_at=to_iso(now - age * DAY))
            for d, a, age in zip(docs, anchors, ages, strict=True)
        ]  # fmt: skip
        stored = engine.store.insert_many([(m, []) for m in memories])
        assert engine.vectors is not None
        engine.vectors.add([m.num for m in stored], vectors)
        flt = MemoryFilter(as_of=NOW_ISO)
        scores = {"vector only": Scores(), "fused (forewarn)": Scores()}
        for i in chosen:
            query = docs[i].query
            assert query is not None
            for mode, lex in (("vector only", False), ("fused (forewarn)", True)):
                params = retrieval.SearchParams(k=K, flt=flt, now=now, use_lexical=lex, use_vector=True)
                ids = [
                    h.memory.id
                    for h in retrieval.rank(
                        engine.store, engine.vectors, query, qvecs[query], params, time.perf_counter
                    ).hits
                ]
                scores[mode].add(ids.index(stored[i].id) + 1 if stored[i].id in ids else None)
        engine.close()
        out[label] = scores
    print(f"\nContext in the vectors: {len(docs)} anchored memories, {len(chosen)} queries")
    print(f"{'embedded as':<32}{'R@10 vector':>12}{'R@10 fused':>12}{'MRR fused':>12}")
    for label, sc in out.items():
        v, f = sc["vector only"], sc["fused (forewarn)"]
        print(f"{label:<32}{v.recall:>12.3f}{f.recall:>12.3f}{f.mrr:>12.3f}")
    return out


# ---------------------------------------------------------------- supersession chains


def run_chains(embedder: object, held_out: list[Doc]) -> tuple[int, int, int]:
    """Write chains of three versions through the engine into the recall workspace (its memories are the
    distractors); count superseded memories returned as current when each chain's question is asked."""
    from forewarn.config import Settings
    from forewarn.memory.text import from_iso
    from forewarn.workspace.engine import Workspace

    rng = random.Random(SEED + 1)
    clock = Clock(from_iso(NOW_ISO) - SPAN_DAYS * DAY)
    engine = Workspace.open(WORK_DIR / "recall-ws", Settings(), embedder=embedder, clock=clock)
    others = engine.store.count()
    heads: list[tuple[str, str]] = []
    started = time.perf_counter()
    for d in held_out:
        words = d.text.split()
        # an answer that grew over time: first the gist, then more, then the whole of it
        versions = [" ".join(words[: int(len(words) * 0.6)]), " ".join(words[: int(len(words) * 0.8)]), d.text]
        clock.now = from_iso(NOW_ISO) - rng.uniform(0, SPAN_DAYS) * DAY
        current = engine.remember(versions[0], type="decision").memory
        for text in versions[1:]:
            clock.now += rng.uniform(1, 60) * DAY
            current = engine.supersede(current.id, text)
        assert d.query is not None
        heads.append((d.query, current.id))
    print(f"  wrote {len(held_out)} chains in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    clock.now = from_iso(NOW_ISO)
    returned_superseded = 0
    head_found = 0
    for query, head in heads:
        hits = engine.search(query, k=K, chunks=0, record=False).memories
        returned_superseded += sum(1 for h in hits if h.memory.status != "active")
        head_found += any(h.memory.id == head for h in hits)
    engine.close()
    print(
        f"\nSupersession: {len(heads)} chains × 3 versions among {others:,} other memories; each chain's question "
        f"asked once: superseded memories returned as current: {returned_superseded}; "
        f"current version found in top {K}: {head_found}/{len(heads)}"
    )
    return len(heads), returned_superseded, head_found


# ---------------------------------------------------------------- latency at 100k


def run_latency(args: argparse.Namespace, embedder: object, docs: list[Doc]) -> dict[str, float]:
    from forewarn.config import Settings
    from forewarn.memory.records import Anchor, Memory
    from forewarn.memory.text import from_iso, new_id, to_iso
    from forewarn.workspace.engine import Workspace

    rng = random.Random(SEED + 2)
    tree = _corpus.django()
    now = from_iso(NOW_ISO)
    clock = Clock(now)
    started = time.perf_counter()
    engine = Workspace.open(tree, Settings(), embedder=embedder, clock=clock)
    report = engine.reindex()
    files = sorted(engine.indexer.files())
    print(
        f"  indexed Django ({len(files)} files, {len(report.index.added)} new) in "
        f"{time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )
    texts = [d.text for d in docs]
    vectors = embed_all(embedder, texts, "memories (cached)")
    chunks_by_file = {rel: [c for c in engine.indexer.chunks_for(rel) if c.part == 0] for rel in files}
    anchored = [rel for rel in files if chunks_by_file[rel]]
    target = args.memories
    have = engine.store.count()
    started = time.perf_counter()
    batch: list[tuple[Memory, list]] = []  # type: ignore[type-arg]
    batch_vecs: list[np.ndarray] = []
    for n in range(have, target):
        j = n % len(docs)  # real texts, reused: filler memories repeat real texts with their real vectors
        rel = rng.choice(anchored)
        chunk = rng.choice(chunks_by_file[rel])
        roll = rng.random()
        anchor = (
            Anchor(rel, chunk.symbol, chunk.start_line, chunk.end_line, chunk.content_hash) if roll < 0.8
            else Anchor(rel) if roll < 0.95 else None
        )  # fmt: skip
        at = now - rng.uniform(0, SPAN_DAYS) * DAY
        batch.append((Memory(id=new_id(at), type=rng.choice(["gotcha", "decision", "convention", "error_pattern"]),
                             text=texts[j], anchor=anchor, source="user", confidence=1.0, created_at=to_iso(at),
                             updated_at=to_iso(at)), []))  # fmt: skip
        batch_vecs.append(vectors[j])
        if len(batch) == 5000 or n == target - 1:
            stored = engine.store.insert_many(batch)
            assert engine.vectors is not None
            engine.vectors.add([m.num for m in stored], np.stack(batch_vecs))
            batch, batch_vecs = [], []
    engine.flush()
    print(
        f"  {engine.store.count()} memories ({len(docs)} distinct real texts with their real vectors, reused "
        f"as filler), added in {time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )

    t = time.perf_counter()
    engine.indexer.graph.rank()  # one-time graph build, reported separately
    graph_s = time.perf_counter() - t
    queries = [d.query for d in docs if d.query is not None]
    queries = rng.sample(queries, min(args.latency_queries, len(queries)))
    for q in queries:  # embed once (cached), so the timed loop measures retrieval only
        embedder.embed_query(q)  # type: ignore[attr-defined]
    search_ms: list[float] = []
    with_chunks_ms: list[float] = []
    parts = {"lexical": [], "vector": [], "rank": []}  # type: ignore[var-annotated]
    for q in queries:
        t = time.perf_counter()
        result = engine.search(q, k=K, chunks=0, record=False)
        search_ms.append((time.perf_counter() - t) * 1000 - result.timings.embed_ms)
        parts["lexical"].append(result.timings.lexical_ms)
        parts["vector"].append(result.timings.vector_ms)
        parts["rank"].append(result.timings.rank_ms)
    for q in queries:  # the same, with the code chunks the palette shows beside memories (the indexer's FTS)
        t = time.perf_counter()
        result = engine.search(q, k=K, record=False)
        with_chunks_ms.append((time.perf_counter() - t) * 1000 - result.timings.embed_ms)
    open_files = rng.sample(files, min(args.proactive_files, len(files)))
    load_before = os.getloadavg()[0]
    proactive_ms: list[float] = []
    hover_ms: list[float] = []
    shown = 0
    for rel in open_files:
        t = time.perf_counter()
        hits = engine.proactive(rel, record=False)
        proactive_ms.append((time.perf_counter() - t) * 1000)
        shown += len(hits)
        chunks = chunks_by_file.get(rel) or []
        if chunks:
            line = rng.choice(chunks).start_line
            t = time.perf_counter()
            engine.for_symbol(rel, line)
            hover_ms.append((time.perf_counter() - t) * 1000)
    reopen_ms: list[float] = []
    for rel in open_files:  # the same files again: what a file costs once its graph neighbours are known
        t = time.perf_counter()
        engine.proactive(rel, record=False)
        reopen_ms.append((time.perf_counter() - t) * 1000)
    engine.close()
    out = {
        "search_p50": statistics.median(search_ms), "search_p95": percentile(search_ms, 95),
        "proactive_p50": statistics.median(proactive_ms), "proactive_p99": percentile(proactive_ms, 99),
        "reopen_p50": statistics.median(reopen_ms), "reopen_p99": percentile(reopen_ms, 99),
        "hover_p99": percentile(hover_ms, 99) if hover_ms else 0.0,
    }  # fmt: skip
    print(f"\nLatency at {target:,} memories on the indexed Django tree (query embedding excluded):")
    print(
        f"  search    p50 {out['search_p50']:.1f} ms  p95 {out['search_p95']:.1f} ms  over {len(queries)} queries "
        f"(p95 parts: lexical {percentile(parts['lexical'], 95):.1f}, vector {percentile(parts['vector'], 95):.1f}, "
        f"rank {percentile(parts['rank'], 95):.1f} ms)"
    )
    print(
        f"  search with 5 code chunks (the indexer's chunk FTS added): p50 {statistics.median(with_chunks_ms):.1f} ms  "
        f"p95 {percentile(with_chunks_ms, 95):.1f} ms"
    )
    print(
        f"  proactive p50 {out['proactive_p50']:.2f} ms  p99 {out['proactive_p99']:.2f} ms  over {len(open_files)} "
        f"files ({shown / max(1, len(open_files)):.1f} memories shown per file; first open of each file included)"
    )
    print(
        f"  proactive re-open p50 {out['reopen_p50']:.2f} ms  p99 {out['reopen_p99']:.2f} ms  (same files, warm caches)"
    )
    print(f"  hover     p99 {out['hover_p99']:.2f} ms   (one-time graph build before these: {graph_s:.2f} s)")
    print(
        f"  machine: {os.cpu_count()} CPUs, load average {load_before:.1f} before the file-open loop, "
        f"{os.getloadavg()[0]:.1f} after (other work shares these cores: tails include its scheduling)"
    )
    return out


# ---------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer queries and chains, 20k memories for latency")
    parser.add_argument("--skip", action="append", default=[], choices=["recall", "context", "chains", "latency"])
    parser.add_argument("--model", choices=["minilm", "e5"], default="minilm", help="bench/model_compare.py's")
    parser.add_argument("--docs", type=int, default=0, help="a seeded sample of this many corpus documents")
    parser.add_argument("--no-floor", action="store_true", help="rank recall without the floor, and skip its section")
    args = parser.parse_args()
    args.queries = 150 if args.quick else QUERIES
    args.chains = 200 if args.quick else CHAINS
    args.memories = 20_000 if args.quick else LATENCY_MEMORIES
    args.latency_queries = 100 if args.quick else LATENCY_QUERIES
    args.proactive_files = 200 if args.quick else PROACTIVE_FILES

    WORK_DIR.mkdir(parents=True, exist_ok=True)
    home = WORK_DIR / "home"
    if "recall" in args.skip and "chains" not in args.skip:
        parser.error("the chains are written among the recall corpus: run them with it")
    for stale in ("recall-ws", "chains-ws"):
        shutil.rmtree(WORK_DIR / stale, ignore_errors=True)
    # memories are rebuilt every run; the code index (rebuildable) is kept to save the cold index
    for wdir in (home / "workspaces").glob("*") if (home / "workspaces").exists() else []:
        for name in ("memory.db", "memory.db-wal", "memory.db-shm", "vectors.hnsw", "vectors.json"):
            (wdir / name).unlink(missing_ok=True)
    from forewarn import paths

    os.environ.setdefault(paths.MODELS_ENV, str(paths.models_dir()))  # the installed model, before HOME moves
    os.environ[paths.HOME_ENV] = str(home)
    print("loading the corpus (Django 5.2.19 sdist + Python stdlib docstrings)", file=sys.stderr)
    docs = load_corpus()
    if args.docs and len(docs) > args.docs:
        docs = random.Random(SEED + 4).sample(docs, args.docs)
    # questions held out of the recall corpus become the update chains
    n_chains = 0 if "chains" in args.skip else args.chains
    chain_idx = set(random.Random(SEED + 3).sample([i for i, d in enumerate(docs) if d.query], n_chains))
    held_out = [d for i, d in enumerate(docs) if i in chain_idx]
    docs = [d for i, d in enumerate(docs) if i not in chain_idx]
    embedder = open_embedder(args.model)
    print(
        f"corpus: {len(docs)} memories from real docstrings; {sum(d.query is not None for d in docs)} have a "
        f"summary used as a query; embedder {embedder.model_id} on {embedder.device}"
    )  # type: ignore[attr-defined]
    verdicts: list[str] = []
    if "recall" not in args.skip:
        res = run_recall(args, embedder, docs)
        fused = res["fused (forewarn)"]
        ratio = fused["legacy"].recall / fused["recent"].recall if fused["recent"].recall else 0.0
        best_single = max(
            (res[m]["recent"].hits + res[m]["legacy"].hits) / (res[m]["recent"].n + res[m]["legacy"].n)
            for m in ("lexical only", "vector only")
        )
        fused_all = (fused["recent"].hits + fused["legacy"].hits) / (fused["recent"].n + fused["legacy"].n)
        verdicts.append(
            f"legacy/recent Recall@10 {ratio:.3f} (target ≥ {TARGETS['legacy_vs_recent']}): "
            f"{'PASS' if ratio >= TARGETS['legacy_vs_recent'] else 'FAIL'}"
        )
        verdicts.append(
            f"fused Recall@10 {fused_all:.3f} vs best single signal {best_single:.3f}: "
            f"{'PASS' if fused_all > best_single else 'FAIL'}"
        )
    if "context" not in args.skip:
        ctx = run_context(args, embedder, docs)
        plain, with_ctx = ctx["bare text"]["fused (forewarn)"], ctx["type · file · symbol — text"]["fused (forewarn)"]
        verdicts.append(
            f"context in vectors: fused Recall@10 {with_ctx.recall:.3f} vs bare {plain.recall:.3f}: "
            f"{'helps' if with_ctx.recall > plain.recall else 'does not help'}"
        )
    if "chains" not in args.skip:
        _, bad, _ = run_chains(embedder, held_out)
        verdicts.append(f"superseded returned as current: {bad} (target 0): {'PASS' if bad == 0 else 'FAIL'}")
    if "latency" not in args.skip:
        lat = run_latency(args, embedder, docs)
        verdicts.append(
            f"search p95 {lat['search_p95']:.1f} ms (target ≤ {TARGETS['search_p95_ms']:.0f}): "
            f"{'PASS' if lat['search_p95'] <= TARGETS['search_p95_ms'] else 'FAIL'}"
        )
        verdicts.append(
            f"proactive p99 {lat['proactive_p99']:.2f} ms (target ≤ {TARGETS['proactive_p99_ms']:.0f}): "
            f"{'PASS' if lat['proactive_p99'] <= TARGETS['proactive_p99_ms'] else 'FAIL'}"
        )
    print("\nTargets:")
    for v in verdicts:
        print("  " + v)
    return 0


if __name__ == "__main__":
    sys.exit(main())
