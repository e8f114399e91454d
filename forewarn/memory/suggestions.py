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

from forewarn.memory.origin import agent_name, newest_commit, provenance_commits
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
    # {"commits": [{"sha", "author", "date", "subject"}], "anchor": "symbol"|"file"|"workspace", ...}
    provenance: dict[str, Any] = field(default_factory=dict)


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
    """``from commit abc1234 by Ann on 2024-03-02: subject`` (the newest commit; ``+N more`` when several), or
    ``suggested by an agent that calls itself “Claude Code 2.1.0”`` for what an agent wrote."""
    if not provenance:
        return None
    if (agent := agent_name(provenance)) is not None:  # the wording every front end uses (memory.origin)
        return f"suggested by an agent that calls itself “{agent}”"
    commits = provenance_commits(provenance)
    newest = newest_commit(provenance)
    if newest is None:
        kind = provenance.get("kind")
        return f"from a warning comment ({kind})" if kind else None
    sha = str(newest.get("sha") or "")[:7]
    author = newest.get("author")
    date = str(newest.get("date") or "")[:10]
    line = f"from commit {sha}"
    if author:
        line += f" by {author}"
    if date:
        line += f" on {date}"
    subject = newest.get("subject")
    if subject:
        line += f": {subject}"
    if len(commits) > 1:
        line += f" (+{len(commits) - 1} more commits)"
    return line


def commit_count(provenance: dict[str, Any] | None) -> int:
    """How many commits a suggestion stands on (its repetition)."""
    return len(provenance_commits(provenance))


# ranking what waits for review (a file's hints, `memory review`): repetition × recency × anchor precision
REPETITION_WEIGHT = 0.5  # each doubling of the commits behind a lesson adds half again: fixed twice is a pattern
RECENCY_HALF_LIFE_DAYS = 365.0  # history moves slowly: a year-old fix is half as pressing as today's
RECENCY_FLOOR = 0.3  # an old lesson never vanishes behind new ones (no event horizon)
# how precisely it is placed at HEAD: a symbol's warning reaches the right code, a workspace-wide one anyone
ANCHOR_PRECISION = {ANCHOR_SYMBOL: 1.0, ANCHOR_FILE: 0.6, ANCHOR_WORKSPACE: 0.3}
SECONDS_PER_DAY = 86_400.0


def anchor_kind(memory: Memory) -> str:
    """symbol, file or workspace: where the memory sits now."""
    if memory.anchor is None:
        return ANCHOR_WORKSPACE
    return ANCHOR_SYMBOL if memory.anchor.symbol else ANCHOR_FILE


def suggestion_score(memory: Memory, now: float) -> float:
    repetition = 1.0 + REPETITION_WEIGHT * math.log2(max(1, commit_count(memory.provenance)))
    age_days = max(0.0, now - from_iso(memory.created_at)) / SECONDS_PER_DAY
    recency = RECENCY_FLOOR + (1.0 - RECENCY_FLOOR) * 0.5 ** (age_days / RECENCY_HALF_LIFE_DAYS)
    return repetition * recency * ANCHOR_PRECISION[anchor_kind(memory)]


def rank_suggestions(memories: Iterable[Memory], now: float) -> list[Memory]:
    """Best first; ties go to the newer, then by id, so the order is stable."""
    scored = [(suggestion_score(m, now), m) for m in memories]
    scored.sort(key=lambda sm: (-sm[0], _neg_time(sm[1].created_at), sm[1].id))
    return [m for _, m in scored]


def _neg_time(iso: str) -> float:
    return -from_iso(iso)
