"""Reading a repository's files, which are untrusted: FIFOs, links, devices, large and missing files, made for real."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from forewarn import untrusted
from forewarn.untrusted import RefusedFile, read_capped, read_head
from forewarn.workspace.mine_copied import COPIED_HEADER_BYTES, CopiedFiles


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    return root


def refused(reason: str, read: Callable[..., object], *args: object, **kwargs: object) -> RefusedFile:
    with pytest.raises(RefusedFile) as caught:
        read(*args, **kwargs)
    assert caught.value.reason == reason
    return caught.value


def test_a_fifo_is_refused_without_waiting_for_a_writer(tree: Path) -> None:
    os.mkfifo(tree / "pipe.py")
    refused(untrusted.REFUSED_NOT_REGULAR, read_head, tree / "pipe.py", 100, str(tree))
    refused(untrusted.REFUSED_NOT_REGULAR, read_head, tree / "pipe.py", 100, whole=True)
    refused(untrusted.REFUSED_NOT_REGULAR, read_capped, tree / "pipe.py", 100, str(tree))
    assert "pipe.py" not in CopiedFiles(tree)


def test_read_head_follows_no_link_even_inside_and_read_capped_only_inside(tree: Path, tmp_path: Path) -> None:
    (tree / "inner.py").symlink_to("a.py")
    error = refused(untrusted.REFUSED_LINK, read_head, tree / "inner.py", 100, str(tree))
    assert "inner.py" in str(error)
    assert read_capped(tree / "inner.py", 100, str(tree)) == b"x = 1\n"  # ignore files shared by a link
    (tmp_path / "secret").write_text("token\n")
    (tree / "out.py").symlink_to(tmp_path / "secret")
    refused(untrusted.REFUSED_OUTSIDE, read_capped, tree / "out.py", 100, str(tree))
    refused(untrusted.REFUSED_OUTSIDE, read_head, tree / "out.py", 100, str(tree))
    refused(untrusted.REFUSED_LINK, read_head, tree / "out.py", 100)
    (tree / "outside").symlink_to(tmp_path, target_is_directory=True)  # a folder on the way leads out
    refused(untrusted.REFUSED_OUTSIDE, read_head, tree / "outside" / "secret", 100, str(tree))
    assert read_head(tree / "outside" / "secret", 100) == b"token\n"  # no folder given: only the file's own link
    assert "out.py" not in CopiedFiles(tree)


def test_a_device_behind_a_link_is_never_read(tree: Path) -> None:
    (tree / "zero.py").symlink_to("/dev/zero")
    refused(untrusted.REFUSED_LINK, read_head, tree / "zero.py", 1 << 20)
    refused(untrusted.REFUSED_NOT_REGULAR, read_capped, tree / "zero.py", 1 << 20)
    refused(untrusted.REFUSED_NOT_REGULAR, read_head, Path("/dev/zero"), 1 << 20)  # the device itself
    assert "zero.py" not in CopiedFiles(tree)


def test_a_large_file_gives_its_head_or_is_refused_whole(tree: Path) -> None:
    body = b"# copied from https://example.org/upstream/lib\n" + b"y = 2\n" * 50_000
    (tree / "big.py").write_bytes(body)
    assert read_head(tree / "big.py", 64, str(tree)) == body[:64]
    assert read_head(tree / "big.py", len(body), str(tree)) == body  # exactly the cap: all of it
    assert read_head(tree / "big.py", len(body) + 10) == body
    error = refused(untrusted.REFUSED_OVERSIZED, read_head, tree / "big.py", 1000, str(tree), whole=True)
    assert str(len(body)) in str(error)
    refused(untrusted.REFUSED_OVERSIZED, read_capped, tree / "big.py", 1000)
    assert read_capped(tree / "big.py", len(body)) == body
    assert len(body) > COPIED_HEADER_BYTES and "big.py" in CopiedFiles(tree)  # the header alone tells


def test_a_missing_file_is_none(tree: Path) -> None:
    assert read_head(tree / "gone.py", 100, str(tree)) is None
    assert read_head(tree / "a.py" / "below", 100) is None  # a file where a folder should be
    assert read_capped(tree / "gone.py", 100, str(tree)) is None
    (tree / "dangling.py").symlink_to("gone.py")
    refused(untrusted.REFUSED_LINK, read_head, tree / "dangling.py", 100, str(tree))
    assert "gone.py" not in CopiedFiles(tree)
