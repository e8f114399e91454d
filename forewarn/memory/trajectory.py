"""The learning trajectory: how many memories there were, of which source and status, and what happened, over time.

Read back from what the database already records: each memory's creation time, source and status, its status
events (``timeline.STATUS_AFTER``, imported ones unwrapped), and how often memories were shown per day (m012).
Pure: the store's reads (``store_health.py``) go in, series of one number per time bucket come out.

- ``by_source`` / ``by_status``: how many memories stood at the *end* of each bucket (a status replay; what
  happened before the window is folded into the first bucket's value).
- ``events``: how many things of each ``Flow`` happened *within* each bucket.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from typing import Any

from forewarn.errors import ForewarnError
from forewarn.memory.store_health import LifeRow, StatusEventRow
from forewarn.memory.timeline import STATUS_AFTER
from forewarn.memory.vocabulary import CURRENT_STATUSES, MemorySource, MemoryStatus, SourceGroup

DEFAULT_SPAN_DAYS = 365  # without --since: the last year at most (older memories fold into the first bucket)
MAX_DAY_BUCKETS = 92  # a quarter or less is drawn day by day…
MAX_WEEK_BUCKETS = 104  # …two years or less week by week, anything longer month by month


class Bucket(StrEnum):
    """The width of one point of a series."""

    DAY = "day"
    WEEK = "week"  # starting on Monday
    MONTH = "month"  # calendar months


class Flow(StrEnum):
    """What happened to memories, counted per bucket (``Trajectory.events``)."""

    CREATED = "created"  # written as current memories here (typed, by an agent when trusted, superseding others)
    SUGGESTED = "suggested"  # proposed: mined, or by an agent, waiting for review
    ACCEPTED = "accepted"  # suggestions a person accepted
    DISMISSED = "dismissed"  # suggestions a person dismissed
    STALE = "stale"  # turned stale: their code changed, or someone marked them outdated
    SUPERSEDED = "superseded"  # replaced by newer memories
    FORGOTTEN = "forgotten"  # archived by a person
    IMPORTED = "imported"  # arrived through the team's shared file (counted when they were first written)
    SHOWN = "shown"  # times memories were shown (file opens, searches)


# which events count as which flow; an imported memory's first event counts as IMPORTED instead
FLOW_OF_EVENT: Mapping[str, Flow] = {
    "created": Flow.CREATED,
    "suggested": Flow.SUGGESTED,
    "accepted": Flow.ACCEPTED,
    "dismissed": Flow.DISMISSED,
    "stale": Flow.STALE,
    "marked_stale": Flow.STALE,
    "superseded": Flow.SUPERSEDED,
    "forgotten": Flow.FORGOTTEN,
    "purged": Flow.FORGOTTEN,
}
STATUS_KINDS: tuple[str, ...] = tuple(sorted(set(STATUS_AFTER)))  # the event kinds a trajectory reads
BIRTH_EVENTS = frozenset({"created", "suggested"})  # a memory's first event when it was written here
BIRTH_FLOWS = frozenset({Flow.CREATED, Flow.SUGGESTED})
# what each memory source is grouped under (any other source, e.g. one an import carried, reads as typed)
SOURCE_GROUPS: Mapping[str, SourceGroup] = {
    MemorySource.USER: SourceGroup.TYPED,
    MemorySource.COMMIT: SourceGroup.MINED,
    MemorySource.COMMENT: SourceGroup.MINED,
    MemorySource.IMPORT: SourceGroup.IMPORTED,
    MemorySource.AGENT: SourceGroup.AGENT,
}
_RELATIVE = re.compile(r"^\s*(\d{1,5})\s*([dwmy])\s*$", re.I)
_UNIT_DAYS = {"d": 1, "w": 7, "m": 30, "y": 365}


class SinceError(ForewarnError, ValueError):
    """A ``--since`` / ``since`` value that is neither a date nor a span such as ``90d``."""


def parse_since(text: str, today: date) -> date:
    """A window's first day: an ISO date or time (``2026-09-01``), or a span back from ``today`` (``90d``, ``12w``,
    ``6m``, ``1y``: days, weeks, 30-day months, 365-day years)."""
    if (m := _RELATIVE.match(text)) is not None:
        return today - timedelta(days=int(m[1]) * _UNIT_DAYS[m[2].lower()])
    try:
        parsed = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        why = f"since {text!r}: give a date (2026-09-01) or a span back from today (90d, 12w, 6m, 1y)"
        raise SinceError(why) from None
    return (parsed.astimezone(UTC) if parsed.tzinfo else parsed).date()


@dataclass(frozen=True, slots=True)
class Window:
    """The buckets a trajectory is drawn over: ``starts[i]`` is the first day of bucket i; ``until`` the last day."""

    bucket: Bucket
    starts: tuple[date, ...]
    until: date
    keys: tuple[str, ...] = field(init=False)  # ``starts`` as ISO dates: what times are compared with

    days: dict[str, int] = field(init=False)  # every day of the window → its bucket: one lookup per event

    def __post_init__(self) -> None:
        object.__setattr__(self, "keys", tuple(d.isoformat() for d in self.starts))
        first, span = self.starts[0], (self.until - self.starts[0]).days
        days = [(first + timedelta(days=n)).isoformat() for n in range(span + 1)]
        object.__setattr__(self, "days", {d: bisect_right(self.keys, d) - 1 for d in days})

    @property
    def since(self) -> date:
        return self.starts[0]

    def index(self, at: str) -> int | None:
        """The bucket holding ISO date or time ``at`` (0 for anything earlier; None after the window)."""
        day = at[:10]
        found = self.days.get(day)
        if found is not None:
            return found
        return 0 if day < self.keys[0] else None


def window(since: date | None, today: date, earliest: date | None) -> Window:
    """Buckets from ``since`` (default: the earliest memory, at most ``DEFAULT_SPAN_DAYS`` back) to ``today``:
    days for a quarter or less, weeks for two years or less, months beyond."""
    start = since if since is not None else max(earliest or today, today - timedelta(days=DEFAULT_SPAN_DAYS))
    start = min(start, today)
    days = (today - start).days + 1
    if days <= MAX_DAY_BUCKETS:
        return Window(Bucket.DAY, tuple(start + timedelta(days=i) for i in range(days)), today)
    if days <= MAX_WEEK_BUCKETS * 7:
        monday = start - timedelta(days=start.weekday())
        weeks = (today - monday).days // 7 + 1
        return Window(Bucket.WEEK, tuple(monday + timedelta(weeks=i) for i in range(weeks)), today)
    starts = []
    month = date(start.year, start.month, 1)
    while month <= today:
        starts.append(month)
        month = date(month.year + month.month // 12, month.month % 12 + 1, 1)
    return Window(Bucket.MONTH, tuple(starts), today)


@dataclass(frozen=True, slots=True)
class Trajectory:
    window: Window
    by_source: dict[str, list[int]]  # current memories (CURRENT_STATUSES) at each bucket's end, per SourceGroup
    by_status: dict[str, list[int]]  # memories of each status at each bucket's end (every status, suggestions too)
    events: dict[str, list[int]]  # per Flow, how many happened within each bucket

    def to_dict(self) -> dict[str, Any]:
        return {
            "bucket": self.window.bucket.value,
            "since": self.window.since.isoformat(),
            "until": self.window.until.isoformat(),
            "buckets": [d.isoformat() for d in self.window.starts],
            "by_source": self.by_source,
            "by_status": self.by_status,
            "events": self.events,
        }


def source_group(source: str, imported: bool) -> SourceGroup:
    """How a memory arrived: through the team's file when ``imported``, else by its source."""
    return SourceGroup.IMPORTED if imported else SOURCE_GROUPS.get(source, SourceGroup.TYPED)


def status_steps(life: LifeRow, events: Sequence[StatusEventRow]) -> list[tuple[str, str]]:
    """``(at, status)`` each time the memory's status changed, oldest first, replayed from its status events (as
    ``timeline.standing_at`` does). A memory whose history starts with its birth (created, suggested) exists from
    then on; one whose history starts later was active from ``created_at``. A replay that ends elsewhere than the
    stored status (events from before they were recorded) ends with the stored status at ``updated_at``."""
    steps: list[tuple[str, str]] = []
    forgotten_from: list[str] = []
    status: str = MemoryStatus.ACTIVE
    for e in events:
        after = STATUS_AFTER.get(e.kind)
        said = e.status
        if e.kind == "forgotten":
            forgotten_from.append(status)
        if after is not None:
            status = after
        elif e.kind == "restored":
            before = forgotten_from.pop() if forgotten_from else MemoryStatus.ACTIVE
            status = said or before
        elif e.kind == "uncontested":
            status = said or MemoryStatus.ACTIVE
        elif e.kind == "revived":
            status = said if said else (MemoryStatus.STALE if e.diff else MemoryStatus.ACTIVE)
        else:
            continue
        if steps and steps[-1][0] == e.at:
            steps[-1] = (e.at, status)
        elif not steps or steps[-1][1] != status:
            steps.append((e.at, status))
    # born here: it exists from that event on (a mined suggestion's created_at is its commit's date, years back)
    born = bool(events) and events[0].kind in BIRTH_EVENTS
    if not steps or (steps[0][0] > life.created_at and not born):
        steps.insert(0, (life.created_at, MemoryStatus.ACTIVE if steps else life.status))
    if steps[-1][1] != life.status:
        steps.append((max(life.updated_at, steps[-1][0]), life.status))
    return steps


@dataclass(frozen=True, slots=True)
class Life:
    """One memory as the trajectory sees it: how it arrived, its statuses over time, and its status events."""

    row: LifeRow
    group: SourceGroup
    arrived_by_import: bool
    steps: list[tuple[str, str]]  # status_steps
    events: Sequence[StatusEventRow]

    @property
    def born(self) -> str:
        """When it first existed here (its first step)."""
        return self.steps[0][0]


def lives(rows: Iterable[LifeRow], events_by_memory: Mapping[str, Sequence[StatusEventRow]]) -> list[Life]:
    """Every memory's ``Life``. One arrived through an import when its first event did (or its source says so)."""
    out = []
    for row in rows:
        events = events_by_memory.get(row.id, ())
        arrived = (bool(events) and events[0].imported) or row.source == MemorySource.IMPORT
        out.append(Life(row, source_group(row.source, arrived), arrived, status_steps(row, events), events))
    return out


def earliest(memories: Sequence[Life]) -> date | None:
    """The first day any memory existed here: where a window without ``since`` starts."""
    first = min((life.born for life in memories), default=None)
    return date.fromisoformat(first[:10]) if first else None


def trajectory(win: Window, memories: Iterable[Life], shown_by_day: Mapping[str, int]) -> Trajectory:
    """The series over ``win`` (see the module's docstring). One pass over every memory's steps and events."""
    n = len(win.starts)
    index = win.index
    source_delta = {g.value: [0] * n for g in SourceGroup}
    status_delta = {s.value: [0] * n for s in MemoryStatus}
    flows = {f.value: [0] * n for f in Flow}
    current = set(CURRENT_STATUSES)
    first_day = win.keys[0]
    for life in memories:
        steps = life.steps
        starts = [index(at) for at, _ in steps]
        for i, (_, status) in enumerate(steps):
            start = starts[i]
            if start is None:
                break
            end = starts[i + 1] if i + 1 < len(steps) else None
            if end == start:
                continue  # in and out within one bucket: not standing at its end
            deltas = status_delta.setdefault(status, [0] * n)
            deltas[start] += 1
            if end is not None:
                deltas[end] -= 1
            if status in current:
                by_group = source_delta[life.group]
                by_group[start] += 1
                if end is not None:
                    by_group[end] -= 1
        imported = life.arrived_by_import
        if imported and life.born[:10] >= first_day and (slot := index(life.born)) is not None:
            flows[Flow.IMPORTED][slot] += 1
        for k, e in enumerate(life.events):
            flow = FLOW_OF_EVENT.get(e.kind)
            if flow is None or e.at[:10] < first_day or (imported and k == 0 and flow in BIRTH_FLOWS):
                continue  # before the window, or an imported memory's birth (counted as imported)
            if (slot := index(e.at)) is not None:
                flows[flow][slot] += 1
    for day, count in shown_by_day.items():
        if (slot := index(day)) is not None and day >= first_day:
            flows[Flow.SHOWN][slot] += count
    return Trajectory(
        win,
        by_source={k: _running(v) for k, v in source_delta.items()},
        by_status={k: _running(v) for k, v in status_delta.items()},
        events=flows,
    )


def _running(deltas: list[int]) -> list[int]:
    out, total = [], 0
    for d in deltas:
        total += d
        out.append(total)
    return out


def sparkline(values: Sequence[int | float], blocks: str | None = None) -> str:
    """``values`` as a row of ``blocks`` (lowest first; default ``SPARK_BLOCKS``) scaled to their maximum; a zero
    is the first block (blank), anything above zero at least the second, so a single event stays visible."""
    ramp = blocks or SPARK_BLOCKS
    peak = max(values, default=0)
    if peak <= 0:
        return ramp[0] * len(values)
    top = len(ramp) - 1
    return "".join(ramp[0] if v <= 0 else ramp[max(1, round(v / peak * top))] for v in values)


SPARK_BLOCKS = " ▁▂▃▄▅▆▇█"  # a blank for zero, then eight heights: what terminals and Neovim draw alike

__all__ = [
    "Bucket",
    "Flow",
    "Life",
    "SinceError",
    "Trajectory",
    "Window",
    "earliest",
    "lives",
    "parse_since",
    "source_group",
    "sparkline",
    "status_steps",
    "trajectory",
    "window",
]
