"""``forewarn remember``, ``forewarn search`` and ``forewarn memory …``.

Each command opens the workspace's ``Workspace``, does one thing and closes it. Commands that
only read or change a memory's status open it without the embedder (loading a model costs time and
changes nothing for them); those that write text or search load it, falling back to lexical search
with a note on stderr when no model is installed.

What the commands share lives beside this module: ``memory_common.py`` (flags, opening the workspace),
``memory_render.py`` (how a memory is printed and put in JSON) and ``memory_transfer.py`` (export, import,
diff, recover). This module keeps the parser and the other handlers.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from forewarn import paths
from forewarn.cli import adopt
from forewarn.cli import util as cliutil
from forewarn.cli.memory_common import _common, _usage, no_workspace
from forewarn.cli.memory_common import _engine as _open_engine
from forewarn.cli.memory_render import (
    _anchor_text,
    _as_of,
    _chunk_json,
    _event_text,
    _one_line,
    _print_memory_full,
    _print_memory_line,
    code_name,
    memory_json,
    print_proposed_change,
    shared_notes,
)
from forewarn.cli.memory_transfer import run_diff, run_export, run_import, run_recover
from forewarn.cli.util import CliError
from forewarn.errors import ForewarnError
from forewarn.memory import contradictions
from forewarn.memory.errors import MemoryNotFoundError
from forewarn.memory.records import Memory
from forewarn.memory.store import CURRENT_STATUSES, MEMORY_TYPES, SOURCES, STATUSES
from forewarn.memory.suggestions import WORTH_A_LOOK_WEIGHS, suggestion_score, track_line, worth_a_look
from forewarn.memory.text import from_iso, to_iso
from forewarn.memory.vocabulary import MemoryStatus, Visibility
from forewarn.workspace import relocation

LIST_LIMIT = 50  # memories `memory list` prints by default: a screenful or two; the rest are counted, and paged
UNMATCHED_CODE_FILES = 3  # code nothing matched is only the nearest: a few files, not a page (D25)


@contextmanager
def _engine(args: argparse.Namespace, *, embedder: bool, says_mode: bool = False, reads: bool = False) -> Iterator[Any]:
    """The workspace (``memory_common._engine``); a memory looked for and not found in a workspace holding none
    says, on its one error line, which workspace that was (:func:`_empty_hint`)."""
    with _open_engine(args, embedder=embedder, says_mode=says_mode, reads=reads) as engine:
        try:
            yield engine
        except MemoryNotFoundError as exc:
            hint = _empty_hint(args, engine)
            if hint is None:
                raise
            raise type(exc)(f"{exc}: {hint}") from exc


def _say_if_empty(args: argparse.Namespace, engine: Any) -> None:
    """QA pass 9a, F10: run from the wrong folder, a read finds a new, empty workspace and answers "nothing": one
    line on stderr names the workspace used and how to choose another (:func:`_empty_hint`)."""
    hint = _empty_hint(args, engine)
    if hint is not None:
        print(f"forewarn: {hint}", file=sys.stderr)


def _empty_hint(args: argparse.Namespace, engine: Any) -> str | None:
    """Which workspace was used, when it holds no memories at all; None when it holds some. Nothing is created to
    say it; a moved workspace's own hint (``relocation.hint``, said on opening) is not said twice."""
    if engine.store.count() > 0 or relocation.hint(engine.root) is not None:
        return None
    where = cliutil.shown(engine.root)
    if getattr(args, "workspace", None) is None:
        return f"workspace {where} (found from the current folder) holds no memories; for another, give -w DIR"
    return f"workspace {where} (-w) holds no memories; is it the right folder?"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this module's subcommands to the forewarn parser."""
    p = sub.add_parser("remember", help="store something your team learned the hard way")
    p.add_argument("text", help="the memory (secrets are redacted before storage)")
    p.add_argument("--type", default="note", choices=MEMORY_TYPES, help="kind of memory (default: note)")
    p.add_argument("--file", help="anchor to this file (workspace-relative or absolute)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--symbol", help="anchor to this symbol of --file (e.g. Class.method)")
    where.add_argument("--line", type=cliutil.int_in(1), help="anchor to the definition holding this line of --file")
    p.add_argument("--tag", action="append", default=[], help="a label (repeatable)")
    p.add_argument("--source", default="user", choices=SOURCES, help="who says so (sets trust; default: user)")
    p.add_argument(
        "--private", action="store_true", help="yours alone: never exported to the team's shared file (shown with 🔒)"
    )
    _common(p, json_flag=True)
    p.set_defaults(handler=run_remember)

    p = sub.add_parser("search", help="search memories (and code) by meaning and words")
    p.add_argument("query")
    p.add_argument(
        "-k", type=cliutil.int_in(1), default=10, help="memories, and code files, to return (default 10 each)"
    )
    p.add_argument("--as-of", help="search as of this ISO time: later memories ignored, recency judged then")
    p.add_argument("--since", help="only memories created at or after this ISO time")
    p.add_argument("--type", action="append", default=[], choices=MEMORY_TYPES, help="only this type (repeatable)")
    p.add_argument("--file", help="only memories anchored to this file or folder")
    p.add_argument(
        "--status", action="append", default=[], choices=STATUSES, help="only this status (default: current ones)"
    )
    p.add_argument("--lexical", action="store_true", help="words only: skip the embedding model")
    p.add_argument("--suggested", action="store_true", help="include suggestions mined from history (unreviewed)")
    p.add_argument("--code-only", action="store_true", help="only code: the files that match, best chunk first")
    p.add_argument("--tests", action="store_true", help="rank test files like other code (default: below it)")
    _common(p, json_flag=True)
    p.set_defaults(handler=run_search)

    mem = sub.add_parser("memory", help="list, inspect, supersede, forget, restore, import and export memories")
    msub = mem.add_subparsers(dest="memory_command", metavar="SUBCOMMAND")
    mem.set_defaults(handler=lambda args: _usage(mem))

    p = msub.add_parser("list", help="list memories, newest first")
    p.add_argument("--type", action="append", default=[], choices=MEMORY_TYPES)
    p.add_argument(
        "--file",
        help="only memories anchored to this file or folder; for a file, then those on the definitions it uses "
        "from other files (everything its diagnostics count)",
    )
    p.add_argument("--status", action="append", default=[], choices=STATUSES, help="default: current ones")
    p.add_argument("--all", action="store_true", help="every status, history included")
    p.add_argument(
        "--limit", type=cliutil.int_in(1), default=LIST_LIMIT, help=f"at most this many (default {LIST_LIMIT})"
    )
    p.add_argument("--offset", type=cliutil.int_in(0), default=0, help="skip this many first (to page)")
    _common(p, json_flag=True)
    p.set_defaults(handler=run_list)

    for name, helptext, handler in (
        ("show", "show one memory", run_show),
        ("history", "a memory's supersession chain and events", run_history),
        ("forget", "archive a memory (restorable; --purge removes its text for good)", run_forget),
        ("restore", "bring back a forgotten memory", run_restore),
        ("confirm", "mark a memory as still true (clears staleness)", run_confirm),
        ("outdated", "mark a memory as possibly outdated", run_outdated),
    ):
        p = msub.add_parser(name, help=helptext)
        p.add_argument("id", help="memory id (or a unique prefix of it)")
        if name == "forget":
            p.add_argument(
                "--purge", action="store_true",
                help="remove the text for good (database, search index, vectors, history details); history keeps "
                "only that it was purged. Not restorable. Teammates' copies are theirs to purge",
            )  # fmt: skip
        _common(p, json_flag=True)
        p.set_defaults(handler=handler)

    review = msub.add_parser("review", help="review suggestions mined from history: list, accept, dismiss")
    review.add_argument("--file", help="only suggestions anchored to this file or folder")
    review.add_argument("--limit", type=cliutil.int_in(1), default=None, help="show at most this many (best first)")
    review.add_argument(
        "--accept-all", action="store_true", help="accept every listed suggestion unread (read them first instead)"
    )
    _common(review, json_flag=True)
    review.set_defaults(handler=run_review)
    rsub = review.add_subparsers(dest="review_command", metavar="ACTION")
    p = rsub.add_parser("accept", help="accept suggestions: they become active memories")
    p.add_argument("ids", nargs="+", metavar="ID", help="suggestion ids (or unique prefixes)")
    p.add_argument("--text", help="the memory's text as you would put it (one id only)")
    _common(p, json_flag=True)
    p.set_defaults(handler=run_review_accept)
    p = rsub.add_parser("dismiss", help="dismiss suggestions: never proposed again, kept as history")
    p.add_argument("ids", nargs="+", metavar="ID", help="suggestion ids (or unique prefixes)")
    _common(p, json_flag=True)
    p.set_defaults(handler=run_review_dismiss)

    p = msub.add_parser(
        "reanchor", help="anchor a memory to another definition (an orphan whose code moved; a wrong guess)"
    )
    p.add_argument("id", help="memory id (or a unique prefix of it)")
    p.add_argument("--file", required=True, help="the file the memory is about now")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--symbol", help="the definition in it (Class.method); neither this nor --line: the whole file")
    where.add_argument("--line", type=cliutil.int_in(1), help="a line inside the definition")
    _common(p, json_flag=True)
    p.set_defaults(handler=run_reanchor)

    p = msub.add_parser(
        "resolve",
        help="settle two memories that contradict each other: ID replaces the other, both hold, or mark them contested",
    )
    p.add_argument("id", help="memory id (or a unique prefix of it); with --replace, the one that stands")
    p.add_argument(
        "--with", dest="other", metavar="OTHER",
        help="the memory it contradicts (default: the only one `remember` or a contested mark paired it with)",
    )  # fmt: skip
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--replace", dest="resolution", action="store_const", const="replace",
                     help="ID stands; the other is superseded by it (kept as history)")  # fmt: skip
    how.add_argument("--both", dest="resolution", action="store_const", const="both",
                     help="both hold: recorded, and the pair is never flagged again")  # fmt: skip
    how.add_argument("--contested", dest="resolution", action="store_const", const="contested",
                     help="not settled: both show as warnings until someone resolves them")  # fmt: skip
    _common(p, json_flag=True)
    p.set_defaults(handler=run_resolve)

    p = msub.add_parser("supersede", help="replace a memory with a corrected one (the old one stays as history)")
    p.add_argument("id")
    p.add_argument("text")
    p.add_argument("--type", choices=MEMORY_TYPES, help="change the type too")
    _common(p, json_flag=True)
    p.set_defaults(handler=run_supersede)

    p = msub.add_parser(
        "export",
        help="write memories to JSONL (default <workspace>/.forewarn/memories.jsonl); forgotten ones are left out",
    )
    p.add_argument("path", nargs="?", type=Path)
    p.add_argument(
        "--include-archived", action="store_true",
        help="write forgotten (archived) memories too (purged ones never: their text is gone)",
    )  # fmt: skip
    _common(p, json_flag=True)
    p.set_defaults(handler=run_export)

    p = msub.add_parser(
        "import",
        help="merge memories from JSONL by id (`-`: standard input): what it adds or changes waits for your review "
        "(memory review) unless --accept; newer wins and the replaced version is kept in history; every field is "
        "checked as `remember` checks it, and a file with a bad line is refused whole",
    )
    p.add_argument("path", nargs="?", type=Path)
    p.add_argument(
        "--accept", action="store_true",
        help="take what the file adds or changes as it is, without review (as `[team] accept_imports = true` in "
        "your own config.toml does); for a file you trust, e.g. CI importing the base branch's file",
    )  # fmt: skip
    p.add_argument("--dry-run", action="store_true", help="show what would change, per memory, and write nothing")
    p.add_argument("--skip-invalid", action="store_true", help="import the good lines; report and skip the bad ones")
    _common(p, json_flag=True)
    p.set_defaults(handler=run_import)

    p = msub.add_parser(
        "diff",
        help="memories added, changed, superseded or forgotten in .forewarn/memories.jsonl since a git ref "
        "(the file at REF against the file in the work tree)",
    )
    p.add_argument("ref", metavar="REF", help="a commit, branch or tag (e.g. main, HEAD~5, v1.2)")
    _common(p, json_flag=True)
    p.set_defaults(handler=run_diff)

    p = msub.add_parser(
        "recover", help="salvage a damaged memory database (the original is moved aside and kept, never deleted)"
    )
    _common(p, json_flag=True)
    p.set_defaults(handler=run_recover)

    adopt.register(msub)


# ---------------------------------------------------------------- handlers


def run_remember(args: argparse.Namespace) -> int:
    if (args.symbol or args.line) and not args.file:
        raise cliutil.UsageError("--symbol and --line need --file")
    with _engine(args, embedder=True) as engine:
        result = engine.remember(
            args.text, type=args.type, file=args.file, symbol=args.symbol, line=args.line, tags=args.tag,
            source=args.source, private=args.private,
        )  # fmt: skip
    if args.json:
        cliutil.print_json(
            {
                "id": result.memory.id,
                "merged": result.merged,
                "memory": memory_json(result.memory),
                "candidates": [memory_json(c) for c in result.candidates],
                "conflicts": [{**memory_json(c.memory), "cues": list(c.cues)} for c in result.conflicts],
                "redacted": result.redacted,
            }
        )
        return 0
    verb = "Reinforced existing memory" if result.merged else "Remembered"
    private = ", 🔒 private" if result.memory.visibility == Visibility.PRIVATE else ""
    print(f"{verb} {result.memory.id} ({result.memory.type}, {_anchor_text(result.memory)}{private})")
    if result.redacted:
        print(f"Redacted before storage: {', '.join(sorted(set(result.redacted)))}")
    if result.conflicts:
        print("It seems to contradict:")
        for c in result.conflicts:
            _print_memory_line(c.memory, f"  ({contradictions.describe(c.cues)})")
        mine, other = result.memory.id, result.conflicts[0].memory.id if len(result.conflicts) == 1 else "OTHER"
        print(
            f"Resolve: forewarn memory resolve {mine} --with {other} --replace (it replaces the other), "
            "--both (both hold; not asked again) or --contested (both shown as warnings until resolved)"
        )
    return 0


def _time_flag(flag: str, value: str | None) -> None:
    """``--as-of``/``--since``: a readable ISO time no earlier than 1970, when the oldest possible memory was made."""
    if value is None:
        return
    try:
        epoch = from_iso(value)
    except ValueError as exc:
        raise cliutil.UsageError(f"{flag}: {exc}") from None
    if epoch < 0:
        raise cliutil.UsageError(f"{flag} {value} is before 1970, older than any memory can be; give a later time")


def run_search(args: argparse.Namespace) -> int:
    if not args.query.strip():  # before the workspace opens: nothing to look for is the command line's fault
        raise cliutil.UsageError("the search query is empty; say what you are looking for")
    _time_flag("--as-of", args.as_of)
    _time_flag("--since", args.since)
    with _engine(args, embedder=not args.lexical, says_mode=True, reads=True) as engine:
        engine.reindex()  # incremental: code chunks and anchors reflect the code as it is now
        result = engine.search(
            args.query, k=args.k, types=args.type, file=args.file, statuses=args.status or CURRENT_STATUSES,
            since=args.since, as_of=args.as_of, lexical_only=args.lexical, include_suggestions=args.suggested,
            code_only=args.code_only, include_tests=True if args.tests else None,
        )  # fmt: skip
        memories = [h.memory for h in result.memories]
        then = _as_of(engine, memories, args.as_of) if args.as_of else {}
        existed = None
        if args.as_of and not memories:  # said apart: nothing had been written yet then
            existed = engine.count_memories(statuses=STATUSES, as_of=to_iso(from_iso(args.as_of)))
    message = result.no_memory_message()
    if existed == 0:
        message = f"No memory matches: none existed yet as of {args.as_of}."
    if args.json:
        cliutil.print_json(
            {
                "mode": result.mode,
                "reason": paths.model_hint(result.reason),
                "memories": [memory_json(h.memory, h.score, then.get(h.memory.id)) for h in result.memories],
                "message": None if result.memories or args.code_only else message,
                "files": [
                    {
                        "file": f.file,
                        "score": round(f.score, 6),
                        "is_test": f.is_test,
                        "chunks": [_chunk_json(c.chunk, c.score) for c in f.chunks],
                    }
                    for f in result.files
                ],
                "chunks": [_chunk_json(c.chunk, c.score) for c in result.chunks],
                "code_matched": result.code_matched,
                "timings_ms": {
                    "lexical": round(result.timings.lexical_ms, 2),
                    "embed": round(result.timings.embed_ms, 2),
                    "vector": round(result.timings.vector_ms, 2),
                    "code": round(result.timings.code_ms, 2),
                    "rank": round(result.timings.rank_ms, 2),
                },
            }
        )
        return 0
    if result.mode == "lexical":
        print(f"forewarn: searched by words only: {paths.model_hint(result.reason)}", file=sys.stderr)
    if not args.code_only:
        if not result.memories:
            print(cliutil.shown(message))
        if then and result.memories:
            print(f"As of {cliutil.shown(args.as_of)}: status and age as they were then.")
        for h in result.memories:
            _print_memory_line(h.memory, f"  score {h.score:.4f}", then.get(h.memory.id))
    if result.files:
        # D25: code found for a query nothing matches is the nearest code, and says so
        title = "Code:" if result.code_matched else "No code matches closely; the nearest:"
        print(title if args.code_only else "\n" + title)
        for f in result.files if result.code_matched else result.files[:UNMATCHED_CODE_FILES]:
            best = f.chunks[0].chunk if f.chunks else None
            line = f":{best.start_line}" if best is not None else ""
            test = "  (test)" if f.is_test else ""
            print(f"  {cliutil.shown(f.file + line)}{test}")
            for c in f.chunks:
                where = cliutil.shown(f"{c.chunk.start_line}-{c.chunk.end_line}  {code_name(c.chunk)}")
                print(f"      {where}  {_one_line(c.chunk.signature, 80)}")
    elif args.code_only:
        print("No code matches.")
    return 0


def _not_here(args: argparse.Namespace) -> str | None:
    """Why the workspace a read would open is none (``no_workspace``): said instead of creating its data folder."""
    return no_workspace(args, cliutil.workspace_root(args))


def run_list(args: argparse.Namespace) -> int:
    statuses = STATUSES if args.all else (tuple(args.status) or CURRENT_STATUSES)
    if (nothing := _not_here(args)) is not None:  # as an empty workspace answers, and which folder that was
        print(f"forewarn: {nothing}", file=sys.stderr)
        if args.json:
            cliutil.print_json([])
        else:
            print("No memories.")
        return 0
    with _engine(args, embedder=False) as engine:
        memories = engine.list_memories(
            types=args.type, file=args.file, statuses=statuses, limit=args.limit, offset=args.offset
        )
        total = engine.count_memories(types=args.type, file=args.file, statuses=statuses)
        used = _used_by(engine, args) if args.file else []
        if total == 0 and not used:
            _say_if_empty(args, engine)
    left = total - args.offset - len(memories)
    more = f"… {left} more of {total} (next: --offset {args.offset + len(memories)}, or a larger --limit)"
    if args.json:
        uses = [{**memory_json(h.memory), "used_at": h.line} for h in used]  # the line of --file using its code
        cliutil.print_json([memory_json(m) for m in memories] + uses)
        if left > 0:
            print(f"forewarn: {more}", file=sys.stderr)  # stdout stays the list a program reads
        return 0
    if not memories and not used:
        print("No memories." if total == 0 else f"No memories past --offset {args.offset} ({total} in all).")
    for m in memories:
        _print_memory_line(m)
    if left > 0:
        print(more)
    if used:
        print(f"\nOn definitions {cliutil.shown(engine.lookup_path(args.file))} uses from other files:")
        for h in used:
            _print_memory_line(h.memory, f"  (used at line {h.line})" if h.line else "")
    return 0


def _used_by(engine: Any, args: argparse.Namespace) -> list[Any]:
    """For ``--file`` naming a file: the memories on the definitions it uses from other files, as its open
    considers them (current ones only; filtered by ``--type``)."""
    rel = engine.lookup_path(args.file)
    if args.all or args.status or not (engine.root / rel).is_file():
        return []
    return [h for h in engine.used_memories(rel) if not args.type or h.memory.type in args.type]


def run_review(args: argparse.Namespace) -> int:
    if (nothing := _not_here(args)) is not None:  # as an empty queue answers, and which folder that was
        print(f"forewarn: {nothing}", file=sys.stderr)
        if args.json:
            cliutil.print_json({"suggestions": [], "worth_a_look": 0, "total": 0, "accepted": [], "not_accepted": []})
        else:
            print("Accepted 0 suggestion(s)." if args.accept_all else "No suggestions to review.")
        return 0
    with _engine(args, embedder=False) as engine:
        waiting = engine.suggestions(args.file)  # all of them: --limit shows the best, the counts say how many
        if not waiting:
            _say_if_empty(args, engine)
        pending = waiting if args.limit is None else waiting[: args.limit]
        now = engine.clock()
        changes = {m.id: c for m in waiting if (c := engine.proposed_change(m)) is not None}
        worth = sum(1 for m in waiting if worth_a_look(m))  # they lead the queue (rank_suggestions): the first N
        accepted: list[Memory] = []
        failed: list[tuple[str, str]] = []  # one that cannot be accepted (a stale proposal…) stops none of the rest
        for m in pending if args.accept_all else []:
            try:
                accepted.append(engine.accept_suggestion(m.id))
            except ForewarnError as exc:
                failed.append((m.id, cliutil.shown(exc)))
    if args.json:
        cliutil.print_json(
            {
                "suggestions": [
                    {
                        **_review_json(m, changes.get(m.id)),
                        "value": round(suggestion_score(m, now), 4),
                        "worth_a_look": worth_a_look(m),
                    }
                    for m in pending
                ],
                "worth_a_look": worth,
                "total": len(waiting),
                "accepted": [m.id for m in accepted],
                "not_accepted": [{"id": mid, "why": why} for mid, why in failed],
            }
        )
        return 1 if failed else 0
    if args.accept_all:
        print(f"Accepted {len(accepted)} suggestion(s).")
        for mid, why in failed:
            print(f"forewarn: not accepted {mid}: {why}", file=sys.stderr)
        return 1 if failed else 0
    if not pending:
        print("No suggestions to review.")
        return 0
    for i, m in enumerate(pending):
        if i == worth > 0:  # where the part worth a look ends
            print(f"  — the rest: {len(waiting) - worth}, less likely worth a look —")
        _print_memory_line(m)
        if (record := track_line(m.provenance)) is not None:
            print(f"    {_one_line(record)}")
        for note in shared_notes(m):
            print(f"    {note}")
        if m.id in changes:
            print_proposed_change(changes[m.id])
    shown = (
        f"{len(pending)} of {len(waiting)} suggestions shown"
        if len(pending) < len(waiting)
        else (f"{len(pending)} suggestion(s)")
    )
    lead = ""
    if 0 < worth < len(waiting):  # say which: they are the first ones, the line under them where it is shown
        lead = "They lead the list, above the line. " if worth < len(pending) else "They lead the list. "
    print(
        f"\n{shown}, best first; {worth} worth a look ({WORTH_A_LOOK_WEIGHS}). {lead}"
        "Read each, then: forewarn memory review accept ID… [--text T] | dismiss ID…"
    )
    return 0


def _review_json(m: Memory, change: Any) -> dict[str, Any]:
    """A suggestion as review --json and show --json give it: a proposal with what accepting it changes."""
    return {
        **memory_json(m),
        "proposal": change.to_dict() if change is not None else None,
        "replaces": change.target if change is not None else None,
        "shared_notes": shared_notes(m),
    }


def run_review_accept(args: argparse.Namespace) -> int:
    if args.text is not None and len(args.ids) != 1:
        raise cliutil.UsageError("--text edits one suggestion: give exactly one id with it")
    with _engine(args, embedder=args.text is not None) as engine:
        done = [engine.accept_suggestion(i, text=args.text) for i in args.ids]
    return _reviewed(args, done, "Accepted")


def run_review_dismiss(args: argparse.Namespace) -> int:
    with _engine(args, embedder=False) as engine:
        already = {m.id for i in args.ids if (m := engine.get(i)).status == MemoryStatus.DISMISSED}
        done = [engine.dismiss_suggestion(i) for i in args.ids]
    if args.json:
        return _reviewed(args, done, "Dismissed")
    for m in done:
        verb = "Already dismissed" if m.id in already else "Dismissed"
        print(f"{verb} {cliutil.shown(m.id)}: {_one_line(m.text, 70)}")
    return 0


def _reviewed(args: argparse.Namespace, done: list[Memory], verb: str) -> int:
    if args.json:
        cliutil.print_json([memory_json(m) for m in done])
        return 0
    for m in done:
        print(f"{verb} {cliutil.shown(m.id)}: {_one_line(m.text, 70)}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    if (nothing := _not_here(args)) is not None:
        raise CliError(f"no memory with id '{args.id}': {nothing}")
    with _engine(args, embedder=False) as engine:
        m = engine.get(args.id)
        events = engine.store.events(m.id)
        change = engine.proposed_change(m) if m.status == MemoryStatus.SUGGESTED else None
    if args.json:
        data = _review_json(m, change)
        data["events"] = [e.to_dict() for e in events]
        cliutil.print_json(data)
        return 0
    _print_memory_full(m)
    for note in shared_notes(m):
        print(f"shared:     {note}")
    if change is not None:
        print("\nProposal:")
        print_proposed_change(change, indent="  ")
    if events:
        print("\nHistory:")
        for e in events:
            print(f"  {cliutil.shown(e.at)}  {cliutil.shown(_event_text(e))}")
    return 0


def run_history(args: argparse.Namespace) -> int:
    if (nothing := _not_here(args)) is not None:
        raise CliError(f"no memory with id '{args.id}': {nothing}")
    with _engine(args, embedder=False) as engine:
        history = engine.history(args.id)
    if args.json:
        cliutil.print_json(
            [{**memory_json(m), "events": [e.to_dict() for e in history.events.get(m.id, [])]} for m in history.chain]
        )
        return 0
    for i, m in enumerate(history.chain):
        marker = "current" if m.status in CURRENT_STATUSES else m.status
        print(f"{i + 1}. {cliutil.shown(f'{m.id}  {m.type}  [{marker}]  {m.created_at}')}")
        print(f"    {_one_line(m.text)}")
        for e in history.events.get(m.id, []):
            print(f"      {cliutil.shown(e.at)}  {cliutil.shown(_event_text(e))}")
            if e.detail.get("diff"):  # what changed in the code it describes (stale, revived)
                for line in str(e.detail["diff"]).splitlines():
                    print(f"          {cliutil.shown(line)}")
    return 0


def _status_change(args: argparse.Namespace, action: str) -> int:
    with _engine(args, embedder=False) as engine:
        m = getattr(engine, action)(args.id)
    if args.json:
        cliutil.print_json({"id": m.id, "status": m.status, **({"purged": True} if action == "purge" else {})})
    elif action == "purge":
        print(f"{m.id} is now {m.status}, its text purged (history keeps only that it was purged)")
    else:
        print(f"{m.id} is now {m.status}")
        if action == "forget":  # archived, not deleted: say how it comes back
            print(f"restore it with: forewarn memory restore {cliutil.shown(m.id)}")
    return 0


def run_forget(args: argparse.Namespace) -> int:
    return _status_change(args, "purge" if args.purge else "forget")


def run_restore(args: argparse.Namespace) -> int:
    return _status_change(args, "restore")


def run_confirm(args: argparse.Namespace) -> int:
    return _status_change(args, "confirm")


def run_outdated(args: argparse.Namespace) -> int:
    return _status_change(args, "mark_stale")


def run_reanchor(args: argparse.Namespace) -> int:
    from forewarn.workspace.symbols import spoken_symbol

    with _engine(args, embedder=False) as engine:
        m = engine.reanchor(args.id, args.file, args.symbol, line=args.line)
    a = m.anchor
    if args.json:
        cliutil.print_json({"id": m.id, "status": m.status, "memory": memory_json(m)})
    else:
        where = "the workspace" if a is None else a.file
        if a is not None and a.symbol:
            where += f"::{spoken_symbol(a.symbol, a.file)}"
        print(cliutil.shown(f"{m.id} is now anchored to {where} ({m.status})"))
    return 0


def run_resolve(args: argparse.Namespace) -> int:
    with _engine(args, embedder=args.other is None) as engine:
        other = args.other
        if other is None:
            me = engine.get(args.id)
            paired = engine.contested_with([me.id]).get(me.id) or [c.memory for c in engine.conflicts(me.id)]
            if not paired:
                raise CliError(f"memory {me.id} contradicts no current memory; name the other one with --with")
            if len(paired) > 1:
                listing = ", ".join(f"{m.id} ({_one_line(m.text, 40)})" for m in paired[:5])
                raise CliError(f"memory {me.id} contradicts several memories; pick one with --with: {listing}")
            other = paired[0].id
        kept, theirs = engine.resolve_conflict(args.id, other, args.resolution)
    if args.json:
        cliutil.print_json({"resolution": args.resolution, "memory": memory_json(kept), "other": memory_json(theirs)})
        return 0
    said = {
        "replace": f"{kept.id} stands; {theirs.id} is superseded by it (kept as history)",
        "both": f"both hold: {kept.id} and {theirs.id} will not be flagged as contradicting again",
        "contested": f"{kept.id} and {theirs.id} are contested: both show as warnings until someone resolves them "
        f"(forewarn memory resolve {kept.id} --with {theirs.id} --replace|--both)",
    }[args.resolution]
    print(cliutil.shown(said))
    return 0


def run_supersede(args: argparse.Namespace) -> int:
    with _engine(args, embedder=True) as engine:
        new = engine.supersede(args.id, args.text, type=args.type)
    if args.json:
        cliutil.print_json({"id": new.id, "superseded": new.supersedes, "memory": memory_json(new)})
    else:
        print(f"{new.id} supersedes {new.supersedes} (the old memory stays as history)")
    return 0
