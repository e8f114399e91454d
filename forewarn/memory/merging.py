"""Merging two exports of the shared memories file: the git merge driver's work (``forewarn merge-driver``)."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

from forewarn.memory.records import Memory
from forewarn.memory.shared_file import FORMAT, VERSION, Record, TransferError, jsonl_line, parse_record
from forewarn.memory.transfer import (
    CONFLICT_MARKER_RE,
    IMPORTED_EVENT,
    MERGE_SOURCE,
    MERGED_EVENT,
    old_fields,
)
from forewarn.memory.vocabulary import MemoryStatus, Visibility


@dataclass
class MergeReport:
    """What merging two versions of a shared file did (``forewarn merge-driver`` prints it on stderr)."""

    memories: int = 0  # memory lines written
    differed: int = 0  # ids both sides held in different versions: the preferred kept, the other as history
    versions_kept: int = 0  # versions not kept as current, written into their memory's history
    private_left_out: int = 0  # lines marked private: a shared file never holds them
    kept_lines: int = 0  # lines that could not be read as memories, written back unchanged at the end
    markers_dropped: int = 0  # conflict-marker lines of an earlier hand merge
    problems: list[str] = field(default_factory=list)  # "ours line N: reason"


@dataclass
class _Side:
    copies: dict[str, list[tuple[Record, dict[str, Any]]]] = field(default_factory=dict)
    bad: list[str] = field(default_factory=list)


def merge_exports(
    base: bytes | None, ours: bytes, theirs: bytes, *, now: float | None = None
) -> tuple[bytes, MergeReport]:
    """Merge two versions of a shared file by memory id, with import's rules; the canonical result.

    Every id of either side is kept. Where the sides differ, the preferred copy (``rank_copy``: a superseded
    copy before a current one, a trusted time before a clamped one, then the newer ``updated_at``, then the
    line itself) is kept whole, events of both are united by id, and each other version (unless it is the
    base's, which the winner already descends from) becomes a ``replaced_by_merge`` event whose id is
    derived from its fields: whichever order branches merge in, the result is the same bytes. Lines that
    do not parse are kept at the end, unchanged; private lines are left out. Raises TransferError only
    when a side is a file this Forewarn cannot read at all (a newer format).
    """
    now = time.time() if now is None else now
    report = MergeReport()
    sides = [read_side(ours, "ours", now, report), read_side(theirs, "theirs", now, report)]
    base_side = read_side(base, "base", now, MergeReport()) if base else _Side()
    lines = [jsonl_line({"format": FORMAT, "version": VERSION})]
    ids = sorted({i for side in sides for i in side.copies})
    for mid in ids:
        copies = [c for side in sides for c in side.copies.get(mid, [])]
        base_copies = base_side.copies.get(mid, [])
        lines.append(jsonl_line(_combine(copies, base_copies[0][0] if base_copies else None, report)))
        report.memories += 1
    kept = sorted({line for side in sides for line in side.bad})
    report.kept_lines = len(kept)
    lines += [line + "\n" for line in kept]
    return "".join(lines).encode("utf-8", "surrogateescape"), report


def read_side(data: bytes | None, name: str, now: float, report: MergeReport) -> _Side:
    side = _Side()
    text = (data or b"").decode("utf-8", "surrogateescape")  # undecodable bytes survive the round trip
    for lineno, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        if CONFLICT_MARKER_RE.match(line):
            report.markers_dropped += 1
            continue
        try:
            raw = json.loads(line)
        except (ValueError, RecursionError):
            side.bad.append(line)
            report.problems.append(f"{name} line {lineno}: not JSON; kept as it is")
            continue
        if isinstance(raw, dict) and "format" in raw and "id" not in raw:
            if raw.get("format") != FORMAT or not isinstance(raw.get("version"), int) or raw["version"] > VERSION:
                raise TransferError(
                    f"{name} (line {lineno}) is not a Forewarn memory export of a version this Forewarn reads; "
                    f"upgrade Forewarn to merge it"
                )
            continue
        try:
            record = parse_record(raw, now=now, line=lineno)
        except (ValueError, RecursionError) as exc:
            side.bad.append(line)
            report.problems.append(f"{name} line {lineno}: {exc}; kept as it is")
            continue
        if record.memory.visibility == Visibility.PRIVATE:
            report.private_left_out += 1
            report.problems.append(f"{name} line {lineno}: memory {record.memory.id} is private; left out")
            continue
        side.copies.setdefault(record.memory.id, []).append((record, raw))
    return side


def rank_copy(copy: tuple[Record, dict[str, Any]]) -> tuple[bool, bool, str, str]:
    """Import's rules as an order, best last: a superseded copy is never made current again, a copy dated in
    the future cannot be trusted to be newer, then the newer ``updated_at`` wins; the line breaks ties."""
    rec, raw = copy
    return (rec.memory.status == MemoryStatus.SUPERSEDED, not rec.clamped, rec.memory.updated_at, jsonl_line(raw))


def version_key(m: Memory) -> str:
    """What makes a version worth keeping as history: its content, not its counters."""
    return jsonl_line(old_fields(m, MERGE_SOURCE))


def _combine(copies: list[tuple[Record, dict[str, Any]]], base: Record | None, report: MergeReport) -> dict[str, Any]:
    best_rec, best_raw = max(copies, key=rank_copy)
    events: dict[str, dict[str, Any]] = {}
    for _, raw in copies:
        for e in raw.get("events") or []:
            eid = str(e["id"])
            events[eid] = _preferred_event(events[eid], e) if eid in events else e
    skip = {version_key(best_rec.memory)} | ({version_key(base.memory)} if base is not None else set())
    if len({jsonl_line(raw) for _, raw in copies}) > 1:
        report.differed += 1
    for rec, _ in copies:
        key = version_key(rec.memory)
        if key in skip:
            continue
        skip.add(key)
        eid = "merge-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
        if eid not in events:
            detail = old_fields(rec.memory, MERGE_SOURCE)
            events[eid] = {"id": eid, "at": rec.memory.updated_at, "kind": MERGED_EVENT, "detail": detail}
            report.versions_kept += 1
    out = dict(best_raw)
    out["events"] = sorted(events.values(), key=lambda e: (str(e.get("at")), str(e.get("id"))))
    return out


def _preferred_event(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """One event id in two forms (a teammate's re-export wraps it as ``imported``): the original form first,
    then the smaller line, so the choice never depends on which side is which."""
    return min(a, b, key=lambda e: (e.get("kind") == IMPORTED_EVENT, jsonl_line(e)))
