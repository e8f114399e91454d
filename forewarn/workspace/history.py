"""Reading a repository's history with the git CLI, in a form nothing written into the history can forge.

Every commit message, author name and file in a repository is untrusted: whoever wrote a commit
chose its bytes. So the structure of what mining reads never comes from those bytes:

- ``git rev-list`` names the commits and ``git diff-tree --stdin`` prints each one's diff, headed by a
  line that starts with NUL and holds only the commit id (``%x00%H``). A message never appears in
  that stream; diff content lines are prefixed (``+``/``-``) and *counted* against their hunk header,
  so an added line reading ``+++ b/other.py`` is content, not a header; paths with control bytes
  arrive C-quoted. Every id is checked to be hexadecimal of a hash's length.
- The message, parents, author and date come from the commit object itself, read through
  ``git cat-file --batch`` (length-prefixed): fields are found by their position in the object's
  header, never by a separator a message could hold. Dates come from the object's Unix time, and a
  date in the future is clamped to now.
- Sizes are checked before reading (``git cat-file --batch-check``): a blob larger than the caller's
  cap is never read, and git's own diff treats blobs over ``core.bigFileThreshold`` as binary, so
  neither git nor Forewarn loads a huge blob from history. A commit object is read in bounded parts.

Only what mining needs is kept: the message, each hunk's new-side lines and how many lines it
changed, the new blob's id (to parse the file as it was at that commit) and renames. Binary and
vendored files are counted, not kept; a commit touching more than :data:`GIANT_COMMIT_FILES` files
keeps its message and its file count only.
"""

from __future__ import annotations

import codecs
import re
import subprocess
import tempfile
import threading
import time
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, NamedTuple

from forewarn.errors import ForewarnError
from forewarn.indexing import conventions

# a commit touching more files than this is a mass move, vendoring or reformat: its hunks say nothing
# about any one symbol, and keeping them would cost memory on a 100k-file commit
GIANT_COMMIT_FILES = 200
VENDORED_PATH = conventions.VENDORED_PATH  # lessons about vendored code belong to its upstream
GIT_TIMEOUT_S = 30  # one small git query (rev-parse, rev-list --count); the log itself is streamed, unbounded
# git's diff treats a blob larger than this as binary without loading it (core.bigFileThreshold): mining parses
# no file this large anyway (mining.MAX_PARSE_BYTES), and a 1 GB blob in history costs git nothing
DIFF_BIG_FILE_BYTES = 1 << 20
# paths whose history holds a blob over DIFF_BIG_FILE_BYTES are left out of the diffs (git's diff loads an added or
# deleted file whole, binary or not); past this many such paths the rest are diffed as usual (the pathspec must fit
# on a command line) and the run says so
MAX_EXCLUDED_PATHS = 2000
# what is kept of one commit object (headers and message): a 5 MB message is read in parts and the rest dropped;
# mining clips a lesson's text far below this
MAX_COMMIT_BYTES = 64 << 10
READ_CHUNK_BYTES = 1 << 20  # an object's bytes past what is kept are read and dropped in parts this large
# a hunk's removed and added lines kept as text (one commit at a time): enough to tell logic from whitespace, typing
# or comments and to find the lines at HEAD again; a 20,000-line file added in one hunk keeps its first lines only
HUNK_LINES_KEPT = 400
LINE_CHARS_KEPT = 240  # a longer line is data or minified code: its start is enough to recognise it
# an object id: SHA-1 (40 hex digits) or SHA-256 (64); anything else (a revision like HEAD:file) is refused
OBJECT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
NULL_ID = re.compile(r"0+")

_HUNK = re.compile(rb"^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
# author/committer line of a commit object: name <email> unix-time timezone (git refuses '<' and '>' in names)
_IDENT = re.compile(rb"^(?P<name>[^<>]*?) ?<(?P<email>[^<>]*)> (?P<time>\d{1,15}) (?P<tz>[+-]\d{4})$")


class GitError(ForewarnError):
    """The workspace is not a git repository, has no commits, or git failed."""


def is_object_id(text: str) -> bool:
    """A full object id (40 or 64 lowercase hex digits), not a revision expression."""
    return OBJECT_ID.fullmatch(text) is not None


class Hunk(NamedTuple):
    """One hunk's new side: lines ``start``–``end`` (1-based, inclusive), how many lines it changed, and the text
    of the lines it removed and added (the first HUNK_LINES_KEPT of each, cut at LINE_CHARS_KEPT)."""

    start: int
    end: int
    changed: int  # lines removed plus lines added: how much of the commit this hunk is
    removed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()


@dataclass(slots=True)
class FileChange:
    """One file of a commit's diff, new side: where its hunks landed and which blob holds it."""

    path: str  # new path ("" when the file was deleted)
    old_path: str  # old path ("" when the file was added)
    blob: str = ""  # the new side's blob id (full), "" when deleted
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def renamed(self) -> bool:
        return bool(self.path and self.old_path and self.path != self.old_path)

    @property
    def changed(self) -> int:
        return sum(h.changed for h in self.hunks)


@dataclass(slots=True)
class CommitRecord:
    sha: str
    parents: list[str]
    author: str
    date: str  # author date, ISO-8601 UTC (``…Z``), never later than when it was read
    subject: str
    body: str
    files: list[FileChange] = field(default_factory=list)
    file_count: int = 0  # every file the diff touched, kept or not
    binary_files: int = 0
    vendored_files: int = 0
    giant: bool = False  # more than GIANT_COMMIT_FILES files: counted, not parsed
    clamped_date: bool = False  # its object claimed a date in the future: clamped to now

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1

    def paths(self) -> list[str]:
        return [f.path or f.old_path for f in self.files]


def git(root: Path, *args: str, check: bool = True) -> str:
    """Run one small git command in ``root`` and return its stdout (decoded with replacement)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed (mining reads the history with the git command)") from exc
    if check and done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {message[-1] if message else f'exit status {done.returncode}'}")
    return done.stdout.decode("utf-8", "replace")


def head_commit(root: Path) -> str:
    """HEAD's sha; a clear error when ``root`` is no git work tree or the repository has no commits."""
    if git(root, "rev-parse", "--is-inside-work-tree", check=False).strip() != "true":
        raise GitError(f"{root} is not inside a git repository: there is no history to mine")
    sha = git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False).strip()
    if not sha:
        raise GitError(f"the git repository at {root} has no commits yet: there is no history to mine")
    return sha


def is_shallow(root: Path) -> bool:
    return git(root, "rev-parse", "--is-shallow-repository", check=False).strip() == "true"


def resolve_commit(root: Path, ref: str) -> str | None:
    """The commit ``ref`` names, or None (also for anything that looks like an option)."""
    if not ref or ref.startswith("-"):
        return None
    return git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).strip() or None


def is_ancestor(root: Path, older: str, newer: str) -> bool:
    done = subprocess.run(
        ["git", "-C", str(root), "merge-base", "--is-ancestor", older, newer],
        capture_output=True,
        timeout=GIT_TIMEOUT_S,
        check=False,
    )
    return done.returncode == 0


def count_commits(root: Path, revs: Sequence[str]) -> int:
    out = git(root, "rev-list", "--count", *revs, check=False).strip()
    return int(out) if out.isdigit() else 0


def commit_date(root: Path, sha: str, *, now: float | None = None) -> str:
    """The commit's committer date, ISO-8601 UTC, clamped to now."""
    raw = git(root, "show", "-s", "--format=%ct", sha).strip()
    return iso_utc(int(raw) if raw.isdigit() else 0, now=now)[0]


def iso_utc(unix: int, *, now: float | None = None) -> tuple[str, bool]:
    """``YYYY-MM-DDTHH:MM:SSZ`` for a Unix time, and whether it lay in the future (then it is now)."""
    limit = time.time() if now is None else now
    clamped = unix > limit
    try:
        when = datetime.fromtimestamp(min(unix, limit), UTC)
    except (OverflowError, OSError, ValueError):
        when, clamped = datetime.fromtimestamp(limit, UTC), True
    return when.strftime("%Y-%m-%dT%H:%M:%SZ"), clamped


DIFF_CONTEXT_LINES = 200  # one commit's diff shown beside a suggestion under review: a screenful or three


def cut_lines(text: str, max_lines: int) -> str:
    """``text``'s first ``max_lines`` lines, then ``… N more lines`` when it had more."""
    lines = text.rstrip("\n").splitlines()
    if len(lines) <= max_lines:
        return "\n".join(lines)
    rest = len(lines) - max_lines
    return "\n".join([*lines[: max(0, max_lines)], f"… {rest} more line{'' if rest == 1 else 's'}"])


def commit_diff(root: Path, sha: str, path: str | None, *, max_lines: int = DIFF_CONTEXT_LINES) -> str:
    """One commit as ``git show`` prints it: the diff of ``path`` (as named at that commit, 3 lines of
    context), or, without a path or when the commit did not touch it, the ``--stat`` summary; cut at
    ``max_lines``. A clear :class:`GitError` when ``root`` is no repository or the commit is gone
    (history rewritten since it was mined)."""
    base = [
        "-c",
        f"core.bigFileThreshold={DIFF_BIG_FILE_BYTES}",
        "show",
        "--format=%h %an %ad %s",
        "--date=short",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "-M",
    ]
    try:
        head_commit(root)
        full = resolve_commit(root, sha)
        if full is None:
            raise GitError(
                f"commit {sha[:12]} is not in the repository at {root} any more (was its history rewritten?)"
            )
        text = git(root, *base, "-U3", full, "--", path) if path else ""
        if not text.strip() or len(text.strip().splitlines()) <= 1:  # the header only: the path is not in it
            text = git(root, *base, "--stat", full)
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git show {sha[:12]} took longer than {GIT_TIMEOUT_S} s") from exc
    return cut_lines(text, max_lines)


# --- objects: sizes first, bytes only under a cap -----------------------------------------------------------


def _cat_file(root: Path, mode: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        ["git", "-C", str(root), "cat-file", mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def _ask(proc: subprocess.Popen[bytes], oid: str) -> list[bytes]:
    """Send one object id to a cat-file process and return its header line's fields."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(oid.encode("ascii") + b"\n")
    proc.stdin.flush()
    return proc.stdout.readline().split()


def _read_bounded(stream: IO[bytes], size: int, keep: int) -> bytes:
    """Read exactly ``size`` bytes and the newline after them; return the first ``keep`` (the rest dropped)."""
    kept = stream.read(min(size, keep)) if keep > 0 else b""
    left = size - len(kept)
    while left > 0:
        part = stream.read(min(left, READ_CHUNK_BYTES))
        if not part:
            break
        left -= len(part)
    stream.read(1)
    return kept


def _close(proc: subprocess.Popen[bytes]) -> None:
    if proc.stdin:
        proc.stdin.close()
    if proc.stdout:
        proc.stdout.close()
    proc.wait()


class BlobReader:
    """Blobs by id: the size asked first (``cat-file --batch-check``), the bytes (``--batch``) only when the
    blob is no larger than the cap. Two long-lived processes; a context manager."""

    def __init__(self, root: Path) -> None:
        self._check = _cat_file(root, "--batch-check")
        self._batch = _cat_file(root, "--batch")

    def size(self, blob: str) -> int | None:
        """The blob's size in bytes, or None when ``blob`` is no object id, is missing or is no blob."""
        if not is_object_id(blob):
            return None
        header = _ask(self._check, blob)
        if len(header) != 3 or header[1] != b"blob" or not header[2].isdigit():
            return None
        return int(header[2])

    def read(self, blob: str, *, max_bytes: int) -> bytes | None:
        """The blob's bytes, or None when it is missing (a shallow clone), no blob, or larger than ``max_bytes``."""
        size = self.size(blob)
        if size is None or size > max_bytes:
            return None
        header = _ask(self._batch, blob)
        if len(header) != 3 or header[1] != b"blob" or not header[2].isdigit():
            return None
        assert self._batch.stdout is not None
        return _read_bounded(self._batch.stdout, int(header[2]), max_bytes)

    def close(self) -> None:
        _close(self._check)
        _close(self._batch)

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CommitReader:
    """Commit objects by id (``cat-file --batch``, length-prefixed), parsed into :class:`CommitRecord`\\ s."""

    def __init__(self, root: Path, *, now: float | None = None) -> None:
        self._batch = _cat_file(root, "--batch")
        self._now = now

    def record(self, sha: str) -> CommitRecord | None:
        """The commit's fields (no files yet), or None when ``sha`` is no commit id or the commit is missing."""
        if not is_object_id(sha):
            return None
        header = _ask(self._batch, sha)
        if len(header) != 3 or not header[2].isdigit():
            return None
        assert self._batch.stdout is not None
        raw = _read_bounded(self._batch.stdout, int(header[2]), MAX_COMMIT_BYTES)
        if header[1] != b"commit":
            return None
        return parse_commit(sha, raw, now=time.time() if self._now is None else self._now)

    def close(self) -> None:
        _close(self._batch)


def parse_commit(sha: str, raw: bytes, *, now: float) -> CommitRecord:
    """A commit object's fields by position: header lines up to the first blank line, then the message.

    Parents must be object ids; the author is the ``author`` line's name (its time and zone as UTC, clamped to
    ``now``); the message is decoded by its ``encoding`` header (else UTF-8), bad bytes replaced."""
    head, _, message = raw.partition(b"\n\n")
    parents: list[str] = []
    author, unix, encoding = "", 0, "utf-8"
    committer_unix: int | None = None
    for line in head.split(b"\n"):
        key, _, value = line.partition(b" ")
        if key == b"parent":
            parent = value.decode("ascii", "replace").strip()
            if is_object_id(parent):
                parents.append(parent)
        elif key in (b"author", b"committer"):
            ident = _IDENT.match(value)
            if key == b"committer":
                committer_unix = int(ident.group("time")) if ident else None
                continue
            if ident is None:
                author = value.split(b"<", 1)[0].decode("utf-8", "replace").strip()
                continue
            author = ident.group("name").decode("utf-8", "replace").strip()
            unix = int(ident.group("time"))
        elif key == b"encoding":
            encoding = value.decode("ascii", "replace").strip() or "utf-8"
    if not unix and committer_unix:
        unix = committer_unix
    date, clamped = iso_utc(unix, now=now)
    text = _decode(message, encoding).replace("\x00", "\ufffd").strip("\n")
    subject, _, body = text.partition("\n")
    return CommitRecord(
        sha=sha,
        parents=parents,
        author=author,
        date=date,
        subject=subject.strip(),
        body=body.strip("\n"),
        clamped_date=clamped,
    )


def _decode(data: bytes, encoding: str) -> str:
    try:
        codec = codecs.lookup(encoding).name
    except LookupError:
        codec = "utf-8"
    try:
        return data.decode(codec, "replace")
    except (LookupError, TypeError):  # a codec that is no text codec (e.g. "zlib")
        return data.decode("utf-8", "replace")


# --- the streamed diff -----------------------------------------------------------------------------------


# git's words for an object the repository lacks (a partial clone whose remote is out of reach, a damaged
# repository): the commit that needs it is skipped and the rest of the history is read
_MISSING_OBJECT = re.compile(r"unable to read [0-9a-f]{7,}|bad object [0-9a-f]{7,}|could not read [0-9a-f]{7,}")
# after a commit could not be read, the commits around it are diffed one at a time to find it; more than this many
# reading fine means the failure was not that commit's, and the run stops with git's error
PROBE_COMMITS = 3


def iter_commits(
    root: Path,
    revs: Sequence[str],
    *,
    limit: int | None = None,
    now: float | None = None,
    exclude: Sequence[str] = (),
    unreadable: list[str] | None = None,
) -> Generator[CommitRecord, None, None]:
    """Commits of ``revs`` newest first, each with its diff's hunks: ``git rev-list`` piped into one
    ``git diff-tree --stdin``, streamed; each commit's fields from its object (:class:`CommitReader`).

    ``exclude``: paths left out of every diff (:func:`big_blob_paths`). Closing the generator early (a cancel)
    ends the git processes. ``unreadable``: where given, a commit git cannot diff because an object it needs is
    missing is appended there and skipped, and the commits after it are read; else that is a :class:`GitError`.
    """
    listing = ["git", "-C", str(root), "rev-list"]
    if limit is not None:
        listing.append(f"--max-count={limit}")
    listing.extend([*revs, "--"])
    diffing = _diff_command(root, exclude)
    lister = subprocess.Popen(listing, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    failure = yield from _diff_run(root, diffing, lister, now=now)
    if failure is None:
        return
    if unreadable is None:
        raise GitError(failure[1])
    shas = git(root, *listing[3:]).split()
    pos = 0
    while failure is not None:
        held, error = failure
        if not _MISSING_OBJECT.search(error):
            raise GitError(error)
        start = shas.index(held, pos) if held is not None and held in shas[pos:] else pos
        pos = yield from _probe(root, diffing, shas, start, unreadable, error, now=now)
        if pos >= len(shas):
            return
        failure = yield from _diff_run(root, diffing, shas[pos:], now=now)


def _probe(
    root: Path,
    diffing: list[str],
    shas: list[str],
    pos: int,
    unreadable: list[str],
    error: str,
    *,
    now: float | None,
) -> Generator[CommitRecord, None, int]:
    """Diff ``shas[pos:]`` one at a time until one fails for a missing object (skipped): where to go on from."""
    for index in range(pos, min(pos + PROBE_COMMITS, len(shas))):
        failure = yield from _diff_run(root, diffing, [shas[index]], now=now)
        if failure is None:
            continue
        if not _MISSING_OBJECT.search(failure[1]):
            raise GitError(failure[1])
        unreadable.append(shas[index])
        return index + 1
    raise GitError(error)


def _diff_command(root: Path, exclude: Sequence[str]) -> list[str]:
    return [
        "git",
        "-C",
        str(root),
        "-c",
        "core.quotePath=false",
        "-c",
        "diff.renameLimit=2000",
        "-c",
        f"core.bigFileThreshold={DIFF_BIG_FILE_BYTES}",
        "diff-tree",
        "--stdin",
        "--root",
        "--always",  # every commit gets its header line, merges and empty commits too
        "-r",
        "-p",
        "-U0",
        "-M",
        "--full-index",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--format=%x00%H",
        *_pathspec(exclude),
    ]


def _diff_run(
    root: Path,
    diffing: list[str],
    commits: subprocess.Popen[bytes] | list[str],
    *,
    now: float | None,
) -> Generator[CommitRecord, None, tuple[str | None, str] | None]:
    """One ``diff-tree --stdin`` over ``commits`` (the lister's output, or ids written to it), streamed. Each
    record is yielded once the next one starts; the last only once git has exited cleanly. On a failure: (the
    id of the record held back, which may be incomplete, or None; git's last error line)."""
    if isinstance(commits, list):
        differ = subprocess.Popen(diffing, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert differ.stdin is not None
        feeder = threading.Thread(target=_feed, args=(differ.stdin, commits), daemon=True)
        feeder.start()
        procs: tuple[tuple[str, subprocess.Popen[bytes]], ...] = (("diff-tree", differ),)
    else:
        differ = subprocess.Popen(diffing, stdin=commits.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert commits.stdout is not None
        commits.stdout.close()  # the differ holds it now: the lister sees a closed pipe if the differ stops
        procs = (("diff-tree", differ), ("rev-list", commits))
    assert differ.stdout is not None
    reader = CommitReader(root, now=now)
    held: CommitRecord | None = None
    errors: list[str] = []
    try:
        for record in _parse_diff_stream(differ.stdout, reader):
            if held is not None:
                yield held
            held = record
    finally:
        for _, proc in procs:
            if proc.poll() is None:
                proc.kill()
        differ.stdout.close()
        reader.close()
        for name, proc in procs:
            err = proc.stderr.read().decode("utf-8", "replace").strip() if proc.stderr else ""
            if proc.stderr:
                proc.stderr.close()
            code = proc.wait()
            if code not in (0, -9) and err:
                errors.append(f"git {name} failed: {err.splitlines()[-1]}")
    if errors:
        return (held.sha if held is not None else None), errors[0]
    if held is not None:
        yield held
    return None


def _feed(stdin: IO[bytes], shas: list[str]) -> None:
    try:
        for sha in shas:
            stdin.write(sha.encode("ascii") + b"\n")
        stdin.close()
    except (BrokenPipeError, ValueError, OSError):  # git stopped reading (a failure or a cancel)
        pass


def _parse_diff_stream(stream: Iterator[bytes], reader: CommitReader) -> Iterator[CommitRecord]:
    """``diff-tree --stdin`` output → records. A line starting with NUL heads a commit; inside a hunk exactly the
    header's count of ``-``/``+`` lines is content; file headers are read only before a file's first hunk."""
    commit: CommitRecord | None = None
    current: FileChange | None = None
    in_hunks = False  # past the current file's first hunk header: only hunks, content and markers follow
    left = 0  # content lines still owed to the current hunk
    removed: list[str] = []
    added: list[str] = []
    for line in stream:
        if left > 0 and line[:1] in (b"-", b"+"):
            left -= 1
            kept = removed if line[:1] == b"-" else added
            if current is not None and len(kept) < HUNK_LINES_KEPT:
                kept.append(line[1 : LINE_CHARS_KEPT + 1].rstrip(b"\r\n").decode("utf-8", "replace"))
            if left == 0 and current is not None and current.hunks:
                current.hunks[-1] = current.hunks[-1]._replace(removed=tuple(removed), added=tuple(added))
            continue
        if left > 0 and line.startswith(b"\\"):  # "\ No newline at end of file" sits between a hunk's lines
            continue
        if left > 0 and current is not None and current.hunks and (removed or added):
            current.hunks[-1] = current.hunks[-1]._replace(removed=tuple(removed), added=tuple(added))
        left = 0
        if line.startswith(b"\x00"):
            if commit is not None:
                yield finish_record(commit)
            commit = reader.record(line[1:].strip().decode("ascii", "replace"))
            current, in_hunks = None, False
            continue
        if commit is None:
            continue
        if line.startswith(b"diff --git "):
            commit.file_count += 1
            current, in_hunks = None, False
            if commit.file_count > GIANT_COMMIT_FILES:
                if not commit.giant:
                    commit.giant = True
                    commit.files.clear()
                continue
            current = FileChange(path="", old_path="")
            commit.files.append(current)
            continue
        if current is None or line.startswith(b"\\"):  # "\ No newline at end of file"
            continue
        if line.startswith(b"@@"):
            m = _HUNK.match(line)
            if m is None:
                continue
            in_hunks = True
            old = int(m.group(1)) if m.group(1) is not None else 1
            start = int(m.group(2))
            new = int(m.group(3)) if m.group(3) is not None else 1
            left = old + new
            removed, added = [], []
            # a pure deletion (new count 0) sits after line `start`: the code around it is what changed
            first = max(start, 1)
            current.hunks.append(Hunk(first, first + max(new, 1) - 1, max(old + new, 1)))
        elif in_hunks:
            continue  # nothing but hunks belongs here: a stray line is no header
        elif line.startswith(b"--- "):
            current.old_path = _diff_path(line[4:], b"a/")
        elif line.startswith(b"+++ "):
            current.path = _diff_path(line[4:], b"b/")
        elif line.startswith(b"rename from "):
            current.old_path = _unquote(line[12:])
        elif line.startswith(b"rename to "):
            current.path = _unquote(line[10:])
        elif line.startswith(b"index "):
            ids = line[6:].split(b" ")[0].strip().split(b"..")
            new_id = ids[1].decode("ascii", "replace") if len(ids) == 2 else ""
            if is_object_id(new_id) and not NULL_ID.fullmatch(new_id):
                current.blob = new_id
        elif line.startswith(b"Binary files "):
            commit.binary_files += 1
            commit.files.remove(current)
            current = None
    if commit is not None:
        yield finish_record(commit)


def finish_record(commit: CommitRecord) -> CommitRecord:
    """Drop vendored files (counted) and files whose paths never showed (mode-only changes)."""
    kept: list[FileChange] = []
    for f in commit.files:
        path = f.path or f.old_path
        if not path:
            continue
        if VENDORED_PATH.search(path):
            commit.vendored_files += 1
            continue
        kept.append(f)
    commit.files = kept
    return commit


def _diff_path(raw: bytes, prefix: bytes) -> str:
    raw = raw.rstrip(b"\n")
    if raw == b"/dev/null":
        return ""
    path = _unquote(raw)
    return path[2:] if path.startswith(prefix.decode()) else path


_ESCAPES = {
    b"n": b"\n",
    b"t": b"\t",
    b'"': b'"',
    b"\\": b"\\",
    b"a": b"\a",
    b"b": b"\b",
    b"f": b"\f",
    b"r": b"\r",
    b"v": b"\v",
}


def _unquote(raw: bytes) -> str:
    """A path as git writes it: C-quoted when it holds unusual bytes (quotePath=false keeps UTF-8 raw)."""
    raw = raw.rstrip(b"\n").rstrip(b"\t")
    if len(raw) >= 2 and raw[:1] == b'"' and raw[-1:] == b'"':
        body = raw[1:-1]
        out = bytearray()
        i = 0
        while i < len(body):
            c = body[i : i + 1]
            if c == b"\\" and i + 1 < len(body):
                nxt = body[i + 1 : i + 2]
                if nxt.isdigit() and i + 4 <= len(body):
                    out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
                    i += 4
                    continue
                out += _ESCAPES.get(nxt, nxt)
                i += 2
                continue
            out += c
            i += 1
        raw = bytes(out)
    return raw.decode("utf-8", "replace")


def _pathspec(exclude: Sequence[str]) -> list[str]:
    return ["--", ".", *(f":(exclude,literal){p}" for p in exclude)] if exclude else []


def big_blob_paths(root: Path, revs: Sequence[str], *, limit: int = DIFF_BIG_FILE_BYTES) -> tuple[list[str], int]:
    """The paths at which ``revs`` ever held a blob larger than ``limit`` (at most MAX_EXCLUDED_PATHS of them), and
    how many there were. Sizes come from the object headers (``rev-list --filter=blob:limit``): nothing is loaded."""
    found = subprocess.run(
        ["git", "-C", str(root), "rev-list", "--objects", f"--filter=blob:limit={limit + 1}", "--filter-print-omitted",
         *revs, "--"],
        capture_output=True, check=False,
    )  # fmt: skip
    big = {line[1:].strip() for line in found.stdout.split(b"\n") if line.startswith(b"~")}
    big = {oid for oid in big if is_object_id(oid.decode("ascii", "replace"))}
    if not big:
        return [], 0
    raw = subprocess.run(
        ["git", "-C", str(root), "log", "--raw", "--no-renames", "-z", "--no-abbrev", "--format=", *revs, "--"],
        capture_output=True, check=False,
    ).stdout  # fmt: skip
    paths: dict[str, None] = {}
    fields = iter(raw.split(b"\0"))
    for meta in fields:  # ":mode mode old new status" NUL path NUL, in order (a path may look like anything)
        if not meta.startswith(b":"):
            continue  # an empty field between commits
        path = next(fields, b"")
        ids = meta.split(b" ")
        if len(ids) >= 4 and (ids[2] in big or ids[3] in big) and path:
            paths.setdefault(path.decode("utf-8", "surrogateescape"))
    ordered = list(paths)
    return ordered[:MAX_EXCLUDED_PATHS], len(ordered)


def patch_ids(root: Path, shas: Sequence[str], *, exclude: Sequence[str] = ()) -> dict[str, str]:
    """``git patch-id --stable`` of each commit's diff: a cherry-pick has the same id as its original.

    Ids that are no object ids are left out; a commit whose diff is empty (a merge) gets none."""
    wanted = [s for s in dict.fromkeys(shas) if is_object_id(s)]
    if not wanted:
        return {}
    with tempfile.TemporaryFile() as listing:  # a file, not a pipe: writing it never waits on git's output
        listing.write("".join(f"{s}\n" for s in wanted).encode("ascii"))
        listing.seek(0)
        differ = subprocess.Popen(
            [
                "git", "-C", str(root), "-c", f"core.bigFileThreshold={DIFF_BIG_FILE_BYTES}", "diff-tree", "--stdin",
                "--root", "-r", "-p", "--no-color", "--no-ext-diff", "--no-textconv", "--format=commit %H",
                *_pathspec(exclude),
            ],
            stdin=listing, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        assert differ.stdout is not None
        ider = subprocess.Popen(
            ["git", "-C", str(root), "patch-id", "--stable"],
            stdin=differ.stdout,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        differ.stdout.close()
        out, _ = ider.communicate()
        differ.wait()
    ids: dict[str, str] = {}
    for line in out.decode("ascii", "replace").splitlines():
        parts = line.split()
        if len(parts) == 2 and is_object_id(parts[0]) and is_object_id(parts[1]):
            ids[parts[1]] = parts[0]
    return ids
