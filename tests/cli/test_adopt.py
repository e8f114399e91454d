"""A moved or renamed workspace (F14): real git repositories moved with ``mv``, then re-attached with
``forewarn memory adopt``; nothing is ever deleted."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from forewarn import paths
from tests.cli.conftest import Forewarn, git, git_repo

GOTCHA = "invoice totals round half-even, never half-up"


def mv(src: Path, dst: Path) -> Path:
    subprocess.run(["mv", str(src), str(dst)], check=True)
    return dst


@pytest.fixture
def moved(forewarn: Forewarn, tmp_path: Path) -> tuple[Path, Path]:
    """``shop`` with one memory, then ``mv shop shop-renamed``: (old path, new path)."""
    old = git_repo(tmp_path / "shop")
    git(old, "remote", "add", "origin", "https://alice:ghp_secret@example.com/acme/shop.git")
    done = forewarn("remember", GOTCHA, "--file", "billing/invoice.py", cwd=old)
    assert done.returncode == 0, done.stderr
    return old, mv(old, tmp_path / "shop-renamed")


def record(root: Path) -> dict[str, object]:
    data = paths.read_workspace_record(paths.data_dir() / "workspaces" / paths.workspace_id(root))
    assert data is not None
    return data


def test_the_repository_is_recorded_without_credentials(forewarn: Forewarn, tmp_path: Path) -> None:
    root = git_repo(tmp_path / "shop")
    git(root, "remote", "add", "origin", "https://alice:ghp_secret@example.com/acme/shop.git")
    assert forewarn("index", "--no-embed", cwd=root).returncode == 0  # a read alone creates no data folder
    recorded = record(root)["repository"]
    assert isinstance(recorded, dict)
    assert recorded["remotes"] == ["https://example.com/acme/shop.git"]
    commit = subprocess.run(["git", "rev-list", "--max-parents=0", "HEAD"], cwd=root, capture_output=True, text=True)
    assert recorded["root_commits"] == [commit.stdout.strip()] and recorded["prefix"] == ""


def test_a_moved_workspace_is_detected_and_adopted(forewarn: Forewarn, moved: tuple[Path, Path]) -> None:
    old, new = moved
    listed = forewarn("memory", "list", cwd=new)
    assert listed.returncode == 0 and listed.stdout == "No memories.\n"
    assert f"{old} (no longer there) holds 1 memory of the same repository" in listed.stderr
    assert "forewarn memory adopt --auto" in listed.stderr
    old_data = paths.data_dir() / "workspaces" / paths.workspace_id(old)
    assert (old_data / "memory.db").is_file()

    done = forewarn("memory", "adopt", "--auto", "--json", cwd=new)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["old_root"], report["new_root"], report["memories"]) == (str(old), str(new), 1)
    assert report["set_aside"] is None  # reading here left no empty data folder to set aside

    after = forewarn("memory", "list", cwd=new)
    assert GOTCHA in after.stdout and "adopt" not in after.stderr
    assert not old_data.exists()
    assert record(new)["root"] == str(new) and record(new)["adopted_from"] == str(old)
    search = forewarn("search", "rounding of totals", "--lexical", cwd=new)
    assert GOTCHA in search.stdout


def test_adopt_by_old_path_works_for_records_that_predate_the_repository_field(
    forewarn: Forewarn, moved: tuple[Path, Path]
) -> None:
    old, new = moved
    old_data = paths.data_dir() / "workspaces" / paths.workspace_id(old)
    paths.write_workspace_record(old_data, {"root": str(old)})  # as an older Forewarn wrote it
    auto = forewarn("memory", "adopt", "--auto", cwd=new)
    assert auto.returncode == 1 and auto.stderr.startswith("forewarn: no moved workspace of the same repository")
    done = forewarn("memory", "adopt", str(old), cwd=new)
    assert done.returncode == 0, done.stderr
    assert f"Adopted the 1 memory of {old} into {new}." in done.stdout
    assert GOTCHA in forewarn("memory", "list", cwd=new).stdout


def test_adopt_refuses_what_would_hide_memories(forewarn: Forewarn, moved: tuple[Path, Path], tmp_path: Path) -> None:
    old, new = moved
    still_there = git_repo(tmp_path / "other")
    refused = forewarn("memory", "adopt", str(still_there), cwd=new)
    assert refused.returncode == 1 and "still exists and keeps its own memories" in refused.stderr
    unknown = forewarn("memory", "adopt", str(tmp_path / "never-was"), cwd=new)
    assert (
        unknown.returncode == 1 and unknown.stderr == f"forewarn: no memories were kept for {tmp_path / 'never-was'}\n"
    )

    assert forewarn("remember", "a memory of the new path", cwd=new).returncode == 0
    busy = forewarn("memory", "adopt", str(old), cwd=new)
    assert busy.returncode == 1 and "already has 1 memory of its own" in busy.stderr
    assert (paths.data_dir() / "workspaces" / paths.workspace_id(old) / "memory.db").is_file()  # untouched


def test_another_workspace_of_a_monorepo_is_not_offered(forewarn: Forewarn, tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "mono")
    (repo / "api" / ".forewarn").mkdir(parents=True)
    (repo / "web" / ".forewarn").mkdir(parents=True)
    assert forewarn("remember", "api gotcha", cwd=repo / "api").returncode == 0
    mv(repo / "api", repo / "api-v2")  # api's data dir now points at a folder that is gone
    web = forewarn("memory", "list", cwd=repo / "web")
    assert web.stdout == "No memories.\n" and "adopt" not in web.stderr  # same repository, another place in it
