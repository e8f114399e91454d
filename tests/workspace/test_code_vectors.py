"""Code-chunk vectors with the real embedder and its real SQLite cache: coverage, meaning, incremental
re-embedding of an edited file, deletes, rebuilding a lost index from the cache, and cache pruning."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from forewarn.memory.embed_cache import CachedEmbedder, EmbeddingCache
from forewarn.workspace.code_vectors import CODE_TEXT_MAX_TOKENS, embed_text, fit_to_tokens
from forewarn.workspace.engine import Workspace
from tests.conftest import Unclosed

DAY = 86_400.0

UPLOAD = '''"""Sending files to the storage service."""


def retry_upload(path, attempts=3):
    """Send the file again after a failed transfer, waiting longer each time."""
    for attempt in range(attempts):
        if send(path):
            return True
        backoff(attempt)
    return False


class Uploader:
    def __init__(self, bucket):
        self.bucket = bucket

    def send(self, path):
        return self.bucket.put(path)
'''

PARSE = '''def parse_config(text):
    """Read key = value lines into a dict, skipping comments."""
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        out[key.strip()] = value.strip()
    return out


def render_page(template, context):
    return template.format(**context)
'''


def cached(raw: Any) -> CachedEmbedder:
    return CachedEmbedder(Unclosed(raw), EmbeddingCache())  # the cache lives in this test's data dir


def make_root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "net").mkdir(parents=True)
    (root / "net/upload.py").write_text(UPLOAD, encoding="utf-8")
    (root / "conf.py").write_text(PARSE, encoding="utf-8")
    return root


def open_ws(root: Path, raw: Any) -> Workspace:
    ws = Workspace.open(root, embedder=cached(raw))
    ws.reindex()
    return ws


@pytest.fixture
def ws(tmp_path: Path, raw_embedder: Any) -> Iterator[Workspace]:
    eng = open_ws(make_root(tmp_path), raw_embedder)
    yield eng
    eng.close()


def symbols_of(ws: Workspace, ids: list[int]) -> list[str]:
    chunks = ws.indexer.chunks_by_ids(ids)
    return [f"{chunks[i].rel}::{chunks[i].symbol}" for i in ids if i in chunks]


def test_every_chunk_gets_a_vector_and_meaning_finds_the_code(ws: Workspace) -> None:
    embedded, total = ws.code_vector_state()
    assert embedded == 0 and total >= 7
    progress: list[tuple[int, int]] = []
    assert ws.embed_chunks(progress=lambda done, of: progress.append((done, of))) == total
    assert ws.code_vector_state() == (total, total)
    assert progress[-1] == (total, total)
    assert ws.embed_chunks() == 0  # nothing left to do

    qvec = ws.embedder.embed_query("try sending the file again when the transfer fails")
    hits = ws.code_vector_hits(qvec, 3)
    assert symbols_of(ws, [i for i, _ in hits])[0] == "net/upload.py::retry_upload"
    assert all(-1.0 <= score <= 1.0 for _, score in hits)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    qvec = ws.embedder.embed_query("read settings file with comments into a dictionary")
    assert symbols_of(ws, [i for i, _ in ws.code_vector_hits(qvec, 1)]) == ["conf.py::parse_config"]


def test_limit_and_most_important_files_first(ws: Workspace) -> None:
    assert ws.embed_chunks(limit=2, first=["conf.py"]) == 2
    assert ws.code_vector_state()[0] == 2
    ids = [i for i, _ in ws.code_vector_hits(ws.embedder.embed_query("anything"), 10)]
    assert {ws.indexer.chunks_by_ids(ids)[i].rel for i in ids} == {"conf.py"}  # the file asked for first
    assert ws.embed_chunks(cancel=lambda: True) == 0  # cancelled before the first batch


def test_editing_one_function_reembeds_only_its_chunk(ws: Workspace) -> None:
    total = ws.embed_chunks()
    assert ws.code_vectors is not None and ws.code_vectors.last_run.embedded == total
    path = ws.root / "net/upload.py"
    path.write_text(UPLOAD.replace("backoff(attempt)", "backoff(attempt * 2)"), encoding="utf-8")
    ws.reindex(["net/upload.py"])
    assert ws.code_vector_state()[0] == total - len(ws.indexer.chunks_for("net/upload.py"))

    redone = ws.embed_chunks()
    run = ws.code_vectors.last_run
    assert redone == len(ws.indexer.chunks_for("net/upload.py"))  # the file's new rows all got vectors...
    assert run.embedded == 1  # ...but only the edited function's text reached the model
    assert ws.code_vector_state() == (total, total)
    qvec = ws.embedder.embed_query("try sending the file again when the transfer fails")
    assert symbols_of(ws, [i for i, _ in ws.code_vector_hits(qvec, 1)]) == ["net/upload.py::retry_upload"]


def test_deleted_chunks_leave_the_index(ws: Workspace) -> None:
    ws.embed_chunks()
    gone = {c.id for c in ws.indexer.chunks_for("conf.py")}
    (ws.root / "conf.py").unlink()
    ws.reindex(["conf.py"])
    qvec = ws.embedder.embed_query("read settings file with comments into a dictionary")
    assert not gone & {i for i, _ in ws.code_vector_hits(qvec, 20)}  # never offered, even before a fill
    ws.embed_chunks()
    embedded, total = ws.code_vector_state()
    assert embedded == total and ws.code_vectors is not None and len(ws.code_vectors.index) == total


def test_a_lost_index_is_rebuilt_from_the_cache_without_the_model(tmp_path: Path, raw_embedder: Any) -> None:
    root = make_root(tmp_path)
    with open_ws(root, raw_embedder) as ws:
        total = ws.embed_chunks()
        wdir = ws.store.path.parent
    with open_ws(root, raw_embedder) as ws:  # saved on close, loaded on open
        assert ws.code_vector_state() == (total, total)
    for f in wdir.glob("code_vectors.*"):
        f.unlink()
    with open_ws(root, raw_embedder) as ws:
        assert ws.code_vector_state() == (0, total)
        assert ws.embed_chunks() == total
        assert ws.code_vectors is not None and ws.code_vectors.last_run.embedded == 0  # all from the cache
    (wdir / "code_vectors.hnsw").write_bytes(b"not an index")
    with open_ws(root, raw_embedder) as ws:
        assert ws.code_vector_state() == (0, total)  # damage: started afresh, nothing lent to the wrong chunk
        ws.embed_chunks()
        assert ws.code_vector_state() == (total, total)


def test_a_rebuilt_code_index_never_lends_a_vector_to_another_chunk(tmp_path: Path, raw_embedder: Any) -> None:
    root = make_root(tmp_path)
    with open_ws(root, raw_embedder) as ws:
        total = ws.embed_chunks()
        index_db = ws.store.path.parent / "index.db"
        before = {i: h for i, _, h in ws.indexer.chunk_keys()}
    index_db.unlink()  # ids start again at 1: the same ids now name other chunks
    (root / "conf.py").unlink()
    (root / "net/upload.py").write_text(PARSE + "\n\n" + UPLOAD.split('"""\n', 2)[-1], encoding="utf-8")
    with open_ws(root, raw_embedder) as ws:
        qvec = ws.embedder.embed_query("read settings file with comments into a dictionary")
        early = ws.code_vector_hits(qvec, 20)  # before any fill: only ids still naming the same code
        now = {i: h for i, _, h in ws.indexer.chunk_keys()}
        assert all(now[i] == before.get(i) for i, _ in early)
        assert len(early) < len(before)
        embedded, now_total = ws.code_vector_state()
        assert embedded < now_total  # the old vectors' content hashes no longer match their ids
        ws.embed_chunks()
        assert ws.code_vector_state() == (now_total, now_total)
        qvec = ws.embedder.embed_query("read settings file with comments into a dictionary")
        assert symbols_of(ws, [i for i, _ in ws.code_vector_hits(qvec, 1)]) == ["net/upload.py::parse_config"]
    assert total > 0


def test_pruning_keeps_what_chunks_and_memories_use_and_drops_the_rest(ws: Workspace) -> None:
    ws.embed_chunks()
    ws.remember("retry_upload must back off or the storage service bans us", type="gotcha", file="net/upload.py")
    path = ws.root / "net/upload.py"
    path.write_text(UPLOAD.replace("backoff(attempt)", "backoff(attempt + 1)"), encoding="utf-8")
    ws.reindex(["net/upload.py"])
    ws.embed_chunks()  # the old text of retry_upload is now in the cache but used by nothing
    assert isinstance(ws.embedder, CachedEmbedder)
    cache = ws.embedder.cache
    cache.put_many("an-old-model", [(b"x" * 32, ws.embedder.embed_query("old"))])
    used = ws.code_vector_state()[1] + 1  # every current chunk's text, and the memory's
    before = cache.count()
    assert before >= used + 2

    soon = ws.prune_embedding_cache()  # nothing is old enough yet: marks only
    assert soon is not None and soon.deleted == 0 and soon.kept == used

    later = ws.prune_embedding_cache(now=time.time() + 40 * DAY)  # a month on: unused entries went
    assert later is not None and later.kept == used and later.deleted == before - used
    assert cache.count() == used and cache.count("an-old-model") == 0
    assert later.bytes > 0

    misses = cache.stats.misses  # what is current still comes from the cache
    ws.code_vectors.index.reconcile({})  # type: ignore[union-attr]
    ws.embed_chunks()
    assert cache.stats.misses == misses


def test_text_embedded_carries_context_and_fits_one_window(raw_embedder: Any) -> None:
    text = embed_text("pkg/mod.py", "Thing.run", "def run(self, a, b):", "        return a + b")
    assert text.splitlines()[:3] == ["pkg/mod.py", "Thing.run", "def run(self, a, b):"]
    whole = embed_text("pkg/mod.py", "Thing.run", "def run(self, a, b):", "def run(self, a, b):\n    return a")
    assert whole.count("def run") == 1  # the code starts with its signature: not said twice
    long = embed_text("m.py", "f", "def f():", "def f():\n" + "    x = compute_value(x)\n" * 400)
    cut = fit_to_tokens(long, raw_embedder.count_tokens, CODE_TEXT_MAX_TOKENS)
    assert raw_embedder.count_tokens(cut) <= CODE_TEXT_MAX_TOKENS < raw_embedder.count_tokens(long)
    assert cut.startswith("m.py\nf\ndef f():") and len(cut) > len(long) // 20


def test_without_an_embedder_there_are_no_code_vectors(tmp_path: Path) -> None:
    with Workspace.open(make_root(tmp_path), embedder=None) as ws:
        ws.reindex()
        assert ws.embed_chunks() == 0
        assert ws.code_vector_state()[0] == 0 and ws.code_vector_state()[1] > 0
        assert ws.code_vector_hits(np.ones(384, dtype=np.float32), 5) == []
        assert ws.prune_embedding_cache() is None


def test_copies_of_a_workspace_share_cache_entries(tmp_path: Path, raw_embedder: Any) -> None:
    first = make_root(tmp_path / "a")
    second = tmp_path / "b" / "ws"
    shutil.copytree(first, second)
    with open_ws(first, raw_embedder) as ws:
        ws.embed_chunks()
    with open_ws(second, raw_embedder) as ws:
        ws.embed_chunks()
        assert ws.code_vectors is not None and ws.code_vectors.last_run.embedded == 0  # same paths, same texts
        report = ws.prune_embedding_cache(now=time.time() + 40 * DAY)
        assert report is not None and report.deleted == 0  # the other copy's entries are the same ones


def test_index_reuses_deleted_slots_compacts_and_survives_a_reload(tmp_path: Path) -> None:
    from forewarn.workspace.code_vectors import COMPACT_MIN_DELETED, ChunkKey, CodeVectorIndex

    rng = np.random.default_rng(7)
    n = 3 * COMPACT_MIN_DELETED
    mat = rng.normal(size=(n, 16)).astype(np.float32)
    mat /= np.linalg.norm(mat, axis=1, keepdims=True)
    index = CodeVectorIndex(tmp_path, "m", 16)
    ids = list(range(1, n + 1))
    index.add(ids, [ChunkKey(f"h{i}", bytes(32)) for i in ids], mat)
    assert index.reconcile({i: f"h{i}" for i in ids}) == []

    keep = {i: f"h{i}" for i in ids[:100]}  # most chunks gone: more deleted slots than live ones
    assert index.reconcile(keep) == []
    assert len(index) == 100 and index.info()["deleted_slots"] == 0  # compacted
    assert index.query(mat[5], 1) == [(6, pytest.approx(1.0, abs=1e-4))]
    assert all(i in keep for i, _ in index.query(mat[500], 20))

    index.reconcile({**keep, 1: "changed"})  # another chunk under a known id: its vector goes
    index.add([n + 1], [ChunkKey("new", bytes(32))], mat[700:701])  # reuses the freed slot
    index.save()
    again = CodeVectorIndex(tmp_path, "m", 16)
    assert again.loaded and len(again) == 100
    assert again.query(mat[700], 1)[0][0] == n + 1
    assert CodeVectorIndex(tmp_path, "another-model", 16).loaded is False


@pytest.mark.parametrize(("given", "expected"), [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_llama_cpp_threads_sleep_when_idle_unless_the_user_says_otherwise(given: str | None, expected: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if given is not None:
        env["OMP_WAIT_POLICY"] = given
    code = "import os; from forewarn.memory.embedder import _llama; _llama(); print(os.environ['OMP_WAIT_POLICY'])"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected
