"""The prompt after remember, in real editors: a new memory contradicting the recorded gotcha is remembered,
the editor asks what holds now (replace the old one / both hold / mark contested), and the answer reaches
the server. VS Code (code-server in headless Chromium) replaces the old one; Neovim marks the pair contested
and then shows both as warnings."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.editors.conftest import EDITOR_WAIT_S, Gotcha, memories
from tests.editors.test_nvim import NEOVIMS, nvim_or_skip, run_nvim
from tests.editors.test_vscode import code_server, drive  # noqa: F401  (code_server is a fixture)

pytestmark = pytest.mark.editor

HERE = Path(__file__).parent
CHECK_CONFLICT = HERE / "nvim" / "check_conflict.lua"
# the fixture's gotcha says retrying after a timeout double-charges; this says it no longer does
CONTRADICTION = (
    "Retrying charge_card after a timeout no longer double-charges customers: the gateway dedupes by idempotency key"
)


def test_vscode_asks_after_remember_and_replaces_the_old_one(
    code_server: Callable[..., str],  # noqa: F811
    gotcha_workspace: Gotcha,
    tmp_path: Path,
    artifacts: Path,
) -> None:
    [gotcha] = memories(gotcha_workspace.root, "--type", "gotcha")
    result = drive(
        code_server(),
        gotcha_workspace.root,
        tmp_path,
        artifacts,
        mode="conflict",
        file=gotcha_workspace.file,
        line=gotcha_workspace.line,
        column=gotcha_workspace.column,
        expect=gotcha_workspace.marker,
        conflictText=CONTRADICTION,
        conflictAnswer="Replace the old one",
    )
    prompt = result["conflictPrompt"]
    assert "this contradicts" in prompt["title"] and gotcha_workspace.marker[:20] in prompt["title"], prompt
    assert any("Replace the old one" in row for row in prompt["rows"]), prompt
    assert any("Both hold" in row for row in prompt["rows"]) and any("Mark contested" in row for row in prompt["rows"])
    assert "replaces the old one" in result["conflictDone"], result["conflictDone"]
    by_text = {m["text"]: m for m in memories(gotcha_workspace.root, "--all")}
    assert by_text[CONTRADICTION]["status"] == "active" and by_text[CONTRADICTION]["anchor"]["symbol"] == "charge_card"
    assert by_text[gotcha_workspace.text]["status"] == "superseded", by_text[gotcha_workspace.text]
    assert by_text[gotcha_workspace.text]["id"] == gotcha["id"]
    print(f"VS Code steps: {result['steps']}")


@pytest.mark.parametrize(("nvim", "version_prefix"), NEOVIMS)
def test_nvim_asks_after_remember_and_marks_the_pair_contested(
    nvim: Path, version_prefix: str, gotcha_workspace: Gotcha, tmp_path: Path
) -> None:
    version = nvim_or_skip(nvim, version_prefix)
    result_path = tmp_path / "conflict.json"
    config = {
        "root": str(gotcha_workspace.root),
        "file": gotcha_workspace.file,
        "line": gotcha_workspace.line,
        "column": gotcha_workspace.column,
        "expect": gotcha_workspace.marker,
        "text": CONTRADICTION,
        "resolution": "contested",
        "done": "both marked contested until someone resolves them",
        "timeout_ms": EDITOR_WAIT_S * 1000,
        "result": str(result_path),
    }
    config_path = tmp_path / "conflict-config.json"
    config_path.write_text(json.dumps(config))
    done = run_nvim(
        nvim, gotcha_workspace.root, f"luafile {CHECK_CONFLICT}", env={"FOREWARN_TEST_CONFIG": str(config_path)}
    )
    assert result_path.exists(), f"Neovim {version} wrote no result (exit {done.returncode}):\n{done.stderr}"
    result = json.loads(result_path.read_text())
    assert result["ok"], f"Neovim {version}: {result['error']}\nprompts: {result['prompts']}\nstderr: {done.stderr}"
    [_types, asked] = result["prompts"]
    assert asked["kind"] == "forewarn.conflict" and "this contradicts" in asked["prompt"], asked
    assert gotcha_workspace.marker in asked["prompt"], asked
    assert asked["items"] == ["Replace the old one", "Both hold", "Mark contested"], asked
    assert any("it contradicts an existing memory" in n for n in result["notified"]), result["notified"]
    shown = result["contested"]
    assert all(d["severity"] == 2 for d in shown), shown  # WARN, whatever the type
    assert any(CONTRADICTION in d["message"] and gotcha_workspace.marker in d["message"] for d in shown), shown
    statuses = {m["text"]: m["status"] for m in memories(gotcha_workspace.root)}
    assert statuses[CONTRADICTION] == statuses[gotcha_workspace.text] == "contested", statuses
