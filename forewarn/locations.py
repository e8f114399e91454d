"""Where a workspace and its data are, worked out without creating, checking or importing anything heavy.

A hook call runs on every tool call of an agent and must decide in a few milliseconds whether this folder has
any Forewarn data at all; ``forewarn.paths`` (which creates and polices the folders) builds on these.
``platformdirs`` is imported only when ``FOREWARN_HOME`` does not name the data dir.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

try:  # CPython's own SHA-1: the same digest as hashlib's without loading OpenSSL (a few ms on every hook call)
    from _sha1 import sha1  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # another Python
    from hashlib import sha1

HOME_ENV = "FOREWARN_HOME"
WORKSPACE_MARKER = ".forewarn"  # a folder holding it is a workspace root, wherever git's root is
GIT_MARKER = ".git"  # a directory in a work tree, a file in a linked worktree or submodule
WORKSPACES = "workspaces"


def data_root() -> Path:
    """The data dir's path (``FOREWARN_HOME``, else the platform's user data dir); nothing is created."""
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("forewarn"))


def workspace_id(root: Path) -> str:
    """A stable, readable id for a workspace: its folder name plus a hash of its absolute path."""
    resolved = str(Path(root).resolve())
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(resolved).name or "root")[:40]
    digest = sha1(resolved.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"{slug}-{digest}"


def workspace_data(root: Path) -> Path:
    """Where the workspace at ``root`` keeps its data (``forewarn.paths.workspace_dir`` creates it)."""
    return data_root() / WORKSPACES / workspace_id(root)


def find_workspace_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` holding ``.forewarn/``, else git's work tree root, else ``start``."""
    start = start.resolve()
    candidates = [start, *start.parents]
    for folder in candidates:
        if (folder / WORKSPACE_MARKER).is_dir():
            return folder
    for folder in candidates:
        if (folder / GIT_MARKER).exists():
            return folder
    return start
