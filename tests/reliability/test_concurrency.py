"""Two editor windows (two daemons) and the CLI writing to one workspace at once.

No write may be lost, no "database is locked" may reach the user (a command error, a message in
the editor, or the log), and afterwards each daemon's vector index holds exactly the vectors SQLite
holds, including those the other processes wrote.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sqlite3
import subprocess
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.reliability import crash, lsp

DAEMON_WRITES = 12  # remembers per daemon
CLI_WRITES = 4  # each CLI run loads the model: keep the default run short
LOCKED = "database is locked"


def anchored(root: Path, rng: random.Random) -> dict[str, object]:
    """A remember anchored to a line of a real file: it makes the daemon index that file first."""
    files = sorted(root.rglob("mod*.py"))
    path = rng.choice(files)
    line = rng.randrange(3, 8)
    rng_range = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 1}}
    return {"text": crash.memory_text(rng), "uri": path.as_uri(), "range": rng_range, "type": "gotcha"}


async def daemon_writer(client: LanguageClient, root: Path, seed: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    acked: list[str] = []
    errors: list[str] = []
    for i in range(DAEMON_WRITES):
        arg = anchored(root, rng) if i % 2 else {"text": crash.memory_text(rng)}
        try:
            acked.append((await lsp.command(client, "forewarn.remember", arg))["id"])
        except Exception as exc:  # any error is a finding; collected so the test shows them all
            errors.append(f"remember: {exc}")
        if i == DAEMON_WRITES // 2:
            crash.mutate_workspace(root, rng, count=5)
            try:
                await lsp.command(client, "forewarn.reindex")
            except Exception as exc:
                errors.append(f"reindex: {exc}")
    return acked, errors


def cli_writer(root: Path, seed: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    acked: list[str] = []
    errors: list[str] = []
    for _ in range(CLI_WRITES):
        done = subprocess.run(
            [*crash.CLI, "remember", crash.memory_text(rng), "-w", str(root), "--json"],
            capture_output=True,
            text=True,
            env=dict(os.environ),
        )
        if done.returncode == 0:
            acked.append(json.loads(done.stdout)["id"])
        else:
            errors.append(f"cli exit {done.returncode}: {done.stderr.strip()[-300:]}")
    return acked, errors


async def test_two_daemons_and_the_cli_write_at_once(tmp_path: Path) -> None:
    root = crash.make_workspace(tmp_path / "ws", files=60)
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    async with lsp.server(root, log_file=logs[0]) as a, lsp.server(root, log_file=logs[1]) as b:
        results = await asyncio.gather(
            daemon_writer(a, root, 1), daemon_writer(b, root, 2), asyncio.to_thread(cli_writer, root, 3)
        )
        acked = [mid for ids, _ in results for mid in ids]
        errors = [e for _, errs in results for e in errs]
        # each daemon must see what the others wrote: a search syncs its vector index, stats reports its size
        sizes = []
        for client in (a, b):
            found = await lsp.command(client, "forewarn.search", {"query": "lesson", "k": 200})
            assert found["mode"] == "hybrid", found.get("reason")
            sizes.append((await lsp.command(client, "forewarn.stats"))["vectors"])
        messages = [m.message for c in (a, b) for m in c.messages if m.type <= types.MessageType.Warning]

    assert errors == []
    assert len(acked) == 2 * DAEMON_WRITES + CLI_WRITES
    assert not [m for m in messages if LOCKED in m.lower()], messages
    for log in logs:
        assert LOCKED not in log.read_text().lower()

    data = crash.workspace_data(root)
    conn = sqlite3.connect(str(data / "memory.db"))
    try:
        present = {r[0] for r in conn.execute("SELECT id FROM memories")}
        vectors = conn.execute("SELECT count(*) FROM memory_vectors").fetchone()[0]
    finally:
        conn.close()
    assert set(acked) <= present
    assert sizes == [vectors, vectors]
    assert crash.check(root, acked) == []


HOLD_S = 2.0  # how long each step gets to reach its blocking point: ordering across processes cannot be awaited


async def test_search_during_a_remember_that_waits_for_the_database(tmp_path: Path) -> None:
    """Another process holds memory.db's write lock (the CLI mid-write): a remember waits for it, a search arrives."""
    root = crash.make_workspace(tmp_path / "ws", files=6)
    async with lsp.server(root) as client:
        await lsp.indexed(client)  # the first index run is over: the writer thread is free
        await lsp.command(client, "forewarn.remember", {"text": "a first lesson so the vector index exists"})
        other = sqlite3.connect(str(crash.workspace_data(root) / "memory.db"), isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            remember = asyncio.ensure_future(lsp.command(client, "forewarn.remember", {"text": "a second lesson"}))
            await asyncio.sleep(HOLD_S)  # the remember reaches BEGIN IMMEDIATE and waits there (busy timeout)
            search = asyncio.ensure_future(lsp.command(client, "forewarn.search", {"query": "lesson"}))
            await asyncio.sleep(HOLD_S)  # the search reaches the vector index sync
        finally:
            other.execute("COMMIT")
            other.close()
        _, pending = await asyncio.wait({remember, search}, timeout=15)
        for task in pending:
            task.cancel()
        assert not pending, "the daemon stopped answering: remember and search wait for each other's lock"
        assert (await remember)["id"] and (await search)["memories"]
