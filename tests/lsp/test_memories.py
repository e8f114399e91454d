"""End to end, as both editors: remember → open → diagnostics; edits and saves; hover; commands; actions."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import (
    EDITORS,
    SERVER_COMMAND,
    diagnostics_for,
    indexing_done,
    open_document,
    raw_request,
    run,
    start_editor,
)
from tests.lsp.test_convert import rendered_text

TOTAL_GOTCHA = "Invoice.total must quantize after summing, never per line: rounding per line loses cents."
INJECTION = "See [the fix](command:workbench.action.terminal.new) <img src=x onerror=alert(1)> &#x3c;b&#x3e;"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    lsp_client.set_configuration({"diagnostics": {"maxWarnings": 2}}, section="forewarn")
    lsp_client.editor = request.param  # type: ignore[attr-defined]
    lsp_client.registrations = await start_editor(lsp_client, request.param, workspace)  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def ours(diags: list[types.Diagnostic], memory_id: str) -> types.Diagnostic | None:
    return next((d for d in diags if d.code == memory_id), None)


async def test_indexing_reports_progress(client: LanguageClient) -> None:
    runs = await indexing_done(client)
    reports = runs[0]
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and "indexing" in reports[0].title
    assert isinstance(reports[-1], types.WorkDoneProgressEnd) and "files" in (reports[-1].message or "")
    if client.editor == "visual-studio-code":  # type: ignore[attr-defined]
        # VS Code registers watchers dynamically; Neovim 0.11's capabilities say it cannot
        methods = [r.method for r in client.registrations]  # type: ignore[attr-defined]
        assert types.WORKSPACE_DID_CHANGE_WATCHED_FILES in methods


async def test_remembered_gotcha_appears_on_open(client: LanguageClient, workspace: Path) -> None:
    models = workspace / "billing" / "models.py"
    gotcha = await run(
        client, "forewarn.remember", text=TOTAL_GOTCHA, type="gotcha", uri=models.as_uri(), symbol="Invoice.total"
    )
    decision = await run(
        client, "forewarn.remember", text="Money is Decimal everywhere, never float.", type="decision",
        uri=models.as_uri(),
    )  # fmt: skip
    uri = open_document(client, models)
    diags = await diagnostics_for(client, uri, lambda ds: ours(ds, gotcha["id"]) and ours(ds, decision["id"]))

    warning = ours(diags, gotcha["id"])
    assert warning is not None
    assert warning.source == "forewarn"
    assert warning.severity == types.DiagnosticSeverity.Warning
    # Invoice.total is lines 9-12 (1-based): the whole span, ending at the start of line 13
    assert (warning.range.start.line, warning.range.start.character) == (8, 0)
    assert (warning.range.end.line, warning.range.end.character) == (12, 0)
    lesson, about = warning.message.split("\n")  # a headline, then what and whose it is
    assert lesson == "Invoice.total must quantize after summing, never per line: rounding per line loses cents."
    assert about.startswith("gotcha · just now, recorded here by ")  # the writer's git identity
    assert warning.data["id"] == gotcha["id"]

    info = ours(diags, decision["id"])
    assert info is not None and info.severity == types.DiagnosticSeverity.Information
    assert info.range.start.line == 0 and info.range.end.line == 1  # file-wide: the first line

    # the service uses Invoice.total: the gotcha reaches it as Information, pointing back at its anchor
    service = workspace / "billing" / "service.py"
    service_uri = open_document(client, service)
    service_diags = await diagnostics_for(client, service_uri, lambda ds: ours(ds, gotcha["id"]) is not None)
    neighbour = ours(service_diags, gotcha["id"])
    assert neighbour is not None and neighbour.severity == types.DiagnosticSeverity.Information
    assert neighbour.range.start.line == 7  # `return invoice.total(lines)`: the first mention of total
    assert neighbour.related_information
    related = neighbour.related_information[0].location
    assert related.uri == models.as_uri() and related.range.start.line == 8

    # and in TypeScript: an error pattern on a method, a Warning over its span
    cart = workspace / "web" / "cart.ts"
    pattern = await run(
        client, "forewarn.remember", text="reduce() without an initial value throws on an empty cart.",
        type="error_pattern", uri=cart.as_uri(), symbol="Cart.total",
    )  # fmt: skip
    cart_uri = open_document(client, cart, language="typescript")
    ts = ours(await diagnostics_for(client, cart_uri, lambda ds: ours(ds, pattern["id"]) is not None), pattern["id"])
    assert ts is not None and ts.severity == types.DiagnosticSeverity.Warning
    assert (ts.range.start.line, ts.range.end.line) == (7, 10)


async def test_edit_then_save_turns_the_memory_stale(client: LanguageClient, workspace: Path) -> None:
    models = workspace / "billing" / "models.py"
    gotcha = await run(
        client, "forewarn.remember", text=TOTAL_GOTCHA, type="gotcha", uri=models.as_uri(), symbol="Invoice.total"
    )
    uri = open_document(client, models)
    await diagnostics_for(client, uri, lambda ds: ours(ds, gotcha["id"]) is not None)

    # typing two lines above the class moves the span before anything is saved (debounced re-anchor)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(3, 0), end=types.Position(3, 0)), text="ROUNDING = 2\n\n"
                )
            ],
        )
    )
    moved = await diagnostics_for(
        client, uri, lambda ds: (d := ours(ds, gotcha["id"])) is not None and d.range.start.line == 10
    )
    assert ours(moved, gotcha["id"]).severity == types.DiagnosticSeverity.Warning  # type: ignore[union-attr]

    # now change the anchored code itself and save: the lesson may no longer hold
    new_text = models.read_text().replace(
        'return amount.quantize(decimal.Decimal("0.01"))', "return round(amount, 2)  # floats now"
    )
    new_text = new_text.replace('"""Billing models."""\n', '"""Billing models."""\n\nROUNDING = 2\n')
    models.write_text(new_text)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    stale = await diagnostics_for(
        client,
        uri,
        lambda ds: (d := ours(ds, gotcha["id"])) is not None and d.severity == types.DiagnosticSeverity.Hint,
    )
    diag = ours(stale, gotcha["id"])
    assert diag is not None and "stale" in diag.message
    assert diag.range.start.line == 10  # re-anchored to where Invoice.total now is

    # "still true": confirming brings the warning back
    await run(client, "forewarn.confirm", id=gotcha["id"])
    await diagnostics_for(
        client,
        uri,
        lambda ds: (d := ours(ds, gotcha["id"])) is not None and d.severity == types.DiagnosticSeverity.Warning,
    )


async def test_hover_shows_memories_and_importance_escaped(client: LanguageClient, workspace: Path) -> None:
    models = workspace / "billing" / "models.py"
    await run(
        client, "forewarn.remember", text=TOTAL_GOTCHA, type="gotcha", uri=models.as_uri(), symbol="Invoice.total"
    )
    await run(client, "forewarn.remember", text=INJECTION, type="gotcha", uri=models.as_uri(), symbol="Invoice.total")
    uri = open_document(client, models)
    hover = await client.text_document_hover_async(  # on the name `total` of `def total`
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(8, 8))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    body = hover.contents.value
    assert "`Invoice.total`" in body
    assert "Importance: its file ranks" in body and "1 file depends on" in body  # service.py uses models.py
    assert "Invoice.total must quantize after summing" in body
    # the injected link, HTML and entity arrive inert: rendered as CommonMark with raw HTML on (the worst
    # case), the line is one paragraph of plain text that reads exactly as written (the escaping rules
    # themselves: tests/lsp/test_convert.py)
    injected = next(line for line in body.splitlines() if "onerror" in line)
    assert rendered_text(injected) == INJECTION, injected

    # a keyword (`import`) is no symbol: no popup at all (tests/lsp/test_hover.py has the rest)
    nothing = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(2, 0))
    )
    assert nothing is None


async def test_search_symbols_and_code_actions(client: LanguageClient, workspace: Path) -> None:
    models = workspace / "billing" / "models.py"
    gotcha = await run(
        client, "forewarn.remember", text=TOTAL_GOTCHA, type="gotcha", uri=models.as_uri(), symbol="Invoice.total"
    )
    found = await run(client, "forewarn.search", query="rounding cents quantize")
    assert found["mode"] in ("hybrid", "lexical")
    top = found["memories"][0]
    assert top["id"] == gotcha["id"] and top["type"] == "gotcha" and top["age"] == "just now"
    assert top["anchor"]["uri"] == models.as_uri() and top["anchor"]["symbol"] == "Invoice.total"
    assert top["anchor"]["range"]["start"] == {"line": 8, "character": 0}
    assert any(c["symbol"] == "Invoice.total" and c["uri"] == models.as_uri() for c in found["chunks"])
    # code hits grouped by file, each opening at its chunk; codeOnly leaves the memories out
    group = next(f for f in found["files"] if f["uri"] == models.as_uri())
    assert group["file"] == "billing/models.py" and group["is_test"] is False
    assert group["chunks"][0]["symbol"] == "Invoice.total" and group["chunks"][0]["range"]["start"]["line"] == 8
    code = await run(client, "forewarn.search", query="rounding cents quantize", codeOnly=True, k=1)
    assert code["memories"] == [] and [f["file"] for f in code["files"]] == ["billing/models.py"]

    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="quantize rounding"))
    names = [s.name for s in symbols]
    assert any(n.startswith("⚠ gotcha: Invoice.total must quantize") for n in names), names

    uri = open_document(client, models)
    diags = await diagnostics_for(client, uri, lambda ds: ours(ds, gotcha["id"]) is not None)
    diag = ours(diags, gotcha["id"])
    # raw JSON, as editors read it (lsprotocol's client-side union would mistake a CodeAction for a Command)
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(10, 0), end=types.Position(10, 5)),
        context=types.CodeActionContext(diagnostics=[diag]),  # type: ignore[list-item]
    )
    request = {"jsonrpc": "2.0", "id": "actions", "method": "textDocument/codeAction"}
    actions = await raw_request(
        client, {**request, "params": client.protocol._converter.unstructure(params)}, "actions"
    )
    by_command = {a["command"]["command"]: a for a in actions}
    assert set(by_command) == {
        "forewarn.remember", "forewarn.confirm", "forewarn.markOutdated", "forewarn.supersede", "forewarn.forget",
    }  # fmt: skip
    assert all(a["kind"] == "quickfix" for a in actions)
    assert by_command["forewarn.remember"]["command"]["arguments"][0]["symbol"] == "Invoice.total"
    assert by_command["forewarn.confirm"]["diagnostics"][0]["code"] == gotcha["id"]
    outdated = by_command["forewarn.markOutdated"]["command"]
    assert outdated["arguments"] == [{"id": gotcha["id"]}]

    # run what the action carries, as an editor would
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=outdated["command"], arguments=outdated["arguments"])
    )
    await diagnostics_for(
        client,
        uri,
        lambda ds: (d := ours(ds, gotcha["id"])) is not None and d.severity == types.DiagnosticSeverity.Hint,
    )
    newer = await run(client, "forewarn.supersede", id=gotcha["id"], text="Invoice.total rounds with ROUND_HALF_EVEN.")
    assert newer["superseded"] == gotcha["id"]
    after = await diagnostics_for(
        client, uri, lambda ds: ours(ds, newer["id"]) is not None and ours(ds, gotcha["id"]) is None
    )
    assert ours(after, newer["id"]).range.start.line == 8  # type: ignore[union-attr]
    forgotten = await run(client, "forewarn.forget", id=newer["id"])
    assert forgotten["id"] == newer["id"] and forgotten["status"] == "archived"
    assert f"forewarn memory restore {newer['id']}" in forgotten["restore"]["message"]
    restore = forgotten["restore"]["command"]  # the answer carries the way back, ready to run
    await diagnostics_for(client, uri, lambda ds: ours(ds, newer["id"]) is None)
    restored = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=restore["command"], arguments=restore["arguments"])
    )
    assert restored == {"id": newer["id"], "status": "active"}
    await diagnostics_for(client, uri, lambda ds: ours(ds, newer["id"]) is not None)  # shown again at once
    with pytest.raises(Exception, match="not forgotten; nothing to restore"):
        await run(client, "forewarn.restore", id=newer["id"])
    await run(client, "forewarn.forget", id=newer["id"])
    await diagnostics_for(client, uri, lambda ds: ours(ds, newer["id"]) is None)

    stats = await run(client, "forewarn.stats")
    assert stats["by_status"].get("archived") == 1 and stats["by_status"].get("superseded") == 1
    rmap = await run(client, "forewarn.repoMap", budget=256, focus=[models.as_uri()])
    assert "Invoice" in rmap["text"] and rmap["files"][0]["uri"].startswith("file://")
    reindexed = await run(client, "forewarn.reindex")
    assert reindexed["files"] == 4 and reindexed["changed"] == 0


async def test_warnings_are_capped_and_settings_reload(client: LanguageClient, workspace: Path) -> None:
    models = workspace / "billing" / "models.py"
    ids = []
    for i, symbol in enumerate(["Invoice.total", "Invoice.void", "parse_amount", "Invoice"]):
        made = await run(
            client, "forewarn.remember", text=f"Gotcha number {i} about {symbol}.", type="gotcha",
            uri=models.as_uri(), symbol=symbol,
        )  # fmt: skip
        ids.append(made["id"])
    uri = open_document(client, models)
    diags = await diagnostics_for(client, uri, lambda ds: all(ours(ds, i) for i in ids))
    severities = sorted(d.severity for d in diags if d.code in ids)  # type: ignore[type-var]
    # maxWarnings is 2 from workspace/configuration: the rest are demoted, not dropped
    assert severities.count(types.DiagnosticSeverity.Warning) == 2
    assert severities.count(types.DiagnosticSeverity.Information) == 2

    client.set_configuration({"diagnostics": {"enabled": False}}, section="forewarn")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
    await diagnostics_for(client, uri, lambda ds: ds == [])


async def test_watched_file_changes_reindex(client: LanguageClient, workspace: Path) -> None:
    models = workspace / "billing" / "models.py"
    gotcha = await run(
        client, "forewarn.remember", text="parse_amount trusts its input.", type="gotcha", uri=models.as_uri(),
        symbol="parse_amount",
    )  # fmt: skip
    uri = open_document(client, models)
    await diagnostics_for(client, uri, lambda ds: ours(ds, gotcha["id"]) is not None)
    # changed outside the editor (a git checkout): the client's file watcher reports it
    models.write_text(
        models.read_text().replace("return decimal.Decimal(text)", "return decimal.Decimal(text.strip())")
    )
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Changed)])
    )
    stale = await diagnostics_for(
        client,
        uri,
        lambda ds: (d := ours(ds, gotcha["id"])) is not None and d.severity == types.DiagnosticSeverity.Hint,
    )
    assert "stale" in ours(stale, gotcha["id"]).message  # type: ignore[union-attr]


async def test_percent_encoded_uris_round_trip(client: LanguageClient, workspace: Path) -> None:
    odd = workspace / "billing" / "tax rules #2.py"
    odd.write_text("def vat(amount):\n    return amount * 0.2\n")
    uri = odd.as_uri()
    assert "%20" in uri and "%23" in uri
    made = await run(client, "forewarn.remember", text="VAT is 20% only in some countries.", uri=uri, symbol="vat")
    open_document(client, odd)
    diags = await diagnostics_for(client, uri, lambda ds: ours(ds, made["id"]) is not None)
    assert ours(diags, made["id"]).range.start.line == 0  # type: ignore[union-attr]
    found = await run(client, "forewarn.search", query="VAT countries")
    assert found["memories"][0]["anchor"]["uri"] == uri


async def test_memories_written_by_the_cli_appear_in_open_files(client: LanguageClient, workspace: Path) -> None:
    models = workspace / "billing" / "models.py"
    uri = open_document(client, models)
    await diagnostics_for(client, uri, lambda ds: True)
    cli = [sys.executable, "-m", "forewarn.cli.main", "remember", "--json", "-w", str(workspace)]
    made = await asyncio.create_subprocess_exec(
        *cli, "--type", "gotcha", "--file", "billing/models.py", "--symbol", "Invoice.void", "void() is not undoable.",
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, _ = await made.communicate()
    assert made.returncode == 0
    memory_id = json.loads(out)["id"]
    diags = await diagnostics_for(client, uri, lambda ds: ours(ds, memory_id) is not None)
    assert ours(diags, memory_id).range.start.line == 13  # type: ignore[union-attr]
