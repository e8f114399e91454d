"""What mining hands the memory store: a proposed memory, identified by what it was mined from.

A :class:`Suggestion` becomes a memory with status ``suggested`` (``Workspace.add_suggestions``); its
``fingerprint`` is remembered for good (table ``mined``), so re-mining never proposes the same thing
twice, whether it was accepted, dismissed or is still waiting.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from forewarn.memory.origin import (
    IMPORTED_KEY,
    agent_name,
    is_hot_spot,
    lesson_commit,
    proposal_of,
    provenance_commits,
)
from forewarn.memory.records import Memory
from forewarn.memory.text import from_iso
from forewarn.memory.vocabulary import MemorySource, MemoryType

# provenance["anchor"]: how precisely a suggestion could be placed at HEAD
ANCHOR_SYMBOL = "symbol"
ANCHOR_FILE = "file"
ANCHOR_WORKSPACE = "workspace"


@dataclass(frozen=True)
class Suggestion:
    fingerprint: str  # stable id of what was mined, e.g. "revert:<sha>", "hotspot:<path>::<symbol>"
    type: MemoryType
    text: str  # subject + body, trailers stripped (redaction is applied by the store path)
    source: MemorySource  # COMMIT or COMMENT
    created_at: str  # ISO-8601 UTC of the commit (comments: HEAD's commit date)
    file: str | None  # workspace-relative at HEAD; None = workspace-wide
    symbol: str | None  # symbol path at HEAD, when it still exists
    # {"commits": [{"sha", "author", "date", "subject"}], "anchor": "symbol"|"file"|"workspace", "track": {...}, ...}
    provenance: dict[str, Any] = field(default_factory=dict)
    confidence: float | None = None  # None: the source's default; mining sets it from the track record


@dataclass(frozen=True, slots=True)
class SuggestionReport:
    added: int  # new suggested memories
    known: int  # fingerprints seen before (suggested or accepted), skipped
    dismissed_before: int  # fingerprints a person dismissed, skipped for good
    invalid: int = 0  # refused by the checks every memory passes (empty text, bad type…), logged

    def to_dict(self) -> dict[str, int]:
        return {
            "added": self.added, "known": self.known, "dismissed_before": self.dismissed_before,
            "invalid": self.invalid,
        }  # fmt: skip


def provenance_line(provenance: dict[str, Any] | None) -> str | None:
    """``from commit abc1234 by Ann on 2024-03-02: subject`` (the lesson's own commit, ``origin.lesson_commit``;
    ``+N more`` when several), or
    ``suggested by an agent that calls itself “Claude Code 2.1.0”`` for what an agent wrote."""
    if not provenance:
        return None
    if (agent := agent_name(provenance)) is not None:  # the wording every front end uses (memory.origin)
        return f"suggested by an agent that calls itself “{agent}”"
    commits = provenance_commits(provenance)
    own = lesson_commit(provenance)
    if own is None:
        kind = provenance.get("kind")
        return f"from a warning comment ({kind})" if kind else None
    sha = str(own.get("sha") or "")[:7]
    author = own.get("author")
    date = str(own.get("date") or "")[:10]
    line = f"from commit {sha}"
    if author:
        line += f" by {author}"
    if date:
        line += f" on {date}"
    subject = own.get("subject")
    if subject:
        line += f": {subject}"
    if len(commits) > 1:
        line += f" (+{len(commits) - 1} more commits)"
    return line


def commit_count(provenance: dict[str, Any] | None) -> int:
    """How many commits a suggestion stands on (its repetition)."""
    return len(provenance_commits(provenance))


# --- the track record: what the history after a mined lesson says about its code ---------------------------
# provenance["track"] = {"fixes": later fix commits that touched its anchor, "fix_dates": the newest few,
#   "last_fix": the newest, "last_change": the newest commit touching its file, "since": the lesson's own date
#   (None for what stands at HEAD: comments), "through": the newest commit date the history was read up to,
#   "scope": "symbol" or "file" (what the fixes were counted on), "factor": the confidence factor applied}
TRACK = "track"
TRACK_FIX_DATES = 5  # the newest fix dates kept: the hover names the last, the reviewer sees the rhythm
TRACK_FIX_GAIN = 0.15  # each doubling of later fixes on its code adds this much: the lesson keeps mattering
FILE_SCOPE_GAIN = 0.3  # fixes anywhere in a lesson's file say less about it than fixes of its own symbol
TRACK_MAX_GAIN = 1.3  # … up to this factor: a function fixed 40 times is not 40 times more worth a warning
QUIET_AFTER_YEARS = 2.0  # code nobody fixed or changed for this long has settled
QUIET_LOSS_PER_YEAR = 0.1  # each further quiet year takes this much off
QUIET_FLOOR = 0.6  # … down to this: a settled lesson still speaks, below fresh ones
DAYS_PER_YEAR = 365.25


def track_of(provenance: dict[str, Any] | None) -> dict[str, Any] | None:
    track = (provenance or {}).get(TRACK)
    return track if isinstance(track, dict) else None


def _count(value: object) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


def quiet_years(track: dict[str, Any]) -> float:
    """Years from the last sign of life of the code (a fix, a change, the lesson itself) to the history's end."""
    end = _time(track.get("through"))
    lively = [t for t in (_time(track.get(k)) for k in ("last_fix", "last_change", "since")) if t is not None]
    if end is None or not lively:
        return 0.0
    return max(0.0, end - max(lively)) / SECONDS_PER_DAY / DAYS_PER_YEAR


def track_factor(track: dict[str, Any] | None) -> float:
    """How much the history after a lesson raises (fixed again since) or lowers (settled for years) its weight."""
    if not track:
        return 1.0
    weight = TRACK_FIX_GAIN * (FILE_SCOPE_GAIN if track.get("scope") == "file" else 1.0)
    gain = min(TRACK_MAX_GAIN, 1.0 + weight * math.log2(1 + _count(track.get("fixes"))))
    quiet = quiet_years(track)
    loss = max(QUIET_FLOOR, 1.0 - QUIET_LOSS_PER_YEAR * max(0.0, quiet - QUIET_AFTER_YEARS))
    return gain * loss


def track_confidence(base: float, track: dict[str, Any] | None, *, previous: float = 1.0) -> float:
    """``base`` (a source's confidence, or a memory's current one set with the ``previous`` factor) under a new
    track record, within [0, 1]."""
    return max(0.0, min(1.0, base / (previous or 1.0) * track_factor(track)))


def claimed(provenance: dict[str, Any] | None) -> bool:
    """Its mining evidence (kind, score, commits, track record) came in a shared file, not from this machine's
    mining: a claim, shown as one and never used to rank it or to weigh its warning (a stranger's file could
    say "fixed 999 times since" to jump the queue, or to read as a measured hot spot)."""
    return isinstance((provenance or {}).get(IMPORTED_KEY), dict)


def track_line(provenance: dict[str, Any] | None) -> str | None:
    """``its code was fixed 3 times since (last on 2024-02-01)``: the track record in words, None without one; an
    imported memory's is the file's claim (``it says its code was fixed …``)."""
    line = _track_words(track_of(provenance))
    return f"it says {line}" if line is not None and claimed(provenance) else line


def _track_words(track: dict[str, Any] | None) -> str | None:
    if track is None:
        return None
    fixes = _count(track.get("fixes"))
    last = str(track.get("last_fix") or "")[:10]
    since = bool(track.get("since"))
    code = "its file" if track.get("scope") == "file" else "its code"
    if fixes:
        times = "once" if fixes == 1 else f"{fixes} times"
        when = f" (last on {last})" if last else ""
        return f"{code} was fixed {times} {'since' if since else 'in its history'}{when}"
    quiet = quiet_years(track)
    if quiet >= QUIET_AFTER_YEARS:
        return f"{code} has been quiet for {int(quiet)} years: no fix since"
    return None  # not fixed since, and not long ago: nothing worth a line


def _time(value: object) -> float | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return from_iso(value)
    except ValueError:
        return None


# --- the review queue, ordered by expected value -----------------------------------------------------------
# what a suggestion is worth a reviewer's minute: how it was mined × whether it says why × how precisely it is
# anchored × its track record (fixed since: +, settled for years: −) × recency × repetition
KIND_VALUE = {
    # fixed again and again, but only a count and its fixes' titles: no why (it also counts as unexplained). Older
    # judges found hot spots useful 426 times in 492; asked for a lesson with its why (round 17), 0 of 41, 38 partly
    "hotspot": 0.6,
    "fix": 0.9,  # a fix that explains its cause
    "revert": 0.85,  # a dead end with its reason
    "decision": 0.7,  # a choice argued in a message: often right, sometimes a change log in prose
}
COMMENT_TAG_VALUE = 0.85  # HACK, XXX, FIXME, WARNING: the author marked it on purpose
COMMENT_PHRASE_VALUE = 0.6  # "do not", "must", "never" in a plain comment: a warning, less deliberate
OTHER_VALUE = 0.7  # an agent's or an import's suggestion: no mining kind to judge it by
UNEXPLAINED_VALUE = 0.6  # no why in its words (only what changed): worth less than the same lesson explained
COMMENT_TAGS = frozenset({"HACK", "XXX", "FIXME", "WARNING", "DANGER", "CAUTION"})
FULL_VALUE = 1.0  # the most a mined lesson is worth
SCORE_AT_FULL_VALUE = 0.87  # a lesson scored this high is worth FULL_VALUE (the rate older judges gave hot spots)
REPETITION_WEIGHT = 0.5  # each doubling of the commits behind a lesson adds half again: fixed twice is a pattern
RECENCY_HALF_LIFE_DAYS = 365.0  # history moves slowly: a year-old fix is half as pressing as today's
RECENCY_FLOOR = 0.3  # an old lesson never vanishes behind new ones (no event horizon)
# how precisely it is placed at HEAD: a symbol's warning reaches the right code, a workspace-wide one anyone
ANCHOR_PRECISION = {ANCHOR_SYMBOL: 1.0, ANCHOR_FILE: 0.6, ANCHOR_WORKSPACE: 0.3}
SECONDS_PER_DAY = 86_400.0
# a suggestion whose quality (its value before recency) is at least this is "worth a look" (`memory review` lists
# them first, and counts them): an explained fix (one that mining scored, at least 0.7: what a default run
# proposes), a dead end with its reason or a tagged comment on its symbol, whose code has not settled for years;
# a decision or a "must" comment once its code was fixed again since; a hot spot of 6 fixes or more;
# nothing on a whole file unless its code keeps breaking; never a proposal (a change to another memory: a person's
# call, not a lesson). Recency orders each part of the queue but never moves an old lesson below one not worth a look.
WORTH_A_LOOK = 0.8
# what that bar weighs, in a reviewer's words (`memory review` prints it beside the count): suggestion_quality's
# factors, and no more — it names no filter the rule does not apply
WORTH_A_LOOK_WEIGHS = (
    "weighed by kind, whether it says why, how precisely it is anchored, its code's record since "
    "and the commits behind it; age aside"
)


def anchor_kind(memory: Memory) -> str:
    """symbol, file or workspace: where the memory sits now."""
    if memory.anchor is None:
        return ANCHOR_WORKSPACE
    return ANCHOR_SYMBOL if memory.anchor.symbol else ANCHOR_FILE


def kind_value(memory: Memory) -> float:
    """What its source is worth; a mined fix or decision with a score (its modelled chance of being useful, from
    its commit's shape) is worth that score scaled to SCORE_AT_FULL_VALUE, at most FULL_VALUE."""
    prov = memory.provenance or {}
    kind = str(prov.get("kind") or "")
    if memory.source == MemorySource.COMMENT:
        return COMMENT_TAG_VALUE if kind in COMMENT_TAGS else COMMENT_PHRASE_VALUE
    score = prov.get("score")
    if memory.source == MemorySource.COMMIT and isinstance(score, float) and 0 <= score <= 1:
        return min(FULL_VALUE, score / SCORE_AT_FULL_VALUE)
    return KIND_VALUE.get(kind, OTHER_VALUE)


def suggestion_quality(memory: Memory) -> float:
    """What a suggestion is worth, recency aside: kind × explained × anchor precision × track record × repetition.
    An import's or an agent's is worth OTHER_VALUE where it is anchored: what it says of its mining is a claim."""
    prov = memory.provenance or {}
    if claimed(prov) or memory.source == MemorySource.AGENT:
        return OTHER_VALUE * ANCHOR_PRECISION[anchor_kind(memory)]
    repetition = 1.0 + REPETITION_WEIGHT * math.log2(max(1, commit_count(prov)))
    # older suggestions carry no flag: explained; a hot spot never says why
    explained = 1.0 if prov.get("why", True) and not is_hot_spot(prov) else UNEXPLAINED_VALUE
    precision = ANCHOR_PRECISION[anchor_kind(memory)]
    return kind_value(memory) * explained * precision * track_factor(track_of(prov)) * repetition


def suggestion_score(memory: Memory, now: float) -> float:
    """The expected value of reviewing ``memory`` now: its quality × recency (decaying to a floor)."""
    age_days = max(0.0, now - from_iso(memory.created_at)) / SECONDS_PER_DAY
    recency = RECENCY_FLOOR + (1.0 - RECENCY_FLOOR) * 0.5 ** (age_days / RECENCY_HALF_LIFE_DAYS)
    return suggestion_quality(memory) * recency


def worth_a_look(memory: Memory) -> bool:
    """Its quality reaches WORTH_A_LOOK, age aside; a proposal never does."""
    return proposal_of(memory) is None and suggestion_quality(memory) >= WORTH_A_LOOK


def rank_suggestions(memories: Iterable[Memory], now: float) -> list[Memory]:
    """The review queue's one order: those worth a look first, then the rest, each part best first (by
    ``suggestion_score``); ties go to the newer, then by id, so the order is stable. "N worth a look" is then
    the first N, whatever their age."""
    scored = [(not worth_a_look(m), suggestion_score(m, now), m) for m in memories]
    scored.sort(key=lambda lsm: (lsm[0], -lsm[1], _neg_time(lsm[2].created_at), lsm[2].id))
    return [m for _, _, m in scored]


def _neg_time(iso: str) -> float:
    return -from_iso(iso)
