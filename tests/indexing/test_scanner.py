"""Scanning: ignore files, skips with reasons, symlinks that must not be followed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from forewarn.config import IndexSettings
from forewarn.indexing import scanner as sc
from forewarn.indexing.scanner import ScannedFile, Scanner, content_skip_reason


def write(root: Path, rel: str, text: str = "x = 1\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def scanned(root: Path, settings: IndexSettings | None = None) -> tuple[set[str], dict[str, str]]:
    result = Scanner(root, settings or IndexSettings(), want=lambda rel: rel.endswith(".py")).scan()
    return {f.rel for f in result.files}, result.skipped


def test_gitignore_nested_gitignore_and_forewarnignore(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "build/\n*.gen.py\n!keep.gen.py\n")
    write(tmp_path, ".forewarnignore", "fixtures/\n")
    write(tmp_path, "pkg/.gitignore", "local_*.py\n/only_here.py\n")
    for rel in [
        "main.py",
        "build/out.py",
        "a.gen.py",
        "keep.gen.py",
        "fixtures/f.py",
        "pkg/mod.py",
        "pkg/local_x.py",
        "pkg/only_here.py",
        "pkg/sub/only_here.py",
        "pkg/sub/local_y.py",
    ]:
        write(tmp_path, rel)
    files, _ = scanned(tmp_path)
    assert files == {"main.py", "keep.gen.py", "pkg/mod.py", "pkg/sub/only_here.py"}


def test_deeper_gitignore_can_reinclude(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.py\n")
    write(tmp_path, "keep/.gitignore", "!*.py\n")
    write(tmp_path, "top.py")
    write(tmp_path, "keep/wanted.py")
    assert scanned(tmp_path)[0] == {"keep/wanted.py"}


def test_settings_exclude_always_skipped_dirs_and_virtualenvs(tmp_path: Path) -> None:
    for rel in [
        "src/app.py",
        "src/gen/auto.py",
        "node_modules/lib/x.py",
        ".git/hooks/h.py",
        ".forewarn/cfg.py",
        "env/lib/site.py",
        "src/__pycache__/app.py",
    ]:
        write(tmp_path, rel)
    write(tmp_path, "env/pyvenv.cfg", "home = /usr\n")
    files, _ = scanned(tmp_path, IndexSettings(exclude=["src/gen/"]))
    assert files == {"src/app.py"}


def test_unwanted_files_are_counted_not_listed(tmp_path: Path) -> None:
    write(tmp_path, "a.py")
    write(tmp_path, "notes.txt")
    result = Scanner(tmp_path, IndexSettings(), want=lambda rel: rel.endswith(".py")).scan()
    assert [f.rel for f in result.files] == ["a.py"]
    assert result.unsupported == 1


def test_oversized_file_skipped_with_reason(tmp_path: Path) -> None:
    write(tmp_path, "big.py", "x = 1\n" * 100)
    write(tmp_path, "small.py")
    files, skipped = scanned(tmp_path, IndexSettings(max_file_bytes=100))
    assert files == {"small.py"}
    assert skipped == {"big.py": sc.SKIP_OVERSIZED}


def test_content_skip_reasons() -> None:
    assert content_skip_reason(b"print('hi')\n", 1000) is None
    assert content_skip_reason(b"abc\0def", 1000) == sc.SKIP_BINARY
    assert content_skip_reason(b"var a=1;" * 200, 1000) == sc.SKIP_MINIFIED
    assert content_skip_reason(b"", 1000) is None


def test_symlink_loop_is_not_followed(tmp_path: Path) -> None:
    write(tmp_path, "pkg/mod.py")
    os.symlink("..", tmp_path / "pkg" / "loop")
    files, skipped = scanned(tmp_path)
    assert files == {"pkg/mod.py"}
    assert skipped == {"pkg/loop/": sc.SKIP_SYMLINK_LOOP}


def test_symlink_out_of_workspace_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write(outside, "secret.py")
    root = tmp_path / "ws"
    write(root, "main.py")
    os.symlink(outside, root / "linked_dir")
    os.symlink(outside / "secret.py", root / "linked_file.py")
    files, skipped = scanned(root)
    assert files == {"main.py"}
    assert skipped == {"linked_dir": sc.SKIP_SYMLINK_OUTSIDE, "linked_file.py": sc.SKIP_SYMLINK_OUTSIDE}
    assert Scanner(root, IndexSettings()).check("linked_dir/secret.py") == sc.SKIP_SYMLINK_OUTSIDE


def test_symlink_inside_workspace_is_followed_once(tmp_path: Path) -> None:
    write(tmp_path, "real/mod.py")
    os.symlink(tmp_path / "real", tmp_path / "alias")
    os.symlink("nowhere.py", tmp_path / "dangling.py")
    files, skipped = scanned(tmp_path)
    # "alias" sorts first, yet the folder is walked under its own name and the link is the duplicate
    assert files == {"real/mod.py"}
    assert skipped == {"dangling.py": sc.SKIP_BROKEN_SYMLINK, "alias/": sc.SKIP_SYMLINK_DUPLICATE}


def test_a_link_to_a_folder_walked_anyway_is_a_duplicate_not_a_loop(tmp_path: Path) -> None:
    """QA pass 8, finding 10: ripgrep's ``HomebrewFormula -> pkg/brew`` was reported as a "symlink-loop", and its
    file indexed as ``HomebrewFormula/ripgrep-bin.py`` while the real ``pkg/brew/`` was the one left out."""
    write(tmp_path, "pkg/brew/ripgrep-bin.py")
    os.symlink("pkg/brew", tmp_path / "HomebrewFormula")
    write(tmp_path, "src/deep/mod.py")
    os.symlink("..", tmp_path / "src" / "deep" / "up")  # a link to the folder holding it: a real loop
    files, skipped = scanned(tmp_path)
    assert files == {"pkg/brew/ripgrep-bin.py", "src/deep/mod.py"}
    assert skipped == {"HomebrewFormula/": sc.SKIP_SYMLINK_DUPLICATE, "src/deep/up/": sc.SKIP_SYMLINK_LOOP}
    scanner = Scanner(tmp_path, IndexSettings(), want=lambda rel: rel.endswith(".py"))
    assert scanner.check("HomebrewFormula/ripgrep-bin.py") == sc.SKIP_SYMLINK_DUPLICATE  # one file, one path
    found = scanner.check("pkg/brew/ripgrep-bin.py")
    assert isinstance(found, ScannedFile) and found.rel == "pkg/brew/ripgrep-bin.py"


def test_a_link_to_a_folder_the_walk_leaves_out_is_followed(tmp_path: Path) -> None:
    """The link is the only way in when its folder is ignored: its files are indexed under the link's path."""
    write(tmp_path, ".gitignore", "generated/\n")
    write(tmp_path, "generated/api.py")
    os.symlink("generated", tmp_path / "api")
    files, skipped = scanned(tmp_path)
    assert files == {"api/api.py"} and skipped == {}
    found = Scanner(tmp_path, IndexSettings(), want=lambda rel: rel.endswith(".py")).check("api/api.py")
    assert isinstance(found, ScannedFile) and found.rel == "api/api.py"


def test_non_utf8_file_name_is_skipped_with_reason(tmp_path: Path) -> None:
    write(tmp_path, "ok.py")
    bad = os.fsdecode(b"caf\xe9.py")
    (tmp_path / bad).write_text("x = 1\n", encoding="utf-8")
    files, skipped = scanned(tmp_path)
    assert files == {"ok.py"}
    assert skipped == {"caf\\xe9.py": sc.SKIP_BAD_NAME}


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads directories whatever their mode")
def test_unreadable_directory_is_logged_and_skipped(tmp_path: Path) -> None:
    write(tmp_path, "ok.py")
    write(tmp_path, "locked/hidden.py")
    (tmp_path / "locked").chmod(0)
    try:
        files, skipped = scanned(tmp_path)
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert files == {"ok.py"}
    assert skipped == {"locked/": sc.SKIP_UNREADABLE}


def test_check_agrees_with_scan(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "ignored/\n")
    write(tmp_path, "pkg/.gitignore", "skip_me.py\n")
    for rel in ["ignored/a.py", "pkg/skip_me.py", "pkg/keep.py"]:
        write(tmp_path, rel)
    scanner = Scanner(tmp_path, IndexSettings(), want=lambda rel: rel.endswith(".py"))
    assert scanner.check("ignored/a.py") is None
    assert scanner.check("pkg/skip_me.py") is None
    assert scanner.check("pkg/missing.py") is None
    found = scanner.check("pkg/keep.py")
    assert isinstance(found, ScannedFile) and found.rel == "pkg/keep.py" and found.size == 6


def test_missing_root_raises_instead_of_reporting_nothing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        Scanner(tmp_path / "gone", IndexSettings()).scan()


def test_fifo_with_a_source_name_is_never_opened(tmp_path: Path) -> None:
    write(tmp_path, "ok.py")
    os.mkfifo(tmp_path / "pipe.py")  # opening it for reading would block the scan forever
    assert scanned(tmp_path) == ({"ok.py"}, {})
    assert Scanner(tmp_path, IndexSettings()).check("pipe.py") is None
