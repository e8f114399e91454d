"""What a hover resolves a word of a file's text to, the word found by the text of its line: shared by the hover
tests that build a small workspace and ask about one call at a time."""

from __future__ import annotations

from forewarn.workspace.engine import Workspace
from forewarn.workspace.symbols import SymbolLookup, Target


def target_at(ws: Workspace, rel: str, text: str, line_text: str, word: str) -> Target | None:
    """The definition(s) the hover on ``word`` (its first mention from ``line_text`` on, in the first line of
    ``text`` holding ``line_text``) resolves to in ``rel``; None when it says nothing."""
    lines = text.split("\n")
    row = next(i for i, line in enumerate(lines) if line_text in line)
    char = lines[row].index(word, lines[row].index(line_text))
    return SymbolLookup(ws.indexer, ws.graph).resolve(rel, text, row + 1, char)


def resolved_at(ws: Workspace, rel: str, text: str, line_text: str, word: str) -> tuple[str, tuple[str, ...]] | None:
    """:func:`target_at` as (its file, its symbols)."""
    found = target_at(ws, rel, text, line_text, word)
    return (found.file, found.symbols) if found else None
