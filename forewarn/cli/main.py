"""``forewarn`` — the command line.

Each group of commands lives in its own module with a ``register(subparsers)`` function, so the
indexing, model, memory and server commands grow independently. Human output goes to stdout,
progress and logs to stderr; every command a program may read takes ``--json``.
"""

from __future__ import annotations

import os
import sys

from forewarn import __version__
from forewarn.errors import ForewarnError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: a few ms on every hook call
if TYPE_CHECKING:  # the hook call (every tool call of an agent) imports this module: the rest only when used
    import argparse
    from collections.abc import Sequence

COMMAND_MODULES = (
    "forewarn.cli.index",
    "forewarn.cli.model",
    "forewarn.cli.memory",
    "forewarn.cli.stats",
    "forewarn.cli.mine",
    "forewarn.cli.team",
    "forewarn.cli.review",
    "forewarn.cli.mcp",
    "forewarn.cli.serve",
    "forewarn.cli.hook",
    "forewarn.cli.explain",
)
HOOK_COMMAND = "hook"  # runs on every tool call of an agent: dispatched before the rest of the CLI is imported
READER_GONE = 141  # 128 + SIGPIPE: what the shell reports for cat, grep or git when the reader quits early
INTERRUPTED = 130  # 128 + SIGINT: Ctrl-C
# options naming a file, whose value may start with "-" (``--file -rf.py``): argparse would take it for an option
PATH_OPTIONS = ("--file", "--log-file", "--token-file")


def build_parser() -> argparse.ArgumentParser:
    import argparse
    import importlib
    from pathlib import Path

    parser = argparse.ArgumentParser(
        prog="forewarn",
        description="Remembers what your team learned the hard way about its code, and shows it in the editor.",
    )
    parser.add_argument("--version", action="version", version=f"forewarn {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging on stderr")
    parser.add_argument(  # ``forewarn -w DIR memory show …`` as git's ``-C``: the command's own -w, said first
        "-w", "--workspace", dest="workspace_first", type=Path, default=None, metavar="DIR",
        help="workspace root for the command that follows (the same as its own -w)",
    )  # fmt: skip
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    _remember_parsers(parser)
    return parser


def _remember_parsers(parser: argparse.ArgumentParser) -> None:
    """Each (sub)command's parser records itself as the default ``usage_parser``: the deepest one parsed wins,
    so a usage error is reported with the usage of the command that was given (``forewarn review --bogus``
    shows review's usage, not the top level's)."""
    import argparse

    parser.set_defaults(usage_parser=parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _remember_parsers(child)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; Forewarn's own errors are one line on stderr, a closed stdout a quiet exit."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == [HOOK_COMMAND]:
        from forewarn.cli.hook import main as hook_main

        return hook_main(words[1:])
    import logging

    from forewarn.cli.util import EXIT_USAGE, CliError, shown

    try:
        parser = build_parser()
        try:
            args, extra = parser.parse_known_args(attach_path_values(parser, words))
            if extra:
                args.usage_parser.error(f"unrecognized arguments: {' '.join(extra)}")
            _workspace_said_first(args)
        except SystemExit:  # --help, --version, a usage error: argparse has printed, maybe into a closed pipe
            sys.stdout.flush()
            raise
        level = logging.WARNING - 10 * min(args.verbose, 2)
        logging.basicConfig(level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
        handler = getattr(args, "handler", None)
        if handler is None:
            parser.print_help()
            return EXIT_USAGE
        try:
            code = int(handler(args) or 0)
        except ForewarnError as exc:
            print(f"forewarn: {shown(exc, lines=True)}", file=sys.stderr)  # may quote names from the repository
            code = exc.exit_code if isinstance(exc, CliError) else 1
        sys.stdout.flush()  # a reader that went away shows up here, while we can still exit quietly
        return code
    except BrokenPipeError:
        return _reader_gone()
    except KeyboardInterrupt:
        return INTERRUPTED


def _workspace_said_first(args: argparse.Namespace) -> None:
    """``-w DIR`` before the command is the command's own ``-w``; one that takes none, or a second one, is an error."""
    from pathlib import Path

    first = args.workspace_first
    if first is None or getattr(args, "handler", None) is None:
        return
    if not hasattr(args, "workspace"):
        args.usage_parser.error(f"-w {first}: this command takes no workspace")
    if args.workspace is not None and Path(args.workspace) != Path(first):
        args.usage_parser.error(f"two workspaces given: -w {first} and -w {args.workspace}; give one")
    args.workspace = first


def attach_path_values(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """``--file -rf.py`` -> ``--file=-rf.py`` (unless the value is one of our options: then it is missing)."""
    known = _option_strings(parser)
    out: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg == "--":
            out += [arg, *args]
            break
        nxt = next(args, None) if arg in PATH_OPTIONS else None
        if nxt is not None and nxt.startswith("-") and nxt != "--" and nxt.split("=", 1)[0] not in known:
            out.append(f"{arg}={nxt}")
        else:
            out += [arg] if nxt is None else [arg, nxt]
    return out


def _option_strings(parser: argparse.ArgumentParser) -> set[str]:
    import argparse

    found = set(parser._option_string_actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _option_strings(sub)
    return found


def _reader_gone() -> int:
    """Whoever read our output stopped (``forewarn search … | head``): exit as a program killed by SIGPIPE."""
    import contextlib

    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):  # replaced or closed
            os.dup2(devnull, stream.fileno())  # the interpreter's final flush must not fail again
    os.close(devnull)
    return READER_GONE


if __name__ == "__main__":
    sys.exit(main())
