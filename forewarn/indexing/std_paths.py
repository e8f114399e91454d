"""Rust references that name the standard library's items: ``io::ErrorKind`` after ``use std::io;``,
``std::io::ErrorKind``, ``fmt::Error``, ``core::mem::take``, or a bare ``ErrorKind`` after ``use std::io::ErrorKind;``.

Such a reference is never a use of a workspace definition that shares its last name (ripgrep's three ``ErrorKind``
enums are not ``std::io::ErrorKind``, which 18 of its files name 31 times): the index keeps none of them, so they draw
no edge in the code graph and hand no rank to a namesake; a hover on one says nothing (``workspace.symbols``, from
the path's first segment: :func:`path_root`, :func:`path_root_before`). A path through the workspace (``crate::``,
``super::``, a workspace crate) or through a crate the file alone cannot place keeps counting. Only a file's top-level
``use`` declarations are read: a ``use`` inside a function or an inline ``mod`` binds only there.
"""

from __future__ import annotations

import re

from tree_sitter import Node

STD_CRATES = frozenset({"std", "core", "alloc"})  # the standard library's crates, never a workspace's
SCOPED_PATHS = frozenset({"scoped_identifier", "scoped_type_identifier"})  # ``a::b``: ``path`` then ``name``
PATH_BEFORE = re.compile(r"(?<![\w:])([A-Za-z_]\w*)\s*::(?:\s*[A-Za-z_]\w*\s*::)*\s*$")  # ``std::env::`` before a name
PATH_LOOKBEHIND = 200  # characters a path before a name is looked for in (paths are a few segments)


def without_std(refs: dict[int, tuple[Node, str]], root: Node, source: bytes) -> dict[int, tuple[Node, str]]:
    """``refs`` (start byte → (name node, category)) less those naming a standard-library item."""
    bound = std_bound(root, source)
    return {start: ref for start, ref in refs.items() if not through_std(ref[0], source, bound)}


def std_bound(root: Node, source: bytes) -> frozenset[str]:
    """The names the file's top-level ``use`` declarations bind to a standard-library path: ``io`` for
    ``use std::io;`` and ``use std::{fmt, io::{self, Write}}`` (also ``fmt``, ``Write``), ``f`` for
    ``use std::fmt as f;``. A glob (``use std::io::*``) binds names nobody can list here: none."""
    bound: set[str] = set()
    for node in root.children:
        if node.type == "use_declaration" and (argument := node.child_by_field_name("argument")) is not None:
            _bind(argument, None, source, bound)
    return frozenset(bound)


def through_std(node: Node, source: bytes, bound: frozenset[str]) -> bool:
    """Whether the reference ``node`` (a name) names a standard-library item: the last name of a path whose first
    segment is ``std``, ``core``, ``alloc`` or a name bound to one (``bound``: :func:`std_bound`), or a bare name
    so bound."""
    parent = node.parent
    if parent is None or parent.type not in SCOPED_PATHS or not _is_name_of(parent, node):
        return _text(node, source) in bound
    first = path_root(node, source)  # None: ``::Name``, the crate root of a 2015-edition crate
    return first is not None and (first in STD_CRATES or first in bound)


def _bind(node: Node, prefix: str | None, source: bytes, bound: set[str]) -> None:
    """Add to ``bound`` the names ``node`` (a use argument or list item) binds to a standard-library path;
    ``prefix``: the first segment of the path the list it sits in is under (None at the top)."""
    kind = node.type
    if kind in SCOPED_PATHS:
        first = prefix or first_segment(node, source)
        name = node.child_by_field_name("name")
        if first in STD_CRATES and name is not None:
            bound.add(_text(name, source))
    elif kind == "identifier":
        if prefix in STD_CRATES:
            bound.add(_text(node, source))
    elif kind == "self":
        return  # ``io::{self}``: bound by the enclosing list (below)
    elif kind == "use_as_clause":
        path, alias = node.child_by_field_name("path"), node.child_by_field_name("alias")
        if path is not None and alias is not None and (prefix or first_segment(path, source)) in STD_CRATES:
            bound.add(_text(alias, source))
    elif kind == "scoped_use_list":
        path, items = node.child_by_field_name("path"), node.child_by_field_name("list")
        under = prefix or (first_segment(path, source) if path is not None else None)
        if items is None or under not in STD_CRATES:
            return
        for item in items.named_children:
            if item.type == "self" and path is not None:  # ``io::{self, Write}`` binds ``io``
                bound.add(_last_segment(path, source))
            else:
                _bind(item, under, source, bound)
    elif kind == "use_list":
        for item in node.named_children:
            _bind(item, prefix, source, bound)


def _is_name_of(path: Node, node: Node) -> bool:
    name = path.child_by_field_name("name")
    return name is not None and name.start_byte == node.start_byte and name.end_byte == node.end_byte


def path_root(node: Node, source: bytes) -> str | None:
    """``std`` for ``current_dir`` in ``std::env::current_dir``: the first segment of the path ``node`` ends, if it
    ends one."""
    parent = node.parent
    if parent is None or parent.type not in SCOPED_PATHS or not _is_name_of(parent, node):
        return None
    path = parent.child_by_field_name("path")
    return first_segment(path, source) if path is not None else None


def path_root_before(text: str, pos: int) -> str | None:
    """:func:`path_root` read from text: ``std`` for the name at ``pos`` of ``text`` in ``std::env::current_dir``."""
    found = PATH_BEFORE.search(text, max(0, pos - PATH_LOOKBEHIND), pos)
    return found.group(1) if found else None


def first_segment(path: Node, source: bytes) -> str:
    """``std`` of ``std::io::ErrorKind``: the leftmost segment of a path."""
    while path.type in SCOPED_PATHS and (inner := path.child_by_field_name("path")) is not None:
        path = inner
    return _text(path, source)


def _last_segment(path: Node, source: bytes) -> str:
    name = path.child_by_field_name("name") if path.type in SCOPED_PATHS else None
    return _text(name if name is not None else path, source)


def _text(node: Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")
