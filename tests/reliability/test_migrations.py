"""Schema versions: an older memory database is upgraded with every memory kept; a newer one is refused,
byte for byte untouched, with a message that says what to do."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types

from forewarn import paths
from forewarn.memory.store import MIGRATIONS, MemoryStore
from forewarn.sqlite import SchemaTooNewError, connect, migrate
from forewarn.workspace.engine import Workspace
from tests.reliability import crash, lsp

OLD_MEMORIES = 50


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def old_database(db: Path, applied: int = 1) -> list[str]:
    """A database as the first release(s) left it: only the first ``applied`` migrations, rows by plain SQL."""
    conn = connect(db)
    migrate(conn, MIGRATIONS[:applied], what="old memory database")
    ids = [f"01OLD{i:021d}" for i in range(OLD_MEMORIES)]
    with conn:
        conn.execute("BEGIN")
        for i, mid in enumerate(ids):
            conn.execute(
                """INSERT INTO memories (id, type, text, file, source, confidence, created_at, updated_at, status)
                   VALUES (?, 'gotcha', ?, ?, 'user', 1.0, ?, ?, 'active')""",
                (mid, f"old lesson {i}: retry the webhook with backoff", f"pkg0/mod{i % 3}.py",
                 "2024-01-01T00:00:00.000000Z", "2024-01-01T00:00:00.000000Z"),
            )  # fmt: skip
    conn.close()
    return ids


def test_older_database_is_upgraded_and_keeps_every_memory(tmp_path: Path) -> None:
    root = crash.make_workspace(tmp_path / "ws", files=6)
    db = paths.workspace_dir(root) / "memory.db"
    ids = old_database(db)
    with Workspace.open(root, embedder=None) as engine:
        kept = {m.id for m in engine.store.iter_all()}
        assert kept == set(ids)
        found = engine.search("webhook backoff", k=OLD_MEMORIES)
        assert {h.memory.id for h in found.memories} == set(ids)
        applied = [r[0] for r in engine.store.conn.execute("SELECT name FROM _migrations ORDER BY rowid")]
        assert applied == [m.name for m in MIGRATIONS]


@pytest.fixture
def newer(tmp_path: Path) -> tuple[Path, Path, str]:
    """A workspace whose memory.db was written by a future Forewarn (one migration we do not know)."""
    root = crash.make_workspace(tmp_path / "ws", files=6)
    db = paths.workspace_dir(root) / "memory.db"
    old_database(db, applied=len(MIGRATIONS))
    conn = sqlite3.connect(str(db))
    with conn:
        conn.execute("INSERT INTO _migrations (name, applied_at) VALUES ('m999_from_the_future', datetime('now'))")
    conn.close()  # the last connection checkpoints the WAL: everything is in the main file now
    assert not Path(str(db) + "-wal").exists()
    return root, db, sha(db)


def test_newer_database_is_refused_untouched_by_the_store(newer: tuple[Path, Path, str]) -> None:
    _, db, before = newer
    with pytest.raises(SchemaTooNewError) as info:
        MemoryStore(db)
    assert "newer Forewarn" in str(info.value) and "m999_from_the_future" in str(info.value)
    assert sha(db) == before


def test_newer_database_is_refused_by_the_cli(newer: tuple[Path, Path, str]) -> None:
    root, db, before = newer
    for argv in (["memory", "list"], ["remember", "a lesson"], ["search", "webhook"]):
        done = subprocess.run([*crash.CLI, *argv, "-w", str(root)], capture_output=True, text=True)
        assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
        assert "newer Forewarn" in done.stderr and "Upgrade" in done.stderr
    assert sha(db) == before


async def test_newer_database_is_reported_by_the_server(newer: tuple[Path, Path, str]) -> None:
    root, db, before = newer
    async with lsp.server(root, options={"embedder": {"enabled": False}}) as client:
        stats = types.ExecuteCommandParams(command="forewarn.stats", arguments=[{}])
        with pytest.raises(Exception, match="unavailable"):
            await asyncio.wait_for(client.workspace_execute_command_async(stats), lsp.WAIT_S)
        shown = json.dumps([m.message for m in client.messages])
    assert "newer Forewarn" in shown
    assert sha(db) == before
