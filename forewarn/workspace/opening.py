"""What a file open and a hover show: a file's own memories and those on the definitions it really uses."""

from __future__ import annotations

import logging
from collections.abc import Set as AbstractSet
from pathlib import Path

from forewarn.memory import retrieval
from forewarn.memory.records import AnchoredRef
from forewarn.memory.retrieval import ProactiveCandidate, ProactiveHit
from forewarn.memory.store_anchored import NEIGHBOUR_ROWS_PER_FILE
from forewarn.workspace.core import WorkspaceCore
from forewarn.workspace.limits import PROACTIVE_LIMIT
from forewarn.workspace.results import OpenView, SymbolInfo
from forewarn.workspace.symbols import called_name

log = logging.getLogger(__name__)

# more candidates than one open can ever consider (its own memories, and MAX_NEIGHBOUR_FILES neighbours'
# NEIGHBOUR_ROWS_PER_FILE each): a list of them all is never cut
USED_LIST_LIMIT = 1_000_000
NAMED_ROWS_FILES = 1_000  # neighbours whose cached rows are kept grouped by name (the store caches at most 20k rows)


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
        peak = max((w for d, w in deps.items() if d != rel), default=0.0)
        cached = self._neighbours_with_memories(rel, deps)
        dep_w = {d: deps[d] / peak for d in cached if d != rel and peak > 0}
        own = cached.pop(rel)
        own_refs = own if own is not None else self.store.anchored_refs([rel])
        candidates = [ProactiveCandidate(r, "file") for r in own_refs]
        lines: dict[tuple[str, str], int] = {}
        # the file's own memories come first (retrieval.PLACE_*): when they fill the limit no neighbour's can show,
        # and resolving which definitions the file uses is the open's costliest step, so it is left to the listing
        unchecked = bool(dep_w) and len(own_refs) >= limit
        if dep_w and not unchecked and (source := text if text is not None else self.source_text(rel)) is not None:
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
        return OpenView(hits, max(0, len(candidates) - len(top)), unchecked)

    def _neighbours_with_memories(self, rel: str, deps: dict[str, float]) -> dict[str, tuple[AnchoredRef, ...] | None]:
        """``rel``'s rows and those of its ``MAX_NEIGHBOUR_FILES`` strongest dependencies that carry memories
        (``store.recent_refs``), looked for among its ``MAX_NEIGHBOUR_CANDIDATES`` strongest: a C file's strongest
        dependencies are its headers, and the file defining a function it calls came 19th of 27 on jq."""
        found = self.store.recent_refs([rel])
        order = [d for d in deps if d != rel][: retrieval.MAX_NEIGHBOUR_CANDIDATES]
        kept = 0
        for start in range(0, len(order), retrieval.MAX_NEIGHBOUR_FILES):
            for dep, refs in self.store.recent_refs(order[start : start + retrieval.MAX_NEIGHBOUR_FILES]).items():
                if refs is None or refs:  # None: more rows than the cache keeps
                    found[dep] = refs
                    kept += 1
                    if kept == retrieval.MAX_NEIGHBOUR_FILES:
                        return found
        return found

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
        used = set(self.graph.idents_used(rel) | self._imported_names(rel, text))
        rows: list[AnchoredRef] = []
        kept: dict[str, list[str | None]] = {}  # files with too many memories to cache: the indexes filter them
        in_index = self.store.symbols_in([d for d, refs in cached.items() if refs is None])
        names = {called_name(s) for symbols in in_index.values() for s in symbols if s is not None}
        for dep, refs in cached.items():
            names |= self._rows_by_name(dep, refs).keys() if refs else set()
        used |= {n for n in names - used if member_mentioned(text, n)}  # `immer.produce` as a value: no ref tag
        for dep, symbols in in_index.items():
            keep: list[str | None] = [s for s in symbols if s is not None and called_name(s) in used]
            if keep:
                kept[dep] = keep
        rows += self.store.neighbour_refs(kept)
        for dep, refs in cached.items():
            if refs:
                rows += _neighbour_rows(refs, self._rows_by_name(dep, refs), used)
        return rows

    def _rows_by_name(self, dep: str, refs: tuple[AnchoredRef, ...]) -> dict[str, list[int]]:
        """``refs`` (one file's cached rows, newest first) grouped by the name their definition is called by:
        positions in ``refs``, kept while the store keeps the same rows (the same tuple)."""
        kept = self._names_of_rows.get(dep)
        if kept is not None and kept[0] is refs:
            return kept[1]
        by_name: dict[str, list[int]] = {}
        for i, ref in enumerate(refs):
            if ref.symbol is not None:
                by_name.setdefault(called_name(ref.symbol), []).append(i)
        with self._names_lock:  # opens and hovers run on two reader threads
            self._names_of_rows[dep] = (refs, by_name)
            while len(self._names_of_rows) > NAMED_ROWS_FILES:
                self._names_of_rows.pop(next(iter(self._names_of_rows)))
        return by_name

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

    def source_text(self, rel: str) -> str | None:
        """``rel`` as text from disk (None when unreadable or over the index's size limit): a file no editor has
        open, read as the index reads it."""
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


def member_mentioned(text: str, name: str) -> bool:
    """Whether ``text`` names ``name`` as a member (``obj.name``, ``ptr->name``, ``Type::name``): the index's ref
    tags hold members only where called, and a method used as a value (``export const produce = immer.produce``,
    ``immer.createDraft.bind(immer)``) is a use as well."""
    return any(f"{sep}{name}" in text for sep in (".", "->", "::"))


def _neighbour_rows(
    refs: tuple[AnchoredRef, ...], by_name: dict[str, list[int]], used: AbstractSet[str]
) -> list[AnchoredRef]:
    """The newest ``NEIGHBOUR_ROWS_PER_FILE`` of one neighbour's rows (``refs``, newest first; ``by_name``: their
    positions by the name their definition is called by) that sit on a definition whose name the opened file
    references: what ``MemoryStore.neighbour_refs`` selects, from cached rows."""
    positions = sorted(i for name in by_name.keys() & used for i in by_name[name])
    return [refs[i] for i in positions[:NEIGHBOUR_ROWS_PER_FILE]]
