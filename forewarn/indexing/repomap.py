"""A token-budgeted map of the workspace's most important definitions (signatures, not bodies).

Definitions are ranked by their file's PageRank, split over the file's definitions by how much of the
rank flowing into the file arrives through each name (:meth:`FileGraph.definition_scores`). The map
shows as many of the best as fit the budget, grouped by file, found by binary search on their number.

Tokens are estimated as characters / ``CHARS_PER_TOKEN`` rather than with a model's tokenizer: the map
feeds people and many different models, and the estimate is within ~15% for code under BPE tokenizers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from forewarn.indexing.graph import FileGraph
from forewarn.indexing.store import Definition, IndexStore

CHARS_PER_TOKEN = 4.0  # the usual BPE rule of thumb for English and code
INDENT = "    "  # one level per enclosing definition, as code would be
GUTTER = "│"  # marks definition lines apart from file headers


@dataclass(frozen=True, slots=True)
class MapEntry:
    rel: str
    name: str
    symbol: str
    line: int
    signature: str
    score: float


@dataclass
class RepoMap:
    text: str
    ranked_files: list[tuple[str, float]]  # every indexed file, best first
    definitions: list[MapEntry] = field(default_factory=list)  # the ones shown, best first
    tokens: int = 0  # estimated size of ``text``
    needed_tokens: int = 0  # the budget fit no definition: what the best-ranked one needs on its own

    def to_dict(self, max_files: int | None = None) -> dict[str, Any]:
        files = self.ranked_files if max_files is None else self.ranked_files[:max_files]
        return {
            "text": self.text,
            "tokens": self.tokens,
            "files": [{"file": rel, "score": score} for rel, score in files],
            "definitions": [asdict(d) for d in self.definitions],
            **({"needed_tokens": self.needed_tokens} if self.needed_tokens else {}),
        }


def estimate_tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN + 0.5)


def build_repo_map(
    graph: FileGraph, store: IndexStore, budget_tokens: int, focus_files: Sequence[str] = (), idents: Sequence[str] = ()
) -> RepoMap:
    file_ranks, scored = graph.definition_scores(focus_files, idents)
    ranked_files = sorted(file_ranks.items(), key=lambda p: (-p[1], p[0]))
    if budget_tokens <= 0:
        return RepoMap("", ranked_files)
    # every shown definition costs at least a token, so more candidates than that can never fit
    entries = _entries(store, scored[:budget_tokens])
    low, high = 0, len(entries)
    while low < high:  # the largest prefix whose rendering fits the budget
        mid = (low + high + 1) // 2
        if estimate_tokens(render(entries[:mid])) <= budget_tokens:
            low = mid
        else:
            high = mid - 1
    shown = entries[:low]
    text = render(shown)
    needed = estimate_tokens(render(entries[:1])) if entries and not shown else 0
    return RepoMap(text, ranked_files, shown, estimate_tokens(text), needed)


def _entries(store: IndexStore, scored: list[tuple[str, str, float]]) -> list[MapEntry]:
    """Each (file, name, score) as the definitions of that name in that file, sharing its score."""
    by_file: dict[str, list[Definition]] = {}
    entries: list[MapEntry] = []
    for rel, name, score in scored:
        if rel not in by_file:
            by_file[rel] = store.definitions_in(rel)
        matches = [d for d in by_file[rel] if d.name == name]
        for d in matches:
            entries.append(MapEntry(rel, d.name, d.symbol, d.line, d.signature, score / len(matches)))
    return entries


def render(entries: Sequence[MapEntry]) -> str:
    """Definitions grouped by file (best file first), in source order inside each file."""
    grouped: dict[str, dict[int, MapEntry]] = {}
    for entry in entries:
        grouped.setdefault(entry.rel, {}).setdefault(entry.line, entry)
    lines: list[str] = []
    for rel, by_line in grouped.items():
        lines.append(f"{' '.join(rel.split())}:")  # a newline in a file name must not start a line of its own
        for line in sorted(by_line):
            entry = by_line[line]
            depth = entry.symbol.count(".")
            signature = " ".join(entry.signature.split())
            lines.append(f"{GUTTER}{INDENT * depth}{signature}")
    return "\n".join(lines) + ("\n" if lines else "")
