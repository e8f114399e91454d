"""Memories as compact Markdown for a model, packed into a token budget (pure: no I/O, no engine).

An agent pays for every token it reads, so each tool answers within a budget: entries are taken by type
priority (gotcha, error pattern, decision, dead end, then the rest), best first within a type, until the
budget is full; the answer then says how many it left out and how to get them. Tokens are estimated at
``CHARS_PER_TOKEN`` characters each (English prose and code average about four with the tokenizers agents
use), which is close enough to keep an answer near its budget without loading a tokenizer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from forewarn.memory.records import Memory
from forewarn.memory.vocabulary import MemoryStatus, MemoryType

CHARS_PER_TOKEN = 4
DEFAULT_BUDGET = 1000  # tokens per tool answer unless the agent asks otherwise
MIN_BUDGET = 100  # below this not even one memory fits with its place
MAX_BUDGET = 20_000  # a tenth of a large context window; more is the agent reading, not being warned
MAX_TEXT_CHARS = 800  # one memory's text in an answer; longer ones end in "…" (the resource has it whole)
# what an agent must not miss comes first; the rest keep the vocabulary's order
TYPE_PRIORITY: tuple[MemoryType, ...] = (
    MemoryType.GOTCHA,
    MemoryType.ERROR_PATTERN,
    MemoryType.DECISION,
    MemoryType.DEAD_END,
    *(t for t in MemoryType if t not in (MemoryType.GOTCHA, MemoryType.ERROR_PATTERN, MemoryType.DECISION,
                                         MemoryType.DEAD_END)),
)  # fmt: skip
_PRIORITY = {t: n for n, t in enumerate(TYPE_PRIORITY)}
LABELS = {
    MemoryType.GOTCHA: "gotcha",
    MemoryType.DECISION: "decision",
    MemoryType.ERROR_PATTERN: "error pattern",
    MemoryType.DEAD_END: "dead end",
    MemoryType.CONVENTION: "convention",
    MemoryType.PREFERENCE: "preference",
    MemoryType.TODO: "todo",
    MemoryType.NOTE: "note",
}


@dataclass(frozen=True, slots=True)
class Entry:
    """One memory to show, where it sits now (1-based line, None: file-wide or unknown) and why it is here."""

    memory: Memory
    line: int | None = None
    via: str | None = None  # a neighbour file whose definition the asked-about file uses
    score: float = 0.0
    group: str | None = None  # the heading it is listed under (the asked-about file), else its own file


@dataclass(frozen=True, slots=True)
class Packed:
    text: str
    shown: int
    left_out: int
    tokens: int


def tokens(text: str) -> int:
    """The estimated token count of ``text``."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def clip(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def status_note(memory: Memory) -> str:
    """What a reader must know about a memory's standing, or ''."""
    if memory.status == MemoryStatus.STALE:
        reason = memory.status_reason or "its code changed since it was written"
        return f" ⚠ may be outdated ({clip(reason, 120)}): check the code before relying on it"
    if memory.status == MemoryStatus.ORPHANED:
        return " ⚠ its code is gone (the symbol was deleted or could not be followed)"
    if memory.status == MemoryStatus.CONTESTED:  # a person marked it: it and another memory cannot both hold
        other = (memory.status_reason or "").removeprefix("contradicts ")
        return f" ⚠ contested (contradicts `{other}`; nobody has settled which holds)" if other else " ⚠ contested"
    if memory.status == MemoryStatus.SUGGESTED:
        return " (a suggestion: no person has accepted it yet)"
    if memory.status in (MemoryStatus.SUPERSEDED, MemoryStatus.ARCHIVED, MemoryStatus.DISMISSED):
        return f" ({memory.status}: history, not current)"
    return ""


def entry_line(entry: Entry) -> str:
    """``- **gotcha** `charge_card` (pay.py:12): text — id 0a1b2c3d`` plus standing and the neighbour it came via."""
    m = entry.memory
    anchor = m.anchor
    if anchor is None:
        where = "workspace-wide"
    elif entry.line is not None:
        where = f"{anchor.file}:{entry.line}"
    else:
        where = anchor.file
    symbol = f" `{anchor.symbol}`" if anchor is not None and anchor.symbol else ""
    via = f" (from `{entry.via}`, which this file uses)" if entry.via else ""
    label = LABELS.get(m.type, str(m.type))
    return f"- **{label}**{symbol} ({where}){via}: {clip(m.text)} — id `{m.id}`{status_note(m)}"


def priority_order(entries: Sequence[Entry]) -> list[int]:
    """Indexes of ``entries`` in packing order: type priority, then score (higher first), then given order."""
    return sorted(
        range(len(entries)), key=lambda i: (_PRIORITY.get(entries[i].memory.type, len(_PRIORITY)), -entries[i].score, i)
    )


def pack(
    entries: Sequence[Entry],
    budget: int,
    *,
    title: str,
    empty: str,
    group_by_file: bool = False,
    more_hint: str = "call again with a larger budget",
) -> Packed:
    """``title``, then as many entries as ``budget`` tokens hold (taken by ``priority_order``, shown in the given
    order, or under one heading per file), then a line saying how many were left out."""
    if not entries:
        text = f"{title}\n\n{empty}"
        return Packed(text, 0, 0, tokens(text))
    lines = [entry_line(e) for e in entries]
    footer_room = tokens(f"\n_{len(entries)} more left out by the {budget:,}-token budget ({more_hint})._") + 1
    used = tokens(title) + footer_room
    taken: set[int] = set()
    headings: set[str] = set()
    for i in priority_order(entries):
        cost = tokens(lines[i]) + 1
        heading = _heading(entries[i]) if group_by_file else None
        if heading is not None and heading not in headings:
            cost += tokens(heading) + 2
        if used + cost > budget:
            continue  # a shorter entry further down may still fit
        used += cost
        taken.add(i)
        if heading is not None:
            headings.add(heading)
    out = [title, ""]
    if group_by_file:
        by_heading: dict[str, list[int]] = {}
        for i in sorted(taken):
            by_heading.setdefault(_heading(entries[i]), []).append(i)
        for heading, idx in by_heading.items():
            out += [heading, *(lines[i] for i in idx), ""]
    else:
        out += [lines[i] for i in sorted(taken)]
        out.append("")
    left = len(entries) - len(taken)
    if left:
        out.append(f"_{left} more left out by the {budget:,}-token budget ({more_hint})._")
    text = "\n".join(out).rstrip() + "\n"
    return Packed(text, len(taken), left, tokens(text))


def _heading(entry: Entry) -> str:
    if entry.group is not None:
        return f"### {entry.group}"
    anchor = entry.memory.anchor
    return f"### {anchor.file}" if anchor is not None else "### workspace-wide"
