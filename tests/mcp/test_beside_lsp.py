"""``forewarn mcp`` and ``forewarn serve`` on one workspace at the same time: what an agent remembers reaches
the editor's next open — as a suggestion to review until a person accepts it, or at once when agents are trusted.
"""

from __future__ import annotations

from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import (
    SERVER_COMMAND,
    accept_registrations,
    diagnostics_for,
    initialize_params,
    open_document,
    run,
)
from tests.mcp.conftest import mcp_session, text_of

OPTIONS = {"embedder": {"enabled": False}, "mining": {"enabled": False}}
LESSON = "charge_card must never be retried: the bank charges twice"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def editor(lsp_client: LanguageClient, shop: Path):
    accept_registrations(lsp_client)  # as VS Code does
    await lsp_client.initialize_session(initialize_params("visual-studio-code", shop, OPTIONS))
    yield
    await lsp_client.shutdown_session()


def reopen(client: LanguageClient, path: Path) -> str:
    uri = path.as_uri()
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri)))
    return open_document(client, path)


def with_lesson(severity: types.DiagnosticSeverity):
    return lambda diags: any(LESSON[:40] in d.message and d.severity == severity for d in diags)


async def test_an_agents_memory_waits_for_a_person_then_warns_the_editor(editor: LanguageClient, shop: Path) -> None:
    lsp_client = editor
    uri = open_document(lsp_client, shop / "pay.py")
    before = await diagnostics_for(lsp_client, uri, lambda d: any("idempotency" in x.message for x in d))
    assert not any(LESSON[:40] in d.message for d in before)
    async with mcp_session(shop) as agent:
        answer = await agent.call_tool(
            "remember", {"text": LESSON, "type": "gotcha", "file": "pay.py", "symbol": "charge_card"}
        )
    assert "Saved as suggestion" in text_of(answer)
    # the editor's next open: a hint naming the agent, never a warning, until someone accepts it
    uri = reopen(lsp_client, shop / "pay.py")
    hinted = await diagnostics_for(lsp_client, uri, with_lesson(types.DiagnosticSeverity.Hint))
    hint = next(d for d in hinted if LESSON[:40] in d.message)
    assert "Pytest Agent" in hint.message
    data = hint.data if isinstance(hint.data, dict) else {}
    await run(lsp_client, "forewarn.acceptSuggestion", id=data["id"])
    uri = reopen(lsp_client, shop / "pay.py")
    await diagnostics_for(lsp_client, uri, with_lesson(types.DiagnosticSeverity.Warning))


async def test_a_trusted_agents_memory_warns_the_editor_at_once(editor: LanguageClient, shop: Path) -> None:
    lsp_client = editor
    uri = open_document(lsp_client, shop / "pay.py")
    await diagnostics_for(lsp_client, uri, lambda d: any("idempotency" in x.message for x in d))
    async with mcp_session(shop, "--trust-agents") as agent:
        answer = await agent.call_tool(
            "remember", {"text": LESSON, "type": "gotcha", "file": "pay.py", "symbol": "charge_card"}
        )
        assert "Remembered as" in text_of(answer)
        uri = reopen(lsp_client, shop / "pay.py")  # while the agent's server still runs
        await diagnostics_for(lsp_client, uri, with_lesson(types.DiagnosticSeverity.Warning))
        # and the other way: what the editor knows, the agent reads
        shown = text_of(await agent.call_tool("memories_for_files", {"paths": ["pay.py"]}))
    assert LESSON in shown and "idempotency" in shown
