"""How memories age with the code: supersession, reinforcement, staleness, orphaning, re-anchoring.

Nothing here deletes: a replaced memory becomes ``superseded`` (history), a forgotten one
``archived`` (restorable), one whose code vanished ``orphaned``. After a re-index the anchors of
memories in changed, renamed and deleted files are checked against the new chunks:

- the anchored symbol's code hash changed → ``stale`` ("may be outdated"), span updated;
- the symbol moved within its file → span follows it (no status change);
- the symbol vanished → ``orphaned``; the file was deleted → ``orphaned``;
- the file was renamed → the anchor's path follows;
- an orphaned memory whose symbol reappears comes back (``active`` if its code is unchanged).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from forewarn.memory.store import STATUSES, Anchor, Memory, MemoryEvent, MemoryStore
from forewarn.memory.text import new_id
from forewarn.memory.vocabulary import ANCHORED_STATUSES, CURRENT_STATUSES, MemoryStatus

log = logging.getLogger(__name__)

SUPERSEDE_CANDIDATE_COSINE = 0.85  # this close, with an overlapping anchor, it probably replaces an older memory
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

    def to_dict(self) -> dict[str, list[str]]:
        return {
            "stale": self.stale,
            "orphaned": self.orphaned,
            "reanchored": self.reanchored,
            "renamed": self.renamed,
            "revived": self.revived,
        }


def reconcile(
    store: MemoryStore,
    chunks: ChunkSource,
    *,
    changed: Sequence[str],
    deleted: Sequence[str],
    renamed: Sequence[tuple[str, str]],
    at: str,
) -> ReconcileReport:
    """Bring anchors in line with a re-index, in one transaction."""
    report = ReconcileReport()
    with store.batch():
        for old, new in renamed:
            for m in store.anchored_to_files([old], statuses=STATUSES):
                assert m.anchor is not None
                moved = Anchor(new, m.anchor.symbol, m.anchor.start_line, m.anchor.end_line, m.anchor.content_hash)
                store.update_anchor(m.id, moved, at=at, event=event(m.id, "renamed", at, old_file=old, new_file=new))
                report.renamed.append(m.id)
        for rel in deleted:
            for m in store.anchored_to_files([rel], statuses=ANCHORED_STATUSES):
                store.update_status(
                    m.id, MemoryStatus.ORPHANED, at=at, reason=f"{rel} was deleted",
                    event=event(m.id, "orphaned", at, reason="file deleted", file=rel),
                )  # fmt: skip
                report.orphaned.append(m.id)
        files = list(dict.fromkeys([*changed, *(new for _, new in renamed)]))
        moves: list[tuple[str, int, int]] = []
        for m in store.anchored_to_files(files, statuses=CURRENT_STATUSES):
            a = m.anchor
            if a is None or a.symbol is None:
                if m.status == MemoryStatus.ORPHANED and a is not None:  # file-wide memory whose file is back
                    store.update_status(m.id, MemoryStatus.ACTIVE, at=at, event=event(m.id, "revived", at, file=a.file))
                    report.revived.append(m.id)
                continue
            chunk = chunks.chunk_by_symbol(a.file, a.symbol)
            if chunk is None:
                if m.status != MemoryStatus.ORPHANED:
                    store.update_status(
                        m.id, MemoryStatus.ORPHANED, at=at, reason=f"{a.symbol} is no longer in {a.file}",
                        event=event(m.id, "orphaned", at, reason="symbol vanished", symbol=a.symbol, file=a.file),
                    )  # fmt: skip
                    report.orphaned.append(m.id)
                continue
            span_moved = (chunk.start_line, chunk.end_line) != (a.start_line, a.end_line)
            code_changed = a.content_hash is not None and chunk.content_hash != a.content_hash
            if m.status == MemoryStatus.ORPHANED:
                status = MemoryStatus.STALE if code_changed else MemoryStatus.ACTIVE
                store.update_status(
                    m.id, status, at=at, reason="its code changed while it was gone" if code_changed else None,
                    event=event(m.id, "revived", at, symbol=a.symbol, file=a.file),
                )  # fmt: skip
                report.revived.append(m.id)
            elif code_changed and m.status == MemoryStatus.ACTIVE:
                store.update_status(
                    m.id, MemoryStatus.STALE, at=at, reason=f"the code of {a.symbol} changed since this was written",
                    event=event(
                        m.id, "stale", at, symbol=a.symbol, old_hash=a.content_hash, new_hash=chunk.content_hash
                    ),
                )  # fmt: skip
                report.stale.append(m.id)
            if span_moved:
                moves.append((m.id, chunk.start_line, chunk.end_line))
                report.reanchored.append(m.id)
        store.move_spans(moves)
    return report


def anchor_from_chunk(rel: str, chunk: ChunkLike) -> Anchor:
    return Anchor(rel, chunk.symbol, chunk.start_line, chunk.end_line, chunk.content_hash)


def current_anchor(memory: Memory, chunks: ChunkSource) -> Anchor | None:
    """The memory's anchor with the code hash as it is now (used when confirming a stale memory)."""
    a = memory.anchor
    if a is None or a.symbol is None:
        return a
    chunk = chunks.chunk_by_symbol(a.file, a.symbol)
    return anchor_from_chunk(a.file, chunk) if chunk is not None else a
