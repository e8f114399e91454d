"""Session working memory: half-life, gain, compaction, idle split, personalization, session expansion."""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.memory import session as sm
from forewarn.memory.session import SessionMemory
from forewarn.workspace.engine import Workspace


class Clock:
    """A clock the test moves by hand: time is an input, so nothing needs to sleep."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_weights_halve_every_five_minutes_and_gain_on_access() -> None:
    clock = Clock()
    s = SessionMemory(clock)
    s.observe("file", "a.py")
    s.observe("file", "b.py")
    clock.now += sm.HALF_LIFE_S
    s.observe("file", "b.py")  # b: 0.5 + 1 = 1.5; a: 0.5
    items = {o.key: o.weight for o in s.items()}
    assert items == {"b.py": pytest.approx(1.5), "a.py": pytest.approx(0.5)}
    assert s.weights("file") == {"b.py": pytest.approx(1.0), "a.py": pytest.approx(1 / 3)}


def test_compaction_keeps_the_strongest_twenty() -> None:
    clock = Clock()
    s = SessionMemory(clock)
    for i in range(sm.MAX_ITEMS + 5):
        s.observe("file", f"f{i}.py")
        if i == 0:
            s.observe("file", "f0.py")  # the first one was touched twice: it survives although oldest
        clock.now += 1
    keys = {o.key for o in s.items()}
    assert len(keys) == sm.MAX_ITEMS
    assert "f0.py" in keys
    assert {"f1.py", "f2.py", "f3.py", "f4.py", "f5.py"}.isdisjoint(keys)


def test_idle_gap_starts_a_new_session() -> None:
    clock = Clock()
    s = SessionMemory(clock)
    first = s.current_session()
    s.observe("file", "a.py")
    s.mark_shown(["M1"])
    clock.now += sm.IDLE_SPLIT_S - 1
    assert s.current_session() == first  # activity within the window keeps it going
    clock.now += sm.IDLE_SPLIT_S + 1
    assert s.shown() == set() and s.weights("file") == {}
    second = s.current_session()
    assert second != first and second > first  # ids sort by time
    with pytest.raises(ValueError, match="unknown observation kind"):
        s.observe("keystroke", "x")


def test_touched_files_and_their_dependencies_rank_first(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "svc").mkdir(parents=True)
    (root / "svc/billing.py").write_text("def charge_card(x):\n    return x\n", encoding="utf-8")
    (root / "svc/invoice.py").write_text(
        "from svc.billing import charge_card\n\n\ndef send_invoice():\n    return charge_card(1)\n", encoding="utf-8"
    )
    (root / "svc/search.py").write_text("def query_index(q):\n    return q\n", encoding="utf-8")
    clock = Clock()
    with Workspace.open(root, embedder=None, clock=clock) as engine:
        engine.reindex()
        billing = engine.remember("retry limits are per merchant", file="svc/billing.py").memory
        search = engine.remember("retry limits are per index shard", file="svc/search.py").memory
        clock.now += 1
        before = [h.memory.id for h in engine.search("retry limits", record=False).memories]
        engine.proactive("svc/search.py")
        assert [h.memory.id for h in engine.search("retry limits", record=False).memories] == [search.id, billing.id]
        clock.now += 60
        engine.proactive("svc/invoice.py")  # billing.py is a dependency of the file just opened
        engine.proactive("svc/invoice.py")
        assert [h.memory.id for h in engine.search("retry limits", record=False).memories] == [billing.id, search.id]
        assert sorted(before) == sorted([billing.id, search.id])


def test_a_hit_expands_to_the_rest_of_its_session(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    clock = Clock()
    with Workspace.open(root, embedder=None, clock=clock) as engine:
        a = engine.remember("the flaky test was a timezone bug", type="error_pattern").memory
        b = engine.remember("CI runs in UTC, laptops do not", type="gotcha").memory
        clock.now += sm.IDLE_SPLIT_S + 60
        c = engine.remember("release notes are generated from PR titles", type="convention").memory
        assert a.session_id == b.session_id != c.session_id
        assert [m.id for m in engine.expand_session(a.id)] == [b.id]
        assert engine.expand_session(c.id) == []
