"""Which definition a hover or a use means when names repeat (forewarn.workspace.symbols) on a real, indexed
workspace: one overload's own name is that overload only, and ``super.m()`` / ``super().m()`` is the superclass's
``m`` (found through the class declaration), not the subclass's override of it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.config import Settings
from forewarn.workspace.engine import Workspace
from forewarn.workspace.symbols import SymbolLookup, Target, memories_of, say_overloads

BASE_PY = '''\
"""The base store."""


class Store:
    def save(self, item):
        return item
'''

CACHED_PY = '''\
"""A store that caches."""

from base import Store


class Cached(Store):
    def save(self, item):
        self.last = item
        return super().save(item)
'''

BASE_TS = """\
export class Widget {
  render(): string {
    return "";
  }
}
"""

BUTTON_TS = """\
import { Widget } from "./widget";

export class Button extends Widget {
  render(): string {
    return super.render() + "!";
  }
}
"""

NODE_JAVA = """\
package shop;

public class Node {
    public Node before(String html) {
        return this;
    }

    public Node before(Node node) {
        return this;
    }
}
"""

TEXT_JAVA = """\
package shop;

public class TextNode extends Leaf {
    public Node before(Node node) {
        return super.before(node);
    }

    public Node wrap(Node node) {
        return super.before(node.parent());
    }
}
"""

LEAF_JAVA = """\
package shop;

public class Leaf extends Node {
    public int size() {
        return 0;
    }
}
"""

BAG_JAVA = """\
package shop;

public class Bag {
    public int size() {
        return 1;
    }
}
"""

WALKER_JAVA = """\
package shop;

import java.util.List;

public class Walker {
    public int walk(List<Leaf> leaves, Bag bag) {
        int total = bag.size();
        for (Leaf item : leaves) {
            total += item.size();
        }
        return total;
    }
}
"""


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "shop"
    (root / "web").mkdir(parents=True)
    (root / "shop").mkdir()
    (root / "base.py").write_text(BASE_PY)
    (root / "cached.py").write_text(CACHED_PY)
    (root / "web" / "widget.ts").write_text(BASE_TS)
    (root / "web" / "button.ts").write_text(BUTTON_TS)
    (root / "shop" / "Node.java").write_text(NODE_JAVA)
    (root / "shop" / "Leaf.java").write_text(LEAF_JAVA)
    (root / "shop" / "TextNode.java").write_text(TEXT_JAVA)
    (root / "shop" / "Bag.java").write_text(BAG_JAVA)
    (root / "shop" / "Walker.java").write_text(WALKER_JAVA)
    settings = Settings()
    settings.embedder.enabled = False
    with Workspace.open(root, settings, embedder=None) as engine:
        engine.reindex()
        yield engine


def at(ws: Workspace, rel: str, line_text: str, word: str) -> Target | None:
    text = (ws.root / rel).read_text()
    lines = text.split("\n")
    row = next(i for i, line in enumerate(lines) if line_text in line)
    return SymbolLookup(ws.indexer, ws.graph).resolve(
        rel, text, row + 1, lines[row].index(word, lines[row].index(line_text))
    )


def test_an_overloads_own_name_is_that_overload_only(ws: Workspace) -> None:
    on_string = at(ws, "shop/Node.java", "before(String html)", "before")
    on_node = at(ws, "shop/Node.java", "before(Node node)", "before")
    assert on_string is not None and on_string.definition and on_string.symbols == ("Node.before",)
    assert on_node is not None and on_node.symbols == ("Node.before#2",)
    m = ws.remember(
        "before(Node) must detach the node first", type="gotcha", file="shop/Node.java", symbol="Node.before#2"
    )
    assert memories_of(ws.store, on_string, ws.clock()) == []
    assert [x.id for x in memories_of(ws.store, on_node, ws.clock())] == [m.memory.id]


def test_super_calls_resolve_to_the_superclass_method(ws: Workspace) -> None:
    py = at(ws, "cached.py", "super().save(item)", "save")
    assert py is not None and (py.file, py.symbols, py.definition) == ("base.py", ("Store.save",), False)
    ts = at(ws, "web/button.ts", "super.render()", "render")
    assert ts is not None and (ts.file, ts.symbols) == ("web/widget.ts", ("Widget.render",))
    # Leaf does not define before: the class above it does (same package, no import)
    java = at(ws, "shop/TextNode.java", "super.before(node.parent())", "before")
    assert java is not None and (java.file, set(java.symbols)) == ("shop/Node.java", {"Node.before", "Node.before#2"})
    # its argument declared a Node there: before(Node) alone
    declared = at(ws, "shop/TextNode.java", "super.before(node)", "before")
    assert declared is not None and (declared.file, declared.symbols) == ("shop/Node.java", ("Node.before#2",))


def test_a_call_that_may_mean_either_overload_says_which_each_memory_is_on(ws: Workspace) -> None:
    m = ws.remember(
        "before(Node) must detach the node first", type="gotcha", file="shop/Node.java", symbol="Node.before#2"
    )
    call = at(ws, "shop/TextNode.java", "super.before(node.parent())", "before")  # an expression: not read
    assert call is not None
    shown = say_overloads(memories_of(ws.store, call, ws.clock()), call)
    assert [(x.id, x.text) for x in shown] == [(m.memory.id, "On the overload at lines 8-10: " + m.memory.text)]
    assert ws.store.resolve(m.memory.id).text == m.memory.text  # the stored memory is untouched


def test_uses_count_a_super_call_as_a_use_of_the_superclass_method(ws: Workspace) -> None:
    lookup = SymbolLookup(ws.indexer, ws.graph)
    text = (ws.root / "cached.py").read_text()
    assert lookup.uses("cached.py", text, {"save": [("base.py", "Store.save")]}) == {("base.py", "Store.save"): 9}
    java = (ws.root / "shop" / "TextNode.java").read_text()
    wanted = {"before": [("shop/Node.java", "Node.before#2")]}
    assert lookup.uses("shop/TextNode.java", java, wanted) == {("shop/Node.java", "Node.before#2"): 5}


def test_a_method_on_a_variable_declared_with_a_class_is_that_classs(ws: Workspace) -> None:
    item = at(ws, "shop/Walker.java", "item.size()", "size")  # for (Leaf item : leaves): Leaf's, not Bag's
    assert item is not None and (item.file, item.symbols) == ("shop/Leaf.java", ("Leaf.size",))
    bag = at(ws, "shop/Walker.java", "bag.size()", "size")
    assert bag is not None and (bag.file, bag.symbols) == ("shop/Bag.java", ("Bag.size",))
