"""Mining: lessons proposed from the repository's history and its warning comments (no LLM, no network).

It proposes only what is worth an interruption; weaker signals are counted by name and kept for track records and
ranking, not proposed. One run reads the commits since the last run, newest first (:func:`history.iter_commits`),
and for each:

- classifies it (:func:`mine_rules.classify`): noise is counted by rule name; what is left is a dead
  end (a revert with its reason), an error pattern or gotcha (a fix that explains its cause) or a
  decision (a body that argues a choice); a commit a later one reverted is withdrawn instead; a lesson about
  a runtime the project no longer supports (:mod:`mine_runtime`) is history;
- places it (:func:`mine_anchors.place`): one suggestion per commit, on the symbol its message names,
  else the one whose logic it changed most, followed to HEAD (past ``@overload`` stubs); a lesson on a whole
  file, on a class or a function as broad as one, on typing-only code, or whose lines are mostly gone from its
  symbol at HEAD (:func:`mine_code.survival`) proposes nothing; a diffuse commit is workspace-wide only when its
  message states a repository-wide rule;
- counts real fixes (not typing, docs, formatting, tests, features, dependencies, merges; cherry-picks and
  backports once) on the symbols whose logic they changed. A symbol whose standing fixes make a pattern
  (:func:`is_pattern`) becomes one hot-spot gotcha; every lesson carries its **track record** — the fixes that
  touched its code after it, and when (``provenance["track"]``), which sets its confidence (fixed since: higher;
  settled for years: lower).

Warning comments at HEAD become gotchas from source ``comment`` (:mod:`mine_comments`). With
``mining.hold_back`` (the default) a run proposes what blind judges found reliable: dead ends and the commit lessons
:mod:`mine_score` scores at least ``MIN_LESSON_SCORE``, with the hot spots on their symbols folded in; the other
lessons, the warning comments (already written beside the code they warn about) and the hot spots that join no
lesson (a count of fixes, no why) are counted in ``MineReport.held_back`` and proposed by ``forewarn mine --all``.
Everything proposed is handed to ``Workspace.add_suggestions`` (idempotent by fingerprint); an incremental run
withdraws suggestions of commits it finds reverted, and dead ends whose change it finds landed again, and brings
earlier lessons' track records up to date.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forewarn.memory.origin import lesson_commit
from forewarn.memory.suggestions import (
    ANCHOR_FILE,
    ANCHOR_SYMBOL,
    ANCHOR_WORKSPACE,
    TRACK_FIX_DATES,
    Suggestion,
    claimed,
    track_factor,
    track_of,
)
from forewarn.memory.vocabulary import MemorySource
from forewarn.workspace import history, mine_code, mine_kept
from forewarn.workspace.history import BlobReader, CommitRecord, GitError
from forewarn.workspace.mine_anchors import (
    Anchored,
    Placement,
    SymbolFinder,
    about_other_symbol,
    place,
    record_renames,
)
from forewarn.workspace.mine_comments import comment_suggestions
from forewarn.workspace.mine_copied import CopiedFiles, drop_copied
from forewarn.workspace.mine_fix_state import STATE_FIX_HISTORY, dump_fix_history, load_fix_history
from forewarn.workspace.mine_fixes import (
    EARLIER_RUN,
    MIN_FIX_LOGIC_LINES,
    MIN_SURVIVAL,
    FixPool,
    FixRef,
    broad,
    confidence,
    hotspot_suggestions,
    main_targets,
    track,
)
from forewarn.workspace.mine_generated import marked_paths, own_files
from forewarn.workspace.mine_head import HeadIndex
from forewarn.workspace.mine_hold import hold_back_found, hold_back_hot_spots
from forewarn.workspace.mine_lessons import (
    clean_subject,
    dead_end_headline,
    decision_headline,
    fix_headline,
    lesson_text,
    vague,
)
from forewarn.workspace.mine_merge import on_remembered_symbols, one_per_symbol, record_beside
from forewarn.workspace.mine_report import HeldBack, MineReport
from forewarn.workspace.mine_reverts import (
    ABBREVIATED_SHA,
    LEADING_SHA,
    PARTIAL_REVERT,
    back_at_head,
    file_lines,
    landed_key,
    partly_undone,
    subject_key,
    undone,
    undone_key,
    undone_thing,
)
from forewarn.workspace.mine_reworded import settle_reworded
from forewarn.workspace.mine_rules import (
    MERGE_SUBJECT,
    TOOLING_PATH,
    Noise,
    Verdict,
    VerdictKind,
    classify,
    in_test_module,
    is_product_code,
    merged_title,
    revert_target,
    reverted_shas,
    states_repo_wide_rule,
)
from forewarn.workspace.mine_runtime import Runtimes, runtimes
from forewarn.workspace.mine_score import CommitShape, lesson_counts, lesson_score
from forewarn.workspace.mine_squash import SQUASH_ITEM

if TYPE_CHECKING:
    from forewarn.workspace.engine import Workspace

log = logging.getLogger(__name__)

STATE_LAST_MINED = "last_mined_commit"  # mining_state key: HEAD at the end of the last complete run
SHA_ONLY = re.compile(r"^[0-9a-f]{7,64}$")  # "Revert 60ef759": the reverted commit named by its id alone


@dataclass(slots=True)
class Lesson:
    commit: CommitRecord
    verdict: Verdict
    anchor: Anchored
    placement: Placement
    order: int
    shape: CommitShape


def commit_ref(commit: CommitRecord) -> dict[str, str]:
    return {"sha": commit.sha, "author": commit.author, "date": commit.date, "subject": commit.subject}


class _Walk:
    """The state of one run's walk over the history, newest commit first."""

    def __init__(
        self,
        finder: SymbolFinder,
        head: HeadIndex,
        *,
        exclude: list[str],
        runtimes: Runtimes | None = None,
        root: Path,
        marked: dict[str, str] | None = None,
    ) -> None:
        self.finder, self.head, self.exclude, self.root = finder, head, exclude, root
        self.runtimes = runtimes or Runtimes()
        self.marked = marked or {}  # path at HEAD → why .gitattributes says it is not the team's (vendored, generated)
        self.renames: dict[str, str] = {}
        self.fixes: dict[tuple[str, str], list[FixRef]] = defaultdict(list)  # (file, symbol) at HEAD
        self.file_fixes: dict[str, list[FixRef]] = defaultdict(list)  # file at HEAD
        self.lessons: list[Lesson] = []
        self.noise: Counter[str] = Counter()
        self.skipped: Counter[str] = Counter()
        self.last_change: dict[str, str] = {}  # file at HEAD → the newest date a commit touched it
        self.newest = ""  # the newest commit date read
        self.reverted: dict[str, list[str]] = defaultdict(list)  # a reverted sha's first 7 digits → shas named
        self.reverted_subjects: set[str] = set()  # subjects of reverted commits a revert named only by subject
        self.met: set[str] = set()  # reverted shas (as named) met in this walk
        self.undone_subjects: dict[str, str] = {}  # a reverted sha (as named) → its subject, for "Revert 60ef759"
        # what partial reverts named, by first digits: never withdrawn, only their subjects kept (undone_subjects)
        self.partly: dict[str, list[str]] = defaultdict(list)
        self.undone_branch: set[str] = set()  # commits a reverted merge brought in: undone with it
        self.landed: set[str] = set()  # subjects (subject_key) of the commits read: a revert's change landed again
        self.order = 0
        self.clamped = 0

    def step(self, commit: CommitRecord) -> None:
        order = self.order
        self.order += 1
        self.skipped["binary"] += commit.binary_files
        self.skipped["vendored"] += commit.vendored_files
        self._drop_marked(commit)
        self.clamped += commit.clamped_date
        self.newest = max(self.newest, commit.date)
        for p in commit.paths():
            self.last_change.setdefault(self.renames.get(p, p), commit.date)  # newest first: the first is the last
        if self._undone(commit):
            self.noise[Noise.REVERTED] += 1  # its revert stands: no lesson, no fix, and what it reverted holds
            record_renames(commit, self.renames)
            return
        named = self._reverts_by_line(commit)
        self._note_revert(commit, named)
        # a fix whose message carries git's revert line is a revert of what it names (ripgrep d47663b "searcher: fix
        # regression with `--line-buffered` flag" undid 8c6595c): read as 'Revert <id>', its subject said later. In a
        # squash of several commits (starlette cc20c86: a revert, then "new implementation") it is one item: what it
        # names is undone, and the squash is read as what its subject says
        as_revert = named and len(SQUASH_ITEM.findall(commit.body)) < 2
        verdict = classify(replace(commit, subject=f"Revert {named[0]}") if as_revert else commit)
        if verdict.kind == VerdictKind.REVERT and subject_key(verdict.what) in self.landed:
            verdict = Verdict(VerdictKind.NOISE, reason=Noise.REVERT_TO_RELAND)  # zod's base64 fix, landed again
        landed = landed_key(commit.subject)
        if landed and (landed != subject_key(commit.subject) or not vague(clean_subject(commit.subject))):
            self.landed.add(landed)  # the same vague subject again is another change (tqdm's "minor optimisation")
        if verdict.reason is not None:
            self.noise[verdict.reason] += 1
        if (verdict.lesson or verdict.fix) and self.runtimes.dropped(f"{commit.subject}\n{commit.body}"):
            if verdict.lesson:  # a fix for a runtime the project dropped fixed nothing that can break again
                self.noise[Noise.OLD_RUNTIME] += 1
            record_renames(commit, self.renames)
            return
        if verdict.lesson or verdict.fix:
            message = f"{commit.subject}\n{commit.body}"
            placement = place(commit, message, self.finder, self.renames, self.head)
            if verdict.fix:
                ref = FixRef(commit.sha, commit.date, commit.author, commit.subject, order)
                targets = main_targets(placement)
                for a in placement.fixed:  # a fix counts on the code whose logic it changed, never on stubs or tests
                    key = a.key
                    if key is None or a.created or a.logic < MIN_FIX_LOGIC_LINES or a.typing or self._test_code(*key):
                        continue
                    if key not in targets:
                        self.noise[Noise.FIX_IN_PASSING] += 1  # a constructor it touched to plumb the fix
                        continue
                    self.fixes[key].append(replace(ref, sample=a.sample, removed=a.removed, shown=a.shown))
                for path in {a.file for a in placement.fixed if a.file} | (
                    {placement.anchor.file} if placement.anchor and placement.anchor.file else set()
                ):
                    self.file_fixes[path].append(ref)
            if verdict.lesson:
                shape = CommitShape.of(commit)  # what the lesson's score reads of the diff, kept before it goes
                self._lesson(replace(commit, files=[]), verdict, placement, order, shape)
        record_renames(commit, self.renames)

    def _test_code(self, path: str, symbol: str) -> bool:
        """A symbol in a product file's test module, or (Rust) an item marked as a test at HEAD."""
        return in_test_module(symbol) or self.head.test_item(path, symbol)

    def _product_code(self, path: str, symbol: str | None) -> bool:
        """Code the product runs (:func:`is_product_code`), and no ``#[test]`` item beside it."""
        return is_product_code(path, symbol) and not (symbol and self.head.test_item(path, symbol))

    def _drop_marked(self, commit: CommitRecord) -> None:
        """Leave out the files .gitattributes marks generated or vendored (jq's bison output), counted: regenerating
        them is no fix, and a lesson belongs in their source."""
        kept = []
        for f in commit.files:
            path = f.path or f.old_path
            reason = self.marked.get(self.renames.get(path, path))
            if reason is None:
                kept.append(f)
            else:
                self.skipped[reason] += 1
        commit.files = kept

    def _lesson(
        self, commit: CommitRecord, verdict: Verdict, placement: Placement, order: int, shape: CommitShape
    ) -> None:
        a = placement.anchor
        if a is not None and a.anchor == ANCHOR_FILE:
            self.noise[Noise.FILE_ANCHOR] += 1  # its fix still counts on the file's track record
        elif a is not None and a.typing:
            self.noise[Noise.TYPING_CODE] += 1
        elif a is not None and a.anchor == ANCHOR_SYMBOL and not a.logic:
            self.noise[Noise.DOCS] += 1  # it changed only the symbol's docstring or comments
        elif a is not None and a.file is not None and TOOLING_PATH.search(a.file):
            self.noise[Noise.TOOLING_CODE] += 1  # a task runner or release script: the maintainers', not the product
        elif a is not None and a.file is not None and not self._product_code(a.file, a.symbol):
            self.noise[Noise.TEST_ANCHOR] += 1  # a test, test server or fixture: no product code to warn
        elif a is not None and a.anchor == ANCHOR_SYMBOL and a.declares_only:
            # fields, annotations or log lines only: the fix's logic is elsewhere
            self.noise[Noise.LOGGING_ANCHOR if a.logs else Noise.DECLARATION_ANCHOR] += 1
        elif a is not None and a.anchor == ANCHOR_SYMBOL and self._broad(a):
            self.noise[Noise.BROAD_ANCHOR] += 1
        elif a is not None and a.symbol and about_other_symbol(verdict.why, a.then.split("::")[-1], placement.touched):
            self.noise[Noise.WHY_OTHER_SYMBOL] += 1
        elif a is not None and a.anchor == ANCHOR_SYMBOL and placement.siblings and self._wrapper(a):
            self.noise[Noise.WRAPPER_ANCHOR] += 1  # the fix changed its callers too: the behaviour is decided there
        elif a is not None and a.anchor == ANCHOR_SYMBOL and not self._stands(a):
            self.noise[Noise.REWRITTEN] += 1
        elif a is not None:
            self.lessons.append(Lesson(commit, verdict, a, placement, order, shape))
        elif placement.diffuse:
            self.noise[Noise.DIFFUSE_SYMBOLS] += 1
        elif placement.in_passing:
            self.noise[Noise.NAMED_IN_PASSING] += 1
        elif placement.gone:
            self.noise[Noise.CODE_GONE] += 1
        elif states_repo_wide_rule(commit):
            nowhere = Anchored(None, None, ANCHOR_WORKSPACE, "")
            self.lessons.append(Lesson(commit, verdict, nowhere, placement, order, shape))
        else:
            self.noise[Noise.NO_ANCHOR] += 1

    def _broad(self, a: Anchored) -> bool:
        assert a.file is not None and a.symbol is not None
        chunk = self.head.chunk(a.file, a.symbol)
        return chunk is not None and broad(chunk)

    def _wrapper(self, a: Anchored) -> bool:
        assert a.file is not None and a.symbol is not None
        chunk = self.head.chunk(a.file, a.symbol)
        return chunk is not None and mine_code.is_wrapper(chunk.text, a.file)

    def _stands(self, a: Anchored) -> bool:
        """Most of the lines the lesson was about are still in its symbol at HEAD (nothing to check: it stands)."""
        assert a.file is not None and a.symbol is not None
        share = mine_code.survival(a.sample, self.head.code(a.file, a.symbol))
        return share is None or share >= MIN_SURVIVAL

    def _undone(self, commit: CommitRecord) -> bool:
        """A later commit (already read) reverted this one."""
        if commit.sha in self.undone_branch:
            return True  # brought in by a merge that was reverted: its revert undid this commit too
        for named in self.partly.get(commit.sha[:ABBREVIATED_SHA], ()):
            if commit.sha.startswith(named):  # partly undone: it stands, and its subject names the dead end
                self.undone_subjects[named] = merged_title(commit) or commit.subject
        for named in self.reverted.get(commit.sha[:ABBREVIATED_SHA], ()):
            if commit.sha.startswith(named):
                self.met.add(named)
                self.undone_subjects[named] = merged_title(commit) or commit.subject
                self._undo_branch(commit)
                return True
        if subject_key(commit.subject) in self.reverted_subjects:
            self.reverted_subjects.discard(subject_key(commit.subject))
            self._undo_branch(commit)
            return True
        return False

    def _undo_branch(self, commit: CommitRecord) -> None:
        """A reverted merge undid every commit it brought in (met later in this walk, being older)."""
        if commit.is_merge:
            self.undone_branch.update(merged_commits(self.root, commit.sha))

    def _reverts_by_line(self, commit: CommitRecord) -> list[str]:
        """The commits git's "This reverts commit <id>" line names in a commit whose subject is no revert, when they
        are in its history; [] for any other commit. A squash merge's lines naming its pull request's own commits
        (zod ae3b39c), which ``HEAD`` never had, and a partial revert name nothing."""
        if commit.is_merge or revert_target(commit) is not None or PARTIAL_REVERT.search(commit.body):
            return []
        named = list(dict.fromkeys(s for s in reverted_shas(commit) if len(s) >= ABBREVIATED_SHA))
        return [sha for sha in named if history.is_ancestor(self.root, sha, commit.sha)]

    def _note_revert(self, commit: CommitRecord, named: list[str]) -> None:
        if commit.is_merge or (revert_target(commit) is None and not named):
            return
        shas, whole = (named, True) if named else undone(commit)
        for sha in shas:
            self.reverted[sha[:ABBREVIATED_SHA]].append(sha)
        for sha in partly_undone(commit):  # withdrawn nothing, but its subject says what the dead end was
            self.partly[sha[:ABBREVIATED_SHA]].append(sha)
        what = revert_target(commit)
        if not shas and whole and what:
            self.reverted_subjects.add(subject_key(what))

    def reverted_subject(self, named: str) -> str | None:
        """The subject of the commit a revert named by ``named`` (an abbreviated id), when this walk met it."""
        return next((subject for sha, subject in self.undone_subjects.items() if sha.startswith(named)), None)

    def reverts_earlier(self, fix: FixRef, pending: set[str]) -> bool:
        """A revert of this run undid ``fix``, a fix an earlier run read (named by id, or by subject alone)."""
        return any(fix.sha.startswith(p) for p in pending) or subject_key(fix.subject) in self.reverted_subjects

    def pending_reverts(self) -> set[str]:
        """Shas reverts named that this walk did not reach: commits of earlier runs."""
        return {s for shas in self.reverted.values() for s in shas} - self.met


def merged_commits(root: Path, sha: str) -> list[str]:
    """The commits a merge brought in (reachable from its other parents, not from its first); [] for a commit that
    is no merge, or one git cannot read."""
    try:  # all its parents but reachable from none of the first's history: empty for a commit with one parent
        return history.git(root, "rev-list", f"{sha}^@", f"^{sha}^1").split()
    except GitError:  # a root commit (no first parent), or an object git lacks
        return []


# --- building suggestions -----------------------------------------------------------------------------------


def lesson_suggestion(lesson: Lesson, record: dict[str, Any], head: HeadIndex) -> Suggestion:
    """The suggestion a lesson makes; a fix or decision carries its score (mine_score) in ``provenance``."""
    commit, verdict, a = lesson.commit, lesson.verdict, lesson.anchor
    assert verdict.type is not None
    place_ = head.where(a.file, a.symbol)  # one of 46 same-named closures says whose
    if verdict.kind == VerdictKind.REVERT:
        headline = dead_end_headline(undone_thing(commit.subject, verdict.what), place_)
    elif verdict.kind == VerdictKind.DECISION:
        headline = decision_headline(commit.subject, place_)
    else:
        headline = fix_headline(commit.subject, place_)
    spot = f"{a.file}::{a.symbol}" if a.symbol else (a.file or "")
    provenance: dict[str, Any] = {
        "commits": [commit_ref(commit)], "anchor": a.anchor, "kind": str(verdict.kind), "then": a.then,
        "why": bool(verdict.why), "named": lesson.placement.named, "track": record,
    }  # fmt: skip
    if lesson.placement.also:
        provenance["also"] = lesson.placement.also
    if verdict.error:
        provenance["error"] = verdict.error
    text = lesson_text(headline, verdict.why)
    if verdict.kind != VerdictKind.REVERT:  # a dead end is proposed on its reason alone, as the issue asks
        chunk = head.chunk(a.file, a.symbol) if a.file and a.symbol else None
        lines = chunk.end_line - chunk.start_line if chunk is not None else 0
        provenance["score"] = round(lesson_score(lesson_counts(text, verdict.type, commit, lesson.shape, lines)), 3)
        if chunk is not None and a.file and a.symbol:  # what the change put in, still there (scored without it)
            kept = mine_kept.shown_line(a.shown, chunk.text, head.code(a.file, a.symbol), a.file)
            if kept is not None:
                provenance["kept"] = kept
                text = lesson_text(headline, verdict.why, mine_kept.kept_sentence(kept))
    return Suggestion(
        fingerprint=f"{verdict.kind}:{commit.sha}" + (f":{spot}" if spot else ""),
        type=verdict.type,
        text=text,
        source=MemorySource.COMMIT,
        created_at=commit.date,
        file=a.file,
        symbol=a.symbol,
        provenance=provenance,
        confidence=confidence(MemorySource.COMMIT, record),
    )


def _dedupe(suggestions: list[Suggestion], noise: Counter[str]) -> list[Suggestion]:
    """The same words on the same place are one lesson: the first (newest) is kept."""
    seen: set[tuple[str | None, str | None, str]] = set()
    out: list[Suggestion] = []
    for s in suggestions:
        key = (s.file, s.symbol, re.sub(r"\s+", " ", s.text.lower()))
        if key in seen:
            noise[Noise.DUPLICATE] += 1
            continue
        seen.add(key)
        out.append(s)
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
    hold_back: bool | None = None,
    full: bool = False,
) -> MineReport:
    """Mine the history since the last run (or ``since``: a commit or a date; ``full``: all of it again) and
    propose suggestions; ``hold_back`` (default: ``mining.hold_back``) proposes only what clears the bars.

    Raises :class:`GitError` (a ``ForewarnError``) when the workspace is not a git repository or has
    no commits. Only an unrestricted, uncancelled run moves the remembered last mined commit.
    """
    started = time.perf_counter()
    root = ws.root
    head_sha = history.head_commit(root)
    report = MineReport(head=head_sha)
    if history.is_shallow(root):
        report.notes.append("shallow clone: mining only the commits this clone has (git fetch --unshallow for all)")
    revs, incremental = ([head_sha], False) if full and since is None else _revs(ws, head_sha, since, report)
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
    big, big_total = history.big_blob_paths(root, revs)  # left out of the diffs: git would load them whole
    if big_total:
        report.skipped_files["big-blob-path"] = big_total
    if big_total > len(big):
        report.notes.append(f"{big_total} paths held blobs over 1 MiB: the first {len(big)} were left out of diffs")
    with BlobReader(root) as blobs:
        marked = marked_paths(root, history.git(root, "ls-files", "-z").split("\0"))
        walk = _Walk(SymbolFinder(blobs), head, exclude=big, runtimes=runtimes(root), root=root, marked=marked)
        unreadable: list[str] = []  # commits git could not diff for a missing object: skipped, said
        commits = history.iter_commits(root, revs, limit=limit, exclude=big, unreadable=unreadable)
        try:
            for commit in commits:
                if cancel is not None and cancel.is_set():
                    report.cancelled = True
                    break
                report.commits_read += 1
                walk.step(commit)
                if progress is not None:
                    progress(report.commits_read, report.commits_total)
        finally:
            commits.close()
    if unreadable:
        report.unreadable_commits = len(unreadable)
        report.notes.append(
            f"{len(unreadable)} commit(s) could not be read, first {unreadable[0][:12]}: git lacks an object they need"
            " (a partial clone whose remote is out of reach, or a damaged repository; `git fsck` says which);"
            " the rest of the history was mined"
        )
    if report.cancelled:
        report.seconds = time.perf_counter() - started
        return report
    complete = since is None and limit is None
    hold = ws.settings.mining.hold_back if hold_back is None else hold_back
    suggestions = _propose(ws, walk, incremental=incremental, head_sha=head_sha, report=report, hold_back=hold)
    report.reworded = settle_reworded(ws, suggestions, head_sha)  # the earlier memory, not a second suggestion
    outcome = ws.add_suggestions(suggestions)
    report.added, report.known, report.dismissed_before = outcome.added, outcome.known, outcome.dismissed_before
    if complete:
        pending = walk.pending_reverts()
        if incremental and pending:
            pending |= {sha for named in pending for sha in merged_commits(root, named)}  # a merge of an earlier run
            report.withdrawn = ws.withdraw_mined(pending, reason="its commit was reverted")
        relanded = _relanded(ws, walk) if incremental else []
        if relanded:
            report.withdrawn += ws.withdraw_mined(relanded, reason="its change landed again")
        report.tracks_updated = _update_tracks(ws, walk, suggestions, incremental=incremental)
        hot = {  # proposed as hot spots, or folded into a lesson on their symbol: never proposed again
            (s.file, s.symbol)
            for s in suggestions
            if s.file and s.symbol and (s.provenance.get("kind") == "hotspot" or s.provenance.get("fixes"))
        }
        ws.set_mining_state(STATE_FIX_HISTORY, dump_fix_history(walk.fixes, hot))
        ws.set_mining_state(STATE_LAST_MINED, head_sha)
    report.seconds = time.perf_counter() - started
    return report


def _relanded(ws: Workspace, walk: _Walk) -> list[str]:
    """The reverts behind earlier runs' dead ends whose change this run's commits landed again (zod's base64 fix,
    reverted to go through a pull request, then merged from it): what they undid is in the code again."""
    shas = []
    for memory in ws.mined_memories_on(sorted(walk.last_change)):  # a re-land touches the code its revert did
        revert = lesson_commit(memory.provenance)
        if revert is None or (memory.provenance or {}).get("kind") != VerdictKind.REVERT:
            continue
        if undone_key(str(revert.get("subject", ""))) in walk.landed:
            shas.append(str(revert["sha"]))
    return shas


def _undone_what(walk: _Walk, lesson: Lesson) -> str | None:
    """What a dead end says was undone: in the reverted commit's words when the revert's own name it by id
    ("Revert 60ef759", peewee's "Reverts 09a1f78ca and instead …"), name a merge ('Revert "Merge pull request #12 …"')
    or say nothing once its issue number is cut (nanopb's "Revert old fix for #617", a partial revert); None when
    an id alone names a commit this walk did not read."""
    what = lesson.verdict.what
    lead = LEADING_SHA.match(what)
    if lead is not None:
        known = walk.reverted_subject(lead.group("sha").lower())
        if known is not None and not vague(clean_subject(known)):
            return known
        return None if SHA_ONLY.match(what.lower()) else what
    if MERGE_SUBJECT.match(what) or vague(clean_subject(what)):
        titles = (walk.reverted_subject(sha) for sha in (*reverted_shas(lesson.commit), *partly_undone(lesson.commit)))
        return next((t for t in titles if t and not MERGE_SUBJECT.match(t) and not vague(clean_subject(t))), what)
    return what


def _propose(
    ws: Workspace, walk: _Walk, *, incremental: bool, head_sha: str, report: MineReport, hold_back: bool
) -> list[Suggestion]:
    """The run's suggestions: lessons (cherry-picks counted once), hot spots and warning comments; with
    ``hold_back``, only what clears the bars (:mod:`mine_hold`)."""
    _drop_cherry_picks(ws, walk)
    if incremental:  # fixes of earlier runs, below the threshold then, still count toward hot spots
        pending = walk.pending_reverts()
        for key, refs in load_fix_history(ws, walk.renames).items():
            standing = [r for r in refs if not walk.reverts_earlier(r, pending)]
            walk.fixes[key] = standing + walk.fixes.get(key, [])
    through = walk.newest
    pooled = FixPool(walk.fixes, walk.head)  # a track record counts the fixes of code nested in its anchor too
    suggestions: list[Suggestion] = []
    for lesson in walk.lessons:
        if lesson.verdict.kind == VerdictKind.REVERT:
            what = _undone_what(walk, lesson)
            if what is None:
                walk.noise[Noise.VAGUE] += 1
                continue
            lesson.verdict = replace(lesson.verdict, what=what)
        a = lesson.anchor
        if (
            lesson.verdict.kind == VerdictKind.REVERT
            and a.file
            and back_at_head(a.removed, a.sample, file_lines(ws.root, a.file), a.file)
        ):
            walk.noise[Noise.REVERT_BACK] += 1  # what it undid is in the code again: no dead end
            continue
        pool = pooled.of(*a.key) if a.key else walk.file_fixes.get(a.file, []) if a.file else []
        later = [r for r in pool if r.order < lesson.order and r.sha != lesson.commit.sha]
        record = track(later, since=lesson.commit.date, last_change=walk.last_change.get(a.file or ""), through=through)
        suggestions.append(lesson_suggestion(lesson, record, walk.head))
    head = walk.head  # a hot spot on a symbol with lessons is folded into them below (one_per_symbol)
    suggestions.extend(hotspot_suggestions(walk.fixes, walk.last_change, through, head, walk.noise))
    scan = sorted(head.files) if not incremental else sorted(p for p in walk.last_change if p in head.files)
    scan = own_files(ws.root, scan, walk.skipped)  # vendored or generated: its comments are upstream's or a tool's
    report.comment_files_scanned = len(scan)
    found = comment_suggestions(ws, scan, head, history.commit_date(ws.root, head_sha), head_sha)
    for s in found.suggestions:
        if walk.runtimes.dropped(s.text):
            walk.noise[Noise.OLD_RUNTIME] += 1
            continue
        if s.symbol and s.file:  # what stands at HEAD: its track record is every fix its code had
            pool = pooled.of(s.file, s.symbol)
            record = track(pool, since=None, last_change=walk.last_change.get(s.file), through=through)
            s = replace(s, provenance={**s.provenance, "track": record}, confidence=confidence(s.source, record))
        suggestions.append(s)
    walk.noise.update(found.skipped)
    suggestions = drop_copied(suggestions, CopiedFiles(ws.root), walk.noise)  # before merging: no evidence from them
    if hold_back:  # before merging: a hot spot whose lessons are held back stands on its own
        suggestions = hold_back_found(suggestions, report)
    suggestions = _dedupe(suggestions, walk.noise)
    stored = frozenset(ws.store.mined([s.fingerprint for s in suggestions]))  # said before: never folded again
    suggestions = on_remembered_symbols(suggestions, stored, ws.mined_memories_on, walk.noise, head.written_in)
    suggestions = one_per_symbol(suggestions, walk.noise, stored, head.written_in)
    if hold_back:  # after merging: a hot spot on a lesson's symbol is its "History:" line
        suggestions = hold_back_hot_spots(suggestions, stored, report)
    report.suggestions = dict(Counter(str(s.type) for s in suggestions))
    report.anchors = dict(Counter(str(s.provenance.get("anchor")) for s in suggestions))
    report.noise = {str(k): v for k, v in walk.noise.items()}
    report.skipped_files = {**report.skipped_files, **{k: v for k, v in walk.skipped.items() if v}}
    report.clamped_dates = walk.clamped
    if walk.clamped:
        report.notes.append(f"{walk.clamped} commit(s) dated in the future: read as dated now")
    return suggestions


def _drop_cherry_picks(ws: Workspace, walk: _Walk) -> None:
    """A patch applied twice (a cherry-pick, a backport merged back) is one fix and one lesson: the oldest copy.

    Copies are found by ``git patch-id``, and by author and subject: a backport to another branch often applies
    with other context (another patch id) but keeps both, and one person committing the same specific subject
    twice made one fix."""
    shas = {r.sha for refs in walk.fixes.values() for r in refs} | {le.commit.sha for le in walk.lessons}
    if len(shas) < 2:
        return
    order = {r.sha: r.order for refs in walk.fixes.values() for r in refs}
    order.update({le.commit.sha: le.order for le in walk.lessons})
    keys: dict[str, list[str]] = defaultdict(list)  # a sha → what identifies its patch
    for sha, pid in history.patch_ids(ws.root, sorted(shas), exclude=walk.exclude).items():
        keys[sha].append(pid)
    named = [(r.sha, r.author, r.subject) for refs in walk.fixes.values() for r in refs]
    named += [(le.commit.sha, le.commit.author, le.commit.subject) for le in walk.lessons]
    for sha, author, subject in named:
        cleaned = clean_subject(subject).lower()
        if not vague(cleaned):
            keys[sha].append(f"{author}\0{cleaned}")
    copies = _copies({sha: set(k) for sha, k in keys.items()}, order)
    if not copies:
        return
    walk.noise[Noise.CHERRY_PICK] += len(copies)
    walk.lessons = [le for le in walk.lessons if le.commit.sha not in copies]
    for refs in (*walk.fixes.values(), *walk.file_fixes.values()):
        refs[:] = [r for r in refs if r.sha not in copies]


def _copies(keys: dict[str, set[str]], order: dict[str, int]) -> set[str]:
    """Shas sharing a key, transitively, are one patch: all but the oldest (highest walk order) are copies."""
    parent = {sha: sha for sha in keys}

    def root(sha: str) -> str:
        while parent[sha] != sha:
            parent[sha] = parent[parent[sha]]
            sha = parent[sha]
        return sha

    first: dict[str, str] = {}
    for sha, ks in keys.items():
        for k in ks:
            if k in first:
                parent[root(sha)] = root(first[k])
            else:
                first[k] = sha
    groups: dict[str, list[str]] = defaultdict(list)
    for sha in keys:
        groups[root(sha)].append(sha)
    return {sha for group in groups.values() if len(group) > 1 for sha in sorted(group, key=lambda s: -order[s])[1:]}


def _update_tracks(ws: Workspace, walk: _Walk, proposed: list[Suggestion], *, incremental: bool) -> int:
    """Bring earlier mined memories' track records up to date: a full run recomputes those it proposed again;
    an incremental run adds its fixes (and changes) to the memories on the code they touched."""
    updates: dict[str, dict[str, Any]] = {}
    seen = ws.store.mined([s.fingerprint for s in proposed])
    fresh = {fp: s for fp, s in ((s.fingerprint, s) for s in proposed)}
    if not incremental:
        stored = ws.store.get_many([memory_id for memory_id, _ in seen.values()])
        for fp, (memory_id, _status) in seen.items():
            record = record_beside(fresh[fp], stored.get(memory_id))  # its folded evidence is no fix since
            if isinstance(record, dict):
                updates[memory_id] = record
        return ws.update_mined_tracks(updates, only_changed=True)
    mine_now = {memory_id for memory_id, _ in seen.values()}
    pooled = FixPool(walk.fixes, walk.head)
    for memory in ws.mined_memories_on(sorted(walk.last_change)):
        a = memory.anchor
        if memory.id in mine_now or a is None or claimed(memory.provenance):
            continue  # proposed again (its fresh record is above), unanchored, or a shared file's claim (kept)
        old = track_of(memory.provenance) or {}
        since = str(old["since"]) if old.get("since") else None
        pool = pooled.of(a.file, a.symbol) if a.symbol else walk.file_fixes.get(a.file, [])
        record = track(
            [r for r in pool if r.order != EARLIER_RUN and (since is None or r.date > since)],
            since=since, last_change=walk.last_change.get(a.file), through=walk.newest,
            scope=ANCHOR_SYMBOL if a.symbol else ANCHOR_FILE,
        )  # fmt: skip
        before = old.get("fixes")
        record["fixes"] += before if isinstance(before, int) and before > 0 else 0
        earlier = old.get("fix_dates")
        dates = sorted({*record["fix_dates"], *(str(d) for d in earlier if d)} if isinstance(earlier, list) else
                       set(record["fix_dates"]), reverse=True)  # fmt: skip
        record["fix_dates"], record["last_fix"] = dates[:TRACK_FIX_DATES], dates[0] if dates else None
        record["factor"] = round(track_factor(record), 4)
        updates[memory.id] = record
    return ws.update_mined_tracks(updates, only_changed=True)


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


__all__ = ["STATE_LAST_MINED", "HeldBack", "MineReport", "mine"]
