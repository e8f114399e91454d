"""The language runtimes a project still supports at HEAD, so a lesson about one it dropped reads as history.

"Work on Unicode in Python 2" or "fix the tests on node v0.12" taught something once; in a project that now requires
Python ≥ 3.10 or Node ≥ 18 it is obsolete. The floors come from the project's own declarations at HEAD
(``requires-python`` / ``python_requires``, ``package.json`` ``engines.node``); a project that declares none keeps
every lesson.
"""

from __future__ import annotations

import json
import re
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_MANIFEST_BYTES = 1 << 20  # a manifest larger than this is no manifest: read nothing
PYTHON_MANIFESTS = ("pyproject.toml", "setup.cfg", "setup.py")
PYTHON_FLOOR = re.compile(r"""(?:requires-python|python_requires)\s*=\s*["']\s*>=?\s*(\d+)(?:\.(\d+))?""")
NODE_FLOOR = re.compile(r"^\s*>=?\s*v?(\d+)(?:\.(\d+))?")
# a runtime named with its version in a message: "Python 2", "py2", "python 3.2", "node v0.12", "Node.js 4"
PYTHON_MENTION = re.compile(r"\b(?:c?python|py|pypy)\s?(\d)(?:\.(\d+))?(?![\d.]*\d)\b", re.IGNORECASE)
NODE_MENTION = re.compile(r"\bnode(?:\.?js)?\s?v?(\d+)(?:\.(\d+))?\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Runtimes:
    """The oldest Python and Node versions the project supports, as (major, minor); None: not declared."""

    python: tuple[int, int] | None = None
    node: tuple[int, int] | None = None

    def dropped(self, text: str) -> bool:
        """``text`` names a runtime version older than the project supports."""
        for floor, pattern in ((self.python, PYTHON_MENTION), (self.node, NODE_MENTION)):
            if floor is None:
                continue
            for m in pattern.finditer(text):
                major, minor = int(m.group(1)), m.group(2)
                version = (major, int(minor)) if minor is not None else (major, floor[1] if major == floor[0] else 0)
                if version < floor:
                    return True
        return False


def _read(root: Path, name: str) -> str:
    path = root / name
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_MANIFEST_BYTES:
            return ""
        return path.read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError):
        return ""


def _version(m: re.Match[str] | None) -> tuple[int, int] | None:
    return (int(m.group(1)), int(m.group(2) or 0)) if m else None


def runtimes(root: Path) -> Runtimes:
    """What the work tree at ``root`` declares (regular files only: a link or a huge file declares nothing)."""
    python = next((v for v in (_version(PYTHON_FLOOR.search(_read(root, n))) for n in PYTHON_MANIFESTS) if v), None)
    node = None
    try:
        engines = json.loads(_read(root, "package.json") or "{}").get("engines")
        if isinstance(engines, dict) and isinstance(engines.get("node"), str):
            node = _version(NODE_FLOOR.match(engines["node"]))
    except (ValueError, AttributeError):
        pass  # a package.json that is no JSON object declares nothing
    return Runtimes(python, node)
