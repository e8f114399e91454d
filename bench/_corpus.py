"""Real code for benchmarks: source distributions from PyPI, fetched once into ``bench/.corpora``.

``corpus("django", "5.2.19")`` downloads the sdist with pip (``--no-deps --no-binary :all:``),
extracts it and returns the extracted tree; later calls return the same folder without touching the
network. Other benchmarks (embedder, memory, LSP) import this module to share the corpus.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

log = logging.getLogger(__name__)

CORPORA_DIR = Path(__file__).resolve().parent / ".corpora"
DJANGO = ("django", "5.2.19")
MYPY = ("mypy", "1.13.0")
DONE_MARKER = ".extracted"


def corpus(package: str, version: str, *, corpora_dir: Path = CORPORA_DIR) -> Path:
    """The extracted source tree of ``package==version``, fetched and extracted only once."""
    target = corpora_dir / f"{package}-{version}"
    if (target / DONE_MARKER).exists():
        return _tree_root(target)
    downloads = corpora_dir / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    archive = _find_archive(downloads, package, version) or _download(downloads, package, version)
    if target.exists():
        shutil.rmtree(target)  # a half-extracted tree from an interrupted run
    target.mkdir(parents=True)
    _extract(archive, target)
    (target / DONE_MARKER).write_text(archive.name + "\n", encoding="utf-8")
    return _tree_root(target)


def django() -> Path:
    return corpus(*DJANGO)


def _download(downloads: Path, package: str, version: str) -> Path:
    log.info("downloading %s==%s source distribution", package, version)
    pip_download(downloads, f"{package}=={version}", "--no-binary", ":all:")
    archive = _find_archive(downloads, package, version)
    if archive is None:
        raise RuntimeError(f"pip downloaded no source archive for {package}=={version} into {downloads}")
    return archive


def pip_download(dest: Path, requirement: str, *options: str) -> None:
    """``pip download`` of ``requirement`` alone (no dependencies) into ``dest``, with pip's extra ``options``."""
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", *options, "--dest", str(dest), requirement]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def _find_archive(downloads: Path, package: str, version: str) -> Path | None:
    stem = f"{package}-{version}".lower().replace("_", "-")
    for path in sorted(downloads.iterdir()):
        name = path.name.lower().replace("_", "-")
        if name.startswith(stem) and name.endswith((".tar.gz", ".zip", ".tgz")):
            return path
    return None


def _extract(archive: Path, target: Path) -> None:
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(target)
        return
    with tarfile.open(archive) as tf:
        tf.extractall(target, filter="data")  # "data" refuses links and paths that escape the target


def _tree_root(target: Path) -> Path:
    """An sdist holds one top folder (django-5.2.19/); return it when so."""
    children = [p for p in target.iterdir() if p.name != DONE_MARKER]
    return children[0] if len(children) == 1 and children[0].is_dir() else target


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    print(django())
