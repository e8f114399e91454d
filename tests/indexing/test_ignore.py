"""Gitignore matching: git's answers, in time bounded by the pattern and the path (F5)."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from forewarn.config import IndexSettings
from forewarn.indexing.ignore import IgnoreRules, parse_pattern
from forewarn.indexing.scanner import Scanner

# every construct gitignore(5) documents, with names that each one matches and misses
GITIGNORE = r"""
# a comment, then a blank line

*.log
!keep.log
/root_only.txt
build/
doc/*.txt
**/cache
lib/**/gen
vendor/**
!vendor/ours.txt
[abc]x.txt
[!m-z]y.txt
[[:digit:]]z.txt
q?.txt
\#hash.txt
\!bang.txt
trail.txt<3 spaces>
space\ .txt
a*a*a*a*b
""".replace("<3 spaces>", "   ")  # trailing spaces are dropped; written out here they would be invisible
NESTED = {"sub/.gitignore": "/here.txt\n!*.log\n", "sub/deeper/.gitignore": "*.txt\n!again.txt\n"}
FILES = [
    "app.log", "keep.log", "sub/app.log", "root_only.txt", "sub/root_only.txt", "build/out.txt", "sub/build/out.txt",
    "doc/a.txt", "doc/x/a.txt", "cache/c.txt", "sub/cache/c.txt", "lib/gen/g.txt", "lib/x/y/gen/g.txt", "lib/gent.txt",
    "vendor/theirs.txt", "vendor/ours.txt", "vendor/deep/ours.txt", "ax.txt", "dx.txt", "ay.txt", "zy.txt", "5z.txt",
    "zz.txt", "q1.txt", "q12.txt", "#hash.txt", "!bang.txt", "trail.txt", "space .txt", "space.txt", "here.txt",
    "sub/here.txt", "sub/deeper/d.txt", "sub/deeper/again.txt", "sub/deeper/x.log", "a" * 200 + "b", "a" * 200 + "c",
]  # fmt: skip


def make_tree(root: Path) -> None:
    (root / ".gitignore").parent.mkdir(parents=True, exist_ok=True)
    (root / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    for rel, text in NESTED.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    for rel in FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n", encoding="utf-8")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to compare with")
def test_the_scanner_keeps_exactly_the_files_git_does(tmp_path: Path) -> None:
    # (no F5 pattern here: git 2.39's own wildmatch spins on "a*a*…*b" against a long name ending in "c")
    make_tree(tmp_path)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    listed = subprocess.run(
        ["git", "-C", str(tmp_path), "ls-files", "--others", "--exclude-standard", "-z"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    by_git = {rel for rel in listed.split("\0") if rel and not rel.endswith(".gitignore")}
    ours = {f.rel for f in Scanner(tmp_path, IndexSettings()).scan().files} - {".gitignore", *NESTED}
    assert ours == by_git
    assert "vendor/ours.txt" in ours and "vendor/theirs.txt" not in ours  # "dir/**" leaves the dir re-includable


def test_documented_semantics_without_git(tmp_path: Path) -> None:
    """What git 2.39 keeps of this tree (``git ls-files --others --exclude-standard``), for machines without git."""
    make_tree(tmp_path)
    ours = {f.rel for f in Scanner(tmp_path, IndexSettings()).scan().files} - {".gitignore", *NESTED}
    assert ours == {
        "a" * 200 + "c", "doc/x/a.txt", "dx.txt", "here.txt", "keep.log", "lib/gent.txt", "q12.txt", "space.txt",
        "sub/app.log", "sub/deeper/again.txt", "sub/deeper/x.log", "sub/root_only.txt", "vendor/ours.txt", "zy.txt",
        "zz.txt",
    }  # fmt: skip


def test_lines_git_never_matches_are_dropped() -> None:
    for line in ["", "   ", "# comment", "!", "/", "a//b", "[abc", "[[:nope:]]x", "trailing\\"]:
        assert parse_pattern(line) is None, line
    assert IgnoreRules.from_lines(["# only a comment", ""]) is None


def test_pathological_patterns_match_in_bounded_time() -> None:
    """F5: each of these takes Python's backtracking regex exponential time on the names below."""
    rules = IgnoreRules.from_lines(
        [
            "a*a*a*a*a*a*a*a*a*a*a*a*a*a*b",
            "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*c",
            "?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*/",
            "**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/b",
            "[a]*[a]*[a]*[a]*[a]*[a]*[a]*[a]*[a]*[a]*[!a]",
        ]
    )
    assert rules is not None
    names = ["a" * 250 + ".py", "a" * 250, "/".join(["a"] * 200), "x/" + "a" * 250]
    started = time.perf_counter()
    verdicts = [rules.verdict(name, is_dir) for name in names for is_dir in (False, True)]
    elapsed = time.perf_counter() - started
    assert elapsed < 0.1, f"{elapsed:.3f} s"
    # the last pattern matches a name of "a"s ending in another character; "?*…/" a directory of 16+
    assert verdicts == [True, True, None, True, None, None, None, True]
