"""A token-budgeted map of the workspace's most important definitions (signatures, not bodies).

Definitions are ranked by their file's PageRank, split over the file's definitions by how much of the
rank flowing into the file arrives through each name (:meth:`FileGraph.definition_scores`). The map
shows as many of the best as fit the budget, grouped by file, found by binary search on their number. A method
comes with the line of the class (and any other definition) enclosing it, as code would show it, within the budget.

The budget goes to the team's own code first: vendored and generated files (:mod:`forewarn.indexing.conventions`:
vendored paths, ``.gitattributes`` ``linguist-generated``/``linguist-vendored``, a generator's banner) come after
every own file, unless the caller steered the map to them (a focus file, or one defining a given identifier). They
keep their place in the graph and its PageRank (they are real dependencies); only the map's order changes. Only the
map's candidates are judged: their first lines are read and ``.gitattributes`` asked once, by one git call.
Among the team's own files, tests (:func:`conventions.is_test_path`), examples and benchmarks
(:func:`conventions.is_example_path`) come after the product code, unless steered to: a reader needs what the
product defines before the fixtures and helpers its tests share, or the scripts that measure it. A Python stub
(``.pyi``) beside its module (``.py``) says the module's definitions again: it goes last too (:data:`STUB`), unless
steered to.

Tokens are estimated as characters / ``CHARS_PER_TOKEN`` rather than with a model's tokenizer: the map
feeds people and many different models, and the estimate is within ~15% for code under BPE tokenizers.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from forewarn.indexing import conventions
from forewarn.indexing.graph import FileGraph
from forewarn.indexing.store import Definition, IndexStore

CHARS_PER_TOKEN = 4.0  # the usual BPE rule of thumb for English and code
INDENT = "    "  # one level per enclosing definition, as code would be
GUTTER = "│"  # marks definition lines apart from file headers
STUB = "stub"  # why a file is put last: a .pyi beside its .py repeats the module's definitions (RepoMap.put_last)
STUB_SUFFIX = ".pyi"


@dataclass(frozen=True, slots=True)
class MapEntry:
    rel: str
    name: str
    symbol: str
    line: int
    signature: str
    score: float
    enclosing: bool = False  # shown only as the line of a class (or function) around a ranked definition


@dataclass
class RepoMap:
    text: str
    ranked_files: list[tuple[str, float]]  # every indexed file, best first, the team's own before ``put_last``
    definitions: list[MapEntry] = field(default_factory=list)  # the ranked ones shown, best first
    tokens: int = 0  # estimated size of ``text``
    needed_tokens: int = 0  # the budget fit no definition: what the best-ranked one needs on its own
    # files ranked after every own file, counted by why: each vendored path and stub, the generated among candidates
    put_last: dict[str, int] = field(default_factory=dict)

    def to_dict(self, max_files: int | None = None) -> dict[str, Any]:
        files = self.ranked_files if max_files is None else self.ranked_files[:max_files]
        return {
            "text": self.text,
            "tokens": self.tokens,
            "files": [{"file": rel, "score": score} for rel, score in files],
            "definitions": [_ranked_dict(d) for d in self.definitions],
            **({"needed_tokens": self.needed_tokens} if self.needed_tokens else {}),
            **({"put_last": self._put_last_dict()} if self.put_last else {}),
        }

    def _put_last_dict(self) -> dict[str, Any]:
        return {
            "files": sum(self.put_last.values()),
            "why": dict(sorted(self.put_last.items())),
            "note": "not the team's code (vendored or generated), or a stub repeating its module's definitions: "
            "ranked after every own file unless focused on",
        }


def _ranked_dict(entry: MapEntry) -> dict[str, Any]:
    """A ranked definition as JSON: ``enclosing`` is False for every one of them."""
    found = asdict(entry)
    del found["enclosing"]
    return found


def estimate_tokens(text: str) -> int:
    return _tokens_of(len(text))


def _tokens_of(chars: int) -> int:
    return int(chars / CHARS_PER_TOKEN + 0.5)


def build_repo_map(
    graph: FileGraph,
    store: IndexStore,
    budget_tokens: int,
    focus_files: Sequence[str] = (),
    idents: Sequence[str] = (),
    root: Path | None = None,
) -> RepoMap:
    """The map within ``budget_tokens``; with ``root`` (the workspace), generated files are found by their first
    lines and ``.gitattributes`` as well as vendored ones by their paths."""
    file_ranks, scored = graph.definition_scores(focus_files, idents)
    judge = _OwnCode(root, _steered_files(focus_files, idents, scored), frozenset(file_ranks))
    entries = _candidates(store, scored, budget_tokens, judge) if budget_tokens > 0 else []
    ranked_files, put_last = _files_own_first(file_ranks, judge)
    if budget_tokens <= 0:
        return RepoMap("", ranked_files, put_last=put_last)
    shown = _fitting(entries, budget_tokens)
    text = render(shown)
    needed = estimate_tokens(render(_cut_after(entries, 1))) if entries and not shown else 0
    ranked = [entry for entry in shown if not entry.enclosing]
    return RepoMap(text, ranked_files, ranked, estimate_tokens(text), needed, put_last)


def _fitting(entries: list[MapEntry], budget_tokens: int) -> list[MapEntry]:
    """The most ranked definitions (with the lines enclosing them) whose rendering fits the budget, by binary search
    on their number: a cut never leaves a class line shown only for a method that did not fit."""
    low, high = 0, sum(not entry.enclosing for entry in entries)
    while low < high:
        mid = (low + high + 1) // 2
        if estimate_tokens(render(_cut_after(entries, mid))) <= budget_tokens:
            low = mid
        else:
            high = mid - 1
    return _cut_after(entries, low)


def _cut_after(entries: list[MapEntry], ranked: int) -> list[MapEntry]:
    """The entries up to the ``ranked``-th ranked definition (none for 0), the lines enclosing each included."""
    if ranked <= 0:
        return []
    seen = 0
    for i, entry in enumerate(entries):
        seen += not entry.enclosing
        if seen == ranked:
            return entries[: i + 1]
    return entries


class _OwnCode:
    """Why a file goes after the team's own code (:data:`conventions.VENDORED`, :data:`conventions.GENERATED`,
    :data:`STUB`) or None, each file judged once; the files the caller steered to are always judged its own."""

    def __init__(self, root: Path | None, steered: frozenset[str], files: frozenset[str]) -> None:
        self.root = root
        self.steered = steered
        self.files = files  # every indexed file: a stub goes last only where its module is there to be shown
        self.reasons: dict[str, str | None] = {}
        self._inside = os.path.realpath(root) if root is not None else ""

    def by_path_and_head(self, rel: str) -> str | None:
        if rel not in self.reasons:
            reason = self.by_path(rel)
            if reason is None and self.root is not None and rel not in self.steered:
                head = conventions.file_head(self.root, self._inside, rel)
                reason = conventions.GENERATED if conventions.generated_header(head) else None
            self.reasons[rel] = reason
        return self.reasons[rel]

    def is_test(self, rel: str) -> bool:
        """Test, example or benchmark code by its path, which the map shows after the product code unless the
        caller steered to it."""
        return rel not in self.steered and (conventions.is_test_path(rel) or conventions.is_example_path(rel))

    def by_path(self, rel: str) -> str | None:
        """What is known without reading anything: an earlier judgement, else the path."""
        if rel in self.reasons:
            return self.reasons[rel]
        if rel in self.steered:
            return None
        if conventions.VENDORED_PATH.search(rel):
            return conventions.VENDORED
        if rel.endswith(STUB_SUFFIX) and rel[: -len(STUB_SUFFIX)] + ".py" in self.files:
            return STUB
        return None

    def ask_attributes(self, rels: Iterable[str]) -> None:
        """Learn which of ``rels`` ``.gitattributes`` marks vendored or generated (one git call; none outside git)."""
        if self.root is None or not conventions.in_git_work_tree(self.root):
            return
        asked = [rel for rel in dict.fromkeys(rels) if rel not in self.steered and self.by_path(rel) is None]
        self.reasons.update(conventions.marked_paths(self.root, asked))


def _steered_files(
    focus_files: Sequence[str], idents: Sequence[str], scored: list[tuple[str, str, float]]
) -> frozenset[str]:
    """The files the caller pointed the map at: the focus files and those defining a given identifier."""
    names = set(idents)
    return frozenset(focus_files) | ({rel for rel, name, _ in scored if name in names} if names else set())


class _Filling:
    """Map entries in rank order and the size their rendering has (:func:`render`'s, counted as they come)."""

    def __init__(self, budget_tokens: int) -> None:
        self.budget_tokens = budget_tokens
        self.entries: list[MapEntry] = []
        self.chars = 0
        self._lines: set[tuple[str, int]] = set()
        self._files: set[str] = set()

    @property
    def full(self) -> bool:
        """Past the budget: no entry added from now on can be shown."""
        return _tokens_of(self.chars) > self.budget_tokens

    def add(self, entries: list[MapEntry]) -> None:
        for entry in entries:
            if entry.rel not in self._files:
                self._files.add(entry.rel)
                self.chars += len(_file_line(entry.rel)) + 1
            if (entry.rel, entry.line) not in self._lines:
                self._lines.add((entry.rel, entry.line))
                self.chars += len(_definition_line(entry)) + 1
            self.entries.append(entry)


def _candidates(
    store: IndexStore, scored: list[tuple[str, str, float]], budget_tokens: int, judge: _OwnCode
) -> list[MapEntry]:
    """The team's own definitions best first (product code, then tests), then the rest's, each part only until its
    map passes the budget.

    Files are judged (by path, by their first lines) in rank order, only as far as the map could reach. Before any
    is read, ``.gitattributes`` is asked (one git call) about the files of the best ``budget_tokens`` definitions:
    every shown definition costs at least a token, so without files put last no others could be shown.
    """
    judge.ask_attributes(rel for rel, _, _ in scored[:budget_tokens])
    own, tests, rest = _Filling(budget_tokens), _Filling(budget_tokens), _Filling(budget_tokens)
    by_file: dict[str, list[Definition]] = {}
    for rel, name, score in scored:
        if own.full:
            break
        filling = rest if judge.by_path_and_head(rel) is not None else tests if judge.is_test(rel) else own
        if not filling.full:
            if rel not in by_file:
                by_file[rel] = store.definitions_in(rel)
            filling.add(_entries_named(by_file[rel], rel, name, score))
    return own.entries + tests.entries + rest.entries


def _entries_named(definitions: list[Definition], rel: str, name: str, score: float) -> list[MapEntry]:
    """The definitions of ``name`` among a file's, sharing its score, each after the definitions enclosing it."""
    matches = [d for d in definitions if d.name == name]
    entries: list[MapEntry] = []
    for d in matches:
        entries += _enclosing(definitions, d)
        entries.append(MapEntry(rel, d.name, d.symbol, d.line, d.signature, score / len(matches)))
    return entries


def _enclosing(definitions: list[Definition], inner: Definition) -> list[MapEntry]:
    """The definitions around ``inner`` (``A`` and ``A.B`` for ``A.B.method``), outermost first: those of the file
    whose symbol is a prefix of its symbol and that start above it (a Go type declared below its methods does not
    enclose them)."""
    parts = inner.symbol.split(".")
    prefixes = {".".join(parts[:depth]) for depth in range(1, len(parts))}
    if not prefixes:
        return []
    outer = {d.symbol: d for d in definitions if d.symbol in prefixes and d.line < inner.line}  # nearest above
    return [
        MapEntry(d.rel, d.name, d.symbol, d.line, d.signature, 0.0, enclosing=True)
        for d in sorted(outer.values(), key=lambda d: d.symbol.count("."))
    ]


def _files_own_first(file_ranks: dict[str, float], judge: _OwnCode) -> tuple[list[tuple[str, float]], dict[str, int]]:
    """Every file best first, the team's own before the rest, and how many of the rest there are by why."""
    ranked = sorted(file_ranks.items(), key=lambda p: (-p[1], p[0]))
    why = {rel: reason for rel, _ in ranked if (reason := judge.by_path(rel)) is not None}
    own = [pair for pair in ranked if pair[0] not in why]
    return own + [pair for pair in ranked if pair[0] in why], dict(Counter(why.values()))


def _file_line(rel: str) -> str:
    return f"{' '.join(rel.split())}:"  # a newline in a file name must not start a line of its own


def _definition_line(entry: MapEntry) -> str:
    return f"{GUTTER}{INDENT * entry.symbol.count('.')}{' '.join(entry.signature.split())}"


def render(entries: Sequence[MapEntry]) -> str:
    """Definitions grouped by file (best file first), in source order inside each file."""
    grouped: dict[str, dict[int, MapEntry]] = {}
    for entry in entries:
        grouped.setdefault(entry.rel, {}).setdefault(entry.line, entry)
    lines: list[str] = []
    for rel, by_line in grouped.items():
        lines.append(_file_line(rel))
        lines += [_definition_line(by_line[line]) for line in sorted(by_line)]
    return "\n".join(lines) + ("\n" if lines else "")
