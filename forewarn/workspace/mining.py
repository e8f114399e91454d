"""Mining: memories proposed from the repository's history and its warning comments (no LLM, no network).

Each commit is classified by the rules below — every pattern and threshold is a named constant with
its reason. Noise is counted by reason; what is left becomes a ``dead_end`` (a revert), an
``error_pattern``/``gotcha`` (a fix whose body explains the cause or the trap) or a ``decision`` (a
body that argues a choice). Symbols fixed again and again become one ``gotcha`` each (a hot spot), and
warning comments at HEAD (``HACK``, ``XXX``, "do not …") become ``gotcha``\\ s from source ``comment``.

Anchoring: a commit's hunks are mapped to the symbols they touched at that commit (the file's blob at
that commit, parsed with :func:`parse_source`), then followed to HEAD through the renames seen in the
log; a symbol still present at HEAD wins, else its file, else the suggestion stays workspace-wide —
``provenance["anchor"]`` says which. Everything is handed to ``Workspace.add_suggestions``, which
dedupes by fingerprint, so re-mining is idempotent.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tree_sitter import Node, Parser

from forewarn.indexing.languages import compiled, language_for_path
from forewarn.indexing.parse import parse_source
from forewarn.indexing.records import Chunk
from forewarn.memory.suggestions import ANCHOR_FILE, ANCHOR_SYMBOL, ANCHOR_WORKSPACE, Suggestion
from forewarn.memory.validation import MAX_TEXT_CHARS
from forewarn.memory.vocabulary import MemorySource, MemoryType
from forewarn.workspace import history
from forewarn.workspace.history import BlobReader, CommitRecord, GitError

if TYPE_CHECKING:
    from forewarn.workspace.engine import Workspace

log = logging.getLogger(__name__)

STATE_LAST_MINED = "last_mined_commit"  # mining_state key: HEAD at the end of the last complete run
# mining_state key: symbols fixed fewer than HOTSPOT_MIN_FIXES times so far, with those fixes (JSON), so an
# incremental run can still find a hot spot whose fixes span several runs
STATE_FIX_HISTORY = "fix_history"

# --- noise: each rule's pattern, with why it carries no lesson --------------------------------------
NOISE_MERGE = "merge"  # a merge repeats its parents' changes; its message is "Merge branch …"
NOISE_BOT = "dependency-bot"  # automated dependency updates carry no team lesson
BOT_AUTHOR = re.compile(r"\[bot\]|dependabot|renovate|greenkeeper|pyup|snyk-bot|github-actions", re.IGNORECASE)
NOISE_VERSION = "version-bump"  # releases and version bumps: a number changed, nothing learned
VERSION_SUBJECT = re.compile(
    r"^\s*(v?\d+(\.\d+)+\S*\s*$|(bump(ed)?|release[ds]?|releasing|prepare|preparing)\b.*\d+\.\d+"
    r"|bump(ed)? (the )?version|version bump|new version|tag(ged)? v?\d)",
    re.IGNORECASE,
)
NOISE_COSMETIC = "typo-format-lint"  # typo, formatting or lint fixes do not change behaviour
COSMETIC_SUBJECT = re.compile(
    r"\b(typos?|spelling|misspell\w*|whitespace|format(ting|ted)?|reformat\w*|lint(ing|er)?|flake8|pep ?8|"
    r"pyflakes|pylint|black|isort|ruff|prettier|eslint|trailing spaces?|indentation|docstrings?|comments?|"
    r"wording|grammar)\b",
    re.IGNORECASE,
)
NOISE_CHANGELOG = "changelog-only"  # release notes restate other commits
CHANGELOG_PATH = re.compile(r"(^|/)(CHANGE(S|LOG)|HISTORY|NEWS|RELEASE[-_]?NOTES|AUTHORS|CONTRIBUTORS)(\.\w+)?$", re.I)
NOISE_DOCS = "docs-only"  # documentation changes teach readers of the docs, not of the code
DOCS_PATH = re.compile(r"(^|/)(docs?|documentation)/|\.(rst|md|adoc)$|(^|/)\.github/", re.IGNORECASE)
NOISE_EMPTY = "empty-body"  # a subject alone rarely says why; it still counts toward hot spots
MIN_BODY_WORDS = 6  # fewer words after trailers are stripped is an empty body ("Fixes #12.")
NOISE_REAPPLIED = "revert-of-revert"  # the change is back: what was undone was no dead end after all
NOISE_GIANT = "giant-commit"  # over history.GIANT_COMMIT_FILES files: a mass change, about no one symbol
NOISE_NO_LESSON = "no-lesson"  # a body that neither fixes, reverts nor argues: a plain change log entry

# --- lessons ----------------------------------------------------------------------------------------
REVERT_SUBJECT = re.compile(r'^\s*revert(s|ed)?\b[:\s]*"?(?P<what>.*?)"?\s*$', re.IGNORECASE)
REVERT_BODY_LINE = re.compile(r"^This reverts commit (?P<sha>[0-9a-f]{7,40})\.?\s*$", re.IGNORECASE | re.MULTILINE)
# a fix: the subject or the body says so
FIX_WORDS = re.compile(
    r"\b(fix(e[sd])?|bug(s|fix)?|crash(es|ed)?|regression|broken|breaks?|hotfix|patch(es|ed)?|"
    r"workaround|resolves? #?\d+|closes? #\d+|handle[sd]?|prevents?|avoids?|fail(s|ed|ing|ures?)?)\b",
    re.IGNORECASE,
)
# a "fix" of documentation changes no behaviour: not a fix for hot spots or error patterns
DOCS_SUBJECT = re.compile(r"\b(docs?|documentation|readme|docstrings?|changelog|comments?)\b", re.IGNORECASE)
# the body explains what went wrong (cause or trap): only such a fix is worth a memory of its own
CAUSE_WORDS = re.compile(
    r"\b(because|caused by|due to|the (problem|issue|bug|cause) (is|was)|otherwise|would|fails?|failed|"
    r"failing|raises?|raised|leads? to|led to|result(s|ed)? in|race|deadlock|leak(s|ed)?|when\b.+\b(is|are|was)|"
    r"if\b.+\b(is|are)|unless|incorrectly|wrongly|never|always)\b",
    re.IGNORECASE,
)
# a fix whose body names an error is an error pattern; other explained fixes are gotchas
ERROR_WORDS = re.compile(
    r"\b(\w+(Error|Exception|Warning)|exception|traceback|raises?|raised|error|segfault|crash(es|ed)?|"
    r"timeout|hangs?|infinite loop)\b"
)
# rationale: the body argues a choice
RATIONALE_WORDS = re.compile(
    r"\b(because|instead of|rather than|we (chose|choose|decided|prefer)|in fav(ou)?r of|trade-?offs?|"
    r"the reason|so that|never|must|must not|don't|do not|should not|shouldn't|deliberately|intentionally|"
    r"on purpose)\b",
    re.IGNORECASE,
)
TRAILER = re.compile(
    r"^(Signed-off-by|Co-authored-by|Co-Authored-By|Change-Id|Reviewed-by|Reviewed-on|Acked-by|Tested-by|"
    r"Reported-by|Suggested-by|Cc|Helped-by|Cherry-picked-from|Bug|Fixes|Closes|Refs|See-also|"
    r"Differential Revision|git-svn-id)\s*:.*$",
    re.IGNORECASE,
)

# git's list of conflicted files, left in merge and cherry-pick messages: bookkeeping, not a reason
CONFLICTS_HEADER = re.compile(r"^#?\s*Conflicts:\s*$")

# --- anchoring ---------------------------------------------------------------------------------------
# a commit touching more symbols than this is about none of them in particular: anchor it to its files
MAX_SYMBOL_ANCHORS = 3
MAX_FILE_ANCHORS = 3  # … and touching more files than this: one workspace-wide suggestion
HOTSPOT_MIN_FIXES = 3  # fixed this many times (distinct commits) is a pattern, not bad luck
HOTSPOT_LISTED = 8  # commits listed in a hot spot's text (all are in its provenance)
FIX_HISTORY_SUBJECT_CHARS = 120  # a remembered fix's subject, clipped: the state stays small on long histories
MAX_PARSE_BYTES = 1 << 20  # a blob larger than this is generated or data: anchored to its file only
PARSE_CACHE = 64  # parsed blobs kept (a hot file is parsed once per version that a lesson touched)
MODULE_SYMBOL = "<module>"  # top-level code ("<module>", "<module>#2" …): anchored to its file


def _load_fix_history(ws: Workspace, renames: dict[str, str]) -> dict[tuple[str, str], list[dict[str, str]]]:
    """The fixes remembered from earlier runs, their paths followed through this run's renames."""
    try:
        data = json.loads(ws.mining_state(STATE_FIX_HISTORY) or "{}")
    except ValueError:
        log.warning("mining state %s is not JSON: earlier fixes are not counted toward hot spots", STATE_FIX_HISTORY)
        return {}
    out: dict[tuple[str, str], list[dict[str, str]]] = {}
    for where, refs in data.items() if isinstance(data, dict) else ():
        path, _, symbol = str(where).partition("::")
        if symbol and isinstance(refs, list):
            out[(renames.get(path, path), symbol)] = [r for r in refs if isinstance(r, dict) and "sha" in r]
    return out


def _dump_fix_history(fixes: dict[tuple[str, str], list[dict[str, str]]]) -> str:
    """Symbols not yet hot spots, with their fixes (a hot spot, once proposed, is never proposed again)."""
    kept = {
        f"{path}::{symbol}": [{**r, "subject": r["subject"][:FIX_HISTORY_SUBJECT_CHARS]} for r in refs]
        for (path, symbol), refs in fixes.items()
        if len({r["sha"] for r in refs}) < HOTSPOT_MIN_FIXES
    }
    return json.dumps(kept, separators=(",", ":"))


# --- warning comments at HEAD --------------------------------------------------------------------------
WARNING_TAG = re.compile(r"\b(HACK|XXX|FIXME|WARNING|DANGER|CAUTION)\b")
WARNING_PHRASE = re.compile(r"\b(do not|don't|must( not)?|never)\b", re.IGNORECASE)
COMMENT_PREFILTER = re.compile(rb"HACK|XXX|FIXME|WARNING|DANGER|CAUTION|[Dd]o not|[Dd]on't|[Mm]ust|[Nn]ever")
COMMENT_MARKERS = re.compile(r"^\s*(/\*+|\*+/|\*|//+|#+:?|--|;+|<!--|-->)\s?|\s*\*+/\s*$")
# comments that talk to tools, not people ("# type: ignore[…]  # urllib3 stubs don't …")
DIRECTIVE = re.compile(
    r"^(type:\s*ignore|noqa|pragma|pylint:|mypy:|fmt:|isort:|eslint-|prettier-ignore|nolint|NOLINT|clang-format|"
    r"istanbul|ts-(ignore|expect-error|nocheck)|@ts-|rubocop:|go:|nosec)",
    re.IGNORECASE,
)
MIN_COMMENT_WORDS = 3  # "XXX" alone, or "# must", says nothing
MAX_COMMENT_BYTES = 1 << 20  # files larger than this are not scanned for comments (generated)


@dataclass(slots=True)
class MineReport:
    commits_read: int = 0
    commits_total: int = 0
    suggestions: dict[str, int] = field(default_factory=dict)  # proposed, by type
    noise: dict[str, int] = field(default_factory=dict)  # commits skipped, by reason
    anchors: dict[str, int] = field(default_factory=dict)  # symbol | file | workspace
    skipped_files: dict[str, int] = field(default_factory=dict)  # binary | vendored
    added: int = 0
    known: int = 0
    dismissed_before: int = 0
    comments_scanned: int = 0  # files scanned for warning comments
    head: str = ""
    since: str | None = None  # the commit mining started after (incremental) or --since
    notes: list[str] = field(default_factory=list)  # shallow clone, rewritten history…
    cancelled: bool = False
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "commits_read": self.commits_read,
            "commits_total": self.commits_total,
            "suggestions": dict(self.suggestions),
            "noise": dict(self.noise),
            "anchors": dict(self.anchors),
            "skipped_files": dict(self.skipped_files),
            "added": self.added,
            "known": self.known,
            "dismissed_before": self.dismissed_before,
            "comments_scanned": self.comments_scanned,
            "head": self.head,
            "since": self.since,
            "notes": list(self.notes),
            "cancelled": self.cancelled,
            "seconds": round(self.seconds, 3),
        }


# --- classification (pure) ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verdict:
    """One commit: a lesson of ``type`` with ``text``, or noise for ``reason``; ``fix`` counts toward hot spots."""

    kind: str  # "revert" | "fix" | "decision" | "noise"
    type: MemoryType | None = None
    text: str = ""
    reason: str = ""  # noise reason
    fix: bool = False


def strip_trailers(body: str) -> str:
    """The body without trailer lines (Signed-off-by, Co-authored-by, Change-Id, …) and conflict lists."""
    lines: list[str] = []
    in_conflicts = False
    for line in body.splitlines():
        if CONFLICTS_HEADER.match(line):
            in_conflicts = True
            continue
        if in_conflicts and (line.startswith(("\t", "#\t", "  ")) or not line.strip()):
            continue
        in_conflicts = False
        if not TRAILER.match(line.strip()):
            lines.append(line)
    return "\n".join(lines).strip()


def classify(commit: CommitRecord) -> Verdict:
    """One commit's verdict, by the rules above, in order: noise first, then revert, fix, rationale."""
    subject = commit.subject.strip()
    body = strip_trailers(commit.body)
    is_fix = (
        bool(FIX_WORDS.search(subject)) and not COSMETIC_SUBJECT.search(subject) and not DOCS_SUBJECT.search(subject)
    )
    if commit.is_merge:
        return Verdict("noise", reason=NOISE_MERGE)
    if BOT_AUTHOR.search(commit.author):
        return Verdict("noise", reason=NOISE_BOT)
    if VERSION_SUBJECT.search(subject):
        return Verdict("noise", reason=NOISE_VERSION)
    paths = commit.paths()
    if paths and all(CHANGELOG_PATH.search(p) for p in paths):
        return Verdict("noise", reason=NOISE_CHANGELOG)
    if paths and all(DOCS_PATH.search(p) for p in paths):
        return Verdict("noise", reason=NOISE_DOCS)
    revert = REVERT_SUBJECT.match(subject)
    if revert:
        reason = REVERT_BODY_LINE.sub("", body).strip()
        what = revert.group("what").strip().rstrip(".") or "a change"
        if REVERT_SUBJECT.match(what):
            return Verdict("noise", reason=NOISE_REAPPLIED)
        text = f"Tried {what}, reverted: {reason}" if reason else f"Tried {what}, reverted (no reason given)."
        return Verdict("revert", MemoryType.DEAD_END, _clip(text))
    if commit.giant:
        return Verdict("noise", reason=NOISE_GIANT)
    if COSMETIC_SUBJECT.search(subject) and len(body.split()) < MIN_BODY_WORDS * 3:
        return Verdict("noise", reason=NOISE_COSMETIC)
    if len(body.split()) < MIN_BODY_WORDS:
        return Verdict("noise", reason=NOISE_EMPTY, fix=is_fix)
    text = _clip(f"{subject}\n\n{body}")
    if (is_fix or (FIX_WORDS.search(body) and not DOCS_SUBJECT.search(subject))) and CAUSE_WORDS.search(body):
        kind = MemoryType.ERROR_PATTERN if ERROR_WORDS.search(f"{subject}\n{body}") else MemoryType.GOTCHA
        return Verdict("fix", kind, text, fix=True)
    if RATIONALE_WORDS.search(body):
        return Verdict("decision", MemoryType.DECISION, text, fix=is_fix)
    return Verdict("noise", reason=NOISE_NO_LESSON, fix=is_fix)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT_CHARS else text[: MAX_TEXT_CHARS - 1].rstrip() + "…"


# --- anchoring -----------------------------------------------------------------------------------------


class SymbolFinder:
    """Symbols a set of new-side line ranges touched in a blob (parsed once, cached by blob id)."""

    def __init__(self, blobs: BlobReader) -> None:
        self._blobs = blobs
        self._cache: OrderedDict[str, list[Chunk] | None] = OrderedDict()

    def chunks(self, path: str, blob: str) -> list[Chunk] | None:
        if blob in self._cache:
            self._cache.move_to_end(blob)
            return self._cache[blob]
        spec = language_for_path(path)
        chunks: list[Chunk] | None = None
        if spec is not None and blob:
            data = self._blobs.read(blob, max_bytes=MAX_PARSE_BYTES)
            if data is not None:
                chunks = parse_source(path, data, spec).chunks
        self._cache[blob] = chunks
        if len(self._cache) > PARSE_CACHE:
            self._cache.popitem(last=False)
        return chunks

    def touched(self, path: str, blob: str, hunks: Iterable[tuple[int, int]]) -> list[str]:
        """Innermost named symbols overlapping the hunks, in file order; [] when only module code was touched."""
        chunks = self.chunks(path, blob)
        if not chunks:
            return []
        return touched_symbols(chunks, hunks)


def touched_symbols(chunks: list[Chunk], hunks: Iterable[tuple[int, int]]) -> list[str]:
    found: dict[str, None] = {}
    for start, end in hunks:
        best: Chunk | None = None
        for c in chunks:
            if c.symbol.startswith(MODULE_SYMBOL) or c.end_line < start or c.start_line > end:
                continue
            if best is None or (c.end_line - c.start_line) < (best.end_line - best.start_line):
                best = c
        if best is not None:
            found.setdefault(best.symbol)
    return list(found)


class HeadIndex:
    """What exists at HEAD: the workspace index's files and symbols."""

    def __init__(self, ws: Workspace) -> None:
        self._ws = ws
        self.files = set(ws.indexer.files())

    def has_file(self, path: str) -> bool:
        return path in self.files or (self._ws.root / path).is_file()

    def has_symbol(self, path: str, symbol: str) -> bool:
        return path in self.files and self._ws.indexer.chunk_by_symbol(path, symbol) is not None


@dataclass(slots=True)
class Anchored:
    file: str | None
    symbol: str | None
    anchor: str
    then: str  # "path::symbol" at the commit


def follow(path: str, symbol: str | None, renames: dict[str, str], head: HeadIndex) -> Anchored:
    """A (path, symbol) at some commit, followed to HEAD: symbol if it still exists, else file, else workspace."""
    now = renames.get(path, path)
    then = f"{path}::{symbol}" if symbol else path
    if symbol and head.has_symbol(now, symbol):
        return Anchored(now, symbol, ANCHOR_SYMBOL, then)
    if head.has_file(now):
        return Anchored(now, None, ANCHOR_FILE, then)
    return Anchored(None, None, ANCHOR_WORKSPACE, then)


def record_renames(commit: CommitRecord, renames: dict[str, str]) -> None:
    """Commits arrive newest first: a rename old→new maps old to wherever new is at HEAD."""
    for f in commit.files:
        if f.renamed:
            renames[f.old_path] = renames.get(f.path, f.path)


def commit_ref(commit: CommitRecord) -> dict[str, str]:
    return {"sha": commit.sha, "author": commit.author, "date": commit.date, "subject": commit.subject}


def anchors_for(commit: CommitRecord, finder: SymbolFinder, renames: dict[str, str], head: HeadIndex) -> list[Anchored]:
    """Where one commit's lesson belongs at HEAD: its symbols (a few), else its files (a few), else the workspace."""
    pairs: list[tuple[str, str]] = []
    files: list[str] = []
    code = [f for f in commit.files if f.path and not (DOCS_PATH.search(f.path) or CHANGELOG_PATH.search(f.path))]
    for f in code or commit.files:  # a lesson about code is not about the release notes that mention it
        if not f.path:
            continue
        files.append(f.path)
        for symbol in finder.touched(f.path, f.blob, f.hunks):
            pairs.append((f.path, symbol))
    if pairs and len(pairs) <= MAX_SYMBOL_ANCHORS:
        return _dedupe([follow(p, s, renames, head) for p, s in pairs])
    if files and len(files) <= MAX_FILE_ANCHORS:
        return _dedupe([follow(p, None, renames, head) for p in files])
    return [Anchored(None, None, ANCHOR_WORKSPACE, "")]


def _dedupe(items: list[Anchored]) -> list[Anchored]:
    seen: dict[tuple[str | None, str | None], Anchored] = {}
    for a in items:
        seen.setdefault((a.file, a.symbol), a)
    return list(seen.values())


def to_iso_utc(date: str) -> str:
    """git's ISO-8601 strict date (with its offset) as UTC ``YYYY-MM-DDTHH:MM:SSZ``."""
    from datetime import UTC, datetime

    try:
        return datetime.fromisoformat(date).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return date


def commit_suggestions(commit: CommitRecord, verdict: Verdict, anchors: list[Anchored]) -> list[Suggestion]:
    out: list[Suggestion] = []
    assert verdict.type is not None
    for a in anchors:
        where = f"{a.file}::{a.symbol}" if a.symbol else (a.file or "")
        fingerprint = f"{verdict.kind}:{commit.sha}" + (f":{where}" if where else "")
        out.append(
            Suggestion(
                fingerprint=fingerprint,
                type=verdict.type,
                text=verdict.text,
                source=MemorySource.COMMIT,
                created_at=to_iso_utc(commit.date),
                file=a.file,
                symbol=a.symbol,
                provenance={"commits": [commit_ref(commit)], "anchor": a.anchor, "kind": verdict.kind, "then": a.then},
            )
        )
    return out


def hotspot_suggestions(fixes: dict[tuple[str, str], list[dict[str, str]]]) -> list[Suggestion]:
    """One gotcha per symbol fixed in at least HOTSPOT_MIN_FIXES distinct commits, newest fix first."""
    out: list[Suggestion] = []
    for (path, symbol), commits in fixes.items():
        unique = list({c["sha"]: c for c in commits}.values())
        if len(unique) < HOTSPOT_MIN_FIXES:
            continue
        unique.sort(key=lambda c: c["date"], reverse=True)
        lines = [f"- {c['date'][:10]} {c['sha'][:7]} {c['subject']}" for c in unique[:HOTSPOT_LISTED]]
        more = f"\n- … and {len(unique) - HOTSPOT_LISTED} more" if len(unique) > HOTSPOT_LISTED else ""
        text = _clip(
            f"{symbol} has been fixed {len(unique)} times; read its fix history before changing it:\n"
            + "\n".join(lines)
            + more
        )
        out.append(
            Suggestion(
                fingerprint=f"hotspot:{path}::{symbol}",
                type=MemoryType.GOTCHA,
                text=text,
                source=MemorySource.COMMIT,
                created_at=to_iso_utc(unique[0]["date"]),
                file=path,
                symbol=symbol,
                provenance={"commits": unique, "anchor": ANCHOR_SYMBOL, "kind": "hotspot"},
            )
        )
    return out


# --- warning comments at HEAD ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WarningComment:
    line: int  # first line, 1-based
    text: str  # without comment markers
    kind: str  # the tag (HACK, XXX, …) or the phrase ("do not", "must", "never")


def warning_comments(path: str, source: bytes) -> list[tuple[WarningComment, str | None]]:
    """Warning comments in one file with the innermost symbol enclosing each (None: module level)."""
    spec = language_for_path(path)
    if spec is None or len(source) > MAX_COMMENT_BYTES or not COMMENT_PREFILTER.search(source):
        return []
    language, _query = compiled(spec)
    tree = Parser(language).parse(source)
    blocks = _comment_blocks(_comment_nodes(tree.root_node), source)
    if not blocks:
        return []
    chunks = parse_source(path, source, spec).chunks
    out: list[tuple[WarningComment, str | None]] = []
    for first, last, raw in blocks:
        text = " ".join(
            part for part in (COMMENT_MARKERS.sub("", line).strip() for line in raw.splitlines()) if part
        ).strip()
        tag = WARNING_TAG.search(text)
        phrase = WARNING_PHRASE.search(text)
        if (tag is None and phrase is None) or len(text.split()) < MIN_COMMENT_WORDS:
            continue
        kind = tag.group(1) if tag else phrase.group(1).lower() if phrase else ""
        out.append((WarningComment(first, _clip(text), kind), _enclosing(chunks, first, last)))
    return out


def _comment_nodes(root: Node) -> Iterator[Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        if "comment" in node.type:
            yield node
            continue
        stack.extend(reversed(node.children))


def _comment_blocks(nodes: Iterable[Node], source: bytes) -> list[tuple[int, int, str]]:
    """Comments as (first line, last line, text): adjacent comments on lines of their own joined into one
    block; tool directives (``# type: ignore``, ``# noqa`` …) left out."""
    blocks: list[list[Any]] = []
    alone_before = False
    for node in nodes:
        first, last = node.start_point.row + 1, node.end_point.row + 1
        text = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
        if DIRECTIVE.match(COMMENT_MARKERS.sub("", text).strip()):
            alone_before = False
            continue
        line_start = source.rfind(b"\n", 0, node.start_byte) + 1
        alone = not source[line_start : node.start_byte].strip()  # not trailing code on its line
        if blocks and alone and alone_before and blocks[-1][1] == first - 1:
            blocks[-1][1] = last
            blocks[-1][2] += "\n" + text
        else:
            blocks.append([first, last, text])
        alone_before = alone
    return [(int(b[0]), int(b[1]), str(b[2])) for b in blocks]


def _enclosing(chunks: list[Chunk], first: int, last: int) -> str | None:
    """The innermost named symbol holding the comment, or the one right below it (a comment on a def)."""
    named = [c for c in chunks if not c.symbol.startswith(MODULE_SYMBOL)]
    inside = [c for c in named if c.start_line <= first and last <= c.end_line]
    if inside:
        return min(inside, key=lambda c: c.end_line - c.start_line).symbol
    below = [c for c in named if last < c.start_line <= last + 1]
    return below[0].symbol if below else None


def comment_suggestions(
    ws: Workspace, paths: Iterable[str], head: HeadIndex, created_at: str, sha: str
) -> list[Suggestion]:
    out: list[Suggestion] = []
    for path in paths:
        try:
            source = (ws.root / path).read_bytes()
        except OSError:
            continue
        for comment, symbol in warning_comments(path, source):
            anchor = ANCHOR_SYMBOL if symbol and head.has_symbol(path, symbol) else ANCHOR_FILE
            symbol = symbol if anchor == ANCHOR_SYMBOL else None
            digest = hashlib.sha1(comment.text.encode("utf-8")).hexdigest()
            where = f"{path}::{symbol}" if symbol else path
            out.append(
                Suggestion(
                    fingerprint=f"comment:{where}:{digest}",
                    type=MemoryType.GOTCHA,
                    text=comment.text,
                    source=MemorySource.COMMENT,
                    created_at=created_at,
                    file=path,
                    symbol=symbol,
                    provenance={"anchor": anchor, "kind": comment.kind, "line": comment.line, "head": sha},
                )
            )
    return out


# --- the run ------------------------------------------------------------------------------------------------


DATE_LIKE = re.compile(r"^\d{4}-\d{2}(-\d{2})?([ T].*)?$|\bago$|^(yesterday|today)$", re.IGNORECASE)


def mine(
    ws: Workspace,
    *,
    since: str | None = None,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancel: threading.Event | None = None,
) -> MineReport:
    """Mine the history since the last run (or ``since``: a commit or a date) and propose suggestions.

    Raises :class:`GitError` (a ``ForewarnError``) when the workspace is not a git repository or has
    no commits. Only an unrestricted, uncancelled run moves the remembered last mined commit.
    """
    started = time.perf_counter()
    root = ws.root
    head_sha = history.head_commit(root)
    report = MineReport(head=head_sha)
    if history.is_shallow(root):
        report.notes.append("shallow clone: mining only the commits this clone has (git fetch --unshallow for all)")
    revs, incremental = _revs(ws, head_sha, since, report)
    if incremental and revs == []:
        report.seconds = time.perf_counter() - started
        return report
    if limit is not None and limit < 1:
        raise GitError("--limit must be at least 1")
    report.commits_total = history.count_commits(root, revs)
    if limit is not None:
        report.commits_total = min(report.commits_total, limit)
    ws.reindex()  # incremental: suggestions anchor to the code as it is, and memories are reconciled with it
    head = HeadIndex(ws)
    renames: dict[str, str] = {}
    fixes: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    suggestions: list[Suggestion] = []
    noise: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    changed_paths: set[str] = set()
    with BlobReader(root) as blobs:
        finder = SymbolFinder(blobs)
        commits = history.iter_commits(root, revs, limit=limit)
        try:
            for commit in commits:
                if cancel is not None and cancel.is_set():
                    report.cancelled = True
                    break
                report.commits_read += 1
                skipped["binary"] += commit.binary_files
                skipped["vendored"] += commit.vendored_files
                changed_paths.update(renames.get(p, p) for p in commit.paths())
                verdict = classify(commit)
                if verdict.kind == "noise":
                    noise[verdict.reason] += 1
                if verdict.kind != "noise" or verdict.fix:
                    anchors = anchors_for(commit, finder, renames, head)
                    if verdict.kind != "noise":
                        suggestions.extend(commit_suggestions(commit, verdict, anchors))
                    if verdict.fix:
                        for a in anchors:
                            if a.anchor == ANCHOR_SYMBOL and a.file and a.symbol:
                                fixes[(a.file, a.symbol)].append(commit_ref(commit))
                record_renames(commit, renames)
                if progress is not None:
                    progress(report.commits_read, report.commits_total)
        finally:
            commits.close()
    if report.cancelled:
        report.seconds = time.perf_counter() - started
        return report
    if incremental:  # fixes of earlier runs, below the threshold then, still count
        for key, refs in _load_fix_history(ws, renames).items():
            fixes[key] = refs + fixes.get(key, [])
    suggestions.extend(hotspot_suggestions(fixes))
    scan = sorted(head.files) if not incremental else sorted(p for p in changed_paths if p in head.files)
    report.comments_scanned = len(scan)
    suggestions.extend(comment_suggestions(ws, scan, head, to_iso_utc(history.commit_date(root, head_sha)), head_sha))
    report.suggestions = dict(Counter(str(s.type) for s in suggestions))
    report.anchors = dict(Counter(str(s.provenance.get("anchor")) for s in suggestions))
    report.noise = dict(noise)
    report.skipped_files = {k: v for k, v in skipped.items() if v}
    outcome = ws.add_suggestions(suggestions)
    report.added, report.known, report.dismissed_before = outcome.added, outcome.known, outcome.dismissed_before
    if since is None and limit is None:
        ws.set_mining_state(STATE_FIX_HISTORY, _dump_fix_history(fixes))
        ws.set_mining_state(STATE_LAST_MINED, head_sha)
    report.seconds = time.perf_counter() - started
    return report


def _revs(ws: Workspace, head_sha: str, since: str | None, report: MineReport) -> tuple[list[str], bool]:
    """The revisions to read, and whether this is an incremental run ([] and True: nothing new)."""
    root = ws.root
    if since is not None:
        commit = history.resolve_commit(root, since)
        if commit is not None:
            report.since = commit
            return [f"{commit}..{head_sha}"], False
        if not DATE_LIKE.search(since.strip()):
            raise GitError(f"--since {since!r} is neither a commit nor a date (YYYY-MM-DD, '2 weeks ago')")
        report.since = since
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", since.strip()):
            since = f"{since.strip()} 00:00:00"  # git fills a bare date with the current time of day
        return [f"--since={since}", head_sha], False
    last = ws.mining_state(STATE_LAST_MINED)
    if not last:
        return [head_sha], False
    if last == head_sha:
        report.since = last
        return [], True
    if history.resolve_commit(root, last) is None or not history.is_ancestor(root, last, head_sha):
        report.notes.append(
            f"history was rewritten (the last mined commit {last[:12]} is gone or no longer an ancestor of HEAD): "
            "mining it all again; what was already proposed is not proposed twice"
        )
        return [head_sha], False
    report.since = last
    return [f"{last}..{head_sha}"], True


__all__ = ["STATE_LAST_MINED", "MineReport", "Verdict", "classify", "mine", "strip_trailers", "warning_comments"]
