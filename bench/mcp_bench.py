"""MCP tool latency through the real SDK client: memories_for_files and search_memories at 1k/10k/100k memories.

The same data as bench/lsp_bench.py (Django 5.2.19 indexed once, memories written in bulk on real chunks with
real text; kept in bench/.corpora/lsp-bench). For each size a fresh ``forewarn mcp --no-index`` is started over
stdio and driven by the official MCP SDK client from this script, as an agent host would: calls to
``memories_for_files`` with one file each (distinct files, caches cold) and ``search_memories`` with queries of
three words taken from memories' text. Reported: p50/p99 of both (the client's round trip: JSON-RPC, the tool,
packing the answer), and the tokens an answer costs at the default 1,000-token budget (answer size, memories
per answer, tokens per memory).

The embedder is off in the server, so a search is the lexical and ranking path alone: that is "search
excluding the query embedding" (the vector lookup is measured by bench/recall_bench.py; embedding 100k
memories first would take over an hour on this CPU).

    python bench/mcp_bench.py                    # 1k, 10k, 100k memories
    python bench/mcp_bench.py --sizes 1000 --calls 100

Targets: memories_for_files p99 ≤ 20 ms; search p99 ≤ 60 ms (both at 100k memories).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _corpus  # bench/ is not a package
import lsp_bench  # the same data: Django indexed once, memories in bulk
from _stats import percentile

SIZES = (1_000, 10_000, 100_000)
CALLS = 300
WARMUP = 20
SEED = 7
TARGET_FILES_P99_MS, TARGET_SEARCH_P99_MS = 20.0, 60.0
FOREWARN = str(Path(sys.executable).with_name("forewarn"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--calls", type=int, default=CALLS)
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args()
    root = _corpus.django()
    print(f"corpus: {root}", file=sys.stderr)
    results = []
    for size in sorted(args.sizes):
        home, anchors = lsp_bench.prepare(root, size)
        results.append(asyncio.run(measure(root, home, anchors, size, args.calls)))
        print(row(results[-1]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", file=sys.stderr)
    return 0 if all(r["ok"] for r in results if r["memories"] >= 100_000) else 1


def queries(home: Path, root: Path, count: int) -> list[str]:
    """Three content words from random memories' text (what an agent asks about this code)."""
    from forewarn.config import Settings
    from forewarn.memory.text import query_terms
    from forewarn.workspace.engine import Workspace

    os.environ["FOREWARN_HOME"] = str(home)
    settings = Settings()
    settings.embedder.enabled = False
    rng = random.Random(SEED)
    with Workspace.open(root, settings, embedder=None) as ws:
        texts = [m.text for m in ws.list_memories(limit=2000)]
    out: list[str] = []
    while len(out) < count and texts:
        words = [w for w in query_terms(rng.choice(texts)) if not w.isdigit() and w not in ("note", "on")]
        if len(words) >= 3:
            out.append(" ".join(rng.sample(words, 3)))
    return out


async def measure(root: Path, home: Path, anchors: list[tuple[Any, ...]], size: int, calls: int) -> dict[str, Any]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    rng = random.Random(SEED)
    files = sorted({anchor[0] for anchor in anchors})
    rng.shuffle(files)
    asked = queries(home, root, WARMUP + calls)
    env = {**os.environ, "FOREWARN_HOME": str(home)}
    (root / ".forewarn").mkdir(exist_ok=True)
    config = root / ".forewarn" / "config.toml"
    config.write_text("[embedder]\nenabled = false\n")  # lexical: search without the query embedding
    params = StdioServerParameters(command=FOREWARN, args=["mcp", "-w", str(root), "--no-index"], env=env)
    files_ms: list[float] = []
    search_ms: list[float] = []
    answer_tokens: list[int] = []
    shown: list[int] = []
    try:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for n, rel in enumerate(files[: WARMUP + calls]):
                started = time.perf_counter()
                result = await session.call_tool("memories_for_files", {"paths": [rel]})
                elapsed = (time.perf_counter() - started) * 1000
                assert not result.is_error, result.content
                if n >= WARMUP:
                    files_ms.append(elapsed)
                    text = "".join(getattr(c, "text", "") for c in result.content)
                    answer_tokens.append(tokens(text))
                    shown.append(sum(1 for line in text.splitlines() if line.startswith("- **")))
            for n, query in enumerate(asked):
                started = time.perf_counter()
                result = await session.call_tool("search_memories", {"query": query})
                elapsed = (time.perf_counter() - started) * 1000
                assert not result.is_error, result.content
                if n >= WARMUP:
                    search_ms.append(elapsed)
    finally:
        config.unlink()
    files_p99, search_p99 = percentile(files_ms, 99), percentile(search_ms, 99)
    with_memories = [t for t, s in zip(answer_tokens, shown, strict=True) if s]
    return {
        "memories": size,
        "files_calls": len(files_ms),
        "files_p50_ms": round(percentile(files_ms, 50), 2),
        "files_p99_ms": round(files_p99, 2),
        "search_calls": len(search_ms),
        "search_p50_ms": round(percentile(search_ms, 50), 2),
        "search_p99_ms": round(search_p99, 2),
        "memories_per_answer": round(statistics.mean(shown), 1) if shown else 0,
        "tokens_per_answer": round(statistics.mean(with_memories), 1) if with_memories else 0,
        "tokens_per_memory": round(sum(with_memories) / max(1, sum(s for s in shown if s)), 1),
        "ok": files_p99 <= TARGET_FILES_P99_MS and search_p99 <= TARGET_SEARCH_P99_MS,
    }


def tokens(text: str) -> int:
    from forewarn.mcp.render import tokens as estimate

    return estimate(text)


def row(r: dict[str, Any]) -> str:
    return (
        f"{r['memories']:>7,} memories | memories_for_files p50 {r['files_p50_ms']:.1f} ms"
        f" p99 {r['files_p99_ms']:.1f} ms (target ≤ {TARGET_FILES_P99_MS:.0f})"
        f" | search p50 {r['search_p50_ms']:.1f} ms p99 {r['search_p99_ms']:.1f} ms"
        f" (target ≤ {TARGET_SEARCH_P99_MS:.0f}) | {r['memories_per_answer']} memories, {r['tokens_per_answer']} tokens"
        f" per answer ({r['tokens_per_memory']} per memory) | {'ok' if r['ok'] else 'MISSED'}"
    )


if __name__ == "__main__":
    sys.exit(main())
