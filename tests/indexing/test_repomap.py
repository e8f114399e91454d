"""The repo map: within budget, signatures not bodies, best definitions first, steerable."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from forewarn.config import Settings
from forewarn.indexing.indexer import Indexer
from forewarn.indexing.repomap import estimate_tokens
from forewarn.indexing.store import graph_def_names

WORKSPACE = Path(__file__).parent / "workspaces" / "shop"


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Indexer:
    root = tmp_path_factory.mktemp("map") / "shop"
    shutil.copytree(WORKSPACE, root)
    indexer = Indexer(root, Settings(), db_path=root.parent / "index.db")
    indexer.index()
    yield indexer
    indexer.close()


@pytest.mark.parametrize("budget", [20, 60, 150, 400, 5000])
def test_map_respects_its_budget(ix: Indexer, budget: int) -> None:
    repo_map = ix.repo_map(budget)
    assert repo_map.tokens == estimate_tokens(repo_map.text) <= budget
    assert len(repo_map.definitions) > 0


def test_bigger_budget_shows_more(ix: Indexer) -> None:
    small, large = ix.repo_map(60), ix.repo_map(5000)
    assert len(large.definitions) > len(small.definitions)
    assert large.text.startswith(small.text.splitlines()[0])
    assert ix.repo_map(0).text == ""


def test_map_shows_signatures_not_bodies_grouped_by_file(ix: Indexer) -> None:
    text = ix.repo_map(5000).text
    assert "app/core/db.py:\n" in text
    assert 'def connect_database(path: str = "shop.db") -> Database:' in text
    assert "│    def fetch_rows(self, sql: str, *args: object) -> list[tuple]:" in text  # nested under its class
    assert "fetchall" not in text and "sqlite3.connect" not in text
    assert text.count("app/core/db.py:") == 1


def test_most_used_definitions_come_first(ix: Indexer) -> None:
    repo_map = ix.repo_map(400)
    assert repo_map.text.splitlines()[0] == "app/core/db.py:"
    assert repo_map.ranked_files[0][0] == "app/core/db.py"
    scores = [d.score for d in repo_map.definitions]
    assert scores == sorted(scores, reverse=True)


def test_focus_and_idents_steer_the_map(ix: Indexer) -> None:
    plain = [d.name for d in ix.repo_map(60).definitions]
    assert "printBanner" not in plain
    focused = ix.repo_map(60, focus_files=["web/scripts/oneoff.ts"])
    assert "printBanner" in [d.name for d in focused.definitions]
    by_ident = ix.repo_map(60, idents=["AddStock"])
    assert "AddStock" in [d.name for d in by_ident.definitions]


def test_a_class_local_to_a_test_function_draws_no_rank(tmp_path: Path) -> None:
    """``Request`` comes from a library outside the workspace; a test's own local ``class Request`` must not
    collect every reference to the library's name (it used to top the map)."""
    root = tmp_path / "ws"
    (root / "tests").mkdir(parents=True)
    uses = "\n".join(f"def view_{i}(url):\n    return Request(url).send()\n" for i in range(12))
    (root / "views.py").write_text(f"from requests import Request\n\n{uses}")
    (root / "models.py").write_text("def save(row):\n    return row\n\n\ndef load(key):\n    return save(key)\n")
    (root / "tests" / "test_views.py").write_text(
        "import views\n\n\ndef test_view():\n    class Request:\n        def send(self):\n            return 1\n\n"
        "    assert views.view_1('x')\n"
    )
    assert graph_def_names([("test_view", "function", "test_view"), ("Request", "class", "test_view.Request"),
                            ("send", "method", "test_view.Request.send")]) == ["test_view"]  # fmt: skip
    assert graph_def_names([("Cart", "class", "Cart"), ("total", "method", "Cart.total")]) == ["Cart", "total"]
    indexer = Indexer(root, Settings(), db_path=tmp_path / "index.db")
    try:
        indexer.index()
        rmap = indexer.repo_map(2000)
        assert "test_view.Request" not in {d.symbol for d in rmap.definitions}
        assert rmap.ranked_files[0][0] != "tests/test_views.py"
    finally:
        indexer.close()
