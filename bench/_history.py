"""Real history for the scale benchmarks: the corpora's git bundles cloned once, and their commits read back.

``clone("express")`` clones ``$FOREWARN_CORPORA/express.bundle`` (default ``../shared/corpora``, as
``code_search_bench.py``) into ``bench/.corpora/<name>-git`` on its default branch (main or master, whichever
the bundle holds) and returns the work tree; later calls reuse it. ``commits(root)`` reads every non-merge
commit reachable from HEAD, newest first: sha, author date, subject, body and the files it changed.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
CORPORA_DIR = BENCH_DIR / ".corpora"
SHARED_CORPORA = Path(os.environ.get("FOREWARN_CORPORA", BENCH_DIR.parent.parent / "shared" / "corpora"))
BRANCHES = ("main", "master")
PR_SUFFIX_RE = re.compile(r"\s*\((#\d+(, )?)+\)\s*$")  # "Fix the router (#123)": the number says nothing


@dataclass(frozen=True)
class Commit:
    sha: str
    at: float  # author date, epoch seconds
    author: str
    subject: str  # the first line, a trailing pull-request number removed
    body: str  # the rest of the message, whitespace collapsed
    files: tuple[str, ...]  # paths changed, as named at that commit


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def clone(name: str) -> Path:
    """The corpus' work tree, cloned from its bundle once."""
    target = CORPORA_DIR / f"{name}-git"
    if (target / ".git").is_dir():
        return target
    bundle = SHARED_CORPORA / f"{name}.bundle"
    if not bundle.is_file():
        raise SystemExit(f"no {bundle} (set FOREWARN_CORPORA to the folder holding {name}.bundle)")
    heads = subprocess.run(["git", "bundle", "list-heads", str(bundle)], check=True, capture_output=True, text=True)
    names = {line.split()[-1].removeprefix("refs/heads/") for line in heads.stdout.splitlines() if line.strip()}
    branch = next((b for b in BRANCHES if b in names), None)
    if branch is None:
        raise SystemExit(f"{bundle} holds none of the branches {', '.join(BRANCHES)}")
    CORPORA_DIR.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "-q", "-b", branch, str(bundle), str(target)], check=True)
    return target


def commits(root: Path) -> list[Commit]:
    """Every non-merge commit reachable from HEAD, newest first."""
    fmt = "--format=%x1e%H%x1f%at%x1f%an%x1f%B%x1d"  # %at: epoch seconds (some dates carry a corrupt zone)
    log = git(root, "log", "HEAD", "--no-merges", "--no-renames", "--name-only", fmt)
    out: list[Commit] = []
    for record in log.split("\x1e")[1:]:
        head, _, names = record.partition("\x1d")
        sha, date, author, message = head.split("\x1f", 3)
        subject, _, body = message.strip().partition("\n")
        files = tuple(n for n in names.strip().split("\n") if n)
        out.append(
            Commit(
                sha,
                float(date),
                author,
                PR_SUFFIX_RE.sub("", subject).strip(),
                " ".join(body.split()),
                files,
            )
        )
    return out
