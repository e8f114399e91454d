"""The right symbol, through the real server: a hover names what is under the cursor (a definition, or
what a call, an import alias or ``obj.method()`` resolves to), nothing where there is nothing, and a
neighbour's memory sits on the line that uses its symbol."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import (
    EDITORS,
    SERVER_COMMAND,
    diagnostics_for,
    open_document,
    run,
    start_editor,
)

PAYMENTS = '''\
"""Payments."""


def charge_card(card, amount):
    """Charge a card."""
    return card.charge(amount)


class Gateway:
    def send(self, payload):
        return payload

    def retry(self, payload):
        return self.send(payload)
'''

CHECKOUT = '''\
"""Checkout: uses the payments."""

from payments import Gateway, charge_card
from payments import charge_card as pay


def finalize(order):
    """Finalize the order; charge_card runs once."""
    # charge_card is retried by the caller

    gateway = Gateway()
    gateway.send(order)
    return charge_card(order.card, order.total)


def quick(order):
    return pay(order.card, 1)
'''

GOTCHA = "charge_card after a timeout double-charges: pass an idempotency key"
SEND = "Gateway.send drops payloads over 1 MB without an error"


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    (root / "payments.py").write_text(PAYMENTS)
    (root / "checkout.py").write_text(CHECKOUT)
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, shop: Path):
    await start_editor(lsp_client, request.param, shop, {"mining": {"enabled": False}})
    yield
    await lsp_client.shutdown_session()


def where(text: str, line_text: str, word: str) -> types.Position:
    """The position of ``word`` on the first line of ``text`` that contains ``line_text``."""
    row = next(i for i, line in enumerate(text.splitlines()) if line_text in line)
    return types.Position(row, text.splitlines()[row].index(word, text.splitlines()[row].index(line_text)))


async def hover(client: LanguageClient, uri: str, at: types.Position) -> types.Hover | None:
    return await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)
    )


def body(found: types.Hover | None) -> str:
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    return found.contents.value


async def remember_both(client: LanguageClient, shop: Path) -> tuple[str, str]:
    payments = (shop / "payments.py").as_uri()
    gotcha = await run(client, "forewarn.remember", text=GOTCHA, type="gotcha", uri=payments, symbol="charge_card")
    send = await run(client, "forewarn.remember", text=SEND, type="gotcha", uri=payments, symbol="Gateway.send")
    return gotcha["id"], send["id"]


async def test_hover_resolves_the_symbol_under_the_cursor(client: LanguageClient, shop: Path) -> None:
    await remember_both(client, shop)
    checkout = open_document(client, shop / "checkout.py")

    # a call inside finalize: charge_card's memory, not finalize's (it has none), over the name itself
    call = where(CHECKOUT, "return charge_card(", "charge_card")
    found = await hover(client, checkout, call)
    text = body(found)
    assert "`charge_card`" in text and "defined in `payments.py`" in text and "idempotency key" in text
    assert "finalize" not in text
    assert found is not None and found.range is not None
    assert (found.range.start, found.range.end) == (call, types.Position(call.line, call.character + 11))

    # an import alias, and the imported name in the import statement
    assert "idempotency key" in body(await hover(client, checkout, where(CHECKOUT, "return pay(", "pay")))
    assert "idempotency key" in body(await hover(client, checkout, where(CHECKOUT, "import Gateway", "charge_card")))

    # obj.method(): the receiver's class is Gateway (imported), so send is Gateway.send
    method = body(await hover(client, checkout, where(CHECKOUT, "gateway.send(order)", "send")))
    assert "`Gateway.send`" in method and "1 MB" in method and "idempotency" not in method

    # self.send() inside the class that defines it, and the definitions themselves
    payments = open_document(client, shop / "payments.py")
    assert "1 MB" in body(await hover(client, payments, where(PAYMENTS, "return self.send(", "send")))
    own = body(await hover(client, payments, where(PAYMENTS, "def charge_card", "charge_card")))
    assert "idempotency key" in own and "defined in" not in own


async def test_nothing_where_there_is_nothing(client: LanguageClient, shop: Path) -> None:
    await remember_both(client, shop)
    checkout = open_document(client, shop / "checkout.py")
    lines = CHECKOUT.splitlines()
    blank = types.Position(lines.index(""), 0)
    comment = where(CHECKOUT, "# charge_card is retried", "charge_card")
    docstring = where(CHECKOUT, "charge_card runs once", "charge_card")
    local = where(CHECKOUT, "gateway = Gateway()", "gateway")
    keyword = where(CHECKOUT, "def finalize", "def")
    unremembered = where(CHECKOUT, "gateway = Gateway()", "Gateway")  # resolves, but nothing is known of it
    for position in (blank, comment, docstring, local, keyword, unremembered):
        assert await hover(client, checkout, position) is None, position


async def test_a_neighbours_memory_sits_on_the_line_using_its_symbol(client: LanguageClient, shop: Path) -> None:
    gotcha, send = await remember_both(client, shop)
    checkout = open_document(client, shop / "checkout.py")

    def placed(diags: list[types.Diagnostic]) -> bool:
        return {gotcha, send} <= {d.code for d in diags}

    diags = {d.code: d for d in await diagnostics_for(client, checkout, placed)}
    # the call, not the docstring or comment above it that mention the name, nor the import
    assert diags[gotcha].range.start.line == where(CHECKOUT, "return charge_card(", "charge_card").line
    assert diags[send].range.start.line == where(CHECKOUT, "gateway.send(order)", "send").line
    assert diags[gotcha].related_information and diags[gotcha].related_information[0].location.uri.endswith(
        "payments.py"
    )
