"""``forewarn memory export / import / diff / recover``: the team's shared file in and out, what changed in it since a
git ref, and recovering a damaged memory database."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from forewarn import paths
from forewarn.cli import util as cliutil
from forewarn.cli.memory_common import _engine
from forewarn.cli.memory_render import _anchor_text, _one_line
from forewarn.cli.util import CliError
from forewarn.memory import export_diff, shared_file, transfer


@contextmanager
def _path_errors(verb: str, path: Path | None) -> Iterator[None]:
    """An unusable export/import path is a one-line error, not a traceback."""
    try:
        yield
    except OSError as exc:
        raise CliError(f"cannot {verb} {exc.filename or path}: {exc.strerror or exc}") from exc


def run_recover(args: argparse.Namespace) -> int:
    from forewarn.memory.recovery import recover_memory_db

    root = cliutil.workspace_root(args)
    report = recover_memory_db(
        paths.workspace_dir(root) / "memory.db", progress=lambda line: print(f"forewarn: {line}", file=sys.stderr)
    )
    if args.json:
        cliutil.print_json(
            {
                "path": str(report.path),
                "corrupt": report.corrupt,
                "moved_to": str(report.moved_to) if report.moved_to else None,
                "recovered": report.recovered,
                "unreadable": report.unreadable,
                "lost_memory_ids": report.lost_memory_ids,
                "counts_exact": report.counts_exact,
                "damaged_pages": report.damaged_pages,
                "method": report.method,
                "problems": report.problems,
                "message": report.message(),
            }
        )
    else:
        print(report.message())
    return 1 if report.corrupt and not report.memories else 0


def run_export(args: argparse.Namespace) -> int:
    with _engine(args, embedder=False) as engine, _path_errors("write", args.path):
        report = engine.export(args.path, include_archived=args.include_archived)
    if args.json:
        cliutil.print_json(report.to_dict())
    else:
        left = f" ({_left_out(report.left_out_by)} left out)" if report.left_out else ""
        left += f" ({report.private} private kept out)" if report.private else ""
        noun = "memory" if report.exported == 1 else "memories"
        print(f"Exported {report.exported} {noun} to {report.path}{left}")
    return 0


# How the export line names each reason a memory was left out, in the order it lists them.
_LEFT_OUT_WORDS = {
    transfer.LeftOut.SUGGESTED: ("suggested", "suggested"),
    transfer.LeftOut.DISMISSED: ("dismissed", "dismissed"),
    transfer.LeftOut.FORGOTTEN: ("forgotten", "forgotten"),
    transfer.LeftOut.PURGED: ("purged", "purged"),
    transfer.LeftOut.PROPOSAL: ("applied or forgotten proposal", "applied or forgotten proposals"),
}


def _left_out(by_reason: dict[str, int]) -> str:
    """``{"suggested": 7, "dismissed": 2}`` → "7 suggested and 2 dismissed"."""
    parts = [
        f"{n} {one if n == 1 else many}"
        for reason, (one, many) in _LEFT_OUT_WORDS.items()
        if (n := by_reason.get(reason.value, 0))
    ]
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)


def run_import(args: argparse.Namespace) -> int:
    data = _stdin_export() if args.path is not None and str(args.path) == "-" else None
    with _engine(args, embedder=True, says_mode=True) as engine, _path_errors("read", args.path):
        report = engine.import_(
            args.path, dry_run=args.dry_run, skip_invalid=args.skip_invalid, accept=True if args.accept else None,
            data=data,
        )  # fmt: skip
        stored = (report.added or report.updated or report.proposed) and not report.dry_run
        if stored and engine.embedder_problem:  # said when something was stored by words only, not on a refusal
            problem = paths.model_hint(engine.embedder_problem)
            print(f"forewarn: words only, without the embedding model: {problem}", file=sys.stderr)
    if args.json:
        cliutil.print_json(report.to_dict())
    else:
        for c in report.changes:
            print(f"{cliutil.shown(c.id)}  {c.action}" + (f"  {cliutil.shown(c.detail)}" if c.detail else ""))
        for problem in report.invalid:
            print(f"skipped {cliutil.shown(problem)}")
        clamped = f", {report.clamped} dated in the future (clamped to now)" if report.clamped else ""
        waiting = f" ({report.waiting} waiting for your review)" if report.waiting else ""
        proposed = f", {report.proposed} newer copies waiting for your review" if report.proposed else ""
        print(
            f"{'Would import' if report.dry_run else 'Imported'} {cliutil.shown(str(report.path))}: "
            f"{report.added} added{waiting}, {report.updated} updated (newer; the replaced versions kept in history)"
            f"{proposed}, {report.kept_local} kept local, {report.unchanged} unchanged, {report.skipped} skipped"
            f"{clamped}, {report.events_added} history events merged (as imported)"
            + ("; nothing was written" if report.dry_run else "")
        )
        if report.not_here:
            print(_not_here_line(report), file=sys.stderr)
        if (report.waiting or report.proposed) and not report.dry_run:
            print("Review them with: forewarn memory review (accept ID… | dismiss ID…)")
    return 0


def _not_here_line(report: transfer.TransferReport) -> str:
    """A warning naming the files an imported file anchors memories to that this workspace lacks: all of them is
    most likely another project's file; some, a teammate's branch or a moved folder."""
    memories, files = sum(report.not_here.values()), len(report.not_here)
    named = ", ".join(cliutil.shown(f) for f in sorted(report.not_here)[: transfer.NOT_HERE_LISTED])
    more = f" and {files - transfer.NOT_HERE_LISTED} more" if files > transfer.NOT_HERE_LISTED else ""
    head = f"forewarn: warning: {memories} of {report.anchored} anchored memories name files not in this workspace"
    hint = (
        "none of the files it names is here: is it this project's file?"
        if memories == report.anchored
        else "memories on them show nowhere until those files are here (a teammate's branch, a moved folder)"
    )
    return f"{head} ({named}{more}); {hint}"


def _stdin_export() -> bytes:
    """``memory import -``: the file from standard input, read up to the cap an export may have."""
    data = sys.stdin.buffer.read(shared_file.MAX_IMPORT_BYTES + 1)
    if not data:
        raise CliError("standard input is empty; pipe an export into `forewarn memory import -`")
    return data


def run_diff(args: argparse.Namespace) -> int:
    from forewarn.workspace import team

    root = cliutil.workspace_root(args)
    before = team.shared_file_at(root, args.ref)  # TeamError (a ForewarnError) for an unknown ref
    current = root / transfer.DEFAULT_RELATIVE_PATH
    with _path_errors("read", current):
        after = current.read_bytes() if current.is_file() else None
    changes = export_diff.diff_exports(before, after)
    if args.json:
        cliutil.print_json({"ref": args.ref, "changes": [c.to_dict() for c in changes]})
        return 0
    if not changes:
        print(f"No memories changed since {cliutil.shown(args.ref)}.")
        return 0
    for c in changes:
        detail = f"  ({_one_line(c.detail, 80)})" if c.detail else ""
        print(
            f"{c.change:<10}  {cliutil.shown(c.id)}  {cliutil.shown(c.memory.type)}  {_anchor_text(c.memory)}{detail}"
        )
        print(f"    {_one_line(c.memory.text)}")
    counts = {kind: sum(c.change == kind for c in changes) for kind in dict.fromkeys(c.change for c in changes)}
    print(f"\nSince {cliutil.shown(args.ref)}: " + ", ".join(f"{n} {kind}" for kind, n in counts.items()))
    return 0
