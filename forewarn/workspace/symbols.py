"""The symbol at a position, resolved to its definition; and where a file uses a name in code.

A hover names what is under the cursor: the definition it sits on, or the definition a reference
(a call, a type, ``obj.method``, an import alias) stands for. Resolution goes, stopping at the first
step that answers:

1. the cursor is on a definition's own name: that definition (of overloads, only the one it names);
2. the name is bound by one of the file's imports (``from pay import charge_card as cc``): the
   definition of the imported name in the imported file (a module alias: that file);
3. the receiver names a module this file uses (``flask.helpers.make_response``): the definition there;
4. the file defines the name itself (``self.total()``: the enclosing class's first);
5. the files this one uses (the code graph's dependencies, strongest first: an import outweighs a
   mere name match) define it, one clearly stronger than the rest;
6. the name is defined once in the whole workspace.

Before steps 5 and 6, a method called on a variable declared with a class in the definition around the call
(``Element link``, ``for (Element link : links)``, ``link: Element``), or in Rust and Go constructed so
(``let b = WalkBuilder::new(p);``, ``x, err := NewFoo()``: ``declared_types``), is that class's method; declared
with a name the workspace defines nothing by (a generic ``stdout: W``, a library's ``Map``), none of the workspace's.
A method written in an object literal (``const traps = { set(…) {…} }``, no class in its symbol) is reached only
through that object's name (``traps.set``), never from a receiver of unknown class.

``super.m()`` (Java, JS/TS) and ``super().m()`` (Python) skip these steps: ``m`` as the superclass named in the
enclosing class's declaration defines it (or its superclass's, up to ``SUPERCLASS_DEPTH``), the superclass found
as a bare name is (the file's own, else its strongest dependency's, else the only one).

A step that finds several equally good definitions answers "don't know" rather than guess. Same-named
definitions of one file (``f``, ``f#2``: overloads, redefinitions) count as one for a use, then a call is matched
to those its arguments fit (``overload_calls``: by count, then a string literal); when they do not tell them apart,
its hover shows them all, each memory saying which overload it is on.

Only windows of a file are parsed (``forewarn.indexing.lookup``): the lines between consecutive
chunk boundaries around a position, which are statement boundaries. What is read from the index for
a file (chunk spans, the import bindings of its top-level code) is kept per file until its indexed
content changes.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import re
import threading
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from forewarn.indexing import lookup, std_paths
from forewarn.indexing.languages import LanguageSpec, compiled, language_for_path
from forewarn.memory import retrieval
from forewarn.memory.records import Memory
from forewarn.memory.store import MemoryStore
from forewarn.workspace import declared_types, namespace_imports, overload_calls
from forewarn.workspace.declared_types import class_of as _owner
from forewarn.workspace.graph_cache import GraphCache
from forewarn.workspace.import_paths import matches_spec, module_file, parent_spec
from forewarn.workspace.protocols import IndexerLike
from forewarn.workspace.symbol_candidates import (
    SELF_NAMES,
    class_elsewhere,
    enclosing_class,
    enclosing_definition,
    is_member,
    literal_member,
    named_by,
    owner_path,
    qualified_by,
    through_std,
    unique,
    unique_defs,
)
from forewarn.workspace.symbol_names import base_symbol, called_name, has_namesakes, spoken_symbol, symbol_label
from forewarn.workspace.text_positions import from_units, is_word, line_starts, mentions, to_units

log = logging.getLogger(__name__)

WINDOW_MAX_LINES = 400  # a window this long parses in a few ms on a loaded CPU; longer ones are cut…
WINDOW_MARGIN = 80  # …to this many lines either side of the position (a long string may then misread)
FACTS_CACHE_FILES = 1_024  # files whose spans and imports are kept (a few KB each): an open reads its neighbours'
NAMES_CACHED = 4_096  # names whose definitions (the index's rows) are kept until the next index run
LINES_CACHE_FILES = 8  # buffers whose lines are kept between hovers (a file's text again, at most)
RESOLVE_MARGIN = 4.0  # a dependency this many times stronger than the next is the one meant (imports
# weigh 20× a bare name match in the graph, so an imported definer beats a namesake elsewhere)
SUPER = lookup.SUPER  # the receiver of ``super.m()`` / ``super().m()``: the superclass's m, not this class's override
SUPERCLASS_DEPTH = 4  # superclasses climbed to find an inherited method (each step reads one class header)
# the superclass in a class header: ``class A extends B`` (Java, JS/TS), ``class A(B):`` (Python)
BASE_CLASS_RES = (
    re.compile(r"\bextends\s+([A-Za-z_$][\w$.]*)"),
    re.compile(r"^\s*class\s+\w+\s*\(\s*([A-Za-z_][\w.]*)"),
)
FIELD_WINDOWS = 8  # a file's field declarations are read this many windows deep (a long file's tail is data)


@dataclass(frozen=True, slots=True)
class Target:
    """What an identifier resolved to: ``symbols`` of ``file`` (empty: the file itself, a module)."""

    file: str
    symbols: tuple[str, ...]
    name: str  # what the cursor is on
    definition: bool  # the cursor is on the definition itself, not a use of it
    line: int  # 1-based line of the identifier
    start_char: int  # its columns on that line, in the units asked in (see ``SymbolLookup.resolve``)
    end_char: int
    kind: str = "module"  # the definition's chunk kind (module: the file itself)
    start_line: int = 1  # the definition's span in its file
    end_line: int = 1

    @property
    def symbol(self) -> str | None:
        """The definition's symbol path (the first of same-named ones), None for a module."""
        return self.symbols[0] if self.symbols else None


@dataclass(slots=True)
class _Facts:
    """What the index says of one file, kept until its indexed content changes."""

    content_hash: str
    chunks: list[tuple[str, str, int, int]]  # (symbol, kind, start_line, end_line) of whole chunks
    bounds: list[int] = field(default_factory=list)  # sorted first lines of windows
    bindings: dict[str, lookup.Binding] | None = None  # the top-level imports, read on first need
    by_name: dict[str, list[tuple[str, str, int, int]]] = field(default_factory=dict)  # definitions by last name
    bases: dict[str, str | None] = field(default_factory=dict)  # class symbol → the superclass its header names
    params: dict[str, overload_calls.Params | None] = field(default_factory=dict)  # overload symbol → its parameters
    fields: dict[str, str | None] | None = None  # a name → the one class the file declares it with (None: several)
    objects: dict[int, str | None] = field(default_factory=dict)  # a line → the object literal bound last before it


class SymbolLookup:
    """Resolution over one workspace's index; thread-safe (hovers run on two reader threads)."""

    def __init__(self, indexer: IndexerLike, graph: GraphCache) -> None:
        self.indexer = indexer
        self.graph = graph
        self._facts: OrderedDict[str, _Facts] = OrderedDict()
        self._lines: OrderedDict[str, tuple[int, int, list[str]]] = OrderedDict()  # rel → (hash, len, lines)
        # name → its definitions in the index, valid for one graph generation (common names have hundreds)
        self._named: OrderedDict[str, list[Any]] = OrderedDict()
        self._named_generation = -1
        # rel → (its dependencies as the graph cache gave them, import spec → the dependency it names): a file's
        # imports name the same modules on every open and hover, and matching a spec scans all its dependencies
        self._modules: OrderedDict[str, tuple[dict[str, float], dict[str, str | None]]] = OrderedDict()
        self._namespaces = namespace_imports.NamespaceModules(  # `import * as util`, `export * as util` in an index
            indexer.root, self._module_in, self._named_in, lambda: graph.generation
        )
        self._lock = threading.Lock()

    def warm(self, rels: Iterable[str]) -> None:
        """Compile the queries of the languages of ``rels`` now (up to ~100 ms each), not on a first hover."""
        for spec in {spec.name: spec for rel in rels if (spec := language_for_path(rel)) is not None}.values():
            try:
                compiled(spec)
            except Exception:  # a grammar that fails to load fails its hovers, and says so there
                log.debug("compiling the %s query failed", spec.name, exc_info=True)

    # ------------------------------------------------------------ hover

    def resolve(self, rel: str, text: str, line: int, char: int, encoding: str = "utf-32") -> Target | None:
        """The definition the identifier at ``line`` (1-based), ``char`` stands for, or None.

        ``char`` and the answer's columns count ``encoding`` units, as LSP position encodings do:
        "utf-16" (LSP's default), "utf-8" or "utf-32" (code points)."""
        spec = language_for_path(rel, text)  # a .h of C++ reads as C++
        if spec is None:
            return None
        lines = self._lines_of(rel, text)
        if not 1 <= line <= len(lines) or char < 0:
            return None
        char = from_units(lines[line - 1], char, encoding)
        if char >= len(lines[line - 1]):
            return None
        facts = self._file_facts(rel)
        first, last = self._window(facts, line, len(lines))
        source = "\n".join(lines[first - 1 : last]).encode("utf-8", "surrogatepass")
        row_text = lines[line - 1]
        col = len(row_text[:char].encode("utf-8", "surrogatepass"))
        try:
            ident = lookup.identifier_at(spec, source, line - first, col)
        except Exception:  # a half-typed buffer must never break a hover
            log.debug("reading the identifier at %s:%d failed", rel, line, exc_info=True)
            return None
        if ident is None:
            return None
        if ident.role != "def" and self._named_on_line(rel, ident.name, line, lines[line - 1], ident.start_col):
            ident = dataclasses.replace(ident, role="def")  # a member parsed out of its interface reads as a call
        encoded = row_text.encode("utf-8", "surrogatepass")
        start = to_units(encoded[: ident.start_col].decode("utf-8", "replace"), encoding)
        end = to_units(encoded[: ident.end_col].decode("utf-8", "replace"), encoding)
        found = self._definition_of(rel, spec, text, facts, ident, line)
        if found is None:
            return None
        file, symbols = found
        definition = ident.role == "def" and file == rel
        if not definition and len(symbols) > 1:  # which overloads the call's arguments fit
            tail = "\n".join(lines[line - 1 : line + overload_calls.CALL_LINES])
            name_end = len(encoded[: ident.end_col].decode("utf-8", "replace"))
            typed = functools.partial(self._declared_type, rel, text, facts, line=line)
            symbols = tuple(self._called_among(file, symbols, spec.name, tail, name_end, typed)) or symbols
        span = next((c for c in self._chunks_of(file) if symbols and c[0] == symbols[0]), None)
        kind, first_line, last_line = (span[1], span[2], span[3]) if span else ("module", 1, 1)
        return Target(file, symbols, ident.name, definition, line, start, end, kind, first_line, last_line)

    def _definition_of(
        self,
        rel: str,
        spec: LanguageSpec,
        text: str,
        facts: _Facts | None,
        ident: lookup.Ident,
        line: int,
        shallow: bool = False,
    ) -> tuple[str, tuple[str, ...]] | None:
        """What ``ident`` stands for (the module docstring's steps); ``shallow``: a receiver's class is read
        without the return of a call it was assigned (one step: ``declared_types.constructed_type``)."""
        name = ident.name
        own = facts.by_name.get(name, []) if facts else []
        if ident.role == "def":  # 1. its own name: the innermost same-named chunk holding the line
            holding = [c for c in own if c[2] <= line <= c[3]]
            if holding:  # of overloads only the one named here: ``before(String)`` is not ``before(Node)``
                return rel, (min(holding, key=lambda c: c[3] - c[2])[0],)
        if ident.receiver == SUPER:
            return self._inherited(rel, facts, name, line)
        deps = self.graph.dependencies(rel)
        binds = self._bindings(rel, spec, self._lines_of(rel, text), facts)
        if spec.name == "rust" and through_std(ident, binds):
            return None  # `std::env::current_dir()`, `io::Error::new()`: the standard library's, no namesake here
        if ident.receiver is None and (bound := binds.get(name)) is not None:  # 2. an import binds it
            return self._imported(rel, bound, deps)
        if ident.receiver is not None and (via := binds.get(ident.receiver)) is not None and via.module:
            if spec.resolver in lookup.PACKAGE_PATH_RESOLVERS:  # chi.URLParam(): a Go package's, never a method
                return self._in_package(rel, name, deps)
            module = self._module_of(rel, via.source, deps)  # pay.charge_card() after `import pay`
            found = self._namespaces.member(module, name) if module is not None else None  # or what it re-exports
            return unique(found[1], found[0], ident.receiver) if found else None
        index = self._module_of(rel, via.source, deps) if ident.receiver is not None and via is not None else None
        if index is not None and via is not None and (found := self._namespaces.member_via(index, via.original, name)):
            return unique(found[1], found[0], ident.receiver)  # `export * as util` in an index
        if spec.name == "rust" and ident.receiver is not None and via is not None:  # `use crate::doc::{version}`
            module = self._module_of(rel, f"{via.source}::{via.original}", deps)  # a module, or an item of one
            if module is not None and module != rel and (in_module := self._named_in(module, name)):
                return unique(in_module, module, ident.receiver)
        if ident.receiver is not None and ident.receiver not in SELF_NAMES and ident.receiver not in binds:
            module = self._module_of(rel, ident.receiver, deps)  # 3. flask.helpers.make_response(): a module receiver
            if module is not None and module != rel and (in_module := self._named_in(module, name)):
                return unique(in_module, module, None)
        methods = ident.receiver is not None
        here = [c for c in own if is_member(c[1], c[0]) == methods or not methods]
        if methods and ident.receiver not in SELF_NAMES:  # an object literal's method, only through that object
            loose = [c for c in here if literal_member(c[1], c[0])]
            held = [c for c in loose if self._held_by(rel, c[2], ident.receiver)]
            if held:
                return unique(held, rel, None)  # `objectTraps.set(…)`: the `set` written in `objectTraps = {`
            here = [c for c in here if c not in loose]
        typed = self._declared_type(rel, text, facts, ident.receiver, line, shallow) if methods else None
        if typed and declared_types.names_no_class(typed, self._named_anywhere):
            return None  # `self.stdout.flush()` with `stdout: W`, `W: Write`: a generic's or a library's method
        if typed and here and not any(_owner(c[0]) == typed for c in here) and self._defined_elsewhere(name, typed):
            here = []  # `self.ig_root.add_parents()` with `ig_root: Ignore`: Ignore's, not this file's Work's
        if here:  # 4. the file's own definition
            if ident.receiver in SELF_NAMES and facts is not None:
                enclosing = enclosing_class(facts.chunks, line)
                mine = [c for c in here if enclosing and c[0].startswith(enclosing + ".")]
                here = mine or here
            return unique(here, rel, ident.receiver)
        named = self._named_anywhere(name)
        receiver = ident.receiver
        defs = [
            (d.rel, d.symbol) for d in named
            if d.rel != rel and (is_member(d.category, d.symbol) == methods or qualified_by(d.symbol, ident.receiver))
            and not (methods and literal_member(d.category, d.symbol) and not self._held_by(d.rel, d.line, receiver))
        ]  # fmt: skip
        if not methods and (
            split := class_elsewhere(facts.chunks if facts is not None else None, named, rel, name, line)
        ):
            return unique_defs(split, None)  # 5a. a C++ method declared in its class, defined in another file
        of_type = [d for d in defs if typed and _owner(d[1]) == typed]
        if of_type:  # `Element link` declared above: link.text() is Element.text
            return unique_defs([d for d in of_type if d[0] in deps] or of_type, None)
        in_used = [d for d in defs if d[0] in deps]
        if in_used:  # 5. a file this one uses, clearly the strongest
            by_receiver = named_by(in_used, ident.receiver)  # `AxiosHeaders.from()`, `invoice.total()`
            if methods and not by_receiver and ident.receiver not in SELF_NAMES and ident.receiver not in binds:
                return unique_defs(in_used, None)  # `searcher.printer()`: an import says nothing of its class
            in_used = by_receiver or in_used
            used = sorted({r for r, _ in in_used}, key=lambda r: -deps[r])
            if len(used) == 1 or deps[used[0]] >= RESOLVE_MARGIN * deps[used[1]]:
                return unique_defs([d for d in in_used if d[0] == used[0]], ident.receiver)
            return unique_defs(in_used, ident.receiver)
        return unique_defs(defs, ident.receiver)  # 6. the only one there is

    def _named_on_line(self, rel: str, name: str, line: int, row: str, col: int) -> bool:
        """Whether the index found a definition of ``name`` in ``rel`` named at ``line`` and byte ``col`` of its text
        ``row`` is that name's first mention there: a window holds a member without its class or interface
        (``partial(): ZodObject<…>;`` alone reads as a call), and the index, which parsed the whole file, knows it."""
        first = re.search(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])", row)
        if first is None or len(row[: first.start()].encode("utf-8", "surrogatepass")) != col:
            return False
        return any(d.rel == rel and d.line == line for d in self._named_anywhere(name))

    def _declared_type(
        self, rel: str, text: str, facts: _Facts | None, receiver: str | None, line: int, shallow: bool = False
    ) -> str | None:
        """The class ``receiver`` is declared as in the definition around ``line``, before it: a local, a
        parameter or a for-each variable (``Element link``, ``link: Element``), or in Rust and Go a variable
        constructed so (``declared_types``: the nearest binding wins); None when not declared so."""
        if not receiver or receiver in SELF_NAMES or not is_word(receiver[0]):
            return None
        holding = [c for c in facts.chunks if c[2] <= line <= c[3] and c[1] != "module"] if facts else []
        first = min(holding, key=lambda c: c[3] - c[2])[2] if holding else max(1, line - WINDOW_MARGIN)
        lines = self._lines_of(rel, text)[max(first, line - WINDOW_MAX_LINES) - 1 : line]
        spec = language_for_path(rel, text)
        resolve = None if shallow or spec is None else functools.partial(self._returning, rel, spec, text, facts, line)
        typed = declared_types.declared_in(
            lines, receiver, spec.name if spec else "", rel, self._named_anywhere, resolve
        )
        if typed is not declared_types.UNSAID:
            return typed
        return self._field_types(rel, text, facts).get(receiver)  # a field: ``ig_root: Ignore`` in its struct

    def _returning(
        self, rel: str, spec: LanguageSpec, text: str, facts: _Facts | None, line: int, *call: str | None
    ) -> tuple[str, tuple[str, ...]] | None:
        """The definition a call ``(name, receiver, path root)`` assigned before ``line`` means: as a hover on its name
        resolves it, a method only when its class is the receiver's (declared, or named by it), else the only one the
        index has (the file's own namesake is no answer for a receiver of unknown class)."""
        ident = lookup.Ident(call[0] or "", 0, 0, 0, call[1], "", call[2])
        found = self._definition_of(rel, spec, text, facts, ident, line, True)
        if found and found[1] and ident.receiver and ident.receiver not in SELF_NAMES:
            typed = self._declared_type(rel, text, facts, ident.receiver, line, True)
            mine = _owner(found[1][0]) == typed if typed else named_by([(found[0], found[1][0])], ident.receiver)
            found = found if mine else None
        named = self._named_anywhere(ident.name) if found is None else []
        return (named[0].rel, (named[0].symbol,)) if len(named) == 1 else found

    def _field_types(self, rel: str, text: str, facts: _Facts | None) -> dict[str, str | None]:
        """The names ``rel`` declares with a class (``ig_root: Ignore``, ``private Ignore igRoot;``) anywhere, each
        with its class when every declaration of it agrees (None when they do not), read once per file version."""
        if facts is not None and facts.fields is not None:
            return facts.fields
        found = declared_types.field_types("\n".join(self._lines_of(rel, text)[: WINDOW_MAX_LINES * FIELD_WINDOWS]))
        if facts is not None:
            facts.fields = found
        return found

    def _held_by(self, rel: str, line: int, receiver: str | None) -> bool:
        """Whether the method written in an object literal at ``line`` of ``rel`` is ``receiver``'s: the object
        literal bound last before it is named so (``declared_types.holding_object``), read once per file version.
        A call on anything else never means it (``base.set(key, value)``, ``base`` a parameter, is no proxy trap
        table's ``set``)."""
        if not receiver or receiver in SELF_NAMES:
            return False
        facts = self._file_facts(rel)
        if facts is not None and line in facts.objects:
            return facts.objects[line] == receiver
        try:
            text = (self.indexer.root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
        found = declared_types.holding_object(text, line)
        if facts is not None:
            facts.objects[line] = found
        return found == receiver

    def _defined_elsewhere(self, name: str, owner: str) -> bool:
        """Whether the index defines ``name`` as a member of a class ``owner``."""
        return any(_owner(d.symbol) == owner for d in self._named_anywhere(name))

    def _inherited(self, rel: str, facts: _Facts | None, name: str, line: int) -> tuple[str, tuple[str, ...]] | None:
        """``super.name`` at ``line``: ``name`` in the nearest superclass of the enclosing class that defines it."""
        owner = enclosing_class(facts.chunks, line) if facts is not None else None
        file = rel
        for _ in range(SUPERCLASS_DEPTH):
            base = self._superclass(file, owner) if owner else None
            if base is None:
                return None
            file, owner = base
            members = [c[0] for c in self._named_in(file, name) if owner_path(c[0]) == owner]
            if members:
                return file, tuple(members)
        return None

    def _superclass(self, rel: str, owner: str) -> tuple[str, str] | None:
        """The (file, class symbol) of the superclass ``owner``'s header names, when the index has it."""
        facts = self._file_facts(rel)
        if facts is None:
            return None
        if owner not in facts.bases:
            chunk = self.indexer.chunk_by_symbol(rel, owner)
            header = str(getattr(chunk, "signature", "") or "")
            found = next((m.group(1) for r in BASE_CLASS_RES if (m := r.search(header))), None)
            facts.bases[owner] = found.rsplit(".", 1)[-1] if found else None  # ``a.b.Node``: the class is Node
        base = facts.bases[owner]
        if base is None:
            return None
        classes = [c[0] for c in facts.by_name.get(base, []) if c[1] not in ("function", "method")]
        if classes:
            return rel, base_symbol(classes[0])
        deps = self.graph.dependencies(rel)
        defs = [d for d in self._named_anywhere(base) if d.symbol == base and d.rel != rel]
        used = sorted((d for d in defs if d.rel in deps), key=lambda d: -deps[d.rel])
        if used and (len(used) == 1 or deps[used[0].rel] >= RESOLVE_MARGIN * deps[used[1].rel]):
            return used[0].rel, base
        return (defs[0].rel, base) if len(defs) == 1 and not used else None

    def _module_of(self, rel: str, spec: str, deps: dict[str, float]) -> str | None:
        """``module_file`` for ``rel``, remembered until its dependencies change (a new dict from the graph cache)."""
        with self._lock:
            kept = self._modules.get(rel)
            if kept is None or kept[0] is not deps:
                kept = self._modules[rel] = (deps, {})
                while len(self._modules) > FACTS_CACHE_FILES:
                    self._modules.popitem(last=False)
            else:
                self._modules.move_to_end(rel)
        memo = kept[1]
        if spec not in memo:
            memo[spec] = module_file(spec, deps, rel)
        return memo[spec]

    def _named_anywhere(self, name: str) -> list[Any]:
        """The index's definitions of ``name``, kept until the index next changes (the graph cache's generation)."""
        generation = self.graph.generation
        with self._lock:
            if generation != self._named_generation:
                self._named.clear()
                self._named_generation = generation
            found = self._named.get(name)
            if found is not None:
                self._named.move_to_end(name)
                return found
        found = list(self.indexer.definitions_named(name))
        with self._lock:
            if generation == self._named_generation:
                self._named[name] = found
                while len(self._named) > NAMES_CACHED:
                    self._named.popitem(last=False)
        return found

    def _in_package(self, rel: str, name: str, deps: dict[str, float]) -> tuple[str, tuple[str, ...]] | None:
        """``pkg.Name`` after a Go import: the one definition of ``Name`` that is no method in the files ``rel``
        uses (the graph links an importer to the files of a package that define the names it mentions)."""
        defs = [
            (d.rel, d.symbol) for d in self._named_anywhere(name)
            if d.rel in deps and d.rel != rel and not is_member(d.category, d.symbol)
        ]  # fmt: skip
        return unique_defs(defs, None)

    def _module_in(self, rel: str, spec: str) -> str | None:
        """The workspace file ``spec`` names from ``rel`` (for a module's re-exports)."""
        return self._module_of(rel, spec, self.graph.dependencies(rel))

    def _imported(self, rel: str, bound: lookup.Binding, deps: dict[str, float]) -> tuple[str, tuple[str, ...]] | None:
        module = self._module_of(rel, bound.source, deps)
        if bound.module:
            if module is not None:
                return module, ()
            bound = lookup.Binding(bound.local, bound.original, parent_spec(bound.source), False, bound.row)
            module = self._module_of(rel, bound.source, deps)  # Rust `use crate::pay::charge_card;`
        if module is not None and (found := self._named_in(module, bound.original)):
            return unique(found, module, None)
        defs = [(d.rel, d.symbol) for d in self._named_anywhere(bound.original)]
        in_deps = [d for d in defs if d[0] in deps]
        matching = [d for d in in_deps if matches_spec(d[0], bound.source)]
        found_defs = unique_defs(matching or in_deps or defs, None)
        if found_defs is None and module is None:  # `from . import models`: the name is a module
            sub = self._module_of(rel, f"{bound.source.rstrip('.')}.{bound.original}".lstrip("."), deps)
            return (sub, ()) if sub is not None else None
        return found_defs

    # ------------------------------------------------------------ diagnostics

    def uses(
        self, rel: str, text: str, wanted: Mapping[str, Collection[tuple[str, str]]]
    ) -> dict[tuple[str, str], int]:
        """Which ``wanted`` definitions ``rel`` really uses, and the 1-based line where it first does.

        ``wanted`` maps a name to the definitions (``(file, symbol)``) it may call by that name. Each mention of
        the name in ``text`` is resolved as a hover resolves it (imports, then the file's own definitions, then
        the code graph), and a definition counts once a mention in code (not a comment, a string or a docstring)
        resolves to it. A namesake elsewhere (``helpers.make_response`` is not ``Flask.make_response``) never
        does; nor a method called on an object of unknown type (``runner.isolation()``, an inherited
        ``self.update()``) unless the file names the method's class somewhere; nor a name found through the
        code graph alone that is not called (a parameter ``status`` is not another file's function ``status``).
        The line is the first such use outside import statements, else the import's. Keys are the definitions
        as given."""
        spec = language_for_path(rel, text)  # a .h of C++ reads as C++
        if spec is None or not wanted:
            return {}
        lines = self._lines_of(rel, text)
        facts = self._file_facts(rel)
        starts = line_starts(lines)
        trees: dict[tuple[int, int], Any] = {}
        owners: dict[str, bool] = {}
        declared: dict[tuple[str, object], str | None] = {}  # (variable, definition around it) → its class
        scopes: dict[int, str | None] = {}  # line → the definition around it, looked for once per line
        bound = self.imported_names(rel, text)
        found: dict[tuple[str, str], int] = {}
        for name, targets in wanted.items():
            want: dict[tuple[str, str], list[tuple[str, str]]] = {}
            for file, symbol in targets:
                want.setdefault((file, base_symbol(symbol)), []).append((file, symbol))
            if not name or not want:
                continue
            # one resolution per receiver: per class for self, per definition for a variable (declared there)
            resolved: dict[object, tuple[str, str] | None] = {}
            imported: dict[tuple[str, str], int] = {}
            done: set[tuple[str, str]] = set()
            for pos in mentions(text, name):
                line = bisect_right(starts, pos)
                receiver = overload_calls.receiver_before(text, pos)
                root = std_paths.path_root_before(text, pos) if spec.name == "rust" else None  # `std::env::…`
                key: object = (receiver, root)
                if receiver in SELF_NAMES and facts is not None:
                    key = (receiver, enclosing_class(facts.chunks, line))
                elif receiver and facts is not None:
                    key = (receiver, root, _scope_at(facts, line, scopes))
                if key not in resolved:
                    ident = lookup.Ident(name, 0, 0, 0, receiver, "", root)
                    try:
                        got = self._definition_of(rel, spec, text, facts, ident, line)
                    except Exception:  # resolution is a filter: a failure counts the mention as no use
                        log.debug("resolving %s at %s:%d failed", name, rel, line, exc_info=True)
                        got = None
                    resolved[key] = (got[0], base_symbol(got[1][0])) if got is not None and got[1] else None
                target = resolved[key]
                if target is None or target not in want:
                    continue
                typed = self._argument_types(rel, text, facts, line, declared, scopes)
                called = self._called_among(
                    target[0], [g[1] for g in want[target]], spec.name, text, pos + len(name), typed
                )
                givens = [g for g in want[target] if g[1] in called and g not in done]
                if not givens:
                    continue
                if receiver is not None and not self._owner_named(text, target[1], owners):
                    continue  # x.run(), self.update(): a method so named elsewhere is a guess unless its class is named
                value = receiver not in SELF_NAMES and not overload_calls.called_at(text, pos + len(name))
                if receiver and value and _owner(target[1]) not in ("", receiver):  # not `Foo::new` as a value
                    typed_receiver = self._argument_types(rel, text, facts, line, declared, scopes)(receiver)
                    if typed_receiver != _owner(target[1]):  # a method as a value: `immer.produce`, immer an Immer
                        continue
                if receiver is None and name not in bound and not overload_calls.called_at(text, pos + len(name)):
                    continue  # found through the code graph alone: a call, else a local that shares the name
                use = self._code_use(spec, lines, facts, trees, line, pos - starts[line - 1], rel)
                if use == "code":
                    done.update(givens)
                    found.update(dict.fromkeys(givens, line))
                    if len(done) == sum(map(len, want.values())):
                        break
                elif use == "import":
                    imported.update({g: imported.get(g, line) for g in givens})
            for given, line in imported.items():
                found.setdefault(given, line)
        return found

    def _called_among(
        self,
        file: str,
        symbols: Sequence[str],
        language: str,
        text: str,
        end: int,
        argument_type: Callable[[str], str | None] | None = None,
    ) -> list[str]:
        """Those of ``symbols`` (same-named definitions of ``file``) the call whose name ends at ``end`` of ``text``
        can mean: the overloads its arguments fit (``overload_calls``; ``argument_type``: the class a variable
        passed is declared with, where the call is); one the index lacks now is kept. [] when the call means none of
        them (``out.value(i)`` with ``int i`` is ``value(long)``, not a wanted ``value(double)``)."""
        facts = self._file_facts(file)
        group = base_symbol(symbols[0])
        named = facts.by_name.get(called_name(group), []) if facts is not None else []
        overloads = [c[0] for c in named if base_symbol(c[0]) == group]
        if facts is None or len(overloads) < 2:
            return list(symbols)
        for s in overloads:
            if s not in facts.params:  # read once per overload until its file changes
                facts.params[s] = overload_calls.declared_params(self.indexer.chunk_by_symbol(file, s), s, file)
        params = {s: facts.params[s] for s in overloads}
        called = overload_calls.overloads_called(params, text, end, language, argument_type)
        return [s for s in symbols if called is None or s in called or s not in overloads]

    def _argument_types(
        self,
        rel: str,
        text: str,
        facts: _Facts | None,
        line: int,
        memo: dict[tuple[str, object], str | None],
        scopes: dict[int, str | None],
    ) -> Callable[[str], str | None]:
        """The class a variable passed at ``line`` is declared with (``_declared_type``), read once per variable and
        definition around it in ``memo``, as a receiver's is."""

        def declared(variable: str) -> str | None:
            key = (variable, _scope_at(facts, line, scopes) or line)
            if key not in memo:
                memo[key] = self._declared_type(rel, text, facts, variable, line)
            return memo[key]

        return declared

    @staticmethod
    def _owner_named(text: str, symbol: str, owners: dict[str, bool]) -> bool:
        """Whether the class a method belongs to is named anywhere in ``text`` (constructed, imported, a base,
        a type): what ties ``obj.method()`` to that class when nothing says what ``obj`` is. Functions pass."""
        owner = _owner(symbol)
        if not owner:
            return True
        if owner not in owners:
            owners[owner] = next(iter(mentions(text, owner)), None) is not None
        return owners[owner]

    def imported_names(self, rel: str, text: str) -> frozenset[str]:
        """The names ``rel``'s top-level imports bring in (as written there and as defined), module names aside."""
        spec = language_for_path(rel, text)  # a .h of C++ reads as C++
        if spec is None:
            return frozenset()
        binds = self._bindings(rel, spec, self._lines_of(rel, text), self._file_facts(rel))
        return frozenset(n for b in binds.values() if not b.module for n in (b.local, b.original))

    def _code_use(
        self,
        spec: LanguageSpec,
        lines: list[str],
        facts: _Facts | None,
        trees: dict[tuple[int, int], Any],
        line: int,
        char: int,
        rel: str,
    ) -> str | None:
        """``lookup.code_use`` of the name at ``line``, ``char`` (code points), parsing its window once per call."""
        first, last = self._window(facts, line, len(lines))
        source = "\n".join(lines[first - 1 : last]).encode("utf-8", "surrogatepass")
        tree = trees.get((first, last))
        if tree is None:
            tree = trees[(first, last)] = lookup.parse(spec, source)
        col = len(lines[line - 1][:char].encode("utf-8", "surrogatepass"))
        try:
            return lookup.code_use(spec, tree, line - first, col)
        except Exception:
            log.debug("reading %s:%d failed", rel, line, exc_info=True)
            return None

    # ------------------------------------------------------------ what the index says of a file

    def _file_facts(self, rel: str) -> _Facts | None:
        record = self.indexer.record(rel)
        if record is None:
            return None
        with self._lock:
            facts = self._facts.get(rel)
            if facts is not None and facts.content_hash == record.content_hash:
                self._facts.move_to_end(rel)
                return facts
        chunks = self.indexer.chunk_spans(rel)
        bounds = sorted({b for _, _, s, e in chunks for b in (s, e + 1)})
        by_name: dict[str, list[tuple[str, str, int, int]]] = {}
        for c in chunks:
            if c[1] != "module":
                by_name.setdefault(called_name(c[0]), []).append(c)
        facts = _Facts(record.content_hash, chunks, bounds, None, by_name)
        with self._lock:
            self._facts[rel] = facts
            while len(self._facts) > FACTS_CACHE_FILES:
                self._facts.popitem(last=False)
        return facts

    def _lines_of(self, rel: str, text: str) -> list[str]:
        """``text`` split into lines, kept for the last few files (hovers come in runs on one buffer)."""
        key = (hash(text), len(text))  # a str caches its hash: the editor's unchanged buffer costs nothing
        with self._lock:
            kept = self._lines.get(rel)
            if kept is not None and kept[:2] == key:
                return kept[2]
        lines = text.split("\n")
        with self._lock:
            self._lines[rel] = (*key, lines)
            while len(self._lines) > LINES_CACHE_FILES:
                self._lines.popitem(last=False)
        return lines

    def _chunks_of(self, rel: str) -> list[tuple[str, str, int, int]]:
        facts = self._file_facts(rel)
        return facts.chunks if facts is not None else []

    def _named_in(self, rel: str, name: str) -> list[tuple[str, str, int, int]]:
        facts = self._file_facts(rel)
        return facts.by_name.get(name, []) if facts is not None else []

    @staticmethod
    def _window(facts: _Facts | None, line: int, count: int) -> tuple[int, int]:
        """The lines between the chunk boundaries around ``line`` (statement boundaries), at most
        ``WINDOW_MAX_LINES`` long."""
        first, last = 1, count
        if facts is not None and facts.bounds:
            k = bisect_right(facts.bounds, line)
            first = facts.bounds[k - 1] if k > 0 else 1
            last = min(count, facts.bounds[k] - 1) if k < len(facts.bounds) else count
        if last - first + 1 > WINDOW_MAX_LINES:
            first, last = max(first, line - WINDOW_MARGIN), min(last, line + WINDOW_MARGIN)
        return first, max(first, min(last, count))

    def _bindings(
        self, rel: str, spec: LanguageSpec, lines: list[str], facts: _Facts | None
    ) -> dict[str, lookup.Binding]:
        """Names the file's top-level imports bind (module code only; a function's own imports are rare)."""
        if facts is not None and facts.bindings is not None:
            return facts.bindings
        windows = [(s, e) for _, kind, s, e in (facts.chunks if facts else []) if kind == "module"]
        if facts is None:
            windows = [self._window(None, 1, len(lines))]
        found: dict[str, lookup.Binding] = {}
        for first, last in windows:
            if last - first + 1 > WINDOW_MAX_LINES:
                last = first + WINDOW_MAX_LINES - 1  # imports come first; a long module tail is data
            source = "\n".join(lines[first - 1 : last]).encode("utf-8", "surrogatepass")
            try:
                for b in lookup.bindings(spec, source):
                    found.setdefault(b.local, b)
            except Exception:
                log.debug("reading the imports of %s failed", rel, exc_info=True)
        if facts is not None:
            facts.bindings = found
        return found


def say_overloads(memories: Sequence[Memory], target: Target) -> list[Memory]:
    """``memories`` as a hover on a use shows them: when the use may mean any of several overloads, each one's
    text (a copy; nothing is stored) starts by saying which overload it is on, by its lines."""
    if target.definition or len(target.symbols) < 2:
        return list(memories)
    out = []
    for m in memories:
        a = m.anchor
        if a is not None and a.start_line is not None:
            lines = (
                f"line {a.start_line}" if a.end_line in (None, a.start_line) else f"lines {a.start_line}-{a.end_line}"
            )
            m = dataclasses.replace(m, text=f"On the overload at {lines}: {m.text}")
        out.append(m)
    return out


def memories_of(store: MemoryStore, target: Target, now: float) -> list[Memory]:
    """The current memories of what ``target`` names, best first: those anchored to its definition (for a use,
    all same-named ones of its file: ``say_overloads`` tells them apart), or for a module the ones about its file
    as a whole."""
    if target.symbols:
        anchored = [m for s in target.symbols for m in store.anchored_to_symbol(target.file, s)]
    else:
        anchored = [m for m in store.anchored_to_files([target.file]) if m.anchor and m.anchor.symbol is None]
    return retrieval.rank_anchored(anchored, now)


# ---------------------------------------------------------------- helpers


def _scope_at(facts: _Facts | None, line: int, scopes: dict[int, str | None]) -> str | None:
    """``enclosing_definition`` of ``line``, looked for once per line in ``scopes``."""
    if line not in scopes:
        scopes[line] = enclosing_definition(facts.chunks, line) if facts is not None else None
    return scopes[line]


__all__ = [
    "SymbolLookup",
    "Target",
    "base_symbol",
    "called_name",
    "has_namesakes",
    "memories_of",
    "say_overloads",
    "spoken_symbol",
    "symbol_label",
]
