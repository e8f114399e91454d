"""The SQLite embedding cache in front of the real embedder."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from forewarn import paths
from forewarn.config import EmbedderSettings
from forewarn.memory import model_install
from forewarn.memory.embed_cache import CACHE_FILE, CachedEmbedder, EmbeddingCache, open_cached_embedder
from forewarn.memory.embedder import Embedder, open_embedder

TEXTS = ["def load_settings(path):\n    return parse(path.read_text())", "useTerminalStore", "café crème ☕"]


class CountingEmbedder:
    """The real embedder, counting the texts that reach llama.cpp (the cache's whole point is to avoid them)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.device = inner.device
        self.n_ctx = inner.n_ctx
        self.embedded: list[str] = []

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        return self.inner.embed_texts(texts)

    def document_input(self, text: str) -> str:
        return self.inner.document_input(text)

    def query_input(self, text: str) -> str:
        return self.inner.query_input(text)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def info(self) -> dict[str, Any]:
        return self.inner.info()

    def close(self) -> None:
        self.inner.close()


def require_model() -> None:
    if model_install.installed_manifest(verify=False) is None:
        pytest.fail(f"the embedding model is not installed in {paths.models_dir()}: run `make model`")


@pytest.fixture()
def counting() -> Iterator[CountingEmbedder]:
    require_model()
    emb = CountingEmbedder(open_embedder(EmbedderSettings()))
    yield emb
    emb.close()


def test_cache_hit_avoids_recompute(counting: CountingEmbedder) -> None:
    cached = CachedEmbedder(counting)
    first = cached.embed_documents(TEXTS)
    assert counting.embedded == TEXTS
    again = cached.embed_documents(TEXTS)
    assert counting.embedded == TEXTS  # nothing new reached llama.cpp
    np.testing.assert_array_equal(first, again)
    assert cached.cache.stats.hits == 3 and cached.cache.stats.misses == 3
    # a mix: only the new text is embedded, and results come back in the caller's order
    mixed = cached.embed_documents([TEXTS[2], "a new chunk", TEXTS[0]])
    assert counting.embedded == [*TEXTS, "a new chunk"]
    np.testing.assert_array_equal(mixed[0], first[2])
    np.testing.assert_array_equal(mixed[2], first[0])
    assert cached.cache.path == paths.cache_dir() / CACHE_FILE


def test_cache_persists_across_instances(counting: CountingEmbedder) -> None:
    first = CachedEmbedder(counting).embed_documents(TEXTS)
    counting.embedded.clear()
    reopened = CachedEmbedder(counting, EmbeddingCache())
    np.testing.assert_array_equal(reopened.embed_documents(TEXTS), first)
    assert counting.embedded == []


def test_duplicates_in_one_call_are_embedded_once(counting: CountingEmbedder) -> None:
    cached = CachedEmbedder(counting)
    out = cached.embed_documents([TEXTS[0], TEXTS[1], TEXTS[0]])
    assert counting.embedded == [TEXTS[0], TEXTS[1]]
    np.testing.assert_array_equal(out[0], out[2])


def test_model_change_uses_a_different_key(counting: CountingEmbedder) -> None:
    cache = EmbeddingCache()
    CachedEmbedder(counting, cache).embed_documents(TEXTS)
    with open_embedder(EmbedderSettings(dimensions=128)) as small:
        other = CountingEmbedder(small)
        vectors = CachedEmbedder(other, cache).embed_documents(TEXTS)
        assert other.embedded == TEXTS  # another vector space: re-embedded, never served 384-d vectors
        assert vectors.shape == (3, 128)
    assert cache.count(counting.model_id) == 3
    assert cache.count(counting.model_id + "+dim=128") == 3


def test_prefix_is_part_of_the_key() -> None:
    require_model()
    settings = EmbedderSettings(query_prefix="search_query: ", document_prefix="search_document: ")
    with open_cached_embedder(settings) as cached:
        inner = cached.embedder
        assert isinstance(inner, Embedder)
        q = cached.embed_query("csrf check")
        d = cached.embed_documents(["csrf check"])[0]
        assert cached.cache.count(cached.model_id) == 2
        np.testing.assert_allclose(q, inner.embed_query("csrf check"), atol=1e-6)
        np.testing.assert_allclose(d, inner.embed_documents(["csrf check"])[0], atol=1e-6)


def test_corrupt_cache_is_logged_and_rebuilt(counting: CountingEmbedder, caplog: pytest.LogCaptureFixture) -> None:
    path = paths.cache_dir() / CACHE_FILE
    path.write_bytes(b"this is not an SQLite database at all" * 200)
    with caplog.at_level(logging.WARNING, logger="forewarn.memory.embed_cache"):
        cached = CachedEmbedder(counting, EmbeddingCache(path))
    assert cached.cache.stats.rebuilds == 1
    assert any("rebuilding" in r.getMessage() for r in caplog.records)
    cached.embed_documents(TEXTS)
    assert cached.cache.count() == 3
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] == 3


def test_damaged_rows_are_misses(counting: CountingEmbedder, tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "e.db")
    cached = CachedEmbedder(counting, cache)
    cached.embed_documents(TEXTS[:1])
    with sqlite3.connect(tmp_path / "e.db") as conn:
        conn.execute("UPDATE embeddings SET vector = x'00010203'")
    counting.embedded.clear()
    out = cached.embed_documents(TEXTS[:1])
    assert counting.embedded == TEXTS[:1]
    assert abs(float(np.linalg.norm(out[0])) - 1.0) < 1e-5


def test_an_older_cache_is_migrated_and_an_entry_costs_about_its_vector(tmp_path: Path) -> None:
    from forewarn.memory.embed_cache import MIGRATIONS, text_key
    from forewarn.sqlite import connect, migrate

    path = tmp_path / "old.db"
    conn = connect(path)
    migrate(conn, MIGRATIONS[:1], what="embedding cache")  # as the first release wrote it (WITHOUT ROWID)
    old = np.arange(384, dtype="<f4")
    conn.execute("INSERT INTO embeddings (model_id, text_sha256, dim, vector) VALUES ('m', ?, 384, ?)",
                 (text_key("kept"), old.tobytes()))  # fmt: skip
    conn.commit()
    conn.close()
    cache = EmbeddingCache(path)
    assert np.array_equal(cache.get_many("m", [text_key("kept")], 384)[text_key("kept")], old)

    rng = np.random.default_rng(3)
    cache.put_many("m", [(text_key(f"t{i}"), rng.normal(size=384).astype(np.float32)) for i in range(2000)])
    cache.close()  # checkpoints the WAL into the file
    per_entry = path.stat().st_size / 2001
    assert per_entry < 2.2 * 384 * 4  # two rows to a 4 KB page; the old layout took ~4.7 KB (an overflow page each)
