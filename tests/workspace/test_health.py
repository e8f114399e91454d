"""The health report and the This-file view on a real workspace with memories of every source and status, its
history spread over six weeks (tests/panel_workspace.py): what the CLI, the server and both editors show."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from forewarn import paths
from forewarn.memory import trajectory as traj
from forewarn.memory.migrations import MIGRATIONS
from forewarn.memory.store import MemoryStore
from forewarn.sqlite import connect, migrate
from forewarn.workspace.engine import Workspace
from forewarn.workspace.file_panel import PANEL_STATUSES
from tests import panel_workspace as pw

NOW = 1_795_000_000.0  # 2026-11-18, a Wednesday
DAY = pw.DAY


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One data dir for the module: the workspace is built once (about a second) and read by every test."""
    return tmp_path_factory.mktemp("health-home")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, home: Path) -> Iterator[pw.PanelWorkspace]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(paths.HOME_ENV, str(home))
        yield pw.build(tmp_path_factory.mktemp("health") / "shop", now=NOW)


@pytest.fixture
def ws(built: pw.PanelWorkspace, home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Workspace]:
    monkeypatch.setenv(paths.HOME_ENV, str(home))
    with Workspace.open(built.root, pw.lexical(), embedder=None, clock=lambda: NOW) as engine:
        yield engine


def day(days_ago: int) -> str:
    return datetime.fromtimestamp(NOW - days_ago * DAY, UTC).date().isoformat()


def test_this_file_groups_every_memory_of_the_file_by_symbol(ws: Workspace, built: pw.PanelWorkspace) -> None:
    found = ws.file_memories(pw.FILE)
    assert [g.symbol for g in found.symbols] == [None, "charge_card", "_gateway_charge", "legacy_refund"]
    assert [g.counts() for g in found.symbols] == [
        {"contested": 0, "active": 1, "stale": 0, "orphaned": 0, "suggested": 0},
        {"contested": 0, "active": 1, "stale": 1, "orphaned": 0, "suggested": 1},
        {"contested": 2, "active": 0, "stale": 0, "orphaned": 0, "suggested": 1},
        {"contested": 0, "active": 0, "stale": 0, "orphaned": 1, "suggested": 0},
    ]
    assert found.counts() == {"contested": 2, "active": 2, "stale": 1, "orphaned": 1, "suggested": 2}
    charge = found.symbols[1]
    assert [m.id for m in charge.memories] == [built.ids[n] for n in ("GOTCHA", "DECISION", "MINED")]
    assert charge.line is not None and charge.line < found.symbols[2].line  # type: ignore[operator]
    # history (superseded, archived, dismissed) is not this file's present
    shown = {m.id for g in found.symbols for m in g.memories}
    assert not shown & {built.ids["ARCHIVED"], built.ids["DISMISSED"]}
    assert {m.status for g in found.symbols for m in g.memories} == set(PANEL_STATUSES)
    capped = ws.file_memories(pw.FILE, limit=3)
    assert sum(len(g.memories) for g in capped.symbols) == 3 and capped.more == 5


def test_an_accepted_suggestion_moves_to_the_current_memories(tmp_path: Path) -> None:
    own = pw.build(tmp_path / "shop", now=NOW)  # its own copy: accepting changes what the others read
    with Workspace.open(own.root, pw.lexical(), embedder=None, clock=lambda: NOW) as engine:
        engine.accept_suggestion(own.ids["COMMENT"])
        gateway = next(g for g in engine.file_memories(pw.FILE).symbols if g.symbol == "_gateway_charge")
        assert gateway.counts()["suggested"] == 0 and gateway.counts()["active"] == 1
        assert gateway.memories[-1].id == own.ids["COMMENT"]  # after the contested pair: they need a person first


def test_the_trajectory_follows_six_weeks_of_history(ws: Workspace, built: pw.PanelWorkspace) -> None:
    data = ws.stats(since="6w").to_dict()
    t = data["trajectory"]
    assert t["bucket"] == "day" and t["since"] == day(42) and t["until"] == day(0)
    assert len(t["buckets"]) == 43
    at = {d: i for i, d in enumerate(t["buckets"])}
    # typed memories: five on day -40, three on -33; -19 forgot one (a supersede replaces one with another)
    assert [t["by_source"]["typed"][at[day(n)]] for n in (41, 40, 33, 19, 0)] == [0, 5, 8, 7, 7]
    assert t["by_source"]["imported"][at[day(0)]] == 3
    assert t["by_source"]["mined"][at[day(0)]] == 1  # the accepted one; the others wait or were dismissed
    assert t["by_source"]["agent"][at[day(3)]] == 0 and t["by_source"]["agent"][at[day(0)]] == 1
    assert t["by_status"]["suggested"][at[day(26)]] == 4  # mined: a fix, a decision, a checkout fix, a comment
    assert t["by_status"]["suggested"][at[day(0)]] == 3  # one accepted, one dismissed; the agent's second waits
    assert t["by_status"]["contested"][at[day(13)]] == 0 and t["by_status"]["contested"][at[day(12)]] == 2
    assert t["by_status"]["orphaned"][at[day(0)]] == 1
    assert sum(t["events"]["created"]) == 9  # 5 + 3 typed, 1 superseding
    assert sum(t["events"]["imported"]) == 3 and sum(t["events"]["dismissed"]) == 1
    assert t["events"]["accepted"][at[day(19)]] == 1 and t["events"]["accepted"][at[day(2)]] == 1
    assert t["events"]["shown"][at[day(33)]] > 0 and t["events"]["shown"][at[day(34)]] == 0
    # the numbers the counts give today are where the series end
    for status, n in data["by_status"].items():
        assert t["by_status"][status][-1] == n, status


def test_the_lists_beside_the_trajectory(ws: Workspace, built: pw.PanelWorkspace) -> None:
    data = ws.stats().to_dict()
    files = data["important_files"]
    assert files[0]["file"] == "money.py" and files[0]["memories"] == 0 and files[0]["rank"] == 1
    assert {f["file"]: f["memories"] for f in files} == {"money.py": 0, "payments.py": 6, "checkout.py": 4,
                                                         "ledger.py": 2}  # fmt: skip
    assert [f["file"] for f in data["important_without_memories"]] == ["money.py"]
    shown = data["shown_most"]
    assert shown and shown[0]["shown"] >= shown[-1]["shown"] and shown[0]["file"] == pw.FILE
    pushed = {m["id"]: m for m in data["dismissed_most"]}
    assert pushed[built.ids["DISMISSED"]]["last"] == "dismissed"
    assert pushed[built.ids["DECISION"]]["last"] == "marked_stale" and pushed[built.ids["DECISION"]]["surfaced"] > 0
    assert pushed[built.ids["ARCHIVED"]]["last"] == "forgotten"
    [stale] = data["stale_memories"]
    assert stale["id"] == built.ids["DECISION"] and stale["why"] == "marked outdated: the gateway no longer rate-limits"
    # a window after the pushback leaves it out of the lists too
    assert ws.stats(since=day(1)).to_dict()["dismissed_most"] == []
    with pytest.raises(traj.SinceError):
        ws.stats(since="last tuesday")


def test_shown_is_counted_per_day_and_an_older_database_gains_the_table(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    conn = connect(db)
    migrate(conn, [m for m in MIGRATIONS if m.name != "m012_shown_daily"], what="old memory database")
    conn.close()
    store = MemoryStore(db)
    try:
        applied = [r[0] for r in store.conn.execute("SELECT name FROM _migrations ORDER BY rowid")]
        assert applied[-1] == "m012_shown_daily"
        store.record_surfaced(["A", "B", "A"], at="2026-11-17T23:59:00.000000Z")
        store.record_surfaced(["A"], at="2026-11-18T00:01:00.000000Z")
        assert store.shown_by_day("2026-11-01", "2026-11-30") == {"2026-11-17": 3, "2026-11-18": 1}
        assert store.shown_most("2026-11-18", "2026-11-18", 5) == [("A", 1)]
        assert store.shown_most("2026-11-01", "2026-11-30", 1) == [("A", 3)]
    finally:
        store.close()


def test_the_trajectory_is_replayed_again_only_after_a_change(ws: Workspace, built: pw.PanelWorkspace) -> None:
    first = ws.stats().trajectory
    assert ws.stats().trajectory == first and ws._trajectory_cache is not None
    cached = ws._trajectory_cache[1]
    ws.stats()
    assert ws._trajectory_cache[1] is cached  # nothing changed: the same replay
    ws.confirm(built.ids["DECISION"])  # stale → active, today
    after = ws.stats().trajectory
    assert ws._trajectory_cache[1] is not cached
    assert after["by_status"]["stale"][-1] == first["by_status"]["stale"][-1] - 1
