"""Which commit put each line of a shared file where it is: what an import records as a memory's origin.

A shared memories file names a writer inside each line (``recorded_by``), which anyone can type; git knows who
committed the line. ``git blame --porcelain`` gives, per line of the work tree's file, the commit that last
changed it (its author and date as git records them) or that the line is not committed yet. Best effort: no
git, no repository, an untracked file or a slow history give no commits, and the import goes on without them.
"""

from __future__ import annotations

import logging
import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

BLAME_TIMEOUT_S = 60  # one file's history; a shared file has hundreds of commits at most, each a small diff
UNCOMMITTED_SHA = "0" * 40  # what blame names a line of the work tree that no commit holds yet
MAX_AUTHOR_CHARS = 200  # a name git recorded: anyone chose it, so it is cut like any claim
_HEADER = re.compile(r"^([0-9a-f]{40}) \d+ (\d+)(?: \d+)?$")


def line_commits(root: Path, path: Path) -> dict[int, dict[str, Any]]:
    """1-based line → ``{"commit", "author", "date"}`` (or ``{"uncommitted": True}``) for ``path`` in the work
    tree of the repository at ``root``; empty when git cannot say."""
    try:
        rel = Path(path).resolve().relative_to(Path(root).resolve())
    except (OSError, ValueError):
        return {}  # not inside the work tree (another file, standard input)
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "blame", "--porcelain", "--", rel.as_posix()],
            capture_output=True, timeout=BLAME_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as exc:
        log.info("git blame of %s failed: %s", rel, exc)
        return {}
    if done.returncode != 0:
        log.info("git blame of %s: %s", rel, done.stderr.decode("utf-8", "replace").strip()[:200])
        return {}
    return parse_porcelain(done.stdout.decode("utf-8", "replace"))


def parse_porcelain(text: str) -> dict[int, dict[str, Any]]:
    """The line → commit map of ``git blame --porcelain`` output (commit details appear once per commit)."""
    commits: dict[str, dict[str, Any]] = {}
    out: dict[int, dict[str, Any]] = {}
    current: str | None = None
    for raw in text.split("\n"):
        if raw.startswith("\t"):
            current = None  # the line's content: the next header starts another line
            continue
        header = _HEADER.match(raw)
        if header is not None and current is None:
            current = header.group(1)
            info = commits.setdefault(current, {})
            out[int(header.group(2))] = info
            continue
        if current is None:
            continue
        key, _, value = raw.partition(" ")
        info = commits[current]
        if key == "author":
            info["author"] = " ".join(value.split())[:MAX_AUTHOR_CHARS]
        elif key == "author-time" and value.isdigit():
            info["date"] = datetime.fromtimestamp(int(value), UTC).strftime("%Y-%m-%d")
    for sha, info in commits.items():
        if sha == UNCOMMITTED_SHA:
            info.clear()
            info["uncommitted"] = True
        else:
            info["commit"] = sha
    return out
