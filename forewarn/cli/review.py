"""``forewarn review``: the memories a change walks into, for a person, a pre-commit hook or CI."""

from __future__ import annotations

import argparse
import json
import logging
import sys

from forewarn.cli import util as cliutil
from forewarn.cli.util import shown
from forewarn.config import load_settings

log = logging.getLogger(__name__)

FORMATS = ("text", "json", "sarif")
FAIL_ON = ("stale", "contested", "any", "none")  # forewarn.workspace.review.FailOn's values
TEXT_LINES = 6  # lines of a memory's text the text output prints (a commit message's subject and a few more)
CHANGED_NAMES = 5  # changed symbols named in the first line; the count covers the rest
TIER_HEADINGS = (  # forewarn.workspace.review.Tier's order
    "Made stale or losing their code by this change:",
    "On the changed code:",
    "About a changed file as a whole:",
    "On code that uses what changed:",
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``review`` to the forewarn parser."""
    p = sub.add_parser(
        "review",
        help="list the memories a change walks into: on changed code, on code that uses it, and those it makes stale",
        description=(
            "Compares the working tree with HEAD, or with --base REF: the branch's commits since it forked from "
            "REF (their merge base) plus what is not committed yet. Lists the memories anchored to changed "
            "symbols, those on code that uses them (one hop), and those the change makes stale, each at its "
            "file:line. json and sarif output never hold private memories. Exit status: 0, or 1 when a listed "
            "memory matches --fail-on, or 2 for a usage or repository error."
        ),
    )
    p.add_argument("--base", metavar="REF", help="compare with this branch, tag or commit (default: HEAD)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--format", choices=FORMATS, default="text", help="output on stdout (default: text)")
    out.add_argument("--json", dest="format", action="store_const", const="json", help="the same as --format json")
    p.add_argument(
        "--fail-on", choices=FAIL_ON, default="none",
        help="exit 1 when a listed memory is made stale (or loses its code), is contested, or for any listed "
        "memory (default: none)",
    )  # fmt: skip
    cliutil.add_workspace_flag(p)
    p.set_defaults(handler=run_review)


def run_review(args: argparse.Namespace) -> int:
    from forewarn.workspace.engine import Workspace
    from forewarn.workspace.history import GitError
    from forewarn.workspace.review import FailOn, failing, resolve_base, review, to_sarif

    root = cliutil.workspace_root(args)
    rule = FailOn(args.fail_on)
    try:
        resolve_base(root, args.base)  # fails fast, before a workspace is opened for a folder git does not know
        settings, problems = load_settings(root)
        for problem in problems:
            log.warning("%s", problem)
        with Workspace.open(root, settings, embedder=None) as ws:
            report = review(ws, args.base)
    except GitError as exc:
        raise cliutil.UsageError(str(exc)) from None
    if args.format == "json":
        cliutil.print_json(report.to_dict(rule))
        shown_items = report.shared()
    elif args.format == "sarif":
        sys.stdout.write(json.dumps(to_sarif(report), indent=2, ensure_ascii=True) + "\n")
        shown_items = report.shared()
    else:
        _print_text(report)
        shown_items = report.items  # the person at this terminal may see their own private notes
    failed = failing(shown_items, rule)
    if failed:
        noun = "memory" if len(failed) == 1 else "memories"
        print(f"forewarn: review fails (--fail-on {rule}): {len(failed)} {noun}", file=sys.stderr)
        return 1
    return 0


def _print_text(report: object) -> None:
    """For a person: the memories ranked (made stale, on changed code, file-wide, one hop out), each at its
    file:line with its headline, the rest of its text on indented lines (at most ``TEXT_LINES``), and why."""
    from forewarn.workspace.review import Reason, ReviewReport, Tier, tier
    from forewarn.workspace.symbols import spoken_symbol

    assert isinstance(report, ReviewReport)
    out = cliutil.console()

    def say(text: str = "") -> None:
        out.print(text, markup=False, highlight=False, soft_wrap=True)

    against = "HEAD" if report.base == "HEAD" else f"{shown(report.base)} (merge base {report.base_commit[:7]})"
    files, changed = len(report.files), len(report.changed)
    names = list(dict.fromkeys(spoken_symbol(c.symbol, c.file) for c in report.changed if not c.symbol.startswith("<")))
    more_names = ", …" if len(names) > CHANGED_NAMES else ""
    listed = f" ({shown(', '.join(names[:CHANGED_NAMES]))}{more_names})" if names else ""
    say(
        f"Reviewing the working tree against {against}: {files} changed file{'' if files == 1 else 's'}, "
        f"{changed} changed symbol{'' if changed == 1 else 's'}{listed}."
    )
    if not report.items:
        say("No memories on this change.")
        if report.left_out:
            say(f"{len(report.left_out)} more on code that uses what changed: not listed.")
        return
    current: Tier | None = None
    for item in report.items:
        if tier(item) != current:
            current = tier(item)
            say()
            say(TIER_HEADINGS[current])
        m = item.memory
        lock = " · private" if item.private else ""
        lines = [line.strip() for line in m.text.replace("\r\n", "\n").split("\n") if line.strip()] or [""]
        say(f"  {shown(item.file)}:{item.line}  {shown(m.type)} · {shown(m.status)}{lock}  {shown(lines[0])}")
        for line in lines[1:TEXT_LINES]:
            say(f"      {shown(line)}")
        if len(lines) > TEXT_LINES:
            say(f"      … {len(lines) - TEXT_LINES} more lines: forewarn memory show {m.id}")
        say(f"      {', '.join(str(r) for r in item.reasons)}: {shown(item.why)}  (id {m.id})")
    by = {r: sum(1 for i in report.items if r in i.reasons) for r in Reason}
    n = len(report.items)
    say()
    say(
        f"{n} memor{'y' if n == 1 else 'ies'}: {by[Reason.CHANGED]} on changed code, "
        f"{by[Reason.STALE]} made stale, {by[Reason.DELETED]} losing their code, "
        f"{by[Reason.DEPENDENT]} on code that uses it."
    )
    if report.left_out:
        say(
            f"{len(report.left_out)} more, file-wide in changed files or on code that uses the changed symbols: "
            "not listed (the first of each are above; --format json counts them too)."
        )
    if by[Reason.STALE] or by[Reason.DELETED]:
        say("Still true? forewarn memory confirm ID. Changed? forewarn memory supersede ID TEXT.")
