"""Contradictions on remember: found on the same place, resolved three ways, a resolved pair never flagged again,
contested memories shown as current, and the decisions carried through export and import."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.memory.errors import InvalidMemoryError
from forewarn.memory.vocabulary import MemoryStatus
from forewarn.workspace.engine import Workspace

OLD = "every charge carries an idempotency key"
NEW = "charge_card no longer needs an idempotency key"


def workspace(tmp_path: Path, name: str = "ws") -> Path:
    root = tmp_path / name
    root.mkdir(parents=True)
    (root / "payments.py").write_text(
        "def charge_card(order):\n    return order\n\n\ndef refund(order):\n    return order\n", encoding="utf-8"
    )
    return root


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    engine = Workspace.open(workspace(tmp_path), embedder=None)
    engine.reindex()
    yield engine
    engine.close()


def at_charge(ws: Workspace, text: str, symbol: str = "charge_card") -> object:
    return ws.remember(text, type="decision", file="payments.py", symbol=symbol)


def test_remember_lists_the_memories_it_contradicts_with_their_cues(ws: Workspace) -> None:
    old = ws.remember(OLD, type="decision", file="payments.py", symbol="charge_card").memory
    ws.remember("charge_card converts the amount to cents", type="note", file="payments.py", symbol="charge_card")
    new = ws.remember(NEW, type="decision", file="payments.py", symbol="charge_card")
    assert [c.memory.id for c in new.conflicts] == [old.id]
    assert "negation" in new.conflicts[0].cues
    assert new.candidates == [old]  # the supersede candidates are the conflicts now
    elsewhere = ws.remember(NEW.replace("charge_card", "refund"), file="payments.py", symbol="refund")
    assert elsewhere.conflicts == []  # another symbol: not the same place


def test_compatible_memories_raise_nothing(ws: Workspace) -> None:
    ws.remember(OLD, file="payments.py", symbol="charge_card")
    for text in (
        "the idempotency key is derived from the order id",
        "charge_card always sends an idempotency key with each charge",
    ):
        assert ws.remember(text, file="payments.py", symbol="charge_card").conflicts == []


def test_resolve_replace_supersedes_the_other(ws: Workspace) -> None:
    old = ws.remember(OLD, file="payments.py", symbol="charge_card").memory
    new = ws.remember(NEW, file="payments.py", symbol="charge_card").memory
    kept, gone = ws.resolve_conflict(new.id, old.id, "replace")
    assert kept.status == MemoryStatus.ACTIVE and kept.supersedes == old.id
    assert gone.status == MemoryStatus.SUPERSEDED and gone.superseded_by == new.id
    assert [h.memory.id for h in ws.proactive("payments.py")] == [new.id]


def test_resolve_both_is_remembered_and_never_asked_again(ws: Workspace) -> None:
    old = ws.remember(OLD, file="payments.py", symbol="charge_card").memory
    new = ws.remember(NEW, file="payments.py", symbol="charge_card").memory
    assert [c.memory.id for c in ws.conflicts(new.id)] == [old.id]
    a, b = ws.resolve_conflict(new.id, old.id, "both")  # (a prefix can be ambiguous: ids of one millisecond)
    assert (a.status, b.status) == (MemoryStatus.ACTIVE, MemoryStatus.ACTIVE)
    assert [(r.kind) for r in ws.store.relations([new.id])] == ["both"]
    assert ws.conflicts(new.id) == [] and ws.conflicts(old.id) == []
    again = ws.remember(NEW, file="payments.py", symbol="charge_card")  # the same lesson again: merged
    assert again.merged and again.conflicts == []
    assert [e.kind for e in ws.store.events(old.id)][-1] == "relation"


def test_resolve_contested_marks_both_until_resolved(ws: Workspace) -> None:
    old = ws.remember(OLD, file="payments.py", symbol="charge_card").memory
    new = ws.remember(NEW, file="payments.py", symbol="charge_card").memory
    a, b = ws.resolve_conflict(new.id, old.id, "contested")
    assert (a.status, b.status) == (MemoryStatus.CONTESTED, MemoryStatus.CONTESTED)
    assert {h.memory.id for h in ws.proactive("payments.py")} == {old.id, new.id}  # both still show on open
    assert {m.memory.id for m in ws.search("idempotency key").memories} == {old.id, new.id}
    assert [m.id for m in ws.contested_with([new.id])[new.id]] == [old.id]
    assert ws.conflicts(new.id) == []  # contested is an answer too: not asked again
    with pytest.raises(InvalidMemoryError, match="settle the pair first"):
        ws.confirm(new.id)  # "still true" must not quietly end the dispute
    kept, gone = ws.resolve_conflict(old.id, new.id, "replace")
    assert kept.status == MemoryStatus.ACTIVE and gone.status == MemoryStatus.SUPERSEDED


def test_contested_then_both_goes_back_to_the_status_it_had(ws: Workspace) -> None:
    old = ws.remember(OLD, file="payments.py", symbol="charge_card").memory
    new = ws.remember(NEW, file="payments.py", symbol="charge_card").memory
    ws.mark_stale(old.id)
    ws.resolve_conflict(new.id, old.id, "contested")
    a, b = ws.resolve_conflict(new.id, old.id, "both")
    assert (a.status, b.status) == (MemoryStatus.ACTIVE, MemoryStatus.STALE)


def test_resolve_refuses_what_it_cannot_do(ws: Workspace) -> None:
    old = ws.remember(OLD, file="payments.py", symbol="charge_card").memory
    new = ws.remember(NEW, file="payments.py", symbol="charge_card").memory
    with pytest.raises(InvalidMemoryError, match="unknown resolution"):
        ws.resolve_conflict(new.id, old.id, "maybe")
    with pytest.raises(InvalidMemoryError, match="itself"):
        ws.resolve_conflict(new.id, new.id, "both")
    ws.forget(old.id)
    with pytest.raises(InvalidMemoryError, match="not a current memory"):
        ws.resolve_conflict(new.id, old.id, "both")


def test_decisions_travel_through_export_and_import(tmp_path: Path) -> None:
    with Workspace.open(workspace(tmp_path, "a"), embedder=None) as a:
        a.reindex()
        old = a.remember(OLD, file="payments.py", symbol="charge_card").memory
        new = a.remember(NEW, file="payments.py", symbol="charge_card").memory
        third = a.remember("charge_card never needs an idempotency key", file="payments.py", symbol="charge_card")
        a.resolve_conflict(new.id, old.id, "both")
        a.resolve_conflict(third.memory.id, old.id, "contested")
        shared = a.export(tmp_path / "team.jsonl").path
    with Workspace.open(workspace(tmp_path, "b"), embedder=None) as b:
        b.reindex()
        b.import_(shared, accept=True)  # a teammate's file this person takes as it is
        assert b.conflicts(new.id) == []  # both hold: said once, for the whole team
        assert b.get(third.memory.id).status == MemoryStatus.CONTESTED
        assert [m.id for m in b.contested_with([old.id])[old.id]] == [third.memory.id]
        assert {(r.kind) for r in b.store.relations([old.id])} == {"both", "contested"}


def test_conflicts_of_an_existing_memory_reads_both_ways(ws: Workspace) -> None:
    old = ws.remember("charge_card uses requests.Session for pooling", file="payments.py", symbol="charge_card")
    new = ws.remember(
        "charge_card now uses httpx.Client instead of requests.Session", file="payments.py", symbol="charge_card"
    )
    assert [c.memory.id for c in new.conflicts] == [old.memory.id]
    assert [c.memory.id for c in ws.conflicts(old.memory.id)] == [new.memory.id]  # the newer one said "instead"


def test_a_contested_partner_superseded_or_forgotten_settles_the_other(ws: Workspace) -> None:
    old = ws.remember(OLD, file="payments.py", symbol="charge_card").memory
    new = ws.remember(NEW, file="payments.py", symbol="charge_card").memory
    ws.resolve_conflict(new.id, old.id, "contested")
    newest = ws.supersede(new.id, "charge_card sends an idempotency key only for card-present payments")
    assert ws.get(old.id).status == MemoryStatus.ACTIVE  # nothing left to contest it
    third = ws.remember("charge_card never needs an idempotency key", file="payments.py", symbol="charge_card")
    ws.resolve_conflict(third.memory.id, old.id, "contested")
    ws.forget(third.memory.id)
    assert ws.get(old.id).status == MemoryStatus.ACTIVE and ws.get(newest.id).status == MemoryStatus.ACTIVE
