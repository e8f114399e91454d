"""What an agent may write, through the one gate MCP and the language server share (forewarn.workspace.agents).

R9 with D1 of the functional pass (``kit2/mcp_merge_swallow.sh``): with the model loaded, "at most 3 retries" then
"at most 5 retries" on one symbol was merged ("Reinforced existing memory") before the contradiction check ran, also
for an untrusted agent, whose text then sat in a team memory's exported history. R13 (``kit2/mcp_flood.py``): an
agent could queue any number of 19,000-character suggestions. R4: an agent's confirm and mark_outdated changed the
memory at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from forewarn.memory.embed_cache import CachedEmbedder, EmbeddingCache
from forewarn.memory.errors import InvalidMemoryError
from forewarn.memory.origin import ProposalAction, origin_of
from forewarn.memory.vocabulary import MemoryStatus, MemoryType
from forewarn.workspace.agents import (
    AGENT_WRITES_PER_MINUTE,
    MAX_AGENT_TEXT_CHARS,
    MAX_PENDING_AGENT_SUGGESTIONS,
    AgentGate,
    AgentLimitError,
    AgentWriter,
)
from forewarn.workspace.engine import Workspace
from tests.conftest import Unclosed

ADAPTERS = """\
class HTTPAdapter:
    def send(self, request, timeout=None):
        return request
"""
AGENT = {"name": "evil-agent", "version": "6.6.6"}
SYMBOL = {"file": "adapters.py", "symbol": "HTTPAdapter.send"}


def make_root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "adapters.py").write_text(ADAPTERS, encoding="utf-8")
    return root


@pytest.fixture
def hybrid(tmp_path: Path, raw_embedder: Any) -> Iterator[Workspace]:
    """A workspace with the real model: near-duplicates are found by meaning (cosine > 0.95), as D1 found them."""
    ws = Workspace.open(make_root(tmp_path), embedder=CachedEmbedder(Unclosed(raw_embedder), EmbeddingCache()))
    ws.reindex()
    yield ws
    ws.close()


@pytest.fixture
def lexical(tmp_path: Path) -> Iterator[Workspace]:
    ws = Workspace.open(make_root(tmp_path), embedder=None)
    ws.reindex()
    yield ws
    ws.close()


PAIRS = [
    ("the payment API allows at most 3 retries per charge", "the payment API allows at most 5 retries per charge"),
    ("HTTPAdapter.send: the default connect timeout is 5 seconds",
     "HTTPAdapter.send: the default connect timeout is 30 seconds"),
    ("HTTPAdapter.send retries are synchronous", "HTTPAdapter.send retries are asynchronous"),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new"), PAIRS)
def test_a_changed_value_is_a_conflict_never_a_restatement(hybrid: Workspace, old: str, new: str) -> None:
    first = hybrid.remember(old, type=MemoryType.GOTCHA, **SYMBOL).memory
    second = hybrid.remember(new, type=MemoryType.GOTCHA, **SYMBOL)
    assert not second.merged and second.memory.id != first.id  # stored, not swallowed
    assert [c.memory.id for c in second.conflicts] == [first.id]
    assert hybrid.get(first.id).text == old
    assert not any(e.kind == "merged" for e in hybrid.store.events(first.id))


def test_a_restatement_still_merges(hybrid: Workspace) -> None:
    first = hybrid.remember(PAIRS[0][0], type=MemoryType.GOTCHA, **SYMBOL).memory
    same = hybrid.remember(f"{PAIRS[0][0]}.", type=MemoryType.GOTCHA, **SYMBOL)  # cosine 0.99, no cue
    assert same.merged and same.memory.id == first.id and not same.conflicts


def test_an_untrusted_agent_never_reinforces_or_extends_a_team_memory(hybrid: Workspace) -> None:
    team = hybrid.remember(PAIRS[0][0], type=MemoryType.GOTCHA, **SYMBOL).memory
    agent = AgentWriter(AGENT, trusted=False)
    said = agent.remember(hybrid, PAIRS[0][0] + ".", type=MemoryType.GOTCHA, **SYMBOL)
    assert said.known and not said.merged and said.memory.id == team.id
    changed = agent.remember(hybrid, PAIRS[0][1], type=MemoryType.GOTCHA, **SYMBOL)  # "5", not "3"
    assert changed.memory.status == MemoryStatus.SUGGESTED and [c.memory.id for c in changed.conflicts] == [team.id]
    again = agent.remember(hybrid, PAIRS[0][1], type=MemoryType.GOTCHA, **SYMBOL)
    assert again.known and again.memory.id == changed.memory.id  # the same suggestion is not queued twice
    assert [e.kind for e in hybrid.store.events(team.id)] == ["created"]  # nothing of the agent's in its history
    assert hybrid.get(team.id).confidence == team.confidence
    exported = hybrid.export()
    assert "5 retries" not in Path(exported.path).read_text()


def test_an_agents_notes_that_differ_by_a_number_are_each_a_note_as_memories_are(hybrid: Workspace) -> None:
    """QA pass 6, #19: of "note 0: …" … "note 11: …", notes 1-7 and 9-11 were "Already known" as note 0 and note 8
    was stored, as the vectors fell each side of the merge threshold: a changed number is another note, always."""
    agent = AgentWriter(AGENT, trusted=False)
    texts = [f"note {i}: the parser must reset state because reuse corrupts the stack" for i in range(10)]
    said = [agent.remember(hybrid, text, type=MemoryType.GOTCHA, **SYMBOL) for text in texts]
    assert [r.known for r in said] == [False] * 10 and len({r.memory.id for r in said}) == 10
    again = agent.remember(hybrid, said[3].memory.text, type=MemoryType.GOTCHA, **SYMBOL)
    assert again.known and again.memory.id == said[3].memory.id  # the very same note is not queued twice


def test_an_untrusted_agents_confirm_mark_outdated_and_forget_are_proposals(lexical: Workspace) -> None:
    m = lexical.remember("send never retries a POST", type=MemoryType.GOTCHA, **SYMBOL).memory
    lexical.mark_stale(m.id, "the code changed")
    agent = AgentWriter(AGENT, trusted=False)
    confirm = agent.act(lexical, ProposalAction.CONFIRM, m.id)
    outdated = agent.act(lexical, ProposalAction.MARK_OUTDATED, m.id, "the gateway dedupes now, ignore this")
    forget = agent.act(lexical, ProposalAction.FORGET, m.id)
    assert all(o.proposed and o.new for o in (confirm, outdated, forget))
    assert not agent.act(lexical, ProposalAction.FORGET, m.id).new  # repeating itself adds nothing
    now = lexical.get(m.id)
    assert now.status == MemoryStatus.STALE and now.status_reason == "the code changed"  # nothing changed
    assert {o.memory.id for o in (confirm, outdated, forget)} == {s.id for s in lexical.suggestions()}
    assert "proposes to forget memory" in origin_of(forget.memory).phrase()
    assert "calls itself “evil-agent 6.6.6”" in origin_of(forget.memory).phrase()
    lexical.dismiss_suggestion(forget.memory.id)
    assert lexical.accept_suggestion(confirm.memory.id).status == MemoryStatus.ACTIVE  # a person applies it
    with pytest.raises(InvalidMemoryError, match="accepted as it is"):
        lexical.accept_suggestion(outdated.memory.id, text="edited")
    assert lexical.get(confirm.memory.id).status == MemoryStatus.ARCHIVED  # kept as history, "applied"
    with pytest.raises(InvalidMemoryError, match="proposal"):
        lexical.restore(confirm.memory.id)
    assert lexical.get(m.id).status == MemoryStatus.ACTIVE


def test_a_trusted_agent_acts_and_is_named_as_an_agent(lexical: Workspace) -> None:
    m = lexical.remember("send never retries a POST", type=MemoryType.GOTCHA, **SYMBOL).memory
    done = AgentWriter(AGENT, trusted=True).act(lexical, ProposalAction.MARK_OUTDATED, m.id, "moved")
    assert not done.proposed and done.memory.status == MemoryStatus.STALE
    assert done.memory.status_reason == "moved (said by an agent that calls itself “evil-agent 6.6.6”)"


def test_the_gate_bounds_text_rate_and_queue(lexical: Workspace) -> None:
    clock = [1000.0]
    gate = AgentGate(clock=lambda: clock[0])
    with pytest.raises(AgentLimitError, match="MAX_AGENT_TEXT_CHARS"):
        gate.admit("x" * (MAX_AGENT_TEXT_CHARS + 1))
    for _ in range(AGENT_WRITES_PER_MINUTE):
        gate.admit("a lesson")
    with pytest.raises(AgentLimitError, match="AGENT_WRITES_PER_MINUTE"):
        gate.admit("one more")
    clock[0] += 61
    gate.admit("a minute later")
    with pytest.raises(AgentLimitError, match="MAX_PENDING_AGENT_SUGGESTIONS"):
        gate.admit("queued", pending=lambda: MAX_PENDING_AGENT_SUGGESTIONS)
    writer = AgentWriter(AGENT, trusted=False, gate=AgentGate(clock=lambda: clock[0]))
    for n in range(AGENT_WRITES_PER_MINUTE):
        writer.remember(lexical, f"lesson number {n} about send", type=MemoryType.NOTE, file="adapters.py")
    with pytest.raises(AgentLimitError, match="a minute"):
        writer.remember(lexical, "lesson number 99 about send", type=MemoryType.NOTE, file="adapters.py")
    assert lexical.pending_agent_suggestions() == AGENT_WRITES_PER_MINUTE
