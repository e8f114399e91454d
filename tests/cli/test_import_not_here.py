"""Importing a shared file whose memories name files this workspace lacks says so (another project's file, a
teammate's branch): the import itself goes on as before, every memory kept."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli.conftest import CLI_TIMEOUT_S, Forewarn, forewarn_argv, plain_env


def _workspace(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _export(tmp_path: Path, forewarn: Forewarn) -> Path:
    src = _workspace(
        tmp_path / "jsoupish",
        {
            "src/Jsoup.java": "class Jsoup {\n  void connect() {}\n}\n",
            "src/Node.java": "class Node {\n  void before() {}\n}\n",
        },
    )
    for rel, symbol in (
        ("src/Jsoup.java", "Jsoup.connect"),
        ("src/Node.java", "Node.before"),
        ("src/Node.java", "Node"),
    ):
        done = forewarn("remember", f"A lesson about {symbol} that matters here.", "--type", "gotcha",
                        "--file", rel, "--symbol", symbol, "-w", str(src))  # fmt: skip
        assert done.returncode == 0, done.stderr
    shared = tmp_path / "shared.jsonl"
    assert forewarn("memory", "export", str(shared), "-w", str(src)).returncode == 0
    return shared


def test_a_file_from_another_project_is_named_and_still_imported(tmp_path: Path, forewarn: Forewarn) -> None:
    shared = _export(tmp_path, forewarn)
    other = _workspace(tmp_path / "rackish", {"lib/rack.rb": "module Rack\nend\n"})
    done = forewarn("memory", "import", str(shared), "-w", str(other))
    assert done.returncode == 0, done.stderr
    assert "3 added (3 waiting for your review)" in done.stdout
    assert (
        "warning: 3 of 3 anchored memories name files not in this workspace (src/Jsoup.java, src/Node.java); "
        "none of the files it names is here: is it this project's file?"
    ) in done.stderr
    again = json.loads(forewarn("memory", "import", str(shared), "--dry-run", "--json", "-w", str(other)).stdout)
    assert again["anchored"] == 3 and again["not_here"] == {
        "memories": 3,
        "files": 2,
        "first": ["src/Jsoup.java", "src/Node.java"],
    }


def test_some_files_missing_is_a_note_and_all_present_says_nothing(tmp_path: Path, forewarn: Forewarn) -> None:
    shared = _export(tmp_path, forewarn)
    partly = _workspace(tmp_path / "branch", {"src/Node.java": "class Node {\n  void before() {}\n}\n"})
    done = forewarn("memory", "import", str(shared), "-w", str(partly))
    assert (
        "warning: 1 of 3 anchored memories name files not in this workspace (src/Jsoup.java); memories on them"
        in done.stderr
    )
    whole = _workspace(tmp_path / "clone", {"src/Jsoup.java": "class Jsoup {}\n", "src/Node.java": "class Node {}\n"})
    done = forewarn("memory", "import", str(shared), "-w", str(whole))
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr


def test_without_the_model_an_import_says_words_only_once_and_only_when_it_stored_something(
    tmp_path: Path, forewarn: Forewarn
) -> None:
    """QA pass 8 #13: every import, a refused one too, began with "words only, without the embedding model"."""
    shared = _export(tmp_path, forewarn)
    here = _workspace(tmp_path / "here", {"src/Node.java": "class Node {\n  void before() {}\n}\n"})
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n", encoding="utf-8")
    no_model = plain_env(FOREWARN_MODELS=str(tmp_path / "no-models"))  # a data directory with no model in it

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        argv = forewarn_argv("memory", "import", *args, "-w", str(here))
        return subprocess.run(argv, env=no_model, capture_output=True, text=True, timeout=CLI_TIMEOUT_S)

    refused = run(str(broken))
    assert refused.returncode != 0 and "words only" not in refused.stderr, refused.stderr
    dry = run(str(shared), "--dry-run")
    assert dry.returncode == 0 and "words only" not in dry.stderr, dry.stderr
    done = run(str(shared))
    assert done.returncode == 0 and done.stderr.count("words only, without the embedding model") == 1, done.stderr
