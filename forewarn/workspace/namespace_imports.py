"""What a JavaScript/TypeScript namespace name stands for, and what ``ns.f`` reaches through it.

``import * as core from "../core/index.js"`` binds ``core`` to a whole module; ``core.f`` is that module's ``f``:
a definition of its own, or one it re-exports (``export * from "./api.js"``, ``export { _gte as gte } from …``),
followed a few files deep. ``import { util } from "../core/index.js"`` binds a namespace too when the index says
``export * as util from "./util.js"``. Modules are read as text on disk (their first ``HEAD_BYTES``: an index's
re-exports come first), once per file and graph generation; a name several re-exports define is no one's.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from forewarn.workspace.import_paths import SCRIPT_SUFFIXES

# ``export * as util from "./util.js"``: the name stands for that whole module
NAMESPACE_REEXPORT = re.compile(r"""\bexport\s*\*\s*as\s+(?P<name>[\w$]+)\s+from\s*["'](?P<source>[^"'\n]+)["']""")
# ``export * from "./api.js"``: every name that module exports
STAR_REEXPORT = re.compile(r"""\bexport\s*\*\s*from\s*["'](?P<source>[^"'\n]+)["']""")
# ``export { _gte as gte, lte } from "../core/index.js"`` (no ``from``: the module's own names under another name)
NAMED_REEXPORT = re.compile(
    r"""\bexport\s*(?:type\s*)?\{(?P<names>[^}]*)\}(?:\s*from\s*["'](?P<source>[^"'\n]+)["'])?"""
)
HEAD_BYTES = 65_536
REEXPORT_DEPTH = 4  # zod: classic/checks.ts → core/index.ts → core/api.ts is two
CACHED = 4_096  # (module, name) answers kept per graph generation

Chunk = tuple[str, str, int, int]  # symbol, kind, first line, last line (SymbolLookup's facts)
Found = tuple[str, list[Chunk]]  # the file defining the name, its same-named definitions there


@dataclass(frozen=True)
class _Exports:
    namespaces: dict[str, str]  # ``export * as util from "./util.js"``: name → spec
    named: dict[str, tuple[str | None, str]]  # ``export { _gte as gte } from spec``: gte → (spec or None, "_gte")
    stars: tuple[str, ...]  # ``export * from spec``, in order


class NamespaceModules:
    """Namespace names and their members over one workspace; thread-safe."""

    def __init__(
        self,
        root: Path,
        module_of: Callable[[str, str], str | None],
        named_in: Callable[[str, str], list[Chunk]],
        generation: Callable[[], object],
    ) -> None:
        self._root = root
        self._module_of = module_of  # (importing file, spec) → the workspace file it names
        self._named_in = named_in  # (file, name) → its definitions of that name
        self._generation = generation  # the graph's: files change, answers are read again
        self._exports: dict[str, _Exports] = {}
        self._members: dict[tuple[str, str], Found | None] = {}
        self._seen: object = None
        self._lock = threading.Lock()

    def namespace(self, index: str, name: str) -> str | None:
        """The module ``name`` imported from ``index`` stands for when the index re-exports it as a namespace."""
        if not index.endswith(SCRIPT_SUFFIXES):
            return None
        spec = self._exports_of(index).namespaces.get(name)
        return self._module_of(index, spec) if spec is not None else None

    def member_via(self, index: str, namespace: str, name: str) -> Found | None:
        """``util.name`` after ``import { util } from index``, where the index says ``export * as util from …``."""
        module = self.namespace(index, namespace)
        return self.member(module, name) if module is not None else None

    def member(self, module: str, name: str) -> Found | None:
        """``ns.name`` for a namespace of ``module``: its own definition, else the one re-export that defines it."""
        own = self._named_in(module, name)
        if own or not module.endswith(SCRIPT_SUFFIXES):
            return (module, own) if own else None
        key = (module, name)
        with self._lock:
            self._refresh()
            if key in self._members:
                return self._members[key]
        found = self._reexported(module, name, REEXPORT_DEPTH, {module})
        with self._lock:
            if len(self._members) > CACHED:
                self._members.clear()
            self._members[key] = found
        return found

    def _reexported(self, module: str, name: str, depth: int, seen: set[str]) -> Found | None:
        exports = self._exports_of(module)
        spec, original = exports.named.get(name, (None, ""))
        if original:  # named: the one place it comes from (no source: this module's own, renamed)
            source = self._module_of(module, spec) if spec is not None else module
            return self._defined(source, original, depth, seen) if source is not None else None
        found = [f for s in exports.stars if (f := self._from_spec(module, s, name, depth, seen)) is not None]
        files = {f[0] for f in found}
        return found[0] if len(files) == 1 else None  # several star re-exports define it: say nothing

    def _from_spec(self, module: str, spec: str, name: str, depth: int, seen: set[str]) -> Found | None:
        source = self._module_of(module, spec)
        return self._defined(source, name, depth, seen) if source is not None else None

    def _defined(self, source: str, name: str, depth: int, seen: set[str]) -> Found | None:
        if (own := self._named_in(source, name)) or not source.endswith(SCRIPT_SUFFIXES):
            return (source, own) if own else None
        if depth <= 1 or source in seen:
            return None
        return self._reexported(source, name, depth - 1, seen | {source})

    def _exports_of(self, module: str) -> _Exports:
        with self._lock:
            self._refresh()
            kept = self._exports.get(module)
        if kept is not None:
            return kept
        exports = read_exports(_head(self._root / module))
        with self._lock:
            if len(self._exports) > CACHED:
                self._exports.clear()
            self._exports[module] = exports
        return exports

    def _refresh(self) -> None:
        """Forget every answer once the graph moves on (a file changed); under the lock."""
        generation = self._generation()
        if generation != self._seen:
            self._exports.clear()
            self._members.clear()
            self._seen = generation


def read_exports(text: str) -> _Exports:
    """The re-exports a module's text declares."""
    namespaces = {m["name"]: m["source"] for m in NAMESPACE_REEXPORT.finditer(text)}
    named: dict[str, tuple[str | None, str]] = {}
    for m in NAMED_REEXPORT.finditer(text):
        for item in _items(m["names"]):
            original, _, alias = item.partition(" as ")
            named.setdefault((alias or original).strip(), (m["source"], original.strip()))
    return _Exports(namespaces, named, tuple(m["source"] for m in STAR_REEXPORT.finditer(text)))


def _items(names: str) -> Sequence[str]:
    """``_gte as gte, type Foo, lte`` → ``["_gte as gte", "Foo", "lte"]`` (comments and blanks left out)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", names, flags=re.DOTALL)
    items = (re.sub(r"^type\s+", "", part.strip()) for part in text.split(","))
    return [" ".join(item.split()) for item in items if item]


def _head(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""
