"""Suggestions: what mining proposes, stored as ``suggested`` until a person accepts or dismisses it."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from forewarn.memory import forks, validation
from forewarn.memory.errors import InvalidMemoryError
from forewarn.memory.lifecycle import event, same_anchor
from forewarn.memory.origin import IMPORTED_KEY, proposal_of
from forewarn.memory.records import Anchor, Memory, MemoryEvent, MemoryFilter
from forewarn.memory.shared_file import MINED_HERE_KEY
from forewarn.memory.suggestions import (
    ANCHOR_FILE,
    ANCHOR_SYMBOL,
    ANCHOR_WORKSPACE,
    TRACK,
    Suggestion,
    SuggestionReport,
    claimed,
    provenance_commits,
    rank_suggestions,
    track_confidence,
    track_of,
)
from forewarn.memory.text import from_iso, new_id, normalise_text, to_iso
from forewarn.memory.vocabulary import (
    CURRENT_STATUSES,
    SUGGESTION_STATUSES,
    MemorySource,
    MemoryStatus,
    MemoryType,
)
from forewarn.workspace import history, reconcile

if TYPE_CHECKING:
    pass

from forewarn.workspace.core import DEFAULT_CONFIDENCE
from forewarn.workspace.proposals import ProposalsMixin

log = logging.getLogger(__name__)


class SuggestionsMixin(ProposalsMixin):
    """The review queue of mined and agent suggestions (part of ``Workspace``)."""

    def add_suggestions(self, items: Sequence[Suggestion]) -> SuggestionReport:
        """Store mined memories as ``suggested``, in one transaction; idempotent by fingerprint.

        A fingerprint seen before (waiting, accepted or dismissed) is never added again. Each is checked and
        redacted as every memory is, and anchored at HEAD: its symbol, else its file, else workspace-wide
        (``provenance["anchor"]`` says which). Vectors come later, from ``backfill_vectors`` (as imports).
        """
        unique: dict[str, Suggestion] = {}
        for item in items:
            unique.setdefault(item.fingerprint, item)
        seen = self.store.mined(list(unique))
        known = sum(1 for _, status in seen.values() if status != MemoryStatus.DISMISSED)
        dismissed = len(seen) - known
        invalid = 0
        rows: list[tuple[Memory, list[MemoryEvent]]] = []
        fingerprints: list[tuple[str, str]] = []
        now, at = self._now()
        imported_at: dict[str, list[Memory]] = {}  # imported memories, waiting or current, per anchored file
        for n, (fp, item) in enumerate(unique.items()):
            if fp in seen:
                continue
            try:
                memory, kinds = self._suggested_memory(item, now + n * 1e-6, at)
            except (InvalidMemoryError, ValueError) as exc:
                log.warning("mined suggestion %s refused: %s", fp[:200], exc)
                invalid += 1
                continue
            if (copy := self._imported_copy(memory, imported_at)) is not None:
                seen[fp] = (copy.id, copy.status)  # a teammate's copy of this lesson is here already: one, not two
                known += 1
                continue
            rows.append((memory, [event(memory.id, "suggested", at, source=item.source, fingerprint=fp,
                                        redacted=kinds or None)]))  # fmt: skip
            fingerprints.append((fp, memory.id))
        with self._lock, self.store.batch():
            # another process may have stored some meanwhile: look again inside the transaction
            again = self.store.mined([fp for fp, _ in fingerprints])
            keep = [(r, fpm) for r, fpm in zip(rows, fingerprints, strict=True) if fpm[0] not in again]
            self.store.insert_many([r for r, _ in keep])
            self.store.record_mined([fpm for _, fpm in keep], at=at)
            self._mark_mined_here(seen, at)
        known += len(rows) - len(keep)
        return SuggestionReport(added=len(keep), known=known, dismissed_before=dismissed, invalid=invalid)

    def _imported_copy(self, mined: Memory, imported_at: dict[str, list[Memory]]) -> Memory | None:
        """An imported memory (waiting or current) at the anchor of ``mined`` whose text is the same once case and
        spacing are set aside: the same lesson, mined by a teammate, whose fingerprint this file did not carry."""
        key = mined.file or ""
        if key not in imported_at:
            here = (
                self.store.anchored_to_files([key], (*SUGGESTION_STATUSES, *CURRENT_STATUSES))
                if key
                else self.store.workspace_wide((*SUGGESTION_STATUSES, *CURRENT_STATUSES))
            )
            imported_at[key] = [m for m in here if IMPORTED_KEY in (m.provenance or {}) and proposal_of(m) is None]
        same = normalise_text(mined.text)
        return next(
            (m for m in imported_at[key] if same_anchor(m.anchor, mined.anchor) and normalise_text(m.text) == same),
            None,
        )

    def _mark_mined_here(self, seen: Mapping[str, tuple[str, str | None]], at: str) -> None:
        """Imported memories this run mined too: their fingerprint now names them (mining proposes them no more),
        and ``provenance["mined_here"]`` says this history holds the lesson, beside where the file came from."""
        found = self.store.get_many(sorted({memory_id for memory_id, _ in seen.values()}))
        live = (*SUGGESTION_STATUSES, *CURRENT_STATUSES)
        imported = {m.id: m for m in found.values() if IMPORTED_KEY in (m.provenance or {}) and m.status in live}
        pairs = [(fp, memory_id) for fp, (memory_id, _) in seen.items() if memory_id in imported]
        self.store.record_mined(pairs, at=at)  # a fingerprint recorded already keeps its memory
        for fp, memory_id in pairs:
            m = imported[memory_id]
            if MINED_HERE_KEY in (m.provenance or {}):
                continue
            m = replace(m, provenance={**(m.provenance or {}), MINED_HERE_KEY: {"fingerprint": fp, "at": at}})
            imported[memory_id] = m
            self.store.replace_memory(m)
            self.store.add_events([event(m.id, "mined_here", at, fingerprint=fp)])

    def _suggested_memory(self, item: Suggestion, now: float, at: str) -> tuple[Memory, list[str]]:
        safe, kinds, _ = self._validate(item.text, item.type, item.source, ())
        provenance = dict(validation.provenance(item.provenance) or {})
        created = to_iso(from_iso(item.created_at))
        anchor: Anchor | None = None
        outcome = ANCHOR_WORKSPACE
        if item.file is not None:
            if item.symbol is not None:
                try:
                    anchor, outcome = self.resolve_anchor(item.file, item.symbol, as_indexed=True), ANCHOR_SYMBOL
                except InvalidMemoryError:
                    anchor = None
            if anchor is None:
                try:
                    anchor, outcome = self.resolve_anchor(item.file), ANCHOR_FILE
                except InvalidMemoryError:
                    anchor, outcome = None, ANCHOR_WORKSPACE
        provenance["anchor"] = outcome
        memory = Memory(
            id=new_id(now), type=MemoryType(item.type), text=safe, anchor=anchor, source=item.source,
            confidence=DEFAULT_CONFIDENCE.get(item.source, 0.8) if item.confidence is None else item.confidence,
            created_at=created, updated_at=at,
            status=MemoryStatus.SUGGESTED, provenance=provenance,
        )  # fmt: skip
        return memory, kinds

    def suggestions(self, file: str | Path | None = None, *, limit: int | None = None) -> list[Memory]:
        """Suggestions waiting for review (on ``file``, or everywhere), best first (``rank_suggestions``)."""
        rel = self.lookup_path(file) if file else None
        flt = MemoryFilter(file=rel, statuses=(MemoryStatus.SUGGESTED,))
        ranked = rank_suggestions(self.store.list_memories(flt, limit=-1), self.clock())  # -1: no limit
        ranked = sorted(ranked, key=self.bookkeeping_only)  # stable: the rest keep their order
        return ranked if limit is None else ranked[: max(0, limit)]

    def bookkeeping_only(self, suggestion: Memory) -> bool:
        """A proposal whose accepting changes only times and counts (a teammate's copy that differs from ours in
        when it was confirmed or seen): it still waits for a person, as all a shared file brings, but last."""
        if proposal_of(suggestion) is None:
            return False
        change = self.proposed_change(suggestion)
        return change is not None and change.bookkeeping_only

    def accept_suggestion(self, memory_id: str, text: str | None = None) -> Memory:
        """A person agrees: the suggestion becomes an active memory (its text edited first when given). A proposal
        (an action on another memory, ``forewarn.workspace.proposals``) is applied instead, and that memory returned."""
        m = self.store.resolve(memory_id)
        if m.status == MemoryStatus.DISMISSED:  # final, kept as history; the lesson can still be written anew
            where = f" --file {m.file}" + (f" --symbol {m.anchor.symbol}" if m.anchor and m.anchor.symbol else "")
            raise InvalidMemoryError(
                f"memory {m.id} was dismissed, which is final (it stays as history); to keep its lesson after all, "
                f"remember it yourself: forewarn remember TEXT --type {m.type}{where if m.file else ''}"
            )
        if m.status != MemoryStatus.SUGGESTED:
            raise InvalidMemoryError(f"memory {m.id} is {m.status}, not a suggestion; nothing to accept")
        if (proposal := proposal_of(m)) is not None:
            if text is not None:
                raise InvalidMemoryError(f"suggestion {m.id} proposes a change to memory {proposal.target}: it is "
                                         "accepted as it is or dismissed, not edited")  # fmt: skip
            done = self._apply_proposal(m, proposal)
            successor = self.store.get(done.superseded_by) if done.superseded_by else None
            if successor is not None and successor.status == MemoryStatus.SUGGESTED and proposal_of(successor) is None:
                # "theirs replaces mine": the replacement it names waits here too and is accepted with it, or the
                # lesson would be left with no vetted memory at all (the recheck of QA pass 5, F16)
                self.accept_suggestion(successor.id)
            return done
        safe: str | None = None
        kinds: list[str] = []
        vec: np.ndarray | None = None
        if text is not None:
            safe, kinds, _ = self._validate(text, m.type, m.source, ())
            vec = self._embed_one(safe) if safe != m.text else None
        with self._lock:
            _, at = self._now()
            with self.store.batch():
                current = self.store.get(m.id)
                if current is None or current.status != MemoryStatus.SUGGESTED:  # reviewed meanwhile elsewhere
                    raise InvalidMemoryError(
                        f"memory {m.id} was reviewed meanwhile (it is {current and current.status})"
                    )
                edited = safe is not None and safe != m.text
                if edited and safe is not None:
                    self.store.set_text(m.id, safe, at=at)
                    if vec is not None and self.vectors is not None:
                        self.vectors.put([m.num], vec.reshape(1, -1))
                self.store.update_status(
                    m.id, MemoryStatus.ACTIVE, at=at,
                    event=event(m.id, "accepted", at, previous_text=m.text if edited else None, redacted=kinds or None),
                )  # fmt: skip
                old = self.store.get(m.supersedes) if m.supersedes else None
                if old is not None and old.status in CURRENT_STATUSES:  # it proposed to replace that one: now it does
                    self.store.update_status(
                        old.id, MemoryStatus.SUPERSEDED, at=at, reason=f"superseded by {m.id}", ended_at=at,
                        superseded_by=m.id, event=event(old.id, "superseded", at, by=m.id),
                    )  # fmt: skip
                    self._settle_partners(old.id, at)
                elif old is not None and (now := self.store.get(m.id)) is not None:  # replaced here too: a fork
                    forks.flag_forks_of(self.store, now, old, at=at)
            # checked as the memory it now is: stale at once when its code is no longer what it was written on
            reconcile.settle_accepted(self.root, self.indexer, self.store, at, m.id)
            self._sync_vectors()
        accepted = self.store.resolve(m.id)
        self._remember_code([accepted])
        return accepted

    def dismiss_suggestion(self, memory_id: str) -> Memory:
        """A person says no: kept as history (status dismissed), and its fingerprint is never proposed again."""
        m = self.store.resolve(memory_id)
        if m.status == MemoryStatus.DISMISSED:
            return m
        if m.status != MemoryStatus.SUGGESTED:
            raise InvalidMemoryError(f"memory {m.id} is {m.status}, not a suggestion; use forget to archive it")
        with self._lock:
            _, at = self._now()
            self.store.update_status(
                m.id, MemoryStatus.DISMISSED, at=at, reason="dismissed", ended_at=at, event=event(m.id, "dismissed", at)
            )
        return self.store.resolve(m.id)

    def suggestion_diff(self, memory_id: str, *, max_lines: int = history.DIFF_CONTEXT_LINES) -> str:
        """What a mined memory stands on, for a reviewer: its newest commit's diff (the file as named
        then; a workspace-wide one: the commit's ``--stat``), or a warning comment's location."""
        m = self.store.resolve(memory_id)
        prov = m.provenance or {}
        raw = prov.get("commits")
        commits = [c for c in raw if isinstance(c, dict) and c.get("sha")] if isinstance(raw, list) else []
        if not commits:
            if prov.get("kind") and prov.get("line") is not None and m.file:
                where = f"{m.file}:{prov['line']}" + (f" ({m.anchor.symbol})" if m.anchor and m.anchor.symbol else "")
                head = f", mined at commit {str(prov['head'])[:7]}" if prov.get("head") else ""
                return f"warning comment ({prov['kind']}) at {where}{head}"
            raise InvalidMemoryError(f"memory {m.id} was not mined from history: it has no commit to show")
        newest = commits[0]  # mining lists a memory's commits newest first
        then = str(prov.get("then") or "").split("::", 1)[0]
        path = None if prov.get("anchor") == ANCHOR_WORKSPACE else then or m.file
        return history.commit_diff(self.root, str(newest["sha"]), path, max_lines=max_lines)

    def mined_memories_on(self, files: Sequence[str]) -> list[Memory]:
        """Mined memories (commit or comment), waiting or current, anchored in ``files``."""
        found = self.store.anchored_to_files(list(files), (*SUGGESTION_STATUSES, *CURRENT_STATUSES)) if files else []
        return [m for m in found if m.source in (MemorySource.COMMIT, MemorySource.COMMENT)]

    def withdraw_mined(self, shas: Iterable[str], *, reason: str) -> int:
        """Suggestions mined from these commits (full or abbreviated shas) that still wait are withdrawn: dismissed,
        with a ``withdrawn`` event saying why (their commit was reverted). What a person accepted stays."""
        named = [s for s in shas if s]
        waiting = self.store.list_memories(MemoryFilter(statuses=SUGGESTION_STATUSES), limit=-1)
        hits = [
            m for m in waiting
            if m.source == MemorySource.COMMIT and (m.provenance or {}).get("kind") != "hotspot"
            and any(str(c.get("sha", "")).startswith(n) for c in provenance_commits(m.provenance) for n in named)
        ]  # fmt: skip
        with self._lock:
            _, at = self._now()
            for m in hits:
                self.store.update_status(
                    m.id, MemoryStatus.DISMISSED, at=at, reason=f"withdrawn: {reason}", ended_at=at,
                    event=event(m.id, "withdrawn", at, reason=reason),
                )  # fmt: skip
        return len(hits)

    def update_mined_tracks(self, updates: Mapping[str, dict[str, Any]], *, only_changed: bool = True) -> int:
        """Replace mined memories' track records (``provenance["track"]``) and scale their confidence by the
        new record's factor over the old one's; how many changed. An imported memory's record is left as the file
        said it (shown as its claim): adding this history's fixes to it would pass the claim off as measured here."""
        changed = 0
        with self._lock, self.store.batch():
            for memory_id, record in updates.items():
                m = self.store.get(memory_id)
                if m is None or claimed(m.provenance):
                    continue
                old = track_of(m.provenance)
                if only_changed and old == record:
                    continue
                previous = float(old.get("factor", 1.0)) if old and isinstance(old.get("factor"), int | float) else 1.0
                confidence = round(track_confidence(m.confidence, record, previous=previous), 4)
                self.store.replace_memory(
                    replace(m, provenance={**(m.provenance or {}), TRACK: record}, confidence=confidence)
                )
                changed += 1
        return changed

    def mining_state(self, key: str) -> str | None:
        """What mining remembers between runs (e.g. ``last_mined_commit``)."""
        return self.store.mining_state(key)

    def set_mining_state(self, key: str, value: str) -> None:
        self.store.set_mining_state(key, value)
