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
from typing import Any

from forewarn.memory import transfer
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
        p = (carrier.provenance or {}).get(PROPOSAL_KEY) or {}
        updated_at = str(p.get("updated_at") or carrier.created_at)
        if target.updated_at >= updated_at:
            raise InvalidMemoryError(
                f"memory {target.id} changed here after this copy was made; dismiss the suggestion {carrier.id}"
            )
        if target.status == MemoryStatus.SUPERSEDED and p.get("status") != MemoryStatus.SUPERSEDED:
            raise InvalidMemoryError(f"memory {target.id} was superseded here; an older copy does not bring it back")
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

    def pending_agent_suggestions(self) -> int:
        """How many suggestions agents made wait for review (their queue is bounded: forewarn.workspace.agents)."""
        waiting = self.store.list_memories(MemoryFilter(statuses=(MemoryStatus.SUGGESTED,)), limit=-1)
        return sum(1 for m in waiting if m.source == MemorySource.AGENT)
