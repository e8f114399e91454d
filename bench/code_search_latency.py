"""Search latency with code on Django 5.2.19 fully embedded: ``Workspace.search`` (memories and code files, words
and vectors), the query embedding timed apart.

Needs the fully embedded workspace ``bench/code_embed_bench.py --full`` leaves in bench/.corpora/code-embed
(every chunk with a vector). Queries: the summaries of Django docstrings (questions about the code in the
project's own words), 20 warm-up ones first. Reported: p50/p95 of the whole search minus its query embedding
(target p95 ≤ 50 ms), the embedding alone, the code half alone, and the process's peak RSS with the model and
every code vector loaded (the server's steady state: target ≤ 400 MB).

    .venv/bin/python bench/code_search_latency.py [--queries 200]
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from _rss import PeakRss  # noqa: E402
from _stats import percentile  # noqa: E402

from forewarn import paths  # noqa: E402

WORK = BENCH_DIR / ".corpora" / "code-embed"
TREE = WORK / "django"
HOME = WORK / "home"
WARMUP = 20
SEED = 11
TARGET_P95_MS, TARGET_RSS_MB = 50.0, 400.0


def questions(root: Path, count: int) -> list[str]:
    out: list[str] = []
    for path in sorted(root.rglob("*.py")):
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                doc = ast.get_docstring(node)
                if doc:
                    first = " ".join(doc.strip().split("\n\n")[0].split())
                    if 4 <= len(first.split()) <= 16:
                        out.append(first)
    random.Random(SEED).shuffle(out)
    return out[:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    os.environ.setdefault(paths.MODELS_ENV, str(paths.models_dir()))
    os.environ[paths.HOME_ENV] = str(HOME)
    if not TREE.is_dir():
        sys.exit("run bench/code_embed_bench.py --full first (it embeds every chunk of Django)")
    from forewarn.workspace.engine import Workspace

    asked = questions(TREE, WARMUP + args.queries)
    import psutil

    rss = PeakRss(psutil.Process())
    rss.start()
    with Workspace.open(TREE) as ws:
        embedded, total = ws.code_vector_state()
        print(f"code vectors: {embedded} of {total} chunks; memories: {ws.store.count()}; search: {ws.mode}")
        if embedded < total * 0.99:
            sys.exit("not fully embedded: run bench/code_embed_bench.py --full first")
        whole, embed, code = [], [], []
        for n, q in enumerate(asked):
            started = time.perf_counter()
            result = ws.search(q, 10, record=False)
            elapsed = (time.perf_counter() - started) * 1000
            if n >= WARMUP:
                whole.append(elapsed - result.timings.embed_ms)
                embed.append(result.timings.embed_ms)
                code.append(result.timings.code_ms)
    rss.stop()
    peak = rss.main_mb
    print(
        f"search with code, query embedding excluded: p50 {percentile(whole, 50):.1f} ms, "
        f"p95 {percentile(whole, 95):.1f} ms (target ≤ {TARGET_P95_MS:.0f}) over {len(whole)} queries"
    )
    print(
        f"  the code half (words + vectors → files): p50 {percentile(code, 50):.1f} ms, p95 {percentile(code, 95):.1f}"
    )
    print(f"  query embedding alone: p50 {percentile(embed, 50):.1f} ms, p95 {percentile(embed, 95):.1f} ms")
    print(f"peak RSS with the model and every code vector loaded: {peak:.0f} MB (target ≤ {TARGET_RSS_MB:.0f})")
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
