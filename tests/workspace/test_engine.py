"""The engine with the real embedder: hybrid search, merge vs conflicts, the vector index
rebuilt and caught up from SQLite, and the lexical fallback when no model is available."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from forewarn.config import EmbedderSettings, Settings
from forewarn.memory.text import from_iso, to_iso
from forewarn.workspace.engine import Workspace


@pytest.fixture(scope="module")
def embedder(raw_embedder: Any) -> Any:
    return raw_embedder  # the real model, loaded once for the module (tests/conftest.py)


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "net").mkdir(parents=True)
    (root / "net/http.py").write_text(
        "def fetch(url, timeout=5):\n    return url\n\n\ndef post(url, body):\n    return body\n", encoding="utf-8"
    )
    return root


@pytest.fixture
def engine(tmp_path: Path, embedder: Any) -> Iterator[Workspace]:
    eng = Workspace.open(workspace(tmp_path), embedder=embedder)
    eng.reindex()
    yield eng
    eng.close()


def test_hybrid_search_finds_a_paraphrase_words_alone_miss(engine: Workspace) -> None:
    target = engine.remember("fetch hangs forever when the server never answers; always pass a timeout", type="gotcha")
    engine.remember("the logo must be the SVG version in dark mode", type="convention")
    engine.remember("we chose Postgres over MySQL for JSON support", type="decision")
    query = "request gets stuck waiting on an unresponsive host"
    lexical = engine.search(query, lexical_only=True)
    assert target.memory.id not in [h.memory.id for h in lexical.memories]
    hybrid = engine.search(query)
    assert hybrid.mode == "hybrid" and hybrid.reason is None
    assert hybrid.memories[0].memory.id == target.memory.id
    assert hybrid.memories[0].vector_rank == 1


def test_restatement_merges_and_close_meaning_becomes_a_candidate(engine: Workspace) -> None:
    first = engine.remember(
        "post retries on 502 and can send the body twice", type="gotcha", file="net/http.py", symbol="post"
    )
    again = engine.remember(
        "post retries on 502 and can send the body twice!", type="gotcha", file="net/http.py", symbol="post"
    )
    assert again.merged and again.memory.id == first.memory.id
    assert again.memory.access_count == 1 and again.memory.confidence == 1.0
    assert [e.kind for e in engine.store.events(first.memory.id)] == ["created", "merged"]
    related = engine.remember(
        "post() retries on HTTP 502 and may send the body twice", type="gotcha", file="net/http.py", symbol="post"
    )
    assert not related.merged
    assert related.candidates == [] and related.conflicts == []  # close in meaning, but it contradicts nothing
    denial = engine.remember(
        "post no longer retries on 502, so the body is sent once", type="gotcha", file="net/http.py", symbol="post"
    )
    assert first.memory.id in [c.memory.id for c in denial.conflicts]
    assert [c.id for c in denial.candidates] == [c.memory.id for c in denial.conflicts]
    assert all(c.cosine is not None for c in denial.conflicts)  # hybrid: the vectors were read too
    elsewhere = engine.remember(
        "post retries on 502 and can send the body twice", type="gotcha", file="net/http.py", symbol="fetch"
    )
    assert not elsewhere.merged and elsewhere.candidates == []  # same words, another place: not the same lesson
    assert engine.store.count() == 4


def test_old_perfect_match_outranks_recent_weak_ones_in_hybrid_mode(tmp_path: Path, embedder: Any) -> None:
    class Clock:
        now = from_iso("2024-01-01T00:00:00Z")

        def __call__(self) -> float:
            return self.now

    clock = Clock()
    with Workspace.open(workspace(tmp_path), embedder=embedder, clock=clock) as engine:
        old = engine.remember("the nightly export job times out when the S3 bucket has versioning enabled").memory
        clock.now += 730 * 86400
        for text in (
            "S3 credentials rotate every 90 days",
            "the export button is hidden for guests",
            "nightly builds are published at 02:00",
            "bucket names must be lowercase",
        ):
            engine.remember(text)
        hits = engine.search("why does the nightly export time out with versioned S3 buckets").memories
        assert hits[0].memory.id == old.id
        assert (
            engine.search("nightly export S3 versioning", as_of=to_iso(from_iso(old.created_at) + 1))
            .memories[0]
            .memory.id
            == old.id
        )


def test_vector_index_is_rebuilt_or_caught_up_from_sqlite(tmp_path: Path, embedder: Any) -> None:
    root = workspace(tmp_path)
    with Workspace.open(root, embedder=embedder) as engine:
        facts = [
            "the cache layer evicts entries after ten minutes",
            "invoices are rendered to PDF by a separate worker",
            "feature flags are read once at startup",
            "the search index is rebuilt every Sunday night",
            "uploads larger than 2 GB go through the multipart API",
        ]
        ids = [engine.remember(f).memory.id for f in facts]
        assert engine.vectors is not None
        hnsw, meta = engine.vectors.path, engine.vectors.meta_path
        query = engine.embedder.embed_query("how long do cached entries live")
        expected = engine.vectors.query(query, 3)
    assert hnsw.exists() and meta.exists()
    hnsw.unlink()
    with Workspace.open(root, embedder=embedder) as engine:
        assert engine.vectors is not None and engine.vectors.rebuilt and len(engine.vectors) == 5
        assert engine.vectors.query(query, 3) == expected
    hnsw.write_bytes(b"\x00garbage" * 64)
    with Workspace.open(root, embedder=embedder) as engine:
        assert engine.vectors is not None and engine.vectors.rebuilt and len(engine.vectors) == 5
    # another process adds a memory while this one is open: the next search sees it
    with Workspace.open(root, embedder=embedder) as first, Workspace.open(root, embedder=embedder) as second:
        assert first.vectors is not None and not first.vectors.rebuilt
        added = second.remember("a brand new fact about websocket reconnects").memory
        hits = first.search("websocket reconnect", k=3).memories
        assert hits[0].memory.id == added.id
        assert len(first.vectors) == 6
    assert len(ids) == 5


def test_memories_written_without_a_model_are_embedded_later(tmp_path: Path, embedder: Any) -> None:
    root = workspace(tmp_path)
    with Workspace.open(root, embedder=None) as lexical:
        m = lexical.remember("database connections must be closed in the finally block").memory
    with Workspace.open(root, embedder=embedder) as engine:
        assert engine.vectors is not None and len(engine.vectors) == 1
        vec = engine.vectors.vectors([m.num])[m.num]
        assert np.isclose(np.linalg.norm(vec), 1.0, atol=1e-3)
        assert engine.search("leaking database connections").memories[0].memory.id == m.id


def test_missing_model_means_lexical_mode_with_the_reason(tmp_path: Path) -> None:
    settings = Settings(embedder=EmbedderSettings(model="no-such-model"))
    with Workspace.open(workspace(tmp_path), settings) as engine:
        assert engine.mode == "lexical"
        assert engine.embedder_problem is not None and "no-such-model" in engine.embedder_problem
        engine.remember("lexical mode still stores and finds memories")
        result = engine.search("finds memories")
        assert result.mode == "lexical" and "no-such-model" in (result.reason or "")
        assert len(result.memories) == 1
