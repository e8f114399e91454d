"""``forewarn mine``: propose memories from the repository's history and warning comments."""

from __future__ import annotations

import argparse
import logging
import sys

from rich.console import Console

from forewarn.cli import util as cliutil
from forewarn.cli.util import shown
from forewarn.config import load_settings

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``mine`` to the forewarn parser."""
    mine = sub.add_parser(
        "mine",
        help="propose lessons from git history (reverts, explained fixes, decisions, hot spots) and warning comments",
        description=(
            "Reads the git history since the last run (the first run reads all of it) and proposes memories "
            "with status 'suggested'; review them with 'forewarn memory review'. Nothing leaves the machine."
        ),
    )
    mine.add_argument("--since", metavar="REF|DATE", help="read commits after this commit, or since this date")
    mine.add_argument("--limit", type=cliutil.int_in(1), metavar="N", help="read at most the N newest commits")
    mine.add_argument(
        "--on-open",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also let the editor's server mine this workspace whenever it opens it (--no-on-open: stop); "
        "kept in your data dir, where the repository cannot write (every workspace: mining.on_open)",
    )
    mine.add_argument(
        "--all",
        action="store_true",
        help="read the whole history again and propose everything, also what mining holds back: lessons scored "
        "below the bar, warning comments and hot spots on no lesson (mining.hold_back = false: always)",
    )
    cliutil.add_workspace_flag(mine)
    cliutil.add_json_flag(mine)
    mine.set_defaults(handler=run_mine)


def run_mine(args: argparse.Namespace) -> int:
    from forewarn.workspace.engine import Workspace
    from forewarn.workspace.mining import mine

    root = cliutil.workspace_root(args)
    settings, problems = load_settings(root)
    for problem in problems:
        log.warning("%s", problem)
    if args.on_open is not None:
        from forewarn.workspace import consent

        consent.allow_mining_on_open(root, args.on_open)
        said = "will mine" if args.on_open else "will no longer mine"
        print(f"forewarn: the editor's server {said} {shown(root)} when it opens it", file=sys.stderr)
    # no embedder: suggestions are embedded later, by the server's backfill, so mining stays fast
    with (
        Workspace.open(root, settings, embedder=None) as ws,
        cliutil.progress("mining history", enabled=not args.json) as advance,
    ):
        done = 0

        def on_progress(n: int, total: int) -> None:
            nonlocal done
            advance(n - done, total=total)
            done = n

        hold_back = False if args.all else None  # None: the setting decides
        report = mine(ws, since=args.since, limit=args.limit, progress=on_progress, hold_back=hold_back, full=args.all)
    if args.json:
        cliutil.print_json(report.to_dict())
        return 0
    out = cliutil.console()
    for note in report.notes:
        print(f"forewarn: {shown(note)}", file=sys.stderr)
    if report.commits_read == 0 and report.since and not report.suggestions:
        out.print(f"Nothing new since {shown(report.since[:12])}: {report.seconds:.2f} s.", highlight=False)
        return 0
    out.print(
        f"Read {report.commits_read} commits in {report.seconds:.1f} s; "
        f"{report.added} new suggestions ({report.known} known, {report.dismissed_before} dismissed before).",
        highlight=False,
    )
    # every suggestion this run proposed by type: those already known or dismissed included, so said when there are
    _line(
        out,
        "suggestions"
        if report.added == sum(report.suggestions.values())
        else "proposed (new, known and dismissed before)",
        report.suggestions,
    )
    _line(out, "anchored to", report.anchors)
    _line(out, "noise skipped", report.noise)
    _line(out, "held back (forewarn mine --all proposes them)", report.held_back)
    # counted per commit: a Cargo.lock changed in 498 commits is 498 changes of one file (QA pass 8b, finding 13)
    _line(out, "file changes skipped (one per file per commit)", report.skipped_files)
    _line(out, "reworded warning comments (the earlier lesson, not a new one)", report.reworded)
    if report.withdrawn or report.tracks_updated:
        out.print(
            f"  earlier suggestions withdrawn (their commit was reverted): {report.withdrawn}; "
            f"track records brought up to date: {report.tracks_updated}",
            highlight=False,
            soft_wrap=True,
        )
    if report.added:
        out.print("Review them: forewarn memory review", highlight=False)
    return 0


def _line(out: Console, label: str, counts: dict[str, int]) -> None:
    if not counts:
        return
    parts = ", ".join(f"{shown(k)} {v}" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    out.print(f"  {label}: {parts}", highlight=False, soft_wrap=True)  # one line each, whatever the width
