"""Memory health: counts, the learning trajectory over time, and the lists beside it (part of ``Workspace``).

One answer for every front end: ``forewarn stats [--json] [--since]``, the language server's ``forewarn.stats``
(the editors' Health views) and anything else read ``WorkspaceStats.to_dict()``, so the numbers are the same
everywhere.
"""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime

from forewarn.indexing import conventions
from forewarn.memory import trajectory as traj
from forewarn.memory.records import Memory, MemoryFilter
from forewarn.memory.timeline import stale_note
from forewarn.memory.transfer import IMPORTED_EVENT
from forewarn.memory.vocabulary import MemoryStatus
from forewarn.workspace.core import WorkspaceCore
from forewarn.workspace.results import ImportantFile, Pushback, WorkspaceStats
from forewarn.workspace.symbols import base_symbol, has_namesakes

log = logging.getLogger(__name__)

STATS_TOP = 10  # rows in each list of the report: one screen of a panel
OWN_JUDGED_FACTOR = 5  # of the top files by rank, this many times STATS_TOP are judged the team's own or not
STALE_LISTED = 20  # stale memories listed by name (the count covers them all)
# what counts as a person turning a memory away: the health report's "dismissed most"
PUSHBACK_EVENTS = ("dismissed", "marked_stale", "forgotten")


class HealthMixin(WorkspaceCore):
    """``stats``: the memory-health report (part of ``Workspace``)."""

    # the last trajectory and what it was computed for (the database's change stamp, the window): a panel asks
    # again on every buffer switch, and replaying 100k histories takes seconds; it is replayed only after a change
    _trajectory_cache: tuple[tuple[object, ...], traj.Trajectory] | None = None

    def stats(self, *, top: int = STATS_TOP, since: str | None = None) -> WorkspaceStats:
        """Counts, lists and the trajectory since ``since`` (a date or a span such as ``90d``; default: the
        earliest memory, at most a year back) up to today. Raises ``trajectory.SinceError`` for a bad ``since``."""
        self._write_surfaced()
        today = datetime.fromtimestamp(self.clock(), UTC).date()
        first = traj.parse_since(since, today) if since else None
        s = self.store.stats(top=top)
        scores, _ = self._ranks()
        ranked = sorted(scores, key=lambda r: (-scores[r], r))
        judged = ranked[: top * OWN_JUDGED_FACTOR]  # vendored and generated code is upstream's: not the team's gaps
        skip = conventions.not_own_code(self.root, judged)
        ranked = [rel for rel in judged if rel not in skip] + ranked[len(judged) :]
        positions = {rel: i for i, rel in enumerate(ranked, start=1)}  # among the team's own files
        important = [(rel, scores[rel]) for rel in ranked if rel not in s.anchored_files][:top]
        counts = self.store.current_counts(ranked[:top])
        trajectory = self._trajectory(first, today)
        win = trajectory.window
        shown = self.store.shown_most(win.keys[0], win.until.isoformat(), top)
        shown_rows = self.store.get_many([mid for mid, _ in shown])
        pushed = self.store.pushback(PUSHBACK_EVENTS, win.keys[0], top)
        pushed_rows = self.store.get_many([p.memory_id for p in pushed])
        stale = self.store.list_memories(MemoryFilter(statuses=(MemoryStatus.STALE,)), limit=STALE_LISTED)
        listed = [*shown_rows.values(), *pushed_rows.values(), *stale]
        return WorkspaceStats(
            total=s.total, by_type=s.by_type, by_status=s.by_status, stale=s.by_status.get(MemoryStatus.STALE, 0),
            most_surfaced=s.most_surfaced, important_without_memories=important, mode=self.mode, reason=self.reason,
            vectors=len(self.vectors) if self.vectors is not None else 0,
            trajectory=trajectory.to_dict(),
            important_files=[
                ImportantFile(rel, scores[rel], positions[rel], counts.get(rel, 0)) for rel in ranked[:top]
            ],
            shown_most=[(shown_rows[mid], n) for mid, n in shown if mid in shown_rows],
            dismissed_most=[
                Pushback(pushed_rows[p.memory_id], p.times, p.last_kind, p.last_at)
                for p in pushed if p.memory_id in pushed_rows
            ],
            stale_memories=[(m, stale_note(m)) for m in stale],
            namesakes=self._on_namesakes(listed),
        )  # fmt: skip

    def _on_namesakes(self, memories: list[Memory]) -> frozenset[str]:
        """The ids of ``memories`` on the first of several same-named definitions of their file (``Node.before``
        beside ``Node.before#2``), read from the index once per file."""
        spans: dict[str, list[tuple[str, str, int, int]]] = {}
        found: set[str] = set()
        for m in memories:
            a = m.anchor
            if a is None or not a.symbol or base_symbol(a.symbol) != a.symbol:
                continue  # no symbol, or its ``#2`` already says it is one of several
            if a.file not in spans:
                try:
                    spans[a.file] = self.indexer.chunk_spans(a.file)
                except Exception:  # a label's detail: the report is made without it
                    log.debug("reading the definitions of %s failed", a.file, exc_info=True)
                    spans[a.file] = []
            if has_namesakes(spans[a.file], a.symbol):
                found.add(m.id)
        return frozenset(found)

    def _ranks(self) -> tuple[dict[str, float], dict[str, int]]:
        try:
            return self.graph.file_ranks()
        except Exception:
            log.exception("ranking files for stats failed")
            return {}, {}

    def _trajectory(self, since: date | None, today: date) -> traj.Trajectory:
        key = (self.store.change_stamp(), since, today)
        cached = self._trajectory_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        found = self._replay(since, today)
        self._trajectory_cache = (key, found)
        return found

    def _replay(self, since: date | None, today: date) -> traj.Trajectory:
        events = self.store.status_events(traj.STATUS_KINDS, IMPORTED_EVENT)
        memories = traj.lives(self.store.life_rows(), events)
        win = traj.window(since, today, traj.earliest(memories))
        shown = self.store.shown_by_day(win.keys[0], win.until.isoformat())
        return traj.trajectory(win, memories, shown)


__all__ = ["HealthMixin"]
