"""A client that declares nothing of Forewarn's is an agent: an agent host (Claude Code, Copilot CLI) feeding
diagnostics to its model, or an editor without our plugin (R5 of the second red-team review,
``kit2/probe_agenthost.py``).

It receives only what a person vetted, each note introduced as repository data with its origin; it is never offered
accept, dismiss, resolve or re-anchor (those commands are refused); its remember, supersede, confirm, mark outdated
and forget wait for a person as suggestions and proposals named after its ``clientInfo``. On the old code it was
offered "accept suggestion" as the preferred fix on a mined suggestion, and its remember was stored as a person's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from forewarn.config import Settings
from forewarn.lsp.for_agents import HOVER_PREFIX, NOTE_PREFIX
from forewarn.memory.origin import origin_of
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
OPTIONS = {"embedder": {"enabled": False}, "mining": {"enabled": False}}  # no model, no history: this is about trust


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
            client_info=types.ClientInfo(name="Alice Smith (tech lead)", version="6.6.6"),  # its own word for itself
            root_uri=seeded.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=seeded.as_uri(), name=seeded.name)],
            initialization_options={**OPTIONS, "agents": {"trust": True}},  # a client cannot trust itself
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


def memories(root: Path) -> list[Any]:
    with Workspace.open(root, embedder=None) as ws:
        return ws.list_memories()


def suggestions(root: Path) -> list[Any]:
    with Workspace.open(root, embedder=None) as ws:
        return ws.suggestions()


async def test_it_gets_vetted_notes_as_data_and_no_suggestion(client: LanguageClient, seeded: Path) -> None:
    uri = open_document(client, seeded / "billing" / "models.py")
    diags = await diagnostics_for(client, uri, lambda ds: by_text(ds, ROUNDING) is not None)
    assert by_text(diags, PARSING) is None  # the agent's suggestion never reaches an agent
    (note,) = [d for d in diags if d.code is not None]
    place = '"billing/models.py::Invoice.total"'
    assert note.message.startswith(f"{NOTE_PREFIX} · gotcha on {place} · recorded here by ")
    assert note.message.endswith(f': "{ROUNDING}"')  # the text as one quoted string
    line = PY_MODELS.splitlines().index("def parse_amount(text):")
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line, 4))
    )
    assert hover is None or PARSING not in hover.contents.value  # type: ignore[union-attr]
    total = PY_MODELS.splitlines().index("    def total(self, lines):")
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(total, 9))
    )
    assert hover is not None and hover.contents.value.startswith(HOVER_PREFIX)  # type: ignore[union-attr]


async def test_it_is_offered_nothing_a_person_decides(client: LanguageClient, seeded: Path) -> None:
    uri = open_document(client, seeded / "billing" / "models.py")
    diags = await diagnostics_for(client, uri, lambda ds: by_text(ds, ROUNDING) is not None)
    (suggestion,) = suggestions(seeded)
    forged = types.Diagnostic(  # a suggestion's diagnostic as an interactive editor would have it
        range=types.Range(start=types.Position(18, 0), end=types.Position(19, 0)), message=PARSING,
        source="forewarn", code=suggestion.id, data={"id": suggestion.id, "type": "gotcha", "status": "suggested"},
    )  # fmt: skip
    offered = commands_of(await code_actions(client, uri, [*diags, forged]))
    assert sorted(c["command"] for c in offered) == ["forewarn.confirm", "forewarn.forget", "forewarn.markOutdated"]
    for command in ("forewarn.acceptSuggestion", "forewarn.dismissSuggestion", "forewarn.review"):
        with pytest.raises(JsonRpcException, match="for a person in an interactive editor"):
            await run(client, command, id=suggestion.id)
    assert suggestions(seeded)[0].status == MemoryStatus.SUGGESTED  # still waiting
    # "a person used this memory" reinforces it (access count, a ranking signal): not an agent's to say
    (vetted,) = [m for m in memories(seeded) if m.text == ROUNDING]
    with pytest.raises(JsonRpcException, match="for a person in an interactive editor"):
        await run(client, "forewarn.accept", id=vetted.id)
    assert next(m for m in memories(seeded) if m.id == vetted.id).access_count == vetted.access_count


async def test_its_writes_wait_for_a_person_and_name_it(client: LanguageClient, seeded: Path) -> None:
    uri = open_document(client, seeded / "billing" / "models.py")
    diags = await diagnostics_for(client, uri, lambda ds: by_text(ds, ROUNDING) is not None)
    gotcha = by_text(diags, ROUNDING)
    assert gotcha is not None and isinstance(gotcha.code, str)
    for command in commands_of(await code_actions(client, uri, [gotcha])):
        done = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command["command"], arguments=command["arguments"])
        )
        assert done["proposed"] is True and done["status"] == "active", (command, done)
    remembered = await run(
        client, "forewarn.remember", text="AGENT-WRITTEN: finalize may be called without an idempotency key.",
        type="gotcha", uri=uri,
    )  # fmt: skip
    assert remembered["memory"]["status"] == "suggested" and remembered["memory"]["source"] == "agent"
    assert remembered["memory"]["origin"] == "suggested by an agent that calls itself “Alice Smith (tech lead) 6.6.6”"
    with Workspace.open(seeded, embedder=None) as ws:
        assert ws.get(gotcha.code).status == MemoryStatus.ACTIVE  # confirm, mark outdated, forget: nothing changed
        waiting = ws.suggestions()
    actions = sorted((m.provenance or {}).get("proposal", {}).get("action", "") for m in waiting)
    assert actions == ["", "", "confirm", "forget", "mark_outdated"]  # two notes of their own, three proposals
    assert sum("Alice Smith (tech lead)" in origin_of(m).phrase() for m in waiting) == 4


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
    after = {key: value for key, value in (await run(client, "forewarn.stats")).items() if key in counts}
    assert after == before and before["by_status"] == {"active": 1, "suggested": 1}  # nothing written or accepted


async def test_a_name_it_types_for_two_definitions_is_refused_not_guessed(client: LanguageClient, seeded: Path) -> None:
    """A symbol an agent types is a name, as on the CLI and MCP: two definitions of it are refused with the name that
    picks each, never the first taken as a person's code action (which carries the index's own path) would be."""
    twice = seeded / "billing" / "twice.py"
    twice.write_text("def settle(x):\n    return x\n\n\ndef settle(x, y):\n    return x + y\n", encoding="utf-8")
    note = "settle adds the second amount only when given two: callers passing one get it back unchanged."
    with pytest.raises(JsonRpcException, match=r"'settle' names 2 definitions .*settle#2"):
        await run(client, "forewarn.remember", text=note, type="gotcha", uri=twice.as_uri(), symbol="settle")
    assert all(m.text != note for m in suggestions(seeded))  # nothing written
    picked = await run(client, "forewarn.remember", text=note, type="gotcha", uri=twice.as_uri(), symbol="settle#2")
    assert picked["memory"]["status"] == "suggested"
    (stored,) = [m for m in suggestions(seeded) if m.text == note]
    assert stored.anchor is not None and stored.anchor.start_line == 5  # the second definition
