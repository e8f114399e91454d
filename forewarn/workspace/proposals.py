"""Proposals: suggestions that ask a person to change another memory, applied only when a person accepts them.

An untrusted agent's ``confirm``, ``mark_outdated`` and ``forget`` (MCP, or an LSP client that did not declare
itself an interactive editor) and a shared file's newer copy of a memory a person vetted (``memory import``)
change nothing by themselves: each is stored as a suggestion (``provenance["proposal"]``: the action and its
target, ``forewarn.memory.origin``) that waits in the review queue beside mined and agent-written ones. Accepting
it applies the action as the person's own (the target's history says who proposed it); dismissing it changes
nothing. An applied proposal is kept as history: archived, its reason naming the memory it changed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from forewarn.memory import copy_changes, transfer
from forewarn.memory.errors import InvalidMemoryError
from forewarn.memory.lifecycle import event
from forewarn.memory.origin import (
    AGENT_KEY,
    IMPORTED_KEY,
    PROPOSAL_KEY,
    Proposal,
    ProposalAction,
    agent_name,
    proposal_of,
    shared_provenance,
)
from forewarn.memory.records import Memory, MemoryFilter
from forewarn.memory.text import new_id
from forewarn.memory.vocabulary import (
    ANCHORED_STATUSES,
    CURRENT_STATUSES,
    ENDED_STATUSES,
    MemorySource,
    MemoryStatus,
)
from forewarn.workspace.core import DEFAULT_CONFIDENCE
from forewarn.workspace.statuses import StatusMixin

APPLIED_REASON = "applied"  # status reason of an accepted proposal: "applied to <id>" (archived, kept as history)
PROPOSAL_TEXT_CHARS = 1_000  # of the target's text a proposal repeats, so a reviewer sees which memory it is about
MAX_REASON_CHARS = 500  # why an agent says a memory is outdated: a sentence or two
NO_REASON = "no reason given"


@dataclass(frozen=True, slots=True)
class ProposedChange:
    """What accepting a proposal would change in its target, for whoever reviews it (review, review --json, show)."""

    action: ProposalAction
    target: str  # the memory it changes
    changes: list[copy_changes.FieldChange]  # text, status, anchor…: empty when only times and counts change
    blocked: str | None = None  # why accepting it would fail now (the target changed here meanwhile)

    @property
    def bookkeeping_only(self) -> bool:
        """Accepting changes no text, status, anchor, type or tags: only times and counts."""
        return not self.changes and self.blocked is None

    def phrase(self) -> str:
        """``accepting it changes memory 01J…: status active → superseded`` (one line)."""
        if self.blocked is not None:
            return f"accepting it fails: {self.blocked}"
        what = "; ".join(c.phrase() for c in self.changes) or (
            f"{copy_changes.BOOKKEEPING_ONLY} (its text, status and anchor are already yours)"
        )
        return f"accepting it changes memory {self.target}: {what}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action.value, "target": self.target, "changes": [c.to_dict() for c in self.changes],
            "bookkeeping_only": self.bookkeeping_only, "blocked": self.blocked, "summary": self.phrase(),
        }  # fmt: skip


class ProposalsMixin(StatusMixin):
    """Proposals on other memories: made by untrusted writers, applied when a person accepts (part of ``Workspace``)."""

    def propose(
        self, action: ProposalAction, memory_id: str, *, agent: dict[str, Any], reason: str | None = None
    ) -> tuple[Memory, bool]:
        """A suggestion proposing ``action`` on a memory, from the agent that calls itself ``agent``; the memory
        itself is not touched. Returns the proposal and whether it is new (the same proposal waiting already is
        returned as it is: an agent repeating itself adds nothing to the queue)."""
        if action == ProposalAction.UPDATE:
            raise InvalidMemoryError("a newer copy of a memory is proposed by memory import, not by a writer")
        target = self.store.resolve(memory_id)
        self._check_proposable(action, target)
        why = " ".join((reason or "").split())[:MAX_REASON_CHARS] or None
        if action == ProposalAction.MARK_OUTDATED and why is None:
            why = NO_REASON  # an editor's quick fix asks for none; the person reviewing it decides
        proposal = {"action": action.value, "target": target.id, **({"reason": why} if why else {})}
        here = MemoryFilter(file=target.file, statuses=(MemoryStatus.SUGGESTED,))  # where a proposal on it waits
        for waiting in self.store.list_memories(here, limit=-1):
            if (waiting.provenance or {}).get(PROPOSAL_KEY) == proposal:
                return waiting, False
        text = target.text if len(target.text) <= PROPOSAL_TEXT_CHARS else target.text[: PROPOSAL_TEXT_CHARS - 1] + "…"
        safe, _, _ = self._validate(text, target.type, MemorySource.AGENT, ())
        with self._lock:
            now, at = self._now()
            carrier = Memory(
                id=new_id(now), type=target.type, text=safe, anchor=target.anchor, source=MemorySource.AGENT,
                confidence=DEFAULT_CONFIDENCE[MemorySource.AGENT], created_at=at, updated_at=at,
                status=MemoryStatus.SUGGESTED, provenance={AGENT_KEY: agent, PROPOSAL_KEY: proposal},
                session_id=self.session.current_session(), visibility=target.visibility,
            )  # fmt: skip
            stored = self.store.insert(
                carrier,
                [
                    event(
                        carrier.id, "suggested", at, source=MemorySource.AGENT, proposes=action.value, target=target.id
                    )
                ],
            )
        return stored, True

    def proposed_change(self, carrier: Memory) -> ProposedChange | None:
        """What accepting ``carrier`` would change in the memory it is about (None: not a proposal)."""
        proposal = proposal_of(carrier)
        if proposal is None:
            return None
        target = self.store.get(proposal.target)
        if target is None:
            return ProposedChange(proposal.action, proposal.target, [], blocked="that memory is not here any more")
        if proposal.action == ProposalAction.UPDATE:
            new, blocked = self._updated_copy(carrier, target)
            return ProposedChange(proposal.action, target.id, copy_changes.field_changes(target, new), blocked)
        after = {
            ProposalAction.MARK_OUTDATED: MemoryStatus.STALE,
            ProposalAction.FORGET: MemoryStatus.ARCHIVED,
            ProposalAction.CONFIRM: target.status,  # a confirmation: its confirmed time and confidence only
        }[proposal.action]
        status = [] if after == target.status else [copy_changes.FieldChange("status", str(target.status), str(after))]
        return ProposedChange(proposal.action, target.id, status)

    def _check_proposable(self, action: ProposalAction, target: Memory) -> None:
        """The same checks the action itself makes, so a proposal a person accepts can be applied."""
        if target.status in (MemoryStatus.SUGGESTED, MemoryStatus.DISMISSED) or proposal_of(target) is not None:
            raise InvalidMemoryError(
                f"memory {target.id} is {target.status}, not a current memory; a person reviews suggestions"
            )
        if action == ProposalAction.FORGET and target.status == MemoryStatus.ARCHIVED:
            raise InvalidMemoryError(f"memory {target.id} is forgotten already")
        if action == ProposalAction.CONFIRM and target.status in (*ENDED_STATUSES, MemoryStatus.CONTESTED):
            raise InvalidMemoryError(f"memory {target.id} is {target.status}; only current memories can be confirmed")
        if action == ProposalAction.MARK_OUTDATED and target.status not in ANCHORED_STATUSES:
            raise InvalidMemoryError(
                f"memory {target.id} is {target.status}; only current memories can be marked outdated"
            )

    def _apply_proposal(self, carrier: Memory, proposal: Proposal) -> Memory:
        """A person accepted ``carrier``: its action is applied to the target (returned as it is now), and the
        proposal is kept as history (archived, "applied to <target>")."""
        current = self.store.get(carrier.id)
        if current is None or current.status != MemoryStatus.SUGGESTED:  # reviewed meanwhile elsewhere
            raise InvalidMemoryError(f"memory {carrier.id} was reviewed meanwhile (it is {current and current.status})")
        target = self.store.resolve(proposal.target)
        if proposal.action == ProposalAction.CONFIRM:
            done = self.confirm(target.id)
        elif proposal.action == ProposalAction.MARK_OUTDATED:
            said = f" (said by an agent that calls itself “{agent_name(carrier.provenance) or 'nothing'}”)"
            done = self.mark_stale(target.id, reason=(proposal.reason or "marked outdated") + said)
        elif proposal.action == ProposalAction.FORGET:
            done = self.forget(target.id)
        else:
            done = self._apply_update(carrier, target)
        with self._lock:
            _, at = self._now()
            self.store.update_status(
                carrier.id, MemoryStatus.ARCHIVED, at=at, reason=f"{APPLIED_REASON} to {target.id}", ended_at=at,
                event=event(carrier.id, "accepted", at, applied=proposal.action.value, target=target.id),
            )  # fmt: skip
        return done

    def _apply_update(self, carrier: Memory, target: Memory) -> Memory:
        """A shared file's newer copy of ``target`` (held by ``carrier``) replaces it, as an import does; the
        replaced version stays in its history."""
        new, blocked = self._updated_copy(carrier, target)
        if blocked is not None:
            raise InvalidMemoryError(blocked)
        mark = (new.provenance or {}).get(IMPORTED_KEY) or {}
        vec = self._embed_one(new.text) if new.text != target.text else None
        with self._lock:
            _, at = self._now()
            with self.store.batch():
                self.store.replace_memory(new)
                self.store.add_events(
                    [
                        event(
                            target.id, transfer.REPLACED_EVENT, at, **transfer.old_fields(target, str(mark.get("from")))
                        ),
                    ]
                )
                if new.text != target.text:
                    self.store.delete_vectors(target.num)
                    if vec is not None and self.vectors is not None:
                        self.vectors.put([target.num], vec.reshape(1, -1))
            self._sync_vectors()
        updated = self.store.resolve(target.id)
        if updated.status in CURRENT_STATUSES:
            self._remember_code([updated])
        return updated

    @staticmethod
    def _updated_copy(carrier: Memory, target: Memory) -> tuple[Memory, str | None]:
        """``target`` as accepting the newer copy ``carrier`` holds would leave it, and why it cannot be applied
        now (None: it can)."""
        p = (carrier.provenance or {}).get(PROPOSAL_KEY) or {}
        updated_at = str(p.get("updated_at") or carrier.created_at)
        blocked: str | None = None
        if target.updated_at >= updated_at:
            blocked = f"memory {target.id} changed here after this copy was made; dismiss the suggestion {carrier.id}"
        elif target.status == MemoryStatus.SUPERSEDED and p.get("status") != MemoryStatus.SUPERSEDED:
            blocked = f"memory {target.id} was superseded here; an older copy does not bring it back"
        status = str(p.get("status") or MemoryStatus.ACTIVE)
        mark = {**((carrier.provenance or {}).get(IMPORTED_KEY) or {}), "accepted": "memory review"}
        prov = {**(shared_provenance(carrier.provenance) or {}), IMPORTED_KEY: mark}
        ended = p.get("ended_at") if status in ENDED_STATUSES else None
        new = dataclasses.replace(
            target, type=carrier.type, text=carrier.text, anchor=carrier.anchor, source=carrier.source,
            confidence=carrier.confidence, updated_at=updated_at,
            status=MemoryStatus(status) if status in tuple(MemoryStatus) else MemoryStatus.ACTIVE,
            status_reason=p.get("status_reason") if isinstance(p.get("status_reason"), str) else None,
            ended_at=ended if isinstance(ended, str) else None, tags=carrier.tags, provenance=prov,
            recorded_by=carrier.recorded_by,
            superseded_by=p.get("superseded_by") if isinstance(p.get("superseded_by"), str) else None,
        )  # fmt: skip
        if not copy_changes.field_changes(target, new):  # times and counts only: whose lesson it is stays the same
            new = dataclasses.replace(new, provenance=target.provenance, recorded_by=target.recorded_by)
        return new, blocked

    def pending_agent_suggestions(self) -> int:
        """How many suggestions agents made wait for review (their queue is bounded: forewarn.workspace.agents)."""
        waiting = self.store.list_memories(MemoryFilter(statuses=(MemoryStatus.SUGGESTED,)), limit=-1)
        return sum(1 for m in waiting if m.source == MemorySource.AGENT)
