"""Git is asked what ``.gitattributes`` marks only when an attributes file could apply, and every place git reads
attributes from is one: a subfolder's ``.gitattributes``, one above a workspace inside the repository, the
repository's ``info/attributes`` and a ``core.attributesFile`` its config names."""

from __future__ import annotations

from pathlib import Path

from forewarn.indexing.conventions import GENERATED, VENDORED, marked_paths
from tests.gitrepo import Repo

PATHS = ["main.c", "lib/gen.c", "lib/deep/table.c"]


def _repo(root: Path) -> Repo:
    repo = Repo(root)
    for rel in PATHS:
        repo.write(rel, "int f(void) { return 0; }\n")
    repo.commit("code")
    return repo


def test_nothing_marks_without_an_attributes_file(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "ws")
    assert marked_paths(repo.root, PATHS) == {}


def test_a_subfolders_attributes_file_marks_its_paths(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "ws")
    (repo.root / "lib" / ".gitattributes").write_text("gen.c linguist-generated=true\n")
    (repo.root / "lib" / "deep" / ".gitattributes").write_text("table.c linguist-vendored\n")
    assert marked_paths(repo.root, PATHS) == {"lib/gen.c": GENERATED, "lib/deep/table.c": VENDORED}


def test_the_repositorys_file_marks_a_workspace_inside_it(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    (repo.root / ".gitattributes").write_text("lib/gen.c linguist-generated\n")
    assert marked_paths(repo.root / "lib", ["gen.c", "deep/table.c"]) == {"gen.c": GENERATED}


def test_info_attributes_and_a_configured_attributes_file_mark(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "ws")
    (repo.root / ".git" / "info").mkdir(exist_ok=True)
    (repo.root / ".git" / "info" / "attributes").write_text("main.c linguist-vendored\n")
    assert marked_paths(repo.root, PATHS) == {"main.c": VENDORED}
    (repo.root / ".git" / "info" / "attributes").unlink()
    elsewhere = tmp_path / "team.attributes"
    elsewhere.write_text("lib/gen.c linguist-generated\n")
    repo.git("config", "core.attributesFile", str(elsewhere))
    assert marked_paths(repo.root, PATHS) == {"lib/gen.c": GENERATED}
