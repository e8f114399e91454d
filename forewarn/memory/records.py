"""The memory data model: memories, their anchors and history events, and the light rows ranking reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from forewarn.memory.vocabulary import CURRENT_STATUSES, MemoryStatus, MemoryType, Visibility

EventKind = str


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where a memory applies. ``symbol`` None: the whole file."""

    file: str
    symbol: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    content_hash: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "symbol": self.symbol,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "content_hash": self.content_hash,
        }


@dataclass(frozen=True, slots=True)
class Memory:
    id: str
    type: MemoryType
    text: str
    anchor: Anchor | None  # None: workspace-wide
    source: str  # a MemorySource, or whatever source an imported memory carried
    confidence: float
    created_at: str  # ISO-8601 UTC, fixed width (sorts as time)
    updated_at: str
    status: MemoryStatus = MemoryStatus.ACTIVE
    status_reason: str | None = None
    last_accessed_at: str | None = None
    access_count: int = 0
    surfaced_count: int = 0
    ended_at: str | None = None  # when it stopped being current (superseded / archived)
    supersedes: str | None = None
    superseded_by: str | None = None
    session_id: str | None = None
    tags: tuple[str, ...] = ()
    num: int = 0  # integer key shared with FTS and the vector index; 0 before insertion
    # where a mined memory came from: {"commits": [{"sha", "author", "date", "subject"}], "anchor": …}
    provenance: dict[str, Any] | None = field(default=None, hash=False)
    visibility: Visibility = Visibility.TEAM  # private: its writer's alone, never exported
    recorded_by: str | None = None  # "Name <email>" from the writer's git config, when known

    @property
    def file(self) -> str | None:
        """The anchored file (None: workspace-wide)."""
        return self.anchor.file if self.anchor else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "text": self.text,
            "anchor": self.anchor.to_dict() if self.anchor else None,
            "source": self.source,
            "confidence": self.confidence,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "status": self.status,
            "status_reason": self.status_reason,
            "last_accessed_at": self.last_accessed_at,
            "access_count": self.access_count,
            "surfaced_count": self.surfaced_count,
            "ended_at": self.ended_at,
            "supersedes": self.supersedes,
            "superseded_by": self.superseded_by,
            "session_id": self.session_id,
            "tags": list(self.tags),
            "provenance": self.provenance,
            "visibility": self.visibility,
            "recorded_by": self.recorded_by,
        }


@dataclass(frozen=True, slots=True)
class MemoryEvent:
    id: str
    memory_id: str
    at: str
    kind: EventKind
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "memory_id": self.memory_id, "at": self.at, "kind": self.kind, "detail": self.detail}


class AnchoredRef(NamedTuple):
    """The few fields ranking a file's memories needs; full rows are loaded only for what is shown.
    A named tuple: built straight from SQLite's row tuples, thousands per file open."""

    num: int
    id: str
    type: str
    file: str
    symbol: str | None
    source: str
    confidence: float
    status: str
    created_at: str
    last_accessed_at: str | None
    access_count: int


@dataclass(frozen=True, slots=True)
class SearchRow:
    """What filtering and ranking search candidates reads; full rows are loaded for the best few only."""

    num: int
    id: str
    type: str
    file: str | None
    source: str
    confidence: float
    status: str
    created_at: str
    last_accessed_at: str | None
    access_count: int
    ended_at: str | None
    tags: tuple[str, ...]


RELATION_EVENT = "relation"  # in both memories' history: {"with": the other id, "relation": both|contested}
# a comment memory's warning comment was reworded (workspace.mine_reworded): each names the new wording's mining
# fingerprint, which a shared copy carries so that a teammate's mining knows the new wording too
REWORDED_EVENT = "reworded"  # a waiting suggestion brought up to its comment's new wording: {previous_text, …}
KEPT_EVENT = "comment_reworded"  # a vetted memory's comment was reworded; its text stays: {text, fingerprint, …}


@dataclass(frozen=True, slots=True)
class Relation:
    """What a person said holds between two memories (``a`` < ``b``): ``both`` hold, or ``contested``."""

    a: str
    b: str
    kind: str
    at: str

    def other(self, memory_id: str) -> str:
        return self.b if memory_id == self.a else self.a


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    """Optional filters, each ANDed. ``file`` matches the file itself or everything under a folder."""

    types: tuple[str, ...] = ()
    file: str | None = None
    file_only: bool = False  # ``file`` is that one file, never a folder: one index seek instead of an OR SQLite scans
    statuses: tuple[str, ...] = CURRENT_STATUSES
    since: str | None = None  # created at or after (ISO)
    as_of: str | None = None  # created at or before; current as of then
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StoreStats:
    total: int
    by_type: dict[str, int]
    by_status: dict[str, int]
    most_surfaced: list[Memory]
    anchored_files: set[str]
