"""The shared memories file's format: its limits, and reading one checked line at a time.

``.forewarn/memories.jsonl`` (forewarn.memory.transfer writes and merges it) is someone else's input: every
field gets the checks ``remember`` applies (forewarn.memory.validation), times before 1970 are refused and times
past ``CLOCK_SKEW_S`` clamped, events are bounded in count, size and depth, and the file is read only as a
regular file under ``MAX_IMPORT_BYTES``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from forewarn import untrusted
from forewarn.memory import validation
from forewarn.memory.errors import InvalidMemoryError
from forewarn.memory.origin import shared_provenance
from forewarn.memory.records import Anchor, Memory, MemoryEvent
from forewarn.memory.store import STATUSES
from forewarn.memory.text import ID_PREFIX_RE, iso_of, parse_iso
from forewarn.memory.vocabulary import MemoryStatus, Visibility

FORMAT = "forewarn-memories"
VERSION = 1
MAX_REPORTED_ERRORS = 10  # enough to fix a file by hand; the rest are summarised as a count
MAX_IMPORT_BYTES = 64 * 1024 * 1024  # ~300k memories; a device, FIFO or runaway file is refused before reading
CLOCK_SKEW_S = 86_400.0  # a teammate's clock may run up to a day ahead; later times are clamped to now
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)  # nothing Forewarn stores predates the epoch
MAX_EVENTS_PER_MEMORY = 1_000  # a busy memory has tens; more is a flood that history could never shed
MAX_EVENT_DETAIL_CHARS = 64_000  # a merged or replaced text (20,000 chars) with its fields, twice over
MAX_DETAIL_DEPTH = 16  # our own details nest 4 deep (an imported replaced_by_import); more is hostile
EVENT_KIND_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
EXPORTED_AT_KEY = "exported_at"  # per memory: the commit (HEAD) the export that last changed its line was made at
MAX_RECORDED_BY_CHARS = 320  # "Name <email>": a long name and the longest valid address

# provenance this machine writes beside a memory's own, never exported and never taken from a file (as
# forewarn.memory.origin.LOCAL_KEYS): the shared file's copy of a lesson mined here too, and the reverse
SHARED_COPY_KEY = "shared_copy"  # {"from", "line", "at", "commit"…, "id", "status"}: a teammate's copy, merged in
MINED_HERE_KEY = "mined_here"  # {"fingerprint", "at"}: this machine's mining found the lesson an import brought
MACHINE_KEYS = (SHARED_COPY_KEY, MINED_HERE_KEY)

# what str.splitlines splits on that json.dumps(ensure_ascii=False) leaves raw (it escapes the C0 ones)
_LINE_BREAK_ESCAPES = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


class TransferError(InvalidMemoryError):
    pass


@dataclass(frozen=True, slots=True)
class Record:
    """One checked line of a shared file."""

    memory: Memory
    events: list[MemoryEvent]
    line: int
    clamped: dict[str, str]  # field → the future time the file gave (now stored as the import's time)
    exported_at: str | None = None  # the commit its line was last exported at


def jsonl_line(data: Any) -> str:
    """One JSON line that every reader splits back as one line, whatever the text holds."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True).translate(_LINE_BREAK_ESCAPES) + "\n"


class _Bad(ValueError):
    """A field of one line is unusable: ``field: reason``."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}")


def _checked(name: str, check: Callable[..., Any], *args: Any) -> Any:
    """``check(*args)``, its refusal reworded as ``name: reason``."""
    try:
        return check(*args)
    except InvalidMemoryError as exc:
        raise _Bad(name, str(exc)) from None


def _time(data: dict[str, Any], name: str, now: datetime, clamped: dict[str, str], *, default: Any = None) -> str:
    value = data.get(name, default)
    if not isinstance(value, str):
        raise _Bad(name, "must be an ISO-8601 time (e.g. 2025-03-01T12:00:00Z)")
    try:
        dt = parse_iso(value)
    except ValueError as exc:
        raise _Bad(name, str(exc)) from None
    if dt < EARLIEST:
        raise _Bad(name, f"'{value}' is before 1970; no memory is that old")
    if dt > now + timedelta(seconds=CLOCK_SKEW_S):
        clamped[name] = value
        dt = now
    return iso_of(dt)


def _opt_time(data: dict[str, Any], name: str, now: datetime, clamped: dict[str, str]) -> str | None:
    return None if data.get(name) is None else _time(data, name, now, clamped)


def _memory_id(value: Any, name: str) -> str:
    if not isinstance(value, str) or len(value) != 26 or not ID_PREFIX_RE.match(value):
        raise _Bad(name, "must be a 26-character memory id")
    return value.upper()


def _anchor(raw: Any, root: Path | None) -> Anchor | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("file"), str):
        raise _Bad("anchor", "must be null or an object with a 'file'")
    file = _checked("anchor.file", validation.anchor_path, raw["file"])
    if root is not None:
        _checked("anchor.file", validation.anchor_in_workspace, root, file)
    symbol = _checked("anchor.symbol", validation.label, raw.get("symbol"), "symbol", validation.MAX_SYMBOL_CHARS)
    start = _checked("anchor.start_line", validation.line, raw.get("start_line"), "start_line")
    end = _checked("anchor.end_line", validation.line, raw.get("end_line"), "end_line")
    if start is not None and end is not None and end < start:
        raise _Bad("anchor.end_line", f"line {end} is before start_line {start}")
    chash = _checked("anchor.content_hash", validation.label, raw.get("content_hash"), "content_hash")
    return Anchor(file, symbol, start, end, chash)


def _events(raw: Any, mid: str, now: datetime, clamped: dict[str, str]) -> list[MemoryEvent]:
    if not isinstance(raw, list):
        raise _Bad("events", "must be a list")
    if len(raw) > MAX_EVENTS_PER_MEMORY:
        raise _Bad("events", f"{len(raw):,} events; the limit is {MAX_EVENTS_PER_MEMORY:,} per memory")
    out: list[MemoryEvent] = []
    for i, e in enumerate(raw):
        name = f"events[{i}]"
        if not isinstance(e, dict):
            raise _Bad(name, "must be an object with an 'id', a 'kind' and an 'at'")
        eid = _checked(f"{name}.id", validation.label, e.get("id"), "an event id", 64, False)
        kind = e.get("kind")
        if not isinstance(kind, str) or not EVENT_KIND_RE.match(kind):
            raise _Bad(f"{name}.kind", "must be 1-64 letters, digits or _ . : -")
        at = _time(e, "at", now, clamped)
        detail = e.get("detail", {})
        if not isinstance(detail, dict):
            raise _Bad(f"{name}.detail", "must be an object")
        if validation.json_depth(detail) > MAX_DETAIL_DEPTH:
            raise _Bad(f"{name}.detail", f"nests deeper than {MAX_DETAIL_DEPTH} levels")
        size = len(json.dumps(detail, ensure_ascii=False))
        if size > MAX_EVENT_DETAIL_CHARS:
            raise _Bad(f"{name}.detail", f"is {size:,} characters; the limit is {MAX_EVENT_DETAIL_CHARS:,}")
        _checked(f"{name}.detail", validation.utf8, json.dumps(detail, ensure_ascii=False), "the detail")
        out.append(MemoryEvent(eid, mid, at, kind, detail))
    return out


def parse_record(data: Any, *, now: float | None = None, root: Path | None = None, line: int = 0) -> Record:
    """A memory and its events from one exported line, checked as ``remember`` checks its input.

    ``root``: the workspace, to keep anchors inside it through symbolic links. Raises ValueError
    ``field: reason`` on the first unusable field.
    """
    if not isinstance(data, dict):
        raise ValueError("a memory line must be a JSON object")
    now_dt = datetime.fromtimestamp(time.time() if now is None else now, UTC)
    clamped: dict[str, str] = {}
    mid = _memory_id(data.get("id"), "id")
    type_ = _checked("type", validation.memory_type, data.get("type"))
    status = data.get("status", MemoryStatus.ACTIVE)
    if status not in STATUSES:
        raise _Bad("status", f"unknown status '{status}'; use one of {', '.join(STATUSES)}")
    text = data.get("text")
    if not isinstance(text, str):
        raise _Bad("text", "must be a string")
    text = _checked("text", validation.memory_text, text)
    source = _checked("source", validation.source, data.get("source", "import"))
    confidence = _checked("confidence", validation.confidence, data.get("confidence", 1.0))
    raw_tags = data.get("tags", [])
    if not isinstance(raw_tags, list) or not all(isinstance(t, str) for t in raw_tags):
        raise _Bad("tags", "must be a list of strings")
    tags = _checked("tags", validation.tags, raw_tags)
    created = _time(data, "created_at", now_dt, clamped)
    memory = Memory(
        id=mid, type=type_, text=text, anchor=_anchor(data.get("anchor"), root), source=source,
        confidence=confidence, created_at=created,
        updated_at=_time(data, "updated_at", now_dt, clamped, default=created), status=MemoryStatus(status),
        status_reason=_checked("status_reason", validation.label, data.get("status_reason"), "status_reason"),
        last_accessed_at=_opt_time(data, "last_accessed_at", now_dt, clamped),
        access_count=_checked("access_count", validation.counter, data.get("access_count", 0), "access_count"),
        surfaced_count=_checked("surfaced_count", validation.counter, data.get("surfaced_count", 0), "surfaced_count"),
        ended_at=_opt_time(data, "ended_at", now_dt, clamped),
        supersedes=None if data.get("supersedes") is None else _memory_id(data["supersedes"], "supersedes"),
        superseded_by=None if data.get("superseded_by") is None else _memory_id(data["superseded_by"], "superseded_by"),
        session_id=_checked("session_id", validation.label, data.get("session_id"), "session_id"),
        tags=tags,
        provenance=exported_provenance(_checked("provenance", validation.provenance, data.get("provenance"))),
        visibility=_visibility(data.get("visibility", Visibility.TEAM)),
        recorded_by=_checked(
            "recorded_by", validation.label, data.get("recorded_by"), "recorded_by", MAX_RECORDED_BY_CHARS
        ),
    )  # fmt: skip
    events = _events(data.get("events", []), mid, now_dt, clamped)
    exported_at = _checked("exported_at", validation.label, data.get(EXPORTED_AT_KEY), "exported_at", 64)
    return Record(memory, events, line, clamped, exported_at)


def exported_provenance(provenance: dict[str, Any] | None) -> dict[str, Any] | None:
    """``provenance`` as a shared file holds it: without what only this machine records (``shared_provenance``
    and ``MACHINE_KEYS``)."""
    kept = shared_provenance(provenance)
    if kept is None or not any(k in kept for k in MACHINE_KEYS):
        return kept
    return {k: v for k, v in kept.items() if k not in MACHINE_KEYS} or None


def _visibility(value: Any) -> Visibility:
    if value not in tuple(Visibility):
        raise _Bad("visibility", f"must be one of {', '.join(Visibility)}")
    return Visibility(value)


def _read_capped(path: Path) -> bytes:
    """The file's bytes: a regular file of at most ``MAX_IMPORT_BYTES`` (never a device or a FIFO)."""
    try:
        data = untrusted.read_capped(path, MAX_IMPORT_BYTES)
    except untrusted.RefusedFile as exc:
        if exc.reason == untrusted.REFUSED_OVERSIZED:
            raise TransferError(
                f"{path} is larger than {MAX_IMPORT_BYTES // (1024 * 1024)} MiB, the most a memory export may be; "
                f"nothing was imported"
            ) from None
        raise TransferError(
            f"{path} is not a regular file (a device, a pipe or a folder); nothing was imported"
        ) from None
    except OSError as exc:
        raise TransferError(f"cannot read {path}: {exc.strerror or exc}") from None
    if data is None:
        raise TransferError(f"{path} does not exist (export first, or give the path of an export)")
    return data


def read_jsonl(
    path: Path,
    *,
    now: float | None = None,
    root: Path | None = None,
    skip_invalid: bool = False,
    data: bytes | None = None,
) -> tuple[list[Record], list[str]]:
    """Every good record of an export, and the ``line N: field: reason`` of each bad one.

    Bad lines refuse the whole file (TransferError naming them) unless ``skip_invalid``. ``data``: the file's
    bytes, already read (standard input); ``path`` then only names it.
    """
    if data is not None and len(data) > MAX_IMPORT_BYTES:
        raise TransferError(
            f"{path} is larger than {MAX_IMPORT_BYTES // (1024 * 1024)} MiB, the most a memory export may be; "
            f"nothing was imported"
        )
    raw = _read_capped(Path(path)) if data is None else data
    try:
        text = raw.decode("utf-8-sig")  # a byte order mark (a Windows editor's) is not part of the first line
    except UnicodeDecodeError as exc:
        raise TransferError(f"{path} is not UTF-8 text ({exc})") from None
    records: list[Record] = []
    errors: list[str] = []
    seen: set[str] = set()
    for lineno, line in enumerate(text.split("\n"), 1):  # "\n" only: U+2028 and friends are text, not breaks
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except RecursionError:
            errors.append(f"line {lineno}: not JSON (nested too deeply)")
            continue
        except ValueError as exc:  # JSONDecodeError, and integers past Python's digit limit
            errors.append(f"line {lineno}: not JSON ({json_problem(exc)})")
            continue
        if isinstance(data, dict) and "format" in data and "id" not in data:
            if data.get("format") != FORMAT or not isinstance(data.get("version"), int) or data["version"] > VERSION:
                # a format this Forewarn cannot read: its records may mean something else, so --skip-invalid
                # does not take them either
                raise TransferError(
                    f"{path} line {lineno}: not a Forewarn memory export of a version this Forewarn reads; "
                    "nothing was imported"
                )
            continue
        try:
            record = parse_record(data, now=now, root=root, line=lineno)
        except (ValueError, RecursionError) as exc:
            errors.append(f"line {lineno}: {exc}")
            continue
        if record.memory.id in seen:
            errors.append(f"line {lineno}: id: memory {record.memory.id} appears twice")
            continue
        seen.add(record.memory.id)
        records.append(record)
    if errors and not skip_invalid:
        more = f" (and {len(errors) - MAX_REPORTED_ERRORS} more)" if len(errors) > MAX_REPORTED_ERRORS else ""
        raise TransferError(
            f"{path} has {len(errors)} bad line(s); nothing was imported (--skip-invalid imports the rest): "
            + "; ".join(errors[:MAX_REPORTED_ERRORS])
            + more
        )
    return records, errors


def json_problem(exc: ValueError) -> str:
    """What is wrong with a line that is not JSON, with where on the line (json's own message ends "… at"
    without it: "Unterminated string starting at column 17")."""
    if not isinstance(exc, json.JSONDecodeError):
        return str(exc)
    at = " " if exc.msg.endswith(" at") else " at "
    return f"{exc.msg}{at}column {exc.colno}"
