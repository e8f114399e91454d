"""Export and import of memories as JSON Lines: how a team shares what it learned, through its repository.

The file (by default ``<workspace>/.forewarn/memories.jsonl``) starts with a header line, then one
memory per line in id order (so re-exports diff cleanly), each with every field and its event
history. Import merges by id: an unknown id is added; for a known id the copy with the newer
``updated_at`` wins and the event histories are united, so nothing is lost either way. A file with
any malformed line is refused as a whole, naming the lines, before anything is written.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forewarn.memory.redact import redact
from forewarn.memory.store import (
    MEMORY_TYPES,
    STATUSES,
    Anchor,
    InvalidMemoryError,
    Memory,
    MemoryEvent,
    MemoryStore,
)
from forewarn.memory.text import ID_PREFIX_RE, from_iso, to_iso

log = logging.getLogger(__name__)

DEFAULT_RELATIVE_PATH = Path(".forewarn") / "memories.jsonl"
FORMAT = "forewarn-memories"
VERSION = 1
MAX_REPORTED_ERRORS = 10  # enough to fix a file by hand; the rest are summarised as a count


class TransferError(InvalidMemoryError):
    pass


@dataclass
class TransferReport:
    path: Path
    exported: int = 0
    added: int = 0
    updated: int = 0  # the incoming copy was newer and replaced ours
    unchanged: int = 0
    kept_local: int = 0  # ours was newer; only the incoming history was merged in
    events_added: int = 0
    redacted: int = 0
    replaced_nums: list[int] = field(default_factory=list)  # memories whose text changed (need new vectors)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path), "exported": self.exported, "added": self.added, "updated": self.updated,
            "unchanged": self.unchanged, "kept_local": self.kept_local, "events_added": self.events_added,
            "redacted": self.redacted,
        }  # fmt: skip


def memory_record(memory: Memory, events: list[MemoryEvent]) -> dict[str, Any]:
    data = memory.to_dict()
    data["events"] = [{k: v for k, v in e.to_dict().items() if k != "memory_id"} for e in events]
    return data


def export_jsonl(store: MemoryStore, path: Path) -> TransferReport:
    """Write every memory (all statuses) with its history; atomic (temporary file, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    report = TransferReport(path)
    memories = sorted(store.iter_all(), key=lambda m: m.id)
    with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(json.dumps({"format": FORMAT, "version": VERSION}) + "\n")
        for m in memories:
            fh.write(json.dumps(memory_record(m, store.events(m.id)), ensure_ascii=False, sort_keys=True) + "\n")
            report.exported += 1
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return report


def _iso(value: Any, name: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ValueError(f"'{name}' must be an ISO-8601 time")
    return to_iso(from_iso(value))


def _opt_str(data: dict[str, Any], name: str) -> str | None:
    v = data.get(name)
    if v is not None and not isinstance(v, str):
        raise ValueError(f"'{name}' must be a string or null")
    return v


def _opt_int(data: dict[str, Any], name: str) -> int | None:
    v = data.get(name)
    if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
        raise ValueError(f"'{name}' must be an integer or null")
    return v


def parse_record(data: Any) -> tuple[Memory, list[MemoryEvent]]:
    """A memory and its events from one exported line; ValueError names what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("a memory line must be a JSON object")
    mid = data.get("id")
    if not isinstance(mid, str) or not ID_PREFIX_RE.match(mid) or len(mid) != 26:
        raise ValueError("'id' must be a 26-character memory id")
    mid = mid.upper()
    type_ = data.get("type")
    if type_ not in MEMORY_TYPES:
        raise ValueError(f"'type' must be one of {', '.join(MEMORY_TYPES)}")
    status = data.get("status", "active")
    if status not in STATUSES:
        raise ValueError(f"'status' must be one of {', '.join(STATUSES)}")
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ValueError("'text' must be a non-empty string")
    source = data.get("source", "import")
    if not isinstance(source, str) or not source:
        raise ValueError("'source' must be a string")
    confidence = data.get("confidence", 1.0)
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 <= confidence <= 1:
        raise ValueError("'confidence' must be a number between 0 and 1")
    anchor: Anchor | None = None
    raw_anchor = data.get("anchor")
    if raw_anchor is not None:
        if not isinstance(raw_anchor, dict) or not isinstance(raw_anchor.get("file"), str) or not raw_anchor["file"]:
            raise ValueError("'anchor' must be null or an object with a 'file'")
        file = raw_anchor["file"]
        if file.startswith("/") or ".." in Path(file).parts:
            raise ValueError(f"anchor file '{file}' must be a path inside the workspace")
        anchor = Anchor(
            file, _opt_str(raw_anchor, "symbol"), _opt_int(raw_anchor, "start_line"), _opt_int(raw_anchor, "end_line"),
            _opt_str(raw_anchor, "content_hash"),
        )  # fmt: skip
    tags = data.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ValueError("'tags' must be a list of strings")
    counts = {}
    for name in ("access_count", "surfaced_count"):
        v = data.get(name, 0)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"'{name}' must be a non-negative integer")
        counts[name] = v
    created = _iso(data.get("created_at"), "created_at")
    assert created is not None
    memory = Memory(
        id=mid, type=type_, text=text, anchor=anchor, source=source, confidence=float(confidence),
        created_at=created, updated_at=_iso(data.get("updated_at", created), "updated_at") or created,
        status=status, status_reason=_opt_str(data, "status_reason"),
        last_accessed_at=_iso(data.get("last_accessed_at"), "last_accessed_at", optional=True),
        access_count=counts["access_count"], surfaced_count=counts["surfaced_count"],
        ended_at=_iso(data.get("ended_at"), "ended_at", optional=True),
        supersedes=_opt_str(data, "supersedes"), superseded_by=_opt_str(data, "superseded_by"),
        session_id=_opt_str(data, "session_id"), tags=tuple(tags),
    )  # fmt: skip
    events: list[MemoryEvent] = []
    raw_events = data.get("events", [])
    if not isinstance(raw_events, list):
        raise ValueError("'events' must be a list")
    for e in raw_events:
        if not isinstance(e, dict) or not isinstance(e.get("id"), str) or not isinstance(e.get("kind"), str):
            raise ValueError("each event needs an 'id' and a 'kind'")
        detail = e.get("detail", {})
        if not isinstance(detail, dict):
            raise ValueError("an event's 'detail' must be an object")
        at = _iso(e.get("at"), "event at")
        assert at is not None
        events.append(MemoryEvent(e["id"], mid, at, e["kind"], detail))
    return memory, events


def read_jsonl(path: Path) -> list[tuple[Memory, list[MemoryEvent]]]:
    """Every record of an export, or TransferError naming the bad lines (nothing partial)."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise TransferError(f"{path} does not exist (export first, or give the path of an export)") from None
    except OSError as exc:
        raise TransferError(f"cannot read {path}: {exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TransferError(f"{path} is not UTF-8 text ({exc})") from None
    records: list[tuple[Memory, list[MemoryEvent]]] = []
    errors: list[str] = []
    seen: set[str] = set()
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"line {lineno}: not JSON ({exc.msg})")
            continue
        if isinstance(data, dict) and "format" in data and "id" not in data:
            if data.get("format") != FORMAT or not isinstance(data.get("version"), int) or data["version"] > VERSION:
                errors.append(f"line {lineno}: not a Forewarn memory export of a version this Forewarn reads")
            continue
        try:
            record = parse_record(data)
        except ValueError as exc:
            errors.append(f"line {lineno}: {exc}")
            continue
        if record[0].id in seen:
            errors.append(f"line {lineno}: memory {record[0].id} appears twice")
            continue
        seen.add(record[0].id)
        records.append(record)
    if errors:
        more = f" (and {len(errors) - MAX_REPORTED_ERRORS} more)" if len(errors) > MAX_REPORTED_ERRORS else ""
        raise TransferError(
            f"{path} has {len(errors)} bad line(s); nothing was imported: "
            + "; ".join(errors[:MAX_REPORTED_ERRORS])
            + more
        )
    return records


def import_jsonl(store: MemoryStore, path: Path, *, clock: Callable[[], float] = time.time) -> TransferReport:
    """Merge an export into the store by id, in one transaction. Returns what happened."""
    records = read_jsonl(path)
    report = TransferReport(Path(path))
    with store.batch():
        existing = store.get_many([m.id for m, _ in records])
        to_insert: list[tuple[Memory, list[MemoryEvent]]] = []
        for memory, events in records:
            safe, kinds = redact(memory.text)
            if kinds:
                report.redacted += 1
                memory = dataclasses.replace(memory, text=safe)
            local = existing.get(memory.id)
            if local is None:
                to_insert.append((memory, events))
                report.added += 1
                continue
            if memory.updated_at > local.updated_at:
                store.replace_memory(memory)
                report.updated += 1
                if memory.text != local.text:
                    store.delete_vectors(local.num)
                    report.replaced_nums.append(local.num)
            elif _fields(memory) == _fields(local):
                report.unchanged += 1
            else:
                report.kept_local += 1
            report.events_added += store.add_events(events)
        store.insert_many(to_insert)
        report.events_added += sum(len(e) for _, e in to_insert)
    log.info("imported %s: %s", path, report.to_dict())
    return report


def _fields(m: Memory) -> dict[str, Any]:
    """Every field but ``num`` (the local row key, which differs between databases)."""
    return {f.name: getattr(m, f.name) for f in dataclasses.fields(m) if f.name != "num"}
