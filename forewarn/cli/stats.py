"""``forewarn stats``: the memory-health report (the same answer the editors' Health view shows)."""

from __future__ import annotations

import argparse

from forewarn.cli import util as cliutil
from forewarn.cli.memory import _common, _engine, _one_line


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``forewarn stats`` to the forewarn parser."""
    p = sub.add_parser("stats", help="memory health: counts, stale memories, important code with no memories")
    _common(p, json_flag=True)
    p.set_defaults(handler=run_stats)


def run_stats(args: argparse.Namespace) -> int:
    with _engine(args, embedder=True) as engine:  # the mode and vectors reported are what search would use
        engine.reindex()  # incremental: staleness and PageRank reflect the code as it is now
        stats = engine.stats()
    if args.json:
        cliutil.print_json(stats.to_dict())
        return 0
    print(f"Memories: {stats.total}")
    print("By type (current): " + (", ".join(f"{cliutil.shown(t)} {n}" for t, n in stats.by_type.items()) or "none"))
    print("By status: " + (", ".join(f"{cliutil.shown(s)} {n}" for s, n in stats.by_status.items()) or "none"))
    print(f"Stale (may be outdated): {stats.stale}")
    if stats.most_surfaced:
        print("Most surfaced:")
        for m in stats.most_surfaced:
            print(f"  {m.surfaced_count:>5}  {cliutil.shown(m.id)}  {_one_line(m.text, 70)}")
    if stats.important_without_memories:
        print("Important code with no memories yet (PageRank):")
        for rel, score in stats.important_without_memories:
            print(f"  {score:.4f}  {cliutil.shown(rel)}")
    return 0
