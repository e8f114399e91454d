"""Language-server latency on real code: didOpen → publishDiagnostics and hover, at 1k/10k/100k memories.

The Django 5.2.19 sdist is indexed once into a private FOREWARN_HOME (bench/.corpora/lsp-home);
memories are written in bulk through the engine's store, anchored to real chunks across its files,
with real text (each chunk's docstring, else its signature). For each size a fresh
``forewarn serve`` is driven over stdio by pytest-lsp's client (VS Code's capabilities) from this
plain asyncio script: opens of distinct files (each file's first open, caches cold), then hovers
on the names of anchored symbols: half on their definitions, half on calls of them in other files
(resolved through the imports to the definition). Reported: p50/p99 of both, how many hovers had
something to show, the server's peak RSS (VmHWM), and diagnostics per open (mean, p95, max: an open
shows at most ``diagnostics.max_diagnostics``, 5).

    python bench/lsp_bench.py                    # 1k, 10k, 100k memories
    python bench/lsp_bench.py --sizes 1000 --opens 100
    python bench/lsp_bench.py --json results.json

The embedder is off in the server: opening a file and hovering never embed (the proactive and
hover tiers are SQL plus the cached graph), so the model would only add load time and memory.
Targets: diagnostics p99 ≤ 15 ms and hover p99 ≤ 10 ms at 100k memories; peak RSS ≤ 400 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _corpus  # bench/ is not a package
from _stats import percentile

BENCH_DIR = Path(__file__).resolve().parent
HOME = BENCH_DIR / ".corpora" / "lsp-bench"  # private data dirs: the bench never touches the user's memories
SIZES = (1_000, 10_000, 100_000)
OPENS = 300  # distinct files opened per size: enough samples for a stable p99
HOVERS = 300
WARMUP = 20  # opens before timing: the server builds the file graph on the first one
SEED = 5  # the same files and memories on every run
WAIT_S = 120.0  # a stuck server fails the run instead of hanging it
TYPES = ("gotcha", "gotcha", "decision", "error_pattern", "convention", "dead_end")  # gotchas are most common
MAX_AGE_DAYS = 730  # memories spread over two years, so ages and decay are realistic
TARGET_DIAG_P99_MS, TARGET_HOVER_P99_MS, TARGET_RSS_MB = 15.0, 10.0, 400.0
TARGET_DIAGS_PER_OPEN = 5  # config's diagnostics.max_diagnostics default (issue 22: was 20.6 per open)
CALL_RE = re.compile(r"(?<![\w.])(\w+)\(")  # a bare call of a name: `charge_card(…)`, not `obj.x(…)`
DOCSTRING_RE = re.compile(r'"""\s*(.+?)\s*(?:"""|\n\s*\n)', re.S)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--opens", type=int, default=OPENS)
    parser.add_argument("--hovers", type=int, default=HOVERS)
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args()
    root = _corpus.django()
    print(f"corpus: {root}", file=sys.stderr)
    results = []
    for size in sorted(args.sizes):
        home, anchors = prepare(root, size)
        results.append(asyncio.run(measure(root, home, size, anchors, args.opens, args.hovers)))
        print(format_row(results[-1]), flush=True)
    report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    results_ok = all(r["ok"] for r in results if r["memories"] >= 100_000)
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", file=sys.stderr)
    return 0 if results_ok else 1


# ---------------------------------------------------------------- data: index once, memories in bulk


def prepare(root: Path, size: int) -> tuple[Path, list[tuple[str, str, int, int]]]:
    """A data dir holding the indexed corpus and exactly ``size`` memories (reused when already built).

    The corpus is indexed once into ``HOME/index``; each size gets a copy of that index and its own
    memory database, so sizes can be re-run in any order.
    """
    from forewarn.config import Settings
    from forewarn.workspace.engine import Workspace

    settings = Settings()
    settings.embedder.enabled = False
    base = HOME / "index"
    os.environ["FOREWARN_HOME"] = str(base)
    started = time.perf_counter()
    with Workspace.open(root, settings, embedder=None) as engine:
        engine.reindex()
    print(f"index up to date in {time.perf_counter() - started:.1f} s", file=sys.stderr)

    home = HOME / f"memories-{size}"
    os.environ["FOREWARN_HOME"] = str(home)
    marker = home / "bench.json"
    fresh = not marker.exists() or json.loads(marker.read_text()).get("memories") != size
    if fresh:
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(base, home, ignore=shutil.ignore_patterns("memory.db*", "vectors.*"))
    with Workspace.open(root, settings, embedder=None) as engine:
        engine.reindex()  # this size's copy of the index may predate an index migration (which empties it)
        chunks = [
            c for rel in sorted(engine.indexer.files()) for c in engine.indexer.chunks_for(rel) if c.kind != "module"
        ]
        if fresh:
            started = time.perf_counter()
            insert_memories(engine, chunks, size)
            print(f"{size} memories inserted in {time.perf_counter() - started:.1f} s", file=sys.stderr)
            marker.write_text(json.dumps({"memories": size}) + "\n")
        # anchors to hover on: (file, symbol, its first line, its last line)
        return home, [(c.rel, c.symbol, c.start_line, c.end_line) for c in chunks]


def insert_memories(engine: Any, chunks: list[Any], size: int) -> None:
    from forewarn.memory import lifecycle
    from forewarn.memory.records import Anchor, Memory
    from forewarn.memory.text import new_id, to_iso

    rng = random.Random(SEED)
    now = time.time()
    batch: list[tuple[Memory, list[Any]]] = []
    for i in range(size):
        chunk = chunks[(i * 7919) % len(chunks)]  # a prime stride spreads memories over every file
        created = now - rng.uniform(0, MAX_AGE_DAYS) * 86400
        at = to_iso(created)
        text = memory_text(chunk, i)
        mid = new_id(created)
        anchor = lifecycle.anchor_from_chunk(chunk.rel, chunk) if i % 5 else Anchor(chunk.rel)  # 1 in 5 file-wide
        memory = Memory(mid, TYPES[i % len(TYPES)], text, anchor, "user", 1.0, at, at)
        batch.append((memory, [lifecycle.event(mid, "created", at, source="bench")]))
        if len(batch) >= 5_000:
            engine.store.insert_many(batch)
            batch = []
    if batch:
        engine.store.insert_many(batch)


def memory_text(chunk: Any, i: int) -> str:
    found = DOCSTRING_RE.search(chunk.text)
    lesson = " ".join(found.group(1).split())[:300] if found else chunk.signature.strip()
    return f"{lesson} (note {i} on {chunk.symbol})"


# ---------------------------------------------------------------- the server, through a real client


async def measure(
    root: Path, home: Path, size: int, anchors: list[tuple[str, str, int, int]], opens: int, hovers: int
) -> dict[str, Any]:
    from lsprotocol import types
    from pytest_lsp import client_capabilities
    from pytest_lsp.client import make_test_lsp_client

    client = make_test_lsp_client()
    client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)  # accept file watching, as VS Code does
    arrivals = Arrivals(client)
    env = {**os.environ, "FOREWARN_HOME": str(home)}
    await client.start_io(sys.executable, "-m", "forewarn.cli.main", "serve", env=env)
    capabilities = client_capabilities("visual-studio-code")
    capabilities.experimental = {"forewarn": {"promptsForText": True}}  # as the VS Code extension declares it
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            # mining off: it is a one-off after the first index, and the corpus sits inside this repository
            initialization_options={"embedder": {"enabled": False}, "mining": {"enabled": False}},
        )
    )
    await indexing_done(client)
    assert client._server is not None
    pid = client._server.pid

    rng = random.Random(SEED)
    files = sorted({rel for rel, _, _, _ in anchors})
    rng.shuffle(files)
    open_ms: list[float] = []
    counts: list[int] = []
    for n, rel in enumerate(files[: WARMUP + opens]):
        elapsed, diags = await open_and_wait(client, arrivals, root / rel)
        if n >= WARMUP:
            open_ms.append(elapsed)
            counts.append(diags)

    hover_ms: list[float] = []
    shown = 0
    for rel, line, column in hover_sites(root, anchors, files, hovers, rng):
        uri = (root / rel).as_uri()
        params = types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=column)
        )
        started = time.perf_counter()
        found = await asyncio.wait_for(client.text_document_hover_async(params), WAIT_S)
        hover_ms.append((time.perf_counter() - started) * 1000)
        shown += found is not None

    peak_mb = peak_rss_mb(pid)
    await client.shutdown_session()
    await client.stop()
    diag_p99, hover_p99 = percentile(open_ms, 99), percentile(hover_ms, 99)
    return {
        "memories": size,
        "files_opened": len(open_ms),
        "diagnostics_per_open": round(statistics.mean(counts), 1) if counts else 0,
        "diagnostics_per_open_p95": round(percentile(counts, 95), 1) if counts else 0,
        "diagnostics_per_open_max": max(counts, default=0),
        "diagnostics_p50_ms": round(percentile(open_ms, 50), 2),
        "diagnostics_p99_ms": round(diag_p99, 2),
        "hovers": len(hover_ms),
        "hover_p50_ms": round(percentile(hover_ms, 50), 2),
        "hover_p99_ms": round(hover_p99, 2),
        "hovers_with_contents": shown,
        "peak_rss_mb": round(peak_mb, 1),
        "ok": diag_p99 <= TARGET_DIAG_P99_MS
        and hover_p99 <= TARGET_HOVER_P99_MS
        and peak_mb <= TARGET_RSS_MB
        and max(counts, default=0) <= TARGET_DIAGS_PER_OPEN,
    }


def hover_sites(
    root: Path, anchors: list[tuple[str, str, int, int]], files: list[str], count: int, rng: random.Random
) -> list[tuple[str, int, int]]:
    """(file, 0-based line, column) of ``count`` names to hover: half the names of anchored definitions
    where they are defined, half calls of those names in other files (ASCII lines: columns are UTF-16)."""
    lines_of: dict[str, list[str]] = {}

    def lines(rel: str) -> list[str]:
        if rel not in lines_of:
            lines_of[rel] = (root / rel).read_text(encoding="utf-8", errors="replace").split("\n")
        return lines_of[rel]

    definitions: list[tuple[str, int, int]] = []
    for rel, symbol, start, end in rng.sample(anchors, min(count, len(anchors))):
        name = symbol.split(".")[-1].split("#")[0]
        for row in range(start - 1, min(end, len(lines(rel)))):
            found = re.search(rf"\b(?:def|class)\s+({re.escape(name)})\b", lines(rel)[row])
            if found:
                definitions.append((rel, row, found.start(1)))
                break
    defined = {symbol.split(".")[-1].split("#")[0]: rel for rel, symbol, _, _ in anchors}
    calls: list[tuple[str, int, int]] = []
    for rel in rng.sample(files, len(files)):
        for row, text in enumerate(lines(rel)):
            for found in CALL_RE.finditer(text):
                if defined.get(found.group(1), rel) != rel and text.isascii() and len(found.group(1)) > 3:
                    calls.append((rel, row, found.start(1)))
        if len(calls) >= count * 4:
            break
    half = count // 2
    return definitions[:half] + rng.sample(calls, min(count - half, len(calls)))


async def indexing_done(client: Any, timeout_s: float = WAIT_S * 5) -> None:
    """Wait for the first indexing run's ``$/progress`` end (``timeout_s``: a stuck server fails the run)."""
    from lsprotocol import types

    def done() -> bool:
        return any(r and isinstance(r[-1], types.WorkDoneProgressEnd) for r in client.progress_reports.values())

    async def loop() -> None:
        while not done():
            await client.wait_for_notification(types.PROGRESS)

    await asyncio.wait_for(loop(), timeout_s)


class Arrivals:
    """When each file's diagnostics arrived, recorded as the client handles the notification."""

    def __init__(self, client: Any) -> None:
        from lsprotocol import types

        self.events: dict[str, asyncio.Event] = {}
        self.times: dict[str, tuple[float, int]] = {}
        original = client.protocol._handle_notification

        def handle(method: str, params: Any) -> None:
            if method == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS and params.uri in self.events:
                self.times[params.uri] = (time.perf_counter(), len(params.diagnostics))
                self.events[params.uri].set()
            original(method, params)

        client.protocol._handle_notification = handle


async def open_and_wait(client: Any, arrivals: Arrivals, path: Path) -> tuple[float, int]:
    """didOpen → the publishDiagnostics for that file, in ms (the client's own parsing included); then close."""
    from lsprotocol import types

    uri = path.as_uri()
    text = path.read_text(encoding="utf-8", errors="replace")
    item = types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
    arrivals.events[uri] = event = asyncio.Event()
    started = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    await asyncio.wait_for(event.wait(), WAIT_S)
    arrived, count = arrivals.times[uri]
    del arrivals.events[uri]
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return (arrived - started) * 1000, count


def peak_rss_mb(pid: int) -> float:
    """The process's high-water resident set (VmHWM), falling back to current RSS off Linux."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import psutil

    return float(psutil.Process(pid).memory_info().rss) / (1024 * 1024)


def format_row(r: dict[str, Any]) -> str:
    return (
        f"| {r['memories']:>7,} | {r['diagnostics_p50_ms']:>6.2f} | {r['diagnostics_p99_ms']:>6.2f} "
        f"| {r['hover_p50_ms']:>6.2f} | {r['hover_p99_ms']:>6.2f} | {r['peak_rss_mb']:>6.1f} "
        f"| {r['diagnostics_per_open']:>5} / {r['diagnostics_per_open_p95']:>4} / {r['diagnostics_per_open_max']:>3} "
        f"| {'yes' if r['ok'] else 'NO'} |"
    )


def report(results: list[dict[str, Any]]) -> None:
    print()
    print(
        "| memories | diag p50 ms | diag p99 ms | hover p50 ms | hover p99 ms | peak RSS MB "
        "| diags/open mean / p95 / max | in target |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print(format_row(r))
    print("hovers with something to show: " + ", ".join(f"{r['hovers_with_contents']}/{r['hovers']}" for r in results))
    print(
        f"\ntargets at 100k memories: diagnostics p99 ≤ {TARGET_DIAG_P99_MS} ms, hover p99 ≤ {TARGET_HOVER_P99_MS} ms, "
        f"peak RSS ≤ {TARGET_RSS_MB} MB; diagnostics per open at most diagnostics.max_diagnostics "
        f"({TARGET_DIAGS_PER_OPEN}, the 'more' entry included)"
    )


if __name__ == "__main__":
    sys.exit(main())
