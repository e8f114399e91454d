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


ATTRIBUTES = """\
package demo;

import java.util.Iterator;

public class Attributes {
    int size;

    public Iterator<String> iterator() {
        return new Iterator<String>() {
            int expectedSize = size;

            public boolean hasNext() {
                checkModified();
                return true;
            }

            public String next() {
                checkModified();
                return "x";
            }

            private void checkModified() {
                if (size != expectedSize) throw new java.util.ConcurrentModificationException("Use Iterator#remove()");
            }
        };
    }
}
"""


def test_a_memory_on_the_function_holding_the_frame_is_on_the_error_path(tmp_path: Path) -> None:
    """QA pass 6, #20: a lesson on ``Attributes.iterator`` (mined on the method returning the anonymous iterator)
    matched a trace through its ``checkModified`` and ``next`` only "by the error's words"."""
    root = tmp_path / "dom"
    (root / "src" / "demo").mkdir(parents=True)
    (root / "src" / "demo" / "Attributes.java").write_text(ATTRIBUTES)
    (root / ".forewarn").mkdir()
    with Workspace.open(root, embedder=None) as w:
        w.reindex()
        lesson = w.remember(
            "Attributes may be changed while iterating: the iterator checks its expected size on every step",
            type=MemoryType.GOTCHA, file="src/demo/Attributes.java", symbol="Attributes.iterator",
        ).memory  # fmt: skip
        trace = (
            "java.util.ConcurrentModificationException: Use Iterator#remove() instead\n"
            "\tat demo.Attributes$1.checkModified(Attributes.java:23)\n"
            "\tat demo.Attributes$1.next(Attributes.java:18)\n"
        )
        result = w.explain_error(trace)
    assert [p.symbol for p in result.places][:2] == ["Attributes.iterator.checkModified", "Attributes.iterator.next"]
    (hit,) = [h for h in result.hits if h.memory.id == lesson.id]
    assert hit.place is not None and not hit.by_words  # on the code the error went through, not only its words
