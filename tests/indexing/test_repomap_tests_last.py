"""The repo map shows the product's definitions before the tests': a helper every test calls ranks high by PageRank
(gin's fs_test.go, javapoet's MethodSpecTest, sinatra's test_helper.rb came before most of the product), yet a reader
needs the product first. Tests keep their rank and still fill what budget the product leaves; focusing on a test
file maps it first."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from forewarn.config import Settings
from forewarn.indexing.indexer import Indexer
from forewarn.indexing.repomap import RepoMap
from tests.gitrepo import Repo

TESTS = 8  # test modules calling the shared helper, so PageRank puts it above the product

FILES = {
    "app/model.py": "class OrderModel:\n    def total_price(self, rows):\n        return sum(rows)\n",
    "app/service.py": (
        "from app.model import OrderModel\n\n\ndef checkout_order(rows):\n    return OrderModel().total_price(rows)\n"
    ),
    "tests/helpers.py": (
        "from app.service import checkout_order\n\n\ndef make_order_fixture(rows):\n    return checkout_order(rows)\n"
    ),
    **{
        f"tests/test_orders_{i}.py": (
            "from tests.helpers import make_order_fixture\n\n\n"
            f"def test_order_{i}():\n    assert make_order_fixture([{i}]) == {i}\n"
        )
        for i in range(TESTS)
    },
}
PRODUCT = ["app/model.py", "app/service.py"]


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Indexer]:
    base = tmp_path_factory.mktemp("tests_last")
    repo = Repo(base / "ws")
    for rel, text in FILES.items():
        repo.write(rel, text)
    repo.commit("an app and its tests")
    indexer = Indexer(repo.root, Settings(), db_path=base / "index.db")
    indexer.index()
    yield indexer
    indexer.close()


def _map_files(rmap: RepoMap) -> list[str]:
    return [line[:-1] for line in rmap.text.splitlines() if not line.startswith("│")]


def test_the_shared_test_helper_outranks_the_product(ix: Indexer) -> None:
    """The premise: by PageRank alone the helper would lead the map."""
    ranked = [rel for rel, _ in ix.repo_map(5000).ranked_files]
    assert ranked.index("tests/helpers.py") < ranked.index("app/model.py")


def test_product_files_come_before_test_files(ix: Indexer) -> None:
    shown = _map_files(ix.repo_map(5000))
    assert set(shown[: len(PRODUCT)]) == set(PRODUCT)
    assert "tests/helpers.py" in shown  # tests still fill what the product leaves


def test_a_small_budget_goes_to_the_product(ix: Indexer) -> None:
    rmap = ix.repo_map(25)
    assert rmap.definitions
    assert {d.rel for d in rmap.definitions} <= set(PRODUCT)


def test_a_focused_test_file_is_mapped_first(ix: Indexer) -> None:
    shown = _map_files(ix.repo_map(5000, focus_files=["tests/helpers.py"]))
    assert shown.index("tests/helpers.py") < shown.index("app/model.py")
