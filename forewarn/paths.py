"""Where Forewarn keeps its files.

Memories are user data, so everything lives in the user data dir (outside any work tree, where
``git clean`` cannot reach it). ``FOREWARN_HOME`` overrides the location for tests and for users
who want it elsewhere.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shlex
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from forewarn import repository
from forewarn.errors import ForewarnError
from forewarn.locations import HOME_ENV, WORKSPACES, data_root, workspace_id

log = logging.getLogger(__name__)

MODELS_ENV = "FOREWARN_MODELS"  # models are large and shared: tests point HOME elsewhere but keep these
DIR_MODE = 0o700  # memories may contain what a team considers private
FILE_MODE = 0o600  # user data and caches are private to the user: memories may quote code and secrets
# another user who can write a folder of ours can swap memory.db or plant a symlink in it
OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH
WORKSPACE_RECORD = "workspace.json"
RECORD_MAX_BYTES = 1 << 20  # workspace.json holds a path and a few hashes and URLs


class UnsafeDataDirError(ForewarnError):
    """A folder or file of Forewarn's data that someone else could change: refused, never used as it is."""


def data_dir() -> Path:
    """The root of Forewarn's data, created private (0700) if missing; refused if others can write it."""
    return ensure_private_dir(data_root())


def check_private_dir(path: Path) -> Path:
    """Refuse a folder of ours that another user owns or may write, naming the command that fixes it."""
    st = path.stat()
    quoted = shlex.quote(str(path))
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise UnsafeDataDirError(
            f"{path} belongs to another user (uid {st.st_uid}), so Forewarn will not keep memories there; "
            f'take it with: chown "$(id -u)" {quoted} && chmod 700 {quoted} (or set {HOME_ENV} to a folder of yours)'
        )
    if st.st_mode & OTHERS_WRITE:
        raise UnsafeDataDirError(
            f"{path} can be written by other users (mode {stat.S_IMODE(st.st_mode):o}), so Forewarn will not "
            f"keep memories there; fix it with: chmod 700 {quoted}"
        )
    return path


def ensure_private_dir(path: Path, *, check: bool = True) -> Path:
    """Create ``path`` and any missing parents as 0700 (``mkdir(parents=True)`` would leave them 0755).

    With ``check``, an existing ``path`` that another user owns or may write is refused
    (:func:`check_private_dir`).
    """
    missing = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another process made it first: fine
            folder.mkdir(mode=DIR_MODE)
        os.chmod(folder, DIR_MODE)  # mkdir's mode is masked by the umask
    return check_private_dir(path) if check else path


def models_dir() -> Path:
    override = os.environ.get(MODELS_ENV)
    if override:  # the user's choice, maybe a team's shared read-only copy: created private, not policed
        return ensure_private_dir(Path(override).expanduser(), check=False)
    return ensure_private_dir(data_dir() / "models")


def models_elsewhere() -> Path | None:
    """With ``FOREWARN_HOME`` set and ``FOREWARN_MODELS`` not: the default data dir's models folder when it holds
    a model, which this data dir does not see (a model is installed once, a data dir may be one per team or
    repository); else None. Nothing is created."""
    if not os.environ.get(HOME_ENV) or os.environ.get(MODELS_ENV):
        return None
    import platformdirs

    default = Path(platformdirs.user_data_dir("forewarn")) / "models"
    try:
        if default.resolve() == (data_root() / "models").resolve():
            return None
        return default if any(p.is_dir() for p in default.iterdir()) else None
    except OSError:  # none there, or unreadable: nothing to point at
        return None


def model_hint(problem: str | None) -> str | None:
    """``problem`` (why the embedding model could not be opened) and, when it is that the model is not installed
    here while the default data dir holds models, where they are and how to use them (``FOREWARN_MODELS``)."""
    if not problem or "not installed in" not in problem:
        return problem
    other = models_elsewhere()
    if other is None:
        return problem
    return f"{problem}, or use the models in {other} with: export {MODELS_ENV}={shlex.quote(str(other))}"


def cache_dir() -> Path:
    """Rebuildable caches (embedding cache); safe to delete."""
    return ensure_private_dir(data_dir() / "cache")


def workspaces_dir() -> Path:
    """The folder holding one data dir per workspace."""
    return ensure_private_dir(data_dir() / WORKSPACES)


def workspace_dir(root: Path) -> Path:
    """Per-workspace data: ``index.db`` (rebuildable), ``memory.db`` (user data), vector index.

    ``workspace.json`` records the root and, where git knows it, the repository (root commits, remotes),
    so the data can be found again after the folder moves (``forewarn memory adopt``).
    """
    resolved = Path(root).resolve()
    wdir = ensure_private_dir(workspaces_dir() / workspace_id(resolved))
    record = read_workspace_record(wdir)
    if record is None or _identity_missing(record, resolved):
        identity = repository.identify(resolved)
        fresh = {**(record or {}), "root": str(resolved), "repository": identity.to_json() if identity else None}
        if fresh != record:
            write_workspace_record(wdir, fresh)
    return wdir


def _identity_missing(record: dict[str, Any], root: Path) -> bool:
    """Not yet recorded (older records), or recorded as none while the folder has since become a git work tree."""
    if "repository" not in record:
        return True
    return record["repository"] is None and (root / ".git").exists()


def read_workspace_record(wdir: Path) -> dict[str, Any] | None:
    """``workspace.json`` of a workspace data dir; None when missing or unreadable (it is rewritten).

    A symlink there is refused: it was planted, and following it would read or replace another file.
    """
    marker = wdir / WORKSPACE_RECORD
    try:
        fd = os.open(marker, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if os.path.islink(marker):
            raise UnsafeDataDirError(
                f"{marker} is a symbolic link, which Forewarn never follows; remove it: rm {shlex.quote(str(marker))}"
            ) from exc
        log.warning("cannot read %s: %s", marker, exc)
        return None
    try:
        with os.fdopen(fd, "r", encoding="utf-8") as fh:
            data = json.loads(fh.read(RECORD_MAX_BYTES))
    except (OSError, ValueError) as exc:
        log.warning("%s is unreadable (%s); it will be written again", marker, exc)
        return None
    return data if isinstance(data, dict) else None


def write_workspace_record(wdir: Path, record: dict[str, Any]) -> None:
    write_private_text(wdir / WORKSPACE_RECORD, json.dumps(record, ensure_ascii=False) + "\n")


def replace_private(path: Path, write: Callable[[Path], None]) -> None:
    """Replace ``path`` atomically with a 0600 file that ``write`` makes at a temporary name beside it (for
    writers that take a file name: hnswlib, NumPy). The temporary name keeps the suffix, as NumPy wants."""
    tmp = path.with_name(f".{path.stem}.tmp-{os.getpid()}-{threading.get_ident()}{path.suffix}")
    try:
        write(tmp)
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_private_text(path: Path, text: str) -> None:
    """Replace ``path`` atomically with a 0600 file whatever the umask (a symlink there is replaced, not followed)."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            os.fchmod(out.fileno(), FILE_MODE)  # an odd umask (0o177) could have taken the owner's own bits
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
