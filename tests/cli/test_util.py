"""Workspace root discovery: every command run from a subdirectory finds the root as git does."""

from __future__ import annotations

import json
from pathlib import Path

from forewarn.cli.util import find_workspace_root
from tests.cli.conftest import Forewarn, git, git_repo


def workspace_roots(home: Path) -> list[str]:
    """The roots of every workspace that has data under ``FOREWARN_HOME``."""
    marks = sorted((home / "workspaces").glob("*/workspace.json"))
    return [json.loads(m.read_text(encoding="utf-8"))["root"] for m in marks]


def test_commands_from_a_subdirectory_share_the_git_root(
    tmp_path: Path, forewarn: Forewarn, forewarn_home: Path
) -> None:
    root = git_repo(tmp_path / "shop")
    billing = root / "billing"
    anchored = forewarn("remember", "totals are in cents", "--file", "billing/invoice.py", "--json", cwd=billing)
    assert anchored.returncode == 0, anchored.stderr
    assert json.loads(anchored.stdout)["memory"]["anchor"]["file"] == "billing/invoice.py"
    for argv in (("index", "--json"), ("stats", "--json"), ("search", "rounding", "--json"), ("map", "--json")):
        done = forewarn(*argv, cwd=billing)
        assert done.returncode == 0, (argv, done.stderr)
    assert json.loads(forewarn("index", "--json", cwd=billing).stdout)["root"] == str(root)
    listed = json.loads(forewarn("memory", "list", "--json", cwd=root).stdout)
    assert {m["text"] for m in listed} >= {"totals are in cents"}
    exported = json.loads(forewarn("memory", "export", "--json", cwd=billing).stdout)
    assert Path(exported["path"]) == root / ".forewarn" / "memories.jsonl"
    assert workspace_roots(forewarn_home) == [str(root)]


def test_w_is_the_root_as_given(tmp_path: Path, forewarn: Forewarn, forewarn_home: Path) -> None:
    root = git_repo(tmp_path / "shop")
    done = forewarn("remember", "billing is its own workspace here", "-w", "billing", cwd=root)
    assert done.returncode == 0, done.stderr
    assert workspace_roots(forewarn_home) == [str(root / "billing")]


def test_discovery_order(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "mono")
    deep = root / "services" / "billing" / "src" / "tax"
    deep.mkdir(parents=True)
    assert find_workspace_root(deep) == root  # the git work tree's root
    (root / "services" / "billing" / ".forewarn").mkdir()
    assert find_workspace_root(deep) == root / "services" / "billing"  # a .forewarn/ folder wins
    assert find_workspace_root(root / "services") == root
    (root / "services" / ".forewarn").write_text("not a folder", encoding="utf-8")
    assert find_workspace_root(root / "services") == root  # only a folder marks a workspace
    plain = tmp_path / "plain" / "sub"
    plain.mkdir(parents=True)
    assert find_workspace_root(plain) == plain.resolve()  # no marker at all: the directory itself


def test_linked_worktree_has_a_git_file(tmp_path: Path, forewarn: Forewarn, forewarn_home: Path) -> None:
    root = git_repo(tmp_path / "shop")
    linked = tmp_path / "shop-hotfix"
    git(root, "worktree", "add", "-q", str(linked))
    assert (linked / ".git").is_file()
    assert find_workspace_root(linked / "billing") == linked
    done = forewarn("remember", "hotfix branch gotcha", cwd=linked / "billing")
    assert done.returncode == 0, done.stderr
    assert workspace_roots(forewarn_home) == [str(linked)]


def test_model_info_reads_the_discovered_workspace_settings(tmp_path: Path, forewarn: Forewarn) -> None:
    root = git_repo(tmp_path / "shop")
    (root / ".forewarn").mkdir()
    config = '[embedder]\nenabled = false\nmodel = "repo/evil.gguf"\n'
    (root / ".forewarn" / "config.toml").write_text(config, encoding="utf-8")
    done = forewarn("model", "info", "--json", cwd=root / "billing")
    report = json.loads(done.stdout)
    assert report["configured"]["enabled"] is False  # found from a subdirectory, and a repository may say this
    # ...but not which model file to load: that is the user's own config or the editor's (F9)
    assert report["configured"]["model"] != "repo/evil.gguf"
    assert "'embedder.model' may not be set by a repository" in done.stderr
