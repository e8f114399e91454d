"""Reading a repository's history with the git CLI: one streamed ``git log -p`` and one ``cat-file``.

``git log -p -U0 -M`` is read line by line (bytes) and turned into :class:`CommitRecord`\\ s one
commit at a time, so memory stays flat whatever the history's length. Only what mining needs is
kept: the message, the new-side line ranges of each hunk, the new blob's id (to parse the file as
it was at that commit) and renames. Binary and vendored files are counted, not kept; a commit
touching more than :data:`GIANT_COMMIT_FILES` files keeps its message and its file count only.
Messages that are not UTF-8 are decoded with replacement characters.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from forewarn.errors import ForewarnError

# a commit touching more files than this is a mass move, vendoring or reformat: its hunks say nothing
# about any one symbol, and keeping them would cost memory on a 100k-file commit
GIANT_COMMIT_FILES = 200
# vendored or generated code: lessons about it belong to its upstream, not to this repository
VENDORED_PATH = re.compile(
    r"(^|/)(vendor|vendored|_vendor|third_party|third-party|node_modules|bower_components|dist|site-packages)/"
    r"|\.min\.(js|css)$|(^|/)(package-lock\.json|yarn\.lock|poetry\.lock|Cargo\.lock|go\.sum|Pipfile\.lock)$"
)
GIT_TIMEOUT_S = 30  # one small git query (rev-parse, rev-list --count); the log itself is streamed, unbounded

# fields of one commit header; %x1e starts a commit, %x1f separates fields, %x1d ends the message
_FORMAT = "%x1e%H%x1f%P%x1f%an%x1f%aI%x1f%B%x1d"
_HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


class GitError(ForewarnError):
    """The workspace is not a git repository, has no commits, or git failed."""


@dataclass(slots=True)
class FileChange:
    """One file of a commit's diff, new side: where its hunks landed and which blob holds it."""

    path: str  # new path ("" when the file was deleted)
    old_path: str  # old path ("" when the file was added)
    blob: str = ""  # the new side's blob id (full), "" when deleted
    hunks: list[tuple[int, int]] = field(default_factory=list)  # new-side (start, end) lines, 1-based inclusive

    @property
    def renamed(self) -> bool:
        return bool(self.path and self.old_path and self.path != self.old_path)


@dataclass(slots=True)
class CommitRecord:
    sha: str
    parents: list[str]
    author: str
    date: str  # author date, ISO-8601 strict
    subject: str
    body: str
    files: list[FileChange] = field(default_factory=list)
    file_count: int = 0  # every file the diff touched, kept or not
    binary_files: int = 0
    vendored_files: int = 0
    giant: bool = False  # more than GIANT_COMMIT_FILES files: counted, not parsed

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


def commit_date(root: Path, sha: str) -> str:
    return git(root, "show", "-s", "--format=%cI", sha).strip()


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
    base = ["show", "--format=%h %an %ad %s", "--date=short", "--no-color", "--no-ext-diff", "-M"]
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


def iter_commits(root: Path, revs: Sequence[str], *, limit: int | None = None) -> Generator[CommitRecord, None, None]:
    """Commits of ``revs`` newest first, each with its diff's hunks; one ``git log`` process, streamed.

    Closing the generator early (a cancel) ends the git process.
    """
    args = [
        "git",
        "-C",
        str(root),
        "-c",
        "core.quotePath=false",
        "-c",
        "diff.renameLimit=2000",
        "log",
        "-p",
        "-U0",
        "-M",
        "--full-index",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--no-abbrev-commit",
        f"--format={_FORMAT}",
    ]
    if limit is not None:
        args.append(f"--max-count={limit}")
    args.extend([*revs, "--"])
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=1 << 16)
    assert proc.stdout is not None
    try:
        yield from _parse_log(proc.stdout)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        err = proc.stderr.read().decode("utf-8", "replace").strip() if proc.stderr else ""
        if proc.stderr:
            proc.stderr.close()
        code = proc.wait()
        if code not in (0, -9) and err:
            raise GitError(f"git log failed: {err.splitlines()[-1]}")


def _parse_log(stream: Iterator[bytes]) -> Iterator[CommitRecord]:
    commit: CommitRecord | None = None
    current: FileChange | None = None
    header: list[bytes] | None = None  # lines of a message still being read
    for line in stream:
        if line.startswith(b"\x1e"):
            if commit is not None:
                yield finish_record(commit)
            commit, current = None, None
            header = [line[1:]]
            if b"\x1d" not in line:
                continue
        elif header is not None:
            header.append(line)
            if b"\x1d" not in line:
                continue
        if header is not None:
            commit = _commit_from_header(b"".join(header))
            header = None
            continue
        if commit is None:
            continue
        if line.startswith(b"diff --git "):
            commit.file_count += 1
            current = None
            if commit.file_count > GIANT_COMMIT_FILES:
                if not commit.giant:
                    commit.giant = True
                    commit.files.clear()
                continue
            current = FileChange(path="", old_path="")
            commit.files.append(current)
        elif current is None:
            continue
        elif line.startswith(b"@@"):
            m = _HUNK.match(line)
            if m:
                start = int(m.group(1))
                count = int(m.group(2)) if m.group(2) is not None else 1
                # a pure deletion (count 0) sits after line `start`: the code around it is what changed
                current.hunks.append((max(start, 1), max(start, 1) + max(count, 1) - 1))
        elif line.startswith((b"+", b"-", b" ", b"\\")) and not line.startswith((b"+++ ", b"--- ")):
            continue  # diff content: only the hunk headers matter
        elif line.startswith(b"--- "):
            current.old_path = _diff_path(line[4:], b"a/")
        elif line.startswith(b"+++ "):
            current.path = _diff_path(line[4:], b"b/")
        elif line.startswith(b"rename from "):
            current.old_path = _unquote(line[12:])
        elif line.startswith(b"rename to "):
            current.path = _unquote(line[10:])
        elif line.startswith(b"index "):
            ids = line[6:].split(b" ")[0].split(b"..")
            if len(ids) == 2 and ids[1].strip(b"0\n"):
                current.blob = ids[1].strip().decode("ascii", "replace")
        elif line.startswith(b"Binary files ") or line.startswith(b"GIT binary patch"):
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


def _commit_from_header(raw: bytes) -> CommitRecord:
    text = raw.split(b"\x1d", 1)[0].decode("utf-8", "replace")
    sha, parents, author, date, message = [*text.split("\x1f", 4), "", "", "", ""][:5]
    message = message.strip("\n")
    subject, _, body = message.partition("\n")
    return CommitRecord(
        sha=sha.strip(),
        parents=parents.split(),
        author=author,
        date=date.strip(),
        subject=subject.strip(),
        body=body.strip("\n"),
    )


def _diff_path(raw: bytes, prefix: bytes) -> str:
    raw = raw.rstrip(b"\n")
    if raw == b"/dev/null":
        return ""
    path = _unquote(raw)
    return path[2:] if path.startswith(prefix.decode()) else path


def _unquote(raw: bytes) -> str:
    """A path as git writes it: C-quoted when it holds unusual bytes (quotePath=false keeps UTF-8 raw)."""
    raw = raw.rstrip(b"\n").rstrip(b"\t")
    if len(raw) >= 2 and raw[:1] == b'"' and raw[-1:] == b'"':
        body = raw[1:-1]
        out = bytearray()
        i = 0
        escapes = {
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
        while i < len(body):
            c = body[i : i + 1]
            if c == b"\\" and i + 1 < len(body):
                nxt = body[i + 1 : i + 2]
                if nxt.isdigit() and i + 4 <= len(body):
                    out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
                    i += 4
                    continue
                out += escapes.get(nxt, nxt)
                i += 2
                continue
            out += c
            i += 1
        raw = bytes(out)
    return raw.decode("utf-8", "replace")


class BlobReader:
    """``git cat-file --batch``: blobs by id, one long-lived process (a context manager)."""

    def __init__(self, root: Path) -> None:
        self._proc = subprocess.Popen(
            ["git", "-C", str(root), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def read(self, blob: str, *, max_bytes: int) -> bytes | None:
        """The blob's bytes, or None when it is missing (a shallow clone) or larger than ``max_bytes``."""
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(blob.encode("ascii") + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) != 3:
            return None
        size = int(header[2])
        data = proc.stdout.read(size + 1)[:size]
        return data if size <= max_bytes else None

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        if self._proc.stdout:
            self._proc.stdout.close()
        self._proc.wait()

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
