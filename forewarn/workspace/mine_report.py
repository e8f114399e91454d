"""What one mining run did, counted for ``forewarn mine`` and its ``--json`` (:class:`MineReport`), and what it found
but did not propose (:class:`HeldBack`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


@dataclass(slots=True)
class MineReport:
    commits_read: int = 0
    commits_total: int = 0
    suggestions: dict[str, int] = field(default_factory=dict)  # proposed, by type
    noise: dict[str, int] = field(default_factory=dict)  # commits, comments, hot-spot candidates proposing nothing
    held_back: dict[str, int] = field(default_factory=dict)  # found but not proposed (mining.hold_back): by HeldBack
    anchors: dict[str, int] = field(default_factory=dict)  # symbol | file | workspace
    skipped_files: dict[str, int] = field(default_factory=dict)  # binary | vendored | generated
    added: int = 0
    known: int = 0
    dismissed_before: int = 0
    reworded: dict[str, int] = field(default_factory=dict)  # reworded warning comments (mine_reworded.Reworded)
    withdrawn: int = 0  # suggestions of earlier runs whose commit this run found reverted
    tracks_updated: int = 0  # earlier mined memories whose track record this run's fixes changed
    clamped_dates: int = 0  # commits dated in the future, read as now
    unreadable_commits: int = 0  # commits git could not diff (an object missing): skipped, the rest mined
    comment_files_scanned: int = 0  # files scanned for warning comments
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
            "held_back": dict(self.held_back),
            "anchors": dict(self.anchors),
            "skipped_files": dict(self.skipped_files),
            "added": self.added,
            "known": self.known,
            "dismissed_before": self.dismissed_before,
            "reworded": dict(self.reworded),
            "withdrawn": self.withdrawn,
            "tracks_updated": self.tracks_updated,
            "clamped_dates": self.clamped_dates,
            "unreadable_commits": self.unreadable_commits,
            "comment_files_scanned": self.comment_files_scanned,
            "head": self.head,
            "since": self.since,
            "notes": list(self.notes),
            "cancelled": self.cancelled,
            "seconds": round(self.seconds, 3),
        }


class HeldBack(StrEnum):
    """What a run found and did not propose (``mining.hold_back``); ``forewarn mine --all`` proposes it."""

    LOW_SCORE = "low-score"  # a commit lesson scored below MIN_LESSON_SCORE (mine_score)
    COMMENT = "warning-comment"  # a warning comment: already written beside the code it warns about
    HOTSPOT = "hotspot"  # a hot spot with no lesson on its symbol to join: its fixes' titles, no why
