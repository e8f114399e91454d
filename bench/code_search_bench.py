"""Code search on real history: does a commit's subject find the files that commit changed?

    python bench/code_search_bench.py                    # click and requests (bundles in ../shared/corpora)
    python bench/code_search_bench.py --corpus click --json out.json
    python bench/code_search_bench.py --max-queries 300  # a seeded sample of each corpus' queries
    python bench/code_search_bench.py --floor            # instead: the code floor's sweep (D25)

``--floor``: the code label's sweep (D25: code found for an unrelated query is labelled the nearest, not a match).
Each query (and each off-topic one) searched as shipped, k = 10, and every floor of a sweep replayed over the files
returned: off-topic queries labelled (quiet), and R@10 if the floor hid code per file or per query (what a floor
would cost; the label hides nothing). Tuned on click with ``offtopic_queries.txt``, judged on requests with
``offtopic_heldout.txt`` (``FLOOR_SETS``).

The evaluation (issue 17) is built from each corpus' own history, cloned once from
``../shared/corpora/<name>.bundle`` (or ``$FOREWARN_CORPORA``) into ``bench/.corpora/<name>-git``:

* query = a commit's subject line (a trailing pull-request number "(#123)" removed);
* answer = the source files the commit changed. Source files are the tracked ``*.py`` files Forewarn
  indexes at the evaluated head, tests included: a commit that fixes ``core.py`` and adds a test in
  ``tests/test_basic.py`` has both as answers, and a query is answered when *any* of them ranks high
  (R@k is the share of queries with an answer in the top k; MRR uses the first answer's rank);
* every source file at head is ranked (a file not returned counts as a miss).

Commits are dropped, in this order, each filter printed with its count: merges; bots (author
``[bot]``, dependabot, pre-commit-ci, renovate, github-actions); version bumps and releases (subject
``Bump``, ``Release 8.1.0``, ``Version 2.0``, ``prepare release``, ``back to dev``…); typo, spelling,
formatting and lint commits (``typo``, ``reformat``, ``black``, ``isort``, ``flake8``, ``lint``,
``pre-commit``, ``ruff``, ``whitespace``, ``pep8``…: not the bare words "format" or "style", which
name click's own ``formatting.py`` and ``style()``); subjects of fewer than three words ("Fix",
"cleanup"); commits changing no source file; commits changing more than three; commits with a
changed source file that no longer exists at head (deleted since; a file renamed since is followed
to its path at head, as ``git log --follow`` would).

Rankers, each giving a ranking of all source files:

a. BM25 over whole files (SQLite FTS5 ``bm25``, k1 1.2, b 0.75) with Forewarn's identifier-aware
   tokenizer: a file's text plus ``identifier_words`` of every identifier in it, queried with
   ``query_terms`` (words whole, in parts, and as phrases for snake_case names and dotted paths).
   Also reported: the same with plain unicode61 words (no identifier words), the tokenizer's ablation.
b. Dense over chunks alone: Forewarn's code vectors (``Workspace.embed_chunks``: all-MiniLM-L6-v2,
   path + symbol + signature + code), the query embedded, every chunk ranked by cosine, files by
   their chunks in three ways: max, top-3 (best + 1/2 second + 1/4 third), RRF of the chunk ranks.
c. RRF (k = 60) of (a)'s and (b)'s file rankings, (b) aggregated by the best of the three ways.
d. Forewarn as shipped: ``Workspace.search_code(query, k)`` (chunk BM25 ∪ vectors → RRF → files,
   tests below code unless the query is about tests). Also reported: the same with vectors off
   (``search(..., lexical_only=True, code_only=True)``), Forewarn's lexical fallback.

Each metric comes with a bootstrap 95% interval (2,000 resamples of the queries, seeded), and
Forewarn's gain over each baseline with a paired interval (the same resamples for both). The index,
the chunk vectors and the embedding cache live under ``bench/.corpora/code-search-home`` and are
reused by later runs (only changed chunks are embedded again). The target (issue 17): Forewarn as
shipped beats the three baselines on both corpora, with R@10 >= 0.85.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO_DIR = Path(__file__).resolve().parent.parent
CORPORA_DIR = REPO_DIR / "bench" / ".corpora"
HOME_DIR = CORPORA_DIR / "code-search-home"  # the bench's own Forewarn data dir: index, vectors, cache
SHARED_CORPORA = Path(os.environ.get("FOREWARN_CORPORA", REPO_DIR.parent / "shared" / "corpora"))
BRANCH = "main"
CORPORA = ("click", "requests")
BENCH_DIR = REPO_DIR / "bench"
FLOOR_SETS = {"click": ("tuning", BENCH_DIR / "offtopic_queries.txt"),
              "requests": ("held-out", BENCH_DIR / "offtopic_heldout.txt")}  # fmt: skip
FLOOR_SWEEP_COSINE = (0.25, 0.30, 0.33, 0.35, 0.38, 0.40, 0.45, 1.01)  # 1.01: words alone (product: per query)
FLOOR_SWEEP_WORDS = (0.34, 0.5, 0.67, 1.01)  # 1.01: meaning alone
BASELINES_NOTE = Path("/tmp/code_search_baselines.txt")  # shared with the fusion work while it is tuned

MAX_ANSWER_FILES = 3
MIN_SUBJECT_WORDS = 3
RRF_K = 60
BOOTSTRAP_SAMPLES = 2000
SEED = 17
CUTOFFS = (1, 5, 10)
R10_TARGET = 0.85

BOT_RE = re.compile(r"\[bot\]|dependabot|pre-commit-ci|renovate|github-actions|allcontributors", re.I)
BUMP_RE = re.compile(
    r"^bump\b|\bbump(ed)? (the )?version|^(release|releasing|version|prepar(e|ing)( for)?( the)?( release)?) v?\d"
    r"|^prepar(e|ing) (for )?(the )?release|\brelease (v?\d|version)|^v?\d+(\.\d+)+\b|\bset version|\bback to dev",
    re.I,
)
CHORE_RE = re.compile(
    r"\b(typos?|spelling|grammar|reformat\w*|(run|ran|apply|applied|with|use|using) black|black (format\w*|style)"
    r"|isort|autopep8|flake8|pyflakes|pylint|lint|linting"
    r"|linter|pre-commit|ruff|whitespace|pep ?8|code style|style fix(es)?|fix style|format code|code format\w*)\b",
    re.I,
)
PR_SUFFIX_RE = re.compile(r"\s*\((#\d+(, )?)+\)\s*$")
IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class Query:
    commit: str
    text: str
    answers: list[str]


@dataclass
class Evaluation:
    queries: list[Query]
    filters: list[tuple[str, int]]  # (what was dropped, how many), in order
    sources: list[str]


@dataclass
class Ranker:
    name: str
    ranks: list[int | None] = field(default_factory=list)  # first answer's 1-based rank per query
    seconds: float = 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", choices=CORPORA, help="click or requests (repeatable)")
    parser.add_argument("--max-queries", type=int, default=0, help="a seeded sample of at most this many per corpus")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--no-shipped", action="store_true", help="baselines only (skip Forewarn as shipped)")
    parser.add_argument("--floor", action="store_true", help="instead: the code floor's sweep")
    parser.add_argument("--model", choices=["minilm", "e5"], default="minilm", help="bench/model_compare.py's")
    args = parser.parse_args()
    global SETTINGS
    SETTINGS = _settings(args.model)
    os.environ.setdefault("FOREWARN_MODELS", str(_real_models_dir()))
    os.environ["FOREWARN_HOME"] = str(HOME_DIR)
    if args.floor:
        for name in args.corpus or CORPORA:
            floor_sweep(name, args.max_queries)
        return 0
    results: dict[str, dict] = {}
    for name in args.corpus or CORPORA:
        results[name] = run_corpus(name, args.max_queries, shipped=not args.no_shipped)
        _note_baselines(results)
    verdict = _verdict(results)
    print(f"\n{verdict}")
    if args.json:
        args.json.write_text(json.dumps({"corpora": results, "verdict": verdict}, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


SETTINGS: object = None  # the workspace settings (their embedder: --model)


def _settings(model: str) -> object:
    from forewarn.config import Settings

    sys.path.insert(0, str(BENCH_DIR))
    import model_compare

    settings = Settings()
    settings.embedder = model_compare.candidate_settings(model)
    return settings


def _real_models_dir() -> Path:
    from forewarn import paths

    return paths.models_dir()  # resolved before FOREWARN_HOME moves to the bench's own data dir


# -- the evaluation ------------------------------------------------------------------------------


def clone(name: str) -> Path:
    target = CORPORA_DIR / f"{name}-git"
    if not (target / ".git").is_dir():
        bundle = SHARED_CORPORA / f"{name}.bundle"
        if not bundle.is_file():
            raise SystemExit(f"no {bundle}")
        CORPORA_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", "-b", BRANCH, str(bundle), str(target)], check=True)
    return target


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def build_evaluation(root: Path, sources: Sequence[str]) -> Evaluation:
    """Queries and answers from ``root``'s history, every drop counted (see the module docstring)."""
    source_set = set(sources)
    filters: list[tuple[str, int]] = []
    total = int(git(root, "rev-list", "--count", "HEAD"))
    merges = int(git(root, "rev-list", "--count", "--merges", "HEAD"))
    filters += [("commits reachable from HEAD", total), ("merges", merges)]
    log = git(root, "log", "HEAD", "--no-merges", "--no-renames", "--name-only", "--format=%x1e%H%x1f%an <%ae>%x1f%s")
    counts = dict.fromkeys(
        ["bots", "version bumps and releases", "typo, formatting and lint", f"subjects under {MIN_SUBJECT_WORDS} words",
         "no source file changed", f"more than {MAX_ANSWER_FILES} source files", "a source file gone at head"], 0
    )  # fmt: skip
    queries: list[Query] = []
    renames = _renames(root)
    followed = 0
    for record in log.split("\x1e")[1:]:
        head, _, names = record.partition("\n")
        commit, author, subject = head.split("\x1f", 2)
        subject = PR_SUFFIX_RE.sub("", subject).strip()
        changed = [n for n in names.split("\n") if n.endswith(".py")]
        if BOT_RE.search(author):
            counts["bots"] += 1
        elif BUMP_RE.search(subject):
            counts["version bumps and releases"] += 1
        elif CHORE_RE.search(subject):
            counts["typo, formatting and lint"] += 1
        elif len(subject.split()) < MIN_SUBJECT_WORDS:
            counts[f"subjects under {MIN_SUBJECT_WORDS} words"] += 1
        elif not changed:
            counts["no source file changed"] += 1
        elif len(changed) > MAX_ANSWER_FILES:
            counts[f"more than {MAX_ANSWER_FILES} source files"] += 1
        elif not all(_at_head(n, renames) in source_set for n in changed):
            counts["a source file gone at head"] += 1
        else:
            queries.append(Query(commit, subject, sorted({_at_head(n, renames) for n in changed})))
            followed += any(_at_head(n, renames) != n for n in changed)
    filters += list(counts.items())
    filters.append(("queries kept", len(queries)))
    filters.append(("  of which a file renamed since (followed)", followed))
    return Evaluation(queries, filters, list(sources))


def _renames(root: Path) -> dict[str, str]:
    """old path -> new path of every rename in the history (later renames override earlier ones)."""
    out: dict[str, str] = {}
    log = git(root, "log", "HEAD", "--reverse", "--no-merges", "-M", "--diff-filter=R", "--name-status", "--format=")
    for line in log.splitlines():
        bits = line.split("\t")
        if len(bits) == 3 and bits[0].startswith("R"):
            out[bits[1]] = bits[2]
    return out


def _at_head(path: str, renames: dict[str, str]) -> str:
    """Where ``path`` lives at head when it was renamed since (followed through later renames)."""
    seen = {path}
    while path in renames and renames[path] not in seen:
        path = renames[path]
        seen.add(path)
    return path


# -- rankers -------------------------------------------------------------------------------------


class WholeFileBM25:
    """(a) BM25 over whole files in an in-memory FTS5 table, with the code index's tokenizer."""

    def __init__(self, root: Path, sources: Sequence[str], *, identifiers: bool = True) -> None:
        from forewarn.indexing.words import identifier_words

        self.identifiers = identifiers  # False: plain unicode61 words, the tokenizer's ablation

        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE files USING fts5(rel UNINDEXED, text, words, tokenize='unicode61')")
        rows = []
        for rel in sources:
            text = (root / rel).read_text(encoding="utf-8", errors="replace")
            idents = dict.fromkeys(IDENT_RE.findall(text))
            words = " ".join(w for ident in idents for w in identifier_words(ident)) if identifiers else ""
            rows.append((rel, text, words))
        self.conn.executemany("INSERT INTO files (rel, text, words) VALUES (?, ?, ?)", rows)

    def rank(self, query: str) -> list[str]:
        from forewarn.indexing.store import fts_query, query_terms

        match = fts_query(query_terms(query) if self.identifiers else re.findall(r"[^\W_]+", query.lower()))
        if not match:
            return []
        rows = self.conn.execute("SELECT rel FROM files WHERE files MATCH ? ORDER BY bm25(files)", (match,))
        return [r[0] for r in rows]


def aggregate(chunk_files: Sequence[str], scores: Sequence[float], how: str) -> list[str]:
    """Files ranked by their chunks (best first): ``max``, ``top3`` (1, 1/2, 1/4) or ``rrf`` of chunk ranks."""
    per_file: dict[str, list[tuple[int, float]]] = {}
    for rank, (rel, score) in enumerate(zip(chunk_files, scores, strict=True), start=1):
        per_file.setdefault(rel, []).append((rank, score))
    totals: dict[str, float] = {}
    for rel, hits in per_file.items():  # hits are best first
        if how == "max":
            totals[rel] = hits[0][1]
        elif how == "top3":
            totals[rel] = sum(score / (2**i) for i, (_, score) in enumerate(hits[:3]))
        else:
            totals[rel] = sum(1.0 / (RRF_K + rank) for rank, _ in hits)
    return sorted(totals, key=lambda rel: -totals[rel])


def rrf(*rankings: Sequence[str]) -> list[str]:
    score: dict[str, float] = {}
    for ranking in rankings:
        for rank, rel in enumerate(ranking, start=1):
            score[rel] = score.get(rel, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(score, key=lambda rel: -score[rel])


def first_answer_rank(ranking: Sequence[str], answers: Sequence[str]) -> int | None:
    wanted = set(answers)
    return next((i for i, rel in enumerate(ranking, start=1) if rel in wanted), None)


# -- one corpus ----------------------------------------------------------------------------------


def run_corpus(name: str, max_queries: int, *, shipped: bool) -> dict:
    from forewarn.workspace.engine import Workspace

    root = clone(name)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    print(f"\n=== {name} at {head} ===", flush=True)
    ws = Workspace.open(root, SETTINGS)
    try:
        if ws.embedder is None:
            raise SystemExit(f"no embedder ({ws.reason}): run `make model` first")
        t = time.perf_counter()
        ws.reindex()
        index_s = time.perf_counter() - t
        tracked = set(git(root, "ls-files", "*.py").split("\n"))
        sources = sorted(rel for rel in ws.indexer.files() if rel in tracked)  # indexed, tracked .py files
        embedded, total = _embed(ws)
        ev = build_evaluation(root, sources)
        queries = ev.queries
        if max_queries and len(queries) > max_queries:
            queries = sorted(random.Random(SEED).sample(queries, max_queries), key=lambda q: ev.queries.index(q))
        _print_filters(ev, len(queries))
        print(f"{len(sources)} source files, {total} chunks ({embedded} with a vector), index {index_s:.1f} s")
        rankers = evaluate(ws, root, sources, queries, total, shipped=shipped)
    finally:
        ws.close()
    draws = _draws(len(queries))
    table = {r.name: summarize(r.ranks, draws) | {"seconds": round(r.seconds, 2)} for r in rankers}
    _print_table(name, table, len(queries))
    by_name = {r.name: r.ranks for r in rankers}
    shipped_ranks = by_name.get("d. Forewarn as shipped")
    gains = {}
    if shipped_ranks is not None:
        gains = {n: paired(shipped_ranks, ranks, draws) for n, ranks in by_name.items() if n[:2] in ("a.", "b.", "c.")}
        _print_gains(gains)
    return {
        "head": head,
        "sources": len(sources),
        "chunks": total,
        "filters": {what.strip(): n for what, n in ev.filters},
        "queries": len(queries),
        "rankers": table,
        "shipped_minus_baseline": gains,
        "ranks": {r.name: r.ranks for r in rankers},
        "query_commits": [q.commit for q in queries],
    }


def _embed(ws: object) -> tuple[int, int]:
    embedded, total = ws.code_vector_state()  # type: ignore[attr-defined]
    if embedded < total:
        print(f"embedding {total - embedded} of {total} chunks (cached for later runs)...", flush=True)
        t = time.perf_counter()
        last = [0.0]

        def progress(done: int, todo: int) -> None:
            if time.perf_counter() - last[0] > 15:
                last[0] = time.perf_counter()
                print(f"  {done}/{todo} chunks, {time.perf_counter() - t:.0f} s", flush=True)

        added = ws.embed_chunks(progress=progress)  # type: ignore[attr-defined]
        print(f"  {added} chunks in {time.perf_counter() - t:.0f} s", flush=True)
        embedded, total = ws.code_vector_state()  # type: ignore[attr-defined]
    return embedded, total


def evaluate(ws: object, root: Path, sources: Sequence[str], queries: Sequence[Query], chunks: int, *, shipped: bool):
    import numpy as np

    bm25 = WholeFileBM25(root, sources)
    plain = WholeFileBM25(root, sources, identifiers=False)
    named = ["a. BM25 whole files", "b. dense chunks (max)", "b. dense chunks (top3)", "b. dense chunks (rrf)"]
    rankers = {n: Ranker(n) for n in named}
    dense_rankings: dict[str, list[list[str]]] = {"max": [], "top3": [], "rrf": []}
    bm25_rankings: list[list[str]] = []
    embed_s = 0.0
    for q in queries:
        t = time.perf_counter()
        ranking = bm25.rank(q.text)
        rankers[named[0]].seconds += time.perf_counter() - t
        bm25_rankings.append(ranking)
        rankers[named[0]].ranks.append(first_answer_rank(ranking, q.answers))
        t = time.perf_counter()
        qvec = np.asarray(ws.embedder.embed_query(q.text), dtype=np.float32)  # type: ignore[attr-defined]
        embed_s += time.perf_counter() - t
        t = time.perf_counter()
        hits = ws.code_vector_hits(qvec, chunks)  # type: ignore[attr-defined]
        rows = ws.indexer.chunks_by_ids([cid for cid, _ in hits])  # type: ignore[attr-defined]
        kept = [(rows[cid].rel, cos) for cid, cos in hits if cid in rows]
        spent = time.perf_counter() - t
        for how in dense_rankings:
            r = rankers[f"b. dense chunks ({how})"]
            ranking = aggregate([rel for rel, _ in kept], [cos for _, cos in kept], how)
            dense_rankings[how].append(ranking)
            r.ranks.append(first_answer_rank(ranking, q.answers))
            r.seconds += spent
    best = max(dense_rankings, key=lambda how: _mrr(rankers[f"b. dense chunks ({how})"].ranks))
    fused = Ranker(f"c. RRF of a and b ({best})")
    for q, a, b in zip(queries, bm25_rankings, dense_rankings[best], strict=True):
        fused.ranks.append(first_answer_rank(rrf(a, b), q.answers))
    out = [*rankers.values(), fused, Ranker("BM25 whole files, plain words")]
    out[-1].ranks = [first_answer_rank(plain.rank(q.text), q.answers) for q in queries]
    out.append(_shipped(ws, queries, len(sources), lexical=True))
    if shipped:
        out.append(_shipped(ws, queries, len(sources), lexical=False))
    print(
        f"query embedding: {1000 * embed_s / max(len(queries), 1):.1f} ms per query (the cache answers repeats)",
        flush=True,
    )
    return out


def _shipped(ws: object, queries: Sequence[Query], n_files: int, *, lexical: bool) -> Ranker:
    """d. ``Workspace.search_code`` (and its lexical fallback): the ranking Forewarn ships."""
    r = Ranker("Forewarn lexical only" if lexical else "d. Forewarn as shipped")
    search: Callable[[str], list] = (
        (lambda text: ws.search(text, n_files, code_only=True, lexical_only=True, record=False).files)  # type: ignore[attr-defined]
        if lexical
        else (lambda text: ws.search_code(text, n_files))  # type: ignore[attr-defined]
    )
    for q in queries:
        t = time.perf_counter()
        files = [f.file for f in search(q.text)]
        r.seconds += time.perf_counter() - t
        r.ranks.append(first_answer_rank(files, q.answers))
    return r


# -- the code floor -------------------------------------------------------------------------------


def floor_sweep(name: str, max_queries: int) -> None:
    """R@10 and off-topic queries left without code, for each code floor of the sweep (see the module docstring)."""
    import dataclasses

    from forewarn.memory.text import query_terms
    from forewarn.workspace import code_search
    from forewarn.workspace.engine import Workspace

    label, off_path = FLOOR_SETS[name]
    off = [ln.strip() for ln in off_path.read_text(encoding="utf-8").splitlines() if ln.strip() and ln[0] != "#"]
    root = clone(name)
    with Workspace.open(root, SETTINGS) as ws:
        if ws.embedder is None:
            raise SystemExit(f"no embedder ({ws.reason}): run `make model` first")
        ws.reindex()
        tracked = set(git(root, "ls-files", "*.py").split("\n"))
        sources = sorted(rel for rel in ws.indexer.files() if rel in tracked)
        _embed(ws)
        queries = build_evaluation(root, sources).queries
        if max_queries and len(queries) > max_queries:
            queries = random.Random(SEED).sample(queries, max_queries)

        def features(text: str) -> list[tuple[str, float | None, int, int]]:
            terms = query_terms(text)
            hits = ws.search_code(text, 10)
            return [(h.file, *code_search.file_match(h, terms), len(terms)) for h in hits]

        real = [(q.answers, features(q.text)) for q in queries]
        noise = [features(q) for q in off]
    shipped = code_search.CodeFloor()
    grid = [dataclasses.replace(shipped, cosine=c) for c in FLOOR_SWEEP_COSINE]
    grid += [dataclasses.replace(shipped, words=w) for w in FLOOR_SWEEP_WORDS]
    grid = [shipped, code_search.NO_CODE_FLOOR] + [f for f in grid if f != shipped]
    print(f"\n{name} ({label}): {len(real)} history queries, {len(noise)} off-topic ({off_path.name}); k = 10")
    print("  per file: each file listed only above the floor; per query: every file listed when one is above it")
    print(f"  {'code floor':<34}{'per file: R@10':>16}{'off-topic quiet':>17}{'per query: R@10':>17}{'quiet':>8}")
    for f in grid:
        hit = sum(any(rel in answers and f.reached(c, n, t) for rel, c, n, t in rows) for answers, rows in real)
        quiet = sum(not any(f.reached(c, n, t) for _, c, n, t in rows) for rows in noise)
        answered = sum(
            any(rel in answers for rel, *_ in rows) and any(f.reached(c, n, t) for _, c, n, t in rows)
            for answers, rows in real
        )
        name_f = "none" if f == code_search.NO_CODE_FLOOR else f"cosine {f.cosine:.2f}, words {f.words:.2f}"
        mark = "  <- shipped" if f == shipped else ""
        print(f"  {name_f:<34}{hit / max(1, len(real)):>16.3f}{quiet / max(1, len(noise)):>16.0%}"
              f"{answered / max(1, len(real)):>17.3f}{quiet / max(1, len(noise)):>8.0%}{mark}")  # fmt: skip


# -- figures -------------------------------------------------------------------------------------


def _mrr(ranks: Sequence[int | None]) -> float:
    return sum(1.0 / r for r in ranks if r is not None) / max(len(ranks), 1)


def _per_query(ranks: Sequence[int | None]):
    """(hits at each cutoff, reciprocal rank) per query, as arrays the bootstrap indexes."""
    import numpy as np

    r = np.array([x if x is not None else np.inf for x in ranks], dtype=np.float64)
    return {f"R@{k}": (r <= k).astype(np.float64) for k in CUTOFFS} | {"MRR": np.where(np.isfinite(r), 1.0 / r, 0.0)}


def _draws(n: int):
    """The bootstrap resamples (query indices), one set shared by every ranker of a corpus: paired."""
    import numpy as np

    return np.random.default_rng(SEED).integers(0, n, size=(BOOTSTRAP_SAMPLES, n))


def summarize(ranks: Sequence[int | None], draws) -> dict[str, dict[str, float]]:
    """Each metric with its bootstrap 95% interval over the queries."""
    import numpy as np

    out = {}
    for m, values in _per_query(ranks).items():
        boot = values[draws].mean(axis=1) if len(values) else np.zeros(1)
        lo, hi = np.percentile(boot, [2.5, 97.5])
        out[m] = {"value": round(float(values.mean()) if len(values) else 0.0, 4), "lo": round(float(lo), 4),
                  "hi": round(float(hi), 4)}  # fmt: skip
    return out


def paired(ranks: Sequence[int | None], base: Sequence[int | None], draws) -> dict[str, dict[str, float]]:
    """``ranks`` minus ``base`` per metric over the same resamples: the difference and its 95% interval."""
    import numpy as np

    ours, theirs = _per_query(ranks), _per_query(base)
    out = {}
    for m in ("R@10", "MRR"):
        diff = ours[m] - theirs[m]
        lo, hi = np.percentile(diff[draws].mean(axis=1), [2.5, 97.5])
        out[m] = {"value": round(float(diff.mean()), 4), "lo": round(float(lo), 4), "hi": round(float(hi), 4)}
    return out


def _print_filters(ev: Evaluation, used: int) -> None:
    print("evaluation built from history (each line: commits dropped by that filter, in order):")
    for what, n in ev.filters:
        print(f"  {what:<40} {n:>6}")
    if used != len(ev.queries):
        print(f"  {'sampled (--max-queries)':<40} {used:>6}")


def _print_table(corpus: str, table: dict[str, dict], n: int) -> None:
    print(f"\n{corpus}: {n} queries (95% bootstrap intervals)")
    head = f"{'ranker':<32}" + "".join(f"{m:>22}" for m in ("R@1", "R@5", "R@10", "MRR")) + f"{'ms/query':>10}"
    print(head)
    print("-" * len(head))
    for name, row in table.items():
        cells = "".join(
            f"{row[m]['value']:>8.3f} [{row[m]['lo']:.3f}-{row[m]['hi']:.3f}]" for m in ("R@1", "R@5", "R@10", "MRR")
        )
        print(f"{name:<32}{cells}{1000 * row['seconds'] / max(n, 1):>10.1f}")


def _print_gains(gains: dict[str, dict]) -> None:
    print("\nForewarn as shipped minus each baseline, paired bootstrap 95% intervals (above 0: shipped better)")
    for name, g in gains.items():
        cells = "   ".join(f"{m} {v['value']:+.3f} [{v['lo']:+.3f}, {v['hi']:+.3f}]" for m, v in g.items())
        print(f"  vs {name:<30} {cells}")


def _verdict(results: dict[str, dict]) -> str:
    lines = []
    for corpus, r in results.items():
        rows = r["rankers"]
        shipped = rows.get("d. Forewarn as shipped")
        if shipped is None:
            lines.append(f"{corpus}: Forewarn as shipped not measured")
            continue
        baselines = {k: v for k, v in rows.items() if k[:2] in ("a.", "b.", "c.")}
        beats = all(shipped[m]["value"] > v[m]["value"] for v in baselines.values() for m in ("R@10", "MRR"))
        r10 = shipped["R@10"]["value"]
        lines.append(
            f"{corpus}: shipped R@10 {r10:.3f} (target {R10_TARGET}: {'met' if r10 >= R10_TARGET else 'NOT met'}); "
            f"beats every baseline on R@10 and MRR: {'yes' if beats else 'NO'}"
        )
    return "\n".join(lines)


def _note_baselines(results: dict[str, dict]) -> None:
    """The baselines so far, for the session tuning fusion (best chunk aggregation included)."""
    lines = ["# bench/code_search_bench.py: first-answer rank metrics (value [95% CI])", ""]
    for corpus, r in results.items():
        lines.append(f"{corpus} @ {r['head']}: {r['queries']} queries, {r['sources']} files, {r['chunks']} chunks")
        for name, row in r["rankers"].items():
            cells = "  ".join(
                f"{m} {row[m]['value']:.3f} [{row[m]['lo']:.3f}-{row[m]['hi']:.3f}]" for m in row if m != "seconds"
            )
            lines.append(f"  {name:<32} {cells}")
        lines.append("")
    with contextlib.suppress(OSError):  # a note for another session, never a reason to fail the bench
        BASELINES_NOTE.write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
