"""The server as a protocol endpoint: initialize, settings, bad input — the server keeps serving."""

from __future__ import annotations

import asyncio
import random
import uuid
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcMethodNotFound
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import (
    EDITORS,
    SERVER_COMMAND,
    WAIT_S,
    accept_registrations,
    initialize_params,
    raw_frame,
    raw_request,
    wait_until,
)

COMMANDS = {
    "forewarn.remember",
    "forewarn.search",
    "forewarn.supersede",
    "forewarn.forget",
    "forewarn.confirm",
    "forewarn.markOutdated",
    "forewarn.acceptSuggestion",
    "forewarn.dismissSuggestion",
    "forewarn.review",
    "forewarn.suggestionDiff",
    "forewarn.repoMap",
    "forewarn.stats",
    "forewarn.reindex",
    "forewarn.accept",
    "forewarn.restore",
    "forewarn.reanchor",
    "forewarn.resolveConflict",
    "forewarn.fileMemories",
    "forewarn.openList",
}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    lsp_client.set_configuration({"diagnostics": {"maxWarnings": 2}}, section="forewarn")
    lsp_client.registrations = accept_registrations(lsp_client)  # type: ignore[attr-defined]
    result = await lsp_client.initialize_session(initialize_params(request.param, workspace))
    lsp_client.init_result = result  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def bad_settings_client(lsp_client: LanguageClient, workspace: Path):
    options = {"diagnostics": {"maxWarnings": "three"}, "frobnicate": 1}
    lsp_client.set_configuration({"embedder": {"nGpuLayers": "all"}}, section="forewarn")
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(initialize_params("visual-studio-code", workspace, options))
    yield
    await lsp_client.shutdown_session()


async def test_capabilities_advertise_every_feature(client: LanguageClient) -> None:
    caps = client.init_result.capabilities  # type: ignore[attr-defined]
    assert client.init_result.server_info.name == "forewarn"  # type: ignore[attr-defined]
    assert caps.hover_provider
    assert caps.workspace_symbol_provider
    assert caps.code_action_provider
    assert set(caps.execute_command_provider.commands) == COMMANDS
    sync = caps.text_document_sync
    assert sync.open_close and sync.save is not None and sync.change == types.TextDocumentSyncKind.Incremental


async def test_invalid_settings_are_reported_and_defaults_used(bad_settings_client: LanguageClient) -> None:
    client = bad_settings_client

    def settings_message() -> types.ShowMessageParams | None:
        return next((m for m in client.messages if "settings are invalid" in m.message), None)

    message = await wait_until(client, types.WINDOW_SHOW_MESSAGE, settings_message)
    assert message.type == types.MessageType.Warning
    assert "maxWarnings" in message.message and "'three'" in message.message
    assert "frobnicate" in message.message
    assert "nGpuLayers" in message.message and "workspace/configuration" in message.message


async def test_wrong_parameter_types_get_invalid_params(client: LanguageClient, workspace: Path) -> None:
    uri = (workspace / "billing" / "models.py").as_uri()
    bad_hover = {
        "jsonrpc": "2.0",
        "id": "bad-hover",
        "method": "textDocument/hover",
        "params": {"textDocument": {"uri": uri}, "position": {"line": "ten", "character": 0}},
    }
    with pytest.raises(JsonRpcInvalidParams) as info:
        await raw_request(client, bad_hover, "bad-hover")
    assert "position" in info.value.message

    missing = {"jsonrpc": "2.0", "id": "no-params", "method": "textDocument/hover", "params": {}}
    with pytest.raises(JsonRpcInvalidParams):
        await raw_request(client, missing, "no-params")

    # still serving, and answering properly
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(0, 0))
    )
    assert hover is None or isinstance(hover, types.Hover)


async def test_a_request_with_an_unusable_id_is_answered_with_a_null_id(client: LanguageClient) -> None:
    future: Future[Any] = Future()
    client.protocol._request_futures[None] = future  # type: ignore[index]  # where a null-id answer lands
    raw_frame(client, {"jsonrpc": "2.0", "id": {"a": 1}, "method": "forewarn/x"})
    with pytest.raises(JsonRpcException) as info:
        await asyncio.wait_for(asyncio.wrap_future(future), WAIT_S)
    assert info.value.code == -32600 and "not a string or number" in info.value.message
    assert await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="")) == []


async def test_unknown_method_and_bad_command_arguments(client: LanguageClient) -> None:
    with pytest.raises(JsonRpcMethodNotFound):
        await raw_request(client, {"jsonrpc": "2.0", "id": "nope", "method": "forewarn/nope", "params": {}}, "nope")

    bad_calls = [
        ("forewarn.search", [42]),
        ("forewarn.search", [{"query": ""}]),
        ("forewarn.search", [{"query": "x", "k": "many"}]),
        ("forewarn.search", [{"query": "x"}, {"query": "y"}]),
        ("forewarn.remember", [{"type": "gotcha"}]),
        ("forewarn.remember", [{"text": "x", "type": "rumour"}]),
        ("forewarn.remember", [{"text": "x" * 100_000}]),
        ("forewarn.remember", [{"text": "x", "range": {"start": 3}}]),
        ("forewarn.forget", [{"id": ["not", "a", "string"]}]),
        ("forewarn.forget", [{"id": "01NOSUCHMEMORY0000000000000"}]),
        ("forewarn.confirm", [{}]),
        ("forewarn.repoMap", [{"budget": -5}]),
        ("forewarn.noSuchCommand", [{}]),
    ]
    for command, arguments in bad_calls:
        with pytest.raises(JsonRpcException) as info:
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=command, arguments=arguments)
            )
        assert info.value.code == JsonRpcInvalidParams.CODE, (command, arguments, info.value)

    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="forewarn.stats", arguments=[{}])
    )
    assert isinstance(result, dict)


async def test_malformed_frames_leave_the_server_serving(client: LanguageClient, workspace: Path) -> None:
    raw_frame(client, b"{this is not json")
    raw_frame(client, b"\xff\xfe\x00 not utf-8")
    raw_frame(client, b"[1, 2, 3]")
    raw_frame(client, b'"a string"')
    raw_frame(client, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": 7}})
    raw_frame(client, {"jsonrpc": "1.0", "id": 5, "method": "initialize"})
    raw_frame(client, b"x" * 3_000_000)  # a huge garbage payload

    def errors_reported() -> bool:
        return sum(m.type == types.MessageType.Error for m in client.messages) >= 3

    await wait_until(client, types.WINDOW_SHOW_MESSAGE, errors_reported)
    request_id = str(uuid.uuid4())
    result = await raw_request(
        client,
        {"jsonrpc": "2.0", "id": request_id, "method": "workspace/symbol", "params": {"query": ""}},
        request_id,
    )
    assert result == []


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def degraded_client(lsp_client: LanguageClient, workspace: Path, tmp_path: Path):
    accept_registrations(lsp_client)
    options = {"user": {"embedder": {"model": "no-such-model"}}}  # the user's own choice of model
    folders = [workspace, tmp_path / "vanished"]
    await lsp_client.initialize_session(initialize_params("neovim", workspace, options, folders))
    yield
    await lsp_client.shutdown_session()


async def test_missing_model_and_folder_are_reported_and_serving_goes_on(
    degraded_client: LanguageClient, workspace: Path
) -> None:
    client = degraded_client

    def both_reported() -> bool:
        text = " | ".join(m.message for m in client.messages)
        return "lexical-only" in text and "does not exist" in text

    await wait_until(client, types.WINDOW_SHOW_MESSAGE, both_reported)
    models = (workspace / "billing" / "models.py").as_uri()
    made = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="forewarn.remember", arguments=[{"text": "Lexical still works.", "uri": models}]
        )
    )
    found = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="forewarn.search", arguments=[{"query": "lexical works"}])
    )
    assert found["mode"] == "lexical" and found["memories"][0]["id"] == made["id"]


def random_json(rng: random.Random, depth: int = 0) -> Any:
    """Any JSON value, biased towards the shapes commands read (strings, ints, small objects)."""
    kinds = ["str", "int", "float", "bool", "null", "list", "dict"] if depth < 3 else ["str", "int", "null"]
    kind = rng.choice(kinds)
    if kind == "str":
        return rng.choice(
            ["", "x", "gotcha", "\x00\u202e" * 3, "a" * 3000, "file:///etc/passwd", "../../x", "NEAR(a b)"]
        )
    if kind == "int":
        return rng.choice([0, -1, 1, 10**12, 2**63])
    if kind == "float":
        return rng.choice([0.5, -3.2, 1e308])
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "list":
        return [random_json(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    keys = ["id", "text", "query", "type", "uri", "range", "symbol", "tags", "k", "budget", "focus", "file", "zzz"]
    return {rng.choice(keys): random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))}


async def test_random_command_arguments_never_crash_the_server(client: LanguageClient, workspace: Path) -> None:
    rng = random.Random(7)
    for _ in range(150):
        command = rng.choice(sorted(COMMANDS - {"forewarn.reindex"}))
        arguments = [random_json(rng)] if rng.random() < 0.9 else [random_json(rng), random_json(rng)]
        try:
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=command, arguments=arguments)
            )
        except JsonRpcException as exc:
            # a clear refusal, never an internal error
            assert exc.code in (JsonRpcInvalidParams.CODE, -32803), (command, arguments, exc)
    stats = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="forewarn.stats"))
    assert isinstance(stats["total"], int)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS)
async def two_folder_client(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path, tmp_path: Path
):
    other = tmp_path / "tools"
    other.mkdir()
    (other / "deploy.py").write_text("def release(tag):\n    return tag.strip()\n")
    accept_registrations(lsp_client)
    lsp_client.other = other  # type: ignore[attr-defined]
    await lsp_client.initialize_session(initialize_params(request.param, workspace, None, [workspace, other]))
    yield
    await lsp_client.shutdown_session()


async def test_each_folder_keeps_its_own_memories(two_folder_client: LanguageClient, workspace: Path) -> None:
    client = two_folder_client
    deploy = client.other / "deploy.py"  # type: ignore[attr-defined]

    async def run(command: str, **argument: Any) -> Any:
        params = types.ExecuteCommandParams(command=command, arguments=[argument])
        return await client.workspace_execute_command_async(params)

    here = await run(
        "forewarn.remember", text="Invoices are immutable once sent.", uri=workspace.as_uri() + "/billing/models.py"
    )
    there = await run("forewarn.remember", text="Release tags must be signed.", uri=deploy.as_uri(), symbol="release")
    found = await run("forewarn.search", query="release tags signed", file=deploy.as_uri())
    assert [m["id"] for m in found["memories"]] == [there["id"]]
    assert found["memories"][0]["anchor"]["uri"] == deploy.as_uri()
    assert [m["id"] for m in (await run("forewarn.search", query="invoices immutable"))["memories"]] == [here["id"]]
    # ids resolve in whichever folder holds them
    assert (await run("forewarn.markOutdated", id=there["id"]))["status"] == "stale"
    # a prefix (ids made in one millisecond share their first 10 characters: one past where the two differ)
    cut = max(10, next(i for i, (a, b) in enumerate(zip(here["id"], there["id"], strict=True)) if a != b) + 1)
    assert (await run("forewarn.confirm", id=here["id"][:cut]))["id"] == here["id"]
    stats = await run("forewarn.stats", uri=deploy.as_uri())
    assert stats["total"] == 1 and stats["stale"] == 1
