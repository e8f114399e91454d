"""What every ``forewarn memory …`` command shares: its flags, its usage error, and the workspace it opens (with
or without the embedder) for one command."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from forewarn.cli import util as cliutil
from forewarn.config import load_settings
from forewarn.workspace import relocation

log = logging.getLogger("forewarn.cli.memory")  # the memory commands' logger, as before the split


def _common(p: argparse.ArgumentParser, *, json_flag: bool) -> None:
    cliutil.add_workspace_flag(p)
    if json_flag:
        cliutil.add_json_flag(p)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return cliutil.EXIT_USAGE


@contextmanager
def _engine(args: argparse.Namespace, *, embedder: bool, says_mode: bool = False) -> Iterator[Any]:
    """The workspace, with the embedding model when ``embedder``; a missing model is said once, here, unless the
    command says what it did without it (``says_mode``: search says it searched by words only)."""
    from forewarn.workspace.engine import Workspace

    root = cliutil.workspace_root(args)
    settings, problems = load_settings(root)
    for problem in problems:
        log.warning("%s", problem)
    engine = Workspace.open(root, settings, embedder="auto" if embedder else None)  # errors: ForewarnError
    try:
        if embedder and engine.embedder_problem and not says_mode:
            print(f"forewarn: words only, without the embedding model: {engine.embedder_problem}", file=sys.stderr)
        if engine.store.count() == 0 and (moved := relocation.hint(root)):  # F14: a moved workspace looks empty
            print(f"forewarn: {moved}", file=sys.stderr)
        yield engine
    finally:
        engine.close()
