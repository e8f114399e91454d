"""An edited, unsaved buffer through the real server: the code action "remember a gotcha for …" names (and its command
anchors to) the definition the buffer has at the cursor, not the one at that line on disk; code written only in the
buffer is offered no remember at all; the hover on a definition's name finds its memories where the buffer moved it."""

from __future__ import annotations

from collections.abc import AsyncIterator
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

LEDGER = '''\
"""A ledger."""


class Ledger:
    def post(self, entry):
        self.entries.append(entry)
        return entry

    def close(self):
        self.closed = True
        return self.total()

    def total(self):
        return sum(e.amount for e in self.entries)


class Drawer:
    def close(self):
        self.shut = True
'''

GOTCHA = "Ledger.close must total before marking closed, or the last entry is lost"
PADDING = (
    "    # a note the user is writing\n" * 4
)  # inserted above ``post``: ``close`` then sits where ``total`` is saved


@pytest.fixture
def books(tmp_path: Path) -> Path:
    root = tmp_path / "books"
    root.mkdir()
    (root / "ledger.py").write_text(LEDGER)
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, books: Path) -> AsyncIterator[None]:
    await start_editor(lsp_client, request.param, books, {"mining": {"enabled": False}})
    yield
    await lsp_client.shutdown_session()


def row_of(text: str, line_text: str) -> int:
    """The 0-based line of ``text`` that contains ``line_text``."""
    return next(i for i, line in enumerate(text.splitlines()) if line_text in line)


async def edit_unsaved(client: LanguageClient, books: Path, text: str, made: str) -> str:
    """Open ledger.py, replace its buffer with ``text`` (never saved) and wait until the memory ``made`` shows
    on ``Ledger.close`` where the buffer has it."""
    uri = open_document(client, books / "ledger.py")
    await diagnostics_for(client, uri, lambda ds: any(d.code == made for d in ds))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    now_at = row_of(text, "def close")
    await diagnostics_for(client, uri, lambda ds: any(d.code == made and d.range.start.line == now_at for d in ds))
    return uri


async def remember_action(client: LanguageClient, uri: str, row: int) -> dict[str, Any] | None:
    """The "remember a gotcha" action offered with the cursor on 0-based line ``row``, if any (as the JSON the
    server sent: the typed client cannot tell a CodeAction literal from a Command)."""
    at = types.Position(row, 8)
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=at, end=at),
        context=types.CodeActionContext(diagnostics=[]),
    )
    request = {"jsonrpc": "2.0", "id": f"actions-{row}", "method": "textDocument/codeAction"}
    found = await raw_request(
        client, {**request, "params": client.protocol._converter.unstructure(params)}, request["id"]
    )
    return next((a for a in found or [] if a["title"].startswith("Forewarn: remember")), None)


async def remembered(client: LanguageClient, action: dict[str, Any], text: str) -> dict[str, Any]:
    """Run ``action``'s command as an editor does once the user typed ``text``; the stored memory."""
    command = action["command"] if isinstance(action["command"], dict) else action  # a literal, or a bare Command
    argument = {**command["arguments"][0], "text": text}
    result = await run(client, command["command"], **argument)
    return dict(result["memory"])


async def test_remember_in_an_unsaved_buffer_names_and_anchors_the_buffers_definition(
    client: LanguageClient, books: Path
) -> None:
    made = (await run(client, "forewarn.remember", text=GOTCHA, type="gotcha", uri=(books / "ledger.py").as_uri(),
                      symbol="Ledger.close"))["id"]  # fmt: skip
    edited = LEDGER.replace("class Ledger:\n", "class Ledger:\n" + PADDING)
    assert row_of(edited, "def close") == row_of(LEDGER, "def total")  # on disk, that line is ``total``
    uri = await edit_unsaved(client, books, edited, made)

    action = await remember_action(client, uri, row_of(edited, "def close"))
    assert action is not None and action["title"] == "Forewarn: remember a gotcha for Ledger.close"
    memory = await remembered(client, action, "close() is called twice by the nightly job: keep it idempotent")
    assert memory["anchor"]["symbol"] == "Ledger.close"
    saved_close = row_of(LEDGER, "def close")
    assert memory["anchor"]["range"]["start"]["line"] == saved_close  # the saved file's lines, as the index has them


async def test_a_method_moved_in_the_buffer_is_named_by_the_action(client: LanguageClient, books: Path) -> None:
    made = (await run(client, "forewarn.remember", text=GOTCHA, type="gotcha", uri=(books / "ledger.py").as_uri(),
                      symbol="Ledger.close"))["id"]  # fmt: skip
    close = "    def close(self):\n        self.closed = True\n        return self.total()\n\n"
    total = "    def total(self):\n        return sum(e.amount for e in self.entries)\n"
    moved = LEDGER.replace(close + total, total + "\n" + close.rstrip("\n") + "\n")
    assert row_of(moved, "def total") == row_of(LEDGER, "def close")  # on disk, that line is ``close``
    uri = await edit_unsaved(client, books, moved, made)

    action = await remember_action(client, uri, row_of(moved, "def total"))
    assert action is not None and action["title"] == "Forewarn: remember a gotcha for Ledger.total"
    action = await remember_action(client, uri, row_of(moved, "def close"))
    assert action is not None and action["title"] == "Forewarn: remember a gotcha for Ledger.close"


async def test_code_written_only_in_the_buffer_is_offered_no_remember_on_the_saved_definition_there(
    client: LanguageClient, books: Path
) -> None:
    made = (await run(client, "forewarn.remember", text=GOTCHA, type="gotcha", uri=(books / "ledger.py").as_uri(),
                      symbol="Ledger.close"))["id"]  # fmt: skip
    new_method = "    def reopen(self):\n        self.closed = False\n        return self\n\n"
    edited = LEDGER.replace("    def post(self, entry):", new_method + "    def post(self, entry):")
    uri = await edit_unsaved(client, books, edited, made)

    # on disk, that line is inside ``post``: naming it (or anchoring there) would store the gotcha on the wrong code
    assert await remember_action(client, uri, row_of(edited, "self.closed = False")) is None


async def test_a_hover_on_a_definition_the_buffer_moved_down_shows_its_memories(
    client: LanguageClient, books: Path
) -> None:
    made = (await run(client, "forewarn.remember", text=GOTCHA, type="gotcha", uri=(books / "ledger.py").as_uri(),
                      symbol="Ledger.close"))["id"]  # fmt: skip
    edited = LEDGER.replace("class Ledger:\n", "class Ledger:\n" + PADDING)
    uri = await edit_unsaved(client, books, edited, made)

    # ``close`` is defined twice in the file: which one the cursor is on is told by the saved spans around it
    row = row_of(edited, "def close")
    found = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(row, 9))
    )
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    assert GOTCHA in found.contents.value
    assert found.range is not None and found.range.start.line == row  # where the cursor is, in the buffer


async def test_the_editors_own_remember_at_a_buffer_line_anchors_where_that_line_is_saved(
    client: LanguageClient, books: Path
) -> None:
    """Neovim's ``:Forewarn remember`` and VS Code's "remember here" send the buffer's line and no symbol."""
    made = (await run(client, "forewarn.remember", text=GOTCHA, type="gotcha", uri=(books / "ledger.py").as_uri(),
                      symbol="Ledger.close"))["id"]  # fmt: skip
    new_method = "    def reopen(self):\n        self.closed = False\n        return self\n\n"
    edited = LEDGER.replace("class Ledger:\n", "class Ledger:\n" + PADDING).replace(
        "    def post(self, entry):", new_method + "    def post(self, entry):"
    )
    uri = await edit_unsaved(client, books, edited, made)
    row = row_of(edited, "self.closed = True")  # inside ``close``; on disk that line is further up
    at = {"start": {"line": row, "character": 0}, "end": {"line": row, "character": 0}}
    memory = (await run(client, "forewarn.remember", text="closing twice double-counts", uri=uri, range=at))["memory"]
    assert memory["anchor"]["symbol"] == "Ledger.close", memory["anchor"]
    unsaved = row_of(edited, "self.closed = False")
    line = {"start": {"line": unsaved, "character": 0}, "end": {"line": unsaved, "character": 0}}
    with pytest.raises(Exception, match="not saved yet"):
        await run(client, "forewarn.remember", text="reopen keeps the total", uri=uri, range=line)
