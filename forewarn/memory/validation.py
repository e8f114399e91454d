"""What a memory may hold: one set of checks for every way in (remember, supersede, import).

The limits and the messages are the same whichever way a memory arrives, so a teammate's shared
file cannot store what ``forewarn remember`` would refuse. Each check returns the value as stored
or raises :class:`InvalidMemoryError` with a message written for the person who typed the value.
"""

from __future__ import annotations

import json
import math
import os
import posixpath
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from forewarn.memory.errors import InvalidMemoryError
from forewarn.memory.store import MEMORY_TYPES, SOURCES
from forewarn.memory.text import clean_memory_text
from forewarn.memory.vocabulary import MemoryType

MAX_TEXT_CHARS = 20_000  # a memory is a lesson, not a log file; longer input is refused, not cut
MAX_TAGS = 20
TAG_RE = re.compile(r"^[\w.\-/:]{1,64}$", re.UNICODE)
MAX_SYMBOL_CHARS = 1_000  # qualified symbol paths of real code run to a few hundred characters at most
MAX_LINE = 10_000_000  # no source file has ten million lines; keeps SQLite integers and LSP positions sane
MAX_COUNTER = 1_000_000_000  # access and surfaced counts: far past real use, far below SQLite's 64-bit integers
MAX_LABEL_CHARS = 1_000  # status reasons, session ids, content hashes, event ids and kinds
MAX_PROVENANCE_CHARS = 64_000  # a hot spot's fix history lists tens of commits (sha, author, date, subject)
MAX_PROVENANCE_DEPTH = 4  # {"commits": [{"sha": …}]} nests 3 deep; more is not ours
# a Windows drive ("C:\\…", "c:/…"): harmless on POSIX, absolute on Windows, so never an anchor
_DRIVE_RE = re.compile(r"^[A-Za-z]:")
# control characters, DEL and C1: never part of a path, symbol or label
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def memory_type(value: object) -> MemoryType:
    """``value`` as a memory type, or a message listing the types."""
    if not isinstance(value, str) or value not in MEMORY_TYPES:
        raise InvalidMemoryError(f"unknown memory type '{value}'; use one of {', '.join(MEMORY_TYPES)}")
    return MemoryType(value)


def source(value: object) -> str:
    if not isinstance(value, str) or value not in SOURCES:
        raise InvalidMemoryError(f"unknown source '{value}'; use one of {', '.join(SOURCES)}")
    return value


def memory_text(text: str) -> str:
    """The text as stored (control characters removed, ends trimmed), within ``MAX_TEXT_CHARS``."""
    cleaned = clean_memory_text(text)
    if not cleaned:
        raise InvalidMemoryError("memory text is empty")
    if len(cleaned) > MAX_TEXT_CHARS:
        raise InvalidMemoryError(
            f"memory text is {len(cleaned):,} characters; the limit is {MAX_TEXT_CHARS:,} (keep the lesson, "
            f"link the log)"
        )
    return cleaned


def tags(values: Iterable[str]) -> tuple[str, ...]:
    """Trimmed, de-duplicated tags, at most ``MAX_TAGS``, each matching ``TAG_RE``."""
    clean = tuple(dict.fromkeys(t.strip() for t in values if t.strip()))
    if len(clean) > MAX_TAGS:
        raise InvalidMemoryError(f"{len(clean)} tags; the limit is {MAX_TAGS}")
    for t in clean:
        if not TAG_RE.match(t):
            raise InvalidMemoryError(f"tag '{t[:80]}' must be 1-64 letters, digits or . - _ / :")
    return clean


def utf8(text: str, what: str) -> None:
    """Refuse lone surrogates (``"\\ud800"`` in JSON): SQLite stores UTF-8 only."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidMemoryError(f"{what} is not valid UTF-8 text (it holds a lone surrogate)") from None


def anchor_path(file: str) -> str:
    """A workspace-relative POSIX path as anchors store it, checked without touching the disk.

    Refused: NUL and other control characters, absolute paths, ``..``, ``.``, empty or doubled
    separators, backslashes (a Windows separator: ``..\\..\\x``, ``\\\\host\\share``) and drive letters.
    """
    if "\x00" in file:
        raise InvalidMemoryError(f"{file!r} is not a usable path (it contains a NUL byte)")
    utf8(file, f"{file!r}")
    if _CONTROL_RE.search(file):
        raise InvalidMemoryError(f"{file!r} is not a usable path (it contains a control character)")
    if file.startswith("/") or "\\" in file or _DRIVE_RE.match(file) or ".." in file.split("/"):
        raise InvalidMemoryError(f"{file!r} is outside the workspace: an anchor is a path inside the workspace")
    if file in ("", ".") or posixpath.normpath(file) != file:
        raise InvalidMemoryError(f"{file!r} is not a file path in the workspace (write it as a/b/c.py)")
    return file


def anchor_in_workspace(root: Path, file: str) -> None:
    """``file`` (already through ``anchor_path``) must stay in ``root`` through symlinks, and be a file if it exists.

    A file that does not exist here yet is allowed: a teammate's memory may be about code on another
    branch; it is reconciled (orphaned) like any memory whose code is gone.
    """
    root = Path(root).resolve()
    try:
        full = (root / file).resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop on Python 3.11
        raise InvalidMemoryError(f"{file} cannot be resolved ({exc})") from None
    if not full.is_relative_to(root):
        raise InvalidMemoryError(f"{file} is outside the workspace {root} (through a symbolic link)")
    if full == root:
        raise InvalidMemoryError(f"{file} is the workspace itself, not a file in it")
    if os.path.lexists(full) and not full.is_file():
        raise InvalidMemoryError(f"{file} is not a file in the workspace")


def line(value: object, what: str) -> int | None:
    """A 1-based line number within ``MAX_LINE``, or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidMemoryError(f"{what} must be a line number or null")
    if value < 1:
        raise InvalidMemoryError(f"line numbers start at 1, got {value}")
    if value > MAX_LINE:
        raise InvalidMemoryError(f"line {value} is past the {MAX_LINE:,} lines any source file has")
    return value


def counter(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNTER:
        raise InvalidMemoryError(f"{what} must be a whole number from 0 to {MAX_COUNTER:,}")
    return value


def confidence(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or not 0 <= value <= 1:
        raise InvalidMemoryError("confidence must be a number from 0 to 1")
    return float(value)


def label(value: object, what: str, limit: int = MAX_LABEL_CHARS, optional: bool = True) -> str | None:
    """A short single-line string (symbol, reason, id): no control characters, valid UTF-8, bounded."""
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        raise InvalidMemoryError(f"{what} must be a non-empty string" + (" or null" if optional else ""))
    utf8(value, what)
    if len(value) > limit:
        raise InvalidMemoryError(f"{what} is {len(value):,} characters; the limit is {limit:,}")
    if _CONTROL_RE.search(value):
        raise InvalidMemoryError(f"{what} holds a control character (a newline, an escape…)")
    return value


def json_depth(value: Any) -> int:
    """How deeply ``value`` nests lists and objects (iteratively: a hostile depth cannot recurse us out)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in item)
    return deepest


def provenance(value: object) -> dict[str, Any] | None:
    """Where a mined memory came from: a small JSON object (commits, anchor outcome), or None."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InvalidMemoryError("provenance must be a JSON object")
    if json_depth(value) > MAX_PROVENANCE_DEPTH:
        raise InvalidMemoryError(f"provenance nests deeper than {MAX_PROVENANCE_DEPTH} levels")
    size = len(json.dumps(value, ensure_ascii=False))
    if size > MAX_PROVENANCE_CHARS:
        raise InvalidMemoryError(f"provenance is {size:,} characters; the limit is {MAX_PROVENANCE_CHARS:,}")
    return value
