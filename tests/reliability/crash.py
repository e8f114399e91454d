"""Kill -9 harness: real ``forewarn`` processes SIGKILLed at random points, then the data checked.

Three workloads, each one real process per iteration:

- ``cli-remember`` — ``forewarn remember … --json`` (model load, redaction, embedding, the SQLite
  transaction, the vector index save); acknowledged when it exits 0 having printed the memory id.
- ``cli-index`` — ``forewarn index`` on a generated workspace whose files are rewritten, added and
  deleted between iterations, so every run has work to do when the kill lands.
- ``daemon`` — ``forewarn serve`` over stdio driven by a real LSP client that sends
  ``forewarn.remember`` commands back to back while the server indexes; acknowledged when the
  server's answer arrived.

After each kill: ``PRAGMA integrity_check`` on ``memory.db`` and ``index.db``, every acknowledged id
present, and the vector index (opened the way the engine opens it) holding exactly the vectors
SQLite holds. Used by ``tests/reliability/test_crash.py`` (a few iterations) and
``bench/crash_suite.py`` (100+).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CLI = [sys.executable, "-m", "forewarn.cli.main"]
WORDS = (
    "cache", "invoice", "retry", "timeout", "pool", "leak", "rounding", "tax", "refund", "webhook", "queue", "lock",
    "schema", "index", "cursor", "token", "session", "replica", "shard", "backoff", "deadline", "encoding", "locale",
    "currency", "ledger", "batch", "worker",
)  # fmt: skip
WORKSPACE_FILES = 120  # enough that indexing takes long enough for kills to land inside it
MUTATIONS = 15  # files rewritten / added / deleted between index iterations
ORPHAN_GRACE_S = 3.0  # a child still alive this long after its parent died is an orphan, not a straggler
REQUEST_WAIT_S = 120.0  # a hung server fails the iteration instead of blocking the suite


@dataclass
class Outcome:
    """One iteration: what was acknowledged, whether the kill landed, and what the checks found."""

    workload: str
    delay_s: float
    killed: bool
    orphans: int = 0  # processes it started that outlived it (should be 0)
    acknowledged: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


@dataclass
class Totals:
    iterations: int = 0
    killed: int = 0
    orphans: int = 0
    acknowledged: int = 0
    # a restatement (cosine > 0.95 on the same anchor) is acknowledged with the id it merged into, so
    # the database must hold as many memories as there are distinct ids, not acknowledgements
    acknowledged_ids: set[str] = field(default_factory=set)
    lost_ids: set[str] = field(default_factory=set)
    integrity_failures: int = 0
    vector_mismatches: int = 0
    problems: list[str] = field(default_factory=list)
    by_workload: dict[str, int] = field(default_factory=dict)

    def add(self, outcome: Outcome) -> None:
        self.iterations += 1
        self.killed += outcome.killed
        self.orphans += outcome.orphans
        self.acknowledged += len(outcome.acknowledged)
        self.acknowledged_ids.update(outcome.acknowledged)
        self.by_workload[outcome.workload] = self.by_workload.get(outcome.workload, 0) + 1
        for problem in outcome.problems:
            if problem.startswith("lost "):
                if problem in self.lost_ids:
                    continue  # reported once, not again after every later iteration
                self.lost_ids.add(problem)
            elif problem.startswith("integrity"):
                self.integrity_failures += 1
            elif problem.startswith("vectors"):
                self.vector_mismatches += 1
            self.problems.append(f"[{outcome.workload} after {outcome.delay_s:.2f} s] {problem}")

    @property
    def lost(self) -> int:
        return len(self.lost_ids)

    def to_dict(self) -> dict[str, Any]:
        return {
            "iterations": self.iterations,
            "killed": self.killed,
            "orphaned_processes": self.orphans,
            "acknowledged_memories": self.acknowledged,
            "distinct_acknowledged_ids": len(self.acknowledged_ids),
            "memories_lost": self.lost,
            "integrity_failures": self.integrity_failures,
            "vector_mismatches": self.vector_mismatches,
            "by_workload": self.by_workload,
            "problems": self.problems,
        }


# ---------------------------------------------------------------- workspace


def make_workspace(root: Path, files: int = WORKSPACE_FILES, seed: int = 0) -> Path:
    """A generated multi-package Python + TypeScript workspace whose modules import each other."""
    rng = random.Random(seed)
    for i in range(files):
        write_module(root, i, rng)
    return root


def write_module(root: Path, i: int, rng: random.Random) -> None:
    if i % 4 == 3:
        path = root / "web" / f"mod{i}.ts"
        dep = rng.randrange(max(i, 1))
        body = f'import {{ f{dep} }} from "./mod{dep}";\n' if dep % 4 == 3 and dep != i else ""
        body += "".join(
            f"export function f{i}_{k}(x: number): number {{\n  return x * {rng.randint(1, 99)};\n}}\n\n"
            for k in range(rng.randint(2, 6))
        )
        body += f"export function f{i}(x: number): number {{\n  return f{i}_0(x) + 1;\n}}\n"
    else:
        path = root / f"pkg{i % 5}" / f"mod{i}.py"
        deps = sorted({rng.randrange(max(i, 1)) for _ in range(3)} - {i})
        body = "".join(f"from pkg{d % 5}.mod{d} import f{d}\n" for d in deps if d % 4 != 3) + "\n\n"
        for k in range(rng.randint(2, 8)):
            body += f'def f{i}_{k}(x):\n    """{" ".join(rng.choices(WORDS, k=6))}."""\n    return x + {k}\n\n\n'
        body += f"class C{i}:\n    def run(self, x):\n        return f{i}_0(x)\n\n\n"
        body += f"def f{i}(x):\n    return C{i}().run(x)\n"
        (path.parent / "__init__.py").parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "__init__.py").touch()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")


def mutate_workspace(root: Path, rng: random.Random, count: int = MUTATIONS) -> None:
    """Rewrite, add and delete a few files so the next index run has real work."""
    existing = sorted(p for p in root.rglob("mod*.*") if p.is_file())
    for _ in range(count):
        action = rng.random()
        if action < 0.6 and existing:
            victim = rng.choice(existing)
            i = int(victim.stem[3:])
            write_module(root, i, rng)
        elif action < 0.8 and existing:
            victim = existing.pop(rng.randrange(len(existing)))
            victim.unlink(missing_ok=True)
        else:
            write_module(root, rng.randrange(WORKSPACE_FILES, WORKSPACE_FILES * 3), rng)


def workspace_data(root: Path) -> Path:
    from forewarn import paths

    return paths.data_dir() / "workspaces" / paths.workspace_id(root)


# ---------------------------------------------------------------- workloads


def memory_text(rng: random.Random) -> str:
    """A lesson: random words plus a nonce. Two of them rarely come within the merge cosine (0.946 was the
    closest pair of 2,000); when they do, the second is acknowledged with the first one's id."""
    return f"{' '.join(rng.choices(WORDS, k=8))} — lesson {rng.getrandbits(48):012x}"


def run_and_kill(cmd: list[str], delay: float, env: dict[str, str]) -> tuple[bool, int | None, str, int]:
    """Run ``cmd``; SIGKILL it after ``delay`` s unless it finished.

    Returns (killed, exit code, stdout, orphans): orphans are processes it started (parser workers)
    still alive after the kill. They are counted, then killed with their process group, so a leak is
    reported rather than left behind. Stdout goes to a file: an orphan holding a pipe would hang us.
    """
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
        try:
            proc.wait(timeout=delay)
            killed = False
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            killed = True
        orphans = reap_group(proc.pid)
        out.seek(0)
        return killed, None if killed else proc.returncode, out.read().decode("utf-8", "replace"), orphans


def group_members(pgid: int) -> list[int]:
    """Live processes of process group ``pgid`` (Linux /proc)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def reap_group(pgid: int, grace_s: float = ORPHAN_GRACE_S) -> int:
    """Count what is left of the group we started once ``grace_s`` has passed, then SIGKILL it.

    Workers of a process that exited normally leave by themselves within moments; only those still
    there after the grace period are orphans. Returns their count.
    """
    deadline = time.monotonic() + grace_s
    while (left := group_members(pgid)) and time.monotonic() < deadline:
        time.sleep(0.05)  # processes leaving cannot be awaited from outside their family
    if left:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
    return len(left)


def cli_remember(root: Path, rng: random.Random, max_delay: float, env: dict[str, str]) -> Outcome:
    delay = rng.uniform(0.0, max_delay)
    cmd = [*CLI, "remember", memory_text(rng), "-w", str(root), "--json", "--type", rng.choice(["gotcha", "decision"])]
    killed, code, out, orphans = run_and_kill(cmd, delay, env)
    outcome = Outcome("cli-remember", delay, killed, orphans=orphans)
    if not killed and code == 0:
        outcome.acknowledged.append(json.loads(out)["id"])
    elif not killed:
        outcome.problems.append(f"remember exited {code} without being killed")
    return outcome


def cli_index(root: Path, rng: random.Random, max_delay: float, env: dict[str, str]) -> Outcome:
    mutate_workspace(root, rng)
    delay = rng.uniform(0.0, max_delay)
    killed, code, _, orphans = run_and_kill([*CLI, "index", str(root)], delay, env)
    outcome = Outcome("cli-index", delay, killed, orphans=orphans)
    if not killed and code != 0:
        outcome.problems.append(f"index exited {code} without being killed")
    return outcome


async def daemon_remember(root: Path, rng: random.Random, max_delay: float, env: dict[str, str]) -> Outcome:
    """``forewarn serve`` over stdio: remember commands back to back until the SIGKILL lands."""
    from lsprotocol import types
    from pytest_lsp.client import make_test_lsp_client

    from tests.reliability.lsp import editor_capabilities

    delay = rng.uniform(0.0, max_delay)
    outcome = Outcome("daemon", delay, killed=True)
    client = make_test_lsp_client()
    started = time.monotonic()
    await client.start_io(CLI[0], *CLI[1:], "serve", env=env, start_new_session=True)
    assert client._server is not None
    pid = client._server.pid

    async def killer() -> None:
        await asyncio.sleep(max(0.0, delay - (time.monotonic() - started)))  # the random kill point is the test
        os.kill(pid, signal.SIGKILL)

    async def work() -> None:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=editor_capabilities(),  # the VS Code extension's: a person's writes, stored at once
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            )
        )
        while True:
            params = types.ExecuteCommandParams(command="forewarn.remember", arguments=[{"text": memory_text(rng)}])
            result = await asyncio.wait_for(client.workspace_execute_command_async(params), REQUEST_WAIT_S)
            outcome.acknowledged.append(result["id"])

    kill_task = asyncio.ensure_future(killer())
    work_task = asyncio.ensure_future(work())
    await kill_task
    try:
        # asyncio's wait() also waits for the pipes to close, which orphans keep open: reap them first
        while group_members(pid) and pid in group_members(pid):
            await asyncio.sleep(0.01)  # SIGKILL is asynchronous; the kernel tears the process down shortly
        outcome.orphans = reap_group(pid)
        await asyncio.wait_for(client._server.wait(), REQUEST_WAIT_S)
    finally:
        work_task.cancel()
        await asyncio.gather(work_task, return_exceptions=True)
        client._stop_event.set()
        await asyncio.gather(*client._async_tasks, return_exceptions=True)
    return outcome


# ---------------------------------------------------------------- checks


def integrity(path: Path) -> str:
    """``ok`` or what SQLite says is wrong. Opened read-write like the next start would (WAL replay)."""
    conn = sqlite3.connect(str(path), timeout=30)
    try:
        return "; ".join(str(r[0]) for r in conn.execute("PRAGMA integrity_check"))
    except sqlite3.DatabaseError as exc:
        return f"unreadable: {exc}"
    finally:
        conn.close()


def check(root: Path, acknowledged: list[str]) -> list[str]:
    """Problems with the workspace's data after a crash (empty list: all good)."""
    data = workspace_data(root)
    problems: list[str] = []
    for name in ("memory.db", "index.db"):
        db = data / name
        if db.exists() and (verdict := integrity(db)) != "ok":
            problems.append(f"integrity of {name}: {verdict}")
    mdb = data / "memory.db"
    if acknowledged:
        present: set[str] = set()
        if mdb.exists():
            conn = sqlite3.connect(str(mdb), timeout=30)
            try:
                marks = ", ".join("?" * len(acknowledged))
                present = {r[0] for r in conn.execute(f"SELECT id FROM memories WHERE id IN ({marks})", acknowledged)}
            finally:
                conn.close()
        problems += [f"lost acknowledged memory {mid}" for mid in acknowledged if mid not in present]
    if mdb.exists():
        problems += vector_problems(data)
    return problems


def vector_problems(data: Path) -> list[str]:
    """Open the hnsw index the way the engine does; it must hold exactly SQLite's vectors of active memories."""
    from forewarn.memory.store import MemoryStore
    from forewarn.memory.vectors import VectorIndex

    store = MemoryStore(data / "memory.db")
    try:
        models = store.conn.execute("SELECT model_id, dim, count(*) FROM memory_vectors GROUP BY model_id").fetchall()
        problems: list[str] = []
        for model_id, dim, count in models:
            index = VectorIndex(data, store, model_id, dim)
            embedded = store.conn.execute(
                """SELECT count(*) FROM memories AS m WHERE EXISTS
                   (SELECT 1 FROM memory_vectors AS v WHERE v.memory_num = m.num AND v.model_id = ?)""",
                (model_id,),
            ).fetchone()[0]
            if len(index) != count or count != embedded:
                problems.append(f"vectors: hnsw holds {len(index)}, SQLite {count}, embedded memories {embedded}")
            index.close()
        return problems
    finally:
        store.close()


def count_memories(root: Path) -> int:
    mdb = workspace_data(root) / "memory.db"
    if not mdb.exists():
        return 0
    conn = sqlite3.connect(str(mdb), timeout=30)
    try:
        return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])
    finally:
        conn.close()


# ---------------------------------------------------------------- the loop

WORKLOADS = ("cli-remember", "cli-index", "daemon")


KILL_WINDOW_RUNS = 1.5  # a kill lands anywhere in 1.5 un-killed runs: most mid-run, some after the write


def calibrate(root: Path, rng: random.Random, env: dict[str, str]) -> tuple[float, str]:
    """Seconds one un-killed ``forewarn remember`` takes on this machine now, and the id it wrote (checked
    after every later kill like any acknowledged write, but not counted as one: nothing tried to kill it)."""
    cmd = [*CLI, "remember", memory_text(rng), "-w", str(root), "--json", "--type", "note"]
    started = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600, check=False)
    took = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError(f"calibration remember exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return took, json.loads(done.stdout)["id"]


def run_suite(
    root: Path,
    iterations: int,
    *,
    seed: int = 0,
    max_delay: dict[str, float] | None = None,
    env: dict[str, str] | None = None,
    on_outcome: Callable[[int, Outcome], None] | None = None,
) -> Totals:
    """Rotate through the workloads ``iterations`` times, checking the data after every kill."""
    rng = random.Random(seed)
    env = dict(env or os.environ)
    all_acked: list[str] = []
    # kill points must fall across the workloads' real duration: on a loaded machine a `remember` takes
    # several times as long, and fixed windows would kill every process before its first write
    remember_s, calibration_id = calibrate(root, rng, env)
    all_acked.append(calibration_id)
    delays = {
        "cli-remember": max(4.0, KILL_WINDOW_RUNS * remember_s),
        "cli-index": max(4.0, KILL_WINDOW_RUNS * remember_s),
        "daemon": max(8.0, 2 * KILL_WINDOW_RUNS * remember_s),
        **(max_delay or {}),
    }
    totals = Totals()
    for i in range(iterations):
        workload = WORKLOADS[i % len(WORKLOADS)]
        if workload == "cli-remember":
            outcome = cli_remember(root, rng, delays[workload], env)
        elif workload == "cli-index":
            outcome = cli_index(root, rng, delays[workload], env)
        else:
            outcome = asyncio.run(daemon_remember(root, rng, delays[workload], env))
        all_acked += outcome.acknowledged
        # every write acknowledged so far must still be there, not just this iteration's
        outcome.problems += check(root, all_acked)
        totals.add(outcome)
        if on_outcome is not None:
            on_outcome(i, outcome)
    return totals
