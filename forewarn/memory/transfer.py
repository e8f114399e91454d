"""Export and import of memories as JSON Lines: how a team shares what it learned, through its repository.

The file (by default ``<workspace>/.forewarn/memories.jsonl``) starts with a header line, then one
memory per line in id order (so re-exports diff cleanly), each with every field and its event
history. Lines end with ``\\n`` only, and the writer escapes every other character ``str.splitlines``
would split on (U+0085, U+2028, U+2029), so any stored text survives the trip.

A shared file is someone else's input, so import trusts it no further than ``forewarn remember``
(reading and checking a line: forewarn.memory.shared_file):

- every field gets the same checks as ``remember`` (forewarn.memory.validation), and a file with a bad
  line is refused whole, naming each line, field and reason — or, asked (``skip_invalid``), the bad
  lines are skipped and reported;
- times before 1970 are refused; times more than ``CLOCK_SKEW_S`` in the future are clamped to now and
  reported, and a record with a clamped time can add a memory but never replace one (its "newer"
  cannot be trusted: a year-9999 copy must not pin itself over later local changes);
- what another person wrote waits for a person here: a new memory is stored as a suggestion (origin
  "imported", reviewable with ``memory review``), and a newer copy of a memory a person here vetted becomes a
  suggestion proposing to replace it (accepting applies it), unless the import is accepted (``--accept``, or
  ``[team] accept_imports`` in the user's own config: ``ImportOrigin.accepted``);
- merge by id: an unknown id is added; for a known id the copy with the newer ``updated_at`` replaces
  ours (as above), and ours is kept as history (a ``replaced_by_import`` event holding every field it had);
- where it came from is recorded by this machine (``provenance["imported"]``: the file, and the commit that
  last changed the line, from ``git blame``); what the file says about its writer stays a claim
  (``forewarn.memory.origin``), and a file can neither create a private memory nor set local provenance;
- a lesson this workspace mined too (the record's mining fingerprint, or a waiting suggestion at its anchor with
  the same text) stays one memory: ours, with the teammate's copy and its status recorded beside it;
- a locally superseded memory is not made current again by an import, and a purged one is not
  brought back;
- incoming events are recorded as ``imported`` (the original kind and detail inside), bounded in
  count, size and depth: a file cannot write history that reads as a local action.

Export leaves out forgotten (archived) memories unless asked, purged ones always, and writes
atomically: only to a regular file, and only inside the real workspace for the default path (a
symlinked ``.forewarn`` is refused).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from forewarn import untrusted
from forewarn.memory import forks, lifecycle
from forewarn.memory.copy_changes import difference, short
from forewarn.memory.origin import (
    IMPORTED_KEY,
    PROPOSAL_KEY,
    ProposalAction,
    proposal_of,
    with_local,
)
from forewarn.memory.records import KEPT_EVENT, RELATION_EVENT, REWORDED_EVENT, Memory, MemoryEvent
from forewarn.memory.redact import redact
from forewarn.memory.shared_file import (
    EXPORTED_AT_KEY,
    FORMAT,
    MAX_IMPORT_BYTES,
    SHARED_COPY_KEY,
    VERSION,
    Record,
    TransferError,
    exported_provenance,
    jsonl_line,
    read_jsonl,
)
from forewarn.memory.store import PURGED_REASON, MemoryStore
from forewarn.memory.text import ID_PREFIX_RE, new_id, normalise_text, to_iso
from forewarn.memory.vocabulary import CURRENT_STATUSES, MemoryStatus, Resolution, Visibility

log = logging.getLogger(__name__)

DEFAULT_RELATIVE_PATH = Path(".forewarn") / "memories.jsonl"

IMPORTED_EVENT = "imported"  # an event that came from a shared file: {"original_kind", "original_detail"}
REPLACED_EVENT = "replaced_by_import"  # the local version an import replaced, every field of it
CLAMPED_EVENT = "import_clamped"  # times of an imported record that lay in the future (the originals)
PURGED_EVENT = "purged"
MERGED_EVENT = "replaced_by_merge"  # a version the merge driver did not keep as current, every field of it
RELATION_KINDS = (Resolution.BOTH.value, Resolution.CONTESTED.value)  # what a relation event may record
RESTATED_EVENT = "restatement_merged"  # a teammate's near-identical memory, merged into ours by an import
SHARED_COPY_EVENT = "shared_copy_merged"  # a teammate's copy of a lesson mined here too, merged into our suggestion
MERGE_SOURCE = "git merge"  # the "from" of a version kept by the merge driver
# a teammate's memory at the same anchor whose distinct words overlap ours this much (Jaccard) says the same
# thing reworded ("Retry must be idempotent" / "retries must be idempotent!"), not a second lesson
RESTATEMENT_OVERLAP = 0.8
RESTATEMENT_MIN_WORDS = 4  # below this a one-word difference is a different lesson ("use X" / "avoid X")
NOT_HERE_LISTED = 3  # files an import names that are not here, listed by name (the rest counted)
_WORD_RE = re.compile(r"\w+")
# what git writes around a conflict; a side holding them was merged by hand badly: never written back
CONFLICT_MARKER_RE = re.compile(r"^(<{7}|={7}|>{7}|\|{7})( .*)?$")


PROPOSED_EVENT = "suggested"  # a proposal's own first event (as a mined suggestion's): {"source", "proposes", "target"}
MINED_EVENTS = frozenset({PROPOSED_EVENT, REWORDED_EVENT, KEPT_EVENT})  # events naming a mining fingerprint
UPDATE_FINGERPRINT = "import-update"  # mined-table key of a newer copy proposed once: never proposed twice
FINGERPRINT_CHARS = 1_000  # a mined fingerprint is "kind:sha:path::symbol"; longer is not one of ours


@dataclass(frozen=True, slots=True)
class ImportOrigin:
    """Where an import's file came from, as this machine found out (never what the file says of itself)."""

    label: str  # how people name it: ".forewarn/memories.jsonl", "standard input", the path given
    lines: dict[int, dict[str, Any]] = field(default_factory=dict)  # line -> {"commit", "author", "date"} (blame)
    # how its memories were accepted on import ("memory import --accept", "[team] accept_imports"); None: what
    # another person wrote waits for a person here (suggestions and proposals)
    accepted: str | None = None

    def mark(self, line: int, at: str, status: str | None = None) -> dict[str, Any]:
        """``provenance["imported"]`` for the record on ``line``; ``status``: the one the file gave it (a claim:
        ``active`` there says a teammate accepted it, which the review queue shows)."""
        out: dict[str, Any] = {"from": self.label, "line": line, "at": at, **self.lines.get(line, {})}
        if status is not None:
            out["status"] = status
        if self.accepted:
            out["accepted"] = self.accepted
        return out


@dataclass(frozen=True, slots=True)
class Change:
    """What an import did (or, dry, would do) to one memory."""

    id: str
    action: str  # added | updated | kept_local | skipped | contested  (unchanged memories are only counted)
    detail: str = ""  # updated: old → new; kept_local and skipped: why

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "action": self.action, "detail": self.detail}


class LeftOut(StrEnum):
    """Why export leaves a memory out of the team's file (private memories are counted apart)."""

    SUGGESTED = "suggested"  # waiting for a person's review: the team shares only what a person accepted
    DISMISSED = "dismissed"  # a person said no to it
    PROPOSAL = "proposal"  # a proposal already applied or forgotten: what it did travels with its target
    FORGOTTEN = "forgotten"  # archived by a person; written only with --include-archived
    PURGED = "purged"  # its text is gone for good


@dataclass
class TransferReport:
    path: Path
    exported: int = 0
    left_out: int = 0  # export: memories not written, private ones aside (the sum of ``left_out_by``)
    left_out_by: dict[str, int] = field(default_factory=dict)  # export: LeftOut reason → memories not written
    private: int = 0  # export: private memories, never written to a shared file
    merged: int = 0  # import: a teammate's restatement of one of ours, merged into ours (history kept)
    added: int = 0
    waiting: int = 0  # of ``added``: stored as suggestions, waiting for a person's review
    proposed: int = 0  # newer copies of memories a person vetted, stored as suggestions proposing the update
    updated: int = 0  # the incoming copy was newer and replaced ours (ours kept as a history event)
    unchanged: int = 0
    kept_local: int = 0  # ours was newer, or theirs could not be trusted to be; only history was merged in
    skipped: int = 0  # records not taken: purged here, or (skip_invalid) bad lines
    clamped: int = 0  # records with times in the future, clamped to now
    events_added: int = 0
    redacted: int = 0
    dry_run: bool = False
    changes: list[Change] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)  # "line N: field: reason" of skipped bad lines
    replaced_nums: list[int] = field(default_factory=list)  # memories whose text changed (need new vectors)
    anchored: int = 0  # import: records anchored to a file
    not_here: dict[str, int] = field(default_factory=dict)  # import: files they name that this workspace lacks → count

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path), "exported": self.exported, "left_out": self.left_out,
            "left_out_by": {reason.value: self.left_out_by.get(reason.value, 0) for reason in LeftOut},
            "private": self.private,
            "merged": self.merged, "added": self.added, "waiting": self.waiting, "proposed": self.proposed,
            "updated": self.updated, "unchanged": self.unchanged, "kept_local": self.kept_local,
            "skipped": self.skipped, "clamped": self.clamped, "events_added": self.events_added,
            "redacted": self.redacted, "dry_run": self.dry_run, "changes": [c.to_dict() for c in self.changes],
            "invalid": self.invalid, "anchored": self.anchored,
            "not_here": {"memories": sum(self.not_here.values()), "files": len(self.not_here),
                         "first": sorted(self.not_here)[:NOT_HERE_LISTED]},
        }  # fmt: skip


# ---------------------------------------------------------------- export


def memory_record(memory: Memory, events: list[MemoryEvent], *, exported_at: str | None = None) -> dict[str, Any]:
    """One memory's line. Keys are written sorted (``jsonl_line``), so the field order never varies."""
    data = memory.to_dict()
    data["provenance"] = exported_provenance(memory.provenance)  # where it arrived from is this machine's own record
    if data.get("provenance") is None:
        del data["provenance"]  # hand-written memories: the canonical line stays as it was
    del data["visibility"]  # the shared file holds team memories only: export never writes a private one
    if data.get("recorded_by") is None:
        del data["recorded_by"]
    data["events"] = [{k: v for k, v in e.to_dict().items() if k != "memory_id"} for e in events]
    if exported_at is not None:
        data[EXPORTED_AT_KEY] = exported_at
    return data


def exported(memory: Memory, *, include_archived: bool) -> bool:
    """Whether export writes ``memory``: never a purged one, never an unreviewed or dismissed suggestion
    (the team shares what a person accepted); a forgotten one only when asked."""
    return (
        memory.visibility != Visibility.PRIVATE and left_out_reason(memory, include_archived=include_archived) is None
    )


def left_out_reason(memory: Memory, *, include_archived: bool) -> LeftOut | None:
    """Why export does not write ``memory`` (None: it does, unless it is private, which is counted apart)."""
    if is_purged(memory):
        return LeftOut.PURGED
    if memory.status == MemoryStatus.SUGGESTED:
        return LeftOut.SUGGESTED
    if memory.status == MemoryStatus.DISMISSED:
        return LeftOut.DISMISSED
    if proposal_of(memory) is not None:
        return LeftOut.PROPOSAL  # this machine's review item; what accepting it did is exported with its target
    if memory.status == MemoryStatus.ARCHIVED and not include_archived:
        return LeftOut.FORGOTTEN
    return None


def is_purged(memory: Memory) -> bool:
    return memory.status == MemoryStatus.ARCHIVED and memory.status_reason == PURGED_REASON and not memory.text


def export_jsonl(
    store: MemoryStore,
    path: Path,
    *,
    include_archived: bool = False,
    confine_to: Path | None = None,
    commit: str | None = None,
) -> TransferReport:
    """Write the memories with their history; atomic (temporary file, then rename in the same folder).

    ``confine_to`` (the workspace, for the default path): every folder from it down to the file must be a
    real folder inside it, not a symbolic link. The target, when it exists, must be a regular file.
    ``commit``: HEAD, recorded as ``exported_at`` on the lines this export changes; a line that reads as
    it did in the file being replaced keeps its ``exported_at``, so a re-export changes nothing needlessly.
    Private memories are never written.
    """
    path = Path(path)
    report = TransferReport(path)
    dir_fd = _open_export_dir(path, confine_to)
    try:
        before = _previous_lines(dir_fd, path) if commit is not None else {}
        lines = [jsonl_line({"format": FORMAT, "version": VERSION})]
        for m in sorted(store.iter_all(), key=lambda m: m.id):
            if not exported(m, include_archived=include_archived):
                if m.visibility == Visibility.PRIVATE:
                    report.private += 1
                elif (reason := left_out_reason(m, include_archived=include_archived)) is not None:
                    report.left_out += 1
                    report.left_out_by[reason.value] = report.left_out_by.get(reason.value, 0) + 1
                continue
            data = memory_record(m, store.events(m.id))
            if commit is not None:
                same, at = before.get(m.id, ("", None))
                data[EXPORTED_AT_KEY] = at if at is not None and same == jsonl_line(data) else commit
            lines.append(jsonl_line(data))
            report.exported += 1
        untrusted.replace_file_at(dir_fd, path.name, "".join(lines).encode("utf-8"), path)
    except untrusted.RefusedWrite as exc:
        raise TransferError(f"{exc}; the export was not written") from None
    finally:
        os.close(dir_fd)
    return report


def _previous_lines(dir_fd: int, path: Path) -> dict[str, tuple[str, str | None]]:
    """id → (its line without ``exported_at``, that ``exported_at``) of the file an export replaces.

    Only a hint for keeping ``exported_at`` stable: anything unreadable is simply not reused.
    """
    try:
        fd = os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError:
        return {}
    out: dict[str, tuple[str, str | None]] = {}
    with os.fdopen(fd, "rb") as fh:
        raw = fh.read(MAX_IMPORT_BYTES + 1)
    if len(raw) > MAX_IMPORT_BYTES:
        return out
    for line in raw.decode("utf-8", "replace").split("\n"):
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            at = data.pop(EXPORTED_AT_KEY, None)
            out[data["id"]] = (jsonl_line(data), at if isinstance(at, str) else None)
    return out


def _open_export_dir(path: Path, confine_to: Path | None) -> int:
    """A descriptor of the folder to write in; with ``confine_to``, walked from it without following any link
    (forewarn.untrusted.open_folder, which ``forewarn init`` uses for ``.gitattributes`` too)."""
    if confine_to is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    root = Path(confine_to).resolve()
    parent = path.parent if path.parent.is_absolute() else root / path.parent
    try:
        rel = parent.relative_to(root) if parent.is_relative_to(root) else parent.resolve().relative_to(root)
    except ValueError:
        raise TransferError(f"{path} is outside the workspace {root}; export writes there only") from None
    try:
        return untrusted.open_folder(root, rel)
    except untrusted.RefusedWrite as exc:
        raise TransferError(f"{exc} (the export would land outside the workspace)") from None


# ---------------------------------------------------------------- merging


_WAITING = (MemoryStatus.SUGGESTED,)  # what a newer copy may replace without a person: it is not vetted yet


class _DryRun(Exception):
    """Raised inside the import's transaction to roll it back after counting."""


def import_jsonl(
    store: MemoryStore,
    path: Path,
    *,
    root: Path | None = None,
    clock: Callable[[], float] = time.time,
    dry_run: bool = False,
    skip_invalid: bool = False,
    same_meaning: Callable[[str, Memory], bool] | None = None,
    origin: ImportOrigin | None = None,
    data: bytes | None = None,
) -> TransferReport:
    """Merge an export into the store by id, in one transaction (rolled back when ``dry_run``).

    ``same_meaning(text, ours)``: whether an incoming text says what ``ours`` says by meaning (vectors, when
    the workspace has them), beside the textual check, to find a teammate's restatement. ``origin``: where the
    file came from (default: its name, nothing accepted); ``data``: its bytes when already read.
    """
    now = clock()
    records, invalid = read_jsonl(path, now=now, root=root, skip_invalid=skip_invalid, data=data)
    report = TransferReport(Path(path), dry_run=dry_run, invalid=invalid, skipped=len(invalid))
    origin = origin or ImportOrigin(Path(path).name)
    at = to_iso(now)
    source_name = origin.label
    try:
        with store.batch():
            existing = store.get_many([r.memory.id for r in records])
            to_insert: list[tuple[Memory, list[MemoryEvent]]] = []
            at_place: dict[tuple[str | None, str | None], list[Memory]] = {}  # current team memories per anchor
            in_file = {r.memory.id for r in records}
            waiting_at: dict[tuple[str | None, str | None], list[Memory]] = {}  # waiting suggestions per anchor
            fingerprints: list[tuple[str, str]] = []  # (mining fingerprint, memory id) of the lessons taken
            for n, rec in enumerate(records):
                memory = rec.memory
                safe, kinds = redact(memory.text)
                if kinds:
                    report.redacted += 1
                    memory = dataclasses.replace(memory, text=safe)
                mark = origin.mark(rec.line, at, str(rec.memory.status))
                memory = dataclasses.replace(memory, provenance=with_local(memory.provenance, IMPORTED_KEY, mark))
                events = [_as_imported(e) for e in rec.events]
                if rec.clamped:
                    report.clamped += 1
                    events.append(
                        MemoryEvent(new_id(now), memory.id, at, CLAMPED_EVENT, {"from": source_name, **rec.clamped})
                    )
                local = existing.get(memory.id)
                if local is None and memory.visibility == Visibility.PRIVATE:
                    report.skipped += 1  # private memories are never exported: a line saying so was written by hand
                    report.changes.append(
                        Change(memory.id, "skipped", "marked private; a shared file cannot create a private memory")
                    )
                    continue
                waits = origin.accepted is None and memory.status in CURRENT_STATUSES
                if local is None and (twin := _restated(store, memory, at_place, in_file, same_meaning)) is not None:
                    _merge_restatement(store, twin, memory, report, at=at, source_name=source_name)
                    continue
                if local is None and (ours := _mined_copy(store, memory, rec, in_file, waiting_at)) is not None:
                    _merge_mined_copy(store, ours, memory, mark, report, origin=origin, at=at)
                    continue
                if not is_purged(local or memory):  # mining here knows the lesson as this one from now on
                    fingerprints.extend((fp, memory.id) for fp in mined_fingerprints(rec))
                if local is None:
                    if waits:  # another person's words: a suggestion until a person here accepts it
                        memory = dataclasses.replace(memory, status=MemoryStatus.SUGGESTED, status_reason=None)
                        report.waiting += 1
                    to_insert.append((memory, events))
                    report.added += 1
                    detail = short(memory.text) + (" (waits for review: forewarn memory review)" if waits else "")
                    report.changes.append(Change(memory.id, "added", detail))
                    continue
                if is_purged(local):
                    report.skipped += 1
                    report.changes.append(Change(memory.id, "skipped", "purged here; not taken back"))
                    continue
                if memory.visibility != local.visibility:  # never flipped by a file: said, and ours kept
                    report.changes.append(
                        Change(
                            memory.id,
                            "kept_local",
                            f"visibility stays {local.visibility} (theirs: {memory.visibility})",
                        )
                    )
                if local.status in _WAITING and waits:  # still waiting for review: its newer copy waits instead
                    memory = dataclasses.replace(memory, status=local.status, status_reason=local.status_reason)
                why_not = _why_not_replace(memory, local, rec)
                if why_not is not None and _accepting_waiting(memory, local, rec, origin):
                    why_not = None  # import --accept: what waited from an earlier import of this copy is accepted
                if why_not is None and origin.accepted is None and local.status == MemoryStatus.DISMISSED:
                    why_not = "a person dismissed it here; a newer copy does not bring it back"
                if why_not is None and origin.accepted is None and local.status not in _WAITING:
                    _propose_update(store, local, memory, rec, report, now=now + (n + 1) * 1e-6, at=at)
                elif why_not is None:
                    store.replace_memory(memory)
                    events.append(
                        MemoryEvent(new_id(now), memory.id, at, REPLACED_EVENT, old_fields(local, source_name))
                    )
                    report.updated += 1
                    report.changes.append(Change(memory.id, "updated", difference(local, memory)))
                    if memory.text != local.text:
                        store.delete_vectors(local.num)
                        report.replaced_nums.append(local.num)
                elif _fields(memory) == _fields(local):
                    report.unchanged += 1
                else:
                    report.kept_local += 1
                    report.changes.append(Change(memory.id, "kept_local", why_not))
                report.events_added += store.add_events(events)
            store.insert_many(to_insert)
            store.record_mined(fingerprints, at=at)
            report.events_added += sum(len(e) for _, e in to_insert)
            if origin.accepted is not None:  # a pair's "both hold" or "contested" is a decision: a person's
                _relate(store, records)
            else:
                _note_skipped_relations(records)
            _flag_forks(store, records, report, at=at)
            _count_not_here(records, root, report)
            if dry_run:
                raise _DryRun
    except _DryRun:
        report.replaced_nums.clear()
    log.info("imported %s%s: %s", path, " (dry run)" if dry_run else "", report.to_dict())
    return report


def _count_not_here(records: Sequence[Record], root: Path | None, report: TransferReport) -> None:
    """How many records name a file this workspace does not have (another project's file, an old layout)."""
    files = [a.file for r in records if (a := r.memory.anchor) is not None]
    report.anchored = len(files)
    if root is None:
        return
    present: dict[str, bool] = {}
    for file in files:
        if file not in present:
            present[file] = os.path.lexists(root / file)
        if not present[file]:
            report.not_here[file] = report.not_here.get(file, 0) + 1


def _accepting_waiting(incoming: Memory, local: Memory, rec: Record, origin: ImportOrigin) -> bool:
    """An accepted import of the copy an earlier import left waiting for review (or a newer one)."""
    return (
        origin.accepted is not None
        and local.status in _WAITING
        and IMPORTED_KEY in (local.provenance or {})
        and not rec.clamped
        and incoming.updated_at >= local.updated_at
        and incoming.status != local.status
    )


def _propose_update(
    store: MemoryStore, local: Memory, incoming: Memory, rec: Record, report: TransferReport, *, now: float, at: str
) -> None:
    """A newer copy of a memory a person here vetted: a suggestion proposing the update (accepting applies it,
    ``forewarn.workspace.proposals``), stored once per copy, so importing the same file again proposes nothing."""
    fingerprint = f"{UPDATE_FINGERPRINT}:{local.id}:{_copy_key(incoming)}"
    seen = store.mined([fingerprint]).get(fingerprint)
    if seen is not None:
        waiting = seen[1] == MemoryStatus.SUGGESTED
        report.kept_local += 1
        why = (
            f"its newer copy waits for review as suggestion {seen[0]}"
            if waiting
            else (f"its newer copy was reviewed here before (suggestion {seen[0]}, {seen[1]})")
        )
        report.changes.append(Change(local.id, "kept_local", why))
        return
    proposal = {
        "action": ProposalAction.UPDATE.value, "target": local.id, "status": str(incoming.status),
        "status_reason": incoming.status_reason, "updated_at": incoming.updated_at, "ended_at": incoming.ended_at,
        "superseded_by": incoming.superseded_by,
    }  # fmt: skip
    carrier = dataclasses.replace(
        incoming, id=new_id(now), status=MemoryStatus.SUGGESTED, status_reason=None, created_at=incoming.updated_at,
        updated_at=at, ended_at=None, supersedes=None, superseded_by=None, last_accessed_at=None, access_count=0,
        surfaced_count=0, provenance={**(incoming.provenance or {}), PROPOSAL_KEY: proposal},
    )  # fmt: skip
    event = MemoryEvent(
        new_id(now), carrier.id, at, PROPOSED_EVENT, {"source": "import", "proposes": "update", "target": local.id}
    )
    store.insert_many([(carrier, [event])])
    store.record_mined([(fingerprint, carrier.id)], at=at)
    report.proposed += 1
    report.changes.append(
        Change(
            local.id,
            "proposed",
            f"a newer copy waits for review as suggestion {carrier.id}: {difference(local, incoming)}",
        )
    )


def _copy_key(m: Memory) -> str:
    """What identifies one copy of a memory (its content and time), for proposing each copy once."""
    body = json.dumps(
        [m.updated_at, m.text, str(m.type), str(m.status), m.anchor.to_dict() if m.anchor else None, list(m.tags)],
        ensure_ascii=False,
    )
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def _relations(records: list[Record]) -> list[tuple[str, str, str, str]]:
    """(memory id, other id, relation, at) of each well-formed relation event in the file; a bad detail is ignored."""
    out = []
    for rec in records:
        for e in rec.events:
            other, kind = e.detail.get("with"), e.detail.get("relation")
            if e.kind != RELATION_EVENT or kind not in RELATION_KINDS or not isinstance(other, str):
                continue
            if len(other) != 26 or ID_PREFIX_RE.match(other) is None or other.upper() == rec.memory.id:
                continue
            out.append((rec.memory.id, other.upper(), str(kind), e.at))
    return out


def _relate(store: MemoryStore, records: list[Record]) -> None:
    """Pairs a teammate resolved (both hold, contested) from the relation events in their history: the
    pair is not flagged again here either. The newest decision about a pair wins. Only for a file a person
    took on (``--accept``, their own ``[team] accept_imports``): a relation silences or raises a conflict
    between memories people here vetted, which a file nobody reviewed may not do."""
    for memory_id, other, kind, at in _relations(records):
        store.set_relation(memory_id, other, kind, at=at)


def _note_skipped_relations(records: list[Record]) -> None:
    skipped = _relations(records)
    if skipped:
        log.info(
            "%d relation(s) between memories in the shared file not applied: the import waits for review, and "
            "pairs it resolved are resolved here by a person (forewarn memory resolve)",
            len(skipped),
        )


def _flag_forks(store: MemoryStore, records: list[Record], report: TransferReport, *, at: str) -> None:
    """A memory the file says it replaces that another current memory replaces too (two teammates superseded
    it on two branches): the two replacements become one contested pair (forewarn.memory.forks), reported."""
    replacing = [r.memory for r in records if r.memory.supersedes]
    if not replacing:
        return
    olds = {m.supersedes for m in replacing}
    files = sorted({m.file for m in replacing if m.file})
    here = store.anchored_to_files(files, CURRENT_STATUSES)
    if any(m.file is None for m in replacing):
        here += store.workspace_wide(CURRENT_STATUSES)
    for a, b in forks.flag_forks(store, [m for m in here if m.supersedes in olds], at=at):
        for x, y in ((a, b), (b, a)):
            why = f"replaces {x.supersedes} as {y.id} does; settle with: forewarn memory resolve {a.id} {b.id}"
            report.changes.append(Change(x.id, "contested", why))


def is_restatement(a: str, b: str) -> bool:
    """Whether two texts say the same thing: equal once case and spacing are set aside, or (long enough to
    judge) sharing ``RESTATEMENT_OVERLAP`` of their distinct words."""
    if normalise_text(a) == normalise_text(b):
        return True
    wa, wb = set(_WORD_RE.findall(a.casefold())), set(_WORD_RE.findall(b.casefold()))
    if min(len(wa), len(wb)) < RESTATEMENT_MIN_WORDS:
        return False
    return len(wa & wb) / len(wa | wb) >= RESTATEMENT_OVERLAP


def _restated(
    store: MemoryStore,
    incoming: Memory,
    at_place: dict[tuple[str | None, str | None], list[Memory]],
    in_file: set[str],
    same_meaning: Callable[[str, Memory], bool] | None = None,
) -> Memory | None:
    """A current team memory of ours at the same anchor that ``incoming`` (a new id) restates, if any.

    Not one the file holds too: whoever wrote the file keeps both apart on purpose."""
    if incoming.status not in CURRENT_STATUSES or incoming.visibility != Visibility.TEAM:
        return None
    key = (incoming.file, incoming.anchor.symbol if incoming.anchor else None)
    if key not in at_place:
        at_place[key] = [m for m in _same_place(store, incoming, CURRENT_STATUSES) if m.visibility == Visibility.TEAM]
    others = [m for m in at_place[key] if m.id not in in_file]
    found = next((m for m in others if is_restatement(m.text, incoming.text)), None)
    if found is None and same_meaning is not None:
        found = next((m for m in others if same_meaning(incoming.text, m)), None)
    return found


def _same_place(store: MemoryStore, incoming: Memory, statuses: Sequence[MemoryStatus]) -> list[Memory]:
    """Our memories in ``statuses`` at ``incoming``'s anchor (its file and symbol, or workspace-wide)."""
    a = incoming.anchor
    here = store.anchored_to_files([a.file], statuses) if a else store.workspace_wide(statuses)
    return [m for m in here if lifecycle.same_anchor(m.anchor, a)]


def mined_fingerprints(rec: Record) -> list[str]:
    """The mining fingerprints a shared record carries: those its ``suggested`` events and its reworded comment's
    events name (also inside an earlier import's events) and those mining merged into it (``provenance["merged"]``)."""
    out: list[str] = []
    for e in rec.events:
        detail = e.detail.get("original_detail") if e.kind == IMPORTED_EVENT else e.detail
        kind = e.detail.get("original_kind") if e.kind == IMPORTED_EVENT else e.kind
        if kind in MINED_EVENTS and isinstance(detail, dict) and isinstance(detail.get("fingerprint"), str):
            out.append(detail["fingerprint"])
    merged = (rec.memory.provenance or {}).get("merged")
    if isinstance(merged, list):
        out.extend(fp for fp in merged if isinstance(fp, str))
    return list(dict.fromkeys(fp for fp in out if fp and len(fp) <= FINGERPRINT_CHARS))


def _mined_copy(
    store: MemoryStore,
    incoming: Memory,
    rec: Record,
    in_file: set[str],
    waiting_at: dict[tuple[str | None, str | None], list[Memory]],
) -> Memory | None:
    """The memory this workspace already holds for the lesson ``incoming`` (a new id) carries: the one its mining
    fingerprint was recorded for here (mined here, or an earlier import's copy), or else a waiting suggestion at
    the same anchor whose text is the same once case and spacing are set aside. Not one the file holds too."""
    if proposal_of(incoming) is not None or incoming.status not in CURRENT_STATUSES:
        return None  # an ended copy waits in no queue: it is kept as the file gives it
    hits = store.mined(mined_fingerprints(rec))
    found = store.get_many(sorted({mid for mid, status in hits.values() if status is not None}))
    known = [m for m in found.values() if m.id not in in_file and proposal_of(m) is None]
    if known:
        return min(known, key=lambda m: m.id)  # the first stored: what a later one was merged into
    key = (incoming.file, incoming.anchor.symbol if incoming.anchor else None)
    if key not in waiting_at:
        waiting_at[key] = [m for m in _same_place(store, incoming, _WAITING) if proposal_of(m) is None]
    same = normalise_text(incoming.text)
    return next((m for m in waiting_at[key] if m.id not in in_file and normalise_text(m.text) == same), None)


def _merge_mined_copy(
    store: MemoryStore,
    ours: Memory,
    theirs: Memory,
    mark: dict[str, Any],
    report: TransferReport,
    *,
    origin: ImportOrigin,
    at: str,
) -> None:
    """A teammate's copy of a lesson this workspace holds already: one memory, not two. A current one of ours
    takes it as a restatement; a waiting one keeps its own origin and records the copy beside it (where it came
    from, and the status the file gives it: a teammate's accept is shown in the queue); one a person here ended
    (dismissed, forgotten, superseded) stays ended, said in the report."""
    if ours.status in CURRENT_STATUSES:
        _merge_restatement(store, ours, theirs, report, at=at, source_name=origin.label)
        return
    if ours.status not in _WAITING:
        report.kept_local += 1
        why = f"the same lesson is {ours.status} here (memory {ours.id}); a copy does not bring it back"
        report.changes.append(Change(theirs.id, "kept_local", why))
        return
    copy = {**mark, "id": theirs.id}
    detail = {"from": origin.label, "id": theirs.id, "text": theirs.text, "status": str(mark.get("status")),
              "source": theirs.source, "recorded_by": theirs.recorded_by}  # fmt: skip
    added = store.add_events([MemoryEvent(f"shared-copy-{theirs.id}", ours.id, at, SHARED_COPY_EVENT, detail)])
    if not added and (ours.provenance or {}).get(SHARED_COPY_KEY, {}).get("id") == theirs.id:
        report.unchanged += 1
        return
    provenance = {**(ours.provenance or {}), SHARED_COPY_KEY: copy}
    accept = origin.accepted is not None and theirs.status in CURRENT_STATUSES
    store.replace_memory(dataclasses.replace(ours, provenance=provenance))
    if accept:  # import --accept: the file's copy is taken as it is, so the lesson is accepted here
        store.update_status(
            ours.id, theirs.status, at=at,
            event=MemoryEvent(new_id(), ours.id, at, "accepted", {"by": origin.accepted}),
        )  # fmt: skip
    report.merged += 1
    report.events_added += added
    said = f"; {'accepted' if accept else 'waits for review'} as one suggestion"
    report.changes.append(Change(ours.id, "merged", f"the same lesson as {theirs.id} in the shared file{said}"))


def _merge_restatement(
    store: MemoryStore, ours: Memory, theirs: Memory, report: TransferReport, *, at: str, source_name: str
) -> None:
    """Keep a teammate's restatement as history of ours (an event holding its id, text and writer), and
    reinforce ours; the event's id is derived from theirs, so importing the same file again adds nothing."""
    detail = {
        "from": source_name, "id": theirs.id, "text": theirs.text, "source": theirs.source,
        "recorded_by": theirs.recorded_by, "created_at": theirs.created_at, "tags": list(theirs.tags),
    }  # fmt: skip
    if store.add_events([MemoryEvent(f"restated-{theirs.id}", ours.id, at, RESTATED_EVENT, detail)]):
        store.reinforce(ours.id, at=at, confidence_gain=lifecycle.MERGE_CONFIDENCE_GAIN, event=None)
        report.merged += 1
        report.events_added += 1
        report.changes.append(Change(ours.id, "merged", f"restated by {theirs.id}: '{short(theirs.text)}'"))
    else:
        report.unchanged += 1


def _why_not_replace(incoming: Memory, local: Memory, rec: Record) -> str | None:
    """None when the incoming copy should replace ours; otherwise why ours stands."""
    if rec.clamped:
        return f"theirs is dated in the future ({', '.join(sorted(rec.clamped))}), so cannot be newer"
    if incoming.updated_at <= local.updated_at:
        return "ours is newer"
    if local.status == MemoryStatus.SUPERSEDED and incoming.status != MemoryStatus.SUPERSEDED:
        return f"superseded here by {local.superseded_by}; an import does not make it current again"
    return None


def _as_imported(e: MemoryEvent) -> MemoryEvent:
    """An incoming event, attributed to the import: its kind and detail kept inside, never as a local action."""
    if e.kind == IMPORTED_EVENT:
        return e
    return MemoryEvent(e.id, e.memory_id, e.at, IMPORTED_EVENT, {"original_kind": e.kind, "original_detail": e.detail})


def old_fields(m: Memory, source_name: str) -> dict[str, Any]:
    """The replaced version, as history keeps it (``memory history`` shows it; nothing of it is lost)."""
    return {
        "from": source_name, "text": m.text, "type": m.type, "status": m.status, "status_reason": m.status_reason,
        "anchor": m.anchor.to_dict() if m.anchor else None, "tags": list(m.tags), "source": m.source,
        "confidence": m.confidence, "updated_at": m.updated_at, "ended_at": m.ended_at,
        "superseded_by": m.superseded_by,
    }  # fmt: skip


def _fields(m: Memory) -> dict[str, Any]:
    """Every field but ``num`` (the local row key, which differs between databases) and what this machine alone
    records (where and when it was imported)."""
    out = {f.name: getattr(m, f.name) for f in dataclasses.fields(m) if f.name != "num"}
    out["provenance"] = exported_provenance(m.provenance)
    return out
