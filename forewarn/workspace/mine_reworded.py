"""A reworded warning comment is the lesson mined from it before, not a second one.

A comment suggestion's fingerprint holds the comment's exact words (``mine_comments.comment_fingerprint``), so a
typo fixed or a sentence added gave a new fingerprint and a second suggestion beside the first. A new comment
fingerprint is the earlier comment memory reworded when that memory sits on the same file and symbol, none of its
fingerprints is a warning comment in the file now (the old words are gone), and the two texts share at least
REWORDED_MIN_OVERLAP of their content words (Jaccard over ``mine_comments.content_words``: function words out,
identifiers split) and both negate or neither does. Two different warnings on one symbol share few words, or
differ by a "not", and stay two. Then, by what the earlier
memory is:

- waiting for review (``suggested``): its text is brought up to the new wording in place, the old text kept in a
  ``reworded`` event;
- vetted (accepted: current): its text is a person's and is not changed; the new wording is kept in a
  ``comment_reworded`` event of its history (the shared file's "newer copy" proposal would call it imported: see
  the module's report), counted as ``accepted``;
- dismissed: it stays dismissed, the new wording counted as dismissed before;
- imported from a teammate's shared file, whatever its status: its text is the teammate's and is not changed (as a
  vetted one's), the new wording kept in a ``comment_reworded`` event, counted as ``accepted`` or, waiting for
  review, ``imported``. Its fingerprints are those of the events it came with.

Each way the new fingerprint is recorded for that memory, so this run's store adds no second suggestion and later
runs know it; each is counted in ``MineReport.reworded``. The rewording events name the new fingerprint, and a
shared copy carries them (``transfer.mined_fingerprints``), so a teammate who imports it knows the new wording too.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from forewarn.memory import validation
from forewarn.memory.errors import InvalidMemoryError
from forewarn.memory.lifecycle import event
from forewarn.memory.origin import IMPORTED_KEY, proposal_of
from forewarn.memory.records import KEPT_EVENT, REWORDED_EVENT, Memory
from forewarn.memory.redact import redact
from forewarn.memory.suggestions import Suggestion
from forewarn.memory.text import to_iso
from forewarn.memory.transfer import IMPORTED_EVENT
from forewarn.memory.vocabulary import CURRENT_STATUSES, MemorySource, MemoryStatus
from forewarn.workspace.mine_comments import content_words, fingerprints_in
from forewarn.workspace.symbols import base_symbol

if TYPE_CHECKING:
    from forewarn.workspace.engine import Workspace

log = logging.getLogger(__name__)

# this share of the two texts' content words in common (Jaccard) makes a new comment the old one reworded: a typo
# fixed keeps nearly all, a sentence added to a two-line warning about half; two warnings on one symbol share
# little more than its name
REWORDED_MIN_OVERLAP = 0.5
# the earlier memories a reworded comment may be: waiting, vetted, or turned down (superseded or forgotten ones
# were ended by a person: a new comment there is proposed as new)
# a negation, however spelt ("don't" and "do not" alike): content words leave it out, and it turns a warning over
NEGATION = re.compile(r"\b(not|never|no|none|nothing|cannot)\b|n't\b", re.IGNORECASE)
EARLIER_STATUSES = (MemoryStatus.SUGGESTED, *CURRENT_STATUSES, MemoryStatus.DISMISSED)


class Reworded(StrEnum):
    """What a run did with a reworded comment, by what its earlier memory was (``MineReport.reworded``)."""

    UPDATED = "updated"  # a waiting suggestion now says the new wording
    ACCEPTED = "accepted"  # a vetted memory left as a person accepted it; the new wording in its history
    DISMISSED = "dismissed"  # stays dismissed (also counted in ``dismissed_before``)
    IMPORTED = "imported"  # a teammate's memory waiting for review, left as the shared file said it


@dataclass(frozen=True, slots=True)
class _Match:
    overlap: float
    new: Suggestion
    old: Memory


def overlap(a: str, b: str) -> float:
    """The share of content words two texts have in common (Jaccard; 0.0 when either has none), 0.0 when one
    negates and the other does not: "must be escaped" and "must not be escaped" share every content word and
    are two lessons."""
    x, y = content_words(a), content_words(b)
    if not x or not y or (NEGATION.search(a) is None) != (NEGATION.search(b) is None):
        return 0.0
    return len(x & y) / len(x | y)


def settle_reworded(ws: Workspace, suggestions: Sequence[Suggestion], head: str) -> dict[str, int]:
    """Record each new comment suggestion that rewords an earlier comment memory as that memory (see the module),
    before the run stores its suggestions; how many of each kind (:class:`Reworded`)."""
    fresh = [s for s in suggestions if s.source == MemorySource.COMMENT and s.file and s.symbol]
    if not fresh:
        return {}
    known = ws.store.mined([s.fingerprint for s in fresh])
    new = [s for s in fresh if s.fingerprint not in known]
    if not new:
        return {}
    proposed = {s.fingerprint for s in suggestions}
    matches = _matches(ws, new, proposed)
    counts: Counter[str] = Counter()
    at = to_iso(ws.clock())
    with ws.store.batch():
        for m in matches:
            try:
                counts[_settle(ws, m, at, head)] += 1
            except InvalidMemoryError as exc:  # refused as every memory's text is: stored as new would be too
                log.warning("reworded comment %s left as new: %s", m.new.fingerprint[:200], exc)
    return {str(k): v for k, v in counts.items()}


def _matches(ws: Workspace, new: list[Suggestion], proposed: set[str]) -> list[_Match]:
    """The closest pairs (new suggestion, earlier memory) first, each side used once."""
    earlier = [
        m for m in ws.store.anchored_to_files(sorted({str(s.file) for s in new}), EARLIER_STATUSES)
        if m.source == MemorySource.COMMENT and m.anchor is not None and m.anchor.symbol and proposal_of(m) is None
    ]  # fmt: skip
    if not earlier:
        return []
    present: dict[str, set[str]] = {}
    gone: dict[str, bool] = {}
    pairs: list[_Match] = []
    for s in new:
        for m in earlier:
            assert m.anchor is not None and m.anchor.symbol is not None and s.file and s.symbol
            if m.anchor.file != s.file or base_symbol(m.anchor.symbol) != base_symbol(s.symbol):
                continue
            score = overlap(m.text, s.text)
            if score < REWORDED_MIN_OVERLAP:
                continue
            if m.id not in gone:
                if s.file not in present:
                    present[s.file] = fingerprints_in(ws, s.file)
                said = _fingerprints(ws, m)
                gone[m.id] = bool(said) and not (said & (present[s.file] | proposed))
            if gone[m.id]:
                pairs.append(_Match(score, s, m))
    pairs.sort(key=lambda p: -p.overlap)
    used: set[str] = set()
    out: list[_Match] = []
    for p in pairs:
        if p.new.fingerprint not in used and p.old.id not in used:
            used.update((p.new.fingerprint, p.old.id))
            out.append(p)
    return out


def _fingerprints(ws: Workspace, memory: Memory) -> set[str]:
    """The comment fingerprints a memory was mined or reworded under (its events say them; an imported memory's,
    the teammate's events it came with)."""
    out: set[str] = set()
    for e in ws.store.events(memory.id):
        detail = e.detail.get("original_detail") if e.kind == IMPORTED_EVENT else e.detail
        fp = detail.get("fingerprint") if isinstance(detail, dict) else None
        if isinstance(fp, str) and fp.startswith("comment:"):
            out.add(fp)
    return out


def _settle(ws: Workspace, match: _Match, at: str, head: str) -> Reworded:
    """One reworded comment recorded as its earlier memory, by that memory's status."""
    old, new = match.old, match.new
    safe, kinds = redact(validation.memory_text(new.text))
    ws.store.record_mined([(new.fingerprint, old.id)], at=at)
    said = {"fingerprint": new.fingerprint, "head": head, "overlap": round(match.overlap, 3)}
    if old.status == MemoryStatus.SUGGESTED and IMPORTED_KEY not in (old.provenance or {}):
        provenance = {**(old.provenance or {}), **(validation.provenance(new.provenance) or {})}
        ws.store.replace_memory(replace(old, text=safe, provenance=provenance, updated_at=at))
        if safe != old.text:
            ws.store.delete_vectors(old.num)  # derived from the old words: embedded again by backfill
        ws.store.add_events([event(old.id, REWORDED_EVENT, at, previous_text=old.text, redacted=kinds or None, **said)])
        return Reworded.UPDATED
    ws.store.add_events([event(old.id, KEPT_EVENT, at, text=safe, redacted=kinds or None, **said)])
    if old.status == MemoryStatus.DISMISSED:
        return Reworded.DISMISSED
    return Reworded.IMPORTED if old.status == MemoryStatus.SUGGESTED else Reworded.ACCEPTED
