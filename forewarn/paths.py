"""Where Forewarn keeps its files.

Memories are user data, so everything lives in the user data dir (outside any work tree, where
``git clean`` cannot reach it). ``FOREWARN_HOME`` overrides the location for tests and for users
who want it elsewhere.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from pathlib import Path

import platformdirs

HOME_ENV = "FOREWARN_HOME"
MODELS_ENV = "FOREWARN_MODELS"  # models are large and shared: tests point HOME elsewhere but keep these
DIR_MODE = 0o700  # memories may contain what a team considers private
FILE_MODE = 0o600  # user data and caches are private to the user: memories may quote code and secrets


def data_dir() -> Path:
    """The root of Forewarn's data, created private (0700) if missing."""
    override = os.environ.get(HOME_ENV)
    root = Path(override).expanduser() if override else Path(platformdirs.user_data_dir("forewarn"))
    return ensure_private_dir(root)


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` and any missing parents as 0700 (``mkdir(parents=True)`` would leave them 0755)."""
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
    return path


def models_dir() -> Path:
    override = os.environ.get(MODELS_ENV)
    return ensure_private_dir(Path(override).expanduser() if override else data_dir() / "models")


def cache_dir() -> Path:
    """Rebuildable caches (embedding cache); safe to delete."""
    return ensure_private_dir(data_dir() / "cache")


def workspace_id(root: Path) -> str:
    """A stable, readable id for a workspace: its folder name plus a hash of its absolute path."""
    resolved = str(Path(root).resolve())
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(resolved).name or "root")[:40]
    digest = hashlib.sha1(resolved.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"{slug}-{digest}"


def workspace_dir(root: Path) -> Path:
    """Per-workspace data: ``index.db`` (rebuildable), ``memory.db`` (user data), vector index."""
    wdir = ensure_private_dir(data_dir() / "workspaces" / workspace_id(root))
    marker = wdir / "workspace.json"
    if not marker.exists():
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps({"root": str(Path(root).resolve())}) + "\n")
    return wdir
