"""``forewarn memory adopt OLD_PATH | --auto`` — re-attach the memories a moved or renamed workspace left behind."""

from __future__ import annotations

import argparse
from pathlib import Path

from forewarn.cli import util as cliutil
from forewarn.cli.util import CliError
from forewarn.workspace import relocation


def register(msub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``adopt`` to the ``forewarn memory`` subcommands."""
    p = msub.add_parser(
        "adopt",
        help="re-attach the memories of this workspace's old path after a move or rename (nothing is deleted)",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("old_path", nargs="?", type=Path, metavar="OLD_PATH", help="where the workspace used to be")
    which.add_argument(
        "--auto",
        action="store_true",
        help="find it: the one moved workspace of the same git repository (root commit or remote)",
    )
    cliutil.add_workspace_flag(p)
    cliutil.add_json_flag(p)
    p.set_defaults(handler=run_adopt)


def run_adopt(args: argparse.Namespace) -> int:
    root = cliutil.workspace_root(args)
    if args.auto:
        found = relocation.moved_here(root)
        if not found:
            raise CliError(
                f"no moved workspace of the same repository as {root} was found (detection needs a git repository "
                "that Forewarn saw before the move); name the old path: forewarn memory adopt OLD_PATH"
            )
        if len(found) > 1:
            listed = "; ".join(m.describe() for m in found)
            raise CliError(f"several moved workspaces match: {listed}; name one: forewarn memory adopt OLD_PATH")
        moved = found[0]
    else:
        moved = relocation.find_old(args.old_path)
    done = relocation.adopt(moved, root)
    if args.json:
        cliutil.print_json(
            {
                "old_root": str(done.old_root),
                "new_root": str(done.new_root),
                "data_dir": str(done.data_dir),
                "memories": moved.memories,
                "set_aside": str(done.set_aside) if done.set_aside else None,
            }
        )
        return 0
    print(f"Adopted the {moved.count_text()} of {done.old_root} into {done.new_root}.")
    if done.set_aside is not None:
        print(f"This workspace's own data dir (no memories) was moved aside to {done.set_aside}.")
    print("Restart the language server (or reload the editor window) to see them there.")
    return 0
