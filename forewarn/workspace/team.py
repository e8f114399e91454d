"""What sharing memories through git needs from git: who is writing, which commit an export was made at,
the shared file as it was at a ref, and the merge driver's registration (``forewarn init``).

Every read here is best effort: a missing git, no repository or no configured identity give None, and
never fail the write that asked (a memory is stored without its writer's name rather than not at all).
"""

from __future__ import annotations

import functools
import logging
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from forewarn import untrusted
from forewarn.memory import transfer
from forewarn.workspace import history

log = logging.getLogger(__name__)

MERGE_DRIVER = "forewarn"  # the name in .gitattributes (merge=forewarn) and in git config (merge.forewarn.*)
MERGE_DRIVER_NAME = "Forewarn memories: merged by id, newer wins, nothing lost"
ATTRIBUTES_LINE = f"{transfer.DEFAULT_RELATIVE_PATH.as_posix()} merge={MERGE_DRIVER}"
ATTRIBUTES_FILE = ".gitattributes"
MAX_ATTRIBUTES_BYTES = 1 << 20  # a .gitattributes is a few hundred bytes; more is not one to edit
# what git substitutes: the ancestor's, ours (replaced by the result) and theirs' temporary files, and the path
# in the tree (%P, which the driver checks; registrations from before it passed only the first three still work)
DRIVER_ARGS = "merge-driver %O %A %B %P"


class TeamError(history.GitError):
    """git refused something sharing needs (no repository, an unknown ref)."""


def _git_or_none(root: Path, *args: str) -> str | None:
    try:
        out = history.git(root, *args, check=False)
    except (history.GitError, OSError, subprocess.SubprocessError):
        return None
    return out.strip() or None


@functools.lru_cache(maxsize=64)
def git_identity(root: Path) -> str | None:
    """``Name <email>`` from the git config seen in ``root`` (read once per process), or None."""
    name = _git_or_none(root, "config", "user.name")
    email = _git_or_none(root, "config", "user.email")
    if name and email:
        return f"{name} <{email}>"
    return name or (f"<{email}>" if email else None)


def head_or_none(root: Path) -> str | None:
    """HEAD's sha, or None outside a repository or before the first commit."""
    return _git_or_none(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")


def shared_file_at(root: Path, ref: str) -> bytes | None:
    """The shared file (``.forewarn/memories.jsonl`` of this workspace) as committed at ``ref``; None when
    it did not exist then. TeamError when ``ref`` names no commit."""
    if history.resolve_commit(root, ref) is None:
        raise TeamError(f"'{ref}' names no commit in the git repository at {root}")
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "show", f"{ref}:./{transfer.DEFAULT_RELATIVE_PATH.as_posix()}"],
            capture_output=True, timeout=history.GIT_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as exc:
        raise TeamError(f"git show failed: {exc}") from exc
    return done.stdout if done.returncode == 0 else None


@dataclass
class InitReport:
    root: Path
    attributes: Path
    changed: list[str] = field(default_factory=list)  # what this run added or updated; empty: already set up

    def to_dict(self) -> dict[str, object]:
        return {"root": str(self.root), "attributes": str(self.attributes), "changed": self.changed}


def register_merge_driver(root: Path, command: str) -> InitReport:
    """Set up ``root``'s repository to merge the shared file with ``command`` (idempotent).

    ``.gitattributes`` beside the workspace gains ``.forewarn/memories.jsonl merge=forewarn`` (once), and the
    repository's own config (``.git/config``, never the global one) names the driver and its command. Both
    are repository files a clone may have planted as symbolic links (``.gitattributes -> ../.bashrc``): a
    link is refused with ``untrusted.RefusedWrite`` naming it, before anything is written, and the
    attributes are written by replacing the file in the work tree, never through a link.
    """
    root = Path(root).resolve()
    if _git_or_none(root, "rev-parse", "--is-inside-work-tree") != "true":
        raise TeamError(f"{root} is not inside a git repository: the merge driver is registered in one")
    report = InitReport(root, root / ATTRIBUTES_FILE)
    _check_local_config(root)
    dir_fd = untrusted.open_folder(root, "", create=False)
    try:
        raw = untrusted.read_file_at(dir_fd, ATTRIBUTES_FILE, MAX_ATTRIBUTES_BYTES, report.attributes)
        existing = (raw or b"").decode("utf-8", "surrogateescape")
        if ATTRIBUTES_LINE not in (line.strip() for line in existing.splitlines()):
            sep = "" if not existing or existing.endswith("\n") else "\n"
            data = (existing + sep + ATTRIBUTES_LINE + "\n").encode("utf-8", "surrogateescape")
            untrusted.replace_file_at(dir_fd, ATTRIBUTES_FILE, data, report.attributes)
            report.changed.append(f"{ATTRIBUTES_FILE}: {ATTRIBUTES_LINE}")
    finally:
        os.close(dir_fd)
    driver = f"{command} {DRIVER_ARGS}"
    for key, value in ((f"merge.{MERGE_DRIVER}.name", MERGE_DRIVER_NAME), (f"merge.{MERGE_DRIVER}.driver", driver)):
        if _git_or_none(root, "config", "--local", "--get", key) != value:
            history.git(root, "config", "--local", key, value)
            report.changed.append(f"git config {key} = {value}")
    return report


def _check_local_config(root: Path) -> None:
    """The repository's own config file is refused when it is a symbolic link (git would write through it)."""
    rel = _git_or_none(root, "rev-parse", "--git-path", "config")
    if rel is None:
        raise TeamError(f"git cannot tell where the repository's config of {root} is")
    path = (root / rel) if not Path(rel).is_absolute() else Path(rel)
    if path.is_symlink():
        raise untrusted.RefusedWrite(
            f"{path} is a symbolic link (to {os.readlink(path)}); Forewarn never writes through one, so nothing "
            f"was written"
        )
