"""``forewarn init --agent HOST``: the hooks turned on and off in the user's own settings, without hand-editing JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from forewarn.mcp.hooks import install
from forewarn.mcp.hooks.events import Host

FOREWARN = str(Path(sys.executable).with_name("forewarn"))
CLIENTS = Path(__file__).resolve().parents[2] / "editor-clients"
SHIPPED = {
    Host.CLAUDE: CLIENTS / "claude-code" / "hooks" / "hooks.json",
    Host.COPILOT: CLIENTS / "copilot-cli" / "hooks" / "forewarn.json",
    Host.CODEX: CLIENTS / "codex-hooks.json",
    Host.GEMINI: CLIENTS / "gemini-cli" / "settings.json",
}


def init(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME")}
    return subprocess.run([FOREWARN, "init", *args], env={**env, "HOME": str(home)}, cwd=cwd, capture_output=True,
                          text=True, timeout=120)  # fmt: skip


@pytest.mark.parametrize("host", list(Host))
def test_the_shipped_files_are_the_one_definition(host: Host) -> None:
    assert json.loads(SHIPPED[host].read_text(encoding="utf-8")) == install.shipped_file(host)


def test_init_agent_merges_into_the_users_settings_and_off_takes_only_ours_out(tmp_path: Path) -> None:
    home = tmp_path / "home"
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    theirs = {"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "~/bin/audit.sh"}]}]}}  # fmt: skip
    settings.write_text(json.dumps(theirs))
    done = init(home, "--agent", "claude")
    assert done.returncode == 0, done.stderr
    data = json.loads(settings.read_text())
    assert data["model"] == "opus"
    pre = data["hooks"]["PreToolUse"]
    assert pre[0] == theirs["hooks"]["PreToolUse"][0]  # the user's own hook is kept, first
    ours = [h["command"] for g in pre[1:] for h in g["hooks"]]
    assert ours and all(c.endswith("forewarn hook claude") and os.path.isabs(c.split()[0].strip("'")) for c in ours)
    assert set(data["hooks"]) == {"SessionStart", "PreToolUse", "PostToolUse", "PostToolUseFailure"}
    again = init(home, "--agent", "claude")
    assert again.returncode == 0 and "already on" in again.stdout
    assert json.loads(settings.read_text()) == data  # idempotent
    off = init(home, "--agent", "claude", "--off")
    assert off.returncode == 0, off.stderr
    assert json.loads(settings.read_text()) == theirs


def test_every_host_gets_its_own_file_and_nothing_goes_into_the_repository(tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    done = init(home, "--agent", "codex", "--agent", "gemini", "--agent", "copilot", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert json.loads((home / ".codex" / "hooks.json").read_text())["hooks"]["PostToolUse"]
    gemini = json.loads((home / ".gemini" / "settings.json").read_text())["hooks"]["AfterTool"][0]
    assert gemini["hooks"][0]["timeout"] == install.TIMEOUT_S * 1000  # milliseconds there
    copilot = json.loads((home / ".copilot" / "hooks" / "forewarn.json").read_text())
    assert copilot["version"] == 1 and "--event postToolUseFailure" in copilot["hooks"]["postToolUseFailure"][0]["bash"]
    assert [p.name for p in repo.iterdir()] == [".git"]


def test_project_hooks_only_when_asked_and_never_through_a_link(tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    done = init(home, "--agent", "claude", "--project", cwd=repo)
    assert done.returncode == 0, done.stderr
    hooks = json.loads((repo / ".claude" / "settings.json").read_text())["hooks"]
    assert hooks["PreToolUse"][0]["hooks"][0]["command"] == "forewarn hook claude"  # teammates' PATH, not ours
    target = tmp_path / "elsewhere.json"
    target.write_text("{}")
    (repo / ".gemini").mkdir()
    (repo / ".gemini" / "settings.json").symlink_to(target)
    refused = init(home, "--agent", "gemini", "--project", cwd=repo)
    assert refused.returncode == 1 and "symbolic link" in refused.stderr
    assert target.read_text() == "{}"


def test_settings_that_are_not_json_are_left_alone(tmp_path: Path) -> None:
    home = tmp_path / "home"
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{ // a comment\n }")
    done = init(home, "--agent", "gemini")
    assert done.returncode == 1 and "not plain JSON" in done.stderr
    assert settings.read_text() == "{ // a comment\n }"
