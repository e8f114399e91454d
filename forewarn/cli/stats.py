"""``forewarn stats``: the memory-health report (the same answer the editors' Health views show).

Counts, then the learning trajectory — one sparkline per series, the window's buckets left to right — then the
most important files and whether they hold memories, the memories shown most and dismissed most, and what is
stale. ``--json`` prints ``WorkspaceStats.to_dict()``; ``--since`` bounds the trajectory and the lists beside it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import date
from typing import Any

from forewarn.cli import util as cliutil
from forewarn.cli.memory_common import _common, _engine
from forewarn.cli.memory_render import _one_line
from forewarn.cli.util import CliError
from forewarn.memory.trajectory import SPARK_BLOCKS, SinceError, parse_since, sparkline
from forewarn.memory.vocabulary import CURRENT_STATUSES, MemoryStatus

ASCII_BLOCKS = " .:-=+*#@"  # the sparkline's heights where the output cannot encode block characters
SERIES_NAME_WIDTH = 11  # "superseded" and a space: every series name fits
LIST_TEXT = 70  # characters of a memory's text per list line
# the statuses drawn, in this order: current first, then the queue, then history
DRAWN_STATUSES: tuple[str, ...] = (*CURRENT_STATUSES, MemoryStatus.SUGGESTED, MemoryStatus.SUPERSEDED,
                                   MemoryStatus.ARCHIVED, MemoryStatus.DISMISSED)  # fmt: skip


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``forewarn stats`` to the forewarn parser."""
    p = sub.add_parser(
        "stats",
        help="memory health: counts, the trajectory over time, important code with no memories, noise, staleness",
    )
    p.add_argument(
        "--since",
        metavar="WHEN",
        help="start of the trajectory: a date (2026-09-01) or a span back from today (90d, 12w, 6m, 1y); "
        "default: the first memory, at most a year back",
    )
    _common(p, json_flag=True)
    p.set_defaults(handler=run_stats)


def run_stats(args: argparse.Namespace) -> int:
    if args.since is not None:
        try:
            parse_since(args.since, date.today())  # checked before the workspace loads: a typo costs nothing
        except SinceError as exc:
            raise CliError(str(exc), exit_code=2) from None
    with _engine(args, embedder=True, reads=True) as engine:  # the mode and vectors reported are what search would use
        engine.reindex()  # incremental: staleness and PageRank reflect the code as it is now
        stats = engine.stats(since=args.since)
    data = stats.to_dict()
    if args.json:
        cliutil.print_json(data)
        return 0
    drawn = cliutil.force_color() or cliutil.isatty(sys.stdout)
    blocks = (SPARK_BLOCKS if _encodes(SPARK_BLOCKS) else ASCII_BLOCKS) if drawn else None
    for line in report_lines(data, blocks):
        print(line)
    return 0


def report_lines(data: dict[str, Any], blocks: str | None = SPARK_BLOCKS) -> list[str]:
    """The text report of ``WorkspaceStats.to_dict()`` (every value from the store passes ``shown``); each series
    a sparkline of ``blocks``, or its numbers when ``blocks`` is None (output that is not a terminal)."""
    show = cliutil.shown
    out = [f"Memories: {data['total']}"]
    out.append("By type (current): " + (", ".join(f"{show(t)} {n}" for t, n in data["by_type"].items()) or "none"))
    out.append("By status: " + (", ".join(f"{show(s)} {n}" for s, n in data["by_status"].items()) or "none"))
    out.append(f"Stale (may be outdated): {data['stale']}")
    traj = data.get("trajectory") or {}
    if traj.get("buckets"):
        n = len(traj["buckets"])
        out += ["", f"Trajectory {traj['since']} to {traj['until']}, by {traj['bucket']} ({n} point{'s' * (n != 1)}):"]
        out.append("  current memories by source (at the end of each " + traj["bucket"] + ")")
        out += [_series(name, values, blocks, "level") for name, values in traj["by_source"].items()]
        out.append("  memories by status")
        out += [_series(s, traj["by_status"][s], blocks, "level") for s in DRAWN_STATUSES if s in traj["by_status"]]
        out.append(f"  what happened (per {traj['bucket']})")
        out += [_series(name, values, blocks, "count") for name, values in traj["events"].items()]
    if data.get("important_files"):
        out += ["", "Most important files (PageRank) and their memories:"]
        for f in data["important_files"]:
            held = f"{f['memories']} memor{'y' if f['memories'] == 1 else 'ies'}" if f["memories"] else "none"
            out.append(f"  {f['rank']:>4}  {f['score']:.4f}  {show(f['file'])}  {held}")
    window = f" since {traj['since']}" if traj.get("since") else ""
    if data.get("shown_most"):
        out += ["", f"Shown most{window}:"]
        out += [f"  {m['shown']:>5}×  {_brief(m)}" for m in data["shown_most"]]
    elif data.get("most_surfaced"):
        out += ["", "Shown most (all time):"]
        out += [f"  {m['surfaced']:>5}×  {_brief(m)}" for m in data["most_surfaced"]]
    if data.get("dismissed_most"):
        out += ["", f"Turned away most{window} (dismissed, marked outdated, forgotten):"]
        for m in data["dismissed_most"]:
            out.append(f"  {m['times']:>5}×  {show(m['last'])} after {m['surfaced']} shown  {_brief(m)}")
    if data.get("stale_memories"):
        out += ["", f"Stale ({data['stale']}):"]
        out += [f"  {_brief(m)}  ({show(m['why'])})" for m in data["stale_memories"]]
    if data.get("important_without_memories") and not data.get("important_files"):
        out += ["", "Important code with no memories yet (PageRank):"]
        out += [f"  {item['score']:.4f}  {show(item['file'])}" for item in data["important_without_memories"]]
    return out


def _series(name: str, values: Sequence[int], blocks: str | None, kind: str) -> str:
    """One series: its name, its sparkline (or numbers), and its last value (a level) or its sum (events)."""
    drawn = sparkline(values, blocks) if blocks is not None else " ".join(str(v) for v in values)
    tail = f"now {values[-1]}, peak {max(values)}" if kind == "level" else f"{sum(values)} in all"
    return f"    {cliutil.shown(name):<{SERIES_NAME_WIDTH}}{drawn}  {tail}"


def _brief(m: dict[str, Any]) -> str:
    """A listed memory in one line: id, type, where, the start of its text."""
    where = m.get("file") or "(workspace)"
    if m.get("symbol"):
        where += f"::{m.get('label') or m['symbol']}"
    show = cliutil.shown
    return f"{show(m['id'])}  {show(m['type'])}  {show(where)}  {_one_line(m['text'], LIST_TEXT)}"


def _encodes(text: str) -> bool:
    try:
        text.encode(sys.stdout.encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True
