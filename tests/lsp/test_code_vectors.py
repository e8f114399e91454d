"""The server embeds code chunks in the background after indexing (and a saved file's changed chunks after
the save), and ``forewarn.stats`` reports the coverage, through the real LSP client."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER_COMMAND, WAIT_S, accept_registrations, initialize_params, open_document, run
from tests.memory.test_embedder import require_model


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, workspace: Path):
    require_model()
    lsp_client.set_configuration({}, section="forewarn")
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(initialize_params("visual-studio-code", workspace))
    yield
    await lsp_client.shutdown_session()


async def coverage_reaches(client: LanguageClient, total: int | None = None) -> dict[str, Any]:
    """Poll ``forewarn.stats`` (a round trip each, no sleeping) until every chunk has a vector."""
    deadline = time.monotonic() + WAIT_S
    while True:
        stats = await run(client, "forewarn.stats")
        code = stats["code_vectors"]
        if code["total"] > 0 and code["embedded"] == code["total"] and (total is None or code["total"] == total):
            return code
        assert time.monotonic() < deadline, f"code embedding did not finish: {code}"


async def test_code_vectors_reach_full_coverage_and_follow_a_save(client: LanguageClient, workspace: Path) -> None:
    first = await coverage_reaches(client)
    assert first["total"] >= 8  # classes, methods and functions of the three source files
    hover_at = open_document(client, workspace / "billing" / "models.py")
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=hover_at), position=types.Position(8, 9))
    )
    assert hover is None or hover.contents is not None  # requests are answered while embedding runs

    path = workspace / "billing" / "service.py"
    path.write_text(path.read_text() + "\n\ndef reissue(invoice):\n    return invoice.copy()\n")
    uri = open_document(client, path)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    after = await coverage_reaches(client, total=first["total"] + 1)
    assert after["embedded"] == first["total"] + 1
