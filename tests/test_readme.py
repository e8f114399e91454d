"""What the README tells a new user to type works (functional pass 3, D14 and D26)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
LLAMA_VERSION = "0.3.36"  # pinned in pyproject.toml
BUILD_TIMEOUT_S = 1200  # the wheel is cached by `make install`; a machine without it compiles once


def test_the_documented_find_links_folder_holds_the_cached_wheel(tmp_path: Path) -> None:
    """D14: the folder the README's command names is one an installer finds the wheel in, with no index."""
    found = re.search(r"`(DIR=\$\(dirname \"\$\(third_party/llama-cpp-python/build-wheel\.sh python3\)\"\))`", README)
    assert found is not None, "the README no longer shows how to find the cached wheel's folder"
    command = found.group(1).replace("python3", sys.executable, 1) + ' && printf "%s" "$DIR"'
    done = subprocess.run(
        ["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=True
    )
    folder = done.stdout
    assert list(Path(folder).glob(f"llama_cpp_python-{LLAMA_VERSION}*.whl")), folder
    resolved = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-index", "--no-deps", "--find-links", folder,
         "--dest", str(tmp_path), f"llama-cpp-python=={LLAMA_VERSION}"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert resolved.returncode == 0, resolved.stdout + resolved.stderr


def test_readme_shows_images_by_absolute_address() -> None:
    """D26: the wheel's long description is the README; a relative image address breaks on the package index."""
    targets = re.findall(r"!\[[^\]]*\]\(([^)\s]+)", README)
    assert targets and all(t.startswith("https://") for t in targets), targets
    for target in targets:  # and each names an image this repository holds
        rel = target.split("/main/", 1)[1]
        assert (ROOT / rel).is_file(), rel
