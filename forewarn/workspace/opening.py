"""What a file open and a hover show: a file's own memories and those on the definitions it uses."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import TYPE_CHECKING

from forewarn.memory import retrieval
from forewarn.memory.records import AnchoredRef
from forewarn.memory.retrieval import ProactiveHit
from forewarn.memory.store import NEIGHBOUR_ROWS_PER_FILE
from forewarn.workspace.limits import PROACTIVE_LIMIT

if TYPE_CHECKING:
    pass

from forewarn.workspace.core import WorkspaceCore
from forewarn.workspace.results import OpenView, SymbolInfo

log = logging.getLogger(__name__)


class OpenMixin(WorkspaceCore):
    """File-open and hover answers (part of ``Workspace``)."""

    def proactive(self, file: str | Path, *, limit: int = PROACTIVE_LIMIT, record: bool = True) -> list[ProactiveHit]:
        """Memories to show when ``file`` opens: its own, then those on definitions it uses. No embedding."""
        return self.open_view(file, limit=limit, record=record).hits

    def open_view(self, file: str | Path, *, limit: int = PROACTIVE_LIMIT, record: bool = True) -> OpenView:
        """``proactive``'s hits and the count left below ``limit`` (counted from the candidates already read)."""
        rel = self.lookup_path(file)
        now = self.clock()
        deps = self.graph.dependencies(rel) if self.settings.diagnostics.include_neighbours else {}
        strongest = list(deps.items())[: retrieval.MAX_NEIGHBOUR_FILES]
        peak = max((w for _, w in strongest), default=0.0)
        dep_w = {d: w / peak for d, w in strongest if peak > 0}
        cached = self.store.recent_refs([rel, *(d for d in dep_w if d != rel)])
        own = cached.pop(rel)
        own_refs = own if own is not None else self.store.anchored_refs([rel])
        candidates = [retrieval.ProactiveCandidate(r, "file") for r in own_refs]
        if dep_w:
            used = self.graph.idents_used(rel)
            neighbours: list[AnchoredRef] = []
            kept: dict[str, list[str | None]] = {}  # files with too many memories to cache: the indexes filter them
            for dep, symbols in self.store.symbols_in([d for d, refs in cached.items() if refs is None]).items():
                keep = [s for s in symbols if s is None or _uses_symbol(used, s)]
                if keep:
                    kept[dep] = keep
            neighbours += self.store.neighbour_refs(kept)
            for refs in cached.values():
                neighbours += _neighbour_rows(refs or (), used)
            candidates += [
                retrieval.ProactiveCandidate(r, "dependency", dep_w[r.file], r.symbol is not None) for r in neighbours
            ]
        top = retrieval.proactive_rank(candidates, now, limit)
        full = self.store.by_nums([c.ref.num for c, _ in top])
        shown = self.session.shown()
        hits = [
            ProactiveHit(
                full[c.ref.num],
                score,
                c.relation,
                c.ref.file if c.relation == "dependency" else None,
                c.ref.id in shown,
            )
            for c, score in top
            if c.ref.num in full
        ]
        if record:
            self.session.observe("file", rel)
            ids = [h.memory.id for h in hits]
            self.session.mark_shown(ids)
            new_ids = [h.memory.id for h in hits if not h.already_shown]
            with self._surfaced_lock:  # written later (flush, stats): a write here would put commits and
                self._surfaced += new_ids  # WAL checkpoints on the file-open path
        return OpenView(hits, max(0, len(candidates) - len(top)))

    def for_symbol(self, file: str | Path, line: int) -> SymbolInfo | None:
        """The chunk at ``line`` (1-based), the memories anchored to it, and its importance."""
        rel = self.lookup_path(file)
        chunk = self.indexer.chunk_at(rel, line)
        if chunk is None:
            return None
        memories = retrieval.rank_anchored(self.store.anchored_to_symbol(rel, chunk.symbol), self.clock())
        scores, positions = self.graph.file_ranks()
        return SymbolInfo(
            rel, chunk.symbol, chunk.kind, chunk.start_line, chunk.end_line, memories,
            positions.get(rel), len(scores), self.graph.dependents_count(rel),
        )  # fmt: skip


def _uses_symbol(used: AbstractSet[str], symbol: str) -> bool:
    """A neighbour's memory matters to a file that uses the definition it sits on (any part of its name)."""
    return any(part in used for part in symbol.split("."))


def _neighbour_rows(refs: Iterable[AnchoredRef], used: AbstractSet[str]) -> list[AnchoredRef]:
    """The newest ``NEIGHBOUR_ROWS_PER_FILE`` of one neighbour's rows (newest first) that are file-wide or sit
    on a definition the opened file uses: what ``MemoryStore.neighbour_refs`` selects, from cached rows."""
    out: list[AnchoredRef] = []
    matters: dict[str | None, bool] = {}
    for ref in refs:
        symbol = ref.symbol
        hit = matters.get(symbol)
        if hit is None:
            hit = matters[symbol] = symbol is None or _uses_symbol(used, symbol)
        if hit:
            out.append(ref)
            if len(out) == NEIGHBOUR_ROWS_PER_FILE:
                break
    return out
