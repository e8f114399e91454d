"""Merging two exports of the shared memories file: the git merge driver's work (``forewarn merge-driver``).

git hands the driver whatever ``.gitattributes`` routes to it, and a branch can route ``*.py`` there: the
driver merges only Forewarn memories files (a header first, every line JSON) and refuses anything else
(``NotMemoriesFile``), so git leaves its ordinary conflict and the file untouched. Events are history: an
event id that two versions spell differently keeps the base's version under its id and every other
version beside it under an id derived from its content, so no merge rewrites what happened.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

from forewarn.memory import forks
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
    rival_events: int = 0  # event versions kept beside another version of the same event id
    forks: list[tuple[str, str, str]] = field(default_factory=list)  # (replaced id, a, b): flagged contested
    problems: list[str] = field(default_factory=list)  # "ours line N: reason"


class NotMemoriesFile(TransferError):
    """A side that is not a Forewarn memories file (no header first, or a line that is not JSON): the driver
    merges nothing, so git keeps its ordinary conflict."""


RIVAL_EVENT_PREFIX = "rival-"  # an event version kept beside another of the same id; the id derives from both


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
    line itself) is kept whole, events of both are united by id (``_events``: never one version of an event
    over another), and each other version (unless it is the base's, which the winner already descends from)
    becomes a ``replaced_by_merge`` event whose id is derived from its fields: whichever order branches merge
    in, the result is the same bytes. Two current memories that both replace one memory (two teammates
    superseded it) get a contested relation (forewarn.memory.forks). JSON lines that are not valid memories
    are kept at the end, unchanged; private lines are left out. Raises NotMemoriesFile when a side is not a
    memories file, TransferError when it is one this Forewarn cannot read (a newer format).
    """
    now = time.time() if now is None else now
    report = MergeReport()
    sides = [read_side(ours, "ours", now, report), read_side(theirs, "theirs", now, report)]
    base_side = read_side(base, "base", now, MergeReport()) if base else _Side()
    lines = [jsonl_line({"format": FORMAT, "version": VERSION})]
    ids = sorted({i for side in sides for i in side.copies})
    merged: dict[str, tuple[Memory, dict[str, Any]]] = {}
    for mid in ids:
        copies = [c for side in sides for c in side.copies.get(mid, [])]
        base_copies = base_side.copies.get(mid, [])
        merged[mid] = _combine(copies, base_copies[0] if base_copies else None, report)
    _flag_forks(merged, report)
    for mid in ids:
        lines.append(jsonl_line(merged[mid][1]))
        report.memories += 1
    kept = sorted({line for side in sides for line in side.bad})
    report.kept_lines = len(kept)
    lines += [line + "\n" for line in kept]
    return "".join(lines).encode("utf-8", "surrogateescape"), report


def read_side(data: bytes | None, name: str, now: float, report: MergeReport, *, strict: bool = True) -> _Side:
    """One side's memories by id; an empty side holds none. NotMemoriesFile unless the first line (conflict
    markers aside) is a Forewarn header and every line is JSON: the driver writes nothing it cannot read.
    Not ``strict`` (``memory diff``, which only reads), such lines are passed over."""
    side = _Side()
    text = (data or b"").decode("utf-8", "surrogateescape")  # undecodable bytes survive the round trip
    header = False
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
            if not strict:
                side.bad.append(line)
                continue
            raise NotMemoriesFile(
                f"{name} is not a Forewarn memories file (line {lineno} is not JSON)"
                if header
                else f"{name} is not a Forewarn memories file (its first line is not a Forewarn header)"
            ) from None
        if strict and not header and not (isinstance(raw, dict) and raw.get("format") == FORMAT and "id" not in raw):
            raise NotMemoriesFile(f"{name} is not a Forewarn memories file (its first line is not a Forewarn header)")
        header = True
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


def _combine(
    copies: list[tuple[Record, dict[str, Any]]], base: tuple[Record, dict[str, Any]] | None, report: MergeReport
) -> tuple[Memory, dict[str, Any]]:
    best_rec, best_raw = max(copies, key=rank_copy)
    events = _events([raw for _, raw in copies], base[1] if base is not None else None, report)
    skip = {version_key(best_rec.memory)} | ({version_key(base[0].memory)} if base is not None else set())
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
    return best_rec.memory, out


def _events(sides: list[dict[str, Any]], base: dict[str, Any] | None, report: MergeReport) -> dict[str, dict[str, Any]]:
    """Every event of the copies, by id. An event is what happened: one id in several versions (a branch that
    re-dated or reworded it) keeps the base's version under its id — else the smallest line — and every
    other version beside it under an id derived from the original id and the version, so none is lost and
    the result does not depend on which side is which. The same event re-exported by a teammate (wrapped
    as ``imported``) is one version, kept in its original form."""
    base_events = {str(e["id"]): e for e in (base or {}).get("events") or []}
    versions: dict[str, dict[str, dict[str, Any]]] = {}  # id -> its versions as written -> preferred form
    for raw in sides:
        for e in raw.get("events") or []:
            eid = str(e["id"])
            key = as_written(e)
            forms = versions.setdefault(eid, {})
            forms[key] = _preferred_form(forms[key], e) if key in forms else e
    out: dict[str, dict[str, Any]] = {}
    for eid, forms in versions.items():
        if eid in base_events:  # the version every branch started from, even if both sides rewrote it
            key = as_written(base_events[eid])
            forms[key] = _preferred_form(forms[key], base_events[eid]) if key in forms else base_events[eid]
            keep = key
        else:
            keep = min(forms, key=lambda k: jsonl_line(forms[k]))
        out[eid] = forms[keep]
        for key, e in sorted(forms.items()):
            if key == keep:
                continue
            rid = RIVAL_EVENT_PREFIX + hashlib.sha256(f"{eid}\n{key}".encode()).hexdigest()[:32]
            if rid not in out:
                out[rid] = {**e, "id": rid}
                report.rival_events += 1
    return out


def as_written(e: dict[str, Any]) -> str:
    """An event as its writer recorded it (time, kind, detail), unwrapped from a teammate's ``imported`` copy."""
    kind, detail = e.get("kind"), e.get("detail")
    if kind == IMPORTED_EVENT and isinstance(detail, dict) and "original_kind" in detail:
        kind, detail = detail.get("original_kind"), detail.get("original_detail")
    return jsonl_line({"at": e.get("at"), "kind": kind, "detail": detail if detail is not None else {}})


def _preferred_form(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """One event in two forms (a teammate's re-export wraps it as ``imported``): the original form first, then
    the smaller line, so the choice never depends on which side is which."""
    return min(a, b, key=lambda e: (e.get("kind") == IMPORTED_EVENT, jsonl_line(e)))


def _flag_forks(merged: dict[str, tuple[Memory, dict[str, Any]]], report: MergeReport) -> None:
    """Two current memories replacing one memory (two teammates superseded it on two branches): each gets a
    ``relation`` event saying it is contested with the other, unless history already relates the pair.
    An import then marks both contested (forewarn.memory.forks.flag_forks)."""
    for a, b in forks.fork_pairs(m for m, _ in merged.values()):
        written = [json.loads(as_written(e)) for e in merged[a.id][1]["events"]]
        if forks.settled(((e["kind"], e["detail"]) for e in written if isinstance(e["detail"], dict)), b.id):
            continue
        for x, y in ((a, b), (b, a)):
            raw = merged[x.id][1]
            raw["events"] = sorted(
                [*raw["events"], forks.relation_event(x, y)], key=lambda e: (str(e.get("at")), str(e.get("id")))
            )
        report.forks.append((a.supersedes or "", a.id, b.id))
