"""The memory vocabulary: what a memory is (type), where it stands (status), who wrote it (source).

One definition each. Members are ``str`` subclasses, so they compare equal to, and serialise as, the
plain strings stored in SQLite, the export and the protocol; clients spell the same values.
This module imports nothing, so every layer and front end may read it cheaply.
"""

from __future__ import annotations

from enum import StrEnum


class MemoryType(StrEnum):
    """What kind of lesson a memory is (declaration order is the order users see)."""

    GOTCHA = "gotcha"
    DECISION = "decision"
    ERROR_PATTERN = "error_pattern"
    DEAD_END = "dead_end"
    CONVENTION = "convention"
    PREFERENCE = "preference"
    TODO = "todo"
    NOTE = "note"


class MemoryStatus(StrEnum):
    """Where a memory stands; nothing is deleted, so every status stays inspectable."""

    ACTIVE = "active"
    STALE = "stale"  # its code changed since it was written
    SUPERSEDED = "superseded"  # replaced by a newer memory (history)
    ARCHIVED = "archived"  # forgotten by a person (restorable)
    ORPHANED = "orphaned"  # its code is gone
    SUGGESTED = "suggested"  # proposed by mining (history, warning comments); waits for a person's review
    DISMISSED = "dismissed"  # a person said no to a suggestion: never proposed again, kept as history
    CONTESTED = "contested"  # contradicts another current memory: both show as warnings until someone resolves it


class Resolution(StrEnum):
    """What a person decided about two memories that seem to contradict each other."""

    REPLACE = "replace"  # the one named first stands; the other is superseded by it
    BOTH = "both"  # both hold: recorded as a relation, and the pair is never flagged again
    CONTESTED = "contested"  # not settled: both are marked contested until someone resolves the pair


class MemorySource(StrEnum):
    """Who wrote a memory. Imports may carry other sources; those are kept as plain strings."""

    USER = "user"
    AGENT = "agent"
    COMMIT = "commit"
    COMMENT = "comment"  # a warning comment in the code at HEAD
    IMPORT = "import"


class SourceGroup(StrEnum):
    """How a memory arrived, as the health report groups it: typed by a person here, mined from the history or the
    code's warning comments, imported from the team's shared file, or written by an agent."""

    TYPED = "typed"
    MINED = "mined"
    IMPORTED = "imported"
    AGENT = "agent"


class Visibility(StrEnum):
    """Who a memory is for: the team (exported to the shared file) or its writer alone (never exported)."""

    TEAM = "team"
    PRIVATE = "private"


# what search returns unless asked otherwise
CURRENT_STATUSES: tuple[MemoryStatus, ...] = (
    MemoryStatus.ACTIVE,
    MemoryStatus.STALE,
    MemoryStatus.ORPHANED,
    MemoryStatus.CONTESTED,
)
# what shows on a file: orphaned memories have lost their code
ANCHORED_STATUSES: tuple[MemoryStatus, ...] = (MemoryStatus.ACTIVE, MemoryStatus.STALE, MemoryStatus.CONTESTED)
# no longer current: kept as history, reachable only when asked for
ENDED_STATUSES: tuple[MemoryStatus, ...] = (MemoryStatus.SUPERSEDED, MemoryStatus.ARCHIVED)
# proposed, not yet reviewed: shown apart (hints, `memory review`), never as a current memory
SUGGESTION_STATUSES: tuple[MemoryStatus, ...] = (MemoryStatus.SUGGESTED,)
