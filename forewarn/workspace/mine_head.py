"""What exists at HEAD, as mining asks it: the workspace index's files and symbols, which of a file's same-named
definitions is which (:mod:`mine_identity`), and what a symbol's code only declares or only tests."""

from __future__ import annotations

import stat
from typing import TYPE_CHECKING

from forewarn.workspace import mine_code, mine_identity
from forewarn.workspace.mine_headlines import where
from forewarn.workspace.mine_identity import Namesake
from forewarn.workspace.mine_product import test_item
from forewarn.workspace.mine_rules import symbol_parts

if TYPE_CHECKING:
    from forewarn.indexing.store import CodeChunk
    from forewarn.workspace.engine import Workspace

MAX_OVERLOADS = 12  # ``f``, ``f#2`` … ``f#12``: the stubs looked past to find an overloaded function's implementation
# the words of a statement that declare the name after them: "export const $ZodRecord", "function setup"
DECLARING = frozenset({"const", "let", "var", "function", "class", "def", "func", "fn", "static", "val"})


class HeadIndex:
    """What exists at HEAD: the workspace index's files and symbols."""

    def __init__(self, ws: Workspace) -> None:
        self._ws = ws
        self.files = set(ws.indexer.files())
        self._chunks: dict[tuple[str, str], CodeChunk | None] = {}
        self._joined: dict[tuple[str, str], str] = {}
        self._namesakes: dict[tuple[str, str], list[Namesake]] = {}
        self._bases: dict[str, set[str]] = {}
        self._text: dict[str, list[str]] = {}

    def has_file(self, path: str) -> bool:
        """Indexed, or a regular file of the work tree (a language the index does not parse); never a link."""
        if path in self.files:
            return True
        try:
            return stat.S_ISREG((self._ws.root / path).lstat().st_mode)
        except (OSError, ValueError):
            return False

    def has_symbol(self, path: str, symbol: str) -> bool:
        return self.chunk(path, symbol) is not None

    def chunk(self, path: str, symbol: str) -> CodeChunk | None:
        """The symbol's whole chunk at HEAD (cached), or None."""
        key = (path, symbol)
        if key not in self._chunks:
            self._chunks[key] = self._ws.indexer.chunk_by_symbol(path, symbol) if path in self.files else None
        return self._chunks[key]

    def resolve(self, path: str, symbol: str) -> tuple[str | None, bool]:
        """The symbol at HEAD a lesson about ``symbol`` belongs to, and whether that code only declares types.

        An ``@overload`` stub is looked past to the implementation (``f#3`` after stubs ``f`` and ``f#2``): a
        change to an overloaded function was a change to its body. (None, False) when the symbol is gone."""
        chunk = self.chunk(path, symbol)
        if chunk is None:
            return None, False
        if not mine_code.is_stub(chunk.text, path):
            return symbol, mine_code.is_typing_only(chunk.text, path) or self._in_typing(path, symbol)
        base = symbol.rsplit("#", 1)[0] if symbol.rsplit("#", 1)[-1].isdigit() else symbol
        for n in range(2, MAX_OVERLOADS + 1):
            other = self.chunk(path, f"{base}#{n}")
            if other is None:
                break
            if not mine_code.is_stub(other.text, path):
                return other.symbol, mine_code.is_typing_only(other.text, path)
        return symbol, True

    def test_item(self, path: str, symbol: str) -> bool:
        """``symbol`` at HEAD is a Rust item marked as a test (``#[test] fn``, ``#[cfg(test)] mod``), or lies within
        one: test code beside the product's, as ripgrep keeps each flag's test beside the flag."""
        if not path.endswith(".rs"):
            return False
        parts = symbol.split(".")  # the symbol, then each definition it lies in (``tests.walk`` → ``tests``)
        for n in range(len(parts), 0, -1):
            chunk = self.chunk(path, ".".join(parts[:n]))
            if chunk is not None and test_item(chunk, self._lines(path)):
                return True
        return False

    def _lines(self, path: str) -> list[str]:
        """The file's lines at HEAD (cached; [] when it cannot be read)."""
        if path not in self._text:
            try:
                self._text[path] = (self._ws.root / path).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                self._text[path] = []
        return self._text[path]

    def _in_typing(self, path: str, symbol: str) -> bool:
        """``symbol`` is a member of a definition that only declares types: a TypeScript interface's method
        signature (zod's ``ZodObject.partial``), a ``Protocol`` class's method. Nothing of it runs."""
        parts = symbol.split(".")
        for n in range(len(parts) - 1, 0, -1):
            outer = self.chunk(path, ".".join(parts[:n]))
            if outer is not None and mine_code.declares_types(outer.text, path):
                return True
        return False

    def namesakes(self, path: str, symbol: str) -> list[Namesake]:
        """The definitions of ``symbol``'s name in ``path`` at HEAD, with where each is written (cached)."""
        key = (path, mine_identity.base_of(symbol))
        if key not in self._namesakes:
            self._namesakes[key] = self._read_namesakes(path, symbol) if path in self.files else []
        return self._namesakes[key]

    def defines_twice(self, path: str, symbol: str) -> bool:
        """``path`` at HEAD defines ``symbol``'s name more than once (``parse`` and ``parse#2``)."""
        if path not in self._bases:
            self._bases[path] = {c.symbol for c in self._ws.indexer.chunks_for(path)} if path in self.files else set()
        return f"{mine_identity.base_of(symbol)}#2" in self._bases[path]

    def _read_namesakes(self, path: str, symbol: str) -> list[Namesake]:
        chunks = [c for c in self._ws.indexer.chunks_for(path) if c.part == 0]
        return mine_identity.namesakes(chunks, symbol, self._lines(path), path)

    def written_in(self, path: str, symbol: str) -> str:
        """Where one of several same-named definitions at HEAD is written (the first words of the top-level
        statement holding it, :func:`mine_identity.context`); "" for a name defined once. zod's 46 ``parse`` are
        written in 46 schema constructors: different code, however alike their names."""
        if not self.defines_twice(path, symbol):
            return ""
        return next((n.context for n in self.namesakes(path, symbol) if n.symbol == symbol), "")

    def where(self, path: str | None, symbol: str | None) -> str:
        """The anchor as a suggestion's text names it (:func:`mine_headlines.where`), and, for one of a file's
        same-named definitions, the statement it is written in: "`parse` of `$ZodRecord`", not one of 46 `parse`."""
        said = where(path, symbol)
        written = self.written_in(path, symbol) if path and symbol else ""
        if not (path and symbol and written) or len({n.context for n in self.namesakes(path, symbol)}) < 2:
            return said  # defined once, or its namesakes all written in one statement (a getter and its setter)
        words = written.split()
        owner = words[-1]
        if owner in symbol_parts(symbol) or not DECLARING.intersection(words[:-1]):
            return said  # its path names its owner already, or no declaration names one (``impl std::fmt::Debug``)
        return f"{said} of `{owner}`"

    def code(self, path: str, symbol: str) -> str:
        """The symbol's code at HEAD as one normalized line (:func:`mine_code.joined`), "" when it is gone."""
        key = (path, symbol)
        if key not in self._joined:
            chunk = self.chunk(path, symbol)
            self._joined[key] = mine_code.joined(chunk.text, path) if chunk else ""
        return self._joined[key]
