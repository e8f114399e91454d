"""Forks: two teammates each replaced the same memory (``memory supersede`` on two branches).

Neither knew of the other, so neither replacement can be taken as the one that stands. After git merges
the two exports, both are current and both say they replace the same memory; left alone they would be two
silent active replacements (D21 of the third functional pass). A fork is flagged as one contested pair —
a Warning wherever either shows, naming the other — until a person settles it (``forewarn memory resolve
A B --replace|--both``). The merge driver writes the pair's ``relation`` events into the shared file
(``fork_events``), and an import marks the pair contested in the store (``flag_forks``).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable
from typing import Any

from forewarn.memory.records import RELATION_EVENT, Memory, MemoryEvent, Relation
from forewarn.memory.store import MemoryStore
from forewarn.memory.vocabulary import CURRENT_STATUSES, MemoryStatus, Resolution, Visibility

CONTESTED_EVENT = "contested"  # the status change, with the status to return to once settled (workspace.conflicts)
FORK_EVENT_PREFIX = "fork-"  # event ids derived from the pair: the same fork found twice adds nothing
# a contested mark leaves these statuses; an orphaned memory has no code to show a Warning on
MARKABLE = (MemoryStatus.ACTIVE, MemoryStatus.STALE)


def fork_pairs(memories: Iterable[Memory]) -> list[tuple[Memory, Memory]]:
    """Pairs of current team memories that replace the same memory, each pair ``(a, b)`` with ``a.id < b.id``,
    in a fixed order (by the replaced id, then the pair)."""
    by_old: dict[str, dict[str, Memory]] = {}
    for m in memories:
        if m.supersedes and m.status in CURRENT_STATUSES and m.visibility == Visibility.TEAM:
            by_old.setdefault(m.supersedes, {})[m.id] = m
    pairs: list[tuple[Memory, Memory]] = []
    for old in sorted(by_old):
        group = [by_old[old][i] for i in sorted(by_old[old])]
        pairs += list(itertools.combinations(group, 2))
    return pairs


def fork_time(a: Memory, b: Memory) -> str:
    """When the fork came to be: the later replacement was written (the same whoever finds it, and when)."""
    return max(a.created_at, b.created_at)


def fork_event_id(kind: str, this: str, other: str) -> str:
    digest = hashlib.sha256(f"{kind}\n{this}\n{other}".encode()).hexdigest()[:32]
    return FORK_EVENT_PREFIX + digest


def relation_event(this: Memory, other: Memory) -> dict[str, Any]:
    """The ``relation`` event (as a shared file writes events) saying ``this`` is contested with ``other``."""
    return {
        "id": fork_event_id(RELATION_EVENT, this.id, other.id),
        "at": fork_time(this, other),
        "kind": RELATION_EVENT,
        "detail": {"relation": Resolution.CONTESTED.value, "with": other.id, "replaces": this.supersedes},
    }


def settled(events: Iterable[tuple[str, dict[str, Any]]], other: str) -> bool:
    """Whether history (``(kind, detail)`` of each event, as its writer recorded it) already relates this
    memory to ``other`` — a person said both hold or contested, or the fork was flagged before: such a pair is
    never flagged again."""
    return any(kind == RELATION_EVENT and detail.get("with") == other for kind, detail in events)


def flag_forks(store: MemoryStore, candidates: Iterable[Memory], *, at: str) -> list[tuple[Memory, Memory]]:
    """Mark each fork among ``candidates`` contested (relation and statuses, with events), unless a person
    already said both hold; returns the pairs newly flagged. Run inside the caller's transaction."""
    flagged: list[tuple[Memory, Memory]] = []
    for a, b in fork_pairs(candidates):
        known = {(r.a, r.b): r for r in store.relations([a.id])}
        rel: Relation | None = known.get((a.id, b.id))
        if rel is not None and rel.kind == Resolution.BOTH:
            continue
        if rel is None and store.set_relation(a.id, b.id, Resolution.CONTESTED.value, at=fork_time(a, b)):
            store.add_events(
                [
                    MemoryEvent(fork_event_id(RELATION_EVENT, x.id, y.id), x.id, fork_time(a, b), RELATION_EVENT,
                                relation_event(x, y)["detail"])
                    for x, y in ((a, b), (b, a))
                ]
            )  # fmt: skip
        marked = False
        for x, y in ((a, b), (b, a)):
            now = store.get(x.id)
            if now is None or now.status not in MARKABLE:
                continue
            store.update_status(
                x.id, MemoryStatus.CONTESTED, at=at, reason=f"contradicts {y.id}",
                event=MemoryEvent(
                    fork_event_id(CONTESTED_EVENT, x.id, y.id), x.id, at, CONTESTED_EVENT,
                    {"previous_status": now.status.value, "with": y.id, "replaces": x.supersedes},
                ),
            )  # fmt: skip
            marked = True
        if marked:
            flagged.append((a, b))
    return flagged


def flag_forks_of(store: MemoryStore, memory: Memory, old: Memory, *, at: str) -> list[tuple[Memory, Memory]]:
    """``memory`` just became current (a teammate's replacement of ``old``, imported as a suggestion, accepted
    here) while another current memory already replaces ``old``: flag the fork as ``flag_forks`` does on import,
    never leaving two silent replacements. Run inside the caller's transaction."""
    here = store.anchored_to_files([memory.file], CURRENT_STATUSES) if memory.file else store.workspace_wide()
    later = store.get(old.superseded_by) if old.superseded_by else None  # ours, though anchored elsewhere
    candidates = [memory, *here, *([later] if later is not None else [])]
    return flag_forks(store, [m for m in candidates if m.supersedes == old.id], at=at)
