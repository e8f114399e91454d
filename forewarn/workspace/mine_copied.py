"""Code copied into the tree from another project, told by what its own file says at its top.

A vendored header (``pythoncapi_compat.h``: "Latest version: https://raw.githubusercontent.com/…") or a module that
says it was copied from another project's address is not the team's to edit: a fix there belongs upstream, and its
warning comments are the upstream's. Folders named ``vendor``/``third_party`` are already skipped while the history
is read (``history.VENDORED``); this looks at files kept in the project's own folders. Every suggestion anchored on
such a file is left out (``copied-code``). An address naming the project itself ("copied from
https://github.com/brianc/node-postgres" inside node-postgres) is its own code moved, and a file generated from the
project's own template ("DO NOT EDIT") is still read where it is: both keep their suggestions.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from forewarn import untrusted
from forewarn.workspace.mine_rules import Noise

if TYPE_CHECKING:
    from forewarn.memory.suggestions import Suggestion

COPIED_HEADER_BYTES = 4096  # a file's own header (licence, provenance) sits in its first lines: read no further
COPIED_HEADER_LINES = 30  # past this many lines "copied from" talks about the code, not the file
# the file says another place is its source: an upstream's latest copy, or "copied/vendored from <address>"
COPIED_FROM = re.compile(
    r"\b(latest version|upstream|(copied|vendored|taken|imported) (verbatim )?from)\s*:?[\s/#*]*"
    r"(?P<url>https?://[^\s)>\]\"']+)",
    re.IGNORECASE,
)
# the file says it was vendored or copied, without an address
COPIED_SAID = re.compile(r"\b(this|the) (file|module|header|code) (is|was|has been) (vendored|copied)\b", re.I)


def copied_header(head: str, project: str = "") -> bool:
    """The first :data:`COPIED_HEADER_LINES` lines say the file was vendored or copied from another project than
    ``project`` (the work tree's folder name: an address whose path names it is the project's own)."""
    top = "\n".join(head.splitlines()[:COPIED_HEADER_LINES])
    if COPIED_SAID.search(top):
        return True
    own = project.lower()
    return any(
        not own or own not in [part.lower().removesuffix(".git") for part in m.group("url").split("/")[3:]]
        for m in COPIED_FROM.finditer(top)
    )


class CopiedFiles:
    """Which files of the work tree say at their top that they were copied from another project (read once each)."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._inside = os.path.realpath(root)
        self._copied: dict[str, bool] = {}

    def __contains__(self, path: str) -> bool:
        if path not in self._copied:
            self._copied[path] = copied_header(self._head(path), self._root.name)
        return self._copied[path]

    def _head(self, path: str) -> str:
        try:  # a regular file inside the tree only: never a link, never past the root
            head = untrusted.read_head(self._root / path, COPIED_HEADER_BYTES, self._inside)
        except (untrusted.RefusedFile, OSError, ValueError):
            return ""
        return "" if head is None else head.decode("utf-8", "replace")


def drop_copied(suggestions: Iterable[Suggestion], copied: CopiedFiles, noise: Counter[str]) -> list[Suggestion]:
    """The suggestions not anchored on a file copied from another project; each one left out is counted."""
    kept: list[Suggestion] = []
    for s in suggestions:
        if s.file and s.file in copied:
            noise[Noise.COPIED] += 1
            continue
        kept.append(s)
    return kept
