"""What changed in the shared memories file between two versions (``forewarn memory diff``)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from forewarn.memory.copy_changes import difference
from forewarn.memory.merging import MergeReport, rank_copy, read_side, version_key
from forewarn.memory.records import Memory
from forewarn.memory.vocabulary import MemoryStatus


@dataclass(frozen=True, slots=True)
class ExportChange:
    """One memory that differs between two versions of a shared file (``forewarn memory diff``)."""

    id: str
    change: str  # added | changed | superseded | forgotten | removed
    memory: Memory  # the later version (the earlier one for ``removed``)
    detail: str = ""  # changed: what changed; superseded: by which memory; added: how it stands if not current

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "change": self.change, "detail": self.detail, "memory": self.memory.to_dict()}


def diff_exports(before: bytes | None, after: bytes | None, *, now: float | None = None) -> list[ExportChange]:
    """The memories added, changed, superseded, forgotten or removed from ``before`` to ``after``, by id.

    Lines that do not parse are passed over (``memory import`` names them); counters alone are no change.
    """
    now = time.time() if now is None else now
    old = read_side(before, "before", now, MergeReport(), strict=False).copies
    new = read_side(after, "after", now, MergeReport(), strict=False).copies
    out: list[ExportChange] = []
    for mid in sorted(old.keys() | new.keys()):
        if mid not in new:
            out.append(ExportChange(mid, "removed", max(old[mid], key=rank_copy)[0].memory))
            continue
        m = max(new[mid], key=rank_copy)[0].memory
        if mid not in old:
            out.append(ExportChange(mid, "added", m, _standing(m)))
            continue
        was = max(old[mid], key=rank_copy)[0].memory
        if version_key(was) == version_key(m):
            continue
        if m.status == MemoryStatus.SUPERSEDED and was.status != MemoryStatus.SUPERSEDED:
            out.append(ExportChange(mid, "superseded", m, f"by {m.superseded_by}" if m.superseded_by else ""))
        elif m.status == MemoryStatus.ARCHIVED and was.status != MemoryStatus.ARCHIVED:
            out.append(ExportChange(mid, "forgotten", m))
        else:
            out.append(ExportChange(mid, "changed", m, difference(was, m)))
    return out


def _standing(m: Memory) -> str:
    """How a memory the file gained already stands when it is no longer current (a teammate forgot or replaced
    it before it was shared): "forgotten", "superseded by …"; empty for a current one."""
    if m.status == MemoryStatus.ARCHIVED:
        return "forgotten"
    if m.status == MemoryStatus.SUPERSEDED:
        return f"superseded by {m.superseded_by}" if m.superseded_by else "superseded"
    return ""
