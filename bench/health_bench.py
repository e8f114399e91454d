"""The health report's cost: ``Workspace.stats()`` (counts, the trajectory, the lists) at 1k/10k/100k memories.

What the editors' Health views and ``forewarn stats --json`` ask for. A small real workspace (four Python files,
indexed) holds memories written in bulk over the past year with real event histories: created or suggested,
then some accepted, dismissed, made stale, confirmed, superseded or forgotten, a share imported from a
teammate's file; "shown" counts on 90 days. Reported, as p50 of wall and of CPU time: ``stats()`` after a change
(default window: a year by week), ``stats(since="30d")`` (by day), the trajectory's replay alone (the store's reads
and the replay), and ``stats()`` when nothing changed (the trajectory kept).

    python bench/health_bench.py                  # 1k, 10k, 100k memories
    python bench/health_bench.py --sizes 1000 --calls 5
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _stats import percentile  # bench/ is not a package

from forewarn import paths
from forewarn.config import Settings
from forewarn.memory.lifecycle import event
from forewarn.memory.records import Anchor, Memory, MemoryEvent
from forewarn.memory.text import new_id, to_iso
from forewarn.memory.transfer import IMPORTED_EVENT
from forewarn.memory.vocabulary import MemorySource, MemoryStatus, MemoryType
from forewarn.workspace.engine import Workspace

SIZES = (1_000, 10_000, 100_000)
CALLS = 7
SEED = 11
DAY = 86_400.0
FILES = {
    "money.py": "def to_cents(x):\n    return round(x * 100)\n",
    "pay.py": "from money import to_cents\n\ndef charge(x):\n    return to_cents(x)\n\ndef refund(x):\n    return -x\n",
    "cart.py": "from pay import charge\n\ndef checkout(items):\n    return charge(sum(items))\n",
    "ledger.py": "from money import to_cents\n\ndef record(x):\n    return to_cents(x)\n",
}
ANCHORS = [
    ("pay.py", "charge"),
    ("pay.py", "refund"),
    ("cart.py", "checkout"),
    ("ledger.py", "record"),
    ("pay.py", None),
]
SOURCES = [MemorySource.USER] * 5 + [MemorySource.COMMIT] * 3 + [MemorySource.AGENT, MemorySource.COMMENT]


def history(rng: random.Random, mid: str, born: float, now: float) -> tuple[MemoryStatus, list[MemoryEvent], bool]:
    """A plausible life: its final status, its events, whether it came from a teammate's file."""
    at = born
    imported = rng.random() < 0.15
    suggested = not imported and rng.random() < 0.35
    events = [event(mid, "suggested" if suggested else "created", to_iso(at))]
    status = MemoryStatus.SUGGESTED if suggested else MemoryStatus.ACTIVE

    def later() -> str:
        nonlocal at
        at = min(now - 1, at + rng.uniform(0.1, 30) * DAY)
        return to_iso(at)

    if suggested:
        roll = rng.random()
        if roll < 0.5:
            events.append(event(mid, "accepted", later()))
            status = MemoryStatus.ACTIVE
        elif roll < 0.8:
            events.append(event(mid, "dismissed", later()))
            return MemoryStatus.DISMISSED, events, False
        else:
            return status, events, False
    for kind, chance, after in (
        ("stale", 0.2, MemoryStatus.STALE), ("confirmed", 0.5, MemoryStatus.ACTIVE),
        ("superseded", 0.05, MemoryStatus.SUPERSEDED), ("forgotten", 0.03, MemoryStatus.ARCHIVED),
    ):  # fmt: skip
        if status in (MemoryStatus.SUPERSEDED, MemoryStatus.ARCHIVED) or rng.random() >= chance:
            continue
        if kind == "confirmed" and status != MemoryStatus.STALE:
            continue
        events.append(event(mid, kind, later()))
        status = after
    if imported:
        events = [
            MemoryEvent(e.id, mid, e.at, IMPORTED_EVENT, {"original_kind": e.kind, "original_detail": {}})
            for e in events
        ]
    return status, events, imported


def build(home: Path, size: int, now: float) -> Path:
    root = home / f"ws-{size}"
    root.mkdir(parents=True)
    for name, text in FILES.items():
        (root / name).write_text(text)
    rng = random.Random(SEED)
    settings = Settings()
    settings.embedder.enabled = False
    with Workspace.open(root, settings, embedder=None) as ws:
        ws.reindex()
        batch: list[tuple[Memory, list[MemoryEvent]]] = []
        ids = []
        for n in range(size):
            born = now - rng.uniform(0, 365) * DAY
            mid = new_id(born)
            status, events, imported = history(rng, mid, born, now)
            file, symbol = rng.choice(ANCHORS)
            source = MemorySource.IMPORT if imported else rng.choice(SOURCES)
            text = (
                f"lesson {n}: {rng.choice(['retry', 'cache', 'lock', 'round', 'encode'])} carefully in {symbol or file}"
            )
            batch.append((Memory(mid, rng.choice(list(MemoryType)), text, Anchor(file, symbol, 1, 2), source, 1.0,
                                 to_iso(born), events[-1].at, status), events))  # fmt: skip
            ids.append(mid)
            if len(batch) == 5_000:
                ws.store.insert_many(batch)
                batch = []
        ws.store.insert_many(batch)
        for d in range(90):  # what file opens showed on each of the last 90 days
            shown = rng.sample(ids, min(len(ids), 40))
            ws.store.record_surfaced(shown, to_iso(now - d * DAY))
    return root


def timed(call: object, calls: int) -> tuple[float, float]:
    """p50 of the wall time and p50 of this process's CPU time, in ms (on a shared machine the CPU time says what
    the work costs; the wall time what a user waited then)."""
    wall, cpu = [], []
    for _ in range(calls):
        started, used = time.perf_counter(), time.process_time()
        call()  # type: ignore[operator]
        wall.append((time.perf_counter() - started) * 1e3)
        cpu.append((time.process_time() - used) * 1e3)
    return percentile(wall, 50), percentile(cpu, 50)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--calls", type=int, default=CALLS)
    args = parser.parse_args()
    now = time.time()
    print("memories  p50 ms, wall / cpu:  stats()          stats(30d)       replay           cached           buckets")
    with tempfile.TemporaryDirectory(prefix="health-bench-") as tmp:
        home = Path(tmp)
        os.environ[paths.HOME_ENV] = str(home / "home")
        for size in sorted(args.sizes):
            root = build(home, size, now)
            settings = Settings()
            settings.embedder.enabled = False
            today = datetime.fromtimestamp(now, UTC).date()
            with Workspace.open(root, settings, embedder=None) as ws:
                ws.stats()  # warm: the graph's ranks, SQLite's pages

                def fresh(since: str | None = None, ws: Workspace = ws) -> object:
                    ws._trajectory_cache = None  # what a change costs: the replay runs again
                    return ws.stats(since=since)

                full = timed(fresh, args.calls)
                month = timed(lambda: fresh("30d"), args.calls)
                alone = timed(lambda ws=ws, today=today: ws._replay(None, today), args.calls)
                cached = timed(lambda ws=ws: ws.stats(), args.calls)  # nothing changed: a buffer switch
                buckets = len(ws.stats().trajectory["buckets"])
            cells = "".join(f"{w:>8.0f} / {c:<6.0f} " for w, c in (full, month, alone, cached))
            print(f"{size:>8}  {' ' * 20}{cells}  {buckets}", flush=True)
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
