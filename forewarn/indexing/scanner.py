"""Walking a workspace: which files are the team's code, and why the others were left out.

Ignore rules follow git: ``.gitignore`` files at every level (a deeper file wins over a shallower
one, the last matching line wins inside a file), ``.git/info/exclude``, plus Forewarn's own
``.forewarnignore`` (same syntax, read after ``.gitignore`` so it can re-include or exclude more)
and ``settings.index.exclude``. Patterns are matched by :mod:`forewarn.indexing.ignore`, in time
bounded by the pattern and the path. An ignore file is read only when it is a regular file inside the
workspace and at most ``MAX_IGNORE_FILE_BYTES`` long (a repository is untrusted input: ``.gitignore``
may be a link to ``/dev/zero``); any other is skipped, logged and reported among the skips.

Symlinks are followed only when they stay inside the workspace and lead to a directory not walked
yet, so a link loop or a link to ``/`` can never make a scan endless. Links to directories are followed
after every real directory is walked, so a folder's files keep their own paths and the link to it is the
one skipped (``symlink-duplicate``), whichever name sorts first; a link to a folder holding it is a loop
(``symlink-loop``). The walk keeps its own stack of open directories, so a tree thousands of levels deep
cannot exhaust Python's recursion limit. Content checks (binary, minified) need the file's bytes, so the
indexer applies :func:`content_skip_reason` when it reads a file; the scanner only checks what ``stat`` tells.
"""

from __future__ import annotations

import logging
import os
import stat
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from forewarn import untrusted
from forewarn.config import IndexSettings
from forewarn.indexing.ignore import IgnoreRules

log = logging.getLogger(__name__)

# never the team's source, whatever the ignore files say (vendored packages, VCS data, our own dir)
ALWAYS_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", ".forewarn", "node_modules", "__pycache__"})
VENV_MARKER = "pyvenv.cfg"  # a virtualenv holds thousands of third-party files; .gitignore often forgets it
IGNORE_FILES = (".gitignore", ".forewarnignore")  # read in this order: later lines win
BINARY_SNIFF_BYTES = 8192  # git's own heuristic: a NUL byte in the first 8 KB means binary
# real ignore files are a few KiB (the largest generated monorepo ones tens of KiB); every line is
# tried against every path, so the cap bounds time as well as memory
MAX_IGNORE_FILE_BYTES = 256 * 1024

# reasons a file was left out; stable strings so reports can be grouped by them
SKIP_BINARY = "binary"
SKIP_MINIFIED = "minified"
SKIP_OVERSIZED = "oversized"
SKIP_UNREADABLE = "unreadable"
SKIP_SYMLINK_OUTSIDE = "symlink-outside-workspace"
SKIP_SYMLINK_LOOP = "symlink-loop"  # a link to a folder it is in: following it would never end
SKIP_SYMLINK_DUPLICATE = "symlink-duplicate"  # a link to a folder walked under its own path (or another link)
SKIP_BROKEN_SYMLINK = "broken-symlink"
SKIP_BAD_NAME = "non-utf8-name"
SKIP_NOT_REGULAR = untrusted.REFUSED_NOT_REGULAR  # an ignore file that is a device, FIFO or directory


@dataclass(frozen=True, slots=True)
class ScannedFile:
    rel: str  # workspace-relative, "/"-separated
    size: int
    mtime_ns: int


@dataclass(slots=True)
class ScanResult:
    files: list[ScannedFile] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # rel (directories end in "/") -> reason
    unsupported: int = 0  # files no language claims; counted, never read


def content_skip_reason(data: bytes, max_line_length: int) -> str | None:
    """Why these bytes should not be indexed (binary or minified), or None when they should."""
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        return SKIP_BINARY
    lines = data.count(b"\n") + 1
    if len(data) / lines > max_line_length:
        return SKIP_MINIFIED
    return None


def display_name(name: str) -> str:
    """A printable form of a name that may carry undecodable bytes (surrogate escapes)."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def _valid_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _IgnoreChain:
    """The ignore specs that apply inside one directory, deepest last."""

    __slots__ = ("specs",)

    def __init__(self, specs: tuple[tuple[str, IgnoreRules], ...]) -> None:
        self.specs = specs  # (directory rel with trailing "/" or "", its rules)

    def extended(self, dir_rel: str, spec: IgnoreRules | None) -> _IgnoreChain:
        return self if spec is None else _IgnoreChain((*self.specs, (dir_rel, spec)))

    def ignored(self, rel: str, is_dir: bool) -> bool:
        for base, spec in reversed(self.specs):  # the deepest ignore file that has an opinion decides
            verdict = spec.verdict(rel[len(base) :], is_dir)
            if verdict is not None:
                return verdict
        return False


class Scanner:
    """Finds the files to index under ``root``; ``want(rel)`` says which names a language claims."""

    def __init__(self, root: Path, settings: IndexSettings, want: Callable[[str], bool] | None = None) -> None:
        self.root = Path(root)
        self.real_root = os.path.realpath(self.root)
        self.settings = settings
        self.want = want or (lambda rel: True)

    def scan(self) -> ScanResult:
        """Every file to index under the root; raises OSError when the root itself cannot be read."""
        result = ScanResult()
        visited = {self.real_root}
        root_chain = _IgnoreChain(()).extended("", self._root_spec(result.skipped))
        stack = [_Open(iter(self._entries(str(self.root), "", result)), "", self.real_root, root_chain)]
        links: deque[tuple[os.DirEntry[str], _Open, str]] = deque()  # links to folders, where they lead: walked last
        while stack or links:  # depth first, in name order, as a recursive walk would go; then the links
            if stack:
                top = stack[-1]
                entry = next(top.entries, None)
                if entry is None:
                    stack.pop()
                    continue
                below = self._visit(entry, top, visited, result, links)
            else:
                below = self._enter(*links.popleft(), visited, result)
            if below is not None:
                stack.append(below)
        result.files.sort(key=lambda f: f.rel)
        return result

    def check(self, rel: str) -> ScannedFile | str | None:
        """One file, as :meth:`scan` would see it: a ScannedFile, a skip reason, or None (ignored/absent)."""
        parts = rel.split("/")
        if any(p in ALWAYS_SKIPPED_DIRS for p in parts[:-1]) or not self.want(rel):
            return None
        full = os.path.join(self.root, rel)
        # resolved once: resolving each folder on the way down costs depth squared (F13's deep trees)
        real_parent = os.path.realpath(os.path.dirname(full))
        parents_inside = _inside(real_parent, self.real_root)
        chain = _IgnoreChain(()).extended("", self._root_spec())
        for depth in range(1, len(parts)):
            dir_rel = "/".join(parts[:depth])
            if chain.ignored(dir_rel, is_dir=True) or os.path.exists(os.path.join(self.root, dir_rel, VENV_MARKER)):
                return None
            chain = chain.extended(dir_rel + "/", self._dir_spec(dir_rel + "/", parent_inside=parents_inside))
        if chain.ignored(rel, is_dir=False):
            return None
        if not _inside(os.path.realpath(full), self.real_root):  # via a link in the file or a parent
            return SKIP_SYMLINK_OUTSIDE
        own = os.path.relpath(os.path.join(real_parent, parts[-1]), self.real_root).replace(os.sep, "/")
        if own != rel and isinstance(self.check(own), ScannedFile):  # through a link to a folder :meth:`scan` walks
            return SKIP_SYMLINK_DUPLICATE
        return self._stat_file(full, rel)

    # -- walking -------------------------------------------------------------------------------

    def _entries(self, path: str, rel_dir: str, result: ScanResult) -> list[os.DirEntry[str]]:
        """A directory's entries in name order; none for an unreadable directory or a virtualenv."""
        try:
            with os.scandir(path) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            if not rel_dir:  # an unreadable root must not read as "every file was deleted"
                raise
            log.warning("cannot read directory %s: %s", display_name(path), exc)
            result.skipped[display_name(rel_dir)] = SKIP_UNREADABLE
            return []
        if any(e.name == VENV_MARKER for e in entries) and rel_dir:
            log.info("skipping virtualenv %s", display_name(rel_dir))
            return []
        return entries

    def _visit(
        self,
        entry: os.DirEntry[str],
        parent: _Open,
        visited: set[str],
        result: ScanResult,
        links: deque[tuple[os.DirEntry[str], _Open, str]],
    ) -> _Open | None:
        """Record one entry; a directory to walk next comes back open, a link to one goes on ``links``."""
        rel_dir, chain = parent.rel_dir, parent.chain
        rel = rel_dir + entry.name
        try:
            is_link = entry.is_symlink()
            is_dir = entry.is_dir()  # follows links
        except OSError:
            is_link, is_dir = False, False
        if is_dir and entry.name in ALWAYS_SKIPPED_DIRS:
            return None
        if chain.ignored(rel, is_dir):
            return None
        if not _valid_utf8(entry.name):
            log.warning("skipping %s: its name is not valid UTF-8", display_name(entry.path))
            result.skipped[display_name(rel) + ("/" if is_dir else "")] = SKIP_BAD_NAME
            return None
        real = ""
        if is_link:
            real = os.path.realpath(entry.path)
            if not os.path.exists(real):
                result.skipped[rel] = SKIP_BROKEN_SYMLINK
                return None
            if not _inside(real, self.real_root):
                log.info("not following %s: it leads out of the workspace to %s", rel, real)
                result.skipped[rel] = SKIP_SYMLINK_OUTSIDE
                return None
        if is_dir and is_link:
            links.append((entry, parent, real))
            return None
        if is_dir:
            return self._enter(entry, parent, parent.real_dir + os.sep + entry.name, visited, result)
        if not self.want(rel):
            result.unsupported += 1
            return None
        found = self._stat_file(entry.path, rel)
        if isinstance(found, ScannedFile):
            result.files.append(found)
        elif found is not None:
            result.skipped[rel] = found
        return None

    def _enter(
        self, entry: os.DirEntry[str], parent: _Open, real: str, visited: set[str], result: ScanResult
    ) -> _Open | None:
        """A directory to walk, open; None when its real path was walked already (through a link: a loop when it
        holds the link, else a duplicate)."""
        rel = parent.rel_dir + entry.name + "/"
        if real in visited:
            result.skipped[rel] = SKIP_SYMLINK_LOOP if _inside(parent.real_dir, real) else SKIP_SYMLINK_DUPLICATE
            return None
        visited.add(real)
        sub_chain = parent.chain.extended(rel, self._dir_spec(rel, result.skipped))
        return _Open(iter(self._entries(entry.path, rel, result)), rel, real, sub_chain)

    def _stat_file(self, full: str, rel: str) -> ScannedFile | str | None:
        try:
            st = os.stat(full)
        except FileNotFoundError:
            return SKIP_BROKEN_SYMLINK if os.path.islink(full) else None
        except OSError as exc:
            log.warning("cannot stat %s: %s", rel, exc)
            return SKIP_UNREADABLE
        if not stat.S_ISREG(st.st_mode):
            return None
        if st.st_size > self.settings.max_file_bytes:
            log.info("skipping %s: %d bytes is over index.max_file_bytes", rel, st.st_size)
            return SKIP_OVERSIZED
        return ScannedFile(rel, st.st_size, st.st_mtime_ns)

    # -- ignore files --------------------------------------------------------------------------

    def _root_spec(self, skipped: dict[str, str] | None = None) -> IgnoreRules | None:
        lines = self._ignore_lines(".git/info/exclude", skipped, parent_inside=False)
        for name in IGNORE_FILES:
            lines += self._ignore_lines(name, skipped)
        return IgnoreRules.from_lines([*lines, *self.settings.exclude])

    def _dir_spec(
        self, dir_rel: str, skipped: dict[str, str] | None = None, parent_inside: bool = True
    ) -> IgnoreRules | None:
        lines: list[str] = []
        for name in IGNORE_FILES:
            lines += self._ignore_lines(dir_rel + name, skipped, parent_inside)
        return IgnoreRules.from_lines(lines)

    def _ignore_lines(self, rel: str, skipped: dict[str, str] | None, parent_inside: bool = True) -> list[str]:
        """The lines of one ignore file; a refused or unreadable one is logged, noted in ``skipped``, and empty.

        ``parent_inside``: its folder was reached by the walk, which enters only folders inside the workspace.
        """
        full = os.path.join(self.root, rel)
        try:
            data = untrusted.read_capped(full, MAX_IGNORE_FILE_BYTES, self.real_root, parent_inside=parent_inside)
        except untrusted.RefusedFile as exc:
            log.warning("ignore file %s", exc)
            reason = exc.reason
        except OSError as exc:
            log.warning("cannot read ignore file %s: %s", rel, exc)
            reason = SKIP_UNREADABLE
        else:
            if data is None:
                return []
            # git splits on "\n" only and skips a UTF-8 byte order mark
            text = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors="replace")
            return [line.removesuffix("\r") for line in text.split("\n")]
        if skipped is not None:
            skipped[rel] = reason
        return []


@dataclass(slots=True)
class _Open:
    """A directory being walked: its remaining entries and what applies inside it."""

    entries: Iterator[os.DirEntry[str]]
    rel_dir: str  # workspace-relative with a trailing "/", or "" for the root
    real_dir: str
    chain: _IgnoreChain


def _inside(real: str, real_root: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)
