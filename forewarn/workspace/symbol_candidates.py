"""Which of several candidate definitions a name at a place means: one definition (a file's same-named ones as one),
narrowed by what the receiver's name says, a member or a free function by its kind, and the class or definition
around a line. Pure functions over the index's rows, used by :mod:`forewarn.workspace.symbols`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from forewarn.indexing import lookup
from forewarn.indexing.std_paths import STD_CRATES
from forewarn.workspace.declared_types import class_of as _owner
from forewarn.workspace.symbol_names import base_symbol

SELF_NAMES = frozenset({"self", "this", "cls", "super", "Self", "@"})  # a receiver meaning "this class"
# definitions called or named bare wherever they are nested: a namespace's function, a nested class
FREE_KINDS = frozenset({"function", "class", "struct", "enum", "union", "interface", "trait", "type", "macro"})


def owner_path(symbol: str) -> str:
    """The class path a member belongs to: ``Node.before#2`` → ``Node``."""
    return base_symbol(symbol).rpartition(".")[0]


def unique(
    chunks: Sequence[tuple[str, str, int, int]], rel: str, receiver: str | None
) -> tuple[str, tuple[str, ...]] | None:
    return unique_defs([(rel, c[0]) for c in chunks], receiver)


def unique_defs(defs: Sequence[tuple[str, str]], receiver: str | None) -> tuple[str, tuple[str, ...]] | None:
    """One definition (same-named ones of a file as one), narrowed by the receiver's name when several."""
    groups: dict[tuple[str, str], list[str]] = {}
    for rel, symbol in defs:
        groups.setdefault((rel, base_symbol(symbol)), []).append(symbol)
    if len(groups) > 1 and (named := {(rel, base_symbol(s)) for rel, s in named_by(defs, receiver)}):
        groups = {k: v for k, v in groups.items() if k in named}
    if len(groups) != 1:
        return None
    (rel, _), symbols = next(iter(groups.items()))
    return rel, tuple(dict.fromkeys(symbols))


def named_by(defs: Sequence[tuple[str, str]], receiver: str | None) -> list[tuple[str, str]]:
    """Those of ``defs`` whose class the receiver's name names: ``invoice.total()`` → ``Invoice.total``."""
    if not receiver or receiver in SELF_NAMES:
        return []
    wanted = receiver.lower().replace("_", "")
    return [d for d in defs if _owner(d[1]).lower().replace("_", "") == wanted]


def through_std(ident: lookup.Ident, binds: Mapping[str, lookup.Binding]) -> bool:
    """Whether a Rust name is the standard library's: its path starts at ``std``/``core``/``alloc`` or at a name a
    ``use`` of one binds (``io::ErrorKind`` after ``use std::io;``), or a ``use`` so binds the name itself."""
    root = ident.path_root if ident.path_root is not None else ident.name if ident.receiver is None else None
    bound = binds.get(root) if root is not None else None
    return root in STD_CRATES or (bound is not None and bound.source.split("::", 1)[0] in STD_CRATES)


def literal_member(kind: str, symbol: str) -> bool:
    """A method that belongs to no class: one written in an object literal or a proxy's trap table
    (``const traps = { set(…) {…} }`` indexes ``set``), reached only through the object that holds it."""
    return kind == "method" and "." not in base_symbol(symbol)


def enclosing_class(chunks: Sequence[tuple[str, str, int, int]], line: int) -> str | None:
    """The symbol of the innermost class-like chunk holding ``line`` that has methods (its path prefix)."""
    holding = [c for c in chunks if c[2] <= line <= c[3] and c[1] not in ("module", "function", "method")]
    if not holding:
        return None
    return base_symbol(min(holding, key=lambda c: c[3] - c[2])[0])


def is_member(kind: str, symbol: str) -> bool:
    """A method (called on an object), by its kind; a nested definition of another kind is a member only when its
    path says so and its kind is unknown: a C++ or Rust function in a namespace (``spdlog.details.os._thread_id``)
    is called bare, as a top-level one is."""
    if kind in FREE_KINDS:
        return False
    return kind == "method" or "." in symbol


def class_elsewhere(
    chunks: Sequence[tuple[str, str, int, int]] | None, named: Sequence[Any], rel: str, name: str, line: int
) -> list[tuple[str, str]]:
    """Definitions in other files of ``name`` as a member of the class around ``line`` (``void flush();`` in
    logger.h's ``class logger``, defined as ``logger::flush`` in logger-inl.h)."""
    enclosing = enclosing_class(chunks, line) if chunks is not None else None
    if not enclosing:
        return []
    member = f"{enclosing}.{name}"
    return [(d.rel, d.symbol) for d in named if d.rel != rel and base_symbol(d.symbol) == member]


def qualified_by(symbol: str, receiver: str | None) -> bool:
    """``symbol`` is named through its enclosing namespace or class: ``os::thread_id()`` for
    ``spdlog.details.os.thread_id``."""
    return receiver is not None and "." in symbol and _owner(symbol).rsplit(".", 1)[-1] == receiver


def enclosing_definition(chunks: Sequence[tuple[str, str, int, int]], line: int) -> str | None:
    """The symbol of the innermost definition holding ``line`` (where a variable used there is declared)."""
    holding = [c for c in chunks if c[2] <= line <= c[3] and c[1] != "module"]
    return min(holding, key=lambda c: c[3] - c[2])[0] if holding else None
