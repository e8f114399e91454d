"""The error-pattern matcher on a real workspace: frames to definitions, words under the floor, nothing unrelated."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.memory.vocabulary import MemorySource, MemoryStatus, MemoryType
from forewarn.workspace.engine import Workspace

BILLING = '''\
"""Billing."""


def parse_amount(text: str) -> int:
    """Cents from a typed amount."""
    return int(text)


class Invoice:
    def total(self, lines: list[int]) -> int:
        return sum(lines)
'''

SHIPPING = """\
def ship(order: dict) -> str:
    return order["address"]
"""


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "shop"
    (root / "src" / "shop").mkdir(parents=True)
    (root / "src" / "shop" / "billing.py").write_text(BILLING)
    (root / "src" / "shop" / "shipping.py").write_text(SHIPPING)
    (root / ".forewarn").mkdir()
    with Workspace.open(root, embedder=None) as w:
        w.reindex()
        w.remember(
            "parse_amount raises ValueError on a decimal comma (1,50): normalise the separator before int()",
            type=MemoryType.ERROR_PATTERN, file="src/shop/billing.py", symbol="parse_amount",
        )  # fmt: skip
        w.remember("Invoice.total must skip refunded lines", type=MemoryType.GOTCHA, file="src/shop/billing.py",
                   symbol="Invoice.total")  # fmt: skip
        w.remember("orders from the old shop have no address key: KeyError in ship means a legacy order",
                   type=MemoryType.ERROR_PATTERN, file="src/shop/shipping.py", symbol="ship")  # fmt: skip
        w.remember("we bill in cents everywhere", type=MemoryType.DECISION, file="src/shop/billing.py")
        yield w


def traceback(path: str, line: int, func: str, error: str) -> str:
    return f'Traceback (most recent call last):\n  File "{path}", line {line}, in {func}\n    x\n{error}\n'


def test_a_frame_on_a_definition_finds_its_error_pattern(ws: Workspace) -> None:
    text = traceback(str(ws.root / "src/shop/billing.py"), 6, "parse_amount",
                     "ValueError: invalid literal for int() with base 10: '1,50'")  # fmt: skip
    result = ws.explain_error(text)
    assert result.places[0].file == "src/shop/billing.py" and result.places[0].symbol == "parse_amount"
    assert result.hits[0].memory.text.startswith("parse_amount raises ValueError")
    assert result.hits[0].place is not None
    assert all(h.memory.type != MemoryType.DECISION for h in result.hits)  # only the explaining types


def test_another_machines_path_maps_by_its_tail(ws: Workspace) -> None:
    text = traceback("/home/ci/work/shop/src/shop/shipping.py", 2, "ship", "KeyError: 'address'")
    result = ws.explain_error(text)
    assert [p.file for p in result.places] == ["src/shop/shipping.py"]
    assert result.hits and result.hits[0].memory.anchor is not None
    assert result.hits[0].memory.anchor.symbol == "ship"


def test_words_alone_find_it_when_no_frame_is_ours(ws: Workspace) -> None:
    result = ws.explain_error("E   KeyError: 'address'\nlegacy order without an address key in ship\n")
    assert not result.places
    assert result.hits and result.hits[0].memory.anchor.symbol == "ship"  # type: ignore[union-attr]
    assert result.hits[0].by_words


def test_an_unrelated_error_gets_nothing(ws: Workspace) -> None:
    text = traceback("/usr/lib/python3.11/ssl.py", 1342, "do_handshake",
                     "ssl.SSLCertVerificationError: certificate verify failed: unable to get local issuer")  # fmt: skip
    result = ws.explain_error(text)
    assert result.hits == []
    assert ws.explain_error("all 12 tests passed").hits == []


def test_suggestions_never_explain(ws: Workspace) -> None:
    ws.remember("ship crashes with KeyError on orders without address: a suggestion nobody accepted",
                type=MemoryType.ERROR_PATTERN, file="src/shop/shipping.py", symbol="ship",
                source=MemorySource.AGENT, status=MemoryStatus.SUGGESTED)  # fmt: skip
    result = ws.explain_error(traceback(str(ws.root / "src/shop/shipping.py"), 2, "ship", "KeyError: 'address'"))
    assert result.hits and all(h.memory.status != MemoryStatus.SUGGESTED for h in result.hits)
