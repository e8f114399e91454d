"""How a symbol path reads: its name, the name code calls it by, and its language's way of writing it.

The index names a definition by its path of enclosing names (``Node.before``), with ``#2``, ``#3``… for a second or
third definition of one path in a file (overloads, redefinitions): the path's identity in the store and in commands'
arguments, which a reader is never shown.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence

from forewarn.indexing.languages import language_for_path

SCOPE_SEPARATED = frozenset({"c", "cpp", "rust"})  # languages writing a qualified name ``a::b`` (spoken_symbol)
DISAMBIGUATOR = re.compile(r"#\d+$")  # ``helper#2``: the second definition of helper in its file
FIRST_ORDINAL = "#1"  # ``helper#1``: the first of same-named definitions, which the index stores as plain ``helper``
# Go's way of writing a method, ``(*Mux).Use`` or ``(Mux).Use``, also with its package's path as a panic or pprof
# writes it (``github.com/go-chi/chi/v5.(*Mux).Use``) and its type's parameters (``(*Tree[K]).Get``)
GO_RECEIVER = re.compile(r"^(?:[\w.~/-]*\.)?\(\s*\*?\s*([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?\)\.")
SYMBOL_NAMES_CACHED = 1 << 16  # symbol → its name(s), asked for every neighbour row on every open: a few MB at most


def symbol_label(
    symbol: str,
    start_line: int | None,
    end_line: int | None,
    *,
    namesakes: bool = False,
    quote: Callable[[str], str] = str,
    file: str | None = None,
) -> str:
    """A symbol path as people and agents read it: the name (``quote``d), and for one of several same-named
    definitions of its file (``Node.before#2``, or ``namesakes``: the first of them) which one, by its lines, as
    ``memory list`` shows it: ``Node.before (lines 403-412)``. The ``#2`` is the index's ordinal (the symbol's
    identity in the store and in commands' arguments), which means nothing to a reader: never shown. ``file``: the
    symbol's, for its language's way of writing the path (``spdlog::logger::flush``: :func:`spoken_symbol`)."""
    spoken = spoken_symbol(symbol, file)
    if (namesakes or base_symbol(symbol) != symbol) and start_line:
        return f"{quote(spoken)} (lines {start_line}-{end_line or start_line})"
    return quote(spoken)


def has_namesakes(spans: Sequence[tuple[str, str, int, int]], symbol: str) -> bool:
    """Whether the file of ``spans`` (``chunk_spans``: symbol first) defines ``symbol``'s name more than once."""
    base = base_symbol(symbol)
    return base != symbol or any(s != symbol and base_symbol(s) == base for s, *_ in spans)


@functools.lru_cache(maxsize=SYMBOL_NAMES_CACHED)
def base_symbol(symbol: str) -> str:
    return DISAMBIGUATOR.sub("", symbol)


def spoken_symbol(symbol: str, file: str | None = None) -> str:
    """A symbol path as its language writes a qualified name, with no index disambiguator anywhere in it:
    ``Node.before`` (Java, Python, TypeScript, Go, Ruby), ``spdlog::details::os::thread_id`` (C++, and C's rare
    nested names), ``Body::new`` (Rust); ``get_cached_power#2.vformat`` says ``get_cached_power.vformat``."""
    path = spoken_path(symbol)
    spec = language_for_path(file) if file else None
    return path.replace(".", "::") if spec is not None and spec.name in SCOPE_SEPARATED else path


def indexed_path(written: str) -> str:
    """A symbol as a person or agent writes it, as the index's dotted path: ``Walk::next`` (C++, Rust, Ruby) and
    ``(*Mux).Use`` / ``(Mux).Use`` (Go) say ``Walk.next`` and ``Mux.Use``; an ordinal (``get#2``) stays."""
    return GO_RECEIVER.sub(r"\1.", written.strip()).replace("::", ".")


def picking_symbol(symbol: str, *, namesakes: bool) -> str:
    """The index's path as a command argument picks it: for the first of ``namesakes`` (same-named definitions of
    one file), which the index stores with no ordinal, ``#1``, so the plain name stays a question to refuse."""
    return f"{symbol}{FIRST_ORDINAL}" if namesakes and "#" not in symbol else symbol


def spoken_path(symbol: str) -> str:
    """A symbol's dotted path with no index disambiguator anywhere in it: ``get_cached_power#2.vformat`` says
    ``get_cached_power.vformat``."""
    return ".".join(base_symbol(part) for part in base_symbol(symbol).split("."))


@functools.lru_cache(maxsize=SYMBOL_NAMES_CACHED)
def called_name(symbol: str) -> str:
    """The name code elsewhere calls a definition by: ``Session.request#2`` → ``request``."""
    return base_symbol(symbol).rsplit(".", 1)[-1]
