"""What a file open and a hover show: a file's own memories and those on the definitions it really uses."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from pathlib import Path

from forewarn.memory import retrieval
from forewarn.memory.records import AnchoredRef
from forewarn.memory.retrieval import ProactiveCandidate, ProactiveHit
from forewarn.memory.store import NEIGHBOUR_ROWS_PER_FILE
from forewarn.workspace.core import WorkspaceCore
from forewarn.workspace.limits import PROACTIVE_LIMIT
from forewarn.workspace.results import OpenView, SymbolInfo
from forewarn.workspace.symbols import called_name

log = logging.getLogger(__name__)

# more candidates than one open can ever consider (its own memories, and MAX_NEIGHBOUR_FILES neighbours'
# NEIGHBOUR_ROWS_PER_FILE each): a list of them all is never cut
USED_LIST_LIMIT = 1_000_000


class OpenMixin(WorkspaceCore):
    """File-open and hover answers (part of ``Workspace``)."""

    def proactive(
        self, file: str | Path, *, limit: int = PROACTIVE_LIMIT, record: bool = True, text: str | None = None
    ) -> list[ProactiveHit]:
        """Memories to show when ``file`` opens: its own, then those on definitions it uses. No embedding."""
        return self.open_view(file, limit=limit, record=record, text=text).hits

    def open_view(
        self, file: str | Path, *, limit: int = PROACTIVE_LIMIT, record: bool = True, text: str | None = None
    ) -> OpenView:
        """``proactive``'s hits, in an open's order (``retrieval.proactive_key``), and the count left below
        ``limit``. ``text``: the file as the editor has it (default: read from disk), for finding where it
        uses its neighbours' definitions."""
        rel = self.lookup_path(file)
        now = self.clock()
        deps = self.graph.dependencies(rel) if self.settings.diagnostics.include_neighbours else {}
        strongest = [(d, w) for d, w in deps.items() if d != rel][: retrieval.MAX_NEIGHBOUR_FILES]
        peak = max((w for _, w in strongest), default=0.0)
        dep_w = {d: w / peak for d, w in strongest if peak > 0}
        cached = self.store.recent_refs([rel, *dep_w])
        own = cached.pop(rel)
        own_refs = own if own is not None else self.store.anchored_refs([rel])
        candidates = [ProactiveCandidate(r, "file") for r in own_refs]
        lines: dict[tuple[str, str], int] = {}
        if dep_w and (source := text if text is not None else self._source_text(rel)) is not None:
            rows = self._named_neighbour_rows(rel, source, cached)
            if rows:
                lines = self._used_definitions(rel, source, rows)
                candidates += [
                    ProactiveCandidate(r, "dependency", dep_w[r.file])
                    for r in rows
                    if r.symbol is not None and (r.file, r.symbol) in lines
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
                lines.get((c.ref.file, c.ref.symbol or "")) if c.relation == "dependency" else None,
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

    def used_memories(self, file: str | Path, *, text: str | None = None) -> list[ProactiveHit]:
        """Every memory an open of ``file`` considers on the definitions it uses, in an open's order, with no
        display limit: with the file's own, everything its diagnostics count (``forewarn memory list --file``)."""
        view = self.open_view(file, limit=USED_LIST_LIMIT, record=False, text=text)
        return [h for h in view.hits if h.relation == "dependency"]

    def _named_neighbour_rows(
        self, rel: str, text: str, cached: dict[str, tuple[AnchoredRef, ...] | None]
    ) -> list[AnchoredRef]:
        """The neighbours' memories on definitions whose name ``rel`` references (its index's ref tags: calls,
        types, bases) or imports: the cheap first cut, before resolution says which of them it really uses.
        File-wide ones never come in."""
        used = self.graph.idents_used(rel) | self._imported_names(rel, text)
        rows: list[AnchoredRef] = []
        kept: dict[str, list[str | None]] = {}  # files with too many memories to cache: the indexes filter them
        for dep, symbols in self.store.symbols_in([d for d, refs in cached.items() if refs is None]).items():
            keep: list[str | None] = [s for s in symbols if s is not None and called_name(s) in used]
            if keep:
                kept[dep] = keep
        rows += self.store.neighbour_refs(kept)
        for refs in cached.values():
            rows += _neighbour_rows(refs or (), used)
        return rows

    def _imported_names(self, rel: str, text: str) -> frozenset[str]:
        try:
            return self.symbol_lookup.imported_names(rel, text)
        except Exception:  # the first cut then rests on the references alone
            log.debug("reading the imports of %s failed", rel, exc_info=True)
            return frozenset()

    def _used_definitions(self, rel: str, text: str, rows: list[AnchoredRef]) -> dict[tuple[str, str], int]:
        """Which of ``rows``' definitions ``rel`` really uses (resolved through its imports and the code graph,
        as a hover resolves a name), with the line where it first does."""
        wanted: dict[str, set[tuple[str, str]]] = {}
        for r in rows:
            if r.symbol is not None:
                wanted.setdefault(called_name(r.symbol), set()).add((r.file, r.symbol))
        try:
            return self.symbol_lookup.uses(rel, text, wanted)
        except Exception:  # a neighbour's memory is context: a failure here shows the file's own, never breaks the open
            log.exception("resolving the definitions %s uses failed", rel)
            return {}

    def _source_text(self, rel: str) -> str | None:
        """``rel`` as text from disk (None when unreadable or over the index's size limit)."""
        path = self.root / rel
        try:
            if path.stat().st_size > self.settings.index.max_file_bytes:
                return None
            return path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

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


def _neighbour_rows(refs: Iterable[AnchoredRef], used: AbstractSet[str]) -> list[AnchoredRef]:
    """The newest ``NEIGHBOUR_ROWS_PER_FILE`` of one neighbour's rows (newest first) that sit on a definition
    whose name the opened file references: what ``MemoryStore.neighbour_refs`` selects, from cached rows."""
    out: list[AnchoredRef] = []
    matters: dict[str | None, bool] = {}
    for ref in refs:
        symbol = ref.symbol
        hit = matters.get(symbol)
        if hit is None:
            hit = matters[symbol] = symbol is not None and called_name(symbol) in used
        if hit:
            out.append(ref)
            if len(out) == NEIGHBOUR_ROWS_PER_FILE:
                break
    return out
