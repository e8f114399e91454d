"""Reading the small files a repository hands us (ignore files, its settings), which are untrusted input.

A cloned repository decides what ``.gitignore`` is: a symlink to ``/dev/zero`` (reading it fills
memory until the OOM killer picks a victim, F4 of the hostile-input review), a FIFO that blocks the
reader for ever, a link to a file outside the workspace, or a gigabyte of text. :func:`read_capped`
reads a file only when it is a regular file no larger than a cap, checked on the open descriptor so
the answer cannot change between the check and the read. A symlink to a regular file is followed
when it stays inside ``inside`` (monorepos link one shared ``.gitignore`` into several folders);
one leading out of the workspace is refused like any other odd file. :func:`read_head` reads a work
tree's own files for mining the same way, with no link followed at all, and reads the head of a large
file (where a file says it was copied) unless told to refuse it.

Writing is stricter than reading: Forewarn writes into a work tree only what it owns or was asked to
set up (``.gitattributes`` for ``forewarn init``, the shared memories file), and a cloned repository
can ship any of those as a symbolic link (``.gitattributes -> ../.bashrc``: R1 of the second red-team
review). :func:`open_folder`, :func:`read_file_at` and :func:`replace_file_at` walk from the work
tree one name at a time with ``O_NOFOLLOW`` and replace a file by renaming a new one over it, so no
write follows a link, creates a file through one, or lands outside the tree; a link where a file
should be is refused, naming it.

This module imports nothing of Forewarn's but its errors, so every layer may use it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path, PurePath

from forewarn.errors import ForewarnError

# stable reasons, as the scanner reports its skips
REFUSED_NOT_REGULAR = "not-a-regular-file"
REFUSED_OVERSIZED = "oversized"
REFUSED_OUTSIDE = "symlink-outside-workspace"
REFUSED_LINK = "symlink"  # read_head never follows a link
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC  # a FIFO opens without waiting for a writer
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
NEW_FOLDER_MODE = 0o755  # folders and files a repository shares are readable by the team, as git makes them
NEW_FILE_MODE = 0o644


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
        _check_inside(path, inside)
    try:
        before = os.stat(path)  # devices are never even opened: opening some has side effects
    except (FileNotFoundError, NotADirectoryError):
        return None
    _check(path, before, max_bytes)
    return _read_open(path, os.open(path, _OPEN_FLAGS), max_bytes, whole=True)


def read_head(path: str | Path, max_bytes: int, inside: str | None = None, *, whole: bool = False) -> bytes | None:
    """The first ``max_bytes`` bytes of the regular file at ``path`` (all of a smaller one), or None when it does
    not exist; a symbolic link is never followed, not even to a file inside.

    For reading a work tree's own files (mining): :func:`read_capped`'s guarantees, a FIFO opened without waiting
    and the file checked regular on the open descriptor, so nothing swapped in between the check and the read is
    read. ``whole`` refuses a file larger than ``max_bytes`` instead of reading its head, as :func:`read_capped`
    does. Raises :class:`RefusedFile` when ``path`` is a link (``REFUSED_LINK``) or not a regular file, or (with
    ``inside``, a real path) a folder on its way leads outside that folder; ``OSError`` when it cannot be read.
    """
    if inside is not None:
        _check_inside(path, inside)
    try:
        before = os.lstat(path)  # devices are never even opened: opening some has side effects
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISLNK(before.st_mode):
        raise _never_followed(path)
    _check(path, before, max_bytes if whole else None)
    try:
        fd = os.open(path, _OPEN_FLAGS | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # swapped for a link since the check
            raise _never_followed(path) from None
        raise
    return _read_open(path, fd, max_bytes, whole=whole)


def _never_followed(path: str | Path) -> RefusedFile:
    return RefusedFile(path, REFUSED_LINK, "a symbolic link, which is never followed here")


def _check_inside(path: str | Path, inside: str) -> None:
    real = os.path.realpath(path)
    if real != inside and not real.startswith(inside.rstrip(os.sep) + os.sep) and os.path.lexists(path):
        raise RefusedFile(path, REFUSED_OUTSIDE, f"it leads out of the workspace to {real}")


def _read_open(path: str | Path, fd: int, max_bytes: int, *, whole: bool) -> bytes:
    """Up to ``max_bytes`` bytes of the file open at ``fd`` (closed here) once it is checked a regular file, on the
    descriptor: the file opened is the one checked, whatever was swapped in. ``whole`` refuses a file larger than
    ``max_bytes``, one that grew after the check included; otherwise its head is read."""
    try:
        _check(path, os.fstat(fd), max_bytes if whole else None)
        chunks, left = [], max_bytes + 1 if whole else max_bytes
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 16))):
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:  # it grew after the check
        raise RefusedFile(path, REFUSED_OVERSIZED, f"more than {max_bytes} bytes")
    return data


def _check(path: str | Path, st: os.stat_result, max_bytes: int | None) -> None:
    """Refuse anything but a regular file, and (unless ``max_bytes`` is None) one larger than ``max_bytes``."""
    if not stat.S_ISREG(st.st_mode):
        raise RefusedFile(path, REFUSED_NOT_REGULAR, "not a regular file (a device, FIFO, socket or directory)")
    if max_bytes is not None and st.st_size > max_bytes:
        raise RefusedFile(path, REFUSED_OVERSIZED, f"{st.st_size} bytes, more than the {max_bytes} allowed")


# ---------------------------------------------------------------- writing inside a work tree


class RefusedWrite(ForewarnError):
    """A file or folder in a work tree that Forewarn would not write through (a link, not a regular file, or
    a path leading out of the tree); nothing was written."""


def _link_text(dir_fd: int, name: str) -> str:
    with contextlib.suppress(OSError):
        return f" (to {os.readlink(name, dir_fd=dir_fd)})"
    return ""


def open_folder(root: str | Path, rel: str | PurePath, *, create: bool = True) -> int:
    """A descriptor of the folder ``root/rel``, walked one name at a time without following a link.

    ``root`` is the work tree (trusted: the user chose it); every folder below it must be a real folder,
    made 0755 when missing and ``create``. Raises :class:`RefusedWrite` for ``..``, an absolute ``rel``, a
    link or a non-folder on the way; ``FileNotFoundError`` when a folder is missing and not ``create``.
    The caller closes the descriptor.
    """
    rel = PurePath(rel)
    if rel.is_absolute():
        raise RefusedWrite(f"{rel} is not a path inside the work tree {root}; nothing was written")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    here = Path(root)
    try:
        for part in rel.parts:
            if part in ("..", "."):
                raise RefusedWrite(f"{Path(root) / rel} leads out of the work tree {root}; nothing was written")
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, NEW_FOLDER_MODE, dir_fd=fd)
            try:
                nxt = os.open(part, _FOLDER_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                raise
            except OSError:  # ELOOP (a link) or ENOTDIR
                raise RefusedWrite(
                    f"{here / part} is a symbolic link or not a folder{_link_text(fd, part)}; Forewarn never "
                    f"writes through one, so nothing was written"
                ) from None
            os.close(fd)
            fd = nxt
            here = here / part
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_file_at(dir_fd: int, name: str, shown: str | Path) -> os.stat_result | None:
    """The ``lstat`` of ``name`` in the folder ``dir_fd``, None when missing; a link or anything but a regular
    file is refused (:class:`RefusedWrite`, naming ``shown`` and where a link leads)."""
    try:
        st = os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise RefusedWrite(
            f"{shown} is a symbolic link{_link_text(dir_fd, name)}; Forewarn never writes through one, so "
            f"nothing was written (make it a regular file)"
        )
    if not stat.S_ISREG(st.st_mode):
        raise RefusedWrite(f"{shown} is not a regular file; nothing was written")
    return st


def read_file_at(dir_fd: int, name: str, max_bytes: int, shown: str | Path) -> bytes | None:
    """``name``'s bytes in the folder ``dir_fd`` (None when missing), refused when it is a link, not a regular
    file, or larger than ``max_bytes`` — checked on the open descriptor."""
    if check_file_at(dir_fd, name, shown) is None:
        return None
    try:
        fd = os.open(name, _OPEN_FLAGS | os.O_NOFOLLOW, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:  # swapped for a link since the check
        raise RefusedWrite(f"{shown} could not be opened without following a link ({exc.strerror})") from None
    return _read_open(shown, fd, max_bytes, whole=True)


def replace_file_at(dir_fd: int, name: str, data: bytes, shown: str | Path) -> None:
    """Replace ``name`` in the folder ``dir_fd`` with ``data``, atomically: a new file (``O_EXCL | O_NOFOLLOW``,
    fsynced) renamed over it, keeping an existing file's permission bits (0644 for a new one). A link or a
    non-regular file there is refused; the rename replaces the name itself, never a file a link points to."""
    before = check_file_at(dir_fd, name, shown)
    mode = stat.S_IMODE(before.st_mode) if before is not None else NEW_FILE_MODE
    tmp = f".{name}.forewarn-{os.getpid()}-{secrets.token_hex(4)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), mode)  # the umask must not change what the tree had
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        check_file_at(dir_fd, name, shown)  # swapped for a link meanwhile: still refused
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise


def write_in_tree(root: str | Path, rel: str | PurePath, data: bytes) -> Path:
    """Replace (or create) the file ``root/rel`` with ``data`` without following any link (:func:`replace_file_at`
    in the folder :func:`open_folder` walked to); the path written."""
    rel = PurePath(rel)
    shown = Path(root) / rel
    dir_fd = open_folder(root, rel.parent)
    try:
        replace_file_at(dir_fd, rel.name, data, shown)
    finally:
        os.close(dir_fd)
    return shown
