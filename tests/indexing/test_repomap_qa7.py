"""QA pass 7 #7: the repo map leads with the team's own code and shows it as code reads.

A library copied in under ``bundled/``, ``deps/``, ``extern/`` or ``3rdparty/`` (spdlog's ``fmt/bundled/``) goes after
every own file; a ``.pyi`` stub beside its ``.py`` (attrs' ``exceptions.pyi``) says the module's definitions again and
goes last too; a method is shown under the line of its class (attrs' ``_ClassBuilder.build_class``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.config import Settings
from forewarn.indexing.conventions import VENDORED_PATH, not_own_code
from forewarn.indexing.indexer import Indexer
from forewarn.indexing.repomap import GUTTER, RepoMap, estimate_tokens
from tests.gitrepo import Repo, write_files

USERS = 8  # own modules calling the copied-in and stubbed code, so PageRank puts that code first


def _indexed(root: Path, db: Path, files: dict[str, str]) -> Iterator[Indexer]:
    write_files(root, files)
    indexer = Indexer(root, Settings(), db_path=db)
    indexer.index()
    yield indexer
    indexer.close()


def _map_files(rmap: RepoMap) -> list[str]:
    return [line[:-1] for line in rmap.text.splitlines() if not line.startswith(GUTTER)]


def _definition_lines(rmap: RepoMap) -> list[str]:
    return [line.removeprefix(GUTTER) for line in rmap.text.splitlines() if line.startswith(GUTTER)]


# -- folders holding someone else's code -------------------------------------------------------------------------

COPIED_IN = {  # each a library copied into the tree, as C/C++ projects keep them
    "include/spdlog/fmt/bundled/core.py": "def bundled_format(text):\n    return text\n",
    "deps/lua/lapi.py": "def deps_push(state):\n    return state\n",
    "extern/pybind11/cast.py": "def extern_cast(value):\n    return value\n",
    "3rdparty/zlib/inflate.py": "def thirdparty_inflate(data):\n    return data\n",
    "ThirdParty/png/read.py": "def thirdparty_read(data):\n    return data\n",
}
OWN_TOOL = {"bundled/tool/lsp_server.py": "def own_server_start(port):\n    return port\n"}  # a VS Code extension's


def _users_of(calls: dict[str, str]) -> dict[str, str]:
    """``USERS`` own modules, each importing and calling every ``name`` from its module."""
    imports = "".join(f"from {module} import {name}\n" for name, module in calls.items())
    body = "".join(f"    {name}(x)\n" for name in calls)
    return {f"app/user_{i}.py": f"{imports}\n\ndef own_step_{i}(x):\n{body}    return x\n" for i in range(USERS)}


def _module(rel: str) -> str:
    return rel.removesuffix(".py").replace("/", ".")


NOT_COPIED_IN = (  # folder names that are usually the team's own code
    "bundled/tool/lsp_server.py",  # a VS Code Python tool extension's own server
    "src/external/payments.go",  # Go and web projects keep their own integrations there
    "src/bundled.py",
    "src/deps.py",
    "lib/mydeps/x.py",
    "crates/extern_api/lib.rs",
)


def test_a_copied_in_library_folder_is_vendored_and_the_teams_own_folders_are_not() -> None:
    assert [rel for rel in COPIED_IN if not VENDORED_PATH.search(rel)] == []
    assert [rel for rel in NOT_COPIED_IN if VENDORED_PATH.search(rel)] == []


def test_a_copied_in_library_goes_after_every_own_file(tmp_path: Path) -> None:
    calls = {"own_server_start": "bundled.tool.lsp_server"}
    for rel, text in COPIED_IN.items():
        calls[text.split("(")[0].removeprefix("def ")] = _module(rel)
    files = {**COPIED_IN, **OWN_TOOL, **_users_of(calls)}
    for indexer in _indexed(tmp_path / "ws", tmp_path / "index.db", files):
        rmap = indexer.repo_map(5000)
        assert rmap.put_last == {"vendored": len(COPIED_IN)}
        shown = _map_files(rmap)
        assert set(shown[-len(COPIED_IN) :]) == set(COPIED_IN)
        assert shown[0] == "bundled/tool/lsp_server.py"  # the extension's own server leads


# -- a stub beside its module ---------------------------------------------------------------------------------

STUBBED = {
    "pkg/errors.py": (
        "class FrozenError(AttributeError):\n    msg = 'frozen'\n\n\nclass NotAnAttrsClassError(ValueError):\n"
        "    pass\n"
    ),
    "pkg/errors.pyi": "class FrozenError(AttributeError): ...\nclass NotAnAttrsClassError(ValueError): ...\n",
    "pkg/typing_only.pyi": "class OnlyTyped: ...\n",  # no module beside it: the stub is all there is
}
STUB_USERS = {  # the classes used by name: each file defining one shares the rank, the stub as much as its module
    f"app/user_{i}.py": (
        f"def own_step_{i}(x):\n    if x:\n        raise FrozenError(x)\n    return NotAnAttrsClassError(OnlyTyped())\n"
    )
    for i in range(USERS)
}


@pytest.fixture(scope="module")
def stubbed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Indexer]:
    base = tmp_path_factory.mktemp("stubs")
    repo = Repo(base / "ws")
    for rel, text in {**STUBBED, **STUB_USERS}.items():
        repo.write(rel, text)
    repo.commit("a module, its stub, and a stub-only module")
    yield from _indexed(repo.root, base / "index.db", {})


def test_a_stub_beside_its_module_comes_after_every_own_file(stubbed: Indexer) -> None:
    rmap = stubbed.repo_map(5000)
    shown = _map_files(rmap)
    assert shown[-1] == "pkg/errors.pyi"
    assert shown.index("pkg/errors.py") < shown.index("pkg/errors.pyi")
    assert "pkg/typing_only.pyi" in shown[:-1]
    assert [rel for rel, _ in rmap.ranked_files][-1] == "pkg/errors.pyi"


def test_the_map_names_the_stub_as_why_it_went_last_unless_focused_on(stubbed: Indexer) -> None:
    put_last = stubbed.repo_map(60).to_dict()["put_last"]
    assert put_last["why"] == {"stub": 1}
    assert "stub" in put_last["note"]
    focused = stubbed.repo_map(60, focus_files=["pkg/errors.pyi"])
    assert "pkg/errors.pyi" in _map_files(focused)
    assert "put_last" not in focused.to_dict()


def test_a_small_budget_shows_the_module_and_its_users_not_its_stub(stubbed: Indexer) -> None:
    shown = {d.rel for d in stubbed.repo_map(60).definitions}
    assert "pkg/errors.py" in shown
    assert "pkg/errors.pyi" not in shown
    assert "app/user_0.py" in shown


# -- a method under its class -----------------------------------------------------------------------------------

BUILDER = {
    "pkg/make.py": (
        "class ClassBuilder:\n"
        '    """Builds a class."""\n\n'
        "    def __init__(self, cls):\n        self.cls = cls\n\n"
        "    def build_class(self):\n        return self.cls\n\n"
        "    def add_repr(self, ns):\n        return ns\n\n\n"
        "class Outer:\n    class Inner:\n        def deep_method(self):\n            return 1\n"
    ),
    **{
        f"app/user_{i}.py": (
            f"from pkg.make import ClassBuilder, Outer\n\n\ndef own_step_{i}(b: ClassBuilder, o: Outer.Inner):\n"
            "    b.build_class()\n    b.build_class()\n    o.deep_method()\n    return b.add_repr(1)\n"
        )
        for i in range(USERS)
    },
}


@pytest.fixture(scope="module")
def builder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Indexer]:
    base = tmp_path_factory.mktemp("builder")
    yield from _indexed(base / "ws", base / "index.db", BUILDER)


def test_a_method_is_shown_under_its_class_lines(builder: Indexer) -> None:
    lines = _definition_lines(builder.repo_map(20, idents=["deep_method"]))
    assert lines == ["class Outer:", "    class Inner:", "        def deep_method(self):"]


def test_every_shown_method_has_its_class_and_no_class_line_is_shown_alone(builder: Indexer) -> None:
    for budget in range(1, 60):
        rmap = builder.repo_map(budget)
        lines = _definition_lines(rmap)
        for i, line in enumerate(lines):
            if line.startswith("    def "):
                assert any(earlier.startswith("class ") for earlier in lines[:i]), (budget, lines)
        assert bool(rmap.text) == bool(rmap.definitions), budget
        if rmap.definitions:  # the map ends on a definition it ranked, not on a class line shown for a cut method
            assert lines[-1].strip() in {d.signature for d in rmap.definitions}, budget


def test_the_class_shown_only_around_a_method_is_no_ranked_definition(builder: Indexer) -> None:
    rmap = builder.repo_map(20)
    assert _definition_lines(rmap) == ["class ClassBuilder:", "    def build_class(self):"]
    assert [d.symbol for d in rmap.definitions] == ["ClassBuilder.build_class"]
    assert [set(d) for d in rmap.to_dict()["definitions"]] == [{"rel", "name", "symbol", "line", "signature", "score"}]


def test_the_budget_the_best_method_needs_counts_its_class_line(builder: Indexer) -> None:
    rmap = builder.repo_map(1)
    assert not rmap.definitions
    assert rmap.needed_tokens == estimate_tokens("pkg/make.py:\n│class ClassBuilder:\n│    def build_class(self):\n")


# -- the most important files' lists (stats, the briefing) --------------------------------------------------------


def test_not_own_code_names_why_each_copied_in_or_generated_file_is_not_the_teams(tmp_path: Path) -> None:
    """What ``stats``' most important files and a session's briefing leave out: by path, by ``.gitattributes``,
    by a generator's banner."""
    repo = Repo(tmp_path / "ws")
    files = {
        **COPIED_IN,
        **OWN_TOOL,
        "app/tables.py": "def table():\n    return {}\n",
        "app/grammar.py": "# Code generated by gramgen. DO NOT EDIT.\n\ndef parse():\n    return 1\n",
        "app/own.py": "def own():\n    return 1\n",
        ".gitattributes": "app/tables.py linguist-generated=true\n",
    }
    for rel, text in files.items():
        repo.write(rel, text)
    repo.commit("the app and what is not its own")
    found = not_own_code(repo.root, [rel for rel in files if rel.endswith(".py")])
    assert found == {
        **dict.fromkeys(COPIED_IN, "vendored"),
        "app/tables.py": "generated",
        "app/grammar.py": "generated",
    }
