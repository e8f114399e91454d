"""The language registry, discovered from the headers of ``queries/*.scm``.

Adding a language is one query file plus one fixture folder: the file's leading comment lines name
the language, its grammar wheel, its extensions and the import-resolution strategy, e.g.::

    ; language: python
    ; grammar: tree_sitter_python:language
    ; extensions: .py .pyi
    ; resolver: python
    ; inherits: javascript        (optional: prepend another language's query body, up to its `; local` line)
    ; trivia: attribute_item       (optional: top-level node types that never count as module code)

``resolver`` names a strategy in ``resolve.py`` (``python``, ``javascript``, ``go``, ``rust``, ``java``,
``include``, ``ruby`` or ``none``), so a language that fits an existing strategy needs no Python code.

Capture conventions of the query body (one query per language, run once per file):

- ``@definition.<kind>`` on the whole definition node, with ``@name`` on its name. ``kind`` becomes the
  chunk kind (function, class, struct, enum, trait, interface, module, namespace, type, impl, …); a
  ``function`` directly inside a class-like definition, or defined with a qualified name, is reported
  as a ``method``. Optional in the same match: ``@scope`` (a qualifier written outside the nesting,
  e.g. a Go method's receiver type) and ``@label`` (a container such as a Rust ``impl`` block: its
  chunk is named by its kind and the source from ``@label`` to the end of ``@name``, e.g.
  ``impl Point`` or ``impl fmt::Display for Point``, its children nest under ``@name``, and it yields
  no definition tag). A name written qualified (``ns::Class::method``, ``A::B``) nests under its
  qualifiers. When several patterns capture the same ``@name`` node, the widest definition wins (so a
  pattern may wrap decorators or ``template<…>``), then the earliest pattern.
- ``@reference.<kind>`` with ``@name`` on the referenced name (call, class, type, decorator, …). One
  reference per name node: the earliest pattern wins.
- ``@import`` on the statement, ``@import.source`` on the module as written (quotes are stripped) and
  optional ``@import.name`` for each name brought in. ``@import.source.relative`` marks a source that
  is relative to the importing file whatever its spelling (Ruby's ``require_relative``): it is recorded
  with a leading ``./``.
- Captures starting with ``_`` are for predicates only.
- Patterns after a line ``; local`` are not inherited (JavaScript's JSX and field patterns, whose node
  types TypeScript's grammar lacks).

Specs are built lazily, one language at a time (a worker parsing Python never compiles C++'s query),
and each process keeps one compiled query per language (:func:`compiled`).

A grammar wheel that is missing or fails to import is logged and its language skipped.
"""

from __future__ import annotations

import importlib
import logging
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import PurePosixPath

from tree_sitter import Language, Query

log = logging.getLogger(__name__)

QUERY_PACKAGE = "forewarn.indexing"
QUERY_DIR = "queries"
HEADER_LINE = re.compile(r"^;\s*([a-z_-]+)\s*:\s*(.*?)\s*$")
REQUIRED_KEYS = ("language", "grammar", "extensions")
LOCAL_MARKER = re.compile(r"^;\s*local\b.*$", re.MULTILINE)
SHARED_HEADER_SUFFIXES = frozenset({".h"})  # C's and C++'s alike: the text says which
HEADER_SNIFF_CHARS = 65_536  # a C++ header shows its namespace, class or template near the top
_CPP_IN_HEADER = (
    r"^[ \t]*(?:namespace(?:[ \t]+[\w:]+)?[ \t]*(?:\{|$)|template[ \t]*<|(?:public|private|protected)[ \t]*:"
    r"|class[ \t]+\w+(?:[ \t]+\w+)?[ \t]*(?:final[ \t]*)?(?:[:{;]|$))|\bstd::\w"
)
CPP_IN_HEADER = re.compile(_CPP_IN_HEADER, re.MULTILINE)
CPP_IN_HEADER_BYTES = re.compile(_CPP_IN_HEADER.encode(), re.MULTILINE)


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    """One language: picklable, so worker processes receive it with each file to parse."""

    name: str
    extensions: tuple[str, ...]
    grammar_module: str
    grammar_function: str
    query: str  # the full query text (inherited bodies included)
    resolver: str = "none"
    trivia: tuple[str, ...] = ()  # top-level node types that never form module code (beyond comments)

    def load_grammar(self) -> object:
        """The grammar's raw language pointer, for ``tree_sitter.Language``."""
        module = importlib.import_module(self.grammar_module)
        return getattr(module, self.grammar_function)()


def language_for_path(rel_path: str, text: str | bytes | None = None) -> LanguageSpec | None:
    """The language of a file by its extension (case-insensitive), or None. A ``.h`` is C unless its ``text`` is
    C++ (:func:`is_cpp_header`): header-only C++ libraries write all their code there (spdlog)."""
    suffix = PurePosixPath(rel_path).suffix.lower()
    name = _extension_table().get(suffix) if suffix else None
    if name == "c" and suffix in SHARED_HEADER_SUFFIXES and text is not None and is_cpp_header(text):
        name = "cpp" if "cpp" in _query_files() else name
    return _spec(name) if name else None


def is_cpp_header(text: str | bytes) -> bool:
    """Whether a header's first :data:`HEADER_SNIFF_CHARS` hold a construct C has not: a namespace, a template, a
    class, an access specifier or ``std::`` (a C header's ``extern "C"`` for C++ callers is none of them)."""
    if isinstance(text, bytes):
        return CPP_IN_HEADER_BYTES.search(text[:HEADER_SNIFF_CHARS]) is not None
    return CPP_IN_HEADER.search(text[:HEADER_SNIFF_CHARS]) is not None


def family_for_path(rel_path: str) -> str | None:
    """Which files can use this file's definitions by name: those of the same family (None: no language claims
    it). Languages that resolve imports the same way are one family (JavaScript, TypeScript and TSX; C and C++),
    read from headers alone; a language without a resolver is a family of its own."""
    suffix = PurePosixPath(rel_path).suffix.lower()
    name = _extension_table().get(suffix) if suffix else None
    if name is None:
        return None
    resolver = _query_files()[name][0].get("resolver", "none")
    return name if resolver == "none" else f"resolver:{resolver}"


def language_by_name(name: str) -> LanguageSpec | None:
    return _spec(name) if name in _query_files() else None


def all_languages() -> list[LanguageSpec]:
    """Every language whose grammar loads and whose query compiles."""
    return [spec for name in _query_files() if (spec := _spec(name)) is not None]


def compiled(spec: LanguageSpec) -> tuple[Language, Query]:
    """This process's grammar and compiled query for ``spec`` (compiling costs up to ~100 ms)."""
    tools = _compiled.get(spec.name)
    if tools is None:
        language = Language(spec.load_grammar())
        tools = _compiled[spec.name] = (language, Query(language, spec.query))
    return tools


def parse_header(text: str) -> dict[str, str]:
    """The ``; key: value`` lines at the top of a query file (stops at the first other line)."""
    header: dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        match = HEADER_LINE.match(stripped)
        if not match:
            break
        header[match.group(1).replace("-", "_")] = match.group(2)
    return header


_compiled: dict[str, tuple[Language, Query]] = {}  # per process, by language name


@cache
def _query_files() -> dict[str, tuple[dict[str, str], str]]:
    """language name → (header, body) for every query file shipped in the package."""
    found: dict[str, tuple[dict[str, str], str]] = {}
    folder = resources.files(QUERY_PACKAGE) / QUERY_DIR
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".scm"):
            continue
        text = entry.read_text(encoding="utf-8")
        header = parse_header(text)
        missing = [key for key in REQUIRED_KEYS if key not in header]
        if missing:
            log.warning("query file %s lacks header keys %s; skipped", entry.name, ", ".join(missing))
            continue
        found[header["language"]] = (header, text)
    return found


@cache
def _extension_table() -> dict[str, str]:
    """extension → language name, from headers alone (no grammar is loaded to answer this)."""
    table: dict[str, str] = {}
    for name, (header, _) in _query_files().items():
        for ext in header["extensions"].split():
            ext = ext.lower()
            if ext in table:
                log.warning("extension %s claimed by %s and %s; keeping %s", ext, table[ext], name, table[ext])
                continue
            table[ext] = name
    return table


def _inherited_query(name: str, files: dict[str, tuple[dict[str, str], str]], seen: tuple[str, ...] = ()) -> str:
    """The query text ``name`` inherits, ancestors first, each up to its ``; local`` line."""
    parent = files[name][0].get("inherits")
    if not parent:
        return ""
    if parent not in files or parent in seen:
        raise ValueError(f"query for {name} inherits unknown or cyclic language {parent!r}")
    shared = LOCAL_MARKER.split(files[parent][1], maxsplit=1)[0]
    return _inherited_query(parent, files, (*seen, name)) + shared + "\n"


@cache
def _spec(name: str) -> LanguageSpec | None:
    try:
        return _build_spec(name, _query_files())
    except ValueError as exc:  # bad inheritance
        log.warning("%s; language skipped", exc)
        return None


def _build_spec(name: str, files: dict[str, tuple[dict[str, str], str]]) -> LanguageSpec | None:
    """The spec for ``name``, after checking its grammar loads and its query compiles."""
    header, body = files[name]
    module, _, function = header["grammar"].partition(":")
    spec = LanguageSpec(
        name=name,
        extensions=tuple(ext.lower() for ext in header["extensions"].split()),
        grammar_module=module.strip(),
        grammar_function=function.strip() or "language",
        query=_inherited_query(name, files) + body,
        resolver=header.get("resolver", "none"),
        trivia=tuple(header.get("trivia", "").split()),
    )
    try:
        spec.load_grammar()
    except Exception as exc:  # a broken wheel must cost one language, never the daemon
        log.warning("grammar %s for %s unavailable (%s); language skipped", header["grammar"], name, exc)
        return None
    _compiled.pop(name, None)
    try:
        compiled(spec)
    except Exception as exc:  # a broken query file costs its language, found here rather than in a worker
        log.warning("query for %s does not compile (%s); language skipped", name, exc)
        return None
    return spec
