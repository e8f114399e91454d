"""QA pass 9b, finding 1a: gson's ``JsonWriter.value(double)`` gotcha went on ``out.value(value)`` with ``int value``
(Java calls ``value(long)`` there), and the file's real ``double`` call got nothing. A Java argument declared with a
primitive picks the overload that takes it as Java does: the same primitive, else the nearest widening."""

from __future__ import annotations

from pathlib import Path

from forewarn.config import Settings
from forewarn.workspace.engine import Workspace
from forewarn.workspace.overload_calls import called_overloads, parameters
from forewarn.workspace.symbols import SymbolLookup

WRITER = """package out;

public class Writer {
  public Writer value(String value) {
    return this;
  }

  public Writer value(boolean value) {
    return this;
  }

  public Writer value(double value) {
    return this;
  }

  public Writer value(long value) {
    return this;
  }
}
"""
ADAPTERS = """package out;

public class Adapters {
  void bits(Writer out, boolean on) {
    int value = on ? 1 : 0;
    out.value(value);
  }

  void real(Writer out, Number number) {
    double doubleValue = number.doubleValue();
    out.value(doubleValue);
  }
}
"""


def test_a_primitive_argument_picks_its_own_overload_else_the_nearest_widening() -> None:
    overloads = {
        f"value#{n}": parameters(f"Writer value({kind} value) {{", "value", True)
        for n, kind in enumerate(("String", "boolean", "double", "long", "float"))
    }
    assert called_overloads(overloads, ["v"], {"v": "int"}.get) == frozenset({"value#3"})  # int → long
    assert called_overloads(overloads, ["v"], {"v": "double"}.get) == frozenset({"value#2"})
    assert called_overloads(overloads, ["v"], {"v": "long"}.get) == frozenset({"value#3"})
    assert called_overloads(overloads, ["v"], {"v": "char"}.get) == frozenset({"value#3"})  # char → int → long
    assert called_overloads(overloads, ["v"], {"v": "boolean"}.get) == frozenset({"value#1"})
    assert called_overloads(overloads, ["v"], {"v": "Thing"}.get) is None  # no overload takes it as declared


def test_the_neighbours_memory_goes_on_the_call_that_reaches_its_overload(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    (root / "out").mkdir(parents=True)
    (root / "out" / "Writer.java").write_text(WRITER)
    (root / "out" / "Adapters.java").write_text(ADAPTERS)
    settings = Settings()
    settings.embedder.enabled = False
    with Workspace.open(root, settings, embedder=None) as ws:
        ws.reindex()
        lookup = SymbolLookup(ws.indexer, ws.graph)
        doubles = ws.remember("value(double) refuses NaN", type="gotcha", file="out/Writer.java", line=12).memory
        assert doubles.anchor is not None and doubles.anchor.symbol is not None
        wanted = {"value": [("out/Writer.java", doubles.anchor.symbol)]}
        text = ADAPTERS
        assert lookup.uses("out/Adapters.java", text, wanted) == {("out/Writer.java", doubles.anchor.symbol): 11}
        lines = text.split("\n")
        row = next(i for i, line in enumerate(lines) if "out.value(value)" in line)
        found = lookup.resolve("out/Adapters.java", text, row + 1, lines[row].index("value("))
        assert found is not None and found.symbols != (doubles.anchor.symbol,)  # value(long)
