"""An embedding cache in SQLite, so unchanged chunks and memories are never embedded twice.

Rows are keyed by (model id, sha256 of the exact input text, prefix included): a model change
(another file, another pooling or dimension) gives another model id, so it re-embeds instead of
mixing vector spaces. The cache is rebuildable: a corrupt file is logged, deleted and recreated.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from forewarn import paths
from forewarn.config import EmbedderSettings
from forewarn.memory.embedder import open_embedder
from forewarn.sqlite import Migration, SchemaTooNewError, connect, migrate, transaction

log = logging.getLogger(__name__)

CACHE_FILE = "embeddings.db"
SQL_VARIABLES_PER_QUERY = 500  # well under SQLite's 999 bound-parameter limit of older builds

MIGRATIONS = [
    Migration(
        "m001_embeddings",
        """
        CREATE TABLE embeddings (
            model_id TEXT NOT NULL,
            text_sha256 BLOB NOT NULL,
            dim INTEGER NOT NULL,
            vector BLOB NOT NULL,
            created_at TEXT NOT NULL DEFAULT (datetime('now')),
            PRIMARY KEY (model_id, text_sha256)
        ) WITHOUT ROWID;
        """,
    ),
    # when a workspace's prune last found the entry in use (NULL: never; created_at counts instead)
    Migration("m002_used_at", "ALTER TABLE embeddings ADD COLUMN used_at TEXT;"),
    # a rowid table: a 1.6 KB row (384 float32s) fits in a 4 KB table page, two to a page, where the
    # WITHOUT ROWID b-tree spilled every row past ~1 KB to an overflow page (4.7 KB per entry measured)
    Migration(
        "m003_rowid_table",
        """
        CREATE TABLE embeddings_v3 (
            id INTEGER PRIMARY KEY,
            model_id TEXT NOT NULL,
            text_sha256 BLOB NOT NULL,
            dim INTEGER NOT NULL,
            created_at TEXT NOT NULL DEFAULT (datetime('now')),
            used_at TEXT,
            vector BLOB NOT NULL,
            UNIQUE (model_id, text_sha256)
        );
        INSERT INTO embeddings_v3 (model_id, text_sha256, dim, created_at, used_at, vector)
            SELECT model_id, text_sha256, dim, created_at, used_at, vector FROM embeddings;
        DROP TABLE embeddings;
        ALTER TABLE embeddings_v3 RENAME TO embeddings;
        """,
    ),
]
UNUSED_DAYS = 30  # an entry no workspace's prune has found in use this long goes (old texts, old model ids)
PRUNE_MAX_ROWS = 200_000  # rows deleted per prune: bounded work; the rest go next time
SECONDS_PER_DAY = 86_400


class EmbedderLike(Protocol):
    model_id: str
    dim: int
    device: str
    n_ctx: int

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray: ...
    def document_input(self, text: str) -> str: ...
    def query_input(self, text: str) -> str: ...
    def count_tokens(self, text: str) -> int: ...
    def info(self) -> dict[str, Any]: ...
    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class PruneReport:
    kept: int  # entries found in use now
    deleted: int
    remaining: int  # entries left, all models
    bytes: int  # the cache file's size after pruning (WAL included)

    def to_dict(self) -> dict[str, int]:
        return {"kept": self.kept, "deleted": self.deleted, "remaining": self.remaining, "bytes": self.bytes}


def _sql_time(at: float) -> str:
    """``at`` in SQLite's ``datetime('now')`` format, so stored times compare as text."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(at))


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    rebuilds: int = 0


class EmbeddingCache:
    """The SQLite store behind ``CachedEmbedder``. Thread-safe; degrades to no caching rather than failing."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else paths.cache_dir() / CACHE_FILE
        self.stats = CacheStats()
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._open()

    def _open(self) -> None:
        try:
            self._conn = self._connect()
        except SchemaTooNewError as exc:
            # a newer Forewarn owns this cache: leave it alone and run without one
            log.warning("embedding cache disabled: %s", exc)
            self._conn = None
        except sqlite3.DatabaseError as exc:
            self._rebuild(exc)

    def _connect(self) -> sqlite3.Connection:
        conn = connect(self.path)
        try:
            migrate(conn, MIGRATIONS, what="embedding cache")
            conn.execute("SELECT 1 FROM embeddings LIMIT 1").fetchall()
        except BaseException:
            conn.close()
            raise
        return conn

    def _rebuild(self, error: Exception) -> None:
        """The cache is only a cache: a damaged one is deleted and started afresh, and we say so."""
        log.warning("embedding cache %s is unreadable (%s); rebuilding it", self.path, error)
        self.stats.rebuilds += 1
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None
        for suffix in ("", "-wal", "-shm"):
            Path(str(self.path) + suffix).unlink(missing_ok=True)
        try:
            self._conn = self._connect()
        except (sqlite3.Error, SchemaTooNewError) as exc:
            log.warning("embedding cache disabled: cannot recreate %s (%s)", self.path, exc)
            self._conn = None

    def get_many(self, model_id: str, keys: Sequence[bytes], dim: int) -> dict[bytes, np.ndarray]:
        with self._lock:
            try:
                return self._get_many(model_id, keys, dim)
            except sqlite3.DatabaseError as exc:
                self._rebuild(exc)
                return {}

    def _get_many(self, model_id: str, keys: Sequence[bytes], dim: int) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        if self._conn is None:
            return found
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), SQL_VARIABLES_PER_QUERY):
            part = unique[start : start + SQL_VARIABLES_PER_QUERY]
            marks = ",".join("?" * len(part))
            rows = self._conn.execute(
                f"""
                SELECT text_sha256, dim, vector FROM embeddings
                WHERE model_id = ? AND text_sha256 IN ({marks})
                """,
                (model_id, *part),
            ).fetchall()
            for key, row_dim, blob in rows:
                if row_dim == dim and len(blob) == 4 * dim:  # a short blob is damage: treat it as a miss
                    found[bytes(key)] = np.frombuffer(blob, dtype="<f4").astype(np.float32)
        return found

    def put_many(self, model_id: str, items: Sequence[tuple[bytes, np.ndarray]]) -> None:
        if not items:
            return
        with self._lock:
            if self._conn is None:
                return
            rows = [(model_id, key, int(vec.shape[0]), np.asarray(vec, dtype="<f4").tobytes()) for key, vec in items]
            try:
                with transaction(self._conn):
                    self._conn.executemany(
                        """
                        INSERT OR REPLACE INTO embeddings (model_id, text_sha256, dim, vector)
                        VALUES (?, ?, ?, ?)
                        """,
                        rows,
                    )
            except sqlite3.DatabaseError as exc:
                self._rebuild(exc)

    def count(self, model_id: str | None = None) -> int:
        with self._lock:
            if self._conn is None:
                return 0
            if model_id is None:
                return int(self._conn.execute("SELECT count(*) FROM embeddings").fetchone()[0])
            return int(
                self._conn.execute("SELECT count(*) FROM embeddings WHERE model_id = ?", (model_id,)).fetchone()[0]
            )

    def prune(
        self,
        model_id: str,
        in_use: Iterable[bytes],
        *,
        unused_days: float = UNUSED_DAYS,
        now: float | None = None,
        max_rows: int = PRUNE_MAX_ROWS,
    ) -> PruneReport:
        """Mark ``in_use`` (this workspace's current chunks and memories) as used now, then delete entries
        of any model that no prune has found in use for ``unused_days``.

        The cache is shared by every workspace of this user, so an entry is never deleted just because
        this workspace stopped using it: another workspace (a second checkout of the same project) may
        use it and mark it on its own prunes. Old texts and old model ids are never marked again, so
        they go once the grace period passes.
        """
        at = time.time() if now is None else now
        keys = list(dict.fromkeys(in_use))
        with self._lock:
            if self._conn is None:
                return PruneReport(0, 0, 0, self._size())
            try:
                with transaction(self._conn):
                    stamp = _sql_time(at)
                    for start in range(0, len(keys), SQL_VARIABLES_PER_QUERY):
                        part = keys[start : start + SQL_VARIABLES_PER_QUERY]
                        self._conn.execute(
                            f"""
                            UPDATE embeddings SET used_at = ?
                            WHERE model_id = ? AND text_sha256 IN ({",".join("?" * len(part))})
                            """,
                            (stamp, model_id, *part),
                        )
                    deleted = self._conn.execute(
                        """
                        DELETE FROM embeddings WHERE id IN (
                            SELECT id FROM embeddings WHERE coalesce(used_at, created_at) < ? LIMIT ?)
                        """,
                        (_sql_time(at - unused_days * SECONDS_PER_DAY), max_rows),
                    ).rowcount
                kept = self._conn.execute(
                    "SELECT count(*) FROM embeddings WHERE model_id = ? AND used_at = ?", (model_id, stamp)
                ).fetchone()[0]
                remaining = self._conn.execute("SELECT count(*) FROM embeddings").fetchone()[0]
                if deleted:
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.DatabaseError as exc:
                self._rebuild(exc)
                return PruneReport(0, 0, 0, self._size())
            return PruneReport(int(kept), int(deleted), int(remaining), self._size())

    def _size(self) -> int:
        return sum(p.stat().st_size for s in ("", "-wal") if (p := Path(str(self.path) + s)).exists())

    def size(self) -> int:
        """Bytes on disk (the database and its WAL)."""
        with self._lock:
            return self._size()

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def open_cached_embedder(settings: EmbedderSettings, cache_path: Path | None = None) -> CachedEmbedder:
    """``open_embedder`` behind the SQLite cache; raises ``EmbedderUnavailable`` like it."""
    return CachedEmbedder(open_embedder(settings), EmbeddingCache(cache_path))


class CachedEmbedder:
    """An ``Embedder`` that looks each exact input up in the cache first, and embeds only the misses."""

    def __init__(self, embedder: EmbedderLike, cache: EmbeddingCache | None = None) -> None:
        self.embedder = embedder
        self.cache = cache if cache is not None else EmbeddingCache()
        self.model_id = embedder.model_id
        self.dim = embedder.dim
        self.device = embedder.device
        self.n_ctx = embedder.n_ctx

    @property
    def stats(self) -> Any:
        return getattr(self.embedder, "stats", None)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_texts([self.embedder.document_input(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_texts([self.embedder.query_input(text)])[0]

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        keys = [text_key(t) for t in texts]
        found = self.cache.get_many(self.model_id, keys, self.dim)
        missing: dict[bytes, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key not in found:
                missing.setdefault(key, text)  # the same text twice in one call is embedded once
        self.cache.stats.hits += len(texts) - sum(1 for k in keys if k not in found)
        self.cache.stats.misses += len(missing)
        if missing:
            vectors = self.embedder.embed_texts(list(missing.values()))
            fresh = dict(zip(missing.keys(), vectors, strict=True))
            self.cache.put_many(self.model_id, list(fresh.items()))
            found.update(fresh)
        for i, key in enumerate(keys):
            out[i] = found[key]
        return out

    def document_input(self, text: str) -> str:
        return self.embedder.document_input(text)

    def query_input(self, text: str) -> str:
        return self.embedder.query_input(text)

    def count_tokens(self, text: str) -> int:
        return self.embedder.count_tokens(text)

    def tokenize(self, text: str) -> list[int]:
        return list(self.embedder.tokenize(text))  # type: ignore[attr-defined]

    def info(self) -> dict[str, Any]:
        data = dict(self.embedder.info())
        data["cache"] = {
            "path": str(self.cache.path),
            "hits": self.cache.stats.hits,
            "misses": self.cache.stats.misses,
            "rebuilds": self.cache.stats.rebuilds,
        }
        return data

    def close(self) -> None:
        self.embedder.close()
        self.cache.close()

    def __enter__(self) -> CachedEmbedder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
