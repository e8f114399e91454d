"""Where a memory applies: workspace-relative paths and anchors (file, symbol, line, selection).

Paths are checked here (inside the workspace, UTF-8, no NUL) so every front end gets the same
messages; symbols and lines are resolved against the code index, indexing a file first if needed.
"""

from __future__ import annotations

import difflib
import os
import posixpath
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from forewarn.memory import lifecycle
from forewarn.memory.errors import InvalidMemoryError
from forewarn.memory.records import Anchor
from forewarn.workspace.protocols import IndexerLike
from forewarn.workspace.symbols import base_symbol, spoken_symbol

SYMBOLS_LISTED = 12  # definitions named after "no symbol 'X' in F"
NEAR_SYMBOL_CUTOFF = 0.75  # difflib ratio at which a definition's name reads as what was meant
# ``@overload``, ``@typing.overload``, ``@t.overload`` before a definition: a type checker's stub, not the code
OVERLOAD_DECORATOR = re.compile(r"@\s*(?:[A-Za-z_][\w.]*\.)?overload\b")


class AnchorResolver:
    """Paths and anchors of one workspace. ``reindex`` indexes files not yet in the index (and reconciles)."""

    def __init__(self, root: Path, indexer: IndexerLike, reindex: Callable[[Sequence[str]], object]) -> None:
        self.root = root
        self._root_str = str(root).rstrip(os.sep) + os.sep
        self.indexer = indexer
        self._reindex = reindex

    def rel_path(self, file: str | Path) -> str:
        """A workspace-relative POSIX path; clear errors for paths outside the workspace."""
        text = os.fspath(file)
        if "\x00" in text:
            raise InvalidMemoryError(f"{text!r} is not a usable path (it contains a NUL byte)")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            # undecodable file-name bytes: anchors are stored as UTF-8 text and would not round-trip
            raise InvalidMemoryError(f"{text!r} is not a UTF-8 path; rename the file to anchor to it") from None
        p = Path(text)
        try:
            full = (p if p.is_absolute() else self.root / p).resolve()
        except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop on Python 3.11
            raise InvalidMemoryError(f"{text} cannot be resolved ({exc})") from None
        try:
            rel = full.relative_to(self.root)
        except ValueError:
            raise InvalidMemoryError(f"{file} is outside the workspace {self.root}") from None
        if str(rel) == ".":
            raise InvalidMemoryError(f"{file} is the workspace itself, not a file in it")
        return rel.as_posix()

    def lookup_path(self, file: str | Path) -> str:
        """``rel_path`` without touching the disk, for read-only lookups on hot paths (file open, hover).

        Memories are looked up by this string only; nothing is read from it, so symlinks do not matter
        here. Anything unusual (``..``, a path not under the root as given) takes the resolving route.
        """
        text = os.fspath(file)
        if "\x00" in text:  # no file has one; echoed back, it could end a C string or a line in an answer
            raise InvalidMemoryError("a path may not contain a NUL character; nothing was looked up")
        root = self._root_str
        if os.path.isabs(text):
            if not text.startswith(root):
                return self.rel_path(file)
            text = text[len(root) :]
        norm = posixpath.normpath(text.replace(os.sep, "/")).lstrip("/")
        if norm in ("", ".") or norm == ".." or norm.startswith("../"):
            return self.rel_path(file)
        return norm

    def _check_line(self, rel: str, line: int) -> None:
        """A line past the end of the file is bad input (and a 20-digit one would overflow SQLite)."""
        count, last = 0, b"\n"
        try:
            with open(self.root / rel, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    count, last = count + block.count(b"\n"), block[-1:]
        except OSError as exc:
            raise InvalidMemoryError(f"cannot read {rel}: {exc.strerror or exc}") from None
        count += last != b"\n"  # a last line without its newline
        if line > count:
            raise InvalidMemoryError(f"line {line} is past the end of {rel} ({count} line{'s' if count != 1 else ''})")

    def _ensure_indexed(self, rel: str) -> None:
        if rel not in self.indexer.files():
            self._reindex([rel])

    def resolve(
        self,
        file: str | Path | None,
        symbol: str | None = None,
        line: int | None = None,
        lines: tuple[int, int] | None = None,
    ) -> Anchor | None:
        """The anchor for a file, a symbol in it, or a line or selection in it (None: workspace-wide).

        A selection anchors to the innermost chunk holding all of it; top-level code anchors file-wide
        and keeps the span.
        """
        if file is None:
            if symbol is not None or line is not None or lines is not None:
                raise InvalidMemoryError("a symbol, line or selection needs a file")
            return None
        if lines is not None and symbol is None:
            start, end = lines
            if start < 1 or end < start:
                raise InvalidMemoryError(f"a selection runs from line {start} to {end}: lines start at 1, in order")
            rel = self.rel_path(file)
            if not (self.root / rel).is_file():
                raise InvalidMemoryError(f"{rel} is not a file in the workspace")
            self._check_line(rel, end)
            self._ensure_indexed(rel)
            holding = [
                c
                for c in self.indexer.chunks_for(rel)
                if c.kind != "module" and c.part == 0 and c.start_line <= start and c.end_line >= end
            ]
            if holding:  # the innermost definition holding the whole selection
                best = min(holding, key=lambda c: (c.end_line - c.start_line, -c.start_line))
                return lifecycle.anchor_from_chunk(rel, self._implementation(rel, best))
            return Anchor(rel, None, start, end, None)
        rel = self.rel_path(file)
        if not (self.root / rel).is_file():
            raise InvalidMemoryError(f"{rel} is not a file in the workspace")
        if symbol is None and line is None:
            return Anchor(rel)
        self._ensure_indexed(rel)
        if symbol is not None:
            chunk = self._named(rel, symbol)
            if chunk is None:
                spans = {s: (a, b) for s, kind, a, b in self.indexer.chunk_spans(rel) if kind != "module"}
                record = self.indexer.record(rel)
                hint = _skipped_hint(record) or _symbols_hint(symbol, spans, rel, recovered=_recovered(record))
                raise InvalidMemoryError(f"no symbol '{symbol}' in {rel}{hint}")
            return lifecycle.anchor_from_chunk(rel, self._implementation(rel, chunk))
        assert line is not None
        if line < 1:
            raise InvalidMemoryError(f"line numbers start at 1, got {line}")
        self._check_line(rel, line)
        chunk = self.indexer.chunk_at(rel, line)
        if chunk is None or chunk.kind == "module":
            return Anchor(rel, None, line, line, None)  # top-level code: file-wide, remembering the line
        return lifecycle.anchor_from_chunk(rel, self._implementation(rel, chunk))

    def _named(self, rel: str, symbol: str) -> Any:
        """The chunk ``symbol`` names: its dotted path, or as C++, Rust and Ruby write it (``registry::get``), or the
        path's tail when one definition ends so (``registry.get`` for ``spdlog.details.registry.get``). A tail that
        ends several definitions (``next`` for ``Walk::next`` and ``WalkEventIter::next``), or one with overloads, is
        refused with each of them and its lines: which one is the person's to say, never guessed."""
        dotted = symbol.replace("::", ".")
        chunk = self.indexer.chunk_by_symbol(rel, dotted)
        if chunk is not None:
            return chunk
        chunks = [c for c in self.indexer.chunks_for(rel) if c.part == 0 and c.kind != "module"]
        tail = {c.symbol for c in chunks if c.symbol.endswith(f".{dotted}")}
        if not tail:
            return None
        named = [c for c in chunks if c.symbol in tail or base_symbol(c.symbol) in tail]  # with their overloads
        if len(named) == 1:
            return named[0]
        named.sort(key=lambda c: (c.start_line, c.symbol))
        said = ", ".join(
            f"{typed_symbol(c.symbol, rel)} ({_lines(c.start_line, c.end_line)})" for c in named[:SYMBOLS_LISTED]
        )
        more = f" and {len(named) - SYMBOLS_LISTED} more" if len(named) > SYMBOLS_LISTED else ""
        what = "overloads" if len(tail) == 1 else "definitions"
        raise InvalidMemoryError(f"'{symbol}' names {len(named)} {what} in {rel}: give one of {said}{more}")

    def _implementation(self, rel: str, chunk: Any) -> Any:
        """The definition a memory about ``chunk`` is about: for an ``@overload`` stub, the implementation that
        follows its stubs (the same name, not a stub), so a change to the code that runs is a change to the
        memory's code; any other definition is itself."""
        if not is_overload_stub(chunk.text):
            return chunk
        base = base_symbol(chunk.symbol)
        same = [c for c in self.indexer.chunks_for(rel) if c.part == 0 and base_symbol(c.symbol) == base]
        return next((c for c in same if not is_overload_stub(c.text)), chunk)


def is_overload_stub(text: str) -> bool:
    """Whether a definition's text (decorators first) is an ``@overload`` stub."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("@"):
            return False  # past the decorators
        if OVERLOAD_DECORATOR.match(stripped):
            return True
    return False


# why the index left a file out, as a person can act on it (``forewarn.indexing.scanner``'s reasons)
_SKIPPED_BECAUSE = {
    "minified": "its average line is longer than index.max_line_length (read as minified); raise that to index it",
    "oversized": "it is larger than index.max_file_bytes; raise that to index it",
    "binary": "it is binary",
}


def _skipped_hint(record: Any) -> str:
    """What to say after "no symbol 'X' in F" when the index skipped F: why, and how to have it indexed."""
    if record is None or getattr(record, "status", None) != "skipped":
        return ""
    reason = str(getattr(record, "reason", "") or "")
    because = _SKIPPED_BECAUSE.get(reason, f"the index skipped it ({reason})" if reason else "the index skipped it")
    return f" (the index left it out: {because})"


def _recovered(record: Any) -> bool:
    """The index parsed the file with syntax errors (macros, syntax its grammar lacks)."""
    return record is not None and getattr(record, "status", None) == "errors"


def typed_symbol(symbol: str, rel: str) -> str:
    """A definition as ``--symbol`` takes it back, written as its language writes the path (``Walk::next`` in Rust,
    C and C++; ``Node.before`` elsewhere), keeping the index's ``#2`` only where it picks one of same-named ones."""
    spoken = spoken_symbol(symbol, rel)
    if "#" not in symbol:
        return spoken
    return symbol.replace(".", "::") if "::" in spoken else symbol


def _lines(start: int, end: int) -> str:
    return f"line {start}" if end == start else f"lines {start}-{end}"


def _nearness(asked: str, symbol: str) -> float:
    """How close a definition's name is to what was asked: its whole path, or its last part (``nxt`` is near
    ``Walk.next``), case aside, as a difflib ratio."""
    path = ".".join(base_symbol(part) for part in base_symbol(symbol).split(".")).lower()
    whole = difflib.SequenceMatcher(None, asked, path).ratio()
    last = difflib.SequenceMatcher(None, asked.rsplit(".", 1)[-1], path.rsplit(".", 1)[-1]).ratio()
    return max(whole, last)


def _symbols_hint(asked: str, spans: dict[str, tuple[int, int]], rel: str, *, recovered: bool = False) -> str:
    """What to say after "no symbol 'X' in F": the definitions whose names are nearest to ``asked`` first (a typo's
    intended name leads, as "did you mean"), at most ``SYMBOLS_LISTED``, each as ``--symbol`` takes it
    (:func:`typed_symbol`); one of several same-named ones (``get#2``) with its lines, which say which one it is.
    Top-level code is no symbol to name."""
    errors = "; the file parsed with syntax errors, so some may be missing" if recovered else ""
    if not spans:
        return f" (no definitions were found in it{errors})"
    key = base_symbol(asked.replace("::", ".")).lower()
    near = {s: _nearness(key, s) for s in spans}
    listed = sorted(spans, key=lambda s: (-near[s], spans[s][0], s))[:SYMBOLS_LISTED]
    more = len(spans) - len(listed)
    tail = f" and {more} more" if more else ""
    shared = Counter(base_symbol(s) for s in spans)
    said = [
        f"{typed_symbol(s, rel)} ({_lines(*spans[s])})" if shared[base_symbol(s)] > 1 else typed_symbol(s, rel)
        for s in listed
    ]
    listing = f"definitions there: {', '.join(said)}{tail}{errors}"
    best = near[listed[0]]
    if best >= NEAR_SYMBOL_CUTOFF and len({base_symbol(s) for s in spans if near[s] == best}) == 1:  # one is meant
        return f"; did you mean {typed_symbol(listed[0], rel)}? ({listing})"
    return f"; {listing}"
