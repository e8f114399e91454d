"""Reading the small files a repository hands us (ignore files, its settings), which are untrusted input.

A cloned repository decides what ``.gitignore`` is: a symlink to ``/dev/zero`` (reading it fills
memory until the OOM killer picks a victim, F4 of the hostile-input review), a FIFO that blocks the
reader for ever, a link to a file outside the workspace, or a gigabyte of text. :func:`read_capped`
reads a file only when it is a regular file no larger than a cap, checked on the open descriptor so
the answer cannot change between the check and the read. A symlink to a regular file is followed
when it stays inside ``inside`` (monorepos link one shared ``.gitignore`` into several folders);
one leading out of the workspace is refused like any other odd file.

This module imports nothing of Forewarn's but its errors, so every layer may use it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from forewarn.errors import ForewarnError

# stable reasons, as the scanner reports its skips
REFUSED_NOT_REGULAR = "not-a-regular-file"
REFUSED_OVERSIZED = "oversized"
REFUSED_OUTSIDE = "symlink-outside-workspace"
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC  # a FIFO opens without waiting for a writer


class RefusedFile(ForewarnError):
    """A repository file that was not read, and why (``reason`` is one of the ``REFUSED_*`` strings)."""

    def __init__(self, path: str | Path, reason: str, detail: str) -> None:
        super().__init__(f"{path}: not read: {detail}")
        self.path = str(path)
        self.reason = reason
        self.detail = detail


def read_capped(
    path: str | Path, max_bytes: int, inside: str | None = None, *, parent_inside: bool = False
) -> bytes | None:
    """The file's bytes, or None when it does not exist.

    Raises :class:`RefusedFile` when it is not a regular file, is larger than ``max_bytes``, or (with
    ``inside``, a real path) resolves to somewhere outside that folder; ``OSError`` when it cannot be read.
    ``parent_inside`` says the caller already knows the folder holding ``path`` is inside (the scanner
    walks only such folders), so only a link at ``path`` itself is resolved: resolving every folder of
    a path thousands of levels deep, for every ignore file on the way down, would take minutes.
    """
    if inside is not None and (not parent_inside or os.path.islink(path)):
        real = os.path.realpath(path)
        if real != inside and not real.startswith(inside.rstrip(os.sep) + os.sep) and os.path.lexists(path):
            raise RefusedFile(path, REFUSED_OUTSIDE, f"it leads out of the workspace to {real}")
    try:
        before = os.stat(path)  # devices are never even opened: opening some has side effects
    except (FileNotFoundError, NotADirectoryError):
        return None
    _check(path, before, max_bytes)
    fd = os.open(path, _OPEN_FLAGS)
    try:
        _check(path, os.fstat(fd), max_bytes)  # the file opened is the one checked, whatever was swapped in
        chunks, left = [], max_bytes + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 16))):
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:  # it grew after the check
        raise RefusedFile(path, REFUSED_OVERSIZED, f"more than {max_bytes} bytes")
    return data


def _check(path: str | Path, st: os.stat_result, max_bytes: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise RefusedFile(path, REFUSED_NOT_REGULAR, "not a regular file (a device, FIFO, socket or directory)")
    if st.st_size > max_bytes:
        raise RefusedFile(path, REFUSED_OVERSIZED, f"{st.st_size} bytes, more than the {max_bytes} allowed")
