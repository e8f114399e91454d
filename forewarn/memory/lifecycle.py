"""How memories age with the code: supersession, reinforcement, staleness, orphaning, re-anchoring.

Nothing here deletes: a replaced memory becomes ``superseded`` (history), a forgotten one
``archived`` (restorable), one whose code vanished ``orphaned``. Bringing anchors in line with the
code after it changed (stale, reformatted, re-anchored, orphaned, revived) needs the code's syntax, so
it lives a layer up, in ``forewarn/workspace/reconcile.py``; its report and events are defined here.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Protocol

from forewarn.memory.records import Anchor, Memory, MemoryEvent
from forewarn.memory.text import new_id

log = logging.getLogger(__name__)

MERGE_COSINE = 0.95  # this close on the same anchor it is the same lesson again: reinforce, don't duplicate
MERGE_CONFIDENCE_GAIN = 0.05  # each independent re-statement raises confidence a little
CONFIRM_CONFIDENCE_GAIN = 0.1  # an explicit "still true" is stronger evidence than a re-statement


class ChunkLike(Protocol):
    symbol: str
    start_line: int
    end_line: int
    content_hash: str


class ChunkSource(Protocol):
    """What reconciliation needs from the code index (``Indexer`` satisfies it)."""

    def chunk_by_symbol(self, rel: str, symbol: str) -> ChunkLike | None: ...


def event(memory_id: str, kind: str, at: str, **detail: Any) -> MemoryEvent:
    return MemoryEvent(new_id(), memory_id, at, kind, {k: v for k, v in detail.items() if v is not None})


def same_anchor(a: Anchor | None, b: Anchor | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a.file == b.file and a.symbol == b.symbol


def anchors_overlap(a: Anchor | None, b: Anchor | None) -> bool:
    """Same place, or one place inside the other (file-wide vs a symbol of that file, overlapping spans)."""
    if a is None or b is None:
        return a is None and b is None
    if a.file != b.file:
        return False
    if a.symbol is None or b.symbol is None or a.symbol == b.symbol:
        return True
    if None in (a.start_line, a.end_line, b.start_line, b.end_line):
        return False
    return a.start_line <= b.end_line and b.start_line <= a.end_line  # type: ignore[operator]


@dataclass
class ReconcileReport:
    stale: list[str] = field(default_factory=list)
    orphaned: list[str] = field(default_factory=list)
    reanchored: list[str] = field(default_factory=list)  # moved within the file (span followed)
    renamed: list[str] = field(default_factory=list)  # file path followed a rename
    revived: list[str] = field(default_factory=list)  # orphaned, and their symbol is back
    reformatted: list[str] = field(default_factory=list)  # code changed in formatting/comments only: still active

    def to_dict(self) -> dict[str, list[str]]:
        return {
            "stale": self.stale,
            "orphaned": self.orphaned,
            "reanchored": self.reanchored,
            "renamed": self.renamed,
            "revived": self.revived,
            "reformatted": self.reformatted,
        }


def anchor_from_chunk(rel: str, chunk: ChunkLike) -> Anchor:
    return Anchor(rel, chunk.symbol, chunk.start_line, chunk.end_line, chunk.content_hash)


def current_anchor(memory: Memory, chunks: ChunkSource) -> Anchor | None:
    """The memory's anchor with the code hash as it is now (used when confirming a stale memory)."""
    a = memory.anchor
    if a is None or a.symbol is None:
        return a
    chunk = chunks.chunk_by_symbol(a.file, a.symbol)
    return anchor_from_chunk(a.file, chunk) if chunk is not None else a
