"""QA pass 9b, finding 10 (minor rough edges), through the real command: an empty query is a usage error; a
model installed in the default data dir is pointed at when ``FOREWARN_HOME`` does not see it; a read in a folder
Forewarn never indexed leaves no data folder behind; a line of an import that is not JSON says where; search
names code as a person reads it and says which words a memory matched, and where."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from forewarn import locations, paths
from forewarn.memory.model_install import DEFAULT_MODEL_NAME
from forewarn.workspace.engine import Workspace
from tests.cli.conftest import CLI_TIMEOUT_S, Forewarn, forewarn_argv, git, git_repo, plain_env
from tests.cli.test_usage import run_with
from tests.conftest import REAL_MODELS_DIR

RECIPES = '''\
"""Recipes."""

LIMIT = 3


def bake(recipe):
    return recipe.steps[:LIMIT]


MAX_SIZE = 50000


def bake(recipe, oven):  # noqa: F811  (a redefinition: the index's second ``bake``)
    return oven.run(recipe)
'''


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return git_repo(tmp_path / "shop")


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_search_query_is_a_usage_error(forewarn: Forewarn, ws: Path, query: str) -> None:
    done = forewarn("search", query, cwd=ws)
    assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
    assert done.stderr == "forewarn: the search query is empty; say what you are looking for\n"


def test_a_model_in_the_default_data_dir_is_pointed_at_under_forewarn_home(ws: Path, tmp_path: Path) -> None:
    """With ``FOREWARN_HOME`` (a data dir per team or repository) and no ``FOREWARN_MODELS``, a model installed
    in the default data dir is not used (installs go to ``FOREWARN_HOME``), but the message says where one is and
    how to use it; following it, search is by meaning."""
    xdg = tmp_path / "xdg"  # the default data dir, as platformdirs finds it on Linux
    default_models = xdg / "forewarn" / "models"
    default_models.mkdir(parents=True)
    real = REAL_MODELS_DIR / DEFAULT_MODEL_NAME
    if real.is_dir():
        shutil.copytree(real, default_models / DEFAULT_MODEL_NAME)
    else:
        (default_models / DEFAULT_MODEL_NAME).mkdir()
    env = {"XDG_DATA_HOME": str(xdg), paths.HOME_ENV: str(tmp_path / "team-home")}
    remembered = run_with({**env, paths.MODELS_ENV: str(tmp_path / "no-models")}, "remember", "x", cwd=ws)
    assert remembered.returncode == 0, remembered.stderr

    done = run_with_unset(env, "search", "invoice totals", "--json", cwd=ws)
    assert done.returncode == 0, done.stderr
    reason = json.loads(done.stdout)["reason"]
    assert f"is not installed in {tmp_path / 'team-home' / 'models'}" in reason
    assert f"or use the models in {default_models} with: export FOREWARN_MODELS={default_models}" in reason
    said = run_with_unset(env, "search", "invoice totals", cwd=ws)
    assert f"export FOREWARN_MODELS={default_models}" in said.stderr
    if not real.is_dir():
        return
    following = run_with({**env, paths.MODELS_ENV: str(default_models)}, "search", "totals", "--json", cwd=ws)
    assert json.loads(following.stdout)["mode"] == "hybrid", following.stderr


def run_with_unset(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``run_with`` less ``FOREWARN_MODELS`` (tests/conftest.py sets it for every test)."""
    full = {k: v for k, v in plain_env(**env).items() if k != paths.MODELS_ENV}
    return subprocess.run(
        forewarn_argv(*args), cwd=cwd, env=full, capture_output=True, text=True, timeout=CLI_TIMEOUT_S
    )


@pytest.mark.parametrize(
    ("argv", "rc", "out"),
    [
        (["search", "totals"], 1, ""),
        (["stats"], 1, ""),
        (["explain"], 1, ""),
        (["memory", "list"], 0, "No memories.\n"),
        (["memory", "list", "--json"], 0, "[]\n"),
        (["memory", "review"], 0, "No suggestions to review.\n"),
        (["memory", "show", "01J0000000000000000000000A"], 1, ""),
        (["memory", "history", "01J0000000000000000000000A"], 1, ""),
    ],
)
def test_a_read_in_a_folder_never_indexed_leaves_no_data_folder(
    forewarn: Forewarn, tmp_path: Path, argv: list[str], rc: int, out: str
) -> None:
    """A read answers as an empty workspace would, or fails where it has nothing to work on, and says on one line
    that no workspace is there, which folder it looked at, and how to choose another: it creates nothing."""
    wrong = tmp_path / "downloads"
    wrong.mkdir()
    done = forewarn(*argv, cwd=wrong)
    assert (done.returncode, done.stdout) == (rc, out), done.stdout + done.stderr
    (line,) = done.stderr.splitlines()
    said = (
        f"no Forewarn workspace at {wrong} (found from the current folder): nothing was indexed or remembered "
        "there; for another, give -w DIR (or run `forewarn index` to start one here)"
    )
    assert line.startswith("forewarn: ") and line.endswith(said), line
    assert not locations.workspace_data(wrong).exists()
    with_flag = forewarn(*argv, "-w", str(wrong), cwd=tmp_path)
    assert (
        f"no Forewarn workspace at {wrong} (-w)" in with_flag.stderr and "is it the right folder?" in with_flag.stderr
    )
    assert not locations.workspace_data(wrong).exists() and not (locations.data_root() / locations.WORKSPACES).exists()


def test_an_import_line_that_is_not_json_says_its_line_and_column(forewarn: Forewarn, ws: Path) -> None:
    header = '{"format": "forewarn-memories", "version": 1}'
    cut = '{"id": "01JAAAAAAAAAAAAAAAAAAAA999", "type": "gotcha", "text": "cut sho'
    (ws / "mem.jsonl").write_text(f"{header}\n{cut}\n", encoding="utf-8")
    done = forewarn("memory", "import", "mem.jsonl", cwd=ws)
    assert done.returncode == 1, done.stdout + done.stderr
    column = cut.index('"cut') + 1
    assert f"line 2: not JSON (Unterminated string starting at column {column})" in done.stderr, done.stderr


def test_search_names_code_as_people_read_it_and_says_which_words_matched_where(forewarn: Forewarn, ws: Path) -> None:
    (ws / "kitchen.py").write_text(RECIPES, encoding="utf-8")
    git(ws, "add", ".")
    git(ws, "commit", "-q", "-m", "kitchen")
    assert forewarn("index", "--no-embed", cwd=ws).returncode == 0
    code = forewarn("search", "bake recipe oven", "--code-only", "--lexical", cwd=ws)
    assert code.returncode == 0, code.stderr
    assert "#2" not in code.stdout and "<module>" not in code.stdout, code.stdout
    assert "  bake  def bake(recipe, oven)" in code.stdout, code.stdout
    top = forewarn("search", "MAX_SIZE", "--code-only", "--lexical", cwd=ws)
    assert "  top level  MAX_SIZE = 50000" in top.stdout, top.stdout

    with Workspace.open(ws, embedder=None) as engine:  # a memory whose text holds none of the query's words
        engine.remember("the steps are cut to three, silently", type="gotcha", file="kitchen.py", symbol="bake#1")
    closest = forewarn("search", "banana smoothie recipe", "--lexical", cwd=ws)
    assert closest.returncode == 0, closest.stderr
    assert "closest: “the steps are cut to three, silently”" in closest.stdout, closest.stdout
    assert "matched: “recipe” in the code it is on, not in its text)" in closest.stdout, closest.stdout
