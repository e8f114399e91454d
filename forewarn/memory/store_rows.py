"""How the memory store reads and writes a ``memories`` row: its columns, the ``Memory`` it becomes, and bounded
``IN (…)`` lists. Shared by :mod:`forewarn.memory.store` and the mixins the store is built from (private to them).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

from forewarn.memory.records import Anchor, Memory
from forewarn.memory.vocabulary import MemoryStatus, MemoryType, Visibility

log = logging.getLogger("forewarn.memory.store")  # the store's logger, as before the split

SQL_VARIABLE_CHUNK = 500  # stays far below SQLite's bound-parameter limit

_COLUMNS = """num, id, type, text, file, symbol, start_line, end_line, content_hash, source, confidence,
  created_at, updated_at, status, status_reason, last_accessed_at, access_count, surfaced_count, ended_at,
  supersedes, superseded_by, session_id, tags, provenance, visibility, recorded_by"""
_M_COLUMNS = ", ".join("m." + c.strip() for c in _COLUMNS.split(","))


def _row_to_memory(row: sqlite3.Row | tuple[Any, ...]) -> Memory:
    (num, id_, type_, text, file, symbol, start, end, chash, source, conf, created, updated, status, reason,
     accessed, access_count, surfaced, ended, supersedes, superseded_by, session_id, tags,
     prov, visibility, recorded_by) = tuple(row)  # fmt: skip
    anchor = Anchor(file, symbol, start, end, chash) if file is not None else None
    return Memory(
        id=id_, type=MemoryType(type_), text=text, anchor=anchor, source=source, confidence=conf, created_at=created,
        updated_at=updated, status=MemoryStatus(status), status_reason=reason, last_accessed_at=accessed,
        access_count=access_count, surfaced_count=surfaced, ended_at=ended, supersedes=supersedes,
        superseded_by=superseded_by, session_id=session_id, tags=tuple(json.loads(tags)), num=num,
        provenance=_provenance(prov), visibility=Visibility(visibility), recorded_by=recorded_by,
    )  # fmt: skip


def _provenance(raw: str | None) -> dict[str, Any] | None:
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:  # written by us, so only a damaged row gets here: show the memory without it
        log.warning("memory provenance is not JSON; ignored")
        return None
    return value if isinstance(value, dict) else None


def _provenance_json(memory: Memory) -> str | None:
    return json.dumps(memory.provenance, ensure_ascii=False) if memory.provenance is not None else None


def _chunks(items: Sequence[Any], size: int = SQL_VARIABLE_CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _placeholders(n: int) -> str:
    return ", ".join("?" * n)
