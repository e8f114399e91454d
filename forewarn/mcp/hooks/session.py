"""What one host session has been told and done, kept between hook calls: a small JSON file per session.

The files live in the workspace's data dir (``hooks/``, 0700; each file 0600), are named by a hash of the host
and its session id (the id is the host's, so never a path), are bounded (``MAX_*``: the oldest entries go
first) and expire: a session untouched for ``SESSION_TTL_S`` is deleted, and at most ``MAX_SESSIONS`` files are
kept. Two hook calls of one session may run at once (parallel tool calls): each read-modify-write holds an
exclusive lock on the file. A file that cannot be read (damaged, too large, another format) starts afresh:
it holds only what was shown, never user data.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forewarn import paths

FORMAT = 1
SESSION_TTL_S = 24 * 3600  # a day: a host session resumed after that is told everything again
MAX_SESSIONS = 200  # session files kept per workspace; the least recently used go first
MAX_SHOWN = 5_000  # memories remembered as shown in one session (past it the oldest may be shown again)
MAX_FAILURES = 10  # failing commands waiting for a passing run
MAX_EXPLAINED = 50  # distinct failures whose told memories are kept (for the reminder when one repeats)
MAX_EDIT_NOTES = 200  # the session's latest edits kept whole enough to recognise their undoing
MAX_NOTE_CHARS = 2_000  # of an edit's replaced and replacing text
MAX_EDITED = 1_000  # definitions changed by the session's edits, newest kept
MAX_STATE_BYTES = 1 << 20  # a larger file is not ours (or was tampered with): start afresh
MAX_SUMMARY_CHARS = 300
HOOKS_DIR = "hooks"


@dataclass
class Failure:
    """A command that failed, waiting for a passing run of the same command after edits."""

    command: str
    signature: str
    at: float
    edits_before: int  # the session's edit count when it failed: a later pass after more edits was fixed by them
    files: list[str] = field(default_factory=list)  # workspace files the error went through


@dataclass
class EditNote:
    """One edit the session made: where (``file::symbol``), the text it replaced and wrote, what it did."""

    file: str
    key: str
    old: str | None
    new: str | None
    summary: str
    at: float
    undone: bool = False  # a later edit put the old text back (captured as a dead end)


@dataclass
class SessionState:
    shown: dict[str, str] = field(default_factory=dict)  # memory id -> the version shown
    # a failure's key (``handler.failure_key``) -> {memory id -> the version told about it}: a repeat of the same
    # failure is reminded of them in one line, not told them in full again
    explained: dict[str, dict[str, str]] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    edits: list[EditNote] = field(default_factory=list)  # the latest edits, oldest first
    # (the session's edit count after the edit, "file::symbol") for each definition an edit changed, in order
    edited: list[tuple[int, str]] = field(default_factory=list)
    edit_count: int = 0
    captured: int = 0
    started: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "shown": self.shown,
            "explained": self.explained,
            "failures": [f.__dict__ for f in self.failures],
            "edits": [e.__dict__ for e in self.edits],
            "edited": [list(e) for e in self.edited],
            "edit_count": self.edit_count,
            "captured": self.captured,
            "started": self.started,
        }

    @classmethod
    def from_json(cls, data: object) -> SessionState:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return cls(started=time.time())
        try:
            return cls(
                shown={str(k): str(v) for k, v in dict(data["shown"]).items()},
                explained={  # absent in a session file an older version wrote
                    str(k): {str(m): str(v) for m, v in dict(told).items()}
                    for k, told in dict(data.get("explained") or {}).items()
                },
                failures=[Failure(**f) for f in data["failures"]],
                edits=[EditNote(**e) for e in data["edits"]],
                edited=[(int(n), str(key)) for n, key in data["edited"]],
                edit_count=int(data["edit_count"]),
                captured=int(data["captured"]),
                started=float(data["started"]),
            )
        except (KeyError, TypeError, ValueError):
            return cls(started=time.time())

    def bound(self) -> None:
        """Keep each part within its limit, oldest entries out first (dicts keep insertion order)."""
        if len(self.shown) > MAX_SHOWN:
            for key in list(self.shown)[: len(self.shown) - MAX_SHOWN]:
                del self.shown[key]
        if len(self.explained) > MAX_EXPLAINED:
            for key in list(self.explained)[: len(self.explained) - MAX_EXPLAINED]:
                del self.explained[key]
        self.failures = self.failures[-MAX_FAILURES:]
        self.edits = self.edits[-MAX_EDIT_NOTES:]
        self.edited = self.edited[-MAX_EDITED:]


def sessions_dir(wdir: Path) -> Path:
    return paths.ensure_private_dir(wdir / HOOKS_DIR)


def state_path(wdir: Path, host: str, session: str) -> Path:
    digest = hashlib.sha256(f"{host}\x00{session}".encode()).hexdigest()[:32]
    return sessions_dir(wdir) / f"session-{digest}.json"


@contextlib.contextmanager
def session_state(wdir: Path, host: str, session: str, *, now: float | None = None) -> Iterator[SessionState]:
    """The session's state, locked for the duration of the block and written back at its end."""
    path = state_path(wdir, host, session)
    fresh = not path.exists()
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, paths.FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        st = os.fstat(fd)
        now = time.time() if now is None else now
        data: object = None
        if 0 < st.st_size <= MAX_STATE_BYTES and now - st.st_mtime <= SESSION_TTL_S:
            with contextlib.suppress(OSError, ValueError, UnicodeDecodeError):
                data = json.loads(os.pread(fd, st.st_size, 0).decode("utf-8"))
        state = SessionState.from_json(data) if data is not None else SessionState(started=now)
        yield state
        state.bound()
        body = json.dumps(state.to_json(), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        os.ftruncate(fd, 0)
        os.pwrite(fd, body, 0)
        os.fchmod(fd, paths.FILE_MODE)
    finally:
        os.close(fd)
    if fresh:
        sweep(path.parent, now=now)


def sweep(folder: Path, *, now: float | None = None) -> int:
    """Delete expired session files and the least recently used beyond ``MAX_SESSIONS``; how many went."""
    now = time.time() if now is None else now
    entries: list[tuple[float, Path]] = []
    for entry in os.scandir(folder):
        if entry.name.startswith("session-") and entry.name.endswith(".json") and entry.is_file(follow_symlinks=False):
            with contextlib.suppress(OSError):
                entries.append((entry.stat(follow_symlinks=False).st_mtime, Path(entry.path)))
    entries.sort(reverse=True)
    doomed = [p for n, (mtime, p) in enumerate(entries) if n >= MAX_SESSIONS or now - mtime > SESSION_TTL_S]
    for p in doomed:
        with contextlib.suppress(OSError):
            p.unlink()
    return len(doomed)
