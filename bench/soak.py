"""Soak: a sustained mixed load on one ``forewarn serve`` through a real LSP client over stdio.

Several concurrent "users" loop over: open a file (timed until its diagnostics arrive), hover a
definition, search memories, remember a lesson anchored to the open file, edit it (didChange,
then save, which re-indexes it) and close it. Runs for a bounded time, then prints requests/s,
p50/p99 latency per kind and overall, errors, and the server's RSS at the start of the load, at
the end, and at its peak.

    python bench/soak.py                       # 60 s, 4 concurrent users, embedder on
    python bench/soak.py --seconds 600 --users 8 --json soak.json

Runs in a private FOREWARN_HOME (a temporary directory) on a generated workspace; the embedding
model is shared with the user's install. Exit status 0 when no request failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the LSP helpers live with the reliability tests
sys.path.insert(0, str(ROOT / "bench"))
from _stats import percentile  # noqa: E402 - bench/ is not a package

WAIT_S = 30.0  # no answer in this long: the server is hung (counted as an error; the run stops)
RSS_SAMPLE_S = 1.0  # how often the server's memory is sampled for the peak
RSS_TIMELINE_S = 10.0  # how often a sample is kept for the growth curve


class Soak:
    def __init__(self, client: Any, root: Path, seed: int) -> None:
        self.client = client
        self.root = root
        self.files = sorted(root.rglob("mod*.py"))
        self.latency: dict[str, list[float]] = {}
        self.errors: dict[str, int] = {}
        self.rng = random.Random(seed)
        self.edits = True  # didChange + didSave (a re-index) in every loop
        self.hung_after: float | None = None  # seconds into the run when a request went unanswered
        self.started = time.monotonic()
        from tests.reliability.lsp import DiagnosticsWaiter

        self.published = DiagnosticsWaiter(client)

    async def timed(self, kind: str, coro: Any) -> Any:
        started = time.perf_counter()
        try:
            result = await asyncio.wait_for(coro, WAIT_S)
        except Exception as exc:
            if isinstance(exc, TimeoutError) and self.hung_after is None:
                self.hung_after = time.monotonic() - self.started  # a hung server answers nothing more: stop
            self.errors[kind] = self.errors.get(kind, 0) + 1
            print(f"error in {kind}: {type(exc).__name__}: {str(exc)[:200]}", file=sys.stderr)
            return None
        self.latency.setdefault(kind, []).append((time.perf_counter() - started) * 1000)
        return result

    async def user(self, n: int, deadline: float) -> None:
        from lsprotocol import types

        rng = random.Random(n)
        version = 0
        while time.monotonic() < deadline and self.hung_after is None:
            path = rng.choice(self.files)
            uri = path.as_uri()
            text = path.read_text()
            version += 1
            waiter = self.published.expect(uri)
            self.client.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
                )
            )
            await self.timed("open→diagnostics", waiter)
            lines = text.splitlines()
            defs = [i for i, line in enumerate(lines) if line.startswith(("def ", "class "))] or [0]
            line = rng.choice(defs)
            doc = types.TextDocumentIdentifier(uri=uri)
            await self.timed(
                "hover",
                self.client.text_document_hover_async(
                    types.HoverParams(text_document=doc, position=types.Position(line=line, character=5))
                ),
            )
            await self.timed("search", self._command("forewarn.search", {"query": " ".join(rng.sample(WORDS, 3))}))
            rng_range = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 1}}
            lesson = f"{' '.join(rng.sample(WORDS, 6))} (soak {n}-{version})"
            await self.timed(
                "remember", self._command("forewarn.remember", {"text": lesson, "uri": uri, "range": rng_range})
            )
            if not self.edits:
                self.client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=doc))
                continue
            version += 1
            edit = types.TextDocumentContentChangeWholeDocument(text=text + f"\n# soak edit {version}\n")
            self.client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[edit],
                )
            )
            self.client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=doc))
            await self.timed("workspace/symbol", self.client.workspace_symbol_async(
                types.WorkspaceSymbolParams(query=rng.choice(WORDS))
            ))  # fmt: skip
            self.client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=doc))

    async def _command(self, name: str, argument: dict[str, Any]) -> Any:
        from lsprotocol import types

        params = types.ExecuteCommandParams(command=name, arguments=[argument])
        return await self.client.workspace_execute_command_async(params)


WORDS = (
    "cache", "invoice", "retry", "timeout", "pool", "leak", "rounding", "tax", "refund", "webhook", "queue", "lock",
    "schema", "index", "cursor", "token", "session", "replica", "shard", "backoff", "deadline", "encoding", "locale",
    "currency", "ledger", "batch", "worker",
)  # fmt: skip


async def run(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    from tests.reliability import crash, lsp

    root = crash.make_workspace(tmp / "ws", files=args.files, seed=args.seed)
    options = {"embedder": {"enabled": not args.lexical}}
    async with lsp.server(root, options=options, log_file=tmp / "server.log") as client:
        await lsp.indexed(client)
        server = psutil.Process(lsp.server_pid(client))
        soak = Soak(client, root, args.seed)
        soak.edits = not args.no_edits
        await soak.user(0, time.monotonic() + 5)  # warm-up: graph, caches, model; not counted
        soak.latency.clear()
        soak.errors.clear()
        soak.started = time.monotonic()
        rss_start = server.memory_info().rss
        peak = rss_start
        started = time.monotonic()
        deadline = started + args.seconds

        timeline: list[float] = []  # RSS every RSS_TIMELINE_S: a plateau is a cache, a slope is a leak

        async def sample() -> None:
            nonlocal peak
            n = 0
            while time.monotonic() < deadline and soak.hung_after is None:
                rss = server.memory_info().rss
                peak = max(peak, rss)
                if n % int(RSS_TIMELINE_S / RSS_SAMPLE_S) == 0:
                    timeline.append(round(rss / (1024 * 1024), 1))
                n += 1
                await asyncio.sleep(RSS_SAMPLE_S)  # a sampling interval, not a wait for an event

        await asyncio.gather(sample(), *(soak.user(n + 1, deadline) for n in range(args.users)))
        elapsed = time.monotonic() - started
        rss_end = server.memory_info().rss
        if soak.hung_after is None:
            memories = (await lsp.command(client, "forewarn.stats"))["total"]
        else:
            memories = -1
            server.kill()  # deadlocked: it would not answer shutdown either
    all_ms = [v for values in soak.latency.values() for v in values]
    requests = len(all_ms) + sum(soak.errors.values())
    mb = 1024 * 1024
    return {
        "seconds": round(elapsed, 1),
        "users": args.users,
        "embedder": not args.lexical,
        "requests": requests,
        "requests_per_s": round(requests / elapsed, 1),
        "p50_ms": round(percentile(all_ms, 50), 1),
        "p99_ms": round(percentile(all_ms, 99), 1),
        "by_kind": {
            kind: {
                "n": len(v),
                "p50_ms": round(percentile(v, 50), 1),
                "p99_ms": round(percentile(v, 99), 1),
                "mean_ms": round(statistics.mean(v), 1),
            }
            for kind, v in sorted(soak.latency.items())
        },
        "errors": sum(soak.errors.values()),
        "errors_by_kind": soak.errors,
        "rss_start_mb": round(rss_start / mb, 1),
        "rss_end_mb": round(rss_end / mb, 1),
        "rss_peak_mb": round(peak / mb, 1),
        "rss_growth_mb": round((rss_end - rss_start) / mb, 1),
        "rss_timeline_mb": timeline,
        "memories_at_end": memories,
        "hung_after_s": None if soak.hung_after is None else round(soak.hung_after, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--users", type=int, default=4, help="concurrent simulated users (one client)")
    parser.add_argument("--files", type=int, default=200, help="files in the generated workspace")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lexical", action="store_true", help="run the server without the embedding model")
    parser.add_argument("--no-edits", action="store_true", help="leave out didChange/didSave (bisecting)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    from forewarn import paths

    models = paths.models_dir()
    with tempfile.TemporaryDirectory(prefix="forewarn-soak-") as tmp:
        os.environ[paths.HOME_ENV] = str(Path(tmp) / "home")
        os.environ[paths.MODELS_ENV] = str(models)
        result = asyncio.run(run(args, Path(tmp)))
    print(f"duration:      {result['seconds']} s, {result['users']} users, embedder {result['embedder']}")
    print(f"requests:      {result['requests']} ({result['requests_per_s']}/s)")
    print(f"latency:       p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms")
    for kind, r in result["by_kind"].items():
        print(f"  {kind:18s} n={r['n']:6d}  p50 {r['p50_ms']:7.1f} ms  p99 {r['p99_ms']:7.1f} ms")
    print(f"errors:        {result['errors']} {result['errors_by_kind'] or ''}")
    print(
        f"server RSS:    {result['rss_start_mb']} MB at start, {result['rss_end_mb']} MB at end "
        f"(growth {result['rss_growth_mb']} MB), peak {result['rss_peak_mb']} MB"
    )
    print(f"RSS every {RSS_TIMELINE_S:.0f} s: {result['rss_timeline_mb']}")
    print(f"memories:      {result['memories_at_end']} at the end")
    if result["hung_after_s"] is not None:
        print(f"HUNG:          the server stopped answering {result['hung_after_s']} s into the run")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0 if result["errors"] == 0 and result["hung_after_s"] is None else 1


if __name__ == "__main__":
    sys.exit(main())
