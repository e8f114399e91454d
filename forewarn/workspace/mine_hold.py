"""What a default mining run holds back (``mining.hold_back``): counted by name in ``MineReport.held_back`` and
proposed by ``forewarn mine --all``. Before merging, the warning comments (already written beside the code they warn
about) and the commit lessons :mod:`mine_score` scores under ``MIN_LESSON_SCORE``; after merging, the new hot spots
that joined no lesson."""

from __future__ import annotations

from collections import Counter

from forewarn.memory.origin import is_hot_spot
from forewarn.memory.suggestions import Suggestion
from forewarn.memory.vocabulary import MemorySource
from forewarn.workspace.mine_report import HeldBack, MineReport
from forewarn.workspace.mine_score import MIN_LESSON_SCORE


def hold_back_found(suggestions: list[Suggestion], report: MineReport) -> list[Suggestion]:
    """The suggestions to propose now: warning comments and lessons scored under MIN_LESSON_SCORE are counted."""
    held: Counter[str] = Counter()
    kept: list[Suggestion] = []
    for s in suggestions:
        score = s.provenance.get("score")
        if s.source == MemorySource.COMMENT:
            held[HeldBack.COMMENT] += 1
        elif isinstance(score, float) and score < MIN_LESSON_SCORE:
            held[HeldBack.LOW_SCORE] += 1
        else:
            kept.append(s)
    report.held_back = {str(k): v for k, v in held.items()}
    return kept


def hold_back_hot_spots(suggestions: list[Suggestion], stored: frozenset[str], report: MineReport) -> list[Suggestion]:
    """The suggestions without the new hot spots that joined no lesson: a count of fixes and their titles, no why
    (blind judges, asked whether a developer would want it shown, found 0 of 41 useful and 38 partly). Their fixes
    still make the track records of the lessons on their code; one proposed before stays as it is (known)."""
    kept = [s for s in suggestions if not is_hot_spot(s.provenance) or s.fingerprint in stored]
    if len(kept) < len(suggestions):
        report.held_back = {**report.held_back, str(HeldBack.HOTSPOT): len(suggestions) - len(kept)}
    return kept
