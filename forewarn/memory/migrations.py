"""The memory database's schema: append-only migrations, each run in one transaction (forewarn.sqlite)."""

from __future__ import annotations

import json
import re
import sqlite3

from forewarn.memory.text import identifier_terms
from forewarn.sqlite import Migration

M001 = """
CREATE TABLE memories (
  num INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  text TEXT NOT NULL,
  file TEXT,
  symbol TEXT,
  start_line INTEGER,
  end_line INTEGER,
  content_hash TEXT,
  source TEXT NOT NULL,
  confidence REAL NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'stale', 'superseded', 'archived', 'orphaned')),
  status_reason TEXT,
  last_accessed_at TEXT,
  access_count INTEGER NOT NULL DEFAULT 0,
  surfaced_count INTEGER NOT NULL DEFAULT 0,
  ended_at TEXT,
  supersedes TEXT,
  superseded_by TEXT,
  session_id TEXT,
  tags TEXT NOT NULL DEFAULT '[]',
  terms TEXT NOT NULL DEFAULT ''
);
CREATE INDEX memories_file_status ON memories (file, status);
CREATE INDEX memories_status_created ON memories (status, created_at);
CREATE INDEX memories_session ON memories (session_id);
CREATE INDEX memories_surfaced ON memories (surfaced_count);

CREATE TABLE memory_events (
  id TEXT PRIMARY KEY,
  memory_id TEXT NOT NULL,
  at TEXT NOT NULL,
  kind TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX memory_events_memory ON memory_events (memory_id, at);

CREATE VIRTUAL TABLE memory_fts USING fts5 (
  text, tags, file, symbol, terms,
  content = 'memories', content_rowid = 'num',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
  INSERT INTO memory_fts (rowid, text, tags, file, symbol, terms)
  VALUES (new.num, new.text, new.tags, new.file, new.symbol, new.terms);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
  INSERT INTO memory_fts (memory_fts, rowid, text, tags, file, symbol, terms)
  VALUES ('delete', old.num, old.text, old.tags, old.file, old.symbol, old.terms);
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF text, tags, file, symbol, terms ON memories BEGIN
  INSERT INTO memory_fts (memory_fts, rowid, text, tags, file, symbol, terms)
  VALUES ('delete', old.num, old.text, old.tags, old.file, old.symbol, old.terms);
  INSERT INTO memory_fts (rowid, text, tags, file, symbol, terms)
  VALUES (new.num, new.text, new.tags, new.file, new.symbol, new.terms);
END;

CREATE TABLE memory_vectors (
  vec_id INTEGER PRIMARY KEY AUTOINCREMENT,
  memory_num INTEGER NOT NULL REFERENCES memories (num),
  model_id TEXT NOT NULL,
  dim INTEGER NOT NULL,
  vector BLOB NOT NULL,
  UNIQUE (memory_num, model_id)
);
CREATE INDEX memory_vectors_model ON memory_vectors (model_id, vec_id);
"""

# the file-open lookup reads only these columns: a covering index answers it without touching the table
M002 = """
CREATE INDEX memories_anchor_cover ON memories (
  file, status, symbol, type, source, confidence, created_at, last_accessed_at, access_count, num, id
);
"""

# a neighbour file's memories newest first, covering the file-open columns: the per-file row cap
# (``NEIGHBOUR_ROWS_PER_FILE``) then reads only that many index entries and never sorts
M003 = """
CREATE INDEX memories_file_recent ON memories (
  file, created_at, status, symbol, type, source, confidence, last_accessed_at, access_count, num, id
);
"""

# the statuses ``memories.status`` accepts from m004 on (a migration's text never changes afterwards)
M004_STATUSES = ("active", "stale", "superseded", "archived", "orphaned", "suggested", "dismissed")
M004_MEMORIES = f"""
CREATE TABLE memories (
  num INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  text TEXT NOT NULL,
  file TEXT,
  symbol TEXT,
  start_line INTEGER,
  end_line INTEGER,
  content_hash TEXT,
  source TEXT NOT NULL,
  confidence REAL NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ({", ".join(f"'{x}'" for x in M004_STATUSES)})),
  status_reason TEXT,
  last_accessed_at TEXT,
  access_count INTEGER NOT NULL DEFAULT 0,
  surfaced_count INTEGER NOT NULL DEFAULT 0,
  ended_at TEXT,
  supersedes TEXT,
  superseded_by TEXT,
  session_id TEXT,
  tags TEXT NOT NULL DEFAULT '[]',
  terms TEXT NOT NULL DEFAULT '',
  provenance TEXT
)"""
M004_OLD_COLUMNS = """num, id, type, text, file, symbol, start_line, end_line, content_hash, source, confidence,
  created_at, updated_at, status, status_reason, last_accessed_at, access_count, surfaced_count, ended_at,
  supersedes, superseded_by, session_id, tags, terms"""
# what mining has seen (a fingerprint is never proposed twice) and where it stands (last mined commit, …)
M004_TABLES = """
CREATE TABLE mined (
  fingerprint TEXT PRIMARY KEY,
  memory_id TEXT NOT NULL,
  first_seen TEXT NOT NULL
);
CREATE INDEX mined_memory ON mined (memory_id);
CREATE TABLE mining_state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
"""


# private memories and who recorded each; every existing memory stays team, its writer unknown
M005 = """
ALTER TABLE memories ADD COLUMN visibility TEXT NOT NULL DEFAULT 'team' CHECK (visibility IN ('team', 'private'));
ALTER TABLE memories ADD COLUMN recorded_by TEXT;
"""

# the statuses ``memories.status`` accepts from m006 on: ``contested`` joins (a migration's text never changes)
M006_STATUSES = (*M004_STATUSES, "contested")
_STATUS_CHECK_RE = re.compile(r"CHECK \(status IN \([^)]*\)\)")
# what a person said about two memories that seemed to contradict each other: both hold, or contested.
# One row per pair, ``a`` the smaller id; "replace" needs no row (the superseded memory records it)
M006_RELATIONS = """
CREATE TABLE memory_relations (
  a TEXT NOT NULL,
  b TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('both', 'contested')),
  at TEXT NOT NULL,
  PRIMARY KEY (a, b)
) WITHOUT ROWID;
CREATE INDEX memory_relations_b ON memory_relations (b);
"""


def _m006_contested(conn: sqlite3.Connection) -> None:
    """Status ``contested`` and the pair relations (``memory_relations``).

    The CHECK on ``memories.status`` changes, so the table is rebuilt as m004 rebuilt it (every row keeps its
    ``num``; indexes and triggers re-created from their stored SQL), from its own stored definition with only
    the status list replaced: columns other migrations added stay as they are.
    """
    create = conn.execute("""SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'memories'""").fetchone()[0]
    statuses = ", ".join(f"'{x}'" for x in M006_STATUSES)
    rebuilt, n = _STATUS_CHECK_RE.subn(f"CHECK (status IN ({statuses}))", create)
    if n != 1:
        raise sqlite3.DatabaseError("m006: memories has no single status CHECK to extend")
    columns = ", ".join(r[1] for r in conn.execute("""PRAGMA table_info(memories)"""))
    keep = [
        r[0]
        for r in conn.execute(
            """SELECT sql FROM sqlite_master WHERE tbl_name = 'memories' AND type IN ('index', 'trigger')
                 AND sql IS NOT NULL ORDER BY type, name"""
        )
    ]
    conn.execute("PRAGMA defer_foreign_keys = ON")  # reset by SQLite when the transaction ends
    conn.execute(f"""CREATE TEMP TABLE m006_memories AS SELECT {columns} FROM memories""")
    conn.execute("""DROP TABLE memories""")
    conn.execute(rebuilt)
    conn.execute(f"""INSERT INTO memories ({columns}) SELECT {columns} FROM temp.m006_memories""")
    conn.execute("""DROP TABLE temp.m006_memories""")
    for sql in keep:
        conn.execute(sql)
    for statement in _split_m004(M006_RELATIONS):
        conn.execute(statement)


# the code a memory describes, as it was when written or last confirmed: its syntax hash decides staleness
# (formatting and comments don't count) and its text is what a stale memory's diff is taken against; and
# where this database last caught up with the code index (its epoch and generation), so a change any
# process made to the index is reconciled by the next one that opens the workspace; and the definitions
# each file with memories had when last looked at (a definition that was already there is no renamed one)
M007 = """
CREATE TABLE anchored_code (
  memory_id TEXT PRIMARY KEY,
  syntax_hash TEXT NOT NULL,
  code TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE TABLE code_sync (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE file_symbols (
  file TEXT PRIMARY KEY,
  symbols TEXT NOT NULL
);
"""


# how often each memory was shown (file opens, searches), per UTC day: the health report's "shown" series and its
# "shown most" within a window (``memories.surfaced_count`` keeps the all-time total). Usage counts, not user data:
# never exported, and `memory recover` does not salvage them. And events by kind and time: the report's "turned
# away most" (dismissed, marked outdated, forgotten within a window) reads a few rows instead of every event
M012 = """
CREATE TABLE memory_shown_daily (
  day TEXT NOT NULL,
  memory_id TEXT NOT NULL,
  shown INTEGER NOT NULL,
  PRIMARY KEY (day, memory_id)
) WITHOUT ROWID;
CREATE INDEX memory_events_kind_at ON memory_events (kind, at);
"""


def _m004_suggestions(conn: sqlite3.Connection) -> None:
    """Statuses ``suggested``/``dismissed``, a ``provenance`` column, and the mining tables.

    SQLite cannot change a CHECK constraint in place, so ``memories`` is rebuilt inside the migration's
    transaction: every row keeps its ``num`` (the FTS index and the vector labels key on it, so neither
    needs rebuilding), and every index and trigger is re-created from its stored SQL. ``memory_vectors``
    references ``memories``: the check is deferred to the commit, by when every parent row is back.
    """
    keep = [
        r[0]
        for r in conn.execute(
            """SELECT sql FROM sqlite_master WHERE tbl_name = 'memories' AND type IN ('index', 'trigger')
                 AND sql IS NOT NULL ORDER BY type, name"""
        )
    ]
    conn.execute("PRAGMA defer_foreign_keys = ON")  # reset by SQLite when the transaction ends
    conn.execute(f"""CREATE TEMP TABLE m004_memories AS SELECT {M004_OLD_COLUMNS} FROM memories""")
    conn.execute("""DROP TABLE memories""")  # drops its indexes and triggers too; no trigger fires
    conn.execute(M004_MEMORIES)
    conn.execute(f"""INSERT INTO memories ({M004_OLD_COLUMNS}) SELECT {M004_OLD_COLUMNS} FROM temp.m004_memories""")
    conn.execute("""DROP TABLE temp.m004_memories""")
    for sql in keep:  # indexes, then the FTS triggers (after the copy: the FTS index already holds every row)
        conn.execute(sql)
    for statement in _split_m004(M004_TABLES):
        conn.execute(statement)


def _m008_joined_identifier_terms(conn: sqlite3.Connection) -> None:
    """Recompute ``terms`` (``identifier_terms`` now adds snake_case names whole: ``retryupload``); the FTS
    update trigger re-indexes each changed row. Only rows whose terms change are written."""
    rows = conn.execute("""SELECT num, text, file, symbol, tags, terms FROM memories""").fetchall()
    changed = []
    for num, text, file, symbol, tags, terms in rows:
        try:
            tag_list = [str(t) for t in json.loads(tags or "[]")]
        except ValueError:
            tag_list = []
        new = identifier_terms(text, file, symbol, *tag_list)
        if new != (terms or ""):
            changed.append((new, num))
    conn.executemany("""UPDATE memories SET terms = ? WHERE num = ?""", changed)


# a memory created here has one of these events; an imported one has only "imported" events (or none)
LOCAL_CREATION_EVENTS = ("created", "suggested")


def _m009_imported_origin(conn: sqlite3.Connection) -> None:
    """Memories imported before imports recorded their origin are marked imported (``provenance["imported"]``,
    ``legacy``), so they no longer read as typed here by a person. Imported: no local creation event, or its
    current version came from a shared file (a ``replaced_by_import`` event). Nothing else changes: their status
    stays (the import of the time accepted them), and the mark is local (never exported)."""
    rows = conn.execute(
        f"""SELECT num, provenance FROM memories m
             WHERE NOT EXISTS (SELECT 1 FROM memory_events e WHERE e.memory_id = m.id
                                 AND e.kind IN ({", ".join("?" * len(LOCAL_CREATION_EVENTS))}))
                OR EXISTS (SELECT 1 FROM memory_events e WHERE e.memory_id = m.id AND e.kind = 'replaced_by_import')""",
        LOCAL_CREATION_EVENTS,
    ).fetchall()
    changed = []
    for num, raw in rows:
        try:
            prov = json.loads(raw) if raw else {}
        except ValueError:
            prov = {}
        if not isinstance(prov, dict) or "imported" in prov:
            continue
        prov["imported"] = {"legacy": True, "accepted": "imported before imports waited for review"}
        changed.append((json.dumps(prov, ensure_ascii=False), num))
    conn.executemany("""UPDATE memories SET provenance = ? WHERE num = ?""", changed)


def _split_m004(script: str) -> list[str]:
    return [part.strip() for part in script.split(";") if part.strip()]


MIGRATIONS: tuple[Migration, ...] = (
    Migration("m001_memories", M001),
    Migration("m002_anchor_covering_index", M002),
    Migration("m003_file_recent_index", M003),
    Migration("m004_suggestions", _m004_suggestions),
    Migration("m005_visibility", M005),
    Migration("m006_contested", _m006_contested),
    Migration("m007_anchored_code", M007),
    Migration("m008_joined_identifier_terms", _m008_joined_identifier_terms),
    Migration("m009_imported_origin", _m009_imported_origin),
    Migration("m012_shown_daily", M012),
)
