"""The VS Code extension in a real VS Code: code-server on loopback, driven in Debian's headless Chromium.

The built .vsix is installed with ``code-server --install-extension`` into a fresh extensions dir;
code-server starts with a fresh user-data dir and the test's ``FOREWARN_HOME``; the playwright-core
driver (``vscode/src/drive.ts``) opens the workspace, the file, the Problems view and the hover,
and reports what VS Code rendered.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from forewarn.memory.store import MEMORY_TYPES
from tests.editors.conftest import (
    EDITOR_RUN_S,
    EDITOR_WAIT_S,
    REPO,
    TOOLS,
    Gotcha,
    memories,
    publish_screenshot,
    run_forewarn,
)

pytestmark = pytest.mark.editor

CODE_SERVER_VERSION = "4.100.3"
CODE_SERVER = TOOLS / "code-server" / "node_modules" / ".bin" / "code-server"
CODE_SERVER_STAMP = TOOLS / "code-server" / f".installed-{CODE_SERVER_VERSION}"
CHROMIUM = Path("/usr/bin/chromium")
DRIVER = Path(__file__).parent / "vscode" / "out" / "drive.js"
VSIX = REPO / "editor-clients" / "vscode" / "forewarn-0.1.0.vsix"
INDEXED_FILES = 150
ARTIFACTS_LOGS = "tests/editors/artifacts/vscode-logs/<test>/ (extension host, Forewarn output with the server's log)"
START_S = 60  # code-server serves in about 2 s here; generous for a loaded CI machine

USER_SETTINGS = {
    "workbench.startupEditor": "none",
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "workbench.enableExperiments": False,
    "workbench.tips.enabled": False,
    "update.mode": "none",
    # the Python interpreter running the tests has Forewarn installed (editable)
    "forewarn.server.pythonPath": sys.executable,
}


# Workspace Trust on, as VS Code ships, and a folder opened without the trust prompt stays in Restricted Mode
RESTRICTED_SETTINGS = {
    "security.workspace.trust.enabled": True,
    "security.workspace.trust.startupPrompt": "never",
    "security.workspace.trust.emptyWindow": False,
}


def missing_tools_reason() -> str | None:
    needs = [
        (CODE_SERVER_STAMP, f"code-server {CODE_SERVER_VERSION} is not installed in {CODE_SERVER.parents[2]}"),
        (CHROMIUM, "Debian's chromium is not installed"),
        (DRIVER, "the playwright-core driver is not built (tests/editors/vscode)"),
        (VSIX, "the extension is not packaged (editor-clients/vscode/forewarn-0.1.0.vsix)"),
    ]
    for path, why in needs:
        if not path.exists():
            return f"{why}: run `make setup-editors vsix`"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_serving(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    # code-server announces nothing a client can await; poll its health endpoint with a deadline
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"code-server exited with {process.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.1)
    raise AssertionError(f"code-server did not serve {url} within {START_S} s:\n{log.read_text()}")


@pytest.fixture
def code_server(tmp_path: Path, artifacts: Path, request: pytest.FixtureRequest) -> Iterator[Callable[..., str]]:
    """Starts code-server with the built extension installed; returns a function that gives its URL. Its logs
    (the extension host's, and the Forewarn output channel, which holds the server's stderr) are kept in
    ``artifacts/vscode-logs/<test>/`` whatever the outcome."""
    reason = missing_tools_reason()
    if reason:
        pytest.skip(reason)
    user_data = tmp_path / "vscode-user"
    extensions = tmp_path / "vscode-extensions"
    (user_data / "User").mkdir(parents=True)
    (user_data / "User" / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=2))
    dirs = ["--user-data-dir", str(user_data), "--extensions-dir", str(extensions)]
    installed = subprocess.run(
        [CODE_SERVER, *dirs, "--install-extension", str(VSIX)], capture_output=True, text=True, timeout=120
    )
    assert installed.returncode == 0 and "successfully installed" in installed.stdout, (
        installed.stdout + installed.stderr
    )
    processes: list[subprocess.Popen[bytes]] = []

    def start(restricted: bool = False) -> str:
        """``restricted``: Workspace Trust on, the folder untrusted (opened in Restricted Mode, no prompt)."""
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        log = artifacts / "code-server.log"
        trust = ["--disable-workspace-trust"]
        if restricted:
            trust = []
            settings = {**USER_SETTINGS, **RESTRICTED_SETTINGS}
            (user_data / "User" / "settings.json").write_text(json.dumps(settings, indent=2))
        with log.open("wb") as out:
            # the extension host, hence `forewarn serve`, inherits FOREWARN_HOME/FOREWARN_MODELS from here
            process = subprocess.Popen(
                [CODE_SERVER, "--auth", "none", "--bind-addr", f"127.0.0.1:{port}", "--disable-telemetry",
                 "--disable-update-check", *trust, *dirs],
                stdout=out, stderr=subprocess.STDOUT, env=dict(os.environ),
            )  # fmt: skip
        processes.append(process)
        wait_until_serving(url, process, log)
        return url

    yield start
    for process in processes:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    kept = artifacts / "vscode-logs" / request.node.name
    shutil.rmtree(kept, ignore_errors=True)
    if (user_data / "logs").is_dir():
        shutil.copytree(user_data / "logs", kept)
    if (artifacts / "code-server.log").is_file():
        kept.mkdir(parents=True, exist_ok=True)
        shutil.copy(artifacts / "code-server.log", kept / "code-server.log")


def drive(url: str, workspace: Path, tmp_path: Path, artifacts: Path, **check: Any) -> dict[str, Any]:
    result_path = tmp_path / "driver-result.json"
    config = {
        "url": url,
        "workspace": str(workspace),
        "chromium": str(CHROMIUM),
        "artifactsDir": str(artifacts),
        "resultPath": str(result_path),
        "timeoutMs": EDITOR_WAIT_S * 1000,
        **check,
    }
    config_path = tmp_path / "driver-config.json"
    config_path.write_text(json.dumps(config))
    done = subprocess.run(["node", DRIVER, config_path], capture_output=True, text=True, timeout=EDITOR_RUN_S)
    assert result_path.exists(), f"the driver wrote no result (exit {done.returncode}):\n{done.stdout}\n{done.stderr}"
    result: dict[str, Any] = json.loads(result_path.read_text())
    shutil.copy(result_path, artifacts / f"vscode-{check['mode']}-result.json")
    assert result["ok"], f"{result.get('error')}\nsteps: {result['steps']}\nstatus bar: {result.get('statusBar')}\n" + (
        f"status labels: {result.get('statusLabels')}\nproblems: {result.get('problems')}\n"
        f"screenshot: {result.get('screenshot')}\nlogs: {ARTIFACTS_LOGS}"
    )
    return result


def test_extension_activates_and_shows_indexing_progress(
    code_server: Callable[..., str], tmp_path: Path, artifacts: Path
) -> None:
    # enough files that indexing reports progress more than once
    workspace = tmp_path / "generated"
    for index in range(INDEXED_FILES):
        package = workspace / f"pkg{index % 10}"
        package.mkdir(parents=True, exist_ok=True)
        (package / f"mod{index}.py").write_text(f"def f{index}(x):\n    return x + {index}\n")
    result = drive(code_server(), workspace, tmp_path, artifacts, mode="activate")
    assert "Forewarn" in result["statusBar"]
    labels = result["statusLabels"]
    assert any("indexing" in label and "%" in label for label in labels), labels
    assert "ready" in labels[-1], labels


def test_restricted_mode_starts_no_server_and_says_why(
    code_server: Callable[..., str], tmp_path: Path, artifacts: Path
) -> None:
    """R11: in a folder VS Code does not trust, the extension starts nothing that reads it, and says so."""
    workspace = tmp_path / "cloned"
    (workspace / ".vscode").mkdir(parents=True)
    (workspace / "app.py").write_text("def f(x):\n    return x\n")
    # what a hostile repository ships: a model of its own, and a server command of its own
    (workspace / ".vscode" / "settings.json").write_text(
        json.dumps({"forewarn.embedder.model": ".vscode/model.gguf", "forewarn.server.command": ["/bin/false"]})
    )
    result = drive(code_server(restricted=True), workspace, tmp_path, artifacts, mode="restricted")
    assert "Restricted Mode" in result["statusBar"], result
    assert not any("starting the server" in label for label in result["statusLabels"]), result["statusLabels"]
    home = Path(os.environ["FOREWARN_HOME"])
    opened = [json.loads(p.read_text())["root"] for p in home.glob("workspaces/*/workspace.json")]
    assert str(workspace.resolve()) not in opened  # no server (nor anything else) opened the folder


def test_gotcha_in_problems_view_and_hover(
    code_server: Callable[..., str], gotcha_workspace: Gotcha, tmp_path: Path, artifacts: Path
) -> None:
    result = drive(
        code_server(),
        gotcha_workspace.root,
        tmp_path,
        artifacts,
        mode="gotcha",
        file=gotcha_workspace.file,
        line=gotcha_workspace.line,
        column=gotcha_workspace.column,
        expect=gotcha_workspace.marker,
    )
    assert gotcha_workspace.marker in result["problems"]
    assert gotcha_workspace.marker in result["hover"]
    assert "charge_card after a timeout double-charges" in result["hover"] and "\\" not in result["hover"], result
    publish_screenshot(Path(result["screenshot"]), "vscode-gotcha.png")
    print(f"VS Code steps: {result['steps']}")


CODE_QUERY = "checkout cart"  # no memory says it; checkout.py's code does
CODE_FILE = "checkout.py"
CODE_FILE_CHUNK_LINES = {1, 6}  # its module docstring, `def checkout`


def test_palette_commands_search_remember_health_repo_map_and_walkthrough(
    code_server: Callable[..., str], gotcha_workspace: Gotcha, tmp_path: Path, artifacts: Path
) -> None:
    decision = "We chose exponential backoff over a fixed delay because the gateway rate-limits bursts"
    quick_fix_gotcha = "charge_card must not run inside a database transaction: the gateway call holds locks"
    superseding = "Retrying charge_card is safe since the gateway client sends an idempotency key on every attempt"
    [gotcha] = memories(gotcha_workspace.root, "--type", "gotcha")
    result = drive(
        code_server(),
        gotcha_workspace.root,
        tmp_path,
        artifacts,
        mode="commands",
        file=gotcha_workspace.file,
        line=gotcha_workspace.line,
        column=gotcha_workspace.column,
        expect=gotcha_workspace.marker,
        query=gotcha_workspace.query,
        remember=decision,
        quickFixRemember=quick_fix_gotcha,
        supersedeId=gotcha["id"],
        supersedeText=superseding,
        codeQuery=CODE_QUERY,
        codeFile=CODE_FILE,
    )
    # Search Memories: the memories, then the code group; a code-only answer still shows its code
    rows = result["searchRows"]
    memory_row = next(i for i, row in enumerate(rows) if gotcha_workspace.marker in row)
    code_row = next(i for i, row in enumerate(rows) if "def charge_card(" in row)  # the best chunk's signature
    assert memory_row < code_row and "Code" in rows[code_row], rows
    assert f"{gotcha_workspace.file}:{gotcha_workspace.line}" in rows[code_row], rows
    code = result["codeSearch"]
    assert "No memories match" in code["rows"][0], code
    assert "Search Memories" in code["title"], code
    # Enter opened checkout.py where its row said, and that is where one of its chunks starts
    assert code["line"] in CODE_FILE_CHUNK_LINES, code
    assert "gotcha" in result["health"]
    assert gotcha_workspace.file in result["repoMap"]
    assert "Forewarn indexed 2 files" in result["reindexed"]
    # the types in the server's order, then the client's own "private…" entry (it asks the type again)
    *types, private = [label.strip() for label in result["memoryTypes"]]
    assert types == [str(t) for t in MEMORY_TYPES] and private == "private…", result["memoryTypes"]
    assert "Get Started with Forewarn" in result["walkthrough"], result["walkthrough"]
    assert "restarting the server" in result["modelInstalled"]
    # started once, and restarted once by the model install: no other restart interrupted the commands
    starts = [label for label in result["statusLabels"] if "starting the server" in label]
    assert len(starts) <= 2, result["statusLabels"]
    listed = run_forewarn("memory", "list", "--workspace", str(gotcha_workspace.root), "--type", "decision", "--json")
    assert listed.returncode == 0, listed.stderr
    [stored] = json.loads(listed.stdout)
    assert stored["text"] == decision
    assert stored["anchor"]["file"] == gotcha_workspace.file  # anchored where the search had jumped to
    # the Quick Fixes: the client asked for the text the server's code actions leave open, then sent them
    by_text = {memory["text"]: memory for memory in memories(gotcha_workspace.root, "--all")}
    assert by_text[quick_fix_gotcha]["type"] == "gotcha" and by_text[quick_fix_gotcha]["status"] == "active"
    assert by_text[quick_fix_gotcha]["anchor"]["symbol"] == gotcha_workspace.symbol
    assert by_text[gotcha_workspace.text]["status"] == "superseded"
    assert by_text[superseding]["status"] == "active"
    print(f"VS Code steps: {result['steps']}")
