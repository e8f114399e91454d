"""A memory's status as a person changes it: forget (and purge), restore, confirm, re-anchor, mark outdated."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forewarn.memory import lifecycle, transfer
from forewarn.memory.errors import InvalidMemoryError
from forewarn.memory.lifecycle import event
from forewarn.memory.origin import proposal_of
from forewarn.memory.records import Anchor, Memory
from forewarn.memory.store import STATUSES
from forewarn.memory.vocabulary import ANCHORED_STATUSES, ENDED_STATUSES, MemoryStatus
from forewarn.workspace import reconcile
from forewarn.workspace.conflicts import ConflictsMixin


class StatusMixin(ConflictsMixin):
    """Status changes a person makes to one memory (part of ``Workspace``); nothing is ever deleted."""

    def forget(self, memory_id: str) -> Memory:
        """Archive (restorable): never returned as current, never deleted."""
        m = self.store.resolve(memory_id)
        if m.status == MemoryStatus.ARCHIVED:
            return m
        with self._lock:
            _, at = self._now()
            self.store.update_status(
                m.id, MemoryStatus.ARCHIVED, at=at, reason="forgotten", ended_at=m.ended_at or at,
                event=event(
                    m.id, "forgotten", at, previous_status=m.status, previous_reason=m.status_reason,
                    previous_ended_at=m.ended_at,
                ),
            )  # fmt: skip
            self._settle_partners(m.id, at)
        return self.store.resolve(m.id)

    def purge(self, memory_id: str) -> Memory:
        """Forget for good: the text leaves the database, its full-text index and the vectors; history keeps
        only that the memory was purged. Export never writes it again, and no import brings it back."""
        m = self.store.resolve(memory_id)
        if transfer.is_purged(m):
            return m
        with self._lock:
            _, at = self._now()
            self.store.purge(m.id, at=at, event=event(m.id, transfer.PURGED_EVENT, at, previous_status=m.status))
            if self.vectors is not None:
                self.vectors.rebuild()  # the hnsw file held the purged memory's vector too
        return self.store.resolve(m.id)

    def restore(self, memory_id: str) -> Memory:
        """Bring back a forgotten memory (to the status it had before)."""
        m = self.store.resolve(memory_id)
        if transfer.is_purged(m):
            raise InvalidMemoryError(f"memory {m.id} was purged; its text is gone, so there is nothing to restore")
        if m.status != MemoryStatus.ARCHIVED:
            raise InvalidMemoryError(f"memory {m.id} is {m.status}, not forgotten; nothing to restore")
        if (proposal := proposal_of(m)) is not None:  # applied or forgotten: what it proposed is done or undone apart
            raise InvalidMemoryError(f"memory {m.id} was a proposal to change {proposal.target}; nothing to restore")
        detail: dict[str, Any] = {}
        for ev in reversed(self.store.events(m.id)):
            if ev.kind == "forgotten":
                detail = ev.detail
                break
        recorded = str(detail.get("previous_status") or MemoryStatus.ACTIVE)
        previous = MemoryStatus(recorded) if recorded in STATUSES else MemoryStatus.ACTIVE
        if previous == MemoryStatus.ARCHIVED:
            previous = MemoryStatus.ACTIVE
        # a forgotten superseded memory goes back to being history, not current
        ended = detail.get("previous_ended_at") if previous == MemoryStatus.SUPERSEDED else None
        with self._lock:
            _, at = self._now()
            self.store.update_status(
                m.id, previous, at=at, reason=detail.get("previous_reason"), ended_at=ended,
                event=event(m.id, "restored", at, status=previous),
            )  # fmt: skip
        return self.store.resolve(m.id)

    def confirm(self, memory_id: str) -> Memory:
        """ "Still true": clears staleness (re-hashing the anchored code) and reinforces."""
        m = self.store.resolve(memory_id)
        if m.status in ENDED_STATUSES:
            raise InvalidMemoryError(f"memory {m.id} is {m.status}; only current memories can be confirmed")
        if m.status in (MemoryStatus.SUGGESTED, MemoryStatus.DISMISSED):  # confirming must not bypass review
            raise InvalidMemoryError(
                f"memory {m.id} is {m.status}, not a current memory; a person accepts suggestions (memory review)"
            )
        if m.status == MemoryStatus.CONTESTED:  # "still true" does not say which of the pair holds
            raise InvalidMemoryError(
                f"memory {m.id} is contested by another memory; settle the pair first "
                f"(forewarn memory resolve {m.id} --replace|--both|--contested)"
            )
        with self._lock:
            _, at = self._now()
            with self.store.batch():
                if m.status == MemoryStatus.ORPHANED:
                    a = m.anchor
                    new_anchor = Anchor(a.file) if a is not None and (self.root / a.file).is_file() else None
                    self.store.update_anchor(m.id, new_anchor, at=at, event=None)
                elif m.anchor is not None and m.anchor.symbol is not None:
                    self.store.update_anchor(m.id, lifecycle.current_anchor(m, self.indexer), at=at, event=None)
                self.store.update_status(
                    m.id, MemoryStatus.ACTIVE, at=at, event=event(m.id, "confirmed", at, previous_status=m.status)
                )
                self.store.reinforce(m.id, at=at, confidence_gain=lifecycle.CONFIRM_CONFIDENCE_GAIN, event=None)
        confirmed = self.store.resolve(m.id)
        self._remember_code([confirmed])  # "still true" of the code as it is now: later diffs start here
        return confirmed

    def reanchor(
        self,
        memory_id: str,
        file: str | Path,
        symbol: str | None = None,
        *,
        line: int | None = None,
        as_indexed: bool = False,
    ) -> Memory:
        """Anchor a memory to another definition by hand (an orphan's code found again, a wrong guess fixed).

        The memory becomes active again (the person says it describes that code) and its history records
        where it was and where it went.
        """
        m = self.store.resolve(memory_id)
        if m.status in ENDED_STATUSES or m.status == MemoryStatus.DISMISSED:
            raise InvalidMemoryError(
                f"memory {m.id} is {m.status}; only current memories and suggestions can be re-anchored"
            )
        anchor = self.resolve_anchor(file, symbol, line, as_indexed=as_indexed)
        with self._lock:
            _, at = self._now()
            old = m.anchor
            with self.store.batch():
                self.store.update_anchor(
                    m.id, anchor, at=at,
                    event=event(
                        m.id, reconcile.REANCHORED, at, how="by hand", from_file=old.file if old else None,
                        from_symbol=old.symbol if old else None, to_file=anchor.file if anchor else None,
                        to_symbol=anchor.symbol if anchor else None,
                    ),
                )  # fmt: skip
                if m.status in (MemoryStatus.ORPHANED, MemoryStatus.STALE):
                    self.store.update_status(
                        m.id, MemoryStatus.ACTIVE, at=at, event=event(m.id, "revived", at, previous_status=m.status)
                    )
        moved = self.store.resolve(m.id)
        self._remember_code([moved])
        return moved

    def stale_diff(self, memory_id: str) -> str | None:
        """What changed in a stale memory's code since it was written or last confirmed (None: unknown)."""
        m = self.store.resolve(memory_id)
        if m.status != MemoryStatus.STALE:
            return None
        for ev in reversed(self.store.events(m.id)):
            if ev.kind in ("stale", "revived") and ev.detail.get("diff"):
                return str(ev.detail["diff"])
            if ev.kind == "confirmed":
                break
        return None

    def mark_stale(self, memory_id: str, reason: str = "marked outdated") -> Memory:
        m = self.store.resolve(memory_id)
        if m.status not in ANCHORED_STATUSES:
            raise InvalidMemoryError(f"memory {m.id} is {m.status}; only current memories can be marked outdated")
        with self._lock:
            _, at = self._now()
            self.store.update_status(
                m.id, MemoryStatus.STALE, at=at, reason=reason, event=event(m.id, "marked_stale", at, reason=reason)
            )
        return self.store.resolve(m.id)
