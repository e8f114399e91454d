"""What a coding agent may do to the memories: the one place MCP and the language server ask.

An agent is untrusted input (a repository it read can steer it), so by default it changes nothing by itself:
its ``remember`` and ``supersede`` are suggestions, and its ``confirm``, ``mark_outdated`` and ``forget`` are
proposals (``forewarn.workspace.proposals``), all waiting for a person's review and marked with the name the
client gave itself. The user may trust agents (``[agents] trust = true`` in their own config, ``--trust-agents``):
then they act as a person would, their words still labelled as an agent's. Either way an agent's writes are
bounded (:class:`AgentGate`): text size, writes per minute, and how many of its suggestions may wait for review;
going over is an error naming the limit. An agent's near-duplicate of a memory is not stored and does not
reinforce it (``Workspace.remember``).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forewarn.errors import ForewarnError
from forewarn.memory.origin import ProposalAction, agent_name
from forewarn.memory.records import Memory
from forewarn.memory.vocabulary import MemorySource, MemoryStatus
from forewarn.workspace.results import RememberResult

if TYPE_CHECKING:
    from forewarn.workspace.engine import Workspace

# an agent's note is a lesson of a few sentences; the red team's flood of 19,000-character notes cost 5.7 s of
# embedding each on a 2-core machine and buried the review queue
MAX_AGENT_TEXT_CHARS = 4_000
# a working agent records a lesson or two per task; a loop writes many a second (30 notes in 171 s took the
# machine): past this many in the last minute, a write is refused until the minute has passed
AGENT_WRITES_PER_MINUTE = 12
WINDOW_S = 60.0
# what a person reviews in a sitting; past it, an agent's suggestions bury the queue and the editor's hints
MAX_PENDING_AGENT_SUGGESTIONS = 100


class AgentLimitError(ForewarnError):
    """An agent's write past one of its limits; the message names the limit."""


class AgentGate:
    """One agent session's limits (an MCP session, an LSP client): checked before each write."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._writes: deque[float] = deque()

    def admit(self, text: str | None, *, pending: Callable[[], int] | None = None) -> None:
        """Allow one write of ``text`` (None: no text, e.g. a confirm), or raise AgentLimitError naming the limit.
        ``pending``: how many agent suggestions wait for review now, when the write would add one."""
        if text is not None and len(text) > MAX_AGENT_TEXT_CHARS:
            raise AgentLimitError(
                f"the text is {len(text):,} characters; an agent's note may have at most {MAX_AGENT_TEXT_CHARS:,} "
                "(MAX_AGENT_TEXT_CHARS): keep the lesson, point to the rest"
            )
        now = self._clock()
        while self._writes and now - self._writes[0] >= WINDOW_S:
            self._writes.popleft()
        if len(self._writes) >= AGENT_WRITES_PER_MINUTE:
            wait = max(1, round(WINDOW_S - (now - self._writes[0])))
            raise AgentLimitError(
                f"{len(self._writes)} writes in the last minute; an agent may write {AGENT_WRITES_PER_MINUTE} a "
                f"minute (AGENT_WRITES_PER_MINUTE): try again in {wait} s"
            )
        if pending is not None and (waiting := pending()) >= MAX_PENDING_AGENT_SUGGESTIONS:
            raise AgentLimitError(
                f"{waiting} agent suggestions already wait for a person's review; the queue holds "
                f"{MAX_PENDING_AGENT_SUGGESTIONS} (MAX_PENDING_AGENT_SUGGESTIONS) until someone reviews them "
                "(forewarn memory review)"
            )
        self._writes.append(now)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an agent's action did: ``memory`` is the memory changed (trusted) or the proposal waiting."""

    memory: Memory
    proposed: bool  # it waits for a person (a suggestion or a proposal); False: applied (trusted agents)
    new: bool = True  # False: the same proposal was waiting already (nothing added)


class AgentWriter:
    """The writes of one agent that calls itself ``agent`` (``{"name", "version"}``): suggestions and proposals,
    or, when the user trusts agents, the actions themselves."""

    def __init__(self, agent: dict[str, Any], *, trusted: bool, gate: AgentGate | None = None) -> None:
        self.agent = agent
        self.trusted = trusted
        self.gate = gate or AgentGate()

    def _admit(self, ws: Workspace, text: str | None, *, suggests: bool) -> None:
        self.gate.admit(text, pending=ws.pending_agent_suggestions if suggests and not self.trusted else None)

    def remember(
        self,
        ws: Workspace,
        text: str,
        *,
        type: str,
        file: str | Path | None = None,
        symbol: str | None = None,
        line: int | None = None,
        private: bool = False,
        as_indexed: bool = False,
    ) -> RememberResult:
        self._admit(ws, text, suggests=True)
        status = MemoryStatus.ACTIVE if self.trusted else MemoryStatus.SUGGESTED
        return ws.remember(
            text, type=type, file=file, symbol=symbol, line=line, source=MemorySource.AGENT, status=status,
            provenance={"agent": self.agent}, private=private, as_indexed=as_indexed,
        )  # fmt: skip

    def supersede(self, ws: Workspace, memory_id: str, text: str) -> Outcome:
        self._admit(ws, text, suggests=True)
        old = ws.get(memory_id)
        if self.trusted:
            return Outcome(ws.supersede(old.id, text), proposed=False)
        result = ws.remember(
            text, type=old.type, anchor=old.anchor, source=MemorySource.AGENT, status=MemoryStatus.SUGGESTED,
            provenance={"agent": self.agent}, proposes_to_supersede=old.id,
        )  # fmt: skip
        return Outcome(result.memory, proposed=True)

    def act(self, ws: Workspace, action: ProposalAction, memory_id: str, reason: str | None = None) -> Outcome:
        """``confirm``, ``mark_outdated`` (with ``reason``) or ``forget``: applied when agents are trusted, else a
        proposal waiting for a person."""
        self._admit(ws, reason, suggests=True)
        if not self.trusted:
            proposal, new = ws.propose(action, memory_id, agent=self.agent, reason=reason)
            return Outcome(proposal, proposed=True, new=new)
        if action == ProposalAction.CONFIRM:
            return Outcome(ws.confirm(memory_id), proposed=False)
        if action == ProposalAction.FORGET:
            return Outcome(ws.forget(memory_id), proposed=False)
        who = agent_name({"agent": self.agent})
        said = f"{(reason or 'marked outdated').strip()} (said by an agent that calls itself “{who}”)"
        return Outcome(ws.mark_stale(memory_id, reason=said), proposed=False)
