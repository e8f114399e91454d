"""The file graph: weights, personalized PageRank, dependencies, incremental updates."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from forewarn.config import Settings
from forewarn.indexing import graph as g
from forewarn.indexing.graph import FileGraph, ident_weight, pagerank
from forewarn.indexing.indexer import Indexer
from tests.gitrepo import write_files

WORKSPACE = Path(__file__).parent / "workspaces" / "shop"


def small_graph() -> FileGraph:
    """core is used by three files, util by one, script by nobody."""
    return FileGraph.build(
        ["core.py", "util.py", "a.py", "b.py", "c.py", "script.py"],
        defs={
            "core.py": ["connect_database"],
            "util.py": ["format_money"],
            "a.py": ["handler_a"],
            "script.py": ["main_entry"],
        },
        refs={
            "a.py": {"connect_database": 3, "format_money": 1},
            "b.py": {"connect_database": 1},
            "c.py": {"connect_database": 2, "handler_a": 1},
            "script.py": {"print": 1},
        },
        imports={"a.py": {"core.py"}, "b.py": {"core.py"}},
    )


def test_ident_weights_follow_the_named_constants() -> None:
    assert ident_weight("connect_database") == g.DESCRIPTIVE_IDENT_BOOST
    assert ident_weight("fetchJsonData") == g.DESCRIPTIVE_IDENT_BOOST
    assert ident_weight("get") == 1.0
    assert ident_weight("_private_helper") == g.DESCRIPTIVE_IDENT_BOOST * g.PRIVATE_IDENT_DAMP
    assert ident_weight("__init__") == 1.0


def test_pagerank_sums_to_one_and_follows_links() -> None:
    graph = sp.csr_matrix(np.array([[0, 1, 0], [0, 0, 1], [0, 1, 0]], dtype=float))
    scores = pagerank(graph, np.full(3, 1 / 3))
    assert abs(scores.sum() - 1) < 1e-9  # normalised whatever the tolerance
    assert scores[1] > scores[0] and scores[2] > scores[0]


def test_widely_used_module_outranks_leaf_script() -> None:
    ranks = small_graph().rank()
    assert max(ranks, key=ranks.get) == "core.py"
    assert ranks["core.py"] > ranks["util.py"] > ranks["script.py"]
    assert abs(sum(ranks.values()) - 1) < 1e-9


def test_focus_files_and_identifiers_personalize() -> None:
    graph = small_graph()
    plain = graph.rank()
    assert graph.rank(focus_files=["script.py"])["script.py"] > plain["script.py"]
    assert graph.rank(idents=["format_money"])["util.py"] > plain["util.py"]
    unknown = graph.rank(idents=["not_defined_anywhere"])
    assert unknown.keys() == plain.keys() and all(abs(unknown[k] - plain[k]) < 1e-5 for k in plain)


def test_dependencies_and_dependents() -> None:
    graph = small_graph()
    deps = graph.dependencies("a.py")
    assert list(deps) == ["core.py", "util.py"]  # the imported file weighs more than a bare name match
    assert set(graph.dependents("core.py")) == {"a.py", "b.py", "c.py"}
    assert graph.dependents("script.py") == {}
    assert graph.dependencies("missing.py") == {}


def test_dependents_counted_at_once_match_each_files_dependents() -> None:
    graph = small_graph()
    files = graph.files()
    assert {f: graph.dependents_count(f) for f in files} == {f: len(graph.dependents(f)) for f in files}
    assert graph.dependents_count("core.py") == 3 and graph.dependents_count("missing.py") == 0
    graph.remove_file("b.py")  # its row is freed: it no longer counts as a user of core.py
    graph.set_file("d.py", ["helper_d"], {"connect_database": 1, "helper_d": 1})
    files = graph.files()
    assert {f: graph.dependents_count(f) for f in files} == {f: len(graph.dependents(f)) for f in files}
    assert graph.dependents_count("core.py") == 3


def test_name_defined_in_many_files_is_damped() -> None:
    files = [f"m{i}.py" for i in range(g.MANY_DEFINERS + 1)]
    graph = FileGraph.build(
        [*files, "user.py", "target.py"],
        defs={**{f: ["save"] for f in files}, "target.py": ["unique_name"]},
        refs={"user.py": {"save": 1, "unique_name": 1}},
        imports={},
    )
    ranks = graph.rank(["user.py"])
    assert ranks["target.py"] > ranks["m0.py"] * len(files)
    # nor does naming ``save``, which every model defines, say that user.py uses one of them
    assert set(graph.dependencies("user.py")) == {"target.py"}
    assert graph.dependents("m0.py") == {}


def test_remove_and_update_files() -> None:
    graph = small_graph()
    graph.remove_file("core.py")
    assert "core.py" not in graph.rank()
    assert graph.dependencies("a.py").keys() == {"util.py"}
    graph.set_file("core2.py", ["connect_database"], {})
    assert "core2.py" in graph.dependencies("b.py")
    file_ranks, defs = graph.definition_scores()
    assert defs[0][:2] == ("core2.py", "connect_database")
    assert set(file_ranks) == {"core2.py", "util.py", "a.py", "b.py", "c.py", "script.py"}


def test_ranking_on_real_multi_language_workspace(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    shutil.copytree(WORKSPACE, root)
    with Indexer(root, Settings()) as ix:
        ix.index()
        ranks = ix.graph.rank()
    assert max(ranks, key=ranks.get) == "app/core/db.py"
    assert ranks["app/core/db.py"] > ranks["scripts/cleanup_tmp.py"]
    assert ranks["web/src/api.ts"] > ranks["web/scripts/oneoff.ts"]
    assert ranks["goapp/store/store.go"] > ranks["goapp/cmd/server/main.go"]


def test_only_files_of_the_same_language_family_depend_on_a_file(tmp_path: Path) -> None:
    """QA Q11: a hover said "5 files depend on" a Rust binary's main.rs, counting a jquery.js test fixture and a
    Python script that happen to name what it defines. JavaScript and TypeScript name each other's definitions,
    and so do C and C++; other languages only their own, both ways (dependents and dependencies). PageRank still
    sees every edge."""
    files = {
        "src/output.rs": "pub fn paging_mode_for_output() -> u8 {\n    1\n}\n",
        "src/printer.rs": "use crate::output::paging_mode_for_output;\n\n"
        "pub fn print_all() -> u8 {\n    paging_mode_for_output()\n}\n",
        "tests/fixtures/jquery.js": "function run() {\n  return paging_mode_for_output();\n}\n",
        "tests/scripts/find_slow.py": "def run():\n    return paging_mode_for_output()\n",
        "web/money.js": "export function formatMoneyAmount(cents) {\n  return cents / 100;\n}\n",
        "web/app.ts": "export function showTotal(total: number): number {\n  return formatMoneyAmount(total);\n}\n",
        "native/money.c": "int format_money_amount(int cents) {\n    return cents / 100;\n}\n",
        "native/show.cpp": "int show_total(int total) {\n    return format_money_amount(total);\n}\n",
    }
    write_files(tmp_path, files)
    with Indexer(tmp_path, Settings()) as ix:
        ix.index()
        graph = ix.graph
        assert set(graph.dependents("src/output.rs")) == {"src/printer.rs"}
        assert graph.dependents_count("src/output.rs") == 1
        assert set(graph.dependents("web/money.js")) == {"web/app.ts"}  # one family: JavaScript and TypeScript
        assert set(graph.dependents("native/money.c")) == {"native/show.cpp"}  # one family: C and C++
        assert {f: graph.dependents_count(f) for f in graph.files()} == {
            f: len(graph.dependents(f)) for f in graph.files()
        }
        # nor does a file use another family's definitions by naming them (so no neighbour memory crosses over)
        assert graph.dependencies("tests/fixtures/jquery.js") == {}
        assert graph.dependencies("tests/scripts/find_slow.py") == {}
        assert set(graph.dependencies("src/printer.rs")) == {"src/output.rs"}
        assert set(graph.dependencies("native/show.cpp")) == {"native/money.c"}
        # the ranking's graph is unchanged: focusing the fixture still lifts what it names
        assert graph.rank(["tests/fixtures/jquery.js"])["src/output.rs"] > graph.rank(["web/app.ts"])["src/output.rs"]


def test_a_test_files_definitions_are_used_only_by_files_that_import_it(tmp_path: Path) -> None:
    """hono's cache middleware test defines a local ``request`` helper, and 130 other files "depended" on it
    because their tests call a ``request`` of their own. A test helper module that tests import is still used."""
    files = {
        "src/middleware/cache/index.test.ts": "function request(path: string) {\n  return fetch(path);\n}\n",
        "src/middleware/cors/index.test.ts": "test('cors', () => {\n  request('/a');\n});\n",
        "tests/helpers/pager.ts": "export function mockPagerOutput(): number {\n  return 1;\n}\n",
        "tests/output.test.ts": "import { mockPagerOutput } from './helpers/pager';\n\n"
        "test('out', () => {\n  mockPagerOutput();\n});\n",
    }
    write_files(tmp_path, files)
    with Indexer(tmp_path, Settings()) as ix:
        ix.index()
        graph = ix.graph
        assert graph.dependents("src/middleware/cache/index.test.ts") == {}
        assert graph.dependencies("src/middleware/cors/index.test.ts") == {}
        assert set(graph.dependents("tests/helpers/pager.ts")) == {"tests/output.test.ts"}
        assert graph.dependents_count("tests/helpers/pager.ts") == 1
