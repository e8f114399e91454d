"""Overloads and ``super`` calls, through the real server on a small Java package: a hover on one overload's
name shows that overload's memories only, a memory stays on its overload while the buffer reorders them unsaved,
and ``super.before(node)`` in a subclass is a use of the superclass's ``before(Node)``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import EDITORS, SERVER_COMMAND, diagnostics_for, open_document, run, start_editor

NODE = """\
package shop;

public class Node {
    /** Insert html before this node. */
    public Node before(String html) {
        return this;
    }

    /** Insert a node before this node. */
    public Node before(Node node) {
        node.remove();
        return this;
    }

    public void remove() {
    }
}
"""

ELEMENT = """\
package shop;

public class Element extends Node {
    @Override
    public Element before(Node node) {
        return (Element) super.before(node);
    }
}
"""

GOTCHA = "before(Node) must remove the incoming node first or the sibling order breaks"


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "Node.java").write_text(NODE)
    (root / "shop" / "Element.java").write_text(ELEMENT)
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, shop: Path) -> AsyncIterator[None]:
    await start_editor(lsp_client, request.param, shop, {"mining": {"enabled": False}})
    yield
    await lsp_client.shutdown_session()


def where(text: str, line_text: str, word: str) -> types.Position:
    """The position of ``word`` on the first line of ``text`` that contains ``line_text``."""
    lines = text.splitlines()
    row = next(i for i, line in enumerate(lines) if line_text in line)
    return types.Position(row, lines[row].index(word, lines[row].index(line_text)))


async def hover_text(client: LanguageClient, uri: str, at: types.Position) -> str:
    found = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)
    )
    if found is None:
        return ""
    assert isinstance(found.contents, types.MarkupContent)
    return found.contents.value


async def remember_on_before_node(client: LanguageClient, shop: Path) -> str:
    node = (shop / "shop" / "Node.java").as_uri()
    made = await run(client, "forewarn.remember", text=GOTCHA, type="gotcha", uri=node, symbol="Node.before#2")
    return str(made["id"])


async def test_a_hover_on_one_overloads_name_shows_that_overloads_memories_only(
    client: LanguageClient, shop: Path
) -> None:
    await remember_on_before_node(client, shop)
    node = open_document(client, shop / "shop" / "Node.java", "java")
    assert GOTCHA not in await hover_text(client, node, where(NODE, "before(String html)", "before"))
    assert GOTCHA in await hover_text(client, node, where(NODE, "before(Node node)", "before"))


async def test_a_memory_stays_on_its_overload_while_the_buffer_reorders_them_unsaved(
    client: LanguageClient, shop: Path
) -> None:
    made = await remember_on_before_node(client, shop)
    node = open_document(client, shop / "shop" / "Node.java", "java")
    first = await diagnostics_for(client, node, lambda ds: any(d.code == made for d in ds))
    assert [d.range.start.line for d in first if d.code == made] == [where(NODE, "before(Node node)", "before").line]

    lines = NODE.splitlines(keepends=True)
    string_overload, node_overload = "".join(lines[3:8]), "".join(lines[8:14])
    reordered = NODE.replace(string_overload + node_overload, node_overload + string_overload)
    now_at = where(reordered, "before(Node node)", "before").line
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=node, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=reordered)],
        )
    )
    moved = await diagnostics_for(
        client, node, lambda ds: any(d.code == made and d.range != first[0].range for d in ds)
    )
    assert [d.range.start.line for d in moved if d.code == made] == [now_at]


async def test_super_call_in_a_subclass_is_a_use_of_the_superclass_method(client: LanguageClient, shop: Path) -> None:
    made = await remember_on_before_node(client, shop)
    element = open_document(client, shop / "shop" / "Element.java", "java")
    diags = await diagnostics_for(client, element, lambda ds: any(d.code == made for d in ds))
    assert [d.range.start.line for d in diags if d.code == made] == [where(ELEMENT, "super.before", "before").line]

    text = await hover_text(client, element, where(ELEMENT, "super.before(node)", "before"))
    # its argument is declared a Node there, so the call means before(Node) alone: no "On the overload at …"
    assert GOTCHA in text and "defined in `shop/Node.java`" in text and "On the overload" not in text
