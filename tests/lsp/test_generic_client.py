"""A client that declares nothing of Forewarn's: an agent host (Claude Code, Copilot CLI) or an editor without our
plugin. Every code action it is offered runs as it is (nothing waits for a prompt it cannot show), a command sent
with ``text: null`` is answered without an error, forget carries its way back, and a memory an agent wrote says
which agent wrote it on every surface a person reviews it (diagnostic, hover, review)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from forewarn.config import Settings
from forewarn.memory.vocabulary import MemorySource, MemoryStatus, MemoryType
from forewarn.workspace.engine import Workspace
from tests.lsp.conftest import (
    PY_MODELS,
    SERVER_COMMAND,
    accept_registrations,
    diagnostics_for,
    open_document,
    raw_request,
    run,
)

ROUNDING = "Invoice.total must quantize after summing, never per line: rounding per line loses cents."
PARSING = "parse_amount takes a string: a float loses cents before Decimal ever sees them."
AGENT = {"agent": {"name": "Claude Code", "version": "2.1.0"}}
OPTIONS = {"embedder": {"enabled": False}, "mining": {"enabled": False}}  # no model, no history: this is about actions


@pytest.fixture
def seeded(workspace: Path) -> Path:
    """A person's gotcha on Invoice.total, and an agent's suggestion (waiting for review) on parse_amount."""
    settings = Settings()
    settings.embedder.enabled = False
    with Workspace.open(workspace, settings) as ws:
        ws.reindex()
        ws.remember(ROUNDING, type=MemoryType.GOTCHA, file="billing/models.py", symbol="Invoice.total")
        ws.remember(
            PARSING, type=MemoryType.GOTCHA, file="billing/models.py", symbol="parse_amount",
            source=MemorySource.AGENT, status=MemoryStatus.SUGGESTED, provenance=AGENT,
        )  # fmt: skip
    return workspace


def capabilities(kind: str) -> types.ClientCapabilities:
    """A real editor's capabilities without our experimental flag, or none at all (not even CodeAction literals)."""
    return types.ClientCapabilities() if kind == "nothing" else client_capabilities(kind)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=["visual-studio-code", "nothing"])
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, seeded: Path):
    accept_registrations(lsp_client)  # VS Code's capabilities allow dynamic registration: answer it as an editor would
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(request.param),
            root_uri=seeded.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=seeded.as_uri(), name=seeded.name)],
            initialization_options=OPTIONS,
        )
    )
    yield
    await lsp_client.shutdown_session()


def by_text(diags: list[types.Diagnostic], text: str) -> types.Diagnostic | None:
    return next((d for d in diags if text[:30] in d.message), None)


def commands_of(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``{command, arguments}`` of each offered action, CodeAction literal or bare Command alike."""
    return [a["command"] if isinstance(a.get("command"), dict) else a for a in actions]


async def code_actions(client: LanguageClient, uri: str, diags: list[types.Diagnostic]) -> list[dict[str, Any]]:
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(10, 0), end=types.Position(10, 5)),
        context=types.CodeActionContext(diagnostics=diags),
    )
    request = {"jsonrpc": "2.0", "id": "actions", "method": "textDocument/codeAction"}
    answer: list[dict[str, Any]] = await raw_request(
        client, {**request, "params": client.protocol._converter.unstructure(params)}, "actions"
    )
    return answer


async def test_every_offered_action_runs_as_it_is(client: LanguageClient, seeded: Path) -> None:
    uri = open_document(client, seeded / "billing" / "models.py")
    diags = await diagnostics_for(
        client, uri, lambda ds: by_text(ds, ROUNDING) is not None and by_text(ds, PARSING) is not None
    )
    suggestion = by_text(diags, PARSING)
    assert suggestion is not None and suggestion.severity == types.DiagnosticSeverity.Hint
    assert "suggested by an agent (Claude Code 2.1.0)" in suggestion.message  # who wrote it, where it shows

    offered = commands_of(await code_actions(client, uri, diags))
    assert sorted(c["command"] for c in offered) == [
        "forewarn.acceptSuggestion", "forewarn.confirm", "forewarn.dismissSuggestion", "forewarn.forget",
        "forewarn.markOutdated",
    ]  # fmt: skip
    # no remember, supersede or edit-and-accept: those need a prompt this client never declared
    assert all("text" not in c["arguments"][0] for c in offered)

    accept = next(c for c in offered if c["command"] == "forewarn.acceptSuggestion")
    accepted = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=accept["command"], arguments=accept["arguments"])
    )
    assert accepted["status"] == "active" and accepted["memory"]["origin"] == "recorded by an agent (Claude Code 2.1.0)"
    after = await diagnostics_for(
        client,
        uri,
        lambda ds: (d := by_text(ds, PARSING)) is not None and d.severity == types.DiagnosticSeverity.Warning,
    )
    assert "recorded by an agent (Claude Code 2.1.0)" in by_text(after, PARSING).message  # type: ignore[union-attr]
    for command in offered:  # the rest still run as offered (the suggestion is gone now: a clear error, no hang)
        if command["command"] in ("forewarn.confirm", "forewarn.markOutdated"):
            done = await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=command["command"], arguments=command["arguments"])
            )
            assert done["id"] == command["arguments"][0]["id"]

    line = PY_MODELS.splitlines().index("def parse_amount(text):")
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line, 4))
    )
    assert hover is not None and "recorded by an agent (Claude Code 2.1.0)" in hover.contents.value  # type: ignore[union-attr]


async def test_text_null_is_answered_without_an_error_and_changes_nothing(client: LanguageClient, seeded: Path) -> None:
    uri = open_document(client, seeded / "billing" / "models.py")
    diags = await diagnostics_for(client, uri, lambda ds: by_text(ds, ROUNDING) is not None)
    gotcha = by_text(diags, ROUNDING)
    assert gotcha is not None and isinstance(gotcha.code, str)
    counts = ("total", "by_type", "by_status")  # not most_surfaced: the server writes those counts when it is idle
    before = {key: value for key, value in (await run(client, "forewarn.stats")).items() if key in counts}

    remembered = await run(client, "forewarn.remember", text=None, type="gotcha", uri=uri)
    assert remembered["done"] is False and remembered["needs"] == "text"
    assert "nothing was changed" in remembered["message"] and "forewarn remember" in remembered["message"]
    superseded = await run(client, "forewarn.supersede", id=gotcha.code, text=None)
    assert superseded["done"] is False and f"forewarn memory supersede {gotcha.code}" in superseded["message"]
    review = await run(client, "forewarn.review", uri=uri)
    waiting = review["suggestions"][0]
    assert waiting["origin"] == "suggested by an agent (Claude Code 2.1.0)"  # the pickers show the server's words
    edited = await run(client, "forewarn.acceptSuggestion", id=waiting["id"], text=None)
    assert edited["done"] is False and "--text" in edited["message"]
    after = {key: value for key, value in (await run(client, "forewarn.stats")).items() if key in counts}
    assert after == before and before["by_status"] == {"active": 1, "suggested": 1}  # nothing written or accepted
    assert (await run(client, "forewarn.review", uri=uri))["total"] == review["total"]


async def test_forget_answers_with_its_way_back(client: LanguageClient, seeded: Path) -> None:
    uri = open_document(client, seeded / "billing" / "models.py")
    diags = await diagnostics_for(client, uri, lambda ds: by_text(ds, ROUNDING) is not None)
    gotcha = by_text(diags, ROUNDING)
    assert gotcha is not None
    forget = next(
        c for c in commands_of(await code_actions(client, uri, [gotcha])) if c["command"] == "forewarn.forget"
    )
    forgotten = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=forget["command"], arguments=forget["arguments"])
    )
    assert forgotten["status"] == "archived" and "not deleted" in forgotten["restore"]["message"]
    await diagnostics_for(client, uri, lambda ds: by_text(ds, ROUNDING) is None)
    restore = forgotten["restore"]["command"]
    restored = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=restore["command"], arguments=restore["arguments"])
    )
    assert restored == {"id": gotcha.code, "status": "active"}
    await diagnostics_for(client, uri, lambda ds: by_text(ds, ROUNDING) is not None)
