"""What sits at a position in source text: an identifier (code, not a comment or a string), and the
names a file's import statements bind. Pure tree-sitter over small windows of a file.

Hovers and diagnostics ask about one position or a few names at a time, on the request path, so
nothing here parses a whole file: callers pass a window of whole lines that starts and ends at
statement boundaries (the spans of the indexed chunks give them), and tree-sitter parses just that.
A window starting inside a multi-line string would misread it, hence the boundaries.

Everything is language-generic: an identifier is any node whose type ends in ``identifier`` (plus
Ruby's ``constant``), text is any node whose type names a comment or a string, and what a name
declares, references or imports comes from the language's one query (``languages.py``), matched only
over the identifier's bytes.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from tree_sitter import Node, Parser, QueryCursor, Tree

from forewarn.indexing import std_paths
from forewarn.indexing.c_macros import without_macros
from forewarn.indexing.languages import LanguageSpec, compiled

IDENT_SUFFIX = "identifier"  # identifier, type_identifier, property_identifier, field_identifier, …
EXTRA_IDENT_TYPES = frozenset({"constant"})  # Ruby names its capitalised identifiers constants
TEXT_MARKERS = ("comment", "string", "heredoc", "regex")  # node types holding prose or data, not code
MEMBER_SEPARATORS = frozenset({".", "->", "::", "?."})  # obj.method, ptr->field, Type::item, a?.b
QUALIFIER_SPLIT = ("::", ".", "/", "\\")  # the last component of a dotted, scoped or path-like import
QUOTES = "\"'`<>"
MODULE_NAME_TYPES = frozenset({"dotted_name", "scoped_identifier"})  # ``import a.b``, Rust ``use a::b``
SUPER = "super"  # the receiver of ``super.m()`` / ``super().m()``, reported as this word
# a list of imported names side by side (Rust's ``{ErrorKind, WalkBuilder}``), none of them another's alias
NAME_LISTS = frozenset({"use_list"})

_local = threading.local()  # tree-sitter parsers and cursors are not thread-safe: one set per thread


@dataclass(frozen=True, slots=True)
class Ident:
    """The identifier at a position of a window."""

    name: str
    row: int  # 0-based row in the window
    start_col: int  # byte columns on that row
    end_col: int
    receiver: str | None  # what precedes ``.``/``->``/``::`` (``invoice`` in ``invoice.total``; ``super``), if anything
    role: str  # "def" (the name a definition declares), "ref" (a captured reference), "import", or "" (any other use)
    path_root: str | None = None  # ``std`` for ``current_dir`` in ``std::env::current_dir()`` (Rust, C++ paths)


@dataclass(frozen=True, slots=True)
class Binding:
    """A name an import statement brings into a file."""

    local: str  # the name the file uses
    original: str  # the name in the imported module (``local`` unless aliased)
    source: str  # the module as written (quotes stripped)
    module: bool  # the name stands for the module itself (``import numpy as np``), not a definition in it
    row: int  # 0-based row of the statement in its window


def _tools(spec: LanguageSpec) -> tuple[Parser, QueryCursor]:
    tools: dict[str, tuple[Parser, QueryCursor]] = getattr(_local, "tools", None) or {}
    _local.tools = tools
    found = tools.get(spec.name)
    if found is None:
        language, query = compiled(spec)
        found = tools[spec.name] = (Parser(language), QueryCursor(query))
    return found


def parse(spec: LanguageSpec, source: bytes) -> Tree:
    return _tools(spec)[0].parse(without_macros(source, spec.name))  # as the index parses it


def is_identifier(node: Node) -> bool:
    return node.type.endswith(IDENT_SUFFIX) or node.type in EXTRA_IDENT_TYPES


def in_text(node: Node) -> bool:
    """Whether ``node`` is (inside) a comment or a string literal."""
    current: Node | None = node
    while current is not None:
        kind = current.type
        if any(marker in kind for marker in TEXT_MARKERS):
            return True
        if current.parent is None or kind.endswith(("statement", "definition", "declaration", "block")):
            return False  # text nodes never hold statements: no need to climb further
        current = current.parent
    return False


def node_at(tree: Tree, row: int, col: int) -> Node | None:
    """The identifier node covering (row, byte col) of the window, or None (blank, keyword, comment, string…)."""
    node = tree.root_node.descendant_for_point_range((row, col), (row, col))
    if node is None or not is_identifier(node) or in_text(node):
        return None
    if not (node.start_point.row == row and node.start_point.column <= col < node.end_point.column):
        return None  # the cursor sits just past it, or between two tokens
    return node


def identifier_at(spec: LanguageSpec, source: bytes, row: int, col: int, tree: Tree | None = None) -> Ident | None:
    """The identifier at (``row``, byte ``col``) of ``source`` (a window), with its role, or None."""
    tree = tree or parse(spec, source)
    node = node_at(tree, row, col)
    if node is None:
        return None
    name = _text(source, node)
    return Ident(
        name,
        row,
        node.start_point.column,
        node.end_point.column,
        _receiver(source, node),
        _role(spec, tree, node),
        std_paths.path_root(node, source),
    )


def _text(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _receiver(source: bytes, node: Node) -> str | None:
    """``obj`` in ``obj.method`` / ``obj->f`` / ``Type::f``: the name just before the separator, if any."""
    sep = node.prev_sibling
    if sep is None or sep.type not in MEMBER_SEPARATORS:
        return None
    before = sep.prev_sibling
    if before is None:
        return None
    if _is_super(source, before):
        return SUPER
    if not is_identifier(before):  # a.b.c: take the last name of the object expression
        last = before
        while last.child_count:
            last = last.children[-1]
        before = last if is_identifier(last) else None
    return _text(source, before) if before is not None else None


def _is_super(source: bytes, node: Node) -> bool:
    """``super`` in ``super.m`` (Java, JS/TS: a keyword node) or ``super().m`` (Python: a call of ``super``)."""
    if node.type == SUPER:
        return True
    callee = node.child_by_field_name("function") if node.type == "call" else None
    return callee is not None and is_identifier(callee) and _text(source, callee) == SUPER


def _role(spec: LanguageSpec, tree: Tree, node: Node) -> str:
    """What the language's query says of this exact name node: def, ref, import, or nothing."""
    cursor = _tools(spec)[1]
    cursor.set_byte_range(node.start_byte, node.end_byte)
    try:
        found = ""
        for _, caps in cursor.matches(tree.root_node):
            role = _pattern_role(caps)
            names = [*caps.get("name", ()), *caps.get("import.name", ()), *caps.get("import.source", ())]
            if role and any(n.start_byte == node.start_byte and n.end_byte == node.end_byte for n in names):
                if role == "def":
                    return role  # a definition's own name: nothing outranks it
                found = found or role
            elif role == "import" and _inside(node, caps["import"][0]):
                found = found or "import"  # an alias: ``np`` in ``import numpy as np``
        return found
    finally:
        cursor.set_byte_range(0, 2**32 - 1)


def _pattern_role(caps: dict[str, list[Node]]) -> str:
    for cap_name in caps:
        if cap_name.startswith("definition."):
            return "def"
        if cap_name.startswith("reference."):
            return "ref"
        if cap_name == "import":
            return "import"
    return ""


def _inside(node: Node, outer: Node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def last_component(spec_text: str) -> str:
    """``charge_card`` of ``pay.charge_card``, ``pay`` of ``./lib/pay``, ``b`` of ``a::b``."""
    text = spec_text.strip().strip(QUOTES)
    for sep in QUALIFIER_SPLIT:
        text = text.rsplit(sep, 1)[-1]
    return text


# JavaScript's and TypeScript's ``import * as util from "./util.js"``: the name stands for the whole module
NAMESPACE_IMPORT_TYPES = frozenset({"namespace_import"})
# resolvers whose import is a quoted package path that binds the package's name (Go's ``import "net/http"``: ``http``)
PACKAGE_PATH_RESOLVERS = frozenset({"go"})
BLANK_IMPORT = "_"  # Go's ``import _ "embed"`` binds no name
# a major version is no part of a package's name: ``github.com/go-chi/chi/v5`` is ``chi``, ``gopkg.in/yaml.v3`` ``yaml``
GO_MAJOR_VERSION = re.compile(r"^v[0-9]+$")
GO_DOTTED_VERSION = re.compile(r"\.v[0-9]+$")
GO_NAME_AFFIXES = ("go-", "-go", ".go")  # ``github.com/mattn/go-isatty`` is package ``isatty`` by convention


def package_name(path: str) -> str | None:
    """The name a Go import path binds without an alias: its last element, less a major version suffix
    (``chi/v5`` → ``chi``, ``yaml.v3`` → ``yaml``) and a ``go-``/``-go`` affix; None when no identifier is left."""
    elements = [e for e in path.strip().strip(QUOTES).split("/") if e]
    if len(elements) > 1 and GO_MAJOR_VERSION.match(elements[-1]):
        elements.pop()
    name = GO_DOTTED_VERSION.sub("", elements[-1]) if elements else ""
    for affix in GO_NAME_AFFIXES:
        if not name.isidentifier() and affix in (name[: len(affix)], name[-len(affix) :]):
            name = name[len(affix) :] if name.startswith(affix) else name[: -len(affix)]
    return name if name.isidentifier() else None


def bindings(spec: LanguageSpec, source: bytes, tree: Tree | None = None) -> list[Binding]:
    """The names the import statements in ``source`` (a window) bind, in order."""
    tree = tree or parse(spec, source)
    cursor = _tools(spec)[1]
    out: list[Binding] = []
    for _, caps in cursor.matches(tree.root_node):
        if "import" not in caps:
            continue
        statement = caps["import"][0]
        row = statement.start_point.row
        sources = [*caps.get("import.source", ()), *caps.get("import.source.relative", ())]
        source_text = _text(source, sources[0]).strip().strip(QUOTES) if sources else ""
        for node in caps.get("import.name", ()):
            written = _text(source, node)
            original = last_component(written)
            if node.parent is not None and node.parent.type in NAMESPACE_IMPORT_TYPES:  # ``import * as util``
                out.append(Binding(original, original, source_text, True, row))
                continue
            alias = _alias(node)
            within = f"{source_text}::{written.rsplit('::', 1)[0]}" if "::" in written else source_text  # {doc::x}
            out.append(Binding(_text(source, alias) if alias else original, original, within, False, row))
        for node in sources:
            alias = _alias(node)
            if spec.resolver in PACKAGE_PATH_RESOLVERS:
                out.extend(_package_binding(source, node, alias, source_text, row))
            elif alias is not None:
                out.append(Binding(_text(source, alias), last_component(source_text), source_text, True, row))
            elif not caps.get("import.name") and (is_identifier(node) or node.type in MODULE_NAME_TYPES):
                name = last_component(source_text)
                out.append(Binding(name, name, source_text, True, row))
    return out


def _package_binding(source: bytes, node: Node, alias: Node | None, path: str, row: int) -> list[Binding]:
    """What a Go import spec binds: its alias, else the package's name; nothing for ``_`` or ``.`` (a dot import
    puts the package's names in the file's own scope, unqualified)."""
    name = package_name(path)
    if alias is not None:
        local = _text(source, alias)
        return [] if local == BLANK_IMPORT else [Binding(local, name or local, path, True, row)]
    if name is None or (node.parent is not None and node.parent.named_child_count > 1):  # ``. "strings"``
        return []
    return [Binding(name, name, path, True, row)]


def _alias(node: Node) -> Node | None:
    """The other name beside ``node`` in its parent (``cc`` in ``charge_card as cc``), if any."""
    parent = node.parent
    if parent is None or parent.type.endswith(("statement", "declaration")) or parent.type in NAME_LISTS:
        return None
    for child in parent.named_children:
        if child.start_byte != node.start_byte and is_identifier(child) and not _inside(child, node):
            return child
    return None


def code_use(spec: LanguageSpec, tree: Tree, row: int, col: int) -> str | None:
    """Whether the name at (``row``, byte ``col``) is code: "import" (inside an import statement),
    "code" (any other use), or None (a comment, a string, or not an identifier)."""
    node = node_at(tree, row, col)
    if node is None:
        return None
    current: Node | None = node
    while current is not None:
        if "import" in current.type or current.type in ("use_declaration", "preproc_include"):
            return "import"
        current = current.parent
    return "code"


__all__ = [
    "Binding",
    "Ident",
    "bindings",
    "code_use",
    "identifier_at",
    "last_component",
    "node_at",
    "package_name",
    "parse",
]
