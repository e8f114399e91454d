"""How the memory commands show a memory: one line in a list, in full, as JSON (as of a time too), its events
and the code chunks a search returns. Every field may come from a teammate's file: all of it goes through
``cliutil.shown``."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from forewarn.cli import util as cliutil
from forewarn.indexing.parse import MODULE_SYMBOL
from forewarn.memory import transfer
from forewarn.memory.origin import IMPORTED_KEY, OriginKind, origin_of
from forewarn.memory.records import Memory, MemoryEvent
from forewarn.memory.shared_file import MINED_HERE_KEY, SHARED_COPY_KEY
from forewarn.memory.suggestions import provenance_line
from forewarn.memory.text import age_text, from_iso, to_iso
from forewarn.memory.timeline import Standing, standing_at
from forewarn.memory.vocabulary import Visibility
from forewarn.workspace.symbols import base_symbol, spoken_symbol

TOP_LEVEL = "top level"  # how search names code outside every definition (the index's ``<module>`` chunks)
TEXT_PREVIEW = 100  # characters of a memory shown per line in lists
TEXT_DIFF_LINES = 6  # of each side of a proposed text change shown under it (memory show prints the whole text)
ORIGIN_PREVIEW = 240  # where it came from, with the commit and the writer a file claims: one line of a wide terminal


def _anchor_text(m: Memory) -> str:
    a = m.anchor
    if a is None:
        return "(workspace)"
    if a.symbol:  # a repeated definition's internal ``#2`` never shows: its lines tell which one
        lines = f" (lines {a.start_line}-{a.end_line})" if a.start_line else ""
        where = f"{a.file}::{spoken_symbol(a.symbol, a.file)}{lines}"
    else:
        where = f"{a.file}:{a.start_line}" if a.start_line else a.file
    return cliutil.shown(where)


def _age(m: Memory, now: float | None = None) -> str:
    """ "3 days ago", or "just now" (``now``: as seen at that time, for --as-of)."""
    text = age_text((time.time() if now is None else now) - from_iso(m.created_at))
    return text if text == "just now" else text + " ago"


def memory_json(m: Memory, score: float | None = None, then: AsOf | None = None) -> dict[str, Any]:
    data = m.to_dict()
    data["age"] = _age(m)
    data["origin"] = origin_of(m).to_dict()  # where it came from, in the words every front end uses
    if then is not None:  # --as-of: what it was at that time; today's status beside it
        data.update(status=then.standing.status, status_reason=then.standing.reason, age=_age(m, then.epoch))
        data["status_now"], data["as_of"] = m.status, then.at
    if score is not None:
        data["score"] = round(score, 6)
    return data


@dataclass(frozen=True, slots=True)
class AsOf:
    """A memory as it stood at an --as-of time."""

    at: str  # ISO
    epoch: float
    standing: Standing


def _as_of(engine: Any, memories: list[Memory], when: str) -> dict[str, AsOf]:
    """Each memory's standing at ``when``, replayed from its history."""
    epoch = from_iso(when)
    at = to_iso(epoch)
    return {m.id: AsOf(at, epoch, standing_at(m, engine.store.events(m.id), at)) for m in memories}


def _one_line(text: str, n: int = TEXT_PREVIEW) -> str:
    flat = " ".join(text.split())
    return cliutil.shown(flat if len(flat) <= n else flat[: n - 1] + "…")


def _lock(m: Memory) -> str:
    return "🔒 " if m.visibility == Visibility.PRIVATE else ""


def _print_memory_line(m: Memory, extra: str = "", then: AsOf | None = None) -> None:
    shown_status = then.standing.status if then is not None else m.status
    status = "" if shown_status == "active" else f" [{cliutil.shown(shown_status)}]"
    age = _age(m, then.epoch if then is not None else None)
    print(f"{_lock(m)}{cliutil.shown(m.id)}  {cliutil.shown(m.type)}{status}  {_anchor_text(m)}  {age}{extra}")
    print(f"    ({_one_line(origin_of(m).phrase(), ORIGIN_PREVIEW)})")
    print(f"    {_one_line(m.text)}")


def _print_memory_full(m: Memory) -> None:
    show = cliutil.shown  # every field may come from a teammate's file: nothing reaches the terminal raw
    print(f"id:         {show(m.id)}")
    print(f"type:       {show(m.type)}")
    print(f"status:     {show(m.status)}" + (f" ({show(m.status_reason)})" if m.status_reason else ""))
    print(f"anchor:     {_anchor_text(m)}")
    origin = origin_of(m)
    print(f"origin:     {show(origin.phrase())}" + ("" if origin.vetted else " (not vetted: waits for a person)"))
    print(f"source:     {show(m.source)} (confidence {m.confidence:.2f})")
    if m.visibility == Visibility.PRIVATE:
        print("visibility: 🔒 private (yours alone: never exported)")
    if m.recorded_by:  # what the memory says; its origin says whether that was this machine's own identity
        print(f"recorded_by: {show(m.recorded_by)}")
    print(f"created:    {show(m.created_at)} ({_age(m)})")
    print(f"updated:    {show(m.updated_at)}")
    print(f"accessed:   {m.access_count} times" + (f", last {show(m.last_accessed_at)}" if m.last_accessed_at else ""))
    if m.tags:
        print(f"tags:       {', '.join(show(t) for t in m.tags)}")
    if m.supersedes:
        print(f"supersedes: {show(m.supersedes)}")
    if m.superseded_by:
        print(f"superseded by: {show(m.superseded_by)}")
    if (detail := provenance_line(m.provenance)) is not None and origin.kind == OriginKind.COMMIT:
        print(f"history:    {show(detail)}")
    print()
    print(show(m.text, lines=True))


def shared_notes(m: Memory) -> list[str]:
    """What the shared file says of a suggestion beside its own origin: the status a teammate's copy has there
    (their accept is worth a reviewer's knowing), and that mining here found the same lesson."""
    prov = m.provenance or {}
    out: list[str] = []
    copy = prov.get(SHARED_COPY_KEY)
    if isinstance(copy, dict):
        where = str(copy.get("from") or "a shared file") + (
            f", commit {str(copy['commit'])[:7]}" if copy.get("commit") else ""
        )
        out.append(f"also in {where} as {copy.get('id')}: {_their_status(copy.get('status'))}")
    mark = prov.get(IMPORTED_KEY)
    if isinstance(mark, dict) and m.status == "suggested" and mark.get("status") and "proposal" not in prov:
        out.append(f"the shared file says: {_their_status(mark.get('status'))}")
    if isinstance(prov.get(MINED_HERE_KEY), dict):
        out.append("mined from this history too")
    return [cliutil.shown(line) for line in out]


def _their_status(status: Any) -> str:
    if status in ("active", "stale", "orphaned", "contested"):
        return f"{status} there (a teammate accepted it)"
    return f"{status} there"


def print_proposed_change(change: Any, indent: str = "    ") -> None:
    """What accepting a proposal changes (``forewarn.workspace.proposals.ProposedChange``): one line, and a text
    change as the lines it removes and adds."""
    print(f"{indent}{cliutil.shown(change.phrase())}")
    for c in change.changes if change.blocked is None else []:
        if c.name == "text":
            for line in c.before.splitlines()[:TEXT_DIFF_LINES]:
                print(f"{indent}  - {cliutil.shown(line)}")
            for line in c.after.splitlines()[:TEXT_DIFF_LINES]:
                print(f"{indent}  + {cliutil.shown(line)}")


def code_name(chunk: Any) -> str:
    """A code chunk's definition as a person reads it: its name as the language writes it, without the index's
    ordinal (``Recipe#2`` is ``Recipe``: the lines beside it say which one); code outside every definition (the
    index's ``<module>``, ``<module>#2``) is "top level"."""
    if base_symbol(chunk.symbol) == MODULE_SYMBOL:
        return TOP_LEVEL
    return spoken_symbol(chunk.symbol, chunk.rel)


def _chunk_json(chunk: Any, score: float) -> dict[str, Any]:
    return {
        "file": chunk.rel,
        "symbol": chunk.symbol,
        "kind": chunk.kind,
        "start_line": chunk.start_line,
        "end_line": chunk.end_line,
        "signature": chunk.signature,
        "score": round(score, 6),
    }


def _event_text(e: MemoryEvent) -> str:
    """One event for people: a replaced version shows what it said; an imported one, what the file claimed."""
    d = e.detail
    if e.kind == transfer.REPLACED_EVENT:
        return (
            f"{e.kind}  (from {d.get('from')}; it was [{d.get('status')}] {d.get('type')}: "
            f"{_one_line(str(d.get('text', '')))})"
        )
    if e.kind == transfer.IMPORTED_EVENT and "original_kind" in d:
        inner = ", ".join(f"{k}={v}" for k, v in dict(d.get("original_detail") or {}).items())
        return f"{e.kind}  ({d['original_kind']} in a shared file" + (f": {_one_line(inner, 80)})" if inner else ")")
    detail = ", ".join(f"{k}={v}" for k, v in d.items() if k != "diff")  # the diff is printed below the line
    return e.kind + (f"  ({_one_line(detail, 80)})" if detail else "")
