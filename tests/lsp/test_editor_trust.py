"""What an editor's workspace settings and a cloned repository may decide (red-team review 2, R11).

VS Code reads ``.vscode/settings.json`` from the repository; the extension sends the user's own values of the
keys that load code, spend the machine or say whom to trust apart, as ``initializationOptions.user``, and the
server takes those keys from nowhere else. Mining a repository's history when it opens runs only where the
user allowed it (the user-level ``mining.on_open``, or ``forewarn mine --on-open`` for that folder).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from forewarn.config import USER_LEVEL_KEYS, Settings
from forewarn.lsp import settings as lsp_settings
from forewarn.workspace import consent
from tests.lsp.conftest import (
    SERVER_COMMAND,
    accept_registrations,
    history_with_a_reverted_rounding,
    indexing_done,
    initialize_params,
    run,
    wait_until,
)

# what a repository's .vscode/settings.json made the extension send before (kit2/probe_editor_settings.py)
HOSTILE = {
    "embedder": {"model": ".vscode/model.gguf", "nThreads": 256, "queryPrefix": "x"},
    "index": {"workers": 64},
    "agents": {"trust": True},
    "mining": {"onOpen": True},
}


def test_user_level_keys_are_taken_only_from_the_user_section() -> None:
    defaults = Settings()
    for init, config in ((HOSTILE, None), (None, HOSTILE), ({"forewarn": HOSTILE}, {"forewarn": HOSTILE})):
        settings, problems = lsp_settings.folder_settings(None, init, config)
        assert settings == defaults, (init, config)
        refused = [p for p in problems if lsp_settings.EDITOR_REFUSED in p]
        assert len(refused) == len(problems) == 6 * ((init is not None) + (config is not None)), problems
    settings, problems = lsp_settings.folder_settings(None, {"diagnostics": {"maxWarnings": 2}, "user": HOSTILE}, None)
    assert problems == [] and settings.diagnostics.max_warnings == 2
    assert (settings.embedder.model, settings.embedder.n_threads, settings.index.workers) == (
        ".vscode/model.gguf",
        256,
        64,
    )
    assert settings.agents.trust and settings.mining.on_open
    # every user-level key is one the settings tree has, and none of them is a repository's
    assert all("." in key for key in USER_LEVEL_KEYS) and not USER_LEVEL_KEYS & lsp_settings.EDITOR_KEYS


# ---------------------------------------------------------------- end to end: the settings, then mining on open


def _git(root: Path, *args: str) -> None:
    identity = ("-c", "user.name=Mallory", "-c", "user.email=m@example.invalid")
    subprocess.run(["git", *identity, *args], cwd=root, check=True, capture_output=True)


@pytest.fixture
def repository(workspace: Path) -> Path:
    """A cloned repository: a history with a revert, which mining would turn into a suggestion."""
    history_with_a_reverted_rounding(workspace, _git)
    return workspace


def _messages(client: LanguageClient, needle: str) -> list[str]:
    return [m.message for m in client.messages if needle in m.message] + [
        m.message for m in client.log_messages if needle in m.message
    ]


async def _open(client: LanguageClient, root: Path, options: Any) -> None:
    client.set_configuration(options, section="forewarn")
    accept_registrations(client)
    await client.initialize_session(initialize_params("visual-studio-code", root, options))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def lsp(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_workspace_settings_cannot_choose_the_model_or_trust_and_nothing_is_mined_unasked(
    lsp: LanguageClient, repository: Path
) -> None:
    await _open(lsp, repository, {**HOSTILE, "embedder": {**HOSTILE["embedder"], "enabled": False}})
    said = await wait_until(lsp, types.WINDOW_LOG_MESSAGE, lambda: _messages(lsp, "not mining the history"))
    assert "forewarn mine --on-open" in said[0] and "mining.on_open in your user-level settings" in said[0]
    refused = _messages(lsp, lsp_settings.EDITOR_REFUSED)
    assert refused and all(k in refused[0] for k in ("embedder.model", "index.workers", "agents.trust")), refused
    await indexing_done(lsp)
    assert (await run(lsp, "forewarn.review"))["total"] == 0  # no suggestion mined
    assert not [r for r in lsp.progress_reports.values() if "mining" in getattr(r[0], "title", "")]


async def test_mining_on_open_runs_where_the_user_allowed_it_for_that_folder(
    lsp: LanguageClient, repository: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "forewarn", "mine", "--on-open", "--limit", "1", "-w", str(repository)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0 and "will mine" in done.stderr, done.stderr
    assert consent.mining_on_open_allowed(repository)
    assert not (repository / ".forewarn" / "config.toml").exists()  # kept in the user's data dir, not the tree
    await _open(lsp, repository, {"embedder": {"enabled": False}})
    runs = await indexing_done(lsp, count=2)  # indexing, then mining the rest of the history
    assert any("mining the history of" in getattr(r[0], "title", "") for r in runs)
    assert (await run(lsp, "forewarn.review"))["total"] >= 1
