"""A real ``forewarn serve`` over stdio with pytest-lsp's client, for scripts and tests that need several."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import make_test_lsp_client

from forewarn.lsp.convert import CLIENT_CAPABILITY, PROMPTS_FOR_TEXT

log = logging.getLogger(__name__)
SERVE = [sys.executable, "-m", "forewarn.cli.main", "serve"]
WAIT_S = 120.0  # a loaded 2-core machine is slow; a hang still fails


def editor_capabilities(editor: str = "visual-studio-code", *, interactive: bool = True) -> types.ClientCapabilities:
    """``editor``'s real capabilities, plus what Forewarn's own client for it declares when ``interactive``."""
    capabilities = client_capabilities(editor)
    if interactive:
        capabilities.experimental = {CLIENT_CAPABILITY: {PROMPTS_FOR_TEXT: True}}
    return capabilities


@contextlib.asynccontextmanager
async def server(
    root: Path,
    *,
    log_file: Path | None = None,
    options: Any = None,
    env: dict[str, str] | None = None,
    editor: str = "visual-studio-code",
    tolerant: bool = False,
    folders: list[Path] | None = None,
    interactive: bool = True,
) -> AsyncIterator[LanguageClient]:
    """An initialized client talking to a fresh server on ``root``; shut down cleanly afterwards.

    ``interactive``: it declares what Forewarn's own editor clients declare (a person answers its prompts);
    without it the server treats the client as an agent host (forewarn.lsp.for_agents).

    ``tolerant``: a reply the client cannot parse (fuzzing provokes some) is logged, not fatal; by
    default pytest-lsp treats it as fatal and stops the server.
    """
    client = make_test_lsp_client()
    if tolerant:
        client.report_server_error = _log_only  # type: ignore[method-assign]
    args = [*SERVE[1:]] + (["--log-file", str(log_file)] if log_file else [])
    await client.start_io(SERVE[0], *args, env=env)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:  # answer like an editor; nothing to do
        return None

    await client.initialize_session(
        types.InitializeParams(
            capabilities=editor_capabilities(editor, interactive=interactive),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders or [root]],
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


def _log_only(error: Exception, source: Any) -> None:
    log.warning("the client could not handle a message from the server: %s: %s", source.__name__, error)


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


class DiagnosticsWaiter:
    """Per-URI waits for ``publishDiagnostics`` that never miss one, however many arrive at once.

    pytest-lsp's ``wait_for_notification`` shares one future per method: concurrent waiters for
    different files can miss theirs. This replaces the client's handler (it still fills
    ``client.diagnostics``) and resolves a future per URI instead.
    """

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self._waiting: dict[str, list[asyncio.Future[types.PublishDiagnosticsParams]]] = {}
        client.protocol.fm._features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = self._published

    def _published(self, params: types.PublishDiagnosticsParams) -> None:
        self.client.diagnostics[params.uri] = params.diagnostics
        for future in self._waiting.pop(params.uri, []):
            if not future.done():
                future.set_result(params)

    def expect(self, uri: str) -> asyncio.Future[types.PublishDiagnosticsParams]:
        """A future for the next publish of ``uri``: call before the request that causes it."""
        future: asyncio.Future[types.PublishDiagnosticsParams] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(uri, []).append(future)
        return future
