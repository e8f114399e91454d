"""What ``forewarn index`` says of files it could not read whole (QA pass 8, finding 10): a link to a folder walked
under its own name is a duplicate, not a loop (ripgrep's ``HomebrewFormula -> pkg/brew``), and files parsed with
syntax errors are blamed on what their own languages' grammars cannot read (zod's TypeScript variance annotations
``<in T>`` were put down to "C/C++ macros"). Real git repository, real tree-sitter, the real CLI entry point.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from forewarn.cli.main import main
from tests.gitrepo import Repo

VARIANCE_TS = """\
export interface Check<in T = never> {
  run(value: T): boolean;
}

export function always(): boolean {
  return true;
}
"""
NAMESPACE_C = """\
BEGIN_NAMESPACE
int add(int a, int b) { return a + b; }
END_NAMESPACE
"""


def index(capsys: pytest.CaptureFixture[str], root: Path) -> tuple[str, dict]:
    assert main(["index", str(root)]) == 0
    said = capsys.readouterr().out
    assert main(["index", str(root), "--json"]) == 0
    return said, json.loads(capsys.readouterr().out)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "ws")
    repo.write(".forewarn/config.toml", "[embedder]\nenabled = false\n")
    repo.write("pkg/brew/formula.rb", "class Formula\n  def url\n    'x'\n  end\nend\n")
    repo.write("src/ok.ts", "export const one = 1;\n")
    return repo


def test_a_link_to_a_folder_indexed_anyway_is_a_duplicate_and_a_loop_is_a_loop(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    os.symlink("pkg/brew", repo.root / "HomebrewFormula")
    repo.commit("formula and its link")
    said, summary = index(capsys, repo.root)
    assert "  skipped: symlink-duplicate 1\n" in said, said
    assert "loop" not in said
    assert summary["skipped_by_reason"] == {"symlink-duplicate": 1}
    os.symlink("..", repo.root / "pkg" / "brew" / "up")  # a link to the folder that holds it
    said, summary = index(capsys, repo.root)
    assert summary["skipped_by_reason"] == {"symlink-duplicate": 1, "symlink-loop": 1}, said


def test_syntax_errors_name_what_the_grammars_of_those_files_cannot_read(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write("src/checks.ts", VARIANCE_TS)
    repo.commit("variance annotations")
    said, summary = index(capsys, repo.root)
    assert summary["syntax_errors"] == ["src/checks.ts"]
    assert (
        "  parsed with syntax errors: 1 file (broken code, or what the bundled grammar cannot read, such as newer "
        "TypeScript syntax; their definitions may be incomplete): src/checks.ts\n"
    ) in said, said
    assert "macros" not in said
    repo.write("lib/ns.c", NAMESPACE_C)
    repo.commit("a namespace macro")
    said, summary = index(capsys, repo.root)
    assert summary["syntax_errors"] == ["lib/ns.c", "src/checks.ts"]
    assert "such as C/C++ macros and newer TypeScript syntax; their definitions" in said, said
