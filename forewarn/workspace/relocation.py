"""Workspaces that moved: find the memories a renamed or moved folder left behind, and re-attach them.

A workspace's data dir is named after its path (``paths.workspace_id``), so ``mv shop shop-v2`` starts
``shop-v2`` with no memories while ``shop``'s stay in its old data dir. ``workspace.json`` records the
repository (``forewarn.repository``), which lets us recognise the old data dir: same repository, and
its recorded root no longer exists. Adopting renames that data dir to the new path's; nothing is deleted.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from forewarn import paths, repository
from forewarn.errors import ForewarnError
from forewarn.memory.store import MemoryStore

log = logging.getLogger(__name__)

MEMORY_DB = "memory.db"
ADOPT_COMMAND = "forewarn memory adopt"


class AdoptError(ForewarnError):
    """Memories that cannot be re-attached as asked (nothing was changed)."""


@dataclass(frozen=True)
class MovedWorkspace:
    data_dir: Path  # workspaces/<old id>
    old_root: Path  # where the workspace was; no longer exists
    memories: int | None  # None: its database could not be read (adopting still moves it, untouched)

    def describe(self) -> str:
        return f"{self.old_root} (no longer there) holds {self.count_text()}"

    def count_text(self) -> str:
        return "memories" if self.memories is None else f"{self.memories} memor{'y' if self.memories == 1 else 'ies'}"


@dataclass(frozen=True)
class Adopted:
    old_root: Path
    new_root: Path
    data_dir: Path
    set_aside: Path | None  # the new path's own (empty) data dir, renamed out of the way


def moved_here(root: Path) -> list[MovedWorkspace]:
    """Data dirs of this repository whose recorded root is gone and which hold memories, oldest path first."""
    identity = repository.identify(Path(root).resolve())
    if identity is None:
        return []
    found = []
    for wdir, record in _records(exclude=Path(root)):
        recorded = repository.RepoIdentity.from_json(record.get("repository"))
        if recorded is None or not identity.same_repository(recorded):
            continue
        old_root = Path(str(record.get("root", "")))
        if not old_root.is_absolute() or old_root.exists():
            continue  # another clone that still exists keeps its own memories
        moved = MovedWorkspace(wdir, old_root, memory_count(wdir))
        if moved.memories != 0:
            found.append(moved)
    return sorted(found, key=lambda m: str(m.old_root))


def hint(root: Path) -> str | None:
    """What to tell a user whose workspace has no memories while a moved copy of it has some; else None."""
    found = moved_here(root)
    if not found:
        return None
    if len(found) == 1:
        return (
            f"this workspace has no memories, but {found[0].describe()} of the same repository; "
            f"to bring them here run: {ADOPT_COMMAND} --auto"
        )
    listed = "; ".join(m.describe() for m in found)
    return f"this workspace has no memories, but moved copies of it do: {listed}; run: {ADOPT_COMMAND} OLD_PATH"


def find_old(old_root: Path) -> MovedWorkspace:
    """The data dir of the workspace that was at ``old_root`` (recorded there, or named after that path)."""
    old = Path(os.path.abspath(os.path.expanduser(old_root)))
    if old.exists():
        raise AdoptError(
            f"{old} still exists and keeps its own memories; adopt re-attaches the memories of a workspace that "
            "was moved or renamed (to copy memories between folders, use memory export and memory import)"
        )
    for wdir, record in _records():
        if record.get("root") == str(old):
            return MovedWorkspace(wdir, old, memory_count(wdir))
    named = paths.workspaces_dir() / paths.workspace_id(old)
    if (named / MEMORY_DB).is_file():  # a record too old or damaged to name its root
        return MovedWorkspace(named, old, memory_count(named))
    raise AdoptError(f"no memories were kept for {old}")


def adopt(moved: MovedWorkspace, new_root: Path) -> Adopted:
    """Rename ``moved``'s data dir to ``new_root``'s and record the new root. Never deletes anything.

    The new path's own data dir, if any, must hold no memories; it is renamed aside (``…-set-aside-<time>``).
    """
    new_root = Path(new_root).resolve()
    workspaces = paths.workspaces_dir()
    target = workspaces / paths.workspace_id(new_root)
    if moved.data_dir == target:
        raise AdoptError(f"the memories of {moved.old_root} are already this workspace's")
    set_aside = None
    if target.exists():
        here = memory_count(target)
        if here != 0:
            count = MovedWorkspace(target, new_root, here).count_text()
            raise AdoptError(
                f"{new_root} already has {count} of its own ({target}); adopting would hide them, so nothing was "
                f"changed. Export them first (forewarn memory export), then move {target} aside and adopt again"
            )
        set_aside = target.with_name(f"{target.name}-set-aside-{time.strftime('%Y%m%dT%H%M%S')}")
        os.rename(target, set_aside)
    os.rename(moved.data_dir, target)
    record = paths.read_workspace_record(target) or {}
    identity = repository.identify(new_root)
    record.update(
        root=str(new_root),
        repository=identity.to_json() if identity else record.get("repository"),
        adopted_from=str(moved.old_root),
    )
    paths.write_workspace_record(target, record)
    log.info("adopted the memories of %s into %s", moved.old_root, new_root)
    return Adopted(moved.old_root, new_root, target, set_aside)


def memory_count(wdir: Path) -> int | None:
    """How many memories a data dir holds (0 without a database; None when it cannot be read)."""
    if not (wdir / MEMORY_DB).is_file():
        return 0
    try:
        store = MemoryStore(wdir / MEMORY_DB)
    except (ForewarnError, sqlite3.Error, OSError) as exc:
        log.warning("cannot count the memories in %s: %s", wdir, exc)
        return None
    try:
        return store.count()
    except (ForewarnError, sqlite3.Error) as exc:
        log.warning("cannot count the memories in %s: %s", wdir, exc)
        return None
    finally:
        store.close()


def _records(exclude: Path | None = None) -> list[tuple[Path, dict[str, object]]]:
    skip = paths.workspace_id(exclude) if exclude is not None else None
    found = []
    for wdir in sorted(paths.workspaces_dir().iterdir()):
        if wdir.name == skip or not wdir.is_dir() or wdir.is_symlink():
            continue
        try:
            record = paths.read_workspace_record(wdir)
        except ForewarnError as exc:  # a planted symlink: that data dir is not offered
            log.warning("%s", exc)
            continue
        if record is not None:
            found.append((wdir, record))
    return found
