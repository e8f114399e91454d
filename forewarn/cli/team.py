"""``forewarn init`` and ``forewarn merge-driver``: sharing memories through git without conflicts.

``init`` registers the merge driver for ``.forewarn/memories.jsonl`` in the workspace's repository; git then
runs ``merge-driver BASE OURS THEIRS PATH`` whenever two branches both changed the file, and the driver writes
the merged, canonical file into OURS (forewarn.memory.merging.merge_exports: by id, newer wins, every
history kept, nothing lost). The driver needs no workspace and opens no database. Anything else a
``.gitattributes`` routes to it (``*.py merge=forewarn``) is refused: git keeps its ordinary conflict and
OURS stays as it was.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
from pathlib import Path, PurePosixPath

from forewarn import untrusted
from forewarn.cli import agents
from forewarn.cli import util as cliutil
from forewarn.cli.util import CliError
from forewarn.memory import merging, shared_file
from forewarn.workspace import team

EXIT_CANNOT_MERGE = 1  # git then leaves the file as a conflict for a person, with OURS untouched
MEMORIES_SUFFIX = ".jsonl"  # what a memories file is named (the shared one, or an export a team routes itself)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "init",
        help="set up this repository to share memories: register the merge driver for .forewarn/memories.jsonl "
        "(.gitattributes and the repository's git config); safe to run again",
    )
    cliutil.add_workspace_flag(p)
    cliutil.add_json_flag(p)
    agents.add_agent_flags(p)
    p.set_defaults(handler=run_init)

    p = sub.add_parser(
        "merge-driver",
        help="(run by git) merge two versions of .forewarn/memories.jsonl by memory id into OURS",
    )
    p.add_argument("base", type=Path, help="the common ancestor's version (git's %%O)")
    p.add_argument("ours", type=Path, help="our version, replaced by the result (git's %%A)")
    p.add_argument("theirs", type=Path, help="their version (git's %%B)")
    p.add_argument(
        "path",
        nargs="?",
        default=None,
        help="the file's path in the repository (git's %%P; older registrations omit it)",
    )
    cliutil.add_workspace_flag(p)  # every command takes -w; the driver reads only the three files
    p.set_defaults(handler=run_merge_driver)


def driver_command() -> str:
    """How git should start this Forewarn: the absolute path of the running ``forewarn`` script.

    git runs the driver from whatever environment started the merge (an IDE, a GUI client, a shell without
    the virtual environment), where ``forewarn`` may not be on PATH or may be another install; ``.git/config``
    belongs to this clone on this machine, so an absolute path there never reaches a teammate. Run as
    ``python -m forewarn``, it is that interpreter with ``-m forewarn``.
    """
    script = Path(sys.argv[0])
    if script.name == "forewarn" and script.is_file():
        return shlex.quote(str(script.absolute()))
    found = shutil.which("forewarn")
    if found and Path(found).resolve().parent == Path(sys.executable).resolve().parent:
        return shlex.quote(str(Path(found).absolute()))
    return f"{shlex.quote(sys.executable)} -m forewarn"


def run_init(args: argparse.Namespace) -> int:
    if args.agent:  # `init --agent HOST`: the agent host's hooks, not the merge driver
        return agents.run_agent_init(args, driver_command())
    root = cliutil.workspace_root(args)
    try:
        report = team.register_merge_driver(root, driver_command())
    except untrusted.RefusedWrite as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"cannot write {exc.filename}: {exc.strerror or exc}") from exc
    if args.json:
        cliutil.print_json(report.to_dict())
        return 0
    if not report.changed:
        print(f"Already set up: {cliutil.shown(report.root)} merges .forewarn/memories.jsonl with Forewarn.")
        return 0
    for change in report.changed:
        print(f"  {cliutil.shown(change)}")
    print(
        "Set up: git merges .forewarn/memories.jsonl by memory id (commit .gitattributes so teammates get it; "
        "each clone runs `forewarn init` once)."
    )
    return 0


def run_merge_driver(args: argparse.Namespace) -> int:
    shown_path = cliutil.shown(args.path) if args.path else ""
    if args.path is not None and not PurePosixPath(args.path).name.endswith(MEMORIES_SUFFIX):
        return _not_ours(f"{shown_path} is not a Forewarn memories file (*{MEMORIES_SUFFIX})")
    try:
        base = args.base.read_bytes() if args.base.is_file() else None
        ours = args.ours.read_bytes()
        theirs = args.theirs.read_bytes()
    except OSError as exc:
        print(f"forewarn merge-driver: cannot read {exc.filename}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_CANNOT_MERGE
    try:
        merged, report = merging.merge_exports(base, ours, theirs)
    except merging.NotMemoriesFile as exc:
        return _not_ours(f"{shown_path}: {exc}" if args.path else str(exc))
    except shared_file.TransferError as exc:
        print(f"forewarn merge-driver: {exc}; the file is left for you to merge", file=sys.stderr)
        return EXIT_CANNOT_MERGE
    try:
        untrusted.write_in_tree(args.ours.parent, args.ours.name, merged)
    except (OSError, untrusted.RefusedWrite) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        print(f"forewarn merge-driver: cannot write {args.ours}: {why}", file=sys.stderr)
        return EXIT_CANNOT_MERGE
    for problem in report.problems[: shared_file.MAX_REPORTED_ERRORS]:
        print(f"forewarn merge-driver: {cliutil.shown(problem)}", file=sys.stderr)
    if len(report.problems) > shared_file.MAX_REPORTED_ERRORS:
        print(
            f"forewarn merge-driver: … {len(report.problems) - shared_file.MAX_REPORTED_ERRORS} more", file=sys.stderr
        )
    for old, a, b in report.forks[: shared_file.MAX_REPORTED_ERRORS]:
        print(
            f"forewarn merge-driver: memory {old} was replaced on both sides, by {a} and by {b}: both are kept, "
            f"marked contested until someone settles them (forewarn memory resolve {a} {b} --replace|--both)",
            file=sys.stderr,
        )
    extra = f", {report.kept_lines} unreadable line(s) kept at the end" if report.kept_lines else ""
    extra += f", {report.rival_events} rewritten event(s) kept beside the original" if report.rival_events else ""
    print(
        f"forewarn merge-driver: {report.memories} memories merged ({report.differed} differed; "
        f"{report.versions_kept} version(s) kept in history{extra})",
        file=sys.stderr,
    )
    return 0


def _not_ours(why: str) -> int:
    """Refuse a file that is not a memories file: OURS untouched, git's ordinary conflict, the reason on stderr."""
    print(
        f"forewarn merge-driver: {why}; left it untouched as an ordinary conflict for you to merge (only "
        f".forewarn/memories.jsonl should be merge=forewarn in .gitattributes)",
        file=sys.stderr,
    )
    return EXIT_CANNOT_MERGE
