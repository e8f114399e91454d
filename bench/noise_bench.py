"""How loud a file open is after a real history is mined and every suggestion accepted (issue 22).

For each corpus (a git bundle of a project other people wrote): clone it, index it (no embedding), ``forewarn
mine``, ``forewarn memory review --accept-all``, then start ``forewarn serve`` and open, through a real LSP
client over stdio (pytest-lsp, VS Code's capabilities), every file that has memories. Per open it records what an
editor would show and prints, per corpus and in all:

- diagnostics per open (p50/p95/max) and Warnings per open (p95/max);
- the share of diagnostics on line 1;
- duplicate texts: entries of one open whose first line repeats another's (same lesson shown twice);
- headline length: the first line of each message (p50/p95/max);
- neighbour memories used: of the memories shown on a file but anchored in another, the share whose definition
  the file really uses, judged here independently of Forewarn's own resolution: the definition's name appears
  in the file's code (comment lines aside) and the file imports its module, or the name itself, or mentions the
  class a method belongs to.

Targets: diagnostics p95 ≤ 5, 0 duplicate texts, 100% of neighbour memories used, headline p95 ≤ 120 characters
(and at most 3 Warnings an open, the default ``diagnostics.max_warnings``).

    python bench/noise_bench.py                              # click, requests, express
    python bench/noise_bench.py --corpus click --corpus /path/to/other.bundle
    python bench/noise_bench.py --json noise.json

Bundles: a name is looked up as ``<name>.bundle`` in ``$FOREWARN_CORPORA`` (default ``../shared/corpora``, which
holds click and requests); a path to a ``.bundle`` or a git clone works too. express (JavaScript, 6k commits) is
not in ``../shared/corpora``: fetch it once with ``git clone --mirror https://github.com/expressjs/express
express.git && git -C express.git bundle create ../express.bundle --all`` and point ``FOREWARN_CORPORA`` at the
folder holding it (or pass its path). A corpus that cannot be found is reported and skipped.

Each corpus is cloned into ``bench/.corpora/noise/<name>`` and gets its own data dir there (both rebuilt every
run: mining and accepting must start from nothing). Flask's and mypy's histories are kept for independent checks:
never run this on them for tuning.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
sys.path.insert(0, str(BENCH_DIR))  # bench/ is not a package
sys.path.insert(0, str(REPO_DIR))  # run as a script from anywhere: forewarn from this checkout
from _stats import percentile  # noqa: E402
from lsp_bench import indexing_done  # noqa: E402  (the same wait for the first index)

WORK_DIR = BENCH_DIR / ".corpora" / "noise"
SHARED_CORPORA = Path(os.environ.get("FOREWARN_CORPORA", REPO_DIR.parent / "shared" / "corpora"))
CORPORA = ("click", "requests", "express")
BRANCHES = ("main", "master")  # the branch a corpus is read at, the first its bundle has (else its HEAD)
WAIT_S = 120.0  # a stuck server fails the run instead of hanging it
INDEX_WAIT_S = 1800.0  # the first index of a corpus, on a loaded 2-core machine
CLI_TIMEOUT_S = 3600  # index, mine or accept on the largest corpus
TARGET_P95_DIAGNOSTICS, TARGET_HEADLINE_P95, TARGET_MAX_WARNINGS = 5, 120, 3
LANGUAGE_IDS = {".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".ts": "typescript"}
COMMENT_LINE = re.compile(r"^\s*(#|//|\*|/\*)")  # a whole-line comment (Python, JavaScript, a block comment's body)
IMPORT_LINE = re.compile(r"^\s*(import\b|from\b|.*\brequire\s*\()")
MODULE_FILE_STEMS = ("__init__", "index")  # a package's own file: its folder's name is what importers write


@dataclass
class Open:
    """One file open as the client saw it."""

    file: str
    ms: float
    diagnostics: int  # every entry, the "more" one included
    warnings: int
    line_one: int  # entries on the first line (memories only)
    memory_entries: int  # entries showing a memory (not the "more" one)
    duplicates: int  # entries whose first line repeats another's
    headlines: list[int] = field(default_factory=list)
    neighbours: int = 0  # memories shown here but anchored in another file
    neighbours_used: int = 0  # of those, judged used by this file
    unused: list[str] = field(default_factory=list)  # file::symbol of the ones judged not used


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", help="a name in FOREWARN_CORPORA, a .bundle or a clone")
    parser.add_argument("--json", type=Path, default=None, help="also write every open's figures here")
    parser.add_argument("--max-files", type=int, default=0, help="open at most this many files per corpus (0: all)")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    every: list[Open] = []
    for name in args.corpus or CORPORA:
        source = _source(name)
        if source is None:
            print(f"{name}: no bundle at {SHARED_CORPORA / (name + '.bundle')} and no such path: skipped", flush=True)
            continue
        label = Path(name).name.removesuffix(".bundle")
        started = time.perf_counter()
        opens, setup = run_corpus(label, source, args.max_files)
        every += opens
        results[label] = {"setup": setup, "summary": summary(opens), "opens": [o.__dict__ for o in opens]}
        print(f"{label}: {setup} ({time.perf_counter() - started:.0f} s in all)", flush=True)
    if not results:
        print("no corpus found", file=sys.stderr)
        return 1
    report({**{k: v["summary"] for k, v in results.items()}, "all": summary(every)})
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    ok = on_target(summary(every))
    print(f"\nload average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", file=sys.stderr)
    return 0 if ok else 1


# ---------------------------------------------------------------- a corpus: clone, index, mine, accept


def _source(name: str) -> Path | None:
    path = Path(name).expanduser()
    if path.exists():
        return path.resolve()
    bundle = SHARED_CORPORA / f"{name}.bundle"
    return bundle if bundle.is_file() else None


def forewarn(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "forewarn", *args], env=env, capture_output=True, text=True, timeout=CLI_TIMEOUT_S
    )
    if done.returncode != 0:
        raise SystemExit(f"forewarn {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return done.stdout


def run_corpus(label: str, source: Path, max_files: int) -> tuple[list[Open], str]:
    root, home = WORK_DIR / label, WORK_DIR / f"{label}-home"
    for path in (root, home):
        shutil.rmtree(path, ignore_errors=True)
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    heads = subprocess.run(["git", "ls-remote", "--heads", str(source)], capture_output=True, text=True).stdout
    branch = next((b for b in BRANCHES if f"refs/heads/{b}\n" in heads + "\n"), None)  # a bundle's HEAD may dangle
    where = ["-b", branch] if branch else []
    subprocess.run(["git", "clone", "-q", *where, str(source), str(root)], check=True, timeout=CLI_TIMEOUT_S)
    env = {**os.environ, "FOREWARN_HOME": str(home), "PYTHONPATH": str(REPO_DIR)}
    commits = subprocess.run(
        ["git", "-C", str(root), "rev-list", "--count", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    forewarn(env, "index", "--no-embed", "-w", str(root))
    forewarn(env, "mine", "-w", str(root))
    forewarn(env, "memory", "review", "--accept-all", "-w", str(root))
    memories = json.loads(forewarn(env, "memory", "list", "--limit", "1000000", "--json", "-w", str(root)))
    anchors = {m["id"]: m.get("anchor") or {} for m in memories}
    files = sorted({a["file"] for a in anchors.values() if a.get("file") and (root / a["file"]).is_file()})
    if max_files:
        files = files[:max_files]
    opens = asyncio.run(open_all(root, env, files, anchors))
    return opens, f"{commits} commits, {len(memories)} memories accepted, {len(files)} files opened"


# ---------------------------------------------------------------- the editor: a real LSP client over stdio


async def open_all(root: Path, env: dict[str, str], files: list[str], anchors: dict[str, Any]) -> list[Open]:
    from lsprotocol import types
    from pytest_lsp import client_capabilities
    from pytest_lsp.client import make_test_lsp_client

    client = make_test_lsp_client()
    client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)  # accept file watching, as VS Code does
    arrived: dict[str, asyncio.Future[tuple[float, list[Any]]]] = {}
    original = client.protocol._handle_notification

    def handle(method: str, params: Any) -> None:
        waiting = arrived.get(params.uri) if method == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS else None
        if waiting is not None and not waiting.done():
            waiting.set_result((time.perf_counter(), list(params.diagnostics)))
        original(method, params)

    client.protocol._handle_notification = handle
    await client.start_io(sys.executable, "-m", "forewarn.cli.main", "serve", env=env)
    options = {"embedder": {"enabled": False}, "mining": {"enabled": False}}
    capabilities = client_capabilities("visual-studio-code")
    # as the VS Code extension declares it: a person is there (a client that declares nothing is answered as an
    # agent, with notes as data, which is not what this bench measures)
    capabilities.experimental = {"forewarn": {"promptsForText": True}}
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=options,
        )
    )
    await indexing_done(client, INDEX_WAIT_S)
    opens: list[Open] = []
    for rel in files:
        path = root / rel
        text = path.read_text(encoding="utf-8", errors="replace")
        uri = path.as_uri()
        arrived[uri] = asyncio.get_running_loop().create_future()
        item = types.TextDocumentItem(
            uri=uri, language_id=LANGUAGE_IDS.get(path.suffix, "plaintext"), version=1, text=text
        )
        started = time.perf_counter()
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
        at, diags = await asyncio.wait_for(arrived[uri], WAIT_S)
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        opens.append(measure(rel, text, (at - started) * 1000, diags, anchors))
    await client.shutdown_session()
    await client.stop()
    return opens


# ---------------------------------------------------------------- what one open showed


def measure(rel: str, text: str, ms: float, diags: list[Any], anchors: dict[str, Any]) -> Open:
    from lsprotocol import types

    ours = [d for d in diags if d.source == "forewarn"]
    shown = [d for d in ours if not (isinstance(d.data, dict) and "more" in d.data)]
    heads = [d.message.split("\n")[0] for d in shown]
    warnings = sum(d.severity == types.DiagnosticSeverity.Warning for d in ours)
    line_one = sum(d.range.start.line == 0 for d in shown)
    duplicates = len(heads) - len(set(heads))
    o = Open(rel, round(ms, 2), len(ours), warnings, line_one, len(shown), duplicates, [len(h) for h in heads])
    code = code_lines(text)
    for d in shown:
        data = d.data if isinstance(d.data, dict) else {}
        for mid in data.get("ids") or [data.get("id")]:
            anchor = anchors.get(mid) or {}
            if not anchor.get("file") or anchor["file"] == rel or not anchor.get("symbol"):
                continue
            o.neighbours += 1
            if uses(code, anchor["file"], anchor["symbol"]):
                o.neighbours_used += 1
            else:
                o.unused.append(f"{anchor['file']}::{anchor['symbol']}")
    return o


def code_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if not COMMENT_LINE.match(line)]


def uses(code: list[str], file: str, symbol: str) -> bool:
    """The bench's own judge of "this file uses that definition" (a reviewer's reading, not Forewarn's resolver):
    the definition's name is in the file's code, and the file imports its module or the name, or names the
    class a method belongs to."""
    parts = re.sub(r"#\d+$", "", symbol).split(".")
    name, owner = parts[-1], (parts[-2] if len(parts) > 1 else None)
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    if not any(word.search(line) for line in code):
        return False
    stem = Path(file).stem
    module = Path(file).parent.name if stem in MODULE_FILE_STEMS else stem
    imports = [line for line in code if IMPORT_LINE.match(line)]
    named = re.compile(rf"(?<![\w$]){re.escape(module)}(?![\w$])|(?<![\w$]){re.escape(name)}(?![\w$])")
    if any(named.search(line) for line in imports):
        return True
    if owner is not None:
        cls = re.compile(rf"(?<![\w$]){re.escape(owner)}(?![\w$])")
        return any(cls.search(line) for line in code)
    return False


# ---------------------------------------------------------------- figures


def summary(opens: list[Open]) -> dict[str, Any]:
    counts = [o.diagnostics for o in opens]
    warnings = [o.warnings for o in opens]
    heads = [h for o in opens for h in o.headlines]
    entries = sum(o.memory_entries for o in opens)
    neighbours = sum(o.neighbours for o in opens)
    unused = Counter(u for o in opens for u in o.unused)
    return {
        "opens": len(opens),
        "diagnostics_p50": percentile(counts, 50),
        "diagnostics_p95": percentile(counts, 95),
        "diagnostics_max": max(counts, default=0),
        "warnings_p95": percentile(warnings, 95),
        "warnings_max": max(warnings, default=0),
        "line_one_share": sum(o.line_one for o in opens) / entries if entries else 0.0,
        "duplicate_texts": sum(o.duplicates for o in opens),
        "headline_p50": percentile(heads, 50),
        "headline_p95": percentile(heads, 95),
        "headline_max": max(heads, default=0),
        "neighbours": neighbours,
        "neighbours_used_share": sum(o.neighbours_used for o in opens) / neighbours if neighbours else 1.0,
        "unused_examples": [u for u, _ in unused.most_common(5)],
        "open_ms_p50": percentile([o.ms for o in opens], 50),
        "open_ms_p95": percentile([o.ms for o in opens], 95),
    }


def on_target(s: dict[str, Any]) -> bool:
    return bool(
        s["opens"]
        and s["diagnostics_p95"] <= TARGET_P95_DIAGNOSTICS
        and s["duplicate_texts"] == 0
        and s["neighbours_used_share"] >= 1.0
        and s["headline_p95"] <= TARGET_HEADLINE_P95
        and s["warnings_max"] <= TARGET_MAX_WARNINGS
    )


def report(rows: dict[str, dict[str, Any]]) -> None:
    print()
    print(
        "| corpus | opens | diags p50 / p95 / max | warnings p95 / max | on line 1 | duplicate texts "
        "| headline p50 / p95 / max | neighbours used | open ms p50 / p95 | on target |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, s in rows.items():
        print(
            f"| {name} | {s['opens']} "
            f"| {s['diagnostics_p50']:.0f} / {s['diagnostics_p95']:.1f} / {s['diagnostics_max']} "
            f"| {s['warnings_p95']:.1f} / {s['warnings_max']} | {s['line_one_share']:.0%} | {s['duplicate_texts']} "
            f"| {s['headline_p50']:.0f} / {s['headline_p95']:.0f} / {s['headline_max']} "
            f"| {s['neighbours_used_share']:.0%} of {s['neighbours']} "
            f"| {s['open_ms_p50']:.1f} / {s['open_ms_p95']:.1f} | {'yes' if on_target(s) else 'NO'} |"
        )
    for name, s in rows.items():
        if s["unused_examples"]:
            print(f"{name}: neighbour memories judged unused, most frequent: {', '.join(s['unused_examples'])}")
    print(
        f"\ntargets: diagnostics p95 ≤ {TARGET_P95_DIAGNOSTICS}, 0 duplicate texts, 100% of neighbour memories used, "
        f"headline p95 ≤ {TARGET_HEADLINE_P95} characters, at most {TARGET_MAX_WARNINGS} warnings an open"
    )


if __name__ == "__main__":
    sys.exit(main())
