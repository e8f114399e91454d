"""What file opens and hovers read from the code graph, computed once per index run.

Dependencies, dependents, PageRank positions and the names each file references change only when
the index does; ``Workspace.reindex`` calls :meth:`GraphCache.invalidate` after every run. A graph
failure is logged and answered with nothing: a file open must never fail because ranking did.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection
from pathlib import Path

from forewarn.workspace.protocols import IndexerLike

log = logging.getLogger(__name__)

_IDENT_BYTES_RE = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


class GraphCache:
    """Per-index-run answers from the indexer's file graph. Callers serialise invalidation with reads."""

    def __init__(self, root: Path, indexer: IndexerLike, max_file_bytes: int) -> None:
        self.root = root
        self.indexer = indexer
        self.max_file_bytes = max_file_bytes
        self._deps: dict[str, dict[str, float]] = {}
        self._refs: dict[str, frozenset[str]] | None = None  # every indexed file's referenced names
        self._idents: dict[str, frozenset[str]] = {}  # names of files not indexed yet, scanned from bytes
        self._ranks: tuple[dict[str, float], dict[str, int]] | None = None
        self._dependents: dict[str, int] = {}
        self.generation = 0  # bumped by every invalidation: what others keep from the index is checked against it

    def invalidate(self, touched: Collection[str] | None = None) -> None:
        """Forget everything after an index run. ``touched``: only these files changed, so the other
        files' referenced names still hold (None: a full run, forget those too)."""
        self.generation += 1
        refs, self._refs = self._refs, None
        self._deps.clear()
        self._idents.clear()
        self._ranks = None
        self._dependents.clear()
        if refs is not None and touched is not None:  # theirs are scanned again, everyone else's still hold
            self._refs = {r: names for r, names in refs.items() if r not in touched}

    def warm(self) -> None:
        """Compute what file opens and hovers read (ranks, references) ahead of them."""
        self.file_ranks()
        if self._refs is None:
            self._refs = self._ref_names()

    def dependencies(self, rel: str) -> dict[str, float]:
        """Files whose definitions ``rel`` uses, strongest first."""
        deps: dict[str, float] | None = self._deps.get(rel)
        if deps is None:
            try:
                deps = self.indexer.graph.dependencies(rel)
            except Exception:
                log.exception("graph dependencies of %s failed", rel)
                deps = {}
            self._deps[rel] = deps
        return deps

    def idents_used(self, rel: str) -> frozenset[str]:
        """Names ``rel`` references, from the index's ref tags (read for all files once per index run)."""
        if self._refs is None:
            self._refs = self._ref_names()
        names = self._refs.get(rel)
        if names is None:  # not indexed (yet): one pass over its bytes
            names = self._idents.get(rel)
            if names is None:
                names = self._idents[rel] = self._scan_idents(rel)
        return names

    def file_ranks(self) -> tuple[dict[str, float], dict[str, int]]:
        """(PageRank score by file, 1-based position by file: 1 is the most important)."""
        if self._ranks is None:
            scores: dict[str, float] = self.indexer.graph.rank()
            order = sorted(scores, key=lambda r: (-scores[r], r))
            self._ranks = (scores, {r: i + 1 for i, r in enumerate(order)})
        return self._ranks

    def dependents(self, rel: str) -> dict[str, float]:
        """Files that use ``rel``'s definitions, strongest first (a graph failure: none)."""
        try:
            found: dict[str, float] = self.indexer.graph.dependents(rel)
        except Exception:
            log.exception("graph dependents of %s failed", rel)
            return {}
        return found

    def dependents_count(self, rel: str) -> int:
        """How many files use ``rel``'s definitions."""
        count = self._dependents.get(rel)
        if count is None:
            count = self._dependents[rel] = self.indexer.graph.dependents_count(rel)
        return count

    def _ref_names(self) -> dict[str, frozenset[str]]:
        try:
            counts = self.indexer.ref_counts()
        except Exception:
            log.exception("reading the index's references failed; scanning files instead")
            return {}
        return {rel: frozenset(names) for rel, names in counts.items()}

    def _scan_idents(self, rel: str) -> frozenset[str]:
        try:
            with open(self.root / rel, "rb") as fh:
                data = fh.read(self.max_file_bytes)
        except OSError:
            data = b""
        return frozenset(w.decode("ascii") for w in set(_IDENT_BYTES_RE.findall(data)))
