"""The data dir is private: files 0600 and folders 0700 whatever the umask; folders others can write are refused."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from forewarn import paths
from tests.cli.conftest import CLI_TIMEOUT_S, Forewarn, git_repo, plain_env

UNDER_UMASK_000 = """
import os, sys
from pathlib import Path
os.umask(0)
from forewarn.cli.main import main
from forewarn.cli.serve import configure_logging
from forewarn.memory import embedder
ws, log_file, model = sys.argv[1:4]
assert main(["remember", "rounding is half-even", "--file", "billing/invoice.py", "-w", ws]) == 0
configure_logging(Path(log_file), 0)
embedder._memo_sha256(Path(model))  # cache/model_hashes.json: a model given by path is hashed once
"""


def modes(root: Path) -> dict[str, int]:
    found = {str(root): stat.S_IMODE(root.stat().st_mode)}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            found[str(path)] = stat.S_IMODE(path.lstat().st_mode)
    return found


def test_everything_created_is_private_under_umask_000(tmp_path: Path) -> None:
    home = tmp_path / "home" / "forewarn"  # missing parents are made too
    ws = git_repo(tmp_path / "shop")
    log_file = tmp_path / "logs" / "serve.log"
    model = tmp_path / "my-model.gguf"
    model.write_bytes(b"GGUF" + bytes(64))
    env = plain_env(FOREWARN_HOME=str(home))
    argv = [sys.executable, "-c", UNDER_UMASK_000, str(ws), str(log_file), str(model)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=CLI_TIMEOUT_S)
    assert done.returncode == 0, done.stderr

    found = modes(tmp_path / "home")
    assert str(home / "cache" / "model_hashes.json") in found
    assert str(home / "workspaces") in found
    assert any(p.endswith("workspace.json") for p in found) and any(p.endswith("memory.db") for p in found)
    wrong = {p: oct(m) for p, m in found.items() if m != (0o700 if Path(p).is_dir() else 0o600)}
    assert wrong == {}
    assert stat.S_IMODE(log_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(log_file.parent.stat().st_mode) == 0o700


@pytest.mark.parametrize("where", ["home", "workspaces", "workspace"])
@pytest.mark.parametrize("mode", [0o777, 0o770, 0o722])
def test_a_folder_others_can_write_is_refused(
    forewarn: Forewarn, forewarn_home: Path, tmp_path: Path, where: str, mode: int
) -> None:
    ws = git_repo(tmp_path / "shop")
    assert forewarn("remember", "rounding is half-even", cwd=ws).returncode == 0
    folder = {
        "home": forewarn_home,
        "workspaces": forewarn_home / "workspaces",
        "workspace": forewarn_home / "workspaces" / paths.workspace_id(ws),
    }[where]
    folder.chmod(mode)
    done = forewarn("memory", "list", cwd=ws)
    assert done.returncode == 1
    assert done.stderr == (
        f"forewarn: {folder} can be written by other users (mode {mode:o}), so Forewarn will not keep memories "
        f"there; fix it with: chmod 700 {folder}\n"
    )
    assert stat.S_IMODE(folder.stat().st_mode) == mode  # refused, not silently changed
    folder.chmod(0o700)
    assert "rounding is half-even" in forewarn("memory", "list", cwd=ws).stdout


def test_a_planted_workspace_json_symlink_is_refused(forewarn: Forewarn, forewarn_home: Path, tmp_path: Path) -> None:
    ws = git_repo(tmp_path / "shop")
    wdir = forewarn_home / "workspaces" / paths.workspace_id(ws)
    wdir.mkdir(parents=True, mode=0o700)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (wdir / "workspace.json").symlink_to(victim)
    dangling = tmp_path / "would-be-created"
    done = forewarn("memory", "list", cwd=ws)
    assert done.returncode == 1
    assert done.stderr.startswith(f"forewarn: {wdir / 'workspace.json'} is a symbolic link")
    assert victim.read_text() == "keep me\n"
    (wdir / "workspace.json").unlink()
    (wdir / "workspace.json").symlink_to(dangling)
    assert forewarn("memory", "list", cwd=ws).returncode == 1
    assert not dangling.exists()
