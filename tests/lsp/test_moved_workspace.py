"""The server opening a moved workspace shows how to bring its memories back (F14)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.cli.conftest import forewarn_argv, git_repo, plain_env
from tests.lsp.conftest import SERVER_COMMAND, initialize_params, wait_until


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient) -> Any:
    yield  # the test initializes, once the moved workspace is in place
    await lsp_client.shutdown_session()


async def test_a_moved_workspace_gets_a_show_message_hint(client: LanguageClient, tmp_path: Path) -> None:
    old = git_repo(tmp_path / "shop")
    remembered = subprocess.run(
        forewarn_argv("remember", "round half-even"), cwd=old, env=plain_env(), capture_output=True, text=True
    )
    assert remembered.returncode == 0, remembered.stderr
    new = tmp_path / "shop-moved"
    subprocess.run(["mv", str(old), str(new)], check=True)

    await client.initialize_session(initialize_params("neovim", new))

    def hint() -> str | None:
        return next((m.message for m in client.messages if "forewarn memory adopt" in m.message), None)

    message = await wait_until(client, types.WINDOW_SHOW_MESSAGE, hint)
    assert f"{old} (no longer there) holds 1 memory" in message
    assert "forewarn memory adopt --auto" in message
