"""Which repository a workspace is: enough to recognise it again after the folder was moved or renamed.

A workspace's data dir is named after its path, so ``mv repo repo-renamed`` leaves its memories behind.
``workspace.json`` therefore also records the repository's root commits, the fetch URLs of its remotes
(credentials stripped) and where the workspace sits inside the work tree; two records with the same
place and a shared root commit or remote are the same repository's workspace.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GIT_TIMEOUT_S = 10.0  # rev-list walks the whole history: seconds on the largest repositories, then we give up
# an untrusted repository's config must not run anything: git reads the index for none of these commands,
# and the fsmonitor hook is switched off anyway
GIT_SAFE_OPTIONS = ("-c", "core.fsmonitor=false")


@dataclass(frozen=True)
class RepoIdentity:
    root_commits: tuple[str, ...]  # ``git rev-list --max-parents=0 HEAD``: stays the same wherever the clone lives
    remotes: tuple[str, ...]  # fetch URLs without user names or tokens
    prefix: str  # the workspace's folder inside the work tree ("" at the top): a monorepo's workspaces differ

    def to_json(self) -> dict[str, Any]:
        return {"root_commits": list(self.root_commits), "remotes": list(self.remotes), "prefix": self.prefix}

    @classmethod
    def from_json(cls, data: Any) -> RepoIdentity | None:
        """The identity recorded in ``workspace.json``; None for anything else (old records, hand edits)."""
        if not isinstance(data, dict):
            return None
        commits, remotes, prefix = data.get("root_commits"), data.get("remotes"), data.get("prefix", "")
        if not (isinstance(commits, list) and isinstance(remotes, list) and isinstance(prefix, str)):
            return None
        return cls(tuple(str(c) for c in commits), tuple(str(r) for r in remotes), prefix)

    def same_repository(self, other: RepoIdentity) -> bool:
        """Same place in a work tree of the same repository: a shared root commit or remote URL."""
        if self.prefix != other.prefix:
            return False
        if set(self.root_commits) & set(other.root_commits):
            return True
        return bool({_comparable(u) for u in self.remotes} & {_comparable(u) for u in other.remotes})


def identify(root: Path) -> RepoIdentity | None:
    """``root``'s repository, or None where git is missing, ``root`` is not in a work tree or has no commit."""
    if shutil.which("git") is None:
        return None
    prefix = _git(root, "rev-parse", "--show-prefix")
    commits = _git(root, "rev-list", "--max-parents=0", "HEAD")
    if prefix is None or not commits:
        return None
    remotes = _git(root, "config", "--get-regexp", r"^remote\..*\.url$") or ""
    urls = sorted({strip_credentials(line.split(None, 1)[1]) for line in remotes.splitlines() if " " in line})
    return RepoIdentity(tuple(sorted(commits.split())), tuple(urls), prefix.strip().rstrip("/"))


def strip_credentials(url: str) -> str:
    """``https://user:token@host/x`` -> ``https://host/x``: workspace.json must not keep a token."""
    url = url.strip()
    parts = urllib.parse.urlsplit(url)
    if parts.scheme and "@" in parts.netloc:
        return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))
    return url  # scp-like ``git@host:x.git`` names an account, not a secret


def _comparable(url: str) -> str:
    return url.rstrip("/").removesuffix(".git").lower()


def _git(root: Path, *args: str) -> str | None:
    # GIT_DIR and friends from the caller's shell (a hook, a script) would point git at another repository
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    try:
        done = subprocess.run(
            ["git", *GIT_SAFE_OPTIONS, "-C", str(root), *args],
            capture_output=True, text=True, env=env, timeout=GIT_TIMEOUT_S, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
        return None
    return done.stdout if done.returncode == 0 else None
