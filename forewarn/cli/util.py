"""Small helpers shared by the command modules: errors, JSON output, workspace option, progress."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

stderr_console = Console(stderr=True)


class CliError(Exception):
    """A problem to report to the user in one line, with an exit code."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable output on stdout")


def add_workspace_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-w", "--workspace", type=Path, default=None, help="workspace root (default: the current directory)"
    )


def workspace_root(args: argparse.Namespace, positional: Path | None = None) -> Path:
    root = positional or getattr(args, "workspace", None) or Path.cwd()
    root = Path(root).expanduser()
    if not root.exists():
        raise CliError(f"workspace {root} does not exist")
    if not root.is_dir():
        raise CliError(f"workspace {root} is not a directory")
    return root.resolve()


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")


@contextmanager
def progress(description: str, total: int | None = None, *, enabled: bool = True) -> Iterator[Any]:
    """A progress bar on stderr (only when stderr is a terminal); yields ``advance(n=1, total=None)``."""
    show = enabled and stderr_console.is_terminal
    if not show:
        yield lambda n=1, total=None: None
        return
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr_console,
        transient=True,
    )
    with bar:
        task = bar.add_task(description, total=total)

        def advance(n: int = 1, total: int | None = None) -> None:
            if total is not None:
                bar.update(task, total=total)
            bar.advance(task, n)

        yield advance
