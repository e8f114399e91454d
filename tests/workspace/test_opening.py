"""What a file open shows, on a real indexed workspace: the code it is about (D7), in the documented order (D13),
one entry per lesson (issue 22)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.memory import retrieval
from forewarn.workspace.engine import Workspace
from tests.gitrepo import write_files

FILES = {
    "pkg/__init__.py": "from .app import Flask\nfrom .helpers import make_response\n",
    "pkg/app.py": (
        "class Flask:\n"
        "    def make_response(self, rv):\n        return rv\n\n"
        "    def handle_http_exception(self, e):\n        return e\n\n"
        "    def run(self):\n        return 1\n"
    ),
    "pkg/helpers.py": "def make_response(*args):\n    return args\n",
    # uses the class in an isinstance check and calls none of its methods
    "pkg/cli.py": (
        "from .app import Flask\n\n\n"
        "def find_app(module):\n"
        "    for v in vars(module).values():\n"
        "        if isinstance(v, Flask):  # make_response is not called here\n"
        "            return v\n"
        "    return None\n"
    ),
    # calls the helpers' make_response (a namesake of Flask.make_response) and Flask.run
    "tests/test_helpers.py": (
        "import pkg\nfrom pkg.app import Flask\n\n\n"
        "def test_make_response():\n"
        '    rv = pkg.helpers.make_response("x")\n'
        "    app = Flask()\n"
        "    return app.run(), rv\n"
    ),
}


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "ws"
    write_files(root, FILES)
    with Workspace.open(root, embedder=None) as w:
        w.reindex()
        yield w


def gotcha(ws: Workspace, text: str, file: str, symbol: str | None = None, kind: str = "gotcha") -> str:
    return ws.remember(text, type=kind, file=file, symbol=symbol).memory.id


def neighbours(ws: Workspace, rel: str) -> dict[str, int | None]:
    return {h.memory.text: h.line for h in ws.proactive(rel, record=False) if h.relation == "dependency"}


def test_neighbour_memories_only_for_definitions_the_file_really_uses(ws: Workspace) -> None:
    """D7: a file gets a neighbour's memory only when a name in its code resolves to that definition: not for a
    class's methods it never calls, not for a namesake (helpers.make_response is not Flask.make_response), not
    for the neighbour's file-wide memories; each placed on the line that uses it."""
    gotcha(ws, "Flask.make_response rejects None", "pkg/app.py", "Flask.make_response")
    gotcha(ws, "handle_http_exception swallows 404s", "pkg/app.py", "Flask.handle_http_exception")
    gotcha(ws, "run blocks the thread", "pkg/app.py", "Flask.run")
    gotcha(ws, "Flask must be created once per process", "pkg/app.py", "Flask")
    gotcha(ws, "app.py is imported at startup", "pkg/app.py")
    gotcha(ws, "helpers.make_response copies its arguments", "pkg/helpers.py", "make_response")
    assert neighbours(ws, "pkg/cli.py") == {"Flask must be created once per process": 6}  # the isinstance line
    assert neighbours(ws, "tests/test_helpers.py") == {
        "helpers.make_response copies its arguments": 6,
        "Flask must be created once per process": 7,
        "run blocks the thread": 8,
    }


def test_an_open_follows_the_documented_order_and_shows_each_lesson_once(ws: Workspace) -> None:
    """D13 and one entry per lesson: the file's own definitions first (gotchas, then error patterns, decisions,
    dead ends, whatever their age), then its file-wide memories as one summary, then the definitions it uses;
    the same text on two symbols and on a neighbour is one lesson naming every place."""
    now = ws.clock()
    ws.clock = lambda: now - 700 * 86400  # two years old: still before every newer decision
    trap = gotcha(ws, "make_response rejects None", "pkg/app.py", "Flask.make_response")
    ws.clock = lambda: now
    dead_end = gotcha(ws, "threads in run were tried and reverted", "pkg/app.py", "Flask.run", kind="dead_end")
    decision = gotcha(ws, "run stays synchronous", "pkg/app.py", "Flask.run", kind="decision")
    error = gotcha(ws, "KeyError means a missing config", "pkg/app.py", "Flask.make_response", kind="error_pattern")
    same = [gotcha(ws, "Don't use threads here", "pkg/app.py", s) for s in ("Flask.run", "Flask.handle_http_exception")]
    wide = [gotcha(ws, f"app.py fact {n}", "pkg/app.py", kind="note") for n in range(3)]
    lessons = ws.open_view("pkg/app.py", record=False).lessons()
    assert [(lesson.memory.type, lesson.file_wide) for lesson in lessons] == [
        ("gotcha", False), ("gotcha", False), ("error_pattern", False), ("decision", False), ("dead_end", False),
        ("note", True),
    ]  # fmt: skip
    assert trap in {lessons[0].memory.id, lessons[1].memory.id}
    assert [lesson.memory.id for lesson in lessons[2:5]] == [error, decision, dead_end]
    assert {m.id for m in lessons[5].memories} == set(wide)
    repeated = next(lesson for lesson in lessons if lesson.memory.id in same)
    assert {m.id for m in repeated.memories} == set(same)
    copy = gotcha(ws, "Don't use threads here", "pkg/helpers.py", "make_response")  # the same lesson, elsewhere
    on_test = ws.open_view("tests/test_helpers.py", record=False).lessons()
    # on Flask.run and on helpers.make_response, both used there (not on handle_http_exception, never called)
    assert [len(lesson.hits) for lesson in on_test if lesson.memory.text == "Don't use threads here"] == [2]
    assert copy in {m.id for lesson in on_test for m in lesson.memories}
    assert [lesson.hits[0].relation for lesson in on_test] == ["dependency"] * len(on_test)  # test_helpers has none


def test_no_neighbour_memory_crosses_language_families(tmp_path: Path) -> None:
    """A Rust function's gotcha showed on a jQuery test fixture and on a Python script that happen to call a
    function of the same name: only a file of its own language family (or one that imports it) uses it."""
    files = {
        "src/output.rs": "pub fn paging_mode_for_output() -> u8 {\n    1\n}\n",
        "src/printer.rs": "use crate::output::paging_mode_for_output;\n\n"
        "pub fn print_all() -> u8 {\n    paging_mode_for_output()\n}\n",
        "tests/fixtures/jquery.js": "function run() {\n  return paging_mode_for_output();\n}\n",
        "tests/scripts/find_slow.py": "def run():\n    return paging_mode_for_output()\n",
    }
    root = tmp_path / "ws"
    write_files(root, files)
    with Workspace.open(root, embedder=None) as w:
        w.reindex()
        gotcha(w, "paging_mode_for_output must be called after the pager starts", "src/output.rs",
               "paging_mode_for_output")  # fmt: skip
        assert neighbours(w, "src/printer.rs") == {"paging_mode_for_output must be called after the pager starts": 4}
        assert neighbours(w, "tests/fixtures/jquery.js") == {}
        assert neighbours(w, "tests/scripts/find_slow.py") == {}


def test_a_neighbour_with_memories_is_found_past_a_files_many_headers(tmp_path: Path) -> None:
    """QA pass 5, F17: jq's builtin.c calls jv_setpath, whose gotcha never showed there: its strongest
    dependencies are its headers, and jv_aux.c (which defines jv_setpath) came 19th, past the ten neighbours an
    open looked at. An open looks at the ten strongest that carry memories."""
    root = tmp_path / "ws"
    headers = [f"src/part{i}.h" for i in range(retrieval.MAX_NEIGHBOUR_FILES + 2)]
    files = {h: f"int part{i}_size(void);\n" for i, h in enumerate(headers)}
    files["src/jv_aux.c"] = "int jv_setpath(int t, int p, int v) {\n    return t + p + v;\n}\n"
    files["src/builtin.c"] = "".join(f'#include "{h.removeprefix("src/")}"\n' for h in headers) + (
        "\nint f_setpath(int a, int b, int c) {\n    return jv_setpath(a, b, c);\n}\n"
    )
    write_files(root, files)
    with Workspace.open(root, embedder=None) as w:
        w.reindex()
        deps = list(w.graph.dependencies("src/builtin.c"))
        assert deps.index("src/jv_aux.c") >= retrieval.MAX_NEIGHBOUR_FILES  # the headers come first
        gotcha(w, "jv_setpath frees its path argument", "src/jv_aux.c", "jv_setpath")
        line = len(headers) + 3
        assert neighbours(w, "src/builtin.c") == {"jv_setpath frees its path argument": line}


def test_a_go_function_used_as_a_value_is_a_use(tmp_path: Path) -> None:
    """QA pass 5, F17: fzf's options.go sets ``FuzzyAlgo: algo.FuzzyMatchV2`` and never calls it, so the gotcha on
    FuzzyMatchV2 never showed there: Go's references held only calls and types."""
    files = {
        "go.mod": "module example.com/fz\n\ngo 1.21\n",
        "src/algo/algo.go": "package algo\n\nfunc FuzzyMatchV2(score int) int {\n\treturn score\n}\n",
        "src/options.go": 'package fz\n\nimport "example.com/fz/src/algo"\n\n'
        "type Options struct {\n\tFuzzyAlgo func(int) int\n}\n\n"
        "func defaultOptions() Options {\n\treturn Options{FuzzyAlgo: algo.FuzzyMatchV2}\n}\n",
    }
    root = tmp_path / "ws"
    write_files(root, files)
    with Workspace.open(root, embedder=None) as w:
        w.reindex()
        gotcha(w, "FuzzyMatchV2 must get a lowercased pattern", "src/algo/algo.go", "FuzzyMatchV2")
        assert neighbours(w, "src/options.go") == {"FuzzyMatchV2 must get a lowercased pattern": 10}
