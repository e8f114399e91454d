"""Resolving the identifier at a position to its definition (forewarn.workspace.symbols) on a real,
indexed workspace in two languages; and where a file uses a name in code."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.config import Settings
from forewarn.workspace.engine import Workspace
from forewarn.workspace.symbols import SymbolLookup, Target, memories_of

PAYMENTS = '''\
"""Payments."""


def charge_card(card, amount):
    """Charge a card."""
    return card.charge(amount)


@overload
def refund(x: int) -> int: ...
@overload
def refund(x: str) -> str: ...
def refund(x):
    return x


class Gateway:
    def send(self, payload):
        return payload

    def retry(self, payload):
        return self.send(payload)


class Ledger:
    def send(self, entry):
        return entry
'''

CHECKOUT = '''\
"""Checkout: charge_card is used here."""

import payments as pm
from payments import Gateway, charge_card, refund
from payments import charge_card as pay


def finalize(order):
    """Finalize; charge_card runs once."""
    # charge_card is retried by the caller
    gateway = Gateway()
    gateway.send(order)
    label = "😀"; charge_card(order.card, 1)
    refund(order)
    return pm.charge_card(order.card, order.total) + pay(1, 2)


def save(x):
    return x
'''

ORPHAN = """\
def use():
    return save(1) + send(2)
"""

OTHER = """\
def save(y):
    return y
"""

PAY_TS = """\
export function chargeCard(cents: number): number {
  return cents;
}
"""

CART_TS = """\
import { chargeCard as charge } from "./pay";

export function checkout(total: number): number {
  return charge(total);
}
"""


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "shop"
    (root / "web").mkdir(parents=True)
    (root / "payments.py").write_text(PAYMENTS)
    (root / "checkout.py").write_text(CHECKOUT)
    (root / "orphan.py").write_text(ORPHAN)
    (root / "other.py").write_text(OTHER)
    (root / "web" / "pay.ts").write_text(PAY_TS)
    (root / "web" / "cart.ts").write_text(CART_TS)
    settings = Settings()
    settings.embedder.enabled = False
    with Workspace.open(root, settings, embedder=None) as engine:
        engine.reindex()
        yield engine


def at(ws: Workspace, rel: str, line_text: str, word: str, encoding: str = "utf-32") -> Target | None:
    """Resolve ``word`` on the first line of ``rel`` holding ``line_text`` (columns in ``encoding`` units)."""
    text = (ws.root / rel).read_text()
    lines = text.split("\n")
    row = next(i for i, line in enumerate(lines) if line_text in line)
    char = lines[row].index(word, lines[row].index(line_text))
    if encoding == "utf-16":
        char = len(lines[row][:char].encode("utf-16-le")) // 2
    return SymbolLookup(ws.indexer, ws.graph).resolve(rel, text, row + 1, char, encoding)


def test_a_call_in_another_function_resolves_to_the_imported_definition(ws: Workspace) -> None:
    found = at(ws, "checkout.py", "return pm.charge_card(", "charge_card")
    assert found is not None and (found.file, found.symbols, found.definition) == (
        "payments.py",
        ("charge_card",),
        False,
    )
    call = at(ws, "checkout.py", "label = ", "charge_card")
    assert call is not None and call.symbol == "charge_card"


def test_aliases_modules_and_imported_names(ws: Workspace) -> None:
    alias = at(ws, "checkout.py", "+ pay(1, 2)", "pay")
    assert alias is not None and (alias.file, alias.symbol) == ("payments.py", "charge_card")
    module = at(ws, "checkout.py", "return pm.charge_card(", "pm")
    assert module is not None and (module.file, module.symbols, module.kind) == ("payments.py", (), "module")
    imported = at(ws, "checkout.py", "from payments import Gateway", "Gateway")
    assert imported is not None and (imported.file, imported.symbol) == ("payments.py", "Gateway")
    ts = at(ws, "web/cart.ts", "return charge(total)", "charge")
    assert ts is not None and (ts.file, ts.symbol) == ("web/pay.ts", "chargeCard")


def test_method_calls_resolve_by_receiver(ws: Workspace) -> None:
    # Gateway.send and Ledger.send both exist: `gateway.send` names its class, `self.send` its own
    method = at(ws, "checkout.py", "gateway.send(order)", "send")
    assert method is not None and method.symbol == "Gateway.send"
    own = at(ws, "payments.py", "return self.send(payload)", "send")
    assert own is not None and own.symbol == "Gateway.send"
    # a bare `send` with no import behind it and two definers: unresolved rather than a guess
    assert at(ws, "orphan.py", "send(2)", "send") is None


def test_definitions_and_same_named_definitions(ws: Workspace) -> None:
    here = at(ws, "payments.py", "def charge_card", "charge_card")
    assert here is not None and here.definition and (here.file, here.symbol) == ("payments.py", "charge_card")
    assert (here.start_line, here.kind) == (4, "function")
    # overloads count as one definition: the memory of any of them answers a call
    overloads = at(ws, "checkout.py", "refund(order)", "refund")
    assert overloads is not None and len(overloads.symbols) == 3 and overloads.symbol is not None
    assert {s.split("#")[0] for s in overloads.symbols} == {"refund"}
    # `save` is defined in checkout.py and other.py; orphan.py imports neither
    assert at(ws, "orphan.py", "return save(1)", "save") is None


def test_nothing_off_identifiers(ws: Workspace) -> None:
    text = (ws.root / "checkout.py").read_text()
    lookup = SymbolLookup(ws.indexer, ws.graph)
    blank = text.split("\n").index("") + 1
    assert lookup.resolve("checkout.py", text, blank, 0) is None
    assert at(ws, "checkout.py", "# charge_card is retried", "charge_card") is None
    assert at(ws, "checkout.py", "charge_card runs once", "charge_card") is None
    assert at(ws, "checkout.py", 'label = "', "😀") is None
    assert at(ws, "checkout.py", "def finalize", "def") is None
    assert at(ws, "checkout.py", "gateway = Gateway()", "gateway") is None  # a local variable
    assert lookup.resolve("checkout.py", text, 10_000, 0) is None


def test_utf16_columns_in_and_out(ws: Workspace) -> None:
    found = at(ws, "checkout.py", 'label = "', "charge_card", encoding="utf-16")
    assert found is not None and found.symbol == "charge_card"
    line = (ws.root / "checkout.py").read_text().split("\n")[found.line - 1]
    start16 = len(line[: line.index("charge_card")].encode("utf-16-le")) // 2
    assert (found.start_char, found.end_char) == (start16, start16 + len("charge_card"))  # the emoji counts two


def test_memories_of_the_target(ws: Workspace) -> None:
    m = ws.remember(
        "charge_card double-charges after a timeout", type="gotcha", file="payments.py", symbol="charge_card"
    )
    wide = ws.remember("payments.py talks to the live gateway", type="decision", file="payments.py")
    call = at(ws, "checkout.py", "return pm.charge_card(", "charge_card")
    module = at(ws, "checkout.py", "return pm.charge_card(", "pm")
    assert call is not None and module is not None
    assert [x.id for x in memories_of(ws.store, call, ws.clock())] == [m.memory.id]
    assert [x.id for x in memories_of(ws.store, module, ws.clock())] == [wide.memory.id]


def test_uses_resolve_each_name_skip_comments_and_strings_and_prefer_calls_to_imports(ws: Workspace) -> None:
    text = (ws.root / "checkout.py").read_text()
    lines = text.split("\n")
    wanted = {
        "charge_card": [("payments.py", "charge_card")],
        "Gateway": [("payments.py", "Gateway")],
        "send": [("payments.py", "Gateway.send"), ("payments.py", "Ledger.send")],  # gateway.send: Gateway's only
        "refund": [("payments.py", "refund#3")],  # the implementation behind two @overload stubs
        "save": [("other.py", "save")],  # checkout.py defines its own save: a namesake, never a use
        "nowhere": [("payments.py", "nowhere")],
    }
    found = SymbolLookup(ws.indexer, ws.graph).uses("checkout.py", text, wanted)
    assert set(found) == {
        ("payments.py", "charge_card"), ("payments.py", "Gateway"), ("payments.py", "Gateway.send"),
        ("payments.py", "refund#3"),
    }  # fmt: skip
    # charge_card: the docstrings and the comment mention it first; the import is not a use
    assert lines[found[("payments.py", "charge_card")] - 1].strip().startswith('label = "')
    assert "gateway = Gateway()" in lines[found[("payments.py", "Gateway")] - 1]
    assert "gateway.send(order)" in lines[found[("payments.py", "Gateway.send")] - 1]
    only_imported = "from payments import refund\n\n# refund later\n"
    (ws.root / "later.py").write_text(only_imported)
    ws.reindex(["later.py"])
    got = SymbolLookup(ws.indexer, ws.graph).uses("later.py", only_imported, {"refund": [("payments.py", "refund")]})
    assert got == {("payments.py", "refund"): 1}
