"""The index database: files, chunks (with full-text search), definitions, references, imports, edges.

It is a cache of what parsing the workspace yields, so it can always be rebuilt: a corrupt file is
logged, moved aside and recreated. This module is the one place that holds the index's SQL.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import time
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from forewarn import sqlite
from forewarn.indexing.records import Chunk, Import

log = logging.getLogger(__name__)

WHAT = "index database"
NAMES_SEPARATOR = "\t"  # between the names of one import; cheaper to split than JSON to parse
CAMEL_PART_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
IDENT_PATH_RE = re.compile(r"\w+(?:\.\w+)*")  # a word, identifier or dotted path (os.path.join) in a query
# search matches the rarest query terms first and stops adding terms past this many candidate chunks:
# bm25 must score every chunk that matches, and "the", "return", "self" match a fifth of Django
SEARCH_CANDIDATES_MAX = 3_000
SEARCH_TERMS_MAX = 8  # rarest terms kept from a long query; more add candidates, rarely better hits
IDENT_CACHE_MAX = 200_000  # distinct identifiers remembered per process (a few MB); names recur across files

MIGRATIONS = [
    sqlite.Migration(
        "m001_initial",
        """
        CREATE TABLE files (
            id INTEGER PRIMARY KEY,
            rel TEXT NOT NULL UNIQUE,
            language TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            status TEXT NOT NULL,   -- ok | errors (parsed with syntax errors) | skipped
            reason TEXT             -- why skipped
        );
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: new rows of a batch are the ids above its start
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            symbol TEXT NOT NULL,
            kind TEXT NOT NULL,
            start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL,
            start_byte INTEGER NOT NULL,
            end_byte INTEGER NOT NULL,
            signature TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            text TEXT NOT NULL,
            part INTEGER NOT NULL,
            words TEXT NOT NULL     -- identifier_words: "user name" finds getUserName
        );
        CREATE INDEX chunks_by_file ON chunks(file_id, symbol);
        -- unicode61 treats "_" as a separator, so snake_case names are searchable by their parts
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            symbol, text, words, content='chunks', content_rowid='id', tokenize='unicode61'
        );
        CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, symbol, text, words)
            VALUES ('delete', old.id, old.symbol, old.text, old.words);
        END;
        CREATE TABLE defs (
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            category TEXT NOT NULL,
            line INTEGER NOT NULL,
            symbol TEXT NOT NULL,
            signature TEXT NOT NULL
        );
        CREATE INDEX defs_by_file ON defs(file_id);
        CREATE INDEX defs_by_name ON defs(name);
        CREATE TABLE refs (
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            count INTEGER NOT NULL
        );
        CREATE INDEX refs_by_file ON refs(file_id);
        CREATE TABLE imports (
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            spec TEXT NOT NULL,
            line INTEGER NOT NULL,
            names TEXT NOT NULL     -- tab-separated (names never hold tabs)
        );
        CREATE INDEX imports_by_file ON imports(file_id);
        CREATE TABLE edges (
            src_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            dst_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            PRIMARY KEY (src_id, dst_id)
        ) WITHOUT ROWID;
        CREATE INDEX edges_by_dst ON edges(dst_id);
        """,
    ),
    # FTS holds each chunk's own text (m001 indexed a class's methods again inside it, and a split
    # definition twice). Contentless: the text is in chunks already, and a row is deleted by giving FTS5
    # the values it indexed, which fts_texts recomputes from the chunk rows (no trigger can). The index
    # is a cache: emptying it makes the next run a cold index that fills the new table.
    sqlite.Migration(
        "m002_fts_own_text",
        """
        DROP TRIGGER chunks_fts_delete;
        DROP TABLE chunks_fts;
        DELETE FROM files;
        CREATE VIRTUAL TABLE chunks_fts USING fts5(symbol, text, words, content='', tokenize='unicode61');
        -- how many chunks hold each term: search drops the common ones before matching
        CREATE VIRTUAL TABLE chunks_fts_terms USING fts5vocab(chunks_fts, 'row');
        """,
    ),
    # words hold what identifier_words gives (camelCase parts and now snake_case names whole too): rows
    # written before lack the whole names, so the next run indexes every file again
    sqlite.Migration(
        "m003_identifier_words",
        """
        DROP TABLE chunks_fts_terms;
        DROP TABLE chunks_fts;
        DELETE FROM files;
        CREATE VIRTUAL TABLE chunks_fts USING fts5(symbol, text, words, content='', tokenize='unicode61');
        CREATE VIRTUAL TABLE chunks_fts_terms USING fts5vocab(chunks_fts, 'row');
        """,
    ),
    # generations: each run that changes the index is one; a file remembers the one that last changed it
    # and removals (deletions, renames) are logged, so whoever reconciles memories with the code (any
    # process, any time later) asks "what changed since generation N" instead of relying on being told.
    # The epoch names this database: a rebuilt index is a new epoch, and memories are then checked whole.
    sqlite.Migration(
        "m004_generations",
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta (key, value) VALUES ('epoch', lower(hex(randomblob(8)))), ('generation', '0'),
            ('complete', '0'), ('removed_floor', '0');
        ALTER TABLE files ADD COLUMN gen INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX files_by_gen ON files(gen);
        CREATE TABLE removed (gen INTEGER NOT NULL, rel TEXT NOT NULL, renamed_to TEXT);
        CREATE INDEX removed_by_gen ON removed(gen);
        """,
    ),
]
REMOVED_LOG_MAX = 20_000  # removals remembered; a reader further behind than this checks every memory instead


@dataclass(frozen=True, slots=True)
class IndexChanges:
    """What changed in the index after generation ``since`` (see m004), up to ``generation``.

    ``whole``: the reader cannot be told file by file (another epoch, or it is behind the removal
    log) and should check everything; ``complete``: a full run has finished since the index was built
    (until then a file missing from it may simply not be indexed yet).
    """

    epoch: str
    generation: int
    complete: bool
    whole: bool
    changed: list[str]  # files (re)written after ``since``, present now
    removed: list[tuple[str, str | None]]  # (file, renamed_to or None) in the order they happened


@dataclass(frozen=True, slots=True)
class FileRecord:
    """What the index knows about one file; ``status`` is ok, errors or skipped (then ``reason``)."""

    rel: str
    language: str
    size: int
    mtime_ns: int
    content_hash: str
    status: str
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class CodeChunk:
    """A stored chunk: the parser's :class:`Chunk` plus its id and file."""

    id: int
    rel: str
    symbol: str
    kind: str
    start_line: int
    end_line: int
    start_byte: int
    end_byte: int
    signature: str
    content_hash: str
    text: str
    part: int


@dataclass(frozen=True, slots=True)
class Definition:
    rel: str
    name: str
    category: str
    line: int
    symbol: str
    signature: str


@dataclass(slots=True)
class FileContent:
    """Everything parsing one file produced, ready to store (built in worker processes)."""

    record: FileRecord
    chunks: list[Chunk]
    chunk_words: list[str]
    defs: list[tuple[str, str, int, str, str]]  # name, category, line, symbol, signature
    refs: dict[str, int]  # name -> number of references
    imports: list[Import]


LOCAL_SCOPES = frozenset({"function", "method"})  # a definition inside one of these is local to it


def graph_def_names(defs: Iterable[tuple[str, str, str]]) -> list[str]:
    """The names among ``(name, category, symbol)`` definitions that other files can refer to, once each.

    A class or function defined inside a function (a test's local ``class Request``) is that function's
    own: a reference elsewhere to the same name means some other ``Request`` (a library's, the
    project's), so it must not draw rank into the file (the repo map put such test classes near the top).
    """
    items = list(defs)
    local_parents = {symbol for _, category, symbol in items if category in LOCAL_SCOPES}
    names: dict[str, None] = {}
    for name, _, symbol in items:
        parts = symbol.split(".")
        if any(".".join(parts[:i]) in local_parents for i in range(1, len(parts))):
            continue
        names[name] = None
    return list(names)


def split_identifier(ident: str) -> list[str]:
    """``getHTTPResponse_code`` -> ``["get", "http", "response", "code"]``."""
    return [p.lower() for part in ident.split("_") if part for p in CAMEL_PART_RE.findall(part)]


def chunk_words(names: Iterable[str]) -> str:
    """The ``words`` column for a chunk using these identifiers: what :func:`identifier_words` adds."""
    return " ".join(dict.fromkeys(word for name in dict.fromkeys(names) for word in identifier_words(name)))


def identifier_words(name: str) -> list[str]:
    """The search words of a compound identifier that the text's own tokens lack. Do not mutate.

    unicode61 splits ``retry_upload`` at ``_`` (tokens ``retry``, ``upload``) and keeps ``retryUpload``
    whole (``retryupload``). Each compound identifier is searchable both ways, so this gives what is
    missing: camelCase parts (``retry``, ``upload``; ``HTTPServer`` -> ``http``, ``server``) and the
    whole name without its underscores (``retryupload`` for ``retry_upload``). [] for a plain word.
    """
    words = _ident_cache.get(name)
    if words is None:
        words = _identifier_words(name)
        if len(_ident_cache) < IDENT_CACHE_MAX:
            _ident_cache[name] = words
    return words


_ident_cache: dict[str, list[str]] = {}


def _identifier_words(name: str) -> list[str]:
    inner = name.strip("_")
    if "_" not in inner and (inner.islower() or inner.isupper()):  # string methods in C: most names stop here
        return []
    tokens = [t for t in name.lower().split("_") if t]  # what unicode61 makes of the name itself
    parts = split_identifier(name)
    if len(parts) < 2:
        return []
    out = dict.fromkeys(p for p in parts if p not in tokens)
    whole = whole_identifier(name)
    if whole not in tokens:
        out[whole] = None
    return list(out)


def whole_identifier(word: str) -> str:
    """The one search token standing for a whole identifier: lowercased, underscores dropped."""
    return word.lower().replace("_", "")


def file_chunk_words(names_by_line: Sequence[tuple[int, str]], spans: Iterable[tuple[int, int]]) -> list[str]:
    """``chunk_words`` for each (start_line, end_line) chunk of one file.

    Only compound names (snake_case, camelCase) give words. The names are the parser's tags
    (definitions and references, sorted by line), not a scan of the text: nested chunks repeat their
    children's text, and a regex pass over every chunk cost a fifth of all parsing time.
    """
    words = {name: split for name in {n for _, n in names_by_line} if (split := identifier_words(name))}
    named = [(line, name) for line, name in names_by_line if name in words]
    if not named:
        return ["" for _ in spans]
    lines = [line for line, _ in named]
    out = []
    for start, end in spans:
        lo, hi = bisect_left(lines, start), bisect_right(lines, end)
        if lo == hi:  # no compound name inside
            out.append("")
            continue
        inside = dict.fromkeys(name for _, name in named[lo:hi])
        out.append(" ".join(dict.fromkeys(word for name in inside for word in words[name])))
    return out


def fts_texts(chunks: Sequence[Chunk]) -> list[str | None]:
    """What full-text search indexes for each chunk of one file: its own text, None for none.

    Nested chunks are indexed themselves, so a chunk's row replaces each chunk directly inside it with
    that chunk's signature (a class keeps its header, fields and method signatures, not method bodies).
    A split definition's whole ``part=0`` chunk gets no row: its parts carry the text. Offsets are
    bytes; a chunk whose text does not re-encode to its byte span (undecodable bytes) is kept whole.
    """
    split = {c.symbol for c in chunks if c.part > 0}
    wholes = sorted((c for c in chunks if c.part == 0), key=lambda c: (c.start_byte, -c.end_byte))
    children: dict[str, list[Chunk]] = {}  # symbol of a definition -> the chunks directly inside it
    stack: list[Chunk] = []
    for c in wholes:
        while stack and stack[-1].end_byte <= c.start_byte:
            stack.pop()
        parent = stack[-1] if stack else None
        if (
            parent is not None
            and c.end_byte <= parent.end_byte
            and (c.start_byte, c.end_byte) != (parent.start_byte, parent.end_byte)
        ):
            children.setdefault(parent.symbol, []).append(c)
        stack.append(c)
    out: list[str | None] = []
    for c in chunks:
        if c.part == 0 and c.symbol in split:
            out.append(None)
            continue
        inner = [d for d in children.get(c.symbol, ()) if d.start_byte < c.end_byte and d.end_byte > c.start_byte]
        out.append(_own_text(c, inner) if inner else c.text)
    return out


def _own_text(c: Chunk, inner: list[Chunk]) -> str:
    ascii_text = c.text.isascii()
    data = c.text.encode("ascii" if ascii_text else "utf-8")
    if len(data) != c.end_byte - c.start_byte:
        return c.text
    pieces: list[bytes] = []
    at = 0
    for d in inner:  # in file order, disjoint
        lo, hi = max(d.start_byte - c.start_byte, 0), min(d.end_byte - c.start_byte, len(data))
        pieces.append(data[at:lo])
        if d.start_byte >= c.start_byte:  # the signature goes where the nested definition begins
            pieces.append(d.signature.encode())
        at = hi
    pieces.append(data[at:])
    return b"".join(pieces).decode("utf-8", "replace")


def query_terms(text: str) -> list[str]:
    """The distinct search terms of free text, lowercased: each word whole (the token
    :func:`identifier_words` stores for a compound name), its identifier parts, and a phrase of the
    tokens of each snake_case name or dotted path, which matches where they stand together as written.

    "retry upload", "retryUpload", "retry_upload" and "retryupload" all meet both ``retryUpload`` and
    ``retry_upload``; "os.path.join" meets ``os.path.join`` above a chunk merely holding the three words.
    """
    words: dict[str, None] = {}
    for match in IDENT_PATH_RE.finditer(text):
        path = match.group(0)
        tokens = [t for t in re.split(r"[._]", path.lower()) if t]
        for word in path.split("."):
            if not word.strip("_"):
                continue
            words[whole_identifier(word)] = None
            for part in split_identifier(word):
                words[part] = None
        if len(tokens) > 1:
            words[" ".join(tokens)] = None
    return list(words)


def fts_query(text: str | Sequence[str]) -> str:
    """A safe FTS5 query from free text (or its terms): each term quoted, any may match (bm25 ranks)."""
    terms = query_terms(text) if isinstance(text, str) else text
    return " OR ".join(f'"{w}"' for w in terms)


def selective_terms(doc_freqs: dict[str, int]) -> list[str]:
    """The terms worth matching: rarest first while their chunks fit SEARCH_CANDIDATES_MAX (the rarest
    always), at most SEARCH_TERMS_MAX; terms no chunk holds are dropped."""
    kept: list[str] = []
    candidates = 0
    for term, df in sorted(doc_freqs.items(), key=lambda item: item[1]):
        if df == 0:
            continue
        if kept and (candidates + df > SEARCH_CANDIDATES_MAX or len(kept) == SEARCH_TERMS_MAX):
            break
        kept.append(term)
        candidates += df
    return kept


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

    def touch(self, records: Iterable[FileRecord]) -> None:
        """Record a new size/mtime for files whose bytes did not change."""
        with sqlite.transaction(self.conn) as conn:
            conn.executemany(
                "UPDATE files SET size = ?, mtime_ns = ? WHERE rel = ?",
                [(r.size, r.mtime_ns, r.rel) for r in records],
            )

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

    def languages(self) -> dict[str, int]:
        rows = self.conn.execute(
            "SELECT language, count(*) FROM files WHERE status != 'skipped' GROUP BY language ORDER BY 2 DESC"
        )
        return {r[0]: r[1] for r in rows}
