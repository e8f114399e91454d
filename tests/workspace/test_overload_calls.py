"""Which overload a call means (forewarn.workspace.overload_calls): its arguments read from the text, matched to the
overloads' parameters by count (then a string literal), on a real indexed workspace for hovers and the uses that
place neighbour diagnostics; and a variable's declared class read in the method that uses it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.config import Settings
from forewarn.workspace.engine import Workspace
from forewarn.workspace.overload_calls import Params, call_arguments, called_overloads, parameters
from forewarn.workspace.symbols import SymbolLookup, Target, memories_of, say_overloads

NODE_JAVA = """\
package shop;

public class Node {
    /** Like {@link #attr(String, String)} with no value. */
    public String attr(String key) {
        return key;
    }

    public Node attr(String key, String value) {
        return this;
    }

    public Node before(String html) {
        return this;
    }

    public Node before(Node node) {
        return this;
    }
}
"""

PAGE_JAVA = """\
package shop;

public class Page {
    public void render(Node node, Node other) {
        node.attr("id", join(1, 2));
        String id = node.attr("id");
        node.before(other);
        node.before("<p>");
    }

    private String join(int a, int b) {
        return "";
    }

    public void wrap(Node node, Object thing, String html) {
        node.before(thing);
        node.before(html);
    }
}
"""

LEAF_JAVA = """\
package shop;

public class Leaf {
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

COUNTER_JAVA = """\
package shop;

public class Counter {
    public int leaves(Leaf p) {
        return p.size();
    }

    public int bags(Bag p) {
        return p.size();
    }
}
"""


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "shop"
    (root / "shop").mkdir(parents=True)
    for name, text in [
        ("Node", NODE_JAVA),
        ("Page", PAGE_JAVA),
        ("Leaf", LEAF_JAVA),
        ("Bag", BAG_JAVA),
        ("Counter", COUNTER_JAVA),
    ]:
        (root / "shop" / f"{name}.java").write_text(text)
    settings = Settings()
    settings.embedder.enabled = False
    with Workspace.open(root, settings, embedder=None) as engine:
        engine.reindex()
        yield engine


def at(ws: Workspace, line_text: str, word: str) -> Target:
    text = (ws.root / "shop" / "Page.java").read_text()
    lines = text.split("\n")
    row = next(i for i, line in enumerate(lines) if line_text in line)
    found = SymbolLookup(ws.indexer, ws.graph).resolve("shop/Page.java", text, row + 1, lines[row].index(word))
    assert found is not None
    return found


def test_call_arguments_count_top_level_commas_only() -> None:
    text = 'x.put(a, f(b, c), new HashMap<String, Integer>(), "a,b", (p, q) -> p + q, xs[1, 2]) + 1'
    assert call_arguments(text, text.index("put") + 3) == [
        "a",
        "f(b, c)",
        "new HashMap<String, Integer>()",
        '"a,b"',
        "(p, q) -> p + q",
        "xs[1, 2]",
    ]
    assert call_arguments("f(a < b, c > d)", 1) == ["a < b", "c > d"]
    assert call_arguments("f()", 1) == []
    assert call_arguments("f = g", 1) is None  # not a call
    assert call_arguments("f(a, b", 1) is None  # not closed: unread
    assert call_arguments("sort(xs, key=lambda a, b: a) # see f(x, y)", 4, hash_comments=True) == [
        "xs",
        "key=lambda a, b: a",
    ]


def test_defaults_and_varargs_make_a_count_a_minimum() -> None:
    java = parameters("/** see before(String) */\npublic Node before(Node node, Node... more) {", "before", True)
    assert java is not None and (java.least, java.most) == (1, None)
    cpp = parameters("void put(const std::string& key, int ttl = 60) {", "put", False)
    assert cpp is not None and (cpp.least, cpp.most) == (1, 2)
    py = parameters("def fetch(self, url, *, timeout=None):", "fetch", True, hash_comments=True)
    assert py is not None and (py.least, py.most) == (1, 2)
    one, two = parameters("void f(int a) {", "f", False), parameters("void f(int a, int b = 1) {", "f", False)
    assert called_overloads({"f": one, "f#2": two}, ["1", "2"]) == frozenset({"f#2"})
    assert called_overloads({"f": one, "f#2": two}, ["1"]) is None  # both take one argument
    assert called_overloads({"f": one, "f#2": two}, ["*args"]) is None  # a spread: count unknown


def test_a_string_literal_keeps_the_overloads_declared_with_a_string_or_no_type() -> None:
    stubs = {
        "refund": parameters("def refund(x: int) -> int: ...", "refund", False, hash_comments=True),
        "refund#2": parameters("def refund(x: str) -> str: ...", "refund", False, hash_comments=True),
        "refund#3": parameters("def refund(x):", "refund", False, hash_comments=True),  # the implementation
    }
    assert called_overloads(stubs, ['"12.50"']) == frozenset({"refund#2", "refund#3"})
    assert called_overloads(stubs, ['x="12.50"']) is None  # a keyword argument is not matched by position
    java = {
        "put": parameters("void put(List<String> keys) {", "put", False),
        "put#2": parameters("void put(String key) {", "put", False),
    }
    assert called_overloads(java, ['"id"']) == frozenset({"put#2"})
    assert called_overloads(java, ["'i'"]) is None  # a char, not a string


def test_a_hover_on_a_call_shows_the_overload_its_arguments_fit(ws: Workspace) -> None:
    ws.remember("attr(key) returns empty, not null", type="gotcha", file="shop/Node.java", symbol="Node.attr#1")
    setter = ws.remember(
        "attr(key, value) validates the key", type="gotcha", file="shop/Node.java", symbol="Node.attr#2"
    )
    two = at(ws, 'node.attr("id", join(1, 2))', "attr")
    assert two.symbols == ("Node.attr#2",) and (two.start_line, two.end_line) == (9, 11)
    shown = say_overloads(memories_of(ws.store, two, ws.clock()), two)
    assert [(m.id, m.text) for m in shown] == [(setter.memory.id, setter.memory.text)]  # one overload: no "On the…"
    assert at(ws, 'node.attr("id");', "attr").symbols == ("Node.attr",)


def test_same_arity_overloads_are_told_apart_by_a_string_literal_or_a_variable_declared_with_a_class(
    ws: Workspace,
) -> None:
    assert at(ws, 'node.before("<p>")', "before").symbols == ("Node.before",)  # before(String html)
    assert at(ws, "node.before(other)", "before").symbols == ("Node.before#2",)  # Node other: before(Node node)
    assert at(ws, "node.before(html)", "before").symbols == ("Node.before",)  # String html
    # Object thing: neither overload is declared with it (Java would refuse, or it is a subclass): both kept
    assert set(at(ws, "node.before(thing)", "before").symbols) == {"Node.before", "Node.before#2"}


def test_a_parameter_class_is_read_without_its_package_type_arguments_modifiers_or_name() -> None:
    def overloads(*declarations: str) -> dict[str, Params | None]:
        return {f"f#{i}": parameters(d, "f", False) for i, d in enumerate(declarations)}

    java = overloads("void f(final java.lang.String html) {", "void f(List<Node> nodes) {")
    assert called_overloads(java, ["html"], {"html": "String"}.get) == frozenset({"f#0"})
    assert called_overloads(java, ["nodes"], {"nodes": "List"}.get) == frozenset({"f#1"})
    assert called_overloads(java, ["nodes.get(0)"], {"nodes": "List"}.get) is None  # an expression: not read
    assert called_overloads(java, ["xs"], {}.get) is None  # declared nowhere the call can see
    ts = overloads("function f(html: String): void {", "function f(node: Node): void {")
    assert called_overloads(ts, ["n"], {"n": "Node"}.get) == frozenset({"f#1"})
    arrays = overloads("void f(Node[] nodes) {", "void f(Node... nodes) {", "void f(String s) {")
    assert called_overloads(arrays, ["n"], {"n": "Node"}.get) is None  # an array or varargs is not one Node


def test_uses_put_a_memory_on_the_call_to_its_own_overload(ws: Workspace) -> None:
    text = (ws.root / "shop" / "Page.java").read_text()
    lookup = SymbolLookup(ws.indexer, ws.graph)
    wanted = {"attr": [("shop/Node.java", "Node.attr"), ("shop/Node.java", "Node.attr#2")]}
    assert lookup.uses("shop/Page.java", text, wanted) == {
        ("shop/Node.java", "Node.attr#2"): 5,  # node.attr("id", join(1, 2))
        ("shop/Node.java", "Node.attr"): 6,  # node.attr("id"), not the two-argument call above it
    }
    before = {"before": [("shop/Node.java", "Node.before#2")]}
    assert lookup.uses("shop/Page.java", text, before) == {("shop/Node.java", "Node.before#2"): 7}  # same arity


def test_a_variable_declared_with_two_classes_in_two_methods_is_read_in_each(ws: Workspace) -> None:
    text = (ws.root / "shop" / "Counter.java").read_text()
    lookup = SymbolLookup(ws.indexer, ws.graph)
    assert lookup.uses("shop/Counter.java", text, {"size": [("shop/Bag.java", "Bag.size")]}) == {
        ("shop/Bag.java", "Bag.size"): 9
    }
    assert lookup.uses("shop/Counter.java", text, {"size": [("shop/Leaf.java", "Leaf.size")]}) == {
        ("shop/Leaf.java", "Leaf.size"): 5
    }
