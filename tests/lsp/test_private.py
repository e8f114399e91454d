"""A private memory through the editor: `private: true` on forewarn.remember, a lock in the hover and results."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import (
    EDITORS,
    SERVER_COMMAND,
    open_document,
    run,
    start_editor,
)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS[:1])
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    await start_editor(lsp_client, request.param, workspace)
    yield
    await lsp_client.shutdown_session()


async def test_private_remember_shows_a_lock_in_the_hover_and_results(client: LanguageClient, workspace: Path) -> None:
    models = workspace / "billing" / "models.py"
    made = await run(
        client, "forewarn.remember", text="halfway through the rounding refactor: do not merge", type="todo",
        uri=models.as_uri(), symbol="Invoice.total", private=True,
    )  # fmt: skip
    assert made["memory"]["visibility"] == "private"
    team = await run(
        client, "forewarn.remember", text="totals quantize once", uri=models.as_uri(), symbol="Invoice.total"
    )
    assert team["memory"]["visibility"] == "team"
    uri = open_document(client, models)
    hover = await client.text_document_hover_async(  # on the name `total` of `def total`
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(8, 8))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "🔒 **todo**" in hover.contents.value and "🔒 **gotcha**" not in hover.contents.value
    with pytest.raises(JsonRpcException, match="'private' must be true or false"):
        await run(client, "forewarn.remember", text="x y z", uri=models.as_uri(), private="yes")
