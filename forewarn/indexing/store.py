"""The index database: files, chunks (with full-text search), definitions, references, imports, edges.

It is a cache of what parsing the workspace yields, so it can always be rebuilt: a corrupt file is
logged, moved aside and recreated. This module is the one place that holds the index's SQL; its schema is in
``migrations.py``, the records it stores and returns in ``store_records.py``, and the words it makes of
identifiers and queries in ``words.py``.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from forewarn import sqlite
from forewarn.indexing.migrations import MIGRATIONS
from forewarn.indexing.records import Chunk, Import
from forewarn.indexing.store_records import CodeChunk, Definition, FileContent, FileRecord, IndexChanges
from forewarn.indexing.words import fts_query, fts_texts, graph_def_names, query_terms, selective_terms

log = logging.getLogger(__name__)

WHAT = "index database"
NAMES_SEPARATOR = "\t"  # between the names of one import; cheaper to split than JSON to parse
REMOVED_LOG_MAX = 20_000  # removals remembered; a reader further behind than this checks every memory instead


class IndexStore:
    """The index database of one workspace. Not thread-safe: the Indexer serialises access."""

    def __init__(self, path: Path, *, verify: bool = True) -> None:
        """Open (creating, migrating, and rebuilding if corrupt) the index at ``path``.

        ``verify=False`` is for worker processes that write into an index the Indexer has just
        opened and verified: it skips the integrity check and migrations.
        """
        self.path = Path(path)
        self.conn = self._open() if verify else self._tune(sqlite.connect(self.path))

    @staticmethod
    def _tune(conn: sqlite3.Connection) -> sqlite3.Connection:
        # a cache: an OS crash mid-write costs a rebuild (quick_check on open), so skip the syncs
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute(f"PRAGMA cache_size = -{sqlite.CACHE_KIB}")
        return conn

    def _open(self) -> sqlite3.Connection:
        try:
            conn = sqlite.connect(self.path)
            row = conn.execute("PRAGMA quick_check").fetchone()
            if row is None or row[0] != "ok":
                raise sqlite3.DatabaseError(f"quick_check: {row[0] if row else 'no answer'}")
        except sqlite3.DatabaseError as exc:
            aside = self._move_aside()
            log.warning("the %s %s is corrupt (%s); moved it to %s and rebuilding", WHAT, self.path, exc, aside)
            conn = sqlite.connect(self.path)
        sqlite.migrate(self._tune(conn), MIGRATIONS, what=WHAT)
        return conn

    def _move_aside(self) -> Path:
        aside = self.path.with_name(f"{self.path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
        os.replace(self.path, aside)
        for suffix in ("-wal", "-shm"):
            side = Path(str(self.path) + suffix)
            if side.exists():
                side.unlink()
        return aside

    def close(self) -> None:
        self.conn.close()

    # -- files ---------------------------------------------------------------------------------

    def files(self) -> dict[str, FileRecord]:
        rows = self.conn.execute(
            "SELECT rel, language, size, mtime_ns, content_hash, status, reason FROM files ORDER BY rel"
        )
        return {r[0]: FileRecord(*r) for r in rows}

    def write(self, contents: Sequence[FileContent]) -> None:
        """Store parsed files, replacing what was known about them, in one transaction.

        Rows of all the batch's files go in one ``executemany`` per table, FTS5 included (its rows hold
        each chunk's own text, :func:`fts_texts`, so the batch's chunk text is tokenized once).
        """
        with sqlite.transaction(self.conn) as conn:
            row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'chunks'").fetchone()
            last_chunk = row[0] if row else 0
            ids = [self._upsert_file(conn, content.record) for content in contents]
            self._forget_fts(conn, ids)
            for table in ("chunks", "defs", "refs", "imports"):
                conn.executemany(f"DELETE FROM {table} WHERE file_id = ?", [(i,) for i in ids])
            pairs = list(zip(ids, contents, strict=True))
            rows = []
            fts_rows: list[tuple[int, str, str | None, str]] = []
            for i, content in pairs:
                for c, words, fts_text in zip(
                    content.chunks, content.chunk_words, fts_texts(content.chunks), strict=True
                ):
                    last_chunk += 1
                    rows.append(
                        (
                            last_chunk,
                            i,
                            c.symbol,
                            c.kind,
                            c.start_line,
                            c.end_line,
                            c.start_byte,
                            c.end_byte,
                            c.signature,
                            c.content_hash,
                            c.text,
                            c.part,
                            words,
                        )
                    )
                    fts_rows.append((last_chunk, c.symbol, fts_text, words))
            conn.executemany(
                """INSERT INTO chunks (id, file_id, symbol, kind, start_line, end_line, start_byte, end_byte,
                                       signature, content_hash, text, part, words)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                rows,
            )
            conn.executemany(
                "INSERT INTO defs (file_id, name, category, line, symbol, signature) VALUES (?, ?, ?, ?, ?, ?)",
                [(i, *d) for i, content in pairs for d in content.defs],
            )
            conn.executemany(
                "INSERT INTO refs (file_id, name, count) VALUES (?, ?, ?)",
                [(i, name, n) for i, content in pairs for name, n in content.refs.items()],
            )
            conn.executemany(
                "INSERT INTO imports (file_id, spec, line, names) VALUES (?, ?, ?, ?)",
                [(i, m.spec, m.line, NAMES_SEPARATOR.join(m.names)) for i, content in pairs for m in content.imports],
            )
            # ids are given, not assigned, so each FTS row can name its chunk
            conn.executemany(
                "INSERT INTO chunks_fts(rowid, symbol, text, words) VALUES (?, ?, ?, ?)",
                [row for row in fts_rows if row[2] is not None],
            )

    def _forget_fts(self, conn: sqlite3.Connection, file_ids: Iterable[int]) -> None:
        """Delete these files' chunks from FTS (before the chunks go): a contentless table must be told
        the values it indexed, recomputed here from the stored chunks."""
        for file_id in file_ids:
            rows = conn.execute(
                """SELECT id, symbol, kind, start_line, end_line, start_byte, end_byte, signature, content_hash,
                          text, part, words FROM chunks WHERE file_id = ? ORDER BY id""",
                (file_id,),
            ).fetchall()
            if not rows:
                continue
            chunks = [Chunk(*r[1:11]) for r in rows]
            conn.executemany(
                "INSERT INTO chunks_fts(chunks_fts, rowid, symbol, text, words) VALUES ('delete', ?, ?, ?, ?)",
                [(r[0], r[1], own, r[11]) for r, own in zip(rows, fts_texts(chunks), strict=True) if own is not None],
            )

    def _upsert_file(self, conn: sqlite3.Connection, rec: FileRecord) -> int:
        row = conn.execute(
            """INSERT INTO files (rel, language, size, mtime_ns, content_hash, status, reason)
               VALUES (?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (rel) DO UPDATE SET language = excluded.language, size = excluded.size,
                   mtime_ns = excluded.mtime_ns, content_hash = excluded.content_hash,
                   status = excluded.status, reason = excluded.reason
               RETURNING id""",
            (rec.rel, rec.language, rec.size, rec.mtime_ns, rec.content_hash, rec.status, rec.reason),
        ).fetchone()
        return int(row[0])

    def touch(self, records: Iterable[FileRecord]) -> list[str]:
        """Record a new size/mtime for files whose bytes did not change; returns the files left untouched
        because their row no longer holds those bytes (another process rewrote or removed it meanwhile).

        Compare-and-set on the hash: a stat stamped on another content's row would vouch for that content
        forever after (the next run trusts the stat and skips the file).
        """
        moved: list[str] = []
        with sqlite.transaction(self.conn) as conn:
            for r in records:
                cursor = conn.execute(
                    "UPDATE files SET size = ?, mtime_ns = ? WHERE rel = ? AND content_hash = ?",
                    (r.size, r.mtime_ns, r.rel, r.content_hash),
                )
                if cursor.rowcount == 0:
                    moved.append(r.rel)
        return moved

    def record_changes(self, changed: Sequence[str], removed: Sequence[tuple[str, str | None]], *, full: bool) -> int:
        """Close a run: one new generation for its changed files and removals; ``full`` marks the index complete."""
        with sqlite.transaction(self.conn) as conn:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            gen = int(meta["generation"])
            if changed or removed:
                gen += 1
                conn.executemany("UPDATE files SET gen = ? WHERE rel = ?", [(gen, rel) for rel in changed])
                conn.executemany(
                    "INSERT INTO removed (gen, rel, renamed_to) VALUES (?, ?, ?)", [(gen, r, to) for r, to in removed]
                )
                conn.execute("UPDATE meta SET value = ? WHERE key = 'generation'", (str(gen),))
                (count,) = conn.execute("SELECT count(*) FROM removed").fetchone()
                if count > REMOVED_LOG_MAX:
                    (floor,) = conn.execute(
                        "SELECT gen FROM removed ORDER BY gen DESC LIMIT 1 OFFSET ?", (REMOVED_LOG_MAX,)
                    ).fetchone()
                    conn.execute("DELETE FROM removed WHERE gen <= ?", (floor,))
                    conn.execute("UPDATE meta SET value = ? WHERE key = 'removed_floor'", (str(floor),))
            if full:
                conn.execute("UPDATE meta SET value = '1' WHERE key = 'complete'")
        return gen

    def changes_since(self, epoch: str | None, since: int) -> IndexChanges:
        """What a reader that last saw (``epoch``, generation ``since``) has to catch up on."""
        self.conn.execute("BEGIN")  # deferred: one read snapshot (the generation and the rows agree), no write lock
        try:
            return self._changes_since(self.conn, epoch, since)
        finally:
            self.conn.execute("COMMIT")

    @staticmethod
    def _changes_since(conn: sqlite3.Connection, epoch: str | None, since: int) -> IndexChanges:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        gen, complete = int(meta["generation"]), meta["complete"] == "1"
        whole = epoch != meta["epoch"] or since < int(meta["removed_floor"]) or since > gen
        if whole:
            changed = [r[0] for r in conn.execute("SELECT rel FROM files WHERE status != 'skipped' ORDER BY rel")]
            return IndexChanges(meta["epoch"], gen, complete, True, changed, [])
        changed = [
            r[0]
            for r in conn.execute("SELECT rel FROM files WHERE gen > ? AND status != 'skipped' ORDER BY rel", (since,))
        ]
        removed = [
            (r[0], r[1])
            for r in conn.execute("SELECT rel, renamed_to FROM removed WHERE gen > ? ORDER BY gen, rowid", (since,))
        ]
        return IndexChanges(meta["epoch"], gen, complete, False, changed, removed)

    def delete(self, rels: Iterable[str]) -> None:
        with sqlite.transaction(self.conn) as conn:
            rels = list(rels)
            ids = [row[0] for rel in rels for row in conn.execute("SELECT id FROM files WHERE rel = ?", (rel,))]
            self._forget_fts(conn, ids)
            conn.executemany("DELETE FROM files WHERE rel = ?", [(rel,) for rel in rels])

    # -- imports and edges ---------------------------------------------------------------------

    def imports(self, rels: Iterable[str] | None = None) -> dict[str, tuple[str, list[Import]]]:
        """rel -> (language, imports) for ``rels`` (all files when None)."""
        sql = """SELECT f.rel, f.language, i.spec, i.line, i.names FROM imports i JOIN files f ON f.id = i.file_id"""
        out: dict[str, tuple[str, list[Import]]] = {}
        if rels is None:
            rows: Iterable[sqlite3.Row] = self.conn.execute(sql + " ORDER BY i.rowid")
        else:
            rows = [r for rel in rels for r in self.conn.execute(sql + " WHERE f.rel = ? ORDER BY i.rowid", (rel,))]
        for rel, language, spec, line, names in rows:
            parsed = tuple(names.split(NAMES_SEPARATOR)) if names else ()
            out.setdefault(rel, (language, []))[1].append(Import(spec, line, parsed))
        return out

    def set_edges(self, edges: dict[str, set[str]], *, replace_all: bool) -> None:
        """Store resolved import edges for the sources in ``edges`` (for every file when ``replace_all``)."""
        pairs = [(src, dst) for src, dsts in edges.items() for dst in dsts]
        with sqlite.transaction(self.conn) as conn:
            if replace_all:
                conn.execute("DELETE FROM edges")
            else:
                conn.executemany(
                    "DELETE FROM edges WHERE src_id = (SELECT id FROM files WHERE rel = ?)", [(s,) for s in edges]
                )
            conn.executemany(
                """INSERT OR IGNORE INTO edges (src_id, dst_id)
                   SELECT s.id, d.id FROM files s, files d WHERE s.rel = ? AND d.rel = ?""",
                pairs,
            )

    def edges(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        rows = self.conn.execute(
            "SELECT s.rel, d.rel FROM edges e JOIN files s ON s.id = e.src_id JOIN files d ON d.id = e.dst_id"
        )
        for src, dst in rows:
            out.setdefault(src, set()).add(dst)
        return out

    # -- what the graph is built from ----------------------------------------------------------

    def def_names(self) -> dict[str, list[str]]:
        """rel -> names it defines for the rest of the code (once each; see :func:`graph_def_names`)."""
        by_file: dict[str, list[tuple[str, str, str]]] = {}
        rows = self.conn.execute(
            "SELECT f.rel, d.name, d.category, d.symbol FROM defs d JOIN files f ON f.id = d.file_id"
        )
        for rel, name, category, symbol in rows:
            by_file.setdefault(rel, []).append((name, category, symbol))
        return {rel: graph_def_names(defs) for rel, defs in by_file.items()}

    def ref_counts(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        rows = self.conn.execute("SELECT f.rel, r.name, r.count FROM refs r JOIN files f ON f.id = r.file_id")
        for rel, name, count in rows:
            out.setdefault(rel, {})[name] = count
        return out

    def definitions_in(self, rel: str) -> list[Definition]:
        rows = self.conn.execute(
            """SELECT f.rel, d.name, d.category, d.line, d.symbol, d.signature
               FROM defs d JOIN files f ON f.id = d.file_id WHERE f.rel = ? ORDER BY d.line""",
            (rel,),
        )
        return [Definition(*r) for r in rows]

    def definitions_named(self, name: str) -> list[Definition]:
        rows = self.conn.execute(
            """SELECT f.rel, d.name, d.category, d.line, d.symbol, d.signature
               FROM defs d JOIN files f ON f.id = d.file_id WHERE d.name = ? ORDER BY f.rel, d.line""",
            (name,),
        )
        return [Definition(*r) for r in rows]

    # -- chunks --------------------------------------------------------------------------------

    _CHUNK_COLUMNS = """c.id, f.rel, c.symbol, c.kind, c.start_line, c.end_line, c.start_byte, c.end_byte,
                        c.signature, c.content_hash, c.text, c.part"""

    def chunks_for(self, rel: str) -> list[CodeChunk]:
        rows = self.conn.execute(
            f"""SELECT {self._CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.id = c.file_id
                WHERE f.rel = ? ORDER BY c.start_line, c.part""",
            (rel,),
        )
        return [CodeChunk(*r) for r in rows]

    def chunk_at(self, rel: str, line: int) -> CodeChunk | None:
        """The innermost chunk whose span holds ``line`` (1-based)."""
        row = self.conn.execute(
            f"""SELECT {self._CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.id = c.file_id
                WHERE f.rel = ? AND c.start_line <= ? AND c.end_line >= ?
                ORDER BY c.end_line - c.start_line, c.start_line DESC LIMIT 1""",
            (rel, line, line),
        ).fetchone()
        return CodeChunk(*row) if row else None

    def chunk_spans(self, rel: str) -> list[tuple[str, str, int, int]]:
        """(symbol, kind, start_line, end_line) of ``rel``'s whole chunks in line order, without their text
        (a position lookup needs only where definitions start and end)."""
        rows = self.conn.execute(
            """SELECT c.symbol, c.kind, c.start_line, c.end_line FROM chunks c JOIN files f ON f.id = c.file_id
               WHERE f.rel = ? AND c.part = 0 ORDER BY c.start_line, c.end_line DESC""",
            (rel,),
        )
        return [(str(r[0]), str(r[1]), int(r[2]), int(r[3])) for r in rows]

    def chunks_by_ids(self, ids: Sequence[int]) -> dict[int, CodeChunk]:
        """The current chunks among ``ids`` (a chunk replaced by a re-index is gone), by id."""
        out: dict[int, CodeChunk] = {}
        unique = list(dict.fromkeys(ids))
        for at in range(0, len(unique), 500):  # well under SQLite's bound-parameter limit
            part = unique[at : at + 500]
            rows = self.conn.execute(
                f"""SELECT {self._CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.id = c.file_id
                    WHERE c.id IN ({",".join("?" * len(part))})""",
                part,
            )
            out.update((r[0], CodeChunk(*r)) for r in rows)
        return out

    def chunk_keys(self) -> list[tuple[int, str, str]]:
        """(id, file, content hash) of every chunk carrying its own text, file by file.

        A split definition's whole ``part=0`` chunk is left out: its parts carry the text (as in FTS).
        """
        rows = self.conn.execute(
            """SELECT c.id, f.rel, c.content_hash FROM chunks c JOIN files f ON f.id = c.file_id
               WHERE c.part > 0 OR NOT EXISTS (
                   SELECT 1 FROM chunks d WHERE d.file_id = c.file_id AND d.symbol = c.symbol AND d.part > 0)
               ORDER BY c.file_id, c.id"""
        )
        return [(int(r[0]), str(r[1]), str(r[2])) for r in rows]

    def chunk_by_symbol(self, rel: str, symbol: str) -> CodeChunk | None:
        """The chunk for ``symbol`` in ``rel`` (its first part when the definition was split)."""
        row = self.conn.execute(
            f"""SELECT {self._CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.id = c.file_id
                WHERE f.rel = ? AND c.symbol = ? ORDER BY c.part LIMIT 1""",
            (rel, symbol),
        ).fetchone()
        return CodeChunk(*row) if row else None

    def search_chunks(self, text: str, limit: int = 20) -> list[tuple[CodeChunk, float]]:
        """Chunks matching free text, best first, with their bm25 score (higher is better).

        Only the query's rarer terms are matched (:func:`selective_terms`): a common word adds
        thousands of chunks to score and next to nothing to the ranking (bm25 weighs it near zero).
        """
        terms = query_terms(text)
        if not terms:
            return []
        doc_freqs = {term: self._doc_freq(term) for term in terms}
        query = fts_query(selective_terms(doc_freqs))
        if not query:
            return []
        rows = self.conn.execute(
            f"""SELECT {self._CHUNK_COLUMNS}, -hit.rank AS score
                FROM (SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?) hit
                JOIN chunks c ON c.id = hit.rowid JOIN files f ON f.id = c.file_id
                ORDER BY hit.rank""",
            (query, limit),
        )
        return [(CodeChunk(*r[:-1]), float(r[-1])) for r in rows]

    def _doc_freq(self, term: str) -> int:
        """How many chunks hold ``term`` (a phrase: at most as many as its rarest word); a term the
        tokenizer would fold (diacritics) counts as rare."""
        if " " in term:
            return min(self._doc_freq(word) for word in term.split())
        if not term.isascii():
            return 1
        row = self.conn.execute("SELECT doc FROM chunks_fts_terms WHERE term = ?", (term,)).fetchone()
        return int(row[0]) if row else 0

    def counts(self) -> dict[str, int]:
        one = self.conn.execute
        return {
            "files": one("SELECT count(*) FROM files WHERE status != 'skipped'").fetchone()[0],
            "chunks": one("SELECT count(*) FROM chunks").fetchone()[0],
            "definitions": one("SELECT count(*) FROM defs").fetchone()[0],
            "edges": one("SELECT count(*) FROM edges").fetchone()[0],
        }

    def with_syntax_errors(self) -> list[str]:
        """The files the parser had to recover in (macros, syntax its grammar lacks), by path: their definitions
        may be incomplete."""
        return [r[0] for r in self.conn.execute("SELECT rel FROM files WHERE status = 'errors' ORDER BY rel")]

    def languages(self) -> dict[str, int]:
        rows = self.conn.execute(
            "SELECT language, count(*) FROM files WHERE status != 'skipped' GROUP BY language ORDER BY 2 DESC"
        )
        return {r[0]: r[1] for r in rows}
