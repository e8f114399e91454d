"""A cloned repository is untrusted input: the hostile-input review's F4, F5 and F13, indexed for real.

Each workspace is indexed by a child process with a memory limit and a timeout, so the regression a
test guards against (reading ``/dev/zero`` into memory, a regex that never returns) fails the test
instead of taking the machine down with it.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from forewarn.config import IndexSettings
from forewarn.indexing import scanner as sc
from forewarn.indexing.scanner import Scanner

CHILD_MEMORY_BYTES = 2 * 1024**3  # the review's OOM needed ~2.7 GB; a fixed indexer stays far below this
CHILD_TIMEOUT_S = 60  # a fixed indexer takes a second or two; the F5 regression spins for ever
DEEP_LEVELS = 1000  # the review saw RecursionError from about 490 levels
PATHOLOGICAL_PATTERN = "a*a*a*a*a*a*a*a*a*a*a*a*a*a*b"  # F5, verbatim from the review
LONG_NAME = "a" * 200 + ".py"

INDEX_IN_CHILD = """
import json, sys
from pathlib import Path
from forewarn.config import Settings
from forewarn.indexing.indexer import Indexer
indexer = Indexer(Path(sys.argv[1]), Settings())
try:
    print(json.dumps(indexer.index().to_dict()))
finally:
    indexer.close()
"""


def index_in_child(root: Path) -> dict[str, Any]:
    """A real index of ``root`` in a process that cannot take more than CHILD_MEMORY_BYTES."""

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY_BYTES, CHILD_MEMORY_BYTES))

    done = subprocess.run(
        [sys.executable, "-c", INDEX_IN_CHILD, str(root)],
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT_S,
        preexec_fn=limit_memory,
        env=os.environ.copy(),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def write(root: Path, rel: str, text: str = "def f():\n    return 1\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_ignore_files_that_are_devices_fifos_or_huge_are_skipped_with_reasons(tmp_path: Path) -> None:
    """F4: `.gitignore -> /dev/zero` used to read until the OOM killer chose a victim."""
    ws = tmp_path / "ws"
    write(ws, "main.py")
    write(ws, "pkg/mod.py")
    write(ws, "fifo/mod.py")
    write(ws, "big/mod.py")
    os.symlink("/dev/zero", ws / ".gitignore")
    os.symlink("/dev/zero", ws / "pkg" / ".forewarnignore")
    os.mkfifo(ws / "fifo" / ".gitignore")  # opening it for reading would wait for a writer for ever
    write(ws, "big/.gitignore", "mod.py\n" + "#" * sc.MAX_IGNORE_FILE_BYTES)
    started = time.perf_counter()
    report = index_in_child(ws)
    assert time.perf_counter() - started < CHILD_TIMEOUT_S
    assert sorted(report["added"]) == ["big/mod.py", "fifo/mod.py", "main.py", "pkg/mod.py"]
    assert report["skipped"] == {
        ".gitignore": sc.SKIP_SYMLINK_OUTSIDE,  # /dev/zero is outside; a device inside is not regular either
        "pkg/.forewarnignore": sc.SKIP_SYMLINK_OUTSIDE,
        "fifo/.gitignore": sc.SKIP_NOT_REGULAR,
        "big/.gitignore": sc.SKIP_OVERSIZED,  # not half-applied: the whole file is refused
    }


def test_linked_ignore_file_applies_inside_the_workspace_and_not_from_outside(tmp_path: Path) -> None:
    """A monorepo may link one shared .gitignore into its folders; a link out of the workspace is refused."""
    outside = write(tmp_path, "outside/ignore", "*.py\n")
    ws = tmp_path / "ws"
    write(ws, "shared.gitignore", "generated_*.py\n")
    write(ws, "a/generated_x.py")
    write(ws, "a/keep.py")
    write(ws, "b/generated_y.py")
    os.symlink("../shared.gitignore", ws / "a" / ".gitignore")
    os.symlink(outside, ws / "b" / ".gitignore")
    result = Scanner(ws, IndexSettings(), want=lambda rel: rel.endswith(".py")).scan()
    assert [f.rel for f in result.files] == ["a/keep.py", "b/generated_y.py"]
    assert result.skipped == {"b/.gitignore": sc.SKIP_SYMLINK_OUTSIDE}


def test_pathological_ignore_pattern_indexes_in_well_under_a_second(tmp_path: Path) -> None:
    """F5: pathspec's regex for this line backtracked for ever on a long run of "a"s."""
    ws = tmp_path / "ws"
    write(ws, ".gitignore", f"{PATHOLOGICAL_PATTERN}\n*.tmp.py\n")
    write(ws, LONG_NAME)
    write(ws, "a" * 200 + "b")  # the pattern matches this one: ignored, and no language wants it anyway
    write(ws, "scratch.tmp.py")
    write(ws, "deep/" + "a" * 150 + "/" + LONG_NAME)
    report = index_in_child(ws)  # first, in a child with a timeout: the regression spins for ever
    assert sorted(report["added"]) == [LONG_NAME, f"deep/{'a' * 150}/{LONG_NAME}"]
    assert report["timings"]["scan"] < 0.5
    started = time.perf_counter()
    result = Scanner(ws, IndexSettings(), want=lambda rel: rel.endswith(".py")).scan()
    scan_s = time.perf_counter() - started
    assert [f.rel for f in result.files] == sorted(report["added"])
    assert scan_s < 0.5, f"scan took {scan_s:.3f} s"


def test_a_tree_a_thousand_levels_deep_is_indexed(tmp_path: Path) -> None:
    """F13: the recursive walk raised RecursionError from about 490 levels and indexed nothing."""
    ws = tmp_path / "ws"
    write(ws, "top.py")
    deep_dir = "/".join(["d"] * DEEP_LEVELS)
    level = ws
    for _ in range(DEEP_LEVELS):  # one by one: Path.mkdir(parents=True) and os.makedirs recurse too
        level = level / "d"
        level.mkdir()
    write(ws, f"{deep_dir}/bottom.py")
    write(ws, f"{deep_dir}/.gitignore", "skip_me.py\n")  # ignore files at the bottom still apply
    write(ws, f"{deep_dir}/skip_me.py")
    result = Scanner(ws, IndexSettings(), want=lambda rel: rel.endswith(".py")).scan()
    assert [f.rel for f in result.files] == [f"{deep_dir}/bottom.py", "top.py"]
    assert Scanner(ws, IndexSettings()).check(f"{deep_dir}/skip_me.py") is None
    try:
        report = index_in_child(ws)
        assert sorted(report["added"]) == [f"{deep_dir}/bottom.py", "top.py"]
    finally:
        remove_bottom_up(level)  # pytest's own clean-up (shutil.rmtree) recurses and fails on this tree


def remove_bottom_up(bottom: Path) -> None:
    for level in [bottom, *bottom.parents]:
        if level.name != "d":
            return
        for entry in os.scandir(level):
            os.unlink(entry.path)
        level.rmdir()
