"""``forewarn explain``: what the team knows about an error (stdin: a traceback, test or compiler output, a log)."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import TYPE_CHECKING, Any

from forewarn.cli import util as cliutil
from forewarn.cli.memory_common import no_workspace
from forewarn.cli.util import CliError
from forewarn.config import load_settings
from forewarn.memory.records import Memory

if TYPE_CHECKING:  # the workspace is imported when a command runs, not when the CLI starts
    from forewarn.workspace.error_text import ErrorReport
    from forewarn.workspace.explaining import ExplainHit, Place

log = logging.getLogger(__name__)

MAX_INPUT_BYTES = 4 * 1024 * 1024  # a log's tail holds the failure; more is read and thrown away
MAX_K = 20
MAX_SHOWN_PLACES = 5  # an error's places shown: the innermost; outer ones are callers' plumbing
MAX_SHOWN_ERRORS = 5  # of a build's several errors: the first ones (the rest most often follow from them)
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
    root = cliutil.workspace_root(args)
    if nothing := no_workspace(args, root):  # run from the wrong folder: say so, and leave no data folder behind
        raise CliError(nothing)
    if sys.stdin.isatty():
        raise CliError("pipe the error into it: some-command 2>&1 | forewarn explain", exit_code=2)
    data = b""
    while chunk := sys.stdin.buffer.read(1 << 20):  # the tail holds the error: keep the last MAX_INPUT_BYTES
        data = (data + chunk)[-MAX_INPUT_BYTES:]
    text = data.decode("utf-8", "replace")
    settings, problems = load_settings(root)
    for problem in problems:
        log.warning("%s", problem)
    with Workspace.open(root, settings, embedder=None if args.lexical else "auto") as ws:
        result = ws.explain_error(text, limit=args.k)
    if args.json:
        cliutil.print_json(explanation_json(result))
        return 0
    if not result.error.found:
        print("No error found in the input (no exception, failed test or compiler message).")
        return 0
    several = len(result.errors) > 1
    carrying = {id(h.place) for h in result.hits if h.place is not None}  # places whose code holds a memory shown
    if several:  # a build's errors, each with its own places
        for n, one in enumerate(result.errors[:MAX_SHOWN_ERRORS], start=1):
            said = cliutil.shown(one.error.signature).removeprefix("error: ")
            print(f"error {n}: {said}")
            _print_places(one.places, carrying)
        if len(result.errors) > MAX_SHOWN_ERRORS:
            print(f"… and {len(result.errors) - MAX_SHOWN_ERRORS} more errors")
    else:
        said = cliutil.shown(result.error.signature)  # a compiler's own "error: …" is not labelled twice
        print(said if said.startswith("error: ") else f"error: {said}")
        _print_places(result.places, carrying)
    if not result.hits:
        closest = f" (closest: {cliutil.shown(result.closest)})" if result.closest else ""
        print(f"No memory explains {'them' if several else 'it'}{closest}.")
        return 0
    for n, hit in enumerate(result.hits, start=1):
        m = hit.memory
        where = _where(m)
        why = _why(hit, f"error {hit.error + 1}" if several else "the error")
        print(f"{n}. {cliutil.shown(m.id)}  {cliutil.shown(m.type)}  {cliutil.shown(where)}  ({why})")
        print(f"    {cliutil.shown(' '.join(m.text.split()))}")
    return 0


def _print_places(places: list[Place], carrying: set[int]) -> None:
    """The innermost MAX_SHOWN_PLACES places, and any further one whose code holds a memory shown below (Gson.java:569
    ``Gson.toJson``, ten frames out), then how many are left unsaid."""
    shown = [p for n, p in enumerate(places) if n < MAX_SHOWN_PLACES or id(p) in carrying]
    for place in shown:
        symbol = f"  {place.label}" if place.label else ""  # no ``#2``: its lines say which same-named one
        line = f":{place.line}" if place.line else ""
        print(f"  through {cliutil.shown(place.file + line + symbol)}")
    if len(places) > len(shown):
        print(f"  … and {len(places) - len(shown)} more places")


def _why(hit: ExplainHit, error: str) -> str:
    """How the error (``the error``, ``error 2``) found a memory."""
    if hit.place is None:
        return f"matches {error}'s words"
    return f"on code {error} went through" + (", and matches its words" if hit.by_words else "")


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
    """``error``: the first error (the only one, but for a build's several); ``errors``: each, with its places;
    ``places``: all of them; each memory's ``error_index``: the error in ``errors`` that found it."""
    return {
        "error": _error_json(result.error),
        "errors": [{**_error_json(one.error), "places": _places_json(one.places)} for one in result.errors],
        "places": _places_json(result.places),
        "places_left_out": result.places_left_out,  # past the definitions read for memories: listed, not looked up
        "memories": [
            {
                **h.memory.to_dict(),
                "score": round(h.score, 6),
                "on_trace": h.place is not None,
                "by_words": h.by_words,
                "error_index": h.error,
            }
            for h in result.hits
        ],
        "mode": result.mode,
        "closest": result.closest,
    }


def _error_json(err: ErrorReport) -> dict[str, Any]:
    return {
        "kind": err.kind,
        "message": err.message,
        "signature": err.signature,
        "frames": [{"path": f.path, "line": f.line, "function": f.function} for f in err.frames],
    }


def _places_json(places: list[Place]) -> list[dict[str, Any]]:
    return [{"file": p.file, "symbol": p.symbol, "label": p.label, "line": p.line} for p in places]
