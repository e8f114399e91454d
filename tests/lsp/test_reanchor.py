"""Anchors over LSP: a changed file reported by the watcher is reconciled; an orphan is re-anchored by a code action."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import (
    EDITORS,
    SERVER_COMMAND,
    open_document,
    raw_request,
    run,
    start_editor,
)

WATCH_POLLS = 120  # 30 s at most for the debounced watcher batch and its re-index


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    await start_editor(lsp_client, request.param, workspace)
    yield
    await lsp_client.shutdown_session()


def touch(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    st = path.stat()  # a new mtime even within the filesystem's timestamp granularity
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


async def status_of(client: LanguageClient, memory_id: str) -> str:
    found = await run(client, "forewarn.search", query="decimal amounts parse", k=50)
    return next(m["status"] for m in found["memories"] if m["id"] == memory_id)


async def remember_on_parse_amount(client: LanguageClient, models: Path) -> Any:
    return await run(
        client, "forewarn.remember", text="parse_amount keeps decimal amounts exact", type="gotcha",
        uri=models.as_uri(), symbol="parse_amount",
    )  # fmt: skip


async def test_a_watched_change_is_reconciled(client: LanguageClient, workspace: Path) -> None:
    models = workspace / "billing" / "models.py"
    made = await remember_on_parse_amount(client, models)
    touch(models, models.read_text().replace("return decimal.Decimal(text)", "return float(text)"))
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=models.as_uri(), type=types.FileChangeType.Changed)]
        )
    )

    for _ in range(WATCH_POLLS):  # the watcher's batch is debounced; the command answers what the server holds
        if await status_of(client, made["id"]) == "stale":
            break
        await asyncio.sleep(0.25)
    assert await status_of(client, made["id"]) == "stale"


async def test_an_orphan_is_reanchored_from_a_code_action(client: LanguageClient, workspace: Path) -> None:
    models = workspace / "billing" / "models.py"
    made = await remember_on_parse_amount(client, models)
    text = models.read_text()
    start = text.index("def parse_amount")
    touch(models, text[:start] + "def amount_from(raw, *, places):\n    return round(float(raw), places) or None\n")
    await run(client, "forewarn.reindex", uri=models.as_uri())
    assert await status_of(client, made["id"]) == "orphaned"

    uri = open_document(client, models)
    line = next(i for i, t in enumerate(models.read_text().splitlines()) if t.startswith("def amount_from"))
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line + 1, 0), end=types.Position(line + 1, 0)),
        context=types.CodeActionContext(diagnostics=[]),
    )
    request = {"jsonrpc": "2.0", "id": "actions", "method": "textDocument/codeAction"}
    actions = await raw_request(
        client, {**request, "params": client.protocol._converter.unstructure(params)}, "actions"
    )
    offered = [a for a in actions if a["command"]["command"] == "forewarn.reanchor"]
    assert len(offered) == 1 and "amount_from" in offered[0]["title"]
    argument = offered[0]["command"]["arguments"][0]
    assert argument == {"id": made["id"], "uri": uri, "symbol": "amount_from"}
    done = await run(client, "forewarn.reanchor", **argument)
    assert done["status"] == "active" and done["memory"]["anchor"]["symbol"] == "amount_from"
    with pytest.raises(JsonRpcException, match="'symbol' or 'range' is required"):
        await run(client, "forewarn.reanchor", id=made["id"], uri=uri)


async def test_a_stale_memory_hover_shows_what_changed(client: LanguageClient, workspace: Path) -> None:
    models = workspace / "billing" / "models.py"
    made = await remember_on_parse_amount(client, models)
    # reformatted only: still active
    touch(models, models.read_text().replace("return decimal.Decimal(text)", "return decimal.Decimal( text )  # exact"))
    await run(client, "forewarn.reindex", uri=models.as_uri())
    assert await status_of(client, made["id"]) == "active"
    touch(models, models.read_text().replace("return decimal.Decimal( text )  # exact", "return float(text)"))
    await run(client, "forewarn.reindex", uri=models.as_uri())
    assert await status_of(client, made["id"]) == "stale"
    uri = open_document(client, models)
    line = next(i for i, t in enumerate(models.read_text().splitlines()) if t.startswith("def parse_amount"))
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line, 6))
    )
    assert hover is not None
    text = hover.contents.value  # type: ignore[union-attr]
    assert "stale" in text and "```diff" in text
    assert "-    return decimal.Decimal( text )  # exact" in text and "+    return float(text)" in text
