"""The index database's schema: its append-only migrations (the index is a cache, rebuilt when damaged)."""

from __future__ import annotations

from forewarn import sqlite

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
    # Go's references gained a package's exported names used without a call (algo.FuzzyMatchV2 as a value):
    # its files are read again on the next run (an unsettled size, and a hash no bytes have, so they re-parse)
    sqlite.Migration(
        "m005_go_value_references",
        """
        UPDATE files SET size = -1, content_hash = '' WHERE language = 'go';
        """,
    ),
    # a signature is the declaration without the comments written in it (it held Ruby's `module Rack # Request
    # env keys` and Python's `def run(self): # pragma: no cover`) nor Ruby's `;` before a body (`def body;`):
    # files with a comment marker or that `;` in a stored signature parse again on the next run, as in m005
    sqlite.Migration(
        "m006_signatures_without_comments",
        """
        UPDATE files SET size = -1, content_hash = '' WHERE id IN (
            SELECT file_id FROM chunks
            WHERE signature LIKE '%#%' OR signature LIKE '%//%' OR signature LIKE '%/*%' OR signature LIKE '%;'
        );
        """,
    ),
    # Rust's references gained the type a path goes through (`MappingTarget::from_str(s)`: the graph counts standard
    # trait items such as `from_str` by name only beside an import, so the use is the type's): its files parse again
    sqlite.Migration(
        "m007_rust_type_paths",
        """
        UPDATE files SET size = -1, content_hash = '' WHERE language = 'rust';
        """,
    ),
    # a .h whose text is C++ (a namespace, a class, a template: header-only libraries such as spdlog) is parsed as
    # C++, not C, where the C grammar found no class and few definitions; and C/C++ export macros are blanked
    # before parsing (indexing/c_macros.py): every C and C++ file parses again on the next run
    sqlite.Migration(
        "m008_cpp_headers",
        """
        UPDATE files SET size = -1, content_hash = '' WHERE language IN ('c', 'cpp');
        """,
    ),
    # TypeScript's overload signatures are one function with the implementation beside them, not definitions of
    # their own (`string`, `string#2`, `string#3` became `string`, the implementation): TS and TSX files parse again
    sqlite.Migration(
        "m009_typescript_overload_signatures",
        """
        UPDATE files SET size = -1, content_hash = '' WHERE language IN ('typescript', 'tsx');
        """,
    ),
    # a Rust path through the standard library (`io::ErrorKind`, `std::fmt::Error`, a name `use std::…` binds) is no
    # reference to a workspace namesake (indexing/std_paths.py): every Rust file parses again on the next run
    sqlite.Migration(
        "m010_rust_std_paths",
        """
        UPDATE files SET size = -1, content_hash = '' WHERE language = 'rust';
        """,
    ),
]
