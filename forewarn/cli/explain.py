"""``forewarn explain``: what the team knows about an error (stdin: a traceback, test or compiler output, a log)."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from forewarn.cli import util as cliutil
from forewarn.cli.util import CliError
from forewarn.config import load_settings
from forewarn.memory.records import Memory

log = logging.getLogger(__name__)

MAX_INPUT_BYTES = 4 * 1024 * 1024  # a log's tail holds the failure; more is read and thrown away
MAX_K = 20
# what `forewarn explain --help` says
DESCRIPTION = """\
What the team knows about an error: pipe a traceback, test or compiler output, or a log into it.

    pytest 2>&1 | forewarn explain
    forewarn explain --json < build.log

Prints the error's signature (its type and message, numbers, paths and ids left out), where it went through
this workspace's code, and the error patterns, gotchas and dead ends that explain it, best first; nothing when
none does (the relevance floor holds back memories that merely share a word)."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "explain",
        help="what the team knows about an error: pipe a traceback, test or compiler output into it",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cliutil.add_workspace_flag(p)
    cliutil.add_json_flag(p)
    p.add_argument("-k", type=int, default=5, help=f"most memories to show (1-{MAX_K}; default 5)")
    p.add_argument("--lexical", action="store_true", help="search by words only (no embedding model)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from forewarn.workspace.engine import Workspace

    if not 1 <= args.k <= MAX_K:
        raise CliError(f"-k {args.k} is outside 1-{MAX_K}", exit_code=2)
    if sys.stdin.isatty():
        raise CliError("pipe the error into it: some-command 2>&1 | forewarn explain", exit_code=2)
    data = b""
    while chunk := sys.stdin.buffer.read(1 << 20):  # the tail holds the error: keep the last MAX_INPUT_BYTES
        data = (data + chunk)[-MAX_INPUT_BYTES:]
    text = data.decode("utf-8", "replace")
    root = cliutil.workspace_root(args)
    settings, problems = load_settings(root)
    for problem in problems:
        log.warning("%s", problem)
    with Workspace.open(root, settings, embedder=None if args.lexical else "auto") as ws:
        result = ws.explain_error(text, limit=args.k)
    if args.json:
        cliutil.print_json(explanation_json(result))
        return 0
    err = result.error
    if not err.found:
        print("No error found in the input (no exception, failed test or compiler message).")
        return 0
    said = cliutil.shown(err.signature)  # a compiler's own "error: …" is not labelled twice ("error: error: …")
    print(said if said.startswith("error: ") else f"error: {said}")
    for place in result.places[:5]:
        symbol = f"  {place.label}" if place.label else ""  # no ``#2``: its lines say which same-named one
        line = f":{place.line}" if place.line else ""
        print(f"  through {cliutil.shown(place.file + line + symbol)}")
    if not result.hits:
        closest = f" (closest: {cliutil.shown(result.closest)})" if result.closest else ""
        print(f"No memory explains it{closest}.")
        return 0
    for n, hit in enumerate(result.hits, start=1):
        m = hit.memory
        where = _where(m)
        why = "on code the error went through" if hit.place is not None else "matches the error's words"
        if hit.place is not None and hit.by_words:
            why = "on code the error went through, and matches its words"
        print(f"{n}. {cliutil.shown(m.id)}  {cliutil.shown(m.type)}  {cliutil.shown(where)}  ({why})")
        print(f"    {cliutil.shown(' '.join(m.text.split()))}")
    return 0


def _where(m: Memory) -> str:
    """Where a memory sits, as ``memory list`` says it: ``file::Node.before (lines 403-412)``, never ``#2``."""
    from forewarn.workspace.symbols import symbol_label

    a = m.anchor
    if a is None:
        return "(workspace)"
    return a.file + (
        f"::{symbol_label(a.symbol, a.start_line, a.end_line, namesakes=True, file=a.file)}" if a.symbol else ""
    )


def explanation_json(result: Any) -> dict[str, Any]:
    err = result.error
    return {
        "error": {
            "kind": err.kind,
            "message": err.message,
            "signature": err.signature,
            "frames": [{"path": f.path, "line": f.line, "function": f.function} for f in err.frames],
        },
        "places": [{"file": p.file, "symbol": p.symbol, "label": p.label, "line": p.line} for p in result.places],
        "memories": [
            {**h.memory.to_dict(), "score": round(h.score, 6), "on_trace": h.place is not None, "by_words": h.by_words}
            for h in result.hits
        ],
        "mode": result.mode,
        "closest": result.closest,
    }
