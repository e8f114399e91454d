"""Memories found through code: does the third RRF list (memories on the top code hits) help, and at what weight?

    python bench/memory_code_bench.py                    # requests, every kept query, five weights
    python bench/memory_code_bench.py --max-queries 300  # a seeded sample of the queries
    python bench/memory_code_bench.py --lexical          # no vectors (memories and code by words only)

``Workspace.search`` ranks memories by words and by meaning, and (issue 17) also those anchored to the best
``MEMORY_CODE_FILES`` code files of the same query: a third RRF list weighted by ``CODE_LIST_WEIGHT``
(``forewarn/memory/retrieval.py``). This measures that weight on a real history:

* the corpus: ``bench/.corpora/requests-git`` (made by ``bench/code_search_bench.py`` from
  ``../shared/corpora``), cloned again into a private ``bench/.corpora/memory-code-<corpus>`` with its own
  Forewarn data dir ``bench/.corpora/memory-code-home`` (the embedding cache seeded from code-search-home's);
* memories: the workspace is indexed at HEAD, its whole history mined, every suggestion accepted (as
  ``bench/review_bench.py`` does); memories and code chunks embedded when the model is there (hybrid mode);
* queries: the subjects of the commits ``code_search_bench``'s filters keep; a query's relevant memories are
  the current memories anchored to a file that commit changed, *except* those mined from that very commit (its
  sha among their provenance commits), so a query never just quotes its memory. Queries with no relevant
  memory are skipped;
* metric: the first relevant memory's rank in ``ws.search(query, 10, record=False).memories``: R@1/5/10 and MRR
  with bootstrap 95% intervals, each weight against the shipped one with a paired interval (same resamples),
  and how often the relevance floor answered nothing. Weight 0 is no third list at all (``MEMORY_CODE_FILES``
  = 0). The constants are patched in-process between runs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import code_search_bench as csb  # bench/ is not a package

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
sys.path.insert(0, str(REPO_DIR))  # run as a script from anywhere: forewarn from this checkout
HOME_DIR = csb.CORPORA_DIR / "memory-code-home"
WEIGHTS = (0.0, 0.25, 0.5, 1.0, 2.0)
SHIPPED = 0.5
K = 10


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default="requests", choices=csb.CORPORA)
    parser.add_argument("--max-queries", type=int, default=0, help="a seeded sample of at most this many queries")
    parser.add_argument("--lexical", action="store_true", help="no embedder: words only")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    os.environ.setdefault("FOREWARN_MODELS", str(csb._real_models_dir()))
    os.environ["FOREWARN_HOME"] = str(HOME_DIR)
    seed_cache = csb.HOME_DIR / "cache" / "embeddings.db"
    if not (HOME_DIR / "cache" / "embeddings.db").exists() and seed_cache.is_file():
        (HOME_DIR / "cache").mkdir(parents=True, exist_ok=True)
        shutil.copy2(seed_cache, HOME_DIR / "cache" / "embeddings.db")  # chunks embedded before: not again
    result = run(args.corpus, args.max_queries, lexical=args.lexical)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


def private_copy(name: str) -> Path:
    """A clone of code_search_bench's clone, made once: mining and indexing never write in the shared one."""
    source = csb.clone(name)
    target = csb.CORPORA_DIR / f"memory-code-{name}"
    if not (target / ".git").is_dir():
        subprocess.run(["git", "clone", "-q", "-b", csb.BRANCH, str(source), str(target)], check=True)
    return target


def run(name: str, max_queries: int, *, lexical: bool) -> dict:
    from forewarn.memory import retrieval
    from forewarn.memory.suggestions import provenance_commits
    from forewarn.workspace import searching
    from forewarn.workspace.engine import Workspace
    from forewarn.workspace.mining import mine

    root = private_copy(name)
    head = csb.git(root, "rev-parse", "--short=10", "HEAD").strip()
    print(f"=== {name} at {head} ===", flush=True)
    ws = Workspace.open(root, embedder=None) if lexical else Workspace.open(root)
    try:
        mode = "hybrid" if ws.embedder is not None else "lexical"
        t = time.perf_counter()
        ws.reindex()
        print(f"indexed in {time.perf_counter() - t:.1f} s", flush=True)
        if not ws.list_memories(limit=1):  # mined once: later runs reuse the memories
            t = time.perf_counter()
            report = mine(ws, hold_back=False)  # the same store as before holding back existed
            accepted = 0
            for m in ws.suggestions():
                ws.accept_suggestion(m.id)
                accepted += 1
            print(f"mined {report.commits_read} commits, {accepted} accepted in {time.perf_counter() - t:.1f} s")
        if mode == "hybrid":
            added = ws.backfill_vectors()
            embedded, total = csb._embed(ws)
            print(f"memory vectors added: {added}; code chunks with a vector: {embedded}/{total}", flush=True)
        memories = ws.list_memories(limit=-1)
        by_file: dict[str, list[tuple[str, set[str]]]] = {}
        for m in memories:
            if m.file is not None:
                shas = {str(c["sha"]) for c in provenance_commits(m.provenance)}
                by_file.setdefault(m.file, []).append((m.id, shas))
        tracked = set(csb.git(root, "ls-files", "*.py").split("\n"))
        sources = sorted(rel for rel in ws.indexer.files() if rel in tracked)
        ev = csb.build_evaluation(root, sources)
        queries = ev.queries
        if max_queries and len(queries) > max_queries:
            queries = sorted(random.Random(csb.SEED).sample(queries, max_queries), key=lambda q: ev.queries.index(q))
        relevant: list[set[str]] = []
        kept: list[csb.Query] = []
        own_dropped = 0
        for q in queries:
            on_files = [(mid, shas) for rel in q.answers for mid, shas in by_file.get(rel, ())]
            rel_ids = {
                mid for mid, shas in on_files if not any(s.startswith(q.commit) or q.commit.startswith(s) for s in shas)
            }
            own_dropped += len({mid for mid, _ in on_files} - rel_ids)
            if rel_ids:
                kept.append(q)
                relevant.append(rel_ids)
        anchored = sum(len(v) for v in by_file.values())
        print(
            f"{len(memories)} current memories ({anchored} anchored to a file); {len(ev.queries)} queries kept by the "
            f"filters, {len(queries)} used, {len(kept)} with a relevant memory ({own_dropped} memory-query pairs "
            f"dropped as mined from the query's own commit); mode {mode}",
            flush=True,
        )
        ranks: dict[str, list[int | None]] = {}
        empty: dict[str, int] = {}
        ms: dict[str, float] = {}
        saved = (retrieval.CODE_LIST_WEIGHT, searching.MEMORY_CODE_FILES)
        try:
            for w in WEIGHTS:
                retrieval.CODE_LIST_WEIGHT = w
                searching.MEMORY_CODE_FILES = saved[1] if w > 0 else 0
                label = f"{w:g}" if w > 0 else "0 (no list)"
                r: list[int | None] = []
                none = 0
                t = time.perf_counter()
                for q, rel_ids in zip(kept, relevant, strict=True):
                    hits = ws.search(q.text, K, record=False).memories
                    none += not hits
                    r.append(next((i for i, h in enumerate(hits, start=1) if h.memory.id in rel_ids), None))
                ms[label] = 1000 * (time.perf_counter() - t) / max(len(kept), 1)
                ranks[label], empty[label] = r, none
                print(f"  weight {label}: done ({ms[label]:.0f} ms/query)", flush=True)
        finally:
            retrieval.CODE_LIST_WEIGHT, searching.MEMORY_CODE_FILES = saved
    finally:
        ws.close()
    draws = csb._draws(len(kept))
    table = {label: csb.summarize(r, draws) for label, r in ranks.items()}
    base = ranks[f"{SHIPPED:g}"]
    gains = {label: csb.paired(r, base, draws) for label, r in ranks.items() if label != f"{SHIPPED:g}"}
    print(f"\n{name} ({mode}): {len(kept)} queries, {len(memories)} memories (95% bootstrap intervals)")
    head_row = f"{'weight':<14}" + "".join(f"{m:>22}" for m in ("R@1", "R@5", "R@10", "MRR"))
    print(head_row + f"{'no answer':>11}{'ms/q':>7}")
    print("-" * (len(head_row) + 18))
    for label, row in table.items():
        cells = "".join(
            f"{row[m]['value']:>8.3f} [{row[m]['lo']:.3f}-{row[m]['hi']:.3f}]" for m in ("R@1", "R@5", "R@10", "MRR")
        )
        print(f"{label:<14}{cells}{empty[label] / max(len(kept), 1):>11.3f}{ms[label]:>7.0f}")
    print(f"\neach weight minus {SHIPPED:g} (shipped), paired bootstrap 95% intervals (above 0: that weight better)")
    for label, g in gains.items():
        cells = "   ".join(f"{m} {v['value']:+.3f} [{v['lo']:+.3f}, {v['hi']:+.3f}]" for m, v in g.items())
        print(f"  {label:<12} {cells}")
    return {
        "corpus": name,
        "head": head,
        "mode": mode,
        "memories": len(memories),
        "queries_filtered": len(ev.queries),
        "queries_used": len(queries),
        "queries_with_relevant": len(kept),
        "own_commit_pairs_dropped": own_dropped,
        "weights": table,
        "no_answer_share": {k: round(v / max(len(kept), 1), 4) for k, v in empty.items()},
        "ms_per_query": {k: round(v, 1) for k, v in ms.items()},
        "minus_shipped": gains,
    }


if __name__ == "__main__":
    sys.exit(main())
