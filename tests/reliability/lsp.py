"""A real ``hindsight serve`` over stdio with pytest-lsp's client, for scripts and tests that need several."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import make_test_lsp_client

SERVE = [sys.executable, "-m", "hindsight.daemon.cli", "serve"]
WAIT_S = 120.0  # a loaded 2-core machine is slow; a hang still fails


@contextlib.asynccontextmanager
async def server(
    root: Path,
    *,
    log_file: Path | None = None,
    options: Any = None,
    env: dict[str, str] | None = None,
    editor: str = "visual-studio-code",
) -> AsyncIterator[LanguageClient]:
    """An initialized client talking to a fresh server on ``root``; shut down cleanly afterwards."""
    client = make_test_lsp_client()
    args = [*SERVE[1:]] + (["--log-file", str(log_file)] if log_file else [])
    await client.start_io(SERVE[0], *args, env=env)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:  # answer like an editor; nothing to do
        return None

    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(editor),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=options,
        )
    )
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_session(), WAIT_S)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.stop(), WAIT_S)


async def command(client: LanguageClient, name: str, argument: dict[str, Any] | None = None) -> Any:
    params = types.ExecuteCommandParams(command=name, arguments=[argument or {}])
    return await asyncio.wait_for(client.workspace_execute_command_async(params), WAIT_S)


async def indexed(client: LanguageClient) -> None:
    """Wait for the first indexing run's ``$/progress`` end."""

    def done() -> bool:
        return any(r and isinstance(r[-1], types.WorkDoneProgressEnd) for r in client.progress_reports.values())

    async def loop() -> None:
        while not done():
            await client.wait_for_notification(types.PROGRESS)

    await asyncio.wait_for(loop(), WAIT_S)


def server_pid(client: LanguageClient) -> int:
    assert client._server is not None
    return int(client._server.pid)
