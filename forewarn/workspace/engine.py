"""``Workspace``: the facade the CLI and the daemon use — code index + memories + embedder + session.

Threading: the engine may be shared by the daemon's threads. The store, the vector index and the
indexer each serialise their own calls with a lock; the engine adds one re-entrant lock around
compound writes (remember, supersede, reconcile, import) so their read-decide-write steps are
atomic. Embedding runs outside every lock, so a slow embedding never blocks a file-open lookup.
Several processes (two editor windows, the CLI) may share one workspace: SQLite (WAL, busy
timeout) arbitrates writes, and the vector index catches up with rows other processes added before
each vector query.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from forewarn.memory import lifecycle, transfer, validation
from forewarn.memory.errors import InvalidMemoryError
from forewarn.memory.lifecycle import ReconcileReport, event, same_anchor
from forewarn.memory.origin import proposal_of
from forewarn.memory.records import Anchor, Memory, MemoryFilter
from forewarn.memory.store import STATUSES
from forewarn.memory.text import age_text, from_iso, new_id
from forewarn.memory.vocabulary import (
    CURRENT_STATUSES,
    MemorySource,
    MemoryStatus,
    MemoryType,
    Visibility,
)
from forewarn.workspace import blame, reconcile, team
from forewarn.workspace.core import DEFAULT_CONFIDENCE
from forewarn.workspace.explaining import ExplainMixin
from forewarn.workspace.file_panel import FilePanelMixin
from forewarn.workspace.health import HealthMixin
from forewarn.workspace.opening import OpenMixin
from forewarn.workspace.results import (
    History,
    RememberResult,
)
from forewarn.workspace.searching import SearchMixin
from forewarn.workspace.suggested import SuggestionsMixin

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

MERGE_NEIGHBOURS = 10  # nearest memories checked for merge/supersession on remember


class Workspace(SuggestionsMixin, ExplainMixin, SearchMixin, OpenMixin, HealthMixin, FilePanelMixin):
    """Index + memories + embedder + session for one workspace. Create with :meth:`open`."""

    def remember(
        self,
        text: str,
        *,
        type: str = MemoryType.NOTE,
        file: str | Path | None = None,
        symbol: str | None = None,
        line: int | None = None,
        lines: tuple[int, int] | None = None,
        tags: Sequence[str] = (),
        source: str = MemorySource.USER,
        confidence: float | None = None,
        anchor: Anchor | None = None,
        status: MemoryStatus = MemoryStatus.ACTIVE,
        provenance: dict[str, Any] | None = None,
        proposes_to_supersede: str | None = None,
        private: bool = False,
        as_indexed: bool = False,
    ) -> RememberResult:
        """Store a new memory (redacted), or reinforce the same lesson already stored at the same anchor.

        ``status``: ``active``, or ``suggested`` for what waits for a person's review (an agent's note when
        agents are not trusted). ``provenance``: who proposed it (e.g. ``{"agent": {"name": …}}``).
        ``proposes_to_supersede``: a suggestion that, once accepted, replaces that current memory (an untrusted
        agent's supersede: nothing changes for the old one until a person accepts).
        ``private``: the writer's alone: never exported, and merged only into another private memory.
        """
        if status not in (MemoryStatus.ACTIVE, MemoryStatus.SUGGESTED):
            raise InvalidMemoryError(f"a new memory is active or suggested, not {status}")
        replaces: Memory | None = None
        if proposes_to_supersede is not None:
            if status != MemoryStatus.SUGGESTED:
                raise InvalidMemoryError("only a suggestion proposes to supersede; supersede replaces at once")
            replaces = self._supersedable(self.store.resolve(proposes_to_supersede))
        safe, kinds, clean_tags = self._validate(text, type, source, tags)
        prov = validation.provenance(provenance)
        if anchor is None:
            anchor = self.resolve_anchor(file, symbol, line, lines, as_indexed=as_indexed)
        vec = self._embed_one(safe)
        conf = DEFAULT_CONFIDENCE.get(source, 1.0) if confidence is None else max(0.0, min(1.0, confidence))
        with self._lock:
            now, at = self._now()
            visibility = Visibility.PRIVATE if private else Visibility.TEAM
            # contradictions first (D1/R9): a changed number, unit or polarity is a conflict, never a restatement
            conflicts = self._conflicts(safe, anchor, vec)
            merge_into = self._similar(safe, anchor, vec)
            if merge_into is not None and (
                merge_into.visibility != visibility  # a private note in a team memory's history would be exported
                or any(c.memory.id == merge_into.id for c in conflicts)
            ):
                merge_into = None
            if status == MemoryStatus.SUGGESTED and replaces is None:
                # an unvetted writer never reinforces or extends a memory, nor queues what already waits
                same = merge_into or self._similar(safe, anchor, vec, statuses=(MemoryStatus.SUGGESTED,))
                if same is not None and merge_into is None and self._says_otherwise(safe, anchor, vec, same):
                    same = None  # "note 8: …" beside "note 0: …": a changed number is another note, as for memories
                if same is not None and same.visibility == visibility:
                    return RememberResult(same, False, [c.memory for c in conflicts], kinds, conflicts, known=True)
            elif merge_into is not None and replaces is None:
                self.store.reinforce(
                    merge_into.id, at=at, confidence_gain=lifecycle.MERGE_CONFIDENCE_GAIN,
                    event=event(merge_into.id, "merged", at, text=safe, source=source, tags=list(clean_tags) or None),
                )  # fmt: skip
                merged = self.store.get(merge_into.id)
                assert merged is not None
                again = self._conflicts(safe, merged.anchor, vec, memory_id=merged.id)  # resolved pairs stay quiet
                return RememberResult(merged, True, [c.memory for c in again], kinds, again)
            memory = Memory(
                id=new_id(now), type=MemoryType(type), text=safe, anchor=anchor, source=source, confidence=conf,
                created_at=at, updated_at=at, session_id=self.session.current_session(), tags=clean_tags,
                status=status, provenance=prov, supersedes=replaces.id if replaces is not None else None,
                visibility=visibility, recorded_by=team.git_identity(self.root),
            )  # fmt: skip
            what = "suggested" if status == MemoryStatus.SUGGESTED else "created"
            with self.store.batch():
                stored = self.store.insert(memory, [event(memory.id, what, at, source=source, redacted=kinds or None)])
                if vec is not None and self.vectors is not None:
                    self.vectors.put([stored.num], vec.reshape(1, -1))
            self._sync_vectors()
            self._remember_code([stored])
            self.session.observe("memory", stored.id)
            return RememberResult(stored, False, [c.memory for c in conflicts], kinds, conflicts)

    def _similar(
        self,
        text: str,
        anchor: Anchor | None,
        vec: np.ndarray | None,
        *,
        statuses: Sequence[str] = CURRENT_STATUSES,
    ) -> Memory | None:
        """The memory at the same place saying the same thing (one of ``statuses``; proposals on other memories
        never count), to merge into (conflicts: ``_conflicts``)."""
        if vec is None or self.vectors is None:
            # lexical mode: only an identical lesson at the same place merges
            from forewarn.memory.text import normalise_text

            key = normalise_text(text)
            same = [m for m in self._at_anchor(anchor, statuses) if normalise_text(m.text) == key]
            same = [m for m in same if proposal_of(m) is None]
            return same[0] if same else None
        self.vectors.sync()
        near = self.vectors.query(vec, MERGE_NEIGHBOURS)
        loaded = self.store.by_nums([n for n, _ in near])
        for num, cos in near:
            m = loaded.get(num)
            if (
                m is not None
                and m.status in statuses
                and cos > lifecycle.MERGE_COSINE
                and same_anchor(m.anchor, anchor)
                and proposal_of(m) is None
            ):
                return m
        return None

    def supersede(self, memory_id: str, text: str, *, type: str | None = None) -> Memory:
        """Replace a memory with a new one at the same anchor; returns the new one.

        The old one stays as history (status superseded; ``new.supersedes`` is its id).
        """
        old = self._supersedable(self.store.resolve(memory_id))
        safe, kinds, tags = self._validate(text, type or old.type, old.source, old.tags)
        vec = self._embed_one(safe)
        with self._lock:
            now, at = self._now()
            anchor = lifecycle.current_anchor(old, self.indexer) if old.anchor else None
            new = Memory(
                id=new_id(now), type=validation.memory_type(type) if type else old.type, text=safe, anchor=anchor,
                source=old.source, confidence=old.confidence, created_at=at, updated_at=at, supersedes=old.id,
                session_id=self.session.current_session(), tags=tags, visibility=old.visibility,
                recorded_by=team.git_identity(self.root),
            )  # fmt: skip
            with self.store.batch():
                current = self.store.get(old.id)
                if current is None or current.status == MemoryStatus.SUPERSEDED:  # another process got there first
                    raise InvalidMemoryError(f"memory {old.id} was superseded meanwhile")
                stored = self.store.insert(
                    new, [event(new.id, "created", at, supersedes=old.id, redacted=kinds or None)]
                )
                self.store.update_status(
                    old.id, MemoryStatus.SUPERSEDED, at=at, reason=f"superseded by {new.id}", ended_at=at,
                    superseded_by=new.id, event=event(old.id, "superseded", at, by=new.id),
                )  # fmt: skip
                self._settle_partners(old.id, at)
                if vec is not None and self.vectors is not None:
                    self.vectors.put([stored.num], vec.reshape(1, -1))
            self._sync_vectors()
            self._remember_code([stored])
            return stored

    def accept(self, memory_id: str) -> None:
        """The user acted on a memory (opened it, applied it): reinforce and remember it this session."""
        m = self.store.resolve(memory_id)
        _, at = self._now()
        self.store.record_access([m.id], at)
        self.session.observe("memory", m.id)

    def list_memories(
        self,
        *,
        types: Sequence[str] = (),
        file: str | None = None,
        statuses: Sequence[str] = CURRENT_STATUSES,
        tags: Sequence[str] = (),
        limit: int = 50,
        offset: int = 0,
    ) -> list[Memory]:
        return self.store.list_memories(self._memory_filter(types, file, statuses, tags), limit=limit, offset=offset)

    def count_memories(
        self,
        *,
        types: Sequence[str] = (),
        file: str | None = None,
        statuses: Sequence[str] = CURRENT_STATUSES,
        tags: Sequence[str] = (),
        as_of: str | None = None,
    ) -> int:
        """How many memories ``list_memories`` pages through with these filters (``as_of``: written by then)."""
        flt = dataclasses.replace(self._memory_filter(types, file, statuses, tags), as_of=as_of)
        return self.store.count(flt)

    def _memory_filter(
        self, types: Sequence[str], file: str | None, statuses: Sequence[str], tags: Sequence[str]
    ) -> MemoryFilter:
        for s in statuses:
            if s not in STATUSES:
                raise InvalidMemoryError(f"unknown status '{s}'; use one of {', '.join(STATUSES)}")
        rel = self.lookup_path(file) if file else None
        return MemoryFilter(types=tuple(types), file=rel, statuses=tuple(statuses), tags=tuple(tags))

    def history(self, memory_id: str) -> History:
        """The supersession chain through this memory (oldest first) and each link's events."""
        m = self.store.resolve(memory_id)
        chain = [m]
        seen = {m.id}
        cur = m
        while cur.supersedes and cur.supersedes not in seen:
            prev = self.store.get(cur.supersedes)
            if prev is None:
                break
            chain.insert(0, prev)
            seen.add(prev.id)
            cur = prev
        cur = m
        while cur.superseded_by and cur.superseded_by not in seen:
            nxt = self.store.get(cur.superseded_by)
            if nxt is None:
                break
            chain.append(nxt)
            seen.add(nxt.id)
            cur = nxt
        return History(chain, {c.id: self.store.events(c.id) for c in chain})

    def expand_session(self, memory_id: str, *, limit: int = 20) -> list[Memory]:
        """The other memories written in the same session as this one (what else was learned then)."""
        m = self.store.resolve(memory_id)
        if not m.session_id:
            return []
        return [x for x in self.store.in_session(m.session_id, limit=limit + 1) if x.id != m.id][:limit]

    def default_export_path(self) -> Path:
        return self.root / transfer.DEFAULT_RELATIVE_PATH

    def export(self, path: Path | None = None, *, include_archived: bool = False) -> transfer.TransferReport:
        """Write the team file: the default path only inside the real workspace (a symlinked .forewarn is refused)."""
        if path is None:
            return transfer.export_jsonl(
                self.store, self.default_export_path(), include_archived=include_archived, confine_to=self.root,
                commit=team.head_or_none(self.root),
            )  # fmt: skip
        return transfer.export_jsonl(
            self.store, path, include_archived=include_archived, commit=team.head_or_none(self.root)
        )

    def _same_meaning(self, text: str, ours: Memory) -> bool:
        """An incoming text as close to ``ours`` as ``remember`` needs to merge (restatements on import)."""
        stored = self.store.vectors_for(self.embedder.model_id, [ours.num]).get(ours.num) if self.embedder else None
        vec = self._embed_one(text) if stored is not None else None
        if vec is None or stored is None or stored.shape != vec.shape:
            return False
        cos = float(np.dot(vec, stored) / ((np.linalg.norm(vec) * np.linalg.norm(stored)) or 1.0))
        return cos > lifecycle.MERGE_COSINE

    def import_(
        self,
        path: Path | None = None,
        *,
        embed: bool = True,
        dry_run: bool = False,
        skip_invalid: bool = False,
        accept: bool | None = None,
        data: bytes | None = None,
    ) -> transfer.TransferReport:
        """Merge a shared file (forewarn.memory.transfer): checked like ``remember``, anchors kept in the workspace.

        What it adds or changes waits for a person's review (suggestions; ``memory review``) unless ``accept`` is
        true, or None and the user's own config says ``[team] accept_imports = true``. Each memory records the file
        and the commit that last changed its line (``git blame``). ``data``: the file's bytes (standard input);
        ``path`` then only names it.
        """
        path = path or self.default_export_path()
        if accept is None and self.settings.team.accept_imports:
            how: str | None = ACCEPTED_BY_CONFIG
        else:
            how = ACCEPTED_BY_FLAG if accept else None
        label = STDIN_LABEL if data is not None and str(path) == "-" else _label(self.root, path)
        lines = blame.line_commits(self.root, path) if data is None else {}
        origin = transfer.ImportOrigin(label, lines, how)
        with self._lock:
            # memories whose text changed lost their (derived) vectors; backfill embeds them again
            report = transfer.import_jsonl(
                self.store, path, root=self.root, clock=self.clock, dry_run=dry_run, skip_invalid=skip_invalid,
                same_meaning=self._same_meaning if self.vectors is not None else None, origin=origin, data=data,
            )  # fmt: skip
        if not dry_run:
            self._place_imported([c.id for c in report.changes if c.action in ("added", "updated")])
        if embed and not dry_run:
            self.backfill_vectors()
        return report

    def _place_imported(self, ids: Sequence[str]) -> ReconcileReport:
        """Imported memories resolved against this workspace's code by their symbol (``reconcile.place_imported``):
        the shared file's lines and hash were the teammate's code (a line added above it on their branch, an edit
        inside it, their stale index), so a warning there showed on the wrong code here, and not as stale."""
        with self._lock:
            _, at = self._now()
            return reconcile.place_imported(self.root, self.indexer, self.store, at, ids)


ACCEPTED_BY_FLAG = "memory import --accept"  # how an import's memories were accepted without review (its origin says)
ACCEPTED_BY_CONFIG = "[team] accept_imports"
STDIN_LABEL = "standard input"


def _label(root: Path, path: Path) -> str:
    """How an imported file is named in origins: relative to the workspace when inside it, else as given."""
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except (OSError, ValueError):
        return str(path)


def memory_age(memory: Memory, now: float | None = None) -> str:
    """ "3 days", relative to ``now`` (the clock when None)."""
    return age_text((time.time() if now is None else now) - from_iso(memory.created_at))


__all__ = ["Workspace", "memory_age"]
