"""A long-lived process that checks a large memory database before its first write keeps its commits.

Found by the hook benchmark at 100k memories: the check opened ``memory.db`` with a plain file descriptor and
closed it, which drops every POSIX lock the process holds on the file (SQLite's too); a short-lived process then
closed as if it were the last, deleted the WAL, and the long-lived one's later commits were lost (and the file
left malformed). Two real processes on a real database: the long-lived one writes after the other closes.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

LONG_LIVED = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    sys.path.insert(0, sys.argv[2])
    import forewarn.sqlite as fs
    fs.OPEN_CHECK_MAX_BYTES = 0  # every file is "large": the full check waits for the first write
    root = Path(sys.argv[1])
    conn = fs.connect_guarded(root / "db", lambda cause: RuntimeError(cause))
    conn.before_write()  # what the first write transaction of a large file does
    conn.execute("BEGIN IMMEDIATE"); conn.execute("INSERT INTO t VALUES (1)"); conn.execute("COMMIT")
    (root / "ready").touch()
    while not (root / "other-closed").exists():
        time.sleep(0.02)
    conn.execute("BEGIN IMMEDIATE"); conn.execute("INSERT INTO t VALUES (2)"); conn.execute("COMMIT")
    (root / "written").touch()
    while not (root / "read").exists():
        time.sleep(0.02)
    conn.close()
    """
)


def _wait_for(path: Path, proc: subprocess.Popen[bytes]) -> None:
    import time

    deadline = time.monotonic() + 60
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path.name} never came"
        time.sleep(0.02)


def test_a_check_before_the_first_write_keeps_the_wal_for_later_commits(tmp_path: Path) -> None:
    db = tmp_path / "db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES (0)")
    conn.commit()
    conn.close()
    proc = subprocess.Popen([sys.executable, "-c", LONG_LIVED, str(tmp_path), str(REPO)], stderr=subprocess.PIPE)
    try:
        _wait_for(tmp_path / "ready", proc)
        other = sqlite3.connect(db)  # a short-lived process's connection (a hook call, the CLI)
        assert other.execute("SELECT count(*) FROM t").fetchone() == (2,)
        other.close()
        assert (tmp_path / "db-wal").exists(), "the WAL went while a process was still writing to it"
        (tmp_path / "other-closed").touch()
        _wait_for(tmp_path / "written", proc)
        reader = sqlite3.connect(db)
        assert [r[0] for r in reader.execute("SELECT x FROM t ORDER BY x")] == [0, 1, 2]
        reader.close()
        (tmp_path / "read").touch()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    check = sqlite3.connect(db)
    assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert [r[0] for r in check.execute("SELECT x FROM t ORDER BY x")] == [0, 1, 2]
    check.close()
