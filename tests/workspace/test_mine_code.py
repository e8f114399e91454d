"""What a change did to the code, line by line (mine_code), and the runtimes a project still supports (mine_runtime)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forewarn.workspace import mine_code
from forewarn.workspace.mine_runtime import Runtimes, runtimes


@pytest.mark.parametrize(
    ("removed", "added", "path", "logic"),
    [
        (["x = a+b"], ["x  =  a + b"], "a.py", 0),  # whitespace ("fix spaces")
        (["s = 'x'"], ['s = "x"'], "a.py", 0),  # quotes
        (["f(a, b,)"], ["f(a, b)"], "a.py", 0),  # a trailing comma before the closer
        (["def f(a, b=1):"], ["def f(a: int, b: dict[str, int] = 1) -> str:"], "a.py", 0),  # annotations
        (["x = 1"], ["x: int = 1"], "a.py", 0),
        (["total = a  # old note"], ["total = a  # type: ignore[misc]"], "a.py", 0),  # a trailing comment
        ([], ["# a comment", "import os", "from . import x", '"""Docstring."""', ")", "pass"], "a.py", 0),
        ([], ["const x = require('x')", "// note", "}"], "a.js", 0),
        (["return a"], ["return a or b"], "a.py", 2),  # logic: one line out, one in
        (["x = {a: 1}"], ["x = {a: 2}"], "a.js", 2),  # JS keys are no annotations
        (["if x:"], ["if x and y:", "    log(x)"], "a.py", 3),
    ],
)
def test_logic_lines_leave_out_what_changes_no_behaviour(removed: list[str], added: list[str], path: str, logic: int):
    assert mine_code.logic_lines(removed, added, path) == logic


def test_the_sample_keeps_long_logic_lines_and_survival_finds_them_at_head() -> None:
    added = ["x = 1", "# a long comment that says nothing here", "value = value.decode('utf-8', 'replace')"]
    sample = mine_code.sample(added, "a.py")
    assert sample == ('value=value.decode("utf-8","replace")',)  # short lines prove nothing; comments are no code
    head = "def convert(value):\n    return value.decode(\n        'utf-8', 'replace',\n    )\n"
    assert mine_code.survival(sample, mine_code.joined(head, "a.py")) == 1.0  # re-wrapped, returned, not assigned
    rewritten = mine_code.joined("def convert(value):\n    return str(value)\n", "a.py")
    assert mine_code.survival(sample, rewritten) == 0.0
    assert mine_code.survival(sample, rewritten, sample[0]) == 1.0  # … unless what replaced it counts as standing
    assert mine_code.survival((), rewritten) is None


def test_stubs_and_typing_only_code() -> None:
    assert mine_code.is_stub("@t.overload\ndef it(self, a: int) -> int: ...", "m.py")
    assert mine_code.is_stub("@overload\ndef it(\n    self,\n    a: str,\n) -> str:\n    ...", "m.py")
    assert not mine_code.is_stub("def it(self, a):\n    return a", "m.py")
    assert mine_code.is_typing_only("class K(t.TypedDict):\n    a: int", "m.py")
    assert mine_code.is_typing_only("class P(Protocol):\n    def f(self) -> int: ...", "m.py")
    assert mine_code.is_typing_only("def f(x): return x", "m.pyi")
    assert not mine_code.is_typing_only("class K(dict):\n    a = 1", "m.py")
    assert not mine_code.is_stub("function f() { ... }", "m.js")


def test_runtimes_come_from_the_projects_own_declarations(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nrequires-python = ">=3.10"\n', encoding="utf-8")
    (tmp_path / "package.json").write_text(json.dumps({"engines": {"node": ">= 18"}}), encoding="utf-8")
    found = runtimes(tmp_path)
    assert found == Runtimes(python=(3, 10), node=(18, 0))
    assert found.dropped("Always work on Unicode in Python 2.") and found.dropped("py2 compat")
    assert found.dropped("simplejson fails on Python 3.2") and found.dropped("tests broke on node v0.12")
    assert not found.dropped("Fix the editor on Python 3") and not found.dropped("needs Node.js 20")
    (tmp_path / "package.json").write_text("[1, 2]", encoding="utf-8")  # not a manifest: declares nothing
    assert runtimes(tmp_path).node is None
    assert not Runtimes().dropped("Python 2 only")  # a project that declares nothing keeps every lesson
