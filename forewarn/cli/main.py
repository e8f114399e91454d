"""``forewarn`` — the command line.

Each group of commands lives in its own module with a ``register(subparsers)`` function, so the
indexing, model, memory and server commands grow independently. Human output goes to stdout,
progress and logs to stderr; every command a program may read takes ``--json``.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from forewarn import __version__
from forewarn.cli.util import CliError

COMMAND_MODULES = (
    "forewarn.cli.index",
    "forewarn.cli.model",
    "forewarn.cli.memory",
    "forewarn.cli.serve",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="forewarn",
        description="Remembers what your team learned the hard way about its code, and shows it in the editor.",
    )
    parser.add_argument("--version", action="version", version=f"forewarn {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except CliError as exc:
        print(f"forewarn: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("forewarn: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
