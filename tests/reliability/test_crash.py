"""Crash safety: SIGKILL at random points loses no acknowledged memory and corrupts nothing.

The default run does ``FOREWARN_CRASH_ITERATIONS`` (9) kills, three of each workload; ``make
crash-suite`` (bench/crash_suite.py) does 120+. Damaged caches are rebuilt; a damaged memory
database is refused, untouched.
"""

from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from forewarn.memory.errors import MemoryDatabaseCorruptError
from forewarn.workspace.engine import Workspace
from tests.reliability import crash, lsp

ITERATIONS = int(os.environ.get("FOREWARN_CRASH_ITERATIONS", "9"))
ORPHAN_GRACE_S = 5.0  # how long workers get to notice their parent died before they count as leaked


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return crash.make_workspace(tmp_path / "ws", files=60)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_kill9_at_random_points_loses_nothing(workspace: Path) -> None:
    totals = crash.run_suite(workspace, ITERATIONS, seed=int(os.environ.get("FOREWARN_CRASH_SEED", "7")))
    assert totals.problems == [], "\n".join(totals.problems)
    assert totals.lost == 0 and totals.integrity_failures == 0 and totals.vector_mismatches == 0
    assert totals.acknowledged > 0  # the run must have acknowledged writes, or it proved nothing
    assert crash.count_memories(workspace) >= len(totals.acknowledged_ids)


def test_parser_workers_die_with_a_killed_indexer(tmp_path: Path) -> None:
    root = crash.make_workspace(tmp_path / "big", files=420)  # past IN_PROCESS_MAX_FILES: parser processes start
    proc = subprocess.Popen(
        [*crash.CLI, "index", str(root)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 120
        while len(crash.group_members(proc.pid)) < 3 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)  # waiting for the workers to exist: nothing to await across processes
        assert proc.poll() is None, "indexing finished before its workers could be seen"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + ORPHAN_GRACE_S
        while crash.group_members(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = crash.group_members(proc.pid)
    finally:
        crash.reap_group(proc.pid)
    assert left == []


def _engine_with_memories(root: Path, n: int) -> list[str]:
    with Workspace.open(root) as engine:
        if engine.vectors is None:
            pytest.skip(f"no embedding model: {engine.embedder_problem}")
        return [engine.remember(crash.memory_text(random.Random(i))).memory.id for i in range(n)]


@pytest.mark.parametrize("damage", ["missing", "garbage", "truncated", "stale-metadata"])
def test_damaged_vector_index_is_rebuilt_from_sqlite(workspace: Path, damage: str) -> None:
    ids = _engine_with_memories(workspace, 6)
    data = crash.workspace_data(workspace)
    hnsw, meta = data / "vectors.hnsw", data / "vectors.json"
    if damage == "missing":
        hnsw.unlink()
    elif damage == "garbage":
        hnsw.write_bytes(os.urandom(hnsw.stat().st_size))
    elif damage == "truncated":
        hnsw.write_bytes(hnsw.read_bytes()[: hnsw.stat().st_size // 2])
    else:
        meta.write_text(meta.read_text().replace('"count": 6', '"count": 2'))
    with Workspace.open(workspace) as engine:
        assert engine.vectors is not None and len(engine.vectors) == 6
        found = engine.search("lesson", k=10, chunks=0)
        assert found.mode == "hybrid"
        assert {h.memory.id for h in found.memories} == set(ids)
    assert crash.vector_problems(data) == []


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_damaged_index_database_is_rebuilt(workspace: Path, damage: str) -> None:
    env = dict(os.environ)
    subprocess.run([*crash.CLI, "index", str(workspace)], check=True, capture_output=True, env=env)
    db = crash.workspace_data(workspace) / "index.db"
    if damage == "garbage":
        db.write_bytes(os.urandom(db.stat().st_size))
    else:
        db.write_bytes(db.read_bytes()[: 4096 + 100])
    done = subprocess.run([*crash.CLI, "index", str(workspace)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert crash.integrity(db) == "ok"
    assert list(db.parent.glob("index.db.corrupt-*"))  # the damaged copy is kept aside, then it is rebuilt


def test_damaged_memory_database_is_refused_untouched_by_cli_and_engine(workspace: Path) -> None:
    _engine_with_memories(workspace, 3)
    db = crash.workspace_data(workspace) / "memory.db"
    with open(db, "r+b") as f:
        f.write(b"garbage where the SQLite header was")
    before = sha(db)
    with pytest.raises(MemoryDatabaseCorruptError):
        Workspace.open(workspace, embedder=None)
    done = subprocess.run(
        [*crash.CLI, "remember", "after the damage", "-w", str(workspace)], capture_output=True, text=True
    )
    assert done.returncode != 0
    assert str(db) in done.stderr and "untouched" in done.stderr
    assert sha(db) == before
    assert sorted(p.name for p in db.parent.iterdir() if p.name.startswith("memory.db")) == ["memory.db"]


async def test_damaged_memory_database_is_reported_by_the_server_untouched(workspace: Path) -> None:
    _engine_with_memories(workspace, 2)
    db = crash.workspace_data(workspace) / "memory.db"
    with open(db, "r+b") as f:
        f.write(b"garbage where the SQLite header was")
    before = sha(db)
    async with lsp.server(workspace, options={"embedder": {"enabled": False}}) as client:
        with pytest.raises(Exception, match="forewarn memory recover"):
            await lsp.command(client, "forewarn.search", {"query": "lesson"})
        shown = " ".join(m.message for m in client.messages)
    assert str(db) in shown and "untouched" in shown
    assert sha(db) == before
