"""The learning trajectory's pure parts: windows and buckets, a memory's statuses replayed from its events, the
series they add up to, ``--since`` and sparklines."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from forewarn.memory import trajectory as traj
from forewarn.memory.records import Anchor, Memory, MemoryEvent
from forewarn.memory.store import MemoryStore
from forewarn.memory.store_health import LifeRow, StatusEventRow
from forewarn.memory.timeline import standing_at
from forewarn.memory.transfer import IMPORTED_EVENT
from forewarn.memory.vocabulary import MemoryStatus, MemoryType, SourceGroup

TODAY = date(2026, 11, 26)


def at(day: str, hour: int = 12) -> str:
    return f"{day}T{hour:02d}:00:00.000000Z"


def row(mid: str, source: str, status: str, created: str, updated: str | None = None) -> LifeRow:
    return LifeRow(mid, source, status, at(created), at(updated or created))


def ev(
    mid: str, day: str, kind: str, hour: int = 12, status: str | None = None, diff: bool = False, imported: bool = False
) -> StatusEventRow:
    return StatusEventRow(mid, at(day, hour), kind, status, diff, imported)


def test_since_takes_dates_and_spans() -> None:
    assert traj.parse_since("2026-09-01", TODAY) == date(2026, 9, 1)
    assert traj.parse_since("2026-09-01T23:30:00-02:00", TODAY) == date(2026, 9, 2)  # read as UTC
    assert traj.parse_since("90d", TODAY) == date(2026, 8, 28)
    assert traj.parse_since("2w", TODAY) == date(2026, 11, 12)
    assert traj.parse_since(" 6M ", TODAY) == date(2026, 5, 30)
    assert traj.parse_since("1y", TODAY) == date(2025, 11, 26)
    for bad in ("yesterday", "90", "-3d", "2026-13-01", ""):
        with pytest.raises(traj.SinceError, match="90d, 12w, 6m, 1y"):
            traj.parse_since(bad, TODAY)


def test_the_window_draws_days_then_weeks_then_months() -> None:
    days = traj.window(date(2026, 11, 1), TODAY, None)
    assert days.bucket == traj.Bucket.DAY and len(days.starts) == 26 and days.starts[-1] == TODAY
    weeks = traj.window(date(2026, 3, 1), TODAY, None)
    assert weeks.bucket == traj.Bucket.WEEK
    assert weeks.since == date(2026, 2, 23) and weeks.since.weekday() == 0  # starts on the Monday before
    assert weeks.index(at("2026-11-25")) == len(weeks.starts) - 1 and weeks.index(at("2026-11-27")) is None
    months = traj.window(date(2023, 7, 14), TODAY, None)
    assert months.bucket == traj.Bucket.MONTH and months.since == date(2023, 7, 1)
    assert months.starts[-1] == date(2026, 11, 1) and months.index(at("2024-02-29")) == 7
    # without since: from the first memory, at most a year back; a future "since" is today
    assert traj.window(None, TODAY, date(2026, 11, 20)).since == date(2026, 11, 20)
    assert traj.window(None, TODAY, date(2019, 1, 1)).since == date(2025, 11, 24)
    assert traj.window(date(2027, 1, 1), TODAY, None).starts == (TODAY,)
    assert traj.window(None, TODAY, None).starts == (TODAY,)
    assert days.index(at("2020-01-01")) == 0  # anything earlier folds into the first bucket


def test_statuses_replay_from_the_events() -> None:
    life = row("m", "user", "active", "2026-11-01", "2026-11-20")
    events = [
        ev("m", "2026-11-01", "created"),
        ev("m", "2026-11-05", "stale"),
        ev("m", "2026-11-07", "confirmed"),
        ev("m", "2026-11-10", "forgotten"),
        ev("m", "2026-11-12", "restored"),  # back to what it was: active
        ev("m", "2026-11-15", "contested"),
        ev("m", "2026-11-20", "uncontested", status="active"),
    ]
    assert [s for _, s in traj.status_steps(life, events)] == [
        "active", "stale", "active", "archived", "active", "contested", "active",
    ]  # fmt: skip
    # a mined suggestion exists from its "suggested" event, not from its commit's date
    mined = row("s", "commit", "active", "2024-01-02", "2026-11-22")
    steps = traj.status_steps(mined, [ev("s", "2026-11-20", "suggested"), ev("s", "2026-11-22", "accepted")])
    assert steps == [(at("2026-11-20"), "suggested"), (at("2026-11-22"), "active")]
    # no events at all (an old database): its status now, since it was written
    assert traj.status_steps(row("o", "user", "stale", "2026-10-01"), []) == [(at("2026-10-01"), "stale")]
    # history older than the events (an import's clamped copy): active from creation, then what the events say,
    # and a replay that ends elsewhere than the stored status ends with it
    odd = row("x", "user", "orphaned", "2026-10-01", "2026-11-02")
    assert traj.status_steps(odd, [ev("x", "2026-11-01", "stale")]) == [
        (at("2026-10-01"), "active"), (at("2026-11-01"), "stale"), (at("2026-11-02"), "orphaned"),
    ]  # fmt: skip
    # revived: stale when its code changed while it was gone
    gone = row("g", "user", "stale", "2026-11-01", "2026-11-03")
    revived = [
        ev("g", "2026-11-01", "created"), ev("g", "2026-11-02", "orphaned"), ev("g", "2026-11-03", "revived", diff=True)
    ]  # fmt: skip
    assert [s for _, s in traj.status_steps(gone, revived)] == ["active", "orphaned", "stale"]


def test_standing_at_knows_contested() -> None:
    created = "2026-11-01T00:00:00.000000Z"
    memory = Memory("m", "gotcha", "t", Anchor("a.py", "f"), "user", 1.0, created, created, MemoryStatus.ACTIVE)
    events = [
        MemoryEvent("e1", "m", at("2026-11-01"), "created"),
        MemoryEvent("e2", "m", at("2026-11-05"), "contested", {"with": "o", "previous_status": "active"}),
        MemoryEvent("e3", "m", at("2026-11-09"), "uncontested", {"status": "active"}),
    ]
    assert standing_at(memory, events, at("2026-11-06")).status == MemoryStatus.CONTESTED
    assert standing_at(memory, events, at("2026-11-10")).status == MemoryStatus.ACTIVE


def test_series_stand_at_each_buckets_end_and_flows_count_within_it() -> None:
    win = traj.window(date(2026, 11, 20), date(2026, 11, 24), None)
    rows = [
        row("typed", "user", "stale", "2026-11-10", "2026-11-22"),  # before the window: folded into its start
        row("mined", "commit", "active", "2024-01-01", "2026-11-21"),
        row("brief", "user", "archived", "2026-11-23", "2026-11-23"),  # created and forgotten the same day
        row("mate", "user", "active", "2026-11-21"),  # a teammate's, imported
        row("agent", "agent", "suggested", "2026-11-24"),
    ]
    events = {
        "typed": [ev("typed", "2026-11-10", "created"), ev("typed", "2026-11-22", "marked_stale")],
        "mined": [ev("mined", "2026-11-20", "suggested"), ev("mined", "2026-11-21", "accepted")],
        "brief": [ev("brief", "2026-11-23", "created", 9), ev("brief", "2026-11-23", "forgotten", 10)],
        "mate": [ev("mate", "2026-11-21", "created", imported=True)],  # a teammate's, from the shared file
        "agent": [ev("agent", "2026-11-24", "suggested")],
    }
    memories = traj.lives(rows, events)
    assert [life.group for life in memories] == [
        SourceGroup.TYPED, SourceGroup.MINED, SourceGroup.TYPED, SourceGroup.IMPORTED, SourceGroup.AGENT,
    ]  # fmt: skip
    assert traj.earliest(memories) == date(2026, 11, 10)
    got = traj.trajectory(win, memories, {"2026-11-19": 5, "2026-11-21": 3, "2026-11-24": 2})
    # days 20 21 22 23 24
    assert got.by_source["typed"] == [1, 1, 1, 1, 1]  # stale is still current; "brief" never stood at a day's end
    assert got.by_source["mined"] == [0, 1, 1, 1, 1]
    assert got.by_source["imported"] == [0, 1, 1, 1, 1]
    assert got.by_source["agent"] == [0, 0, 0, 0, 0]  # a suggestion is not (yet) a current memory
    assert got.by_status["active"] == [1, 3, 2, 2, 2]
    assert got.by_status["stale"] == [0, 0, 1, 1, 1]
    assert got.by_status["suggested"] == [1, 0, 0, 0, 1]
    assert got.by_status["archived"] == [0, 0, 0, 1, 1]
    assert got.events["created"] == [0, 0, 0, 1, 0]  # the typed one before the window is not counted
    assert got.events["imported"] == [0, 1, 0, 0, 0]  # the teammate's "created" counts as imported
    assert got.events["suggested"] == [1, 0, 0, 0, 1]
    assert got.events["accepted"] == [0, 1, 0, 0, 0]
    assert got.events["stale"] == [0, 0, 1, 0, 0]
    assert got.events["forgotten"] == [0, 0, 0, 1, 0]
    assert got.events["shown"] == [0, 3, 0, 0, 2]  # the day before the window is left out
    data = got.to_dict()
    assert data["buckets"] == ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23", "2026-11-24"]
    assert (data["bucket"], data["since"], data["until"]) == ("day", "2026-11-20", "2026-11-24")
    assert set(data["events"]) == {str(f) for f in traj.Flow}


def test_sparklines_scale_to_the_peak_and_keep_single_events_visible() -> None:
    assert traj.sparkline([0, 1, 2, 4, 8]) == " ▁▂▄█"
    assert traj.sparkline([0, 1, 100]) == " ▁█"  # one event among many still shows
    assert traj.sparkline([0, 0]) == "  " and traj.sparkline([]) == ""
    assert traj.sparkline([0, 5, 10], " .:-=+*#@") == " =@"


def test_the_store_reads_status_events_with_what_their_detail_says(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "memory.db")
    try:
        created = at("2026-11-01")
        mine = Memory("M1", MemoryType.GOTCHA, "t", None, "user", 1.0, created, created)
        theirs = Memory("T1", MemoryType.GOTCHA, "u", None, "user", 1.0, created, created)
        imported = {"original_kind": "marked_stale", "original_detail": {"reason": "x"}}
        store.insert_many([
            (mine, [
                MemoryEvent("e1", "M1", at("2026-11-01"), "created"),
                MemoryEvent("e2", "M1", at("2026-11-02"), "forgotten"),
                MemoryEvent("e3", "M1", at("2026-11-03"), "restored", {"status": "stale"}),
                MemoryEvent("e4", "M1", at("2026-11-04"), "revived", {"diff": "-a\n+b"}),
                MemoryEvent("e5", "M1", at("2026-11-05"), "merged", {"text": "not a status event"}),
            ]),
            (theirs, [
                MemoryEvent("i1", "T1", at("2026-10-01"), IMPORTED_EVENT, {"original_kind": "created"}),
                MemoryEvent("i2", "T1", at("2026-10-02"), IMPORTED_EVENT, imported),
                MemoryEvent("i3", "T1", at("2026-10-03"), IMPORTED_EVENT, {"original_kind": "restatement_merged"}),
            ]),
        ])  # fmt: skip
        store.conn.execute("UPDATE memory_events SET detail = 'not json' WHERE id = 'e2'")
        rows = store.status_events(traj.STATUS_KINDS, IMPORTED_EVENT)
        assert rows == {
            "M1": [
                StatusEventRow("M1", at("2026-11-01"), "created"),
                StatusEventRow("M1", at("2026-11-02"), "forgotten"),  # a detail that is not JSON says nothing
                StatusEventRow("M1", at("2026-11-03"), "restored", "stale"),
                StatusEventRow("M1", at("2026-11-04"), "revived", None, True),
            ],
            "T1": [  # a teammate's events, read as their originals
                StatusEventRow("T1", at("2026-10-01"), "created", imported=True),
                StatusEventRow("T1", at("2026-10-02"), "marked_stale", imported=True),
            ],
        }
    finally:
        store.close()
