"""Small helpers shared by the command modules: errors, workspace root, JSON output, consoles, progress."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from forewarn.errors import ForewarnError
from forewarn.locations import find_workspace_root

EXIT_ERROR = 1  # something went wrong (README, "Exit status")
EXIT_USAGE = 2  # the command was used wrongly, as argparse's own usage errors


class CliError(ForewarnError):
    """A problem to report to the user in one line, with an exit code."""

    def __init__(self, message: str, exit_code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class UsageError(CliError):
    """The command line itself is wrong (a value out of range, options that do not go together, a ref or a
    time that cannot be read): exit 2, one line, as argparse's own usage errors. Errors that come from the
    data (no such memory, a damaged database, an unreadable file) stay ``CliError`` (exit 1)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, EXIT_USAGE)


def int_in(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` for an integer in ``low``..``high``: any other value is a usage error (exit 2)
    naming the range, raised while the command line is parsed, before any work starts."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            span = f"at least {low}" if high is None else f"between {low} and {high}"
            raise argparse.ArgumentTypeError(f"must be {span}, got {value}")
        return value

    parse.__name__ = "number"  # what argparse calls the type in messages
    return parse


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable output on stdout")


def add_workspace_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-w",
        "--workspace",
        type=Path,
        default=None,
        metavar="DIR",
        help="workspace root, taken as given (default: found from the current directory, as git finds its root)",
    )


def workspace_root(args: argparse.Namespace, positional: Path | None = None) -> Path:
    """The root a command works on: ``positional`` or ``-w`` as given, else found from the cwd."""
    flag = getattr(args, "workspace", None)
    if positional is not None and flag is not None and Path(positional).resolve() != Path(flag).resolve():
        raise UsageError(f"two workspaces given: {positional} and -w {flag}; give one")
    explicit = positional if positional is not None else flag
    if explicit is None:
        return find_workspace_root(Path.cwd())
    root = Path(explicit).expanduser()
    if not root.exists():
        raise CliError(f"workspace {root} does not exist")
    if not root.is_dir():
        raise CliError(f"workspace {root} is not a directory")
    return root.resolve()


class _Console(Console):
    """A rich console that lets a closed pipe reach ``main`` (rich's own handler exits with status 1)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


def no_color() -> bool:
    """``NO_COLOR`` set to anything non-empty turns colour off, even on a terminal (https://no-color.org)."""
    return os.environ.get("NO_COLOR", "") != ""


def force_color() -> bool:
    """``FORCE_COLOR`` set to anything non-empty turns colour on off a terminal too, unless ``NO_COLOR`` is set."""
    return os.environ.get("FORCE_COLOR", "") != "" and not no_color()


def console(*, stderr: bool = False) -> Console:
    """A rich console that colours only a terminal, honouring ``NO_COLOR`` and ``FORCE_COLOR``."""
    plain = no_color()
    return _Console(
        stderr=stderr,
        no_color=plain,
        color_system=None if plain else "auto",  # None: no styles at all (no_color alone keeps bold and dim)
        force_terminal=force_color() or isatty(sys.stderr if stderr else sys.stdout),  # not rich's own env rules
    )


def stderr_console() -> Console:
    return console(stderr=True)


# what a terminal may act on or hide: C0 and C1 controls, ESC and DEL included (xterm honours UTF-8 C1 CSI
# and OSC), bidi embeddings, overrides and isolates (they reorder what is shown), invisible characters
# that make two names look alike (zero-width space, word joiner, BOM, tag characters), line and paragraph
# separators, and lone surrogates (undecodable file-name bytes). Zero-width joiners stay: emoji and
# scripts need them. One-line fields also lose \n and \t, so a file name cannot forge output lines.
_UNSAFE = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff\U000e0000-\U000e007f"
)
_UNSAFE_RE = re.compile(f"[{_UNSAFE}]")
_UNSAFE_LINE_RE = re.compile(f"[\t\n{_UNSAFE}]")


def shown(value: object, *, lines: bool = False) -> str:
    """``value`` (from the store or the repository) as the terminal may print it: every control, bidi or
    invisible character as a visible escape (``\\x1b``, ``\\u202e``); one line unless ``lines``."""
    text = str(value)
    return (_UNSAFE_RE if lines else _UNSAFE_LINE_RE).sub(_visible, text.replace("\r\n", "\n") if lines else text)


def _visible(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def print_json(data: Any) -> None:
    """JSON on stdout; characters a terminal would act on are written as ``\\uXXXX`` escapes (same data)."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)  # C0 is escaped already, C1 and bidi not
    sys.stdout.write(_UNSAFE_RE.sub(lambda m: json.dumps(m.group())[1:-1], text))
    sys.stdout.write("\n")


@contextmanager
def progress(description: str, total: int | None = None, *, enabled: bool = True) -> Iterator[Callable[..., None]]:
    """A progress bar on stderr (only when stderr is a terminal); yields ``advance(n=1, total=None)``."""
    if not (enabled and isatty(sys.stderr)):  # FORCE_COLOR colours a pipe but never animates one
        yield lambda n=1, total=None: None
        return
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr_console(),
        transient=True,
    )
    with bar:
        task = bar.add_task(description, total=total)

        def advance(n: int = 1, total: int | None = None) -> None:
            if total is not None:
                bar.update(task, total=total)
            bar.advance(task, n)

        yield advance


def isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # replaced or closed stream
        return False
