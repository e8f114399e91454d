"""What the editors' *This file* view shows: a file's memories grouped by the symbol they sit on (part of
``Workspace``).

Unlike a file open (a ranked handful, neighbours included), this is everything the file's own code carries —
current, contested, stale, orphaned and suggested — so a person can see and tend all of it in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from forewarn.memory.records import Memory
from forewarn.memory.retrieval import rank_anchored
from forewarn.memory.vocabulary import MemoryStatus
from forewarn.workspace.core import WorkspaceCore

# the statuses the view lists, in the order it lists them within a symbol: what needs a person first
PANEL_STATUSES: tuple[MemoryStatus, ...] = (
    MemoryStatus.CONTESTED,
    MemoryStatus.ACTIVE,
    MemoryStatus.STALE,
    MemoryStatus.ORPHANED,
    MemoryStatus.SUGGESTED,
)
FILE_PANEL_MAX = 200  # memories listed for one file; the rest are counted (a generated file may carry thousands)


@dataclass(frozen=True, slots=True)
class SymbolMemories:
    """The memories on one symbol of the file (``symbol`` None: the whole file), in ``PANEL_STATUSES`` order."""

    symbol: str | None
    line: int | None  # where the symbol started when its memories were last anchored (1-based)
    memories: list[Memory]

    def counts(self) -> dict[str, int]:
        out = {str(s): 0 for s in PANEL_STATUSES}
        for m in self.memories:
            out[m.status] = out.get(m.status, 0) + 1
        return out


@dataclass(frozen=True, slots=True)
class FileMemories:
    file: str
    symbols: list[SymbolMemories]  # the whole file first, then by line
    more: int  # left out by FILE_PANEL_MAX

    def counts(self) -> dict[str, int]:
        out = {str(s): 0 for s in PANEL_STATUSES}
        for group in self.symbols:
            for status, n in group.counts().items():
                out[status] = out.get(status, 0) + n
        return out


class FilePanelMixin(WorkspaceCore):
    def file_memories(self, file: str | Path, *, limit: int = FILE_PANEL_MAX) -> FileMemories:
        """Every memory anchored to ``file`` in ``PANEL_STATUSES``, grouped by symbol; within a status best first."""
        rel = self.lookup_path(file)
        found = self.store.anchored_to_files([rel], PANEL_STATUSES)
        order = {s: i for i, s in enumerate(PANEL_STATUSES)}
        ranked = rank_anchored(found, self.clock())
        ranked.sort(key=lambda m: order[m.status])  # stable: the ranking holds within each status
        kept = ranked[: max(0, limit)]
        groups: dict[str | None, list[Memory]] = {}
        for m in kept:
            groups.setdefault(m.anchor.symbol if m.anchor else None, []).append(m)
        symbols = [SymbolMemories(symbol, _start(ms), ms) for symbol, ms in groups.items()]
        symbols.sort(key=lambda g: (g.symbol is not None, g.line or 0, g.symbol or ""))
        return FileMemories(rel, symbols, len(ranked) - len(kept))


def _start(memories: list[Memory]) -> int | None:
    lines = [m.anchor.start_line for m in memories if m.anchor and m.anchor.start_line is not None]
    return min(lines) if lines else None


__all__ = ["FILE_PANEL_MAX", "PANEL_STATUSES", "FileMemories", "FilePanelMixin", "SymbolMemories"]
