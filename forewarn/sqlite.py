"""The one way Forewarn opens SQLite databases and migrates them.

Every database is opened in WAL mode with a busy timeout (two editor windows and the CLI may write
at once), its files are private (0600), and its schema is moved forward by append-only migrations,
each in its own transaction. A database written by a newer Forewarn is refused, untouched.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from forewarn.errors import ForewarnError
from forewarn.paths import FILE_MODE

log = logging.getLogger(__name__)

# page cache per connection (32 MB; SQLite's default is 2 MB): holds the memory indexes of ~100k memories,
# and a cold index's FTS merges, in memory; well inside the daemon's RSS budget
CACHE_KIB = 32_768
BUSY_TIMEOUT_MS = 10_000  # long enough to ride out another process's write transaction


class SchemaTooNewError(ForewarnError, RuntimeError):
    """The database was written by a newer Forewarn; opening it could damage it."""


@dataclass(frozen=True)
class Migration:
    """One append-only step: ``name`` is recorded once applied; ``apply`` runs inside a transaction."""

    name: str
    apply: Callable[[sqlite3.Connection], None] | str


def connect(path: Path | str, *, readonly: bool = False) -> sqlite3.Connection:
    """Open ``path`` with Forewarn's pragmas. ``":memory:"`` is allowed for tests of pure SQL."""
    path_str = str(path)
    if path_str != ":memory:":
        Path(path_str).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not readonly and not os.path.exists(path_str):
            # create the file private before SQLite does, so it is never world-readable
            fd = os.open(path_str, os.O_CREAT | os.O_RDWR, FILE_MODE)
            os.close(fd)
    uri = f"file:{path_str}?mode=ro" if readonly else path_str
    conn = sqlite3.connect(
        uri,
        uri=readonly,
        timeout=BUSY_TIMEOUT_MS / 1000,
        isolation_level=None,  # explicit BEGIN/COMMIT: we decide where transactions start
        check_same_thread=False,
    )
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    if not readonly:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    _secure_sidecars(path_str)
    return conn


def _secure_sidecars(path_str: str) -> None:
    if path_str == ":memory:":
        return
    for suffix in ("", "-wal", "-shm"):
        p = path_str + suffix
        try:
            if os.path.exists(p):
                os.chmod(p, FILE_MODE)
        except OSError:  # not ours to chmod (read-only share): nothing to protect further
            pass


class transaction:  # lower-case: reads like a keyword, ``with transaction(conn):``
    """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on error. Immediate so writers queue, not deadlock."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.conn.execute("COMMIT")
        else:
            self.conn.execute("ROLLBACK")


def migrate(conn: sqlite3.Connection, migrations: Sequence[Migration], *, what: str) -> list[str]:
    """Apply the migrations not yet recorded; refuse a database that knows migrations we don't.

    Returns the names applied. ``what`` names the database in messages ("memory database").
    """
    conn.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    known = [m.name for m in migrations]
    applied = [r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY rowid")]
    unknown = [name for name in applied if name not in known]
    if unknown:
        raise SchemaTooNewError(
            f"The {what} was written by a newer Forewarn (it has migrations {', '.join(unknown)} "
            f"that this version does not know). Upgrade Forewarn; the database was left untouched."
        )
    done: list[str] = []
    for migration in migrations:
        if migration.name in applied:
            continue
        with transaction(conn):
            if isinstance(migration.apply, str):
                for statement in _split_sql(migration.apply):
                    conn.execute(statement)
            else:
                migration.apply(conn)
            conn.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, datetime('now'))", (migration.name,))
        log.info("%s: applied migration %s", what, migration.name)
        done.append(migration.name)
    return done


def _split_sql(script: str) -> list[str]:
    """Split a migration script into statements (``executescript`` would commit our transaction)."""
    statements: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                statements.append(buf.strip())
            buf = ""
    if buf.strip():
        statements.append(buf.strip())
    return statements
