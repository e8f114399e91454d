"""Two damaged pages of a real memory.db: every front end refuses it untouched, then recovery is fast and honest.

The database is written through the engine (memories with their history events), two of its pages
are overwritten, and then the CLI commands, the Workspace API and a real ``forewarn serve`` (over
stdio, two folders) are driven against it; the file's hash must not move. ``memory recover`` then
finishes within seconds and says what was lost, history included.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from forewarn import paths
from forewarn.memory.errors import MemoryDatabaseCorruptError
from forewarn.workspace.engine import Workspace
from tests.reliability import lsp

CLI = [sys.executable, "-m", "forewarn.cli.main"]
MEMORIES = 60  # several leaf pages of memories and of events, so two damaged pages lose only some
REQUEST_FAILED = -32803
RECOVER_BUDGET_S = 10.0  # "seconds": the file is ~250 KB; the old row-id probe took 12 minutes on less


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build(root: Path) -> tuple[Path, list[str]]:
    """A workspace whose memory.db holds real memories and history (created, forgotten)."""
    (root / "src").mkdir(parents=True)
    (root / "src" / "billing.py").write_text("def charge(cents):\n    return round(cents)\n")
    with Workspace.open(root, embedder=None) as engine:
        ids = [
            engine.remember(
                f"lesson {i}: invoices round half to even, never half up " + "detail " * 40, file="src/billing.py"
            ).memory.id
            for i in range(MEMORIES)
        ]
        for mid in ids[::4]:
            engine.forget(mid)
    db = paths.workspace_dir(root) / "memory.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the pages live in the file, where the damage goes
    conn.close()
    return db, ids


def damage(db: Path) -> None:
    """Overwrite one leaf page of memories and one of memory_events, as a bad disk or a stray write would."""
    conn = sqlite3.connect(db)
    try:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [
            conn.execute(
                "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 1",
                (table,),
            ).fetchone()[0]
            for table in ("memories", "memory_events")
        ]
    finally:
        conn.close()
    with open(db, "r+b") as f:
        for page in pages:
            f.seek((page - 1) * page_size)
            f.write(b"\xa5" * page_size)


@pytest.fixture
def damaged(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    root = tmp_path / "shop"
    db, ids = build(root)
    damage(db)
    return root, db, ids


def billing(root: Path) -> str:
    return (root / "src" / "billing.py").as_uri()


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120)


def assert_refused(done: subprocess.CompletedProcess[str], db: Path) -> None:
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr  # one line, naming the file and the way out
    assert str(db) in lines[0] and "forewarn memory recover" in lines[0] and "untouched" in lines[0]


def test_every_cli_command_refuses_it_untouched(damaged: tuple[Path, Path, list[str]], tmp_path: Path) -> None:
    root, db, ids = damaged
    before = sha(db)
    export = tmp_path / "out.jsonl"
    incoming = tmp_path / "in.jsonl"
    incoming.write_text("")
    w = ["-w", str(root)]
    for args in (
        ["memory", "list", *w],
        ["memory", "show", ids[1], *w],
        ["search", "invoices", *w],
        ["stats", *w],
        ["memory", "export", str(export), *w],
        ["remember", "written after the damage", *w],
        ["memory", "import", str(incoming), *w],
    ):
        assert_refused(run(*args), db)
    assert sha(db) == before
    assert not export.exists() or export.read_text() == ""
    assert not list(db.parent.glob("memory.db.*"))  # nothing moved aside or replaced behind the user's back
    wal = Path(f"{db}-wal")
    assert not wal.exists() or wal.stat().st_size == 0  # and nothing written beside it either


def test_workspace_refuses_it_on_open(damaged: tuple[Path, Path, list[str]]) -> None:
    root, db, _ = damaged
    before = sha(db)
    with pytest.raises(MemoryDatabaseCorruptError, match="forewarn memory recover"):
        Workspace.open(root, embedder=None)
    assert sha(db) == before


def test_a_file_too_large_to_check_on_open_stops_at_the_first_error(
    damaged: tuple[Path, Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past OPEN_CHECK_MAX_BYTES only the cheap checks run on open: the first malformed read marks it damaged,
    and from then on nothing reads or writes it; a write before any read is checked in full first."""
    import forewarn.sqlite

    root, db, _ = damaged
    before = sha(db)
    monkeypatch.setattr(forewarn.sqlite, "OPEN_CHECK_MAX_BYTES", 0)
    with Workspace.open(root, embedder=None) as engine:
        # opening catches up with the code index, which reads memories: it may already have met the damage
        if engine.store.damage is None:
            with pytest.raises(MemoryDatabaseCorruptError, match="forewarn memory recover"):
                engine.list_memories(limit=1000)
        assert engine.store.damage is not None and "forewarn memory recover" in str(engine.store.damage)
        for call in (lambda: engine.search("invoices"), lambda: engine.remember("after"), engine.stats):
            with pytest.raises(MemoryDatabaseCorruptError):
                call()
    with Workspace.open(root, embedder=None) as engine, pytest.raises(MemoryDatabaseCorruptError):
        engine.remember("a write before any read")  # checked in full before the transaction begins
    assert sha(db) == before


async def test_the_server_refuses_the_folder_and_serves_the_others(
    damaged: tuple[Path, Path, list[str]], tmp_path: Path
) -> None:
    root, db, _ = damaged
    healthy = tmp_path / "other"
    build(healthy)
    before = sha(db)
    async with lsp.server(root, folders=[root, healthy], options={"embedder": {"enabled": False}}) as client:
        with pytest.raises(JsonRpcException) as info:
            await lsp.command(client, "forewarn.search", {"query": "invoices", "file": billing(root)})
        assert info.value.code == REQUEST_FAILED and "forewarn memory recover" in info.value.message
        with pytest.raises(JsonRpcException):
            await lsp.command(client, "forewarn.remember", {"text": "after", "uri": billing(root)})
        found = await lsp.command(client, "forewarn.search", {"query": "invoices", "file": billing(healthy)})
        assert found["memories"], found  # the other folder is served
        errors = [m for m in client.messages if m.type == types.MessageType.Error]
        assert len(errors) == 1 and "forewarn memory recover" in errors[0].message and str(db) in errors[0].message
    assert sha(db) == before


def test_recover_is_fast_and_reports_what_was_lost(damaged: tuple[Path, Path, list[str]]) -> None:
    root, db, ids = damaged
    before = sha(db)
    started = time.perf_counter()
    done = run("memory", "recover", "--json", "-w", str(root))
    elapsed = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    assert elapsed < RECOVER_BUDGET_S, elapsed
    assert "forewarn: reading" in done.stderr  # progress on stderr
    report = json.loads(done.stdout)
    moved = Path(report["moved_to"])
    assert sha(moved) == before  # the damaged file, kept byte for byte
    recovered, lost = report["recovered"], report["unreadable"]
    assert 0 < recovered["memories"] < MEMORIES and recovered["memories"] + lost["memories"] == MEMORIES
    assert lost["memory_events"] > 0 and report["counts_exact"]
    assert set(report["lost_memory_ids"]) <= set(ids) and len(report["lost_memory_ids"]) == lost["memories"]
    assert f"{lost['memory_events']} history events" in report["message"]
    listed = run("memory", "list", "--json", "--limit", "1000", "-w", str(root))
    assert listed.returncode == 0, listed.stderr
