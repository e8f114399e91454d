"""What one version of a memory changes against another, as people read it: the import's report, a proposal in
review, an export's diff. No I/O."""

from __future__ import annotations

import re
from dataclasses import dataclass

from forewarn.memory.records import Anchor, Memory

SUMMARY_CHARS = 60  # of a text shown in an import's per-id report
BOOKKEEPING_ONLY = "times and counts only"  # an update that changes no text, status, anchor, type or tags
_UNPRINTABLE_RE = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def short(text: str) -> str:
    """``text`` on one line, printable, at most ``SUMMARY_CHARS``."""
    flat = _UNPRINTABLE_RE.sub("", " ".join(text.split()))
    return flat if len(flat) <= SUMMARY_CHARS else flat[: SUMMARY_CHARS - 1] + "…"


@dataclass(frozen=True, slots=True)
class FieldChange:
    """One field an update changes: ``text``, ``status``, ``anchor``…, from and to as people read them."""

    name: str
    before: str
    after: str

    def phrase(self) -> str:
        if self.name == "text":
            return f"text '{short(self.before)}' → '{short(self.after)}'"
        if self.name == "superseded_by":
            return f"superseded by {self.after}"
        return f"{self.name} {self.before} → {self.after}"

    def to_dict(self) -> dict[str, str]:
        return {"field": self.name, "from": self.before, "to": self.after}


def field_changes(old: Memory, new: Memory) -> list[FieldChange]:
    """What turning ``old`` into ``new`` changes that a person reads (times and counts aside)."""
    out: list[FieldChange] = []
    if old.text != new.text:
        out.append(FieldChange("text", old.text, new.text))
    for name in ("type", "status", "source", "confidence"):
        a, b = getattr(old, name), getattr(new, name)
        if a != b:
            out.append(FieldChange(name, str(a), str(b)))
    if new.superseded_by and old.superseded_by != new.superseded_by:
        out.append(FieldChange("superseded_by", old.superseded_by or "-", new.superseded_by))
    if old.anchor != new.anchor:
        a, b = _place(old.anchor), _place(new.anchor)
        if a == b:  # the same definition: its lines (or only its code's hash) differ
            a, b = _place(old.anchor, lines=True), _place(new.anchor, lines=True)
        out.append(FieldChange("anchor", a, b))
    if old.tags != new.tags:
        out.append(FieldChange("tags", ",".join(old.tags) or "-", ",".join(new.tags) or "-"))
    return out


def difference(old: Memory, new: Memory) -> str:
    """``text 'a' → 'b'; status active → archived``: what an update changes, for the import's report."""
    return "; ".join(c.phrase() for c in field_changes(old, new)) or BOOKKEEPING_ONLY


def _place(a: Anchor | None, *, lines: bool = False) -> str:
    if a is None:
        return "(workspace)"
    where = short(f"{a.file}::{a.symbol}" if a.symbol else a.file)
    return f"{where} lines {a.start_line}-{a.end_line}" if lines and a.start_line else where
