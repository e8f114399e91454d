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

from forewarn.indexing.languages import language_for_path
from forewarn.memory import lifecycle
from forewarn.memory.errors import InvalidMemoryError
from forewarn.memory.records import Anchor
from forewarn.workspace.protocols import IndexerLike
from forewarn.workspace.symbol_names import (
    FIRST_ORDINAL,
    base_symbol,
    called_name,
    indexed_path,
    picking_symbol,
    spoken_path,
    spoken_symbol,
)

SYMBOLS_LISTED = 12  # definitions named after "no symbol 'X' in F", or in a refusal of a name meaning several
# languages whose same-named definitions of one scope are overloads (elsewhere they are redefinitions, ``#[cfg]`` twins)
OVERLOADING = frozenset({"java", "cpp", "csharp", "kotlin", "scala", "swift", "dart", "typescript", "tsx"})
PARAMETERS_SHOWN_CHARS = 60  # an overload's ``value(double value)`` in a refusal, cut past this
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
        *,
        as_indexed: bool = False,
    ) -> Anchor | None:
        """The anchor for a file, a symbol in it, or a line or selection in it (None: workspace-wide).

        A selection anchors to the innermost chunk holding all of it; top-level code anchors file-wide
        and keeps the span. ``as_indexed``: ``symbol`` is the index's own path (a mined lesson's, a chunk's), so
        a plain ``get`` is the first of same-named definitions, not a name to refuse (:meth:`_named`).
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
            chunk = self.indexer.chunk_by_symbol(rel, symbol) if as_indexed else None
            chunk = chunk or self._named(rel, symbol)
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
        """The chunk ``symbol`` names: its dotted path, or as its language writes it (``registry::get`` in C++, Rust
        and Ruby; ``(*Mux).Use`` in Go: :func:`indexed_path`), or the path's tail when one definition ends so
        (``registry.get`` for ``spdlog.details.registry.get``). A name with several definitions, overloads
        (``JsonWriter.value``: ``value(String)``, ``value(double)``…) or a path's tail ending several definitions
        (``next`` for ``Walk::next`` and ``WalkEventIter::next``), is refused with each of them, its lines and the
        name that picks it (``JsonWriter.value#5``): which one is the person's to say, never guessed. Only
        ``@overload`` stubs before the one implementation leave a name meaning one definition."""
        dotted = indexed_path(symbol)
        picked = "#" in dotted  # ``value#5``, ``Outer#2.inner``: one of same-named definitions, by its ordinal
        dotted = dotted.removesuffix(FIRST_ORDINAL)  # the first of them, stored with no ordinal
        chunks = [c for c in self.indexer.chunks_for(rel) if c.part == 0 and c.kind != "module"]
        chunk = self.indexer.chunk_by_symbol(rel, dotted)
        if chunk is not None:
            if picked:
                return chunk
            spoken = spoken_path(dotted)
            named = [c for c in chunks if spoken_path(c.symbol) == spoken]
            if len([c for c in named if not is_overload_stub(c.text)]) <= 1:
                return chunk  # one definition (or one implementation after its stubs: ``_implementation``)
            _refuse(symbol, rel, named, _same_named(rel))
        tail = {c.symbol for c in chunks if c.symbol.endswith(f".{dotted}")}
        if not tail:
            return None
        named = [c for c in chunks if c.symbol in tail or base_symbol(c.symbol) in tail]  # with their overloads
        if (picked and len(tail) == 1) or len([c for c in named if not is_overload_stub(c.text)]) <= 1:
            return next(c for c in named if c.symbol in tail)
        _refuse(symbol, rel, named, _same_named(rel) if len(tail) == 1 else "definitions")

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


def _refuse(asked: str, rel: str, named: list[Any], what: str) -> None:
    """ "'value' names 7 overloads in F: give one of JsonWriter.value#1 (lines 526-535: value(String value)), …":
    each definition as ``--symbol`` picks it, with its lines (and, where they differ, its parameters); where one
    is picked by its ordinal, how else to pick it: a line inside it."""
    named = sorted(named, key=lambda c: (c.start_line, c.symbol))
    shared = Counter(spoken_path(c.symbol) for c in named)
    params = [_parameters(c) for c in named]
    differ = len(set(params)) > 1
    said = ", ".join(
        f"{typed_symbol(c.symbol, rel, namesakes=shared[spoken_path(c.symbol)] > 1)} "
        f"({_lines(c.start_line, c.end_line)}{f': {p}' if differ and p else ''})"
        for c, p in zip(named[:SYMBOLS_LISTED], params, strict=False)
    )
    more = f" and {len(named) - SYMBOLS_LISTED} more" if len(named) > SYMBOLS_LISTED else ""
    by_line = "; or give a line inside the one meant instead of a symbol" if max(shared.values()) > 1 else ""
    raise InvalidMemoryError(f"'{asked}' names {len(named)} {what} in {rel}: give one of {said}{more}{by_line}")


def _same_named(rel: str) -> str:
    """What same-named definitions of one scope are in ``rel``'s language."""
    spec = language_for_path(rel)
    return "overloads" if spec is not None and spec.name in OVERLOADING else "definitions"


def _parameters(chunk: Any) -> str:
    """A definition's name and parameter list from its header (``value(double value)``), to tell overloads apart;
    "" when its header has none, and cut where it runs long."""
    name = called_name(chunk.symbol)
    signature = " ".join(str(chunk.signature or "").split())
    start = signature.find(f"{name}(")
    if start < 0:
        return ""
    depth = 0
    for end in range(start + len(name), len(signature)):
        depth += {"(": 1, ")": -1}.get(signature[end], 0)
        if depth == 0:
            said = signature[start : end + 1]
            return said if len(said) <= PARAMETERS_SHOWN_CHARS else said[: PARAMETERS_SHOWN_CHARS - 1] + "…)"
    return ""


def typed_symbol(symbol: str, rel: str, *, namesakes: bool = False) -> str:
    """A definition as ``--symbol`` takes it back, written as its language writes the path (``Walk::next`` in Rust,
    C and C++; ``Node.before`` elsewhere), keeping the index's ``#2`` only where it picks one of same-named ones, and
    for the first of ``namesakes`` (same-named definitions of its file) ``#1``: its plain name means all of them."""
    symbol = picking_symbol(symbol, namesakes=namesakes)
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
    key = base_symbol(indexed_path(asked)).lower()
    near = {s: _nearness(key, s) for s in spans}
    listed = sorted(spans, key=lambda s: (-near[s], spans[s][0], s))[:SYMBOLS_LISTED]
    more = len(spans) - len(listed)
    tail = f" and {more} more" if more else ""
    shared = Counter(base_symbol(s) for s in spans)
    said = [
        f"{typed_symbol(s, rel, namesakes=True)} ({_lines(*spans[s])})"
        if shared[base_symbol(s)] > 1
        else typed_symbol(s, rel)
        for s in listed
    ]
    listing = f"definitions there: {', '.join(said)}{tail}{errors}"
    best = near[listed[0]]
    if best >= NEAR_SYMBOL_CUTOFF and len({base_symbol(s) for s in spans if near[s] == best}) == 1:  # one is meant
        meant = typed_symbol(listed[0], rel, namesakes=shared[base_symbol(listed[0])] > 1)
        return f"; did you mean {meant}? ({listing})"
    return f"; {listing}"
