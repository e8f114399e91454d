"""The one way Forewarn opens SQLite databases and migrates them.

Every database is opened in WAL mode with a busy timeout (two editor windows and the CLI may write
at once), its files are private (0600), and its schema is moved forward by append-only migrations,
each in its own transaction. A database written by a newer Forewarn is refused, untouched.

A database holding user data is opened with :func:`connect_guarded`: checked before it is opened for
writing, and stopped at the first sign of damage afterwards (see :class:`GuardedConnection`).
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from forewarn.errors import ForewarnError
from forewarn.paths import FILE_MODE

log = logging.getLogger(__name__)

# page cache per connection (32 MB; SQLite's default is 2 MB): holds the memory indexes of ~100k memories,
# and a cold index's FTS merges, in memory; well inside the daemon's RSS budget
CACHE_KIB = 32_768
BUSY_TIMEOUT_MS = 10_000  # long enough to ride out another process's write transaction
# ``PRAGMA quick_check`` reads every page (~1.4 ms per MB on the 2-core box, page cache warm): files up to this
# size are checked in full when opened (<= ~45 ms, ~10k memories with vectors); a larger one gets the cheap
# checks on open and the full one before its first write (450 ms once for 100k memories, 320 MB)
OPEN_CHECK_MAX_BYTES = 32 * 1024 * 1024
HEADER_BYTES = 100


class SchemaTooNewError(ForewarnError, RuntimeError):
    """The database was written by a newer Forewarn; opening it could damage it."""


@dataclass(frozen=True)
class Migration:
    """One append-only step: ``name`` is recorded once applied; ``apply`` runs inside a transaction."""

    name: str
    apply: Callable[[sqlite3.Connection], None] | str


def connect(
    path: Path | str, *, readonly: bool = False, factory: type[sqlite3.Connection] = sqlite3.Connection
) -> sqlite3.Connection:
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
        factory=factory,
    )
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    if not readonly:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    _secure_sidecars(path_str)
    return conn


def is_corruption(exc: BaseException) -> bool:
    """True for SQLite's "malformed" and "not a database" errors, never for locks, constraints or I/O."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return True
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text or "corrupt" in text


def check_database(path: Path | str, *, full: bool) -> str | None:
    """What is wrong with the database file at ``path`` (None: nothing found). Never writes to it.

    Cheap checks always (the header, a size that is whole pages, the schema parses); ``full`` adds
    ``PRAGMA quick_check`` (every page of every b-tree). A missing or empty file is a new database: fine.

    The file is read through SQLite only, never opened directly: closing any descriptor of a file drops every
    POSIX lock this process holds on it, SQLite's included, and a process holding the database open (a server
    checking before its first write) would then look closed to the others, the last of which deletes the WAL
    its commits are still going to (sqlite.org/howtocorrupt.html, 2.2).
    """
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot read the file: {exc.strerror or exc}"
    if size == 0:
        return None
    if size < HEADER_BYTES:
        return "the file does not start with an SQLite header"
    try:  # read-only: SQLite can neither replay nor checkpoint the WAL into the file through it
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.OperationalError:
        return None  # cannot open read-only (permissions, a missing -shm on a read-only folder): not damage
    try:
        conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
        if size % page_size:
            return f"the file is not a whole number of {page_size}-byte pages (truncated or overwritten)"
        if full:
            rows = conn.execute("PRAGMA quick_check(1)").fetchall()
            if [tuple(r) for r in rows] != [("ok",)]:
                found = str(rows[0][0]).replace("*** in database main ***", "").strip() if rows else "no answer"
                return f"quick_check: {found}"
    except sqlite3.DatabaseError as exc:
        if is_corruption(exc):
            code = getattr(exc, "sqlite_errorcode", 0)
            notadb = isinstance(code, int) and code & 0xFF == sqlite3.SQLITE_NOTADB
            return "the file does not start with an SQLite header" if notadb else str(exc)
        log.info("could not check %s (%s); opening it anyway", path, exc)
    finally:
        conn.close()
    return None


class DatabaseCorruptError(ForewarnError):
    """A damaged database file (callers of :func:`connect_guarded` raise their own, naming what to do)."""


class GuardedConnection(sqlite3.Connection):
    """A connection to user data that stops at the first sign of damage and never writes into it.

    The first corruption error from any statement or fetch marks the connection damaged: it is closed
    at once without a checkpoint (a read-only companion keeps SQLite from copying the WAL into the
    damaged file), and that statement and every later one raise ``make_error(cause)``. A file too large
    to check in full on open is checked in full before its first write transaction.
    """

    damage: Exception | None = None  # class defaults: ``connect`` runs its pragmas before ``arm``
    _make_error: Callable[[BaseException], Exception] = DatabaseCorruptError
    _path: Path = Path()
    _verified: bool = True

    def arm(self, path: Path, make_error: Callable[[BaseException], Exception], *, verified: bool) -> None:
        self._path, self._make_error, self._verified, self.damage = path, make_error, verified, None

    def cursor(self, factory: Any = None) -> sqlite3.Cursor:  # type: ignore[override]
        if self.damage is not None:
            raise self._make_error(self.damage.__cause__ or self.damage)
        return super().cursor(_GuardedCursor)

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        return self.cursor().executemany(sql, parameters)

    def before_write(self) -> None:
        """Called as a write transaction begins: the deferred full check of a large file, once."""
        if self._verified:
            return
        problem = check_database(self._path, full=True)
        if problem is not None:
            self.refuse(sqlite3.DatabaseError(problem))
        self._verified = True

    def refuse(self, cause: BaseException) -> NoReturn:
        """Mark the database damaged (first time: close without touching the file) and raise the error."""
        if self.damage is None:
            error = self._make_error(cause)
            error.__cause__ = cause
            self.damage = error
            log.info("%s", error)  # the front end shows it: the CLI as its one line, the server in the editor
            self._close_untouched()
        raise self._make_error(cause) from cause

    def _close_untouched(self) -> None:
        # closing the last connection checkpoints the WAL into the file; a reader holding its shared lock
        # stops that, and a read-only connection never checkpoints
        holder: sqlite3.Connection | None = None
        try:
            holder = sqlite3.connect(f"file:{self._path}?mode=ro", uri=True)
            holder.execute("PRAGMA schema_version").fetchone()
        except sqlite3.DatabaseError:
            pass  # the header itself is gone: SQLite cannot checkpoint into it either
        try:
            super().close()
        finally:
            if holder is not None:
                holder.close()


class _GuardedCursor(sqlite3.Cursor):
    """Every call that can reach the file hands a corruption error to its connection's ``refuse``."""

    def _refuse(self, exc: sqlite3.DatabaseError) -> NoReturn:
        conn = self.connection
        if isinstance(conn, GuardedConnection) and is_corruption(exc):
            conn.refuse(exc)
        raise exc

    def execute(self, sql: str, parameters: Any = (), /) -> _GuardedCursor:
        try:
            super().execute(sql, parameters)
        except sqlite3.DatabaseError as exc:
            self._refuse(exc)
        return self

    def executemany(self, sql: str, parameters: Any, /) -> _GuardedCursor:
        try:
            super().executemany(sql, parameters)
        except sqlite3.DatabaseError as exc:
            self._refuse(exc)
        return self

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.DatabaseError as exc:
            self._refuse(exc)

    def fetchmany(self, size: int | None = 1) -> list[Any]:
        try:
            return super().fetchmany(size if size is not None else self.arraysize)
        except sqlite3.DatabaseError as exc:
            self._refuse(exc)

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.DatabaseError as exc:
            self._refuse(exc)

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.DatabaseError as exc:
            self._refuse(exc)


def connect_guarded(path: Path, make_error: Callable[[BaseException], Exception]) -> GuardedConnection:
    """Open user data: checked first through a read-only connection (in full up to ``OPEN_CHECK_MAX_BYTES``),
    then opened for writing as a :class:`GuardedConnection`. Damage raises ``make_error(cause)`` and the
    file is left byte for byte as it was."""
    path = Path(path)
    try:
        small = path.stat().st_size <= OPEN_CHECK_MAX_BYTES
    except OSError:
        small = True
    problem = check_database(path, full=small)
    if problem is not None:
        cause = sqlite3.DatabaseError(problem)
        raise make_error(cause) from cause
    conn = connect(path, factory=GuardedConnection)
    assert isinstance(conn, GuardedConnection)
    conn.arm(path, make_error, verified=small)
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
        if isinstance(self.conn, GuardedConnection):
            self.conn.before_write()
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
