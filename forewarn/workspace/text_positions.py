"""Positions in a file's text: LSP columns in UTF-8, UTF-16 or UTF-32 units, lines' offsets, and whole-word
occurrences of a name (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

MENTION_PROBES = 500  # occurrences of a name (inside longer words too) tried before giving up


def from_units(line: str, units: int, encoding: str) -> int:
    """The code point index of column ``units`` of ``line`` counted in ``encoding``."""
    if encoding == "utf-32":
        return units
    seen = 0
    for i, ch in enumerate(line):
        if seen >= units:
            return i
        seen += (
            len(ch.encode("utf-16-le", "surrogatepass")) // 2
            if encoding == "utf-16"
            else len(ch.encode("utf-8", "surrogatepass"))
        )
    return len(line)


def to_units(prefix: str, encoding: str) -> int:
    """The length of ``prefix`` in ``encoding`` units."""
    if encoding == "utf-32":
        return len(prefix)
    if encoding == "utf-16":
        return len(prefix.encode("utf-16-le", "surrogatepass")) // 2
    return len(prefix.encode("utf-8", "surrogatepass"))


def mentions(text: str, name: str) -> Iterable[int]:
    """Offsets of whole-word occurrences of ``name`` (``str.find`` plus a boundary check: a regex with
    look-arounds costs a millisecond per 100 kB)."""
    pos = text.find(name)
    for _ in range(MENTION_PROBES):
        if pos < 0:
            return
        end = pos + len(name)
        if (pos == 0 or not is_word(text[pos - 1])) and (end >= len(text) or not is_word(text[end])):
            yield pos
        pos = text.find(name, pos + 1)


def is_word(ch: str) -> bool:
    return ch.isalnum() or ch in "_$"


def line_starts(lines: Sequence[str]) -> list[int]:
    """The offset at which each line starts (``bisect_right(starts, pos)`` is the 1-based line of ``pos``)."""
    starts = [0]
    for row in lines[:-1]:
        starts.append(starts[-1] + len(row) + 1)
    return starts
