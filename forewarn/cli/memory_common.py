"""What every ``forewarn memory …`` command shares: its flags, its usage error, and the workspace it opens (with
or without the embedder) for one command."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from forewarn import locations, paths
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
def _engine(args: argparse.Namespace, *, embedder: bool, says_mode: bool = False, reads: bool = False) -> Iterator[Any]:
    """The workspace, with the embedding model when ``embedder``; a missing model is said once, here, unless the
    command says what it did without it (``says_mode``: search says it searched by words only). A command that
    only ``reads`` refuses a folder Forewarn never indexed nor remembered anything in (:func:`no_workspace`),
    leaving no data folder behind."""
    from forewarn.workspace.engine import Workspace

    root = cliutil.workspace_root(args)
    if reads and (nothing := no_workspace(args, root)):
        raise cliutil.CliError(nothing)
    settings, problems = load_settings(root)
    for problem in problems:
        log.warning("%s", problem)
    engine = Workspace.open(root, settings, embedder="auto" if embedder else None)  # errors: ForewarnError
    try:
        if embedder and engine.embedder_problem and not says_mode:
            print(
                f"forewarn: words only, without the embedding model: {paths.model_hint(engine.embedder_problem)}",
                file=sys.stderr,
            )
        if engine.store.count() == 0 and (moved := relocation.hint(root)):  # F14: a moved workspace looks empty
            print(f"forewarn: {moved}", file=sys.stderr)
        yield engine
    finally:
        engine.close()


def no_workspace(args: argparse.Namespace, root: Path) -> str | None:
    """Why ``root`` is no workspace to read (Forewarn keeps no data for it: run from the wrong folder, or never
    indexed), naming how it was chosen and what to do; a moved copy's memories are offered; None when it is one.
    Nothing is created to say it."""
    if locations.workspace_data(root).is_dir():
        return None
    found = getattr(args, "workspace", None) is None
    said = f"no Forewarn workspace at {cliutil.shown(root)} ({'found from the current folder' if found else '-w'}): "
    said += "nothing was indexed or remembered there"
    if (locations.data_root() / locations.WORKSPACES).is_dir() and (moved := relocation.hint(root)):
        return f"{said}; {moved}"
    if found:
        return f"{said}; for another, give -w DIR (or run `forewarn index` to start one here)"
    return f"{said}; is it the right folder? (`forewarn index` starts one there)"
