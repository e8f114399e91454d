"""Two indexers on one workspace (the CLI beside the hook server) and a file that changes as it is read.

Whatever the interleaving, a file's record must never pair the stat of one content with the hash and
definitions of another: the stat is what later runs trust to skip the file, so such a row stays wrong.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
from pathlib import Path

import pytest

from forewarn.config import Settings
from forewarn.indexing import indexer as indexer_module
from forewarn.indexing.indexer import Indexer
from forewarn.indexing.parse import HASH_DIGEST_BYTES

REL = "src/output.rs"
ORIGINAL = """pub enum OutputType {
    Pager,
    Stdout,
}

impl Drop for OutputType {
    fn drop(&mut self) {
        match *self {
            OutputType::Pager => {}
            OutputType::Stdout => {}
        }
    }
}
"""
EDITED = "// qa\n" + ORIGINAL  # the QA's edit: one line on top moves ``fn drop`` down
SAME_SIZE = ORIGINAL + "// qa\n"  # as many bytes as EDITED, ``fn drop`` where ORIGINAL has it
HOUR_NS = 3600 * 10**9


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "bat"
    (ws / "src").mkdir(parents=True)
    (ws / REL).write_text(ORIGINAL, encoding="utf-8")
    git(ws, "init", "-q")
    git(ws, "add", ".")
    git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "bat")
    return ws


def set_mtime(path: Path, mtime_ns: int) -> None:
    os.utime(path, ns=(mtime_ns, mtime_ns))


def assert_index_matches_disk(root: Path, db: Path) -> None:
    """A later run (as the next ``forewarn index``) ends with the row describing the bytes on disk."""
    data = (root / REL).read_bytes()
    drop_line = data.decode().splitlines().index("    fn drop(&mut self) {") + 1
    with Indexer(root, Settings(), db_path=db) as later:
        later.index()
        record = later.record(REL)
        assert record is not None
        assert record.content_hash == hashlib.blake2b(data, digest_size=HASH_DIGEST_BYTES).hexdigest()
        assert [d.line for d in later.definitions_named("drop")] == [drop_line]


def test_same_bytes_back_under_another_indexer_is_parsed_afresh(root: Path, tmp_path: Path) -> None:
    """Q1: the hook server's records still hold ORIGINAL when the CLI has stored EDITED; once ``git checkout``
    puts ORIGINAL back, the server reads bytes it knows, and must not stamp their stat on EDITED's row."""
    db, path = tmp_path / "index.db", root / REL
    start = time.time_ns() - HOUR_NS  # every write long before the runs: no timestamp can be too recent to trust
    set_mtime(path, start)
    with Indexer(root, Settings(), db_path=db) as server:
        server.index()
        path.write_text(EDITED, encoding="utf-8")
        set_mtime(path, start + 10**9)
        with Indexer(root, Settings(), db_path=db) as cli:
            assert cli.index().changed == [REL]
        git(root, "checkout", "-q", "--", REL)
        set_mtime(path, start + 2 * 10**9)
        caught_up = server.index_files([REL])  # what ``_catch_up`` does with the files the CLI wrote
        assert caught_up.changed == [REL]  # the server's records and graph follow the row it rewrote
        assert [d.line for d in server.definitions_named("drop")] == [7]
    assert_index_matches_disk(root, db)


def test_file_rewritten_as_it_is_read_is_read_again(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor saves again right after the read, in the same timestamp tick and at the same size: the stat
    cannot tell the two contents apart, so the record must not vouch for the one that was read."""
    db, path = tmp_path / "index.db", root / REL
    real_read = indexer_module._read_file
    rewrites: list[str] = []

    def read_then_rewrite(full: str, limit: int | None) -> indexer_module._Snapshot:
        snapshot = real_read(full, limit)
        if full.endswith(REL) and not rewrites:
            path.write_text(SAME_SIZE, encoding="utf-8")
            set_mtime(path, snapshot.mtime_ns)  # a filesystem's coarse timestamp: the same mtime again
            rewrites.append(full)
        return snapshot

    with Indexer(root, Settings(), db_path=db) as ix:
        ix.index()
        path.write_text(EDITED, encoding="utf-8")
        monkeypatch.setattr(indexer_module, "_read_file", read_then_rewrite)
        assert ix.index_files([REL]).changed == [REL]
        monkeypatch.undo()
    assert rewrites and len(EDITED) == len(SAME_SIZE)
    assert_index_matches_disk(root, db)
