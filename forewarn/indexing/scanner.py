"""Walking a workspace: which files are the team's code, and why the others were left out.

Ignore rules follow git: ``.gitignore`` files at every level (a deeper file wins over a shallower
one, the last matching line wins inside a file), ``.git/info/exclude``, plus Forewarn's own
``.forewarnignore`` (same syntax, read after ``.gitignore`` so it can re-include or exclude more)
and ``settings.index.exclude``. Patterns are matched by ``pathspec``'s gitignore implementation.

Symlinks are followed only when they stay inside the workspace and lead to a directory not walked
yet, so a link loop or a link to ``/`` can never make a scan endless. Content checks (binary,
minified) need the file's bytes, so the indexer applies :func:`content_skip_reason` when it reads a
file; the scanner only checks what ``stat`` tells.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from forewarn.config import IndexSettings

log = logging.getLogger(__name__)

# never the team's source, whatever the ignore files say (vendored packages, VCS data, our own dir)
ALWAYS_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", ".forewarn", "node_modules", "__pycache__"})
VENV_MARKER = "pyvenv.cfg"  # a virtualenv holds thousands of third-party files; .gitignore often forgets it
IGNORE_FILES = (".gitignore", ".forewarnignore")  # read in this order: later lines win
BINARY_SNIFF_BYTES = 8192  # git's own heuristic: a NUL byte in the first 8 KB means binary

# reasons a file was left out; stable strings so reports can be grouped by them
SKIP_BINARY = "binary"
SKIP_MINIFIED = "minified"
SKIP_OVERSIZED = "oversized"
SKIP_UNREADABLE = "unreadable"
SKIP_SYMLINK_OUTSIDE = "symlink-outside-workspace"
SKIP_SYMLINK_LOOP = "symlink-loop"
SKIP_BROKEN_SYMLINK = "broken-symlink"
SKIP_BAD_NAME = "non-utf8-name"


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

    def __init__(self, specs: tuple[tuple[str, pathspec.GitIgnoreSpec], ...]) -> None:
        self.specs = specs  # (directory rel with trailing "/" or "", spec)

    def extended(self, dir_rel: str, spec: pathspec.GitIgnoreSpec | None) -> _IgnoreChain:
        return self if spec is None else _IgnoreChain((*self.specs, (dir_rel, spec)))

    def ignored(self, rel: str, is_dir: bool) -> bool:
        probe = rel + "/" if is_dir else rel
        for base, spec in reversed(self.specs):  # the deepest ignore file that has an opinion decides
            verdict = spec.check_file(probe[len(base) :]).include
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
        root_chain = _IgnoreChain(()).extended("", self._root_spec())
        self._walk(str(self.root), "", self.real_root, root_chain, visited, result)
        result.files.sort(key=lambda f: f.rel)
        return result

    def check(self, rel: str) -> ScannedFile | str | None:
        """One file, as :meth:`scan` would see it: a ScannedFile, a skip reason, or None (ignored/absent)."""
        parts = rel.split("/")
        if any(p in ALWAYS_SKIPPED_DIRS for p in parts[:-1]) or not self.want(rel):
            return None
        chain = _IgnoreChain(()).extended("", self._root_spec())
        for depth in range(1, len(parts)):
            dir_rel = "/".join(parts[:depth])
            if chain.ignored(dir_rel, is_dir=True) or os.path.exists(os.path.join(self.root, dir_rel, VENV_MARKER)):
                return None
            chain = chain.extended(dir_rel + "/", self._dir_spec(os.path.join(self.root, dir_rel)))
        if chain.ignored(rel, is_dir=False):
            return None
        full = os.path.join(self.root, rel)
        if not _inside(os.path.realpath(full), self.real_root):  # via a link in the file or a parent
            return SKIP_SYMLINK_OUTSIDE
        return self._stat_file(full, rel)

    # -- walking -------------------------------------------------------------------------------

    def _walk(
        self, path: str, rel_dir: str, real_dir: str, chain: _IgnoreChain, visited: set[str], result: ScanResult
    ) -> None:
        try:
            with os.scandir(path) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            if not rel_dir:  # an unreadable root must not read as "every file was deleted"
                raise
            log.warning("cannot read directory %s: %s", display_name(path), exc)
            result.skipped[display_name(rel_dir)] = SKIP_UNREADABLE
            return
        if any(e.name == VENV_MARKER for e in entries) and rel_dir:
            log.info("skipping virtualenv %s", display_name(rel_dir))
            return
        for entry in entries:
            self._visit(entry, rel_dir, real_dir, chain, visited, result)

    def _visit(
        self,
        entry: os.DirEntry[str],
        rel_dir: str,
        real_dir: str,
        chain: _IgnoreChain,
        visited: set[str],
        result: ScanResult,
    ) -> None:
        rel = rel_dir + entry.name
        try:
            is_link = entry.is_symlink()
            is_dir = entry.is_dir()  # follows links
        except OSError:
            is_link, is_dir = False, False
        if is_dir and entry.name in ALWAYS_SKIPPED_DIRS:
            return
        if chain.ignored(rel, is_dir):
            return
        if not _valid_utf8(entry.name):
            log.warning("skipping %s: its name is not valid UTF-8", display_name(entry.path))
            result.skipped[display_name(rel) + ("/" if is_dir else "")] = SKIP_BAD_NAME
            return
        real = ""
        if is_link:
            real = os.path.realpath(entry.path)
            if not os.path.exists(real):
                result.skipped[rel] = SKIP_BROKEN_SYMLINK
                return
            if not _inside(real, self.real_root):
                log.info("not following %s: it leads out of the workspace to %s", rel, real)
                result.skipped[rel] = SKIP_SYMLINK_OUTSIDE
                return
        if is_dir:
            real = real or real_dir + os.sep + entry.name
            if real in visited:  # a link back to a directory already walked: a loop or a duplicate
                result.skipped[rel + "/"] = SKIP_SYMLINK_LOOP
                return
            visited.add(real)
            sub_chain = chain.extended(rel + "/", self._dir_spec(entry.path))
            self._walk(entry.path, rel + "/", real, sub_chain, visited, result)
            return
        if not self.want(rel):
            result.unsupported += 1
            return
        found = self._stat_file(entry.path, rel)
        if isinstance(found, ScannedFile):
            result.files.append(found)
        elif found is not None:
            result.skipped[rel] = found

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

    def _root_spec(self) -> pathspec.GitIgnoreSpec | None:
        lines = list(_read_lines(os.path.join(self.root, ".git", "info", "exclude")))
        for name in IGNORE_FILES:
            lines += _read_lines(os.path.join(self.root, name))
        lines += self.settings.exclude
        return pathspec.GitIgnoreSpec.from_lines(lines) if lines else None

    def _dir_spec(self, path: str) -> pathspec.GitIgnoreSpec | None:
        lines: list[str] = []
        for name in IGNORE_FILES:
            lines += _read_lines(os.path.join(path, name))
        return pathspec.GitIgnoreSpec.from_lines(lines) if lines else None


def _read_lines(path: str) -> Iterator[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            yield from fh.read().splitlines()
    except FileNotFoundError:
        return
    except OSError as exc:
        log.warning("cannot read ignore file %s: %s", path, exc)


def _inside(real: str, real_root: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)
