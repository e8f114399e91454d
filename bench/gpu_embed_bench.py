"""The embedder on a GPU against the same machine's CPU: code chunks per second, query latency, agreement.

Runs Forewarn's own embedder (``forewarn.memory.embedder``, the path ``forewarn index`` takes) on the texts it
embeds for code chunks, fitted to the 256-token cut, with llama.cpp built for CUDA (``n_gpu_layers = -1``), then with
the CPU contexts of the same machine (``--configs``: 1 thread, and every core up to 8), so each ratio is measured on
one machine in one run. Texts come from ``--texts`` (JSON: ``{corpus: [text, ...]}``, written by ``--dump`` on a
machine with the corpora and the index) so the GPU machine needs neither git nor tree-sitter, only numpy and
llama-cpp-python.

    .venv/bin/python bench/gpu_embed_bench.py --dump chunks.json                  # here: click, requests, express
    python bench/gpu_embed_bench.py --texts chunks.json --model model.gguf [--json out.json]   # on the GPU machine

``--configs gpu:N`` runs the GPU with N tokens per evaluation (``gpu`` is the default's size): the sweep that
chose the GPU default (docs/gpu.md). For each configuration: chunks/s and tokens/s over every text (calls of 32
chunks, as indexing makes them; the first call is a warm-up and not counted), the same with one call of all texts,
and the latency of 200 single queries (p50/p95). Then the cosine between the first configuration's vector of each
text and every other's (min and mean): the same model must give the same vectors to float rounding.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from forewarn.config import EmbedderSettings
from forewarn.memory.embedder import Embedder, open_embedder

CALL = 32  # chunks per call, as CodeVectors.embed makes them (CODE_EMBED_BATCH)
QUERIES = 200
CORPORA = ("click", "requests", "express")


def dump(target: Path) -> None:
    """Write the fitted chunk texts of the corpora (cloned from $FOREWARN_CORPORA's bundles) to ``target``."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _history

    from forewarn.config import Settings
    from forewarn.indexing.indexer import Indexer
    from forewarn.workspace.code_vectors import CODE_TEXT_MAX_TOKENS, chunk_texts, fit_to_tokens

    emb = open_embedder(EmbedderSettings(n_threads=1))
    out: dict[str, list[str]] = {}
    for name in CORPORA:
        tree = _history.clone(name)
        with Indexer(tree, Settings()) as indexer:
            indexer.index()
            texts = [t for rel in sorted(indexer.files()) for _, t in chunk_texts(rel, indexer.chunks_for(rel))]
        out[name] = [fit_to_tokens(t, emb.count_tokens, CODE_TEXT_MAX_TOKENS) for t in texts]
        print(f"{name}: {len(out[name])} chunks")
    emb.close()
    target.write_text(json.dumps(out))


def run(emb: Embedder, texts: list[str], queries: list[str]) -> dict[str, Any]:
    emb.embed_documents(texts[:CALL])  # warm-up: kernels loaded, buffers allocated
    tokens = sum(emb.count_tokens(emb.document_input(t)) for t in texts)
    started = time.perf_counter()
    vectors = np.concatenate([emb.embed_documents(texts[i : i + CALL]) for i in range(0, len(texts), CALL)])
    calls_s = time.perf_counter() - started
    started = time.perf_counter()
    emb.embed_documents(texts)
    one_s = time.perf_counter() - started
    latencies = []
    for q in queries:
        t0 = time.perf_counter()
        emb.embed_query(q)
        latencies.append((time.perf_counter() - t0) * 1000)
    latencies.sort()
    return {
        "device": emb.device,
        "threads": emb.n_threads,
        "contexts": emb.workers,
        "batch_tokens": emb.n_batch,
        "chunks": len(texts),
        "tokens": tokens,
        "chunks_per_s": len(texts) / calls_s,
        "tokens_per_s": tokens / calls_s,
        "chunks_per_s_one_call": len(texts) / one_s,
        "query_ms_p50": statistics.median(latencies),
        "query_ms_p95": latencies[int(0.95 * (len(latencies) - 1))],
        "vectors": vectors,
    }


def measure(model: str, texts: list[str], queries: list[str], configs: list[str]) -> list[dict[str, Any]]:
    """Each configuration ("gpu", or "cpu:N" for N threads) on the same texts; ratios and cosines against the first."""
    results = []
    for label in configs:
        gpu = label.split(":")[0] == "gpu"
        number = int(label.split(":")[1]) if ":" in label else 0
        emb = open_embedder(
            EmbedderSettings(
                model=model,
                n_gpu_layers=-1 if gpu else 0,
                n_threads=0 if gpu else number,
                n_batch=number if gpu else 0,  # gpu:N packs N tokens per evaluation (gpu: the default)
            )
        )
        try:
            if gpu and emb.device != "gpu":
                raise SystemExit("this llama.cpp has no GPU offload: build llama-cpp-python with -DGGML_CUDA=on")
            r = run(emb, texts, queries)
        finally:
            emb.close()
        r["label"] = label
        results.append(r)
        print(
            f"  {label:6} {r['chunks_per_s']:8.1f} chunks/s ({r['tokens_per_s']:8.0f} tokens/s) in calls of {CALL}, "
            f"{r['chunks_per_s_one_call']:8.1f} in one call ({r['contexts']} context(s), batch {r['batch_tokens']} "
            f"tokens); query p50 {r['query_ms_p50']:.2f} ms, p95 {r['query_ms_p95']:.2f} ms",
            flush=True,
        )
    first = results[0]
    for r in results[1:]:
        cos = np.sum(first["vectors"] * r["vectors"], axis=1)
        r["cosine_to_first_min"], r["cosine_to_first_mean"] = float(cos.min()), float(cos.mean())
        r["first_over_this"] = first["chunks_per_s"] / r["chunks_per_s"]
        print(
            f"  {first['label']} / {r['label']}: {r['first_over_this']:.1f}x the chunks/s; cosine of their vectors "
            f"min {cos.min():.5f}, mean {cos.mean():.5f}"
        )
    for r in results:
        del r["vectors"]
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dump", type=Path, help="write the corpora's chunk texts to this JSON file and stop")
    ap.add_argument("--texts", type=Path, help="the JSON file --dump wrote")
    ap.add_argument("--model", default="all-MiniLM-L6-v2", help="an installed model name or a GGUF path")
    ap.add_argument(
        "--configs",
        default="gpu,cpu:1,cpu:0",
        help="gpu, gpu:N (N tokens per evaluation) and/or cpu:N (N threads; 0 = every core, up to 8); the first is "
        "the reference",
    )
    ap.add_argument("--sample", type=int, default=0, help="the first N chunks of each corpus (0 = all)")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args()
    if args.dump:
        dump(args.dump)
        return
    if not args.texts:
        ap.error("--texts (or --dump) is required")
    corpora: dict[str, list[str]] = json.loads(args.texts.read_text())
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    print(f"CPU: {os.cpu_count()} cores; model {args.model}")
    out: dict[str, Any] = {}
    for name, every in corpora.items():
        texts = every[: args.sample] if args.sample > 0 else every
        # the queries: each chunk's first line (a path and a symbol), as a search would name them
        queries = [t.split("\n", 1)[0] for t in texts[:QUERIES]]
        print(f"\n{name}: {len(texts)} code chunks")
        out[name] = measure(args.model, texts, queries, configs)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
