"""How likely a commit lesson is worth a reviewer's minute, from the shape of its commit alone.

Sixteen rounds of noise rules left a miner whose commit lessons two blind judges found useful about two times
in three on histories nobody had read (``bench/judgements/mining``). What they reject is mostly not a shape a
rule can name: a routine refactor or a feature explained at length, a micro-optimisation, a change whose
reason is plain in the code. Those commits still differ in shape from the ones that teach something: a lesson
with a long why, from a small commit that names its issue and whose subject says it fixes or prevents
something, is more often a trap a developer must know; a short why from a commit spread over many files that
mostly deletes is more often housekeeping.

:func:`lesson_score` is a logistic model of that shape. Its weights were fitted on the 419 commit lessons the
judges labelled in rounds 12 to 15 (63 histories in Go, JavaScript, Python and Rust; an item counts as useful
when at least half its judges said so; ``bench/mine_score_fit.py`` refits them). Cross-validated by history
(eight folds, no history in both halves), it ranks a useful lesson above a rejected one 78% of the time (AUC
0.78); the lessons it scores at least ``MIN_LESSON_SCORE`` were 62% of them and 80.5% useful, those below 45%.
The score reads nothing but numbers and two patterns of the message: no word list about any project.

Mining holds back a lesson scored below ``MIN_LESSON_SCORE`` (``mining.hold_back``, on by default;
``forewarn mine --all`` proposes everything) and counts it by name, so nothing is lost, only not put in
front of a person first.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from forewarn.memory.vocabulary import MemoryType
from forewarn.workspace.history import CommitRecord
from forewarn.workspace.mine_lessons import WHY_MARK

# a lesson scored below this is held back: on the judged lessons, the share above it was 80.5% useful (the
# usefulness target) in cross-validation by history, and kept 62% of them
MIN_LESSON_SCORE = 0.7
# the subject says it repairs or prevents something: a lesson's usual first word
FIX_OPENING = re.compile(r"^\s*(fix|bug|correct|prevent|avoid|handle|don.t|do not|guard)", re.IGNORECASE)
# the message names an issue or a pull request it closes: someone met the problem
NAMES_ISSUE = re.compile(r"#\d+|fixes|closes", re.IGNORECASE)
# the fitted model: log-odds = INTERCEPT + Σ weight × feature; the counts (LOGGED) on a log(1 + n) scale
INTERCEPT = -4.4142
WEIGHTS = {
    "why_chars": 1.3607,  # the why's length: an explained cause is what a lesson is
    "message_lines": -0.0568,  # non-blank lines of the message: a long changelog in prose says less per line
    "fix_subject": 0.4259,  # the subject opens on fixing or preventing something
    "names_issue": 0.6423,  # the message names an issue or pull request
    "files": -0.5981,  # files the commit touched: a sweeping change is seldom one lesson
    "lines_added": 0.1592,  # lines it added
    "lines_removed": -0.3285,  # lines it removed: a commit that mostly deletes is housekeeping
    "symbol_lines": 0.2168,  # the anchor's length at HEAD: a warning on a one-liner says what the code says
    "decision": -0.2919,  # a decision rather than a fix: more often a change log in prose
    "error_pattern": -0.5116,  # an error pattern: often an error message's wording or one platform's quirk
    "message_chars": -0.2711,  # the message's length in characters (with its lines: how much is not the why)
}
LOGGED = frozenset(
    {"why_chars", "message_lines", "files", "lines_added", "lines_removed", "symbol_lines", "message_chars"}
)


@dataclass(frozen=True, slots=True)
class CommitShape:
    """What the score reads of a commit before its diff is let go: its files and how many lines it moved."""

    files: int
    lines_added: int
    lines_removed: int

    @classmethod
    def of(cls, commit: CommitRecord) -> CommitShape:
        removed = sum(len(h.removed) for f in commit.files for h in f.hunks)
        changed = sum(f.changed for f in commit.files)
        return cls(max(0, commit.file_count - commit.binary_files), max(0, changed - removed), removed)


def lesson_counts(
    text: str, kind: MemoryType, commit: CommitRecord, shape: CommitShape, symbol_lines: int
) -> dict[str, float]:
    """What the model reads of a lesson whose suggestion reads ``text`` (headline, then the why after WHY_MARK):
    counts and yes/no flags, as ``bench/judgements/mining/score-training-r12-r15.jsonl`` holds them."""
    message = f"{commit.subject}\n\n{commit.body}" if commit.body else commit.subject
    why = text.split(WHY_MARK, 1)[1] if WHY_MARK in text else ""
    return {
        "why_chars": len(why),
        "message_lines": sum(1 for line in message.splitlines() if line.strip()),
        "fix_subject": float(bool(FIX_OPENING.match(commit.subject))),
        "names_issue": float(bool(NAMES_ISSUE.search(message))),
        "files": shape.files,
        "lines_added": shape.lines_added,
        "lines_removed": shape.lines_removed,
        "symbol_lines": symbol_lines,
        "decision": float(kind == MemoryType.DECISION),
        "error_pattern": float(kind == MemoryType.ERROR_PATTERN),
        "message_chars": len(message) + 1,  # git's message ends with a newline
    }


def scaled(counts: dict[str, float]) -> dict[str, float]:
    """The model's inputs: each count on a log(1 + n) scale, each flag as it is."""
    return {k: math.log1p(max(0.0, v)) if k in LOGGED else float(v) for k, v in counts.items()}


def lesson_score(counts: dict[str, float]) -> float:
    """The modelled chance (0..1) that a reviewer finds the lesson useful."""
    z = INTERCEPT + sum(WEIGHTS[k] * v for k, v in scaled(counts).items())
    return 1.0 / (1.0 + math.exp(-z))
