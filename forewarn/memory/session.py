"""Session working memory: what the user touched in the last minutes, used to personalize ranking.

Observations (files opened, searches run, memories accepted) carry a weight that halves every five
minutes and gains on each new access; past ``MAX_ITEMS`` the weakest are compacted away. A session
ends after five idle minutes: the next observation starts a new session id, which new memories
record, so a search hit can later expand to the other memories written in the same session.
Nothing here touches disk: it is per process, and rebuilt from use.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from forewarn.memory.text import new_id

HALF_LIFE_S = 300.0  # five minutes: attention moves on quickly
TOUCH_GAIN = 1.0  # each touch adds one unit, on top of what is left of the earlier ones
MAX_ITEMS = 20  # working memory is small on purpose: past this, the weakest observations go
IDLE_SPLIT_S = 300.0  # five idle minutes start a new session
MIN_WEIGHT = 0.01  # below this an observation is forgotten at compaction
KINDS = ("file", "search", "memory")


@dataclass(slots=True)
class Observation:
    kind: str  # file | search | memory
    key: str  # a workspace-relative path, a query, a memory id
    weight: float
    last_at: float
    count: int = 1


class SessionMemory:
    """Per-process working memory. Thread-safe; ``clock`` is injectable so tests need no sleeping."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._items: dict[tuple[str, str], Observation] = {}
        self._shown: set[str] = set()
        self._last_activity = clock()
        self.session_id = new_id(self._last_activity)

    # ------------------------------------------------------------ state

    def _tick(self) -> float:
        """Start a new session if idle too long. Caller holds the lock."""
        now = self._clock()
        if now - self._last_activity > IDLE_SPLIT_S:
            self.session_id = new_id(now)
            self._items.clear()
            self._shown.clear()
        self._last_activity = now
        return now

    @staticmethod
    def _decayed(obs: Observation, now: float) -> float:
        return obs.weight * 0.5 ** (max(0.0, now - obs.last_at) / HALF_LIFE_S)

    def current_session(self) -> str:
        with self._lock:
            self._tick()
            return self.session_id

    def observe(self, kind: str, key: str) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown observation kind {kind!r}; expected one of {', '.join(KINDS)}")
        with self._lock:
            now = self._tick()
            obs = self._items.get((kind, key))
            if obs is None:
                self._items[(kind, key)] = Observation(kind, key, TOUCH_GAIN, now)
            else:
                obs.weight = self._decayed(obs, now) + TOUCH_GAIN
                obs.last_at = now
                obs.count += 1
            if len(self._items) > MAX_ITEMS:
                self._compact(now)

    def _compact(self, now: float) -> None:
        ranked = sorted(self._items.items(), key=lambda kv: self._decayed(kv[1], now), reverse=True)
        self._items = {k: v for k, v in ranked[:MAX_ITEMS] if self._decayed(v, now) >= MIN_WEIGHT}

    def mark_shown(self, memory_ids: list[str]) -> None:
        with self._lock:
            self._tick()
            self._shown.update(memory_ids)

    def shown(self) -> set[str]:
        with self._lock:
            # reading does not count as activity, but an idle gap still ends the session
            if self._clock() - self._last_activity > IDLE_SPLIT_S:
                return set()
            return set(self._shown)

    def weights(self, kind: str) -> dict[str, float]:
        """Current weight of each observed key of ``kind``, scaled to [0, 1] (strongest = 1)."""
        with self._lock:
            now = self._clock()
            if now - self._last_activity > IDLE_SPLIT_S:
                return {}
            raw = {o.key: self._decayed(o, now) for o in self._items.values() if o.kind == kind}
        top = max(raw.values(), default=0.0)
        return {k: v / top for k, v in raw.items() if top > 0 and v / top >= MIN_WEIGHT}

    def items(self) -> list[Observation]:
        with self._lock:
            now = self._clock()
            return sorted(
                (Observation(o.kind, o.key, self._decayed(o, now), o.last_at, o.count) for o in self._items.values()),
                key=lambda o: -o.weight,
            )
