"""Benchmarks, examples and test utility modules come after the product in the repo map, as tests do (QA pass 8:
zod's ``packages/bench`` helper was the map's second file and ripgrep's ``searcher/src/testutil.rs`` in its first
ten, before the walker and the searcher a newcomer needs). They keep their PageRank; only the map's order changes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.config import Settings
from forewarn.indexing.conventions import is_example_path, is_test_path
from forewarn.indexing.indexer import Indexer
from forewarn.indexing.repomap import RepoMap
from tests.gitrepo import Repo

CALLERS = 8  # modules calling the shared helper, so PageRank puts it above the product
MODEL = "class OrderModel:\n    def total_price(self, rows):\n        return sum(rows)\n"
SERVICE = "from app.model import OrderModel\n\n\ndef checkout_order(rows):\n    return OrderModel().total_price(rows)\n"
PRODUCT = ["app/model.py", "app/service.py"]


def _workspace(root: Path, helper: str, callers: str) -> Indexer:
    """The product, a helper calling it, and CALLERS modules in ``callers`` calling the helper."""
    repo = Repo(root / "ws")
    repo.write("app/model.py", MODEL)
    repo.write("app/service.py", SERVICE)
    module = helper.removesuffix(".py").replace("/", ".")
    repo.write(
        helper, "from app.service import checkout_order\n\n\ndef shared_run(rows):\n    return checkout_order(rows)\n"
    )
    for i in range(CALLERS):
        repo.write(
            f"{callers}/run_{i}.py", f"from {module} import shared_run\n\n\ndef run_{i}():\n    shared_run([{i}])\n"
        )
    repo.commit("an app and its helpers")
    indexer = Indexer(repo.root, Settings(), db_path=root / "index.db")
    indexer.index()
    return indexer


@pytest.fixture(params=[("bench/timing.py", "bench"), ("app/testutil.py", "tests")], ids=["bench", "testutil"])
def case(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Indexer, str]]:
    helper, callers = request.param
    indexer = _workspace(tmp_path, helper, callers)
    yield indexer, helper
    indexer.close()


def _map_files(rmap: RepoMap) -> list[str]:
    return [line[:-1] for line in rmap.text.splitlines() if not line.startswith("│")]


def test_a_benchmark_helper_or_test_utility_comes_after_the_product(case: tuple[Indexer, str]) -> None:
    ix, helper = case
    ranked = [rel for rel, _ in ix.repo_map(5000).ranked_files]
    assert ranked.index(helper) < ranked.index("app/model.py")  # the premise: PageRank alone would lead with it
    shown = _map_files(ix.repo_map(5000))
    assert set(shown[: len(PRODUCT)]) == set(PRODUCT) and helper in shown


def test_example_and_benchmark_folders_and_test_utility_files_by_their_paths() -> None:
    for rel in ("packages/bench/benchUtil.ts", "benches/search.rs", "benchsuite/run.py", "examples/basic.go"):
        assert is_example_path(rel), rel
    assert not is_example_path("src/benchmark.rs") and not is_example_path("lib/examples.py")  # files, not folders
    assert is_test_path("crates/searcher/src/testutil.rs") and is_test_path("pkg/testutils.go")
    assert not is_test_path("src/utils.rs")
