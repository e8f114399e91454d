"""Workspace hazards: what real repositories contain must never break or hang indexing.

Binary files, a 50 MB file, a minified bundle, symlink loops and links out of the workspace, an
unreadable directory, non-UTF-8 names and source, and files deleted or rewritten while the index
runs. Each is skipped with a reason or indexed; the rest of the workspace is indexed either way.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.config import Settings
from forewarn.indexing.indexer import Indexer
from forewarn.workspace.engine import Workspace
from tests.reliability import crash

BIG_BYTES = 50 * 1024 * 1024
# root ignores permission bits; without these two capabilities (still uid 0) a mode-000 dir is really unreadable
DROP_DAC = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]


def index_json(root: Path, *, prefix: list[str] | None = None, timeout: float = 300) -> dict:
    done = subprocess.run(
        [*(prefix or []), *crash.CLI, "index", str(root), "--json"], capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def hazards(tmp_path: Path) -> Path:
    root = crash.make_workspace(tmp_path / "ws", files=12)
    (root / "blob.py").write_bytes(b"def f():\n    return 1\n\x00\x01\x02" + os.urandom(4096))
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(2048))
    with open(root / "huge.py", "w", encoding="utf-8") as f:  # real text, not a sparse file of zeros
        line = "value_%08d = compute(%d)  # generated\n"
        written, i = 0, 0
        while written < BIG_BYTES:
            written += f.write(line % (i, i))
            i += 1
    (root / "web" / "bundle.min.js").write_text(
        "".join(f"function a{i}(b){{return b*{i}}};" for i in range(20_000)),
        encoding="utf-8",  # under the size limit
    )
    (root / "loop").symlink_to(root)  # a link to the workspace itself
    (root / "pkg0" / "self").symlink_to(root / "pkg0" / "self")  # a link to itself
    (root / "a").mkdir()
    (root / "a" / "to_b").symlink_to(root / "b")
    (root / "b").mkdir()
    (root / "b" / "to_a").symlink_to(root / "a")
    (root / "etc_link").symlink_to("/etc")  # out of the workspace
    (root / "dangling.py").symlink_to(root / "nowhere.py")
    bad = os.fsencode(root) + b"/caf\xe9"  # a latin-1 file name: not UTF-8
    os.mkdir(bad)
    with open(bad + b"/m\xf6d.py", "wb") as f:
        f.write(b"def g():\n    return 3\n")
    (root / "latin1.py").write_bytes(
        "def prix():\n    # coût en €uros\n    return 'été'\n".encode("latin-1", "replace")
    )
    (root / "mixed.py").write_bytes(b"def ok():\n    return '\xff\xfe'\n\ndef also_ok():\n    return 2\n")
    return root


def test_hazards_are_skipped_with_reasons_and_the_rest_indexed(hazards: Path) -> None:
    result = index_json(hazards)
    skipped = result["report"]["skipped"]
    assert skipped.get("blob.py") == "binary"
    assert skipped.get("huge.py") == "oversized"
    assert skipped.get("web/bundle.min.js") == "minified"
    with Indexer(hazards, Settings()) as indexer:
        files = set(indexer.files())
        assert "pkg0/mod0.py" in files and "latin1.py" in files and "mixed.py" in files
        assert not any(f.startswith(("loop/", "etc_link/", "a/to_b", "b/to_a")) for f in files)
        assert {c.symbol for c in indexer.chunks_for("mixed.py")} >= {"ok", "also_ok"}
        assert "prix" in {c.symbol for c in indexer.chunks_for("latin1.py")}
        assert not any("\udce9" in f or "\udcf6" in f for f in files)


def test_memory_anchored_in_non_utf8_source_shows_and_searches(hazards: Path) -> None:
    with Workspace.open(hazards, embedder=None) as engine:
        engine.reindex()
        m = engine.remember("the price is in latin-1, decode before comparing", file="latin1.py", symbol="prix")
        assert m.memory.anchor is not None and m.memory.anchor.symbol == "prix"
        assert [h.memory.id for h in engine.proactive("latin1.py")] == [m.memory.id]
        assert engine.search("latin-1 price", k=3).memories[0].memory.id == m.memory.id


@pytest.fixture
def world_readable_workspace() -> Iterator[Path]:
    """A workspace outside pytest's 0700 tmp dir, so only the locked folder is unreadable."""
    base = Path(tempfile.mkdtemp(prefix="forewarn-locked-"))
    try:
        yield crash.make_workspace(base / "ws", files=12)
    finally:
        for p in base.rglob("*"):
            if p.is_dir() and not p.is_symlink():
                p.chmod(0o755)
        shutil.rmtree(base)


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs util-linux setpriv to drop root's DAC override")
def test_unreadable_directory_and_file_are_skipped(world_readable_workspace: Path) -> None:
    root = world_readable_workspace
    locked = root / "locked"
    locked.mkdir()
    (locked / "secret.py").write_text("def hidden():\n    return 1\n")
    (root / "noread.py").write_text("def nope():\n    return 1\n")
    locked.chmod(0o000)
    (root / "noread.py").chmod(0o000)
    probe = subprocess.run([*DROP_DAC, "ls", str(locked)], capture_output=True)
    if probe.returncode == 0:
        pytest.skip("dropping CAP_DAC_OVERRIDE did not make the directory unreadable here")
    result = index_json(root, prefix=DROP_DAC)
    skipped = result["report"]["skipped"]
    assert skipped.get("locked/") == "unreadable" or skipped.get("locked") == "unreadable", skipped
    assert skipped.get("noread.py") == "unreadable", skipped
    assert result["files"] >= 12


def test_files_deleted_and_rewritten_while_indexing(tmp_path: Path) -> None:
    """Parser workers run in batches; between batches a third of the files change under them."""
    root = crash.make_workspace(tmp_path / "ws", files=420)  # past the in-process limit: batches and workers
    victims = sorted(root.rglob("mod*.py"))[::3]
    changed: list[Path] = []
    deleted: list[Path] = []

    def meddle(done: int, total: int) -> None:
        if changed or done == 0 or done >= total:
            return
        for n, path in enumerate(victims):
            if n % 2:
                path.unlink()
                deleted.append(path)
            else:
                path.write_text(f"def rewritten_{n}():\n    return {n}\n")
                changed.append(path)

    with Indexer(root, Settings()) as indexer:
        indexer.index(progress=meddle)
        assert changed and deleted
        settled = indexer.index()  # the next run brings the index exactly in line with the disk
        files = set(indexer.files())
        on_disk = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.suffix in (".py", ".ts")}
        assert files == on_disk, settled.to_dict()
        for n, path in enumerate(victims):
            if not n % 2:
                rel = path.relative_to(root).as_posix()
                assert {c.symbol for c in indexer.chunks_for(rel)} >= {f"rewritten_{n}"}
