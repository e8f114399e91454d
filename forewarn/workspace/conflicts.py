"""Contradictions between current memories: finding them, and what a person decided about a pair."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from forewarn.memory import contradictions
from forewarn.memory.errors import InvalidMemoryError
from forewarn.memory.lifecycle import anchors_overlap, event
from forewarn.memory.records import RELATION_EVENT, Anchor, Memory
from forewarn.memory.vocabulary import (
    CURRENT_STATUSES,
    MemoryStatus,
    Resolution,
)
from forewarn.workspace.core import WorkspaceCore
from forewarn.workspace.results import Conflict

log = logging.getLogger(__name__)

CONFLICT_CANDIDATES = 200  # current memories on the same place judged against a new one, newest first
MAX_CONFLICTS = 5  # conflicts a remember reports, most similar first: past a few, the place needs a cleanup


class ConflictsMixin(WorkspaceCore):
    """Contradiction checks and resolutions (part of ``Workspace``)."""

    def _conflicts(
        self, text: str, anchor: Anchor | None, vec: np.ndarray | None, *, memory_id: str | None = None
    ) -> list[Conflict]:
        """Current memories on the same place (symbol, file or workspace) that ``text`` seems to contradict.

        ``memory_id``: the memory the text is (an existing one): itself, and every memory a person already
        related it to (both hold, contested), are left out, so a resolved pair is never flagged again.
        """
        if anchor is None:
            others = self.store.workspace_wide(CURRENT_STATUSES, limit=CONFLICT_CANDIDATES)
        else:
            others = [
                m
                for m in self.store.anchored_to_files([anchor.file], CURRENT_STATUSES)
                if anchors_overlap(m.anchor, anchor)
            ]
            others.sort(key=lambda m: m.created_at, reverse=True)
            others = others[:CONFLICT_CANDIDATES]
        if memory_id is not None:
            related = {r.other(memory_id) for r in self.store.relations([memory_id])}
            others = [m for m in others if m.id != memory_id and m.id not in related]
        if not others:
            return []
        cosines = self._cosines(vec, others)
        found: list[Conflict] = []
        for m in others:
            verdict = _verdict(text, anchor, m, cosines.get(m.num))
            if verdict is None and memory_id is not None:  # an existing memory may be the older of the two
                verdict = _verdict(text, anchor, m, cosines.get(m.num), newer=False)
            if verdict is not None:
                found.append(Conflict(m, verdict.cues, verdict.overlap, verdict.cosine))
        found.sort(key=lambda c: -max(c.overlap, c.cosine or 0.0))
        return found[:MAX_CONFLICTS]

    def _says_otherwise(self, text: str, anchor: Anchor | None, vec: np.ndarray | None, other: Memory) -> bool:
        """Whether ``text`` contradicts ``other`` (a changed number, unit or polarity): then it is another note, never
        ``other`` said again, however close their words or vectors are."""
        return _verdict(text, anchor, other, self._cosines(vec, [other]).get(other.num)) is not None

    def _cosines(self, vec: np.ndarray | None, others: Sequence[Memory]) -> dict[int, float]:
        """Each of ``others``' stored vector's cosine with ``vec`` (none without vectors)."""
        if vec is None or self.vectors is None:
            return {}
        nums = [m.num for m in others if m.num is not None]
        got = self.vectors.vectors(nums)
        return {num: float(np.dot(np.asarray(v, dtype=np.float32), vec)) for num, v in got.items()}

    def conflicts(self, memory_id: str) -> list[Conflict]:
        """The current memories an existing memory seems to contradict, leaving out pairs a person resolved."""
        m = self.store.resolve(memory_id)
        vec = None
        if self.vectors is not None and m.num is not None:
            got = self.vectors.vectors([m.num]).get(m.num)
            vec = None if got is None else np.asarray(got, dtype=np.float32)
        return self._conflicts(m.text, m.anchor, vec, memory_id=m.id)

    def contested_with(self, memory_ids: Sequence[str]) -> dict[str, list[Memory]]:
        """For each memory, the current memories it is contested with (a person marked the pair contested)."""
        pairs = [r for r in self.store.relations(memory_ids) if r.kind == Resolution.CONTESTED]
        others = self.store.get_many(list({x for r in pairs for x in (r.a, r.b)}))
        wanted = set(memory_ids)
        out: dict[str, list[Memory]] = {}
        for r in pairs:
            for mine in (r.a, r.b):
                other = others.get(r.other(mine))
                if mine in wanted and other is not None and other.status in CURRENT_STATUSES:
                    out.setdefault(mine, []).append(other)
        return out

    def resolve_conflict(self, memory_id: str, other_id: str, resolution: str) -> tuple[Memory, Memory]:
        """What a person decided about two memories that seem to contradict each other; both as they are now.

        ``replace``: ``memory_id`` stands and ``other_id`` is superseded by it (kept as history). ``both``:
        both hold; recorded, so the pair is never flagged again, and a contested one becomes current again.
        ``contested``: both are marked contested (a Warning wherever they show) until someone resolves them.
        """
        try:
            how = Resolution(resolution)
        except ValueError:
            raise InvalidMemoryError(f"unknown resolution '{resolution}'; use one of {', '.join(Resolution)}") from None
        m, o = self.store.resolve(memory_id), self.store.resolve(other_id)
        if m.id == o.id:
            raise InvalidMemoryError(f"memory {m.id} cannot contradict itself; name the other memory")
        for x in (m, o):
            if x.status not in CURRENT_STATUSES:
                raise InvalidMemoryError(
                    f"memory {x.id} is {x.status}, not a current memory; only current memories can be resolved"
                )
        with self._lock:
            _, at = self._now()
            with self.store.batch():
                if how == Resolution.REPLACE:
                    self.store.update_status(
                        o.id, MemoryStatus.SUPERSEDED, at=at, reason=f"superseded by {m.id}", ended_at=at,
                        superseded_by=m.id, event=event(o.id, "superseded", at, by=m.id, resolution=how.value),
                    )  # fmt: skip
                    self._settle_partners(o.id, at)
                    if m.supersedes is None:
                        self.store.set_supersedes(m.id, o.id, at=at)
                else:
                    self.store.set_relation(m.id, o.id, how.value, at=at)
                    self.store.add_events(
                        [
                            event(x.id, RELATION_EVENT, at, relation=how.value, **{"with": y.id})
                            for x, y in ((m, o), (o, m))
                        ]
                    )
                if how == Resolution.CONTESTED:
                    for x, y in ((m, o), (o, m)):
                        if x.status in (MemoryStatus.ACTIVE, MemoryStatus.STALE):
                            self.store.update_status(
                                x.id, MemoryStatus.CONTESTED, at=at, reason=f"contradicts {y.id}",
                                event=event(x.id, "contested", at, previous_status=x.status, **{"with": y.id}),
                            )  # fmt: skip
                else:
                    self._settle_contested([m.id] if how == Resolution.REPLACE else [m.id, o.id], at)
        return self.store.resolve(m.id), self.store.resolve(o.id)

    def _settle_partners(self, memory_id: str, at: str) -> None:
        """``memory_id`` is no longer current: the memories contested with it may be settled now."""
        partners = [r.other(memory_id) for r in self.store.relations([memory_id]) if r.kind == Resolution.CONTESTED]
        if partners:
            self._settle_contested(partners, at)

    def _settle_contested(self, memory_ids: Sequence[str], at: str) -> None:
        """A contested memory with no contested pair left goes back to the status it had before."""
        still = self.contested_with(memory_ids)
        for mid in memory_ids:
            m = self.store.get(mid)
            if m is None or m.status != MemoryStatus.CONTESTED or still.get(mid):
                continue
            previous = MemoryStatus.ACTIVE
            for ev in reversed(self.store.events(mid)):
                if ev.kind == "contested":
                    recorded = str(ev.detail.get("previous_status") or "")
                    if recorded in (MemoryStatus.ACTIVE, MemoryStatus.STALE):
                        previous = MemoryStatus(recorded)
                    break
            self.store.update_status(mid, previous, at=at, event=event(mid, "uncontested", at, status=previous))


def _verdict(
    text: str, anchor: Anchor | None, other: Memory, cosine: float | None, *, newer: bool = True
) -> contradictions.Verdict | None:
    """Whether ``text`` (on ``anchor``) and ``other`` contradict each other, judged with both anchors' words:
    ``text`` as the newer of the two, or (``newer=False``) as the older."""
    words = contradictions.anchor_words(anchor.symbol if anchor else None) | contradictions.anchor_words(
        other.anchor.symbol if other.anchor else None
    )
    if newer:
        return contradictions.judge(text, other.text, anchor=words, cosine=cosine)
    return contradictions.judge(other.text, text, anchor=words, cosine=cosine)
