"""Memories in code review: what a change walks into, one ``git diff -U0`` against the working tree.

The new side is always the working tree (what is on disk, staged or not); the old side is HEAD, or,
with a base, the merge base of that ref and HEAD — what a pull request shows: the branch's commits
since it forked, plus anything not committed yet. For each changed file the old version (from git)
and the new one (from disk) are parsed with tree-sitter; the hunks' line ranges pick candidate
symbols on either side and the chunks' content hashes decide which really changed (a symbol added,
deleted or rewritten). Listed, each once, with every reason that applies:

- ``changed``: anchored to a changed symbol, or file-wide in a changed file;
- ``stale``: this change rewrites the code the memory was written against (the anchor's stored hash
  is not the new code's: a memory confirmed against the new code is not stale again);
- ``deleted``: its symbol or file is gone after the change;
- ``dependent``: one hop out, on code that uses a changed symbol — a file the graph says depends on the
  changed file and references the symbol's name, where the memory sits on a definition whose code
  names it, or is file-wide.

A definition whose syntax is unchanged (only formatting, comments or docstrings differ) is not changed, and a
file with no other change has no memory listed for it. Items come ranked (``review_rank``: made stale, then on
changed code, then file-wide, then one hop out; gotchas first within each), the last two tiers capped and the
rest counted (``left_out``).

The index is brought up to the working tree first (an incremental re-index, as the editor would), so
anchors, spans and the graph describe the code under review.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from pathlib import Path
from typing import Any
from urllib.parse import quote

from forewarn import __version__
from forewarn.indexing.languages import language_for_path
from forewarn.indexing.parse import HASH_DIGEST_BYTES, MODULE_SYMBOL, parse_file
from forewarn.memory.origin import origin_of
from forewarn.memory.records import Memory
from forewarn.memory.vocabulary import CURRENT_STATUSES, MemoryType
from forewarn.workspace import history
from forewarn.workspace.history import BlobReader, GitError
from forewarn.workspace.symbols import called_name, spoken_symbol

# another issue adds this status; review already fails on it by name (``--fail-on contested``)
CONTESTED = "contested"
# memories a review considers: current ones (suggestions wait for their own review), and contested ones
REVIEWED_STATUSES: tuple[str, ...] = (*CURRENT_STATUSES, CONTESTED)
MAX_DEPENDENT_FILES = 50  # strongest dependents followed per changed file: a core module can have hundreds
# one-hop memories listed per review: a one-line change to a class every module uses reached 58 of them on
# requests (bench/review_bench.py), and a 3-line change to click's echo listed 20 (QA pass 3, D16); beside the
# memories on the changed code itself, a reviewer reads about a screenful, so the rest are counted
MAX_DEPENDENT_ITEMS = 8
# file-wide memories listed per changed file: on requests mined, accepted file-wide memories made 6 of the
# 10 memories an average commit listed (40 on one file); an open shows them as one summary line, so two here
MAX_FILE_WIDE_PER_FILE = 2
INDEXED_STATUSES = ("ok", "errors")  # the indexer's statuses of a parsed file (not "skipped")
TYPE_ORDER = {t.value: n for n, t in enumerate(MemoryType)}
JSON_SCHEMA = "forewarn.review/1"  # bump when a field changes meaning or goes away (adding one does not)
SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_FINGERPRINT = "forewarnMemory/v1"  # same memory at the same file: one code-scanning alert across pushes
INFORMATION_URI = "https://github.com/forewarn/forewarn"
TEAM = "team"  # the default visibility (helper B's Visibility.TEAM); private memories never leave in json/sarif
PRIVATE = "private"
RULE_HELP = (
    "Read the memory before merging. If the change makes it outdated, confirm it (forewarn memory confirm ID) "
    "or replace it (forewarn memory supersede ID TEXT)."
)
# types whose lesson is a trap: a warning in code review; the rest are notes
WARNING_TYPES = frozenset({MemoryType.GOTCHA, MemoryType.ERROR_PATTERN})

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class Reason(StrEnum):
    """Why a memory is listed (an item may have several)."""

    CHANGED = "changed"
    STALE = "stale"
    DELETED = "deleted"
    DEPENDENT = "dependent"


class FailOn(StrEnum):
    """Which listed memories make ``forewarn review`` exit 1."""

    STALE = "stale"  # made stale or orphaned by the change: update or confirm them first
    CONTESTED = "contested"  # whose status is contested
    ANY = "any"  # any memory listed
    NONE = "none"  # never (the default)


@dataclass(slots=True)
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int


@dataclass(slots=True)
class FileDelta:
    """One file of the diff. ``path`` "" when deleted, ``old_path`` "" when added."""

    path: str
    old_path: str
    old_blob: str = ""
    binary: bool = False
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def status(self) -> str:
        if not self.old_path:
            return "added"
        if not self.path:
            return "deleted"
        return "renamed" if self.path != self.old_path else "modified"


@dataclass(frozen=True, slots=True)
class ChangedSymbol:
    file: str  # the new path (the old one for a deleted file)
    symbol: str
    change: str  # "modified" | "added" | "deleted"


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """One memory to show in review, placed in the new tree (a deleted file: where it was)."""

    memory: Memory
    file: str
    line: int  # 1-based
    reasons: tuple[Reason, ...]
    why: str
    via: tuple[str, ...] = ()  # ``file::symbol`` of the changed symbols a dependent memory's code uses

    @property
    def visibility(self) -> str:
        return str(getattr(self.memory, "visibility", TEAM) or TEAM)

    @property
    def private(self) -> bool:
        return self.visibility == PRIVATE

    @property
    def made_stale(self) -> bool:
        return Reason.STALE in self.reasons or Reason.DELETED in self.reasons

    def to_dict(self) -> dict[str, Any]:
        m = self.memory
        return {
            "id": m.id,
            "type": str(m.type),
            "status": str(m.status),
            "text": m.text,
            "file": self.file,
            "line": self.line,
            "symbol": m.anchor.symbol if m.anchor else None,
            "reasons": [str(r) for r in self.reasons],
            "why": self.why,
            "via": list(self.via),
            "source": m.source,
            "visibility": self.visibility,
            "origin": origin_of(m).to_dict(),  # where it came from, and whether a person vetted it
        }


@dataclass(frozen=True, slots=True)
class ReviewReport:
    base: str  # the ref as given ("HEAD" without one)
    base_commit: str  # the old side: HEAD, or the merge base of the ref and HEAD
    head_commit: str
    files: list[FileDelta]
    changed: list[ChangedSymbol]
    items: list[ReviewItem]
    seconds: float
    left_out: tuple[ReviewItem, ...] = ()  # file-wide and one-hop memories past the limits: counted, not listed

    def shared(self) -> list[ReviewItem]:
        """What output meant for sharing (json, sarif) may hold: never a private memory."""
        return [i for i in self.items if not i.private]

    def to_dict(self, fail_on: FailOn = FailOn.NONE) -> dict[str, Any]:
        """The json output (``forewarn.review/1``): private memories left out."""
        items = self.shared()
        return {
            "schema": JSON_SCHEMA,
            "base": {"ref": self.base, "commit": self.base_commit},
            "head": {"commit": self.head_commit, "working_tree": True},
            "files": [{"file": f.path or None, "old_file": f.old_path or None, "status": f.status} for f in self.files],
            "changed_symbols": [{"file": c.file, "symbol": c.symbol, "change": c.change} for c in self.changed],
            "memories": [i.to_dict() for i in items],
            "counts": {**counts(items), "left_out": sum(1 for i in self.left_out if not i.private)},
            "fail_on": str(fail_on),
            "failed": bool(failing(items, fail_on)),
        }


def counts(items: Sequence[ReviewItem]) -> dict[str, int]:
    out = {"memories": len(items)}
    for reason in Reason:
        out[str(reason)] = sum(1 for i in items if reason in i.reasons)
    return out


def failing(items: Iterable[ReviewItem], rule: FailOn) -> list[ReviewItem]:
    """The items that make the review fail under ``rule``: only memories a person vetted can fail a review (a
    suggestion or an agent's proposal waits for its own review)."""
    items = [i for i in items if origin_of(i.memory).vetted]
    if rule == FailOn.ANY:
        return list(items)
    if rule == FailOn.STALE:
        return [i for i in items if i.made_stale]
    if rule == FailOn.CONTESTED:
        return [i for i in items if str(i.memory.status) == CONTESTED]
    return []


# ---------------------------------------------------------------------------------------------- git


def _unquote(path: str) -> str:
    """A path as git prints it: C-quoted (octal bytes, ``\\n``, ``\\"``) when it holds unusual characters."""
    if len(path) >= 2 and path[0] == '"' and path[-1] == '"':
        raw = path[1:-1].encode("utf-8").decode("unicode_escape").encode("latin-1")
        return raw.decode("utf-8", "replace")
    return path


def _side(text: str, prefix: str) -> str:
    text = text.rstrip("\n").rstrip("\t")
    if text == "/dev/null":
        return ""
    text = _unquote(text)
    return text[len(prefix) :] if text.startswith(prefix) else text


def parse_diff(text: str) -> list[FileDelta]:
    """``git diff -U0 -M --full-index`` output → files with their hunks (mode-only changes dropped).

    A hunk's body is counted off by its header, so a removed line that reads ``-- x`` is never taken
    for a ``--- a/x`` header.
    """
    files: list[FileDelta] = []
    cur: FileDelta | None = None
    old_left = new_left = 0  # body lines of the current hunk still to come
    for line in text.splitlines():
        if old_left or new_left:
            if line.startswith("-") and old_left:
                old_left -= 1
                continue
            if line.startswith("+") and new_left:
                new_left -= 1
                continue
            if line.startswith("\\"):  # "\ No newline at end of file"
                continue
            old_left = new_left = 0  # a malformed body: read headers again
        if line.startswith("diff --git "):
            cur = FileDelta(path="", old_path="")
            files.append(cur)
        elif cur is None or line.startswith("\\"):
            continue
        elif line.startswith("@@"):
            m = _HUNK.match(line)
            if m:
                b = int(m.group(2)) if m.group(2) is not None else 1
                d = int(m.group(4)) if m.group(4) is not None else 1
                cur.hunks.append(Hunk(int(m.group(1)), b, int(m.group(3)), d))
                old_left, new_left = b, d
        elif line.startswith("--- "):
            cur.old_path = _side(line[4:], "a/")
        elif line.startswith("+++ "):
            cur.path = _side(line[4:], "b/")
        elif line.startswith("rename from "):
            cur.old_path = _unquote(line[12:])
        elif line.startswith("rename to "):
            cur.path = _unquote(line[10:])
        elif line.startswith("index "):
            ids = line[6:].split(" ")[0].split("..")
            if len(ids) == 2 and ids[0].strip("0"):
                cur.old_blob = ids[0]
        elif line.startswith("Binary files ") or line.startswith("GIT binary patch"):
            cur.binary = True
    return [f for f in files if f.path or f.old_path]


def resolve_base(root: Path, base: str | None) -> tuple[str, str]:
    """(HEAD's sha, the old side's sha); a clear :class:`GitError` for no repository, no history or a bad ref."""
    if history.git(root, "rev-parse", "--is-inside-work-tree", check=False).strip() != "true":
        raise GitError(f"{root} is not inside a git repository: review compares the working tree with git's history")
    head = history.resolve_commit(root, "HEAD")
    if head is None:
        raise GitError(f"the git repository at {root} has no commits yet: there is nothing to review against")
    if base is None:
        return head, head
    commit = history.resolve_commit(root, base)
    if commit is None:
        raise GitError(f"no commit named '{base}' in the repository at {root} (a branch, tag or sha)")
    fork = history.git(root, "merge-base", commit, head, check=False).strip()
    return head, fork or commit  # unrelated histories: compare with the ref itself


def changed_files(root: Path, old: str) -> list[FileDelta]:
    """The working tree against commit ``old``, tracked files only, paths relative to ``root``."""
    text = history.git(
        root, "-c", "core.quotePath=false", "-c", "diff.renameLimit=2000", "diff", "-U0", "-M", "--full-index",
        "--no-color", "--no-ext-diff", "--no-textconv", "--relative", old, "--",
    )  # fmt: skip
    return parse_diff(text)


# ------------------------------------------------------------------------------------------ symbols


@dataclass(frozen=True, slots=True)
class _Span:
    start: int
    end: int
    content_hash: str
    syntax_hash: str = ""  # formatting, comments and docstrings aside (indexing/syntax.py); "" when not computed


def _symbols(rel: str, data: bytes | None) -> dict[str, _Span] | None:
    """Whole chunks of ``rel``'s text by symbol, with syntax hashes; None when the file is no language we parse."""
    spec = language_for_path(rel, data)
    if spec is None or data is None:
        return None
    chunks = parse_file(data, spec, syntax=True).chunks
    return {c.symbol: _Span(c.start_line, c.end_line, c.content_hash, c.syntax_hash) for c in chunks if c.part == 0}


def _overlapping(spans: dict[str, _Span], ranges: list[tuple[int, int]]) -> set[str]:
    return {s for s, sp in spans.items() if any(sp.start <= end and start <= sp.end for start, end in ranges)}


def map_line(hunks: Sequence[Hunk], old_line: int) -> int:
    """Where old line ``old_line`` lands in the new file (a deleted line: where its hunk now sits)."""
    shift = 0
    for h in hunks:
        old_end = h.old_start + h.old_count - 1
        if h.old_count and h.old_start <= old_line <= old_end:
            return max(1, h.new_start if h.new_count else h.new_start + 1)
        if (h.old_count and old_end < old_line) or (not h.old_count and h.old_start < old_line):
            shift += h.new_count - h.old_count
    return max(1, old_line + shift)


def _line_count(data: bytes | None) -> int:
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


@dataclass(slots=True)
class _FileChanges:
    delta: FileDelta
    old: dict[str, _Span] | None
    new: dict[str, _Span] | None
    changed: dict[str, str] = field(default_factory=dict)  # symbol -> "modified" | "added" | "deleted"
    new_lines: int = 0


def _indexed_symbols(ws: Any, indexed: dict[str, Any], rel: str, data: bytes) -> dict[str, _Span] | None:
    """``rel``'s chunks from the index when it holds exactly these bytes (no second parse), else None."""
    rec = indexed.get(rel)
    if rec is None or getattr(rec, "status", "") not in INDEXED_STATUSES:
        return None
    if getattr(rec, "content_hash", None) != hashlib.blake2b(data, digest_size=HASH_DIGEST_BYTES).hexdigest():
        return None
    return {
        c.symbol: _Span(c.start_line, c.end_line, c.content_hash) for c in ws.indexer.chunks_for(rel) if c.part == 0
    }


def _changes(ws: Any, delta: FileDelta, blobs: BlobReader, max_bytes: int, indexed: dict[str, Any]) -> _FileChanges:
    root: Path = ws.root
    old_data = blobs.read(delta.old_blob, max_bytes=max_bytes) if delta.old_blob and not delta.binary else None
    new_data: bytes | None = None
    if delta.path and not delta.binary:
        try:
            p = root / delta.path
            if p.is_file() and p.stat().st_size <= max_bytes:
                new_data = p.read_bytes()
        except OSError:
            new_data = None
    old = _symbols(delta.old_path, old_data) if delta.old_path else {}
    new = _indexed_symbols(ws, indexed, delta.path, new_data) if delta.path and new_data is not None else None
    if new is None:
        new = _symbols(delta.path, new_data) if delta.path else {}
    fc = _FileChanges(delta, old, new, new_lines=_line_count(new_data))
    if old is None or new is None:
        return fc  # not code we parse (or unreadable): only file-wide memories apply
    old_ranges = [(h.old_start, h.old_start + h.old_count - 1) for h in delta.hunks if h.old_count]
    new_ranges = [(h.new_start, h.new_start + h.new_count - 1) for h in delta.hunks if h.new_count]
    if not delta.path:  # the whole file went
        candidates = set(old)
    elif not delta.old_path:
        candidates = set(new)
    else:
        candidates = _overlapping(old, old_ranges) | _overlapping(new, new_ranges)
    reparsed: dict[str, _Span] | None = None  # the new side with syntax hashes, when the index gave it without
    for s in sorted(candidates):
        before, after = old.get(s), new.get(s)
        if before is None and after is not None:
            fc.changed[s] = "added"
        elif after is None and before is not None:
            fc.changed[s] = "deleted"
        elif before is not None and after is not None and before.content_hash != after.content_hash:
            if not after.syntax_hash:
                reparsed = reparsed if reparsed is not None else (_symbols(delta.path, new_data) or {})
                after = reparsed.get(s, after)
            if not before.syntax_hash or before.syntax_hash != after.syntax_hash:  # a reformat is not a change
                fc.changed[s] = "modified"
    return fc


# --------------------------------------------------------------------------------------------- review


def review(
    ws: Any,
    base: str | None = None,
    *,
    reindex: bool = True,
    dependents: int = MAX_DEPENDENT_ITEMS,
    file_wide: int = MAX_FILE_WIDE_PER_FILE,
) -> ReviewReport:
    """The memories a change walks into (see the module docstring). ``ws``: an open ``Workspace``.

    At most ``dependents`` memories of the one-hop tier are listed, and ``file_wide`` file-wide memories
    per changed file, best first (``dependent_rank``: gotchas first; file-wide: newest first within a
    type); the report keeps the rest apart (``left_out``), to be counted. Memories on changed symbols,
    made stale or losing their code are always listed.

    Raises :class:`GitError` when the workspace is no git work tree, has no commits, or ``base`` names
    no commit.
    """
    started = time.perf_counter()
    root: Path = ws.root
    head, old = resolve_base(root, base)
    deltas = changed_files(root, old)
    # a deleted file leaves the graph with the re-index: read who used it first
    gone_dependents = {d.old_path: ws.graph.dependents(d.old_path) for d in deltas if not d.path}
    if reindex:
        ws.reindex()
    max_bytes = int(ws.settings.index.max_file_bytes)
    with BlobReader(root) as blobs:
        indexed = ws.indexer.files() if reindex else {}  # without a re-index the index may be behind the disk
        per_file = [_changes(ws, d, blobs, max_bytes, indexed) for d in deltas]
    items: dict[str, ReviewItem] = {}
    rest: list[ReviewItem] = []  # past the limits: counted, not listed
    changed: list[ChangedSymbol] = []
    for fc in per_file:
        d = fc.delta
        where = d.path or d.old_path
        changed += [ChangedSymbol(where, s, how) for s, how in fc.changed.items()]
        memories = ws.store.anchored_to_files(
            list(dict.fromkeys(p for p in (d.path, d.old_path) if p)), REVIEWED_STATUSES
        )
        wide: list[ReviewItem] = []
        for m in memories:
            item = _direct_item(fc, m)
            if item is None or m.id in items:
                continue
            if item.reasons == (Reason.CHANGED,) and item.memory.anchor and item.memory.anchor.symbol is None:
                wide.append(item)  # about the whole file: ranked and capped below
            else:
                items[m.id] = item
        wide.sort(key=lambda i: i.memory.created_at, reverse=True)  # newest first within a type
        wide.sort(key=dependent_rank)
        items.update((i.memory.id, i) for i in wide[: max(0, file_wide)])
        rest += wide[max(0, file_wide) :]
    seen = {**items, **{i.memory.id: i for i in rest}}  # a capped file-wide memory is not one hop out either
    hop = sorted(_dependent_items(ws, per_file, gone_dependents, seen), key=dependent_rank)
    for item in hop[: max(0, dependents)]:
        items.setdefault(item.memory.id, item)
    ordered = sorted(items.values(), key=review_rank)
    rest += hop[max(0, dependents) :]
    left_out = tuple({i.memory.id: i for i in rest if i.memory.id not in items}.values())
    return ReviewReport(base or "HEAD", old, head, deltas, changed, ordered, time.perf_counter() - started, left_out)


class Tier(IntEnum):
    """How directly a change concerns a listed memory: the order a review lists them in."""

    MADE_STALE = 0  # the change rewrites or deletes the code it was written against
    CHANGED = 1  # on a changed definition (or one added)
    FILE_WIDE = 2  # about a changed file as a whole
    DEPENDENT = 3  # one hop out, on code that uses what changed


def tier(item: ReviewItem) -> Tier:
    if item.made_stale:
        return Tier.MADE_STALE
    if Reason.DEPENDENT in item.reasons:
        return Tier.DEPENDENT
    anchor = item.memory.anchor
    return Tier.FILE_WIDE if anchor is None or anchor.symbol is None else Tier.CHANGED


def review_rank(item: ReviewItem) -> tuple[int, int, str, int, str]:
    """The order a review lists memories in: by tier (made stale, on changed code, file-wide, one hop out),
    then by type as users see types (gotchas first), then by place."""
    order = TYPE_ORDER.get(str(item.memory.type), len(TYPE_ORDER))
    return (tier(item), order, item.file, item.line, item.memory.id)


def dependent_rank(item: ReviewItem) -> tuple[bool, int, str, int]:
    """One-hop memories, best first: on a definition that names the changed symbol before file-wide ones,
    then by type as users see types (gotchas first), then by place."""
    m = item.memory
    order = TYPE_ORDER.get(str(m.type), len(TYPE_ORDER))
    return (m.anchor is None or m.anchor.symbol is None, order, item.file, item.line)


def _direct_item(fc: _FileChanges, m: Memory) -> ReviewItem | None:
    d = fc.delta
    a = m.anchor
    if a is None:
        return None
    here = d.path or d.old_path
    if a.symbol is None:  # file-wide: about the whole file, so any real change to it is a change to it
        if not d.path:
            return ReviewItem(m, here, a.start_line or 1, (Reason.DELETED,), f"{d.old_path} is deleted")
        if fc.old is not None and fc.new is not None and not fc.changed:
            return None  # only formatting, comments or docstrings changed: nothing the memory is about
        line = min(max(a.start_line or 1, 1), max(fc.new_lines, 1))
        return ReviewItem(m, here, line, (Reason.CHANGED,), f"a file-wide memory of {here}, which this change edits")
    how = fc.changed.get(a.symbol)
    if how is None:
        return None
    name = spoken_symbol(a.symbol, a.file)  # what people call it: a repeated definition's ``#3`` is internal
    new_span = (fc.new or {}).get(a.symbol)
    if how == "deleted" or new_span is None:
        old_span = (fc.old or {}).get(a.symbol)
        old_line = old_span.start if old_span else (a.start_line or 1)
        if d.path:
            line = min(map_line(d.hunks, old_line), max(fc.new_lines, 1))
            return ReviewItem(m, d.path, line, (Reason.CHANGED, Reason.DELETED), f"{name} is deleted")
        return ReviewItem(m, d.old_path, old_line, (Reason.CHANGED, Reason.DELETED), f"{d.old_path} is deleted")
    if how == "added":
        return ReviewItem(m, here, new_span.start, (Reason.CHANGED,), f"{name} is new in this change")
    stale = a.content_hash != new_span.content_hash  # confirmed against the new code: not stale again
    if stale:
        why = f"{name} changed: its code is no longer what this memory was written against"
        return ReviewItem(m, here, new_span.start, (Reason.CHANGED, Reason.STALE), why)
    return ReviewItem(m, here, new_span.start, (Reason.CHANGED,), f"{name} changed")


def _dependent_items(
    ws: Any, per_file: list[_FileChanges], gone: dict[str, dict[str, float]], listed: dict[str, ReviewItem]
) -> list[ReviewItem]:
    # name -> the changed symbols called by it, per dependent file
    wanted: dict[str, dict[str, set[str]]] = {}
    for fc in per_file:
        d = fc.delta
        names: dict[str, set[str]] = {}
        for s, how in fc.changed.items():
            if how == "added" or s.startswith(MODULE_SYMBOL):
                continue  # nothing used a new symbol before; module code has no name to call
            names.setdefault(called_name(s), set()).add(f"{d.path or d.old_path}::{s}")
        if not names:
            continue
        deps = gone.get(d.old_path) if not d.path else ws.graph.dependents(d.path)
        for dep in list(deps or {})[:MAX_DEPENDENT_FILES]:
            if dep in (d.path, d.old_path):
                continue
            slot = wanted.setdefault(dep, {})
            for name, where in names.items():
                slot.setdefault(name, set()).update(where)
    if not wanted:
        return []
    out: list[ReviewItem] = []
    for m in ws.store.anchored_to_files(sorted(wanted), REVIEWED_STATUSES):
        a = m.anchor
        if a is None or m.id in listed:
            continue
        used = ws.graph.idents_used(a.file)
        hit = {n: w for n, w in wanted[a.file].items() if n in used}
        if not hit:
            continue
        line = a.start_line or 1
        if a.symbol is not None:
            chunk = ws.indexer.chunk_by_symbol(a.file, a.symbol)
            if chunk is None:
                continue
            hit = {n: w for n, w in hit.items() if re.search(rf"\b{re.escape(n)}\b", chunk.text)}
            if not hit:
                continue
            line = chunk.start_line
        via = tuple(sorted(set().union(*hit.values())))
        what = "its code" if a.symbol is not None else a.file
        why = f"{what} uses {', '.join(sorted(hit))}, changed in {', '.join(sorted({v.split('::')[0] for v in via}))}"
        out.append(ReviewItem(m, a.file, line, (Reason.DEPENDENT,), why, via))
    return out


# ---------------------------------------------------------------------------------------------- SARIF


def _level(item: ReviewItem) -> str:
    if item.memory.type in WARNING_TYPES or item.made_stale or str(item.memory.status) == CONTESTED:
        return "warning"
    return "note"


def _rule_id(memory_type: str) -> str:
    return f"forewarn.{memory_type}"


def sarif_text(text: str) -> str:
    """Text for a SARIF plain-text message, inert: SARIF reads ``[text](target)`` as an embedded link (§3.11.6),
    so square brackets (and the backslash that escapes them) are escaped, and a memory cannot link anywhere."""
    return re.sub(r"([\\\[\]])", r"\\\1", text)


def to_sarif(report: ReviewReport) -> dict[str, Any]:
    """SARIF 2.1.0: one run, a rule per memory type, a result per shared (non-private) memory."""
    types = list(MemoryType)
    rules = [
        {
            "id": _rule_id(t),
            "name": t.value.replace("_", " ").title().replace(" ", ""),
            "shortDescription": {"text": f"A {t.value.replace('_', ' ')} your team recorded about this code"},
            "fullDescription": {
                "text": f"Forewarn lists the team's {t.value.replace('_', ' ')} memories on code a change touches, on "
                "code that uses it, and those the change makes stale."
            },
            "defaultConfiguration": {"level": "warning" if t in WARNING_TYPES else "note"},
            "help": {"text": RULE_HELP},
        }
        for t in types
    ]
    index = {t.value: n for n, t in enumerate(types)}
    results = []
    for item in report.shared():
        m = item.memory
        mtype = str(m.type)
        key = hashlib.sha256(f"{m.id}\0{item.file}".encode()).hexdigest()[:32]
        result: dict[str, Any] = {
            "ruleId": _rule_id(mtype),
            "level": _level(item),
            "message": {
                "text": f"{mtype.replace('_', ' ')} ({m.status}): {sarif_text(m.text)}\n\n"
                f"From: {sarif_text(origin_of(m).phrase())}. Listed because {sarif_text(item.why)}."
            },
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": quote(item.file), "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": max(1, item.line)},
                    }
                }
            ],
            "partialFingerprints": {SARIF_FINGERPRINT: key},
            "properties": {
                "memoryId": m.id,
                "status": str(m.status),
                "reasons": [str(r) for r in item.reasons],
                "symbol": m.anchor.symbol if m.anchor else None,
                "origin": origin_of(m).to_dict(),
            },
        }
        if mtype in index:
            result["ruleIndex"] = index[mtype]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "Forewarn",
                        "version": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "results": results,
                "properties": {"base": report.base, "baseCommit": report.base_commit, "headCommit": report.head_commit},
            }
        ],
    }
