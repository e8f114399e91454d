"""A memory's standing at a past time, read back from its history; and why it is stale.

``search --as-of T`` finds the memories that were current at T; what each one *was* then (its status,
the reason for it, its age) comes from replaying its events up to T. The events of a memory are the
record of every status change (``created``, ``stale``, ``marked_stale``, ``confirmed``, ``forgotten``…),
so the replay needs no other table. Events this module does not know leave the status as it was; a
memory whose history says nothing changed after T was then what it is now.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from forewarn.memory.records import Memory, MemoryEvent
from forewarn.memory.vocabulary import MemoryStatus

# Reasons the code index writes when the code under a memory changed (workspace/reconcile.py,
# memory/lifecycle.py); any other reason on a stale memory was given by whoever marked it outdated.
CODE_CHANGE_REASONS = ("the code of ", "its code changed")
MARKED_BY_HAND_DEFAULT = "marked outdated"  # Workspace.mark_stale's reason when none is given

# event kind → the status it leaves the memory in (None: the event's detail says)
STATUS_AFTER: dict[str, MemoryStatus | None] = {
    "created": MemoryStatus.ACTIVE,
    "suggested": MemoryStatus.SUGGESTED,
    "accepted": MemoryStatus.ACTIVE,
    "dismissed": MemoryStatus.DISMISSED,
    "withdrawn": MemoryStatus.DISMISSED,  # mining withdrew a suggestion: a later commit reverted its commit
    "stale": MemoryStatus.STALE,
    "marked_stale": MemoryStatus.STALE,
    "confirmed": MemoryStatus.ACTIVE,
    "orphaned": MemoryStatus.ORPHANED,
    "revived": None,  # active again, or stale when its code changed meanwhile (detail: diff / status)
    "superseded": MemoryStatus.SUPERSEDED,
    "forgotten": MemoryStatus.ARCHIVED,
    "purged": MemoryStatus.ARCHIVED,
    "restored": None,  # back to what it was before it was forgotten (detail: status)
    "contested": MemoryStatus.CONTESTED,  # it contradicts another current memory (workspace/conflicts.py)
    "uncontested": None,  # back to the status it had before it was contested (detail: status)
}
STATUS_EVENTS = frozenset(STATUS_AFTER)


@dataclass(frozen=True, slots=True)
class Standing:
    """What a memory was at one time: its status and the reason given for it."""

    status: str
    reason: str | None


def stale_by_hand(memory: Memory) -> bool:
    """Whether a stale memory was marked outdated by someone, rather than by a change to its code."""
    reason = memory.status_reason
    return memory.status == MemoryStatus.STALE and reason is not None and not reason.startswith(CODE_CHANGE_REASONS)


def stale_note(memory: Memory) -> str:
    """Why a stale memory is stale, in a few words: "marked outdated: <reason>" or "its code changed"."""
    if not stale_by_hand(memory):
        return "its code changed"
    reason = " ".join((memory.status_reason or "").split())
    if not reason or reason == MARKED_BY_HAND_DEFAULT:
        return MARKED_BY_HAND_DEFAULT
    return f"{MARKED_BY_HAND_DEFAULT}: {reason}"


def standing_at(memory: Memory, events: Sequence[MemoryEvent], at: str) -> Standing:
    """``memory``'s status and reason at ISO time ``at``, replayed from its ``events``."""
    ordered = sorted(events, key=lambda e: (e.at, e.id))
    if not any(e.kind in STATUS_EVENTS and e.at > at for e in ordered):
        return Standing(memory.status, memory.status_reason)  # nothing changed it since: it was what it is
    status: str = MemoryStatus.ACTIVE
    reason: str | None = None
    history: list[tuple[str, str | None]] = []  # (status, reason) before each forget, for restore
    for e in ordered:
        if e.at > at:
            break
        if e.kind not in STATUS_EVENTS:
            continue
        detail = e.detail if isinstance(e.detail, dict) else {}
        after = STATUS_AFTER[e.kind]
        if e.kind == "forgotten":
            history.append((status, reason))
        if after is None:
            if e.kind == "restored":
                before = history.pop() if history else (MemoryStatus.ACTIVE, None)
                given = str(detail.get("status") or before[0])
                status, reason = given, (before[1] if given == before[0] else None)
            elif e.kind == "uncontested":
                status, reason = str(detail.get("status") or MemoryStatus.ACTIVE), None
            else:  # revived
                said = detail.get("status")
                changed = bool(detail.get("diff")) or said == MemoryStatus.STALE
                status = str(said) if said else (MemoryStatus.STALE if changed else MemoryStatus.ACTIVE)
                reason = "its code changed while it was gone" if status == MemoryStatus.STALE else None
            continue
        status = after
        if e.kind == "marked_stale":
            reason = str(detail.get("reason") or MARKED_BY_HAND_DEFAULT)
        elif e.kind == "stale":
            symbol = detail.get("symbol")
            reason = f"the code of {symbol} changed since this was written" if symbol else "its code changed"
        elif e.kind == "orphaned":
            reason = str(detail.get("reason")) if detail.get("reason") else None
        elif e.kind == "superseded":
            by = detail.get("by") or detail.get("superseded_by")
            reason = f"superseded by {by}" if by else None
        else:
            reason = None
    return Standing(status, reason)


__all__ = ["CODE_CHANGE_REASONS", "Standing", "stale_by_hand", "stale_note", "standing_at"]
