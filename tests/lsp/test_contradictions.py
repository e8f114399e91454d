"""Contradictions through the real server, as both editors: remember's answer lists them, forewarn.resolveConflict
settles them three ways, a contested pair shows both texts as Warnings on open, and its quick fixes resolve it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import (
    EDITORS,
    SERVER_COMMAND,
    diagnostics_for,
    open_document,
    raw_request,
    run,
    start_editor,
)

OLD = "Invoice.total rounds each line to cents before summing"
NEW = "Invoice.total no longer rounds each line to cents before summing"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    await start_editor(lsp_client, request.param, workspace)
    yield
    await lsp_client.shutdown_session()


def ours(diags: list[types.Diagnostic], memory_id: str) -> types.Diagnostic | None:
    return next((d for d in diags if d.code == memory_id), None)


async def remember(client: LanguageClient, workspace: Path, text: str, mtype: str = "decision") -> Any:
    models = workspace / "billing" / "models.py"
    return await run(client, "forewarn.remember", text=text, type=mtype, uri=models.as_uri(), symbol="Invoice.total")


async def test_remember_answers_conflicts_and_resolve_replace(client: LanguageClient, workspace: Path) -> None:
    old = await remember(client, workspace, OLD)
    assert old["conflicts"] == []
    new = await remember(client, workspace, NEW)
    assert [c["id"] for c in new["conflicts"]] == [old["id"]]
    conflict = new["conflicts"][0]
    assert (
        "negation" in conflict["cues"] and conflict["text"] == OLD and conflict["anchor"]["symbol"] == "Invoice.total"
    )
    assert [c["id"] for c in new["candidates"]] == [old["id"]]
    done = await run(client, "forewarn.resolveConflict", id=new["id"], other=old["id"], resolution="replace")
    assert done["resolution"] == "replace" and done["memory"]["status"] == "active"
    assert done["otherMemory"]["status"] == "superseded"
    uri = open_document(client, workspace / "billing" / "models.py")
    diags = await diagnostics_for(client, uri, lambda ds: ours(ds, new["id"]) is not None)
    assert ours(diags, old["id"]) is None


async def test_both_hold_is_never_asked_again(client: LanguageClient, workspace: Path) -> None:
    old = await remember(client, workspace, OLD)
    new = await remember(client, workspace, NEW)
    done = await run(client, "forewarn.resolveConflict", id=new["id"], other=old["id"], resolution="both")
    assert done["memory"]["status"] == done["otherMemory"]["status"] == "active"
    again = await remember(client, workspace, NEW)  # the same lesson again: merged, and the pair stays settled
    assert again["merged"] and again["conflicts"] == []


async def test_contested_pair_warns_with_both_texts_until_a_quick_fix_resolves_it(
    client: LanguageClient, workspace: Path
) -> None:
    old = await remember(client, workspace, OLD, "note")  # a note is Information unless contested
    new = await remember(client, workspace, NEW, "note")
    await run(client, "forewarn.resolveConflict", id=new["id"], other=old["id"], resolution="contested")
    uri = open_document(client, workspace / "billing" / "models.py")
    diags = await diagnostics_for(
        client, uri, lambda ds: all((d := ours(ds, m["id"])) and "contested" in d.message for m in (old, new))
    )
    for mine, theirs in ((old, new), (new, old)):
        diag = ours(diags, mine["id"])
        assert diag is not None and diag.severity == types.DiagnosticSeverity.Warning
        assert diag.message.split("\n")[1].startswith("contested note")  # the lesson first, then what it is
        assert mine["memory"]["text"] in diag.message and theirs["memory"]["text"] in diag.message  # both texts
        assert diag.data["status"] == "contested" and diag.data["contested"] == [theirs["id"]]

    diag = ours(diags, new["id"])
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=diag.range,  # type: ignore[union-attr]
        context=types.CodeActionContext(diagnostics=[diag]),  # type: ignore[list-item]
    )
    request = {"jsonrpc": "2.0", "id": "actions", "method": "textDocument/codeAction"}
    actions = await raw_request(
        client, {**request, "params": client.protocol._converter.unstructure(params)}, "actions"
    )
    resolutions = [a["command"] for a in actions if a["command"]["command"] == "forewarn.resolveConflict"]
    assert sorted(c["arguments"][0]["resolution"] for c in resolutions) == ["both", "replace"]
    assert all(c["arguments"][0]["id"] == new["id"] and c["arguments"][0]["other"] == old["id"] for c in resolutions)
    # "confirm still true" would not say which of the pair holds (the engine refuses it): not offered
    assert not any(a["command"]["command"] == "forewarn.confirm" for a in actions)
    both = next(c for c in resolutions if c["arguments"][0]["resolution"] == "both")
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=both["command"], arguments=both["arguments"])
    )
    settled = await diagnostics_for(
        client, uri, lambda ds: all((d := ours(ds, m["id"])) and "contested" not in d.message for m in (old, new))
    )
    assert all(d.severity == types.DiagnosticSeverity.Information for d in settled if d.code in (old["id"], new["id"]))


async def test_resolve_conflict_checks_its_arguments(client: LanguageClient, workspace: Path) -> None:
    old = await remember(client, workspace, OLD)
    new = await remember(client, workspace, NEW)
    with pytest.raises(Exception, match="'resolution' must be one of replace, both, contested"):
        await run(client, "forewarn.resolveConflict", id=new["id"], other=old["id"], resolution="maybe")
    with pytest.raises(Exception, match="'other' is required"):
        await run(client, "forewarn.resolveConflict", id=new["id"], resolution="both")
    with pytest.raises(Exception, match="cannot contradict itself"):
        await run(client, "forewarn.resolveConflict", id=new["id"], other=new["id"], resolution="both")
