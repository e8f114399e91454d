"""What a session taught, proposed for a person's review: fixed failures and undone edits.

* A command fails, the agent edits code, the same command passes: one ``error_pattern`` suggestion — the
  error's signature, the command, the definitions the edits changed in between, and what the first change did —
  anchored to the changed definition the error went through (else the one changed most).
* An edit undone in the same session (a later edit that puts back exactly the text an earlier one replaced): one
  ``dead_end`` suggestion saying what was tried, on the definition it was tried on.

Both are written like every agent's memory: source ``agent``, provenance naming the host and its session,
status ``suggested`` until a person accepts it (active at once only when the user's own settings trust agents),
redacted and checked by ``Workspace.remember``. Bounded: at most ``MAX_CAPTURES_PER_SESSION`` per session, and
none while ``MAX_PENDING_AGENT_SUGGESTIONS`` agent suggestions already wait for review.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from forewarn.errors import ForewarnError
from forewarn.mcp.hooks.events import HOST_LABELS, Edit, HookEvent
from forewarn.mcp.hooks.session import MAX_NOTE_CHARS, MAX_SUMMARY_CHARS, EditNote, SessionState
from forewarn.memory.records import MemoryFilter
from forewarn.memory.vocabulary import MemorySource, MemoryStatus, MemoryType
from forewarn.workspace.agents import MAX_PENDING_AGENT_SUGGESTIONS  # one queue, one bound: MCP's and the hooks'
from forewarn.workspace.engine import Workspace
from forewarn.workspace.symbols import spoken_symbol

log = logging.getLogger(__name__)

MAX_CAPTURES_PER_SESSION = 10  # a session that "learns" more than this is thrashing, not learning
MAX_COMMAND_KEY_CHARS = 300
MIN_PREFIX_WORDS = 2  # ``pytest tests/a.py`` and ``pytest tests/a.py -x`` are one command; ``git`` is not ``git add``
MAX_FILE_BYTES = 2_000_000  # a file searched for an edit's new text; past this an edit there counts file-wide
SUMMARY_LINE_CHARS = 120
SHOWN_SYMBOLS = 3  # definitions named in a captured lesson
MAX_TEXT_CHARS = 900


def command_key(command: str) -> str:
    """A command as compared between runs: whitespace collapsed, bounded."""
    return " ".join(command.split())[:MAX_COMMAND_KEY_CHARS]


def same_command(a: str, b: str) -> bool:
    """The same command, or one with options added (``pytest tests/a.py`` / ``pytest tests/a.py -x``)."""
    if a == b:
        return True
    wa, wb = a.split(), b.split()
    n = min(len(wa), len(wb))
    return n >= MIN_PREFIX_WORDS and wa[:n] == wb[:n]


def fresh(ws: Workspace, rels: Sequence[str]) -> None:
    """Re-index those of ``rels`` that changed on disk since the index saw them (anchors and staleness follow)."""
    known = ws.indexer.files()
    changed: list[str] = []
    for rel in rels:
        rec = known.get(rel)
        try:
            st = (ws.root / rel).stat()
        except OSError:
            continue
        if rec is None or rec.size != st.st_size or rec.mtime_ns != st.st_mtime_ns:
            changed.append(rel)
    if changed:
        ws.reindex(changed)


def record_edits(
    ws: Workspace, event: HookEvent, rels: Sequence[str], state: SessionState, *, trust_agents: bool
) -> None:
    """Note where each edit landed (the definition holding its new text, from the index's spans: the lines before
    an edit do not move) and capture an edit that put back what an earlier one of the session replaced."""
    now = time.time()
    for rel in rels:
        try:
            with open(ws.root / rel, "rb") as fh:
                text = fh.read(MAX_FILE_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        spans = [(s, start, end) for s, kind, start, end in ws.indexer.chunk_spans(rel) if kind != "module"]
        for edit in [e for e in event.edits if _same_file(ws, e.path, rel)] or [Edit(rel)]:
            symbol = _holding(spans, _lines_of(text, edit.new or ""))
            key = f"{rel}::{symbol or ''}"
            state.edit_count += 1
            state.edited.append((state.edit_count, key))
            old, new = _note(edit.old), _note(edit.new)
            undone = next(
                (n for n in reversed(state.edits)
                 if n.file == rel and not n.undone and n.old and n.new and n.old == new and n.new == old),
                None,
            )  # fmt: skip
            if undone is not None:
                undone.undone = True
                _dead_end(ws, event, undone, state, trust_agents=trust_agents)
                continue
            state.edits.append(EditNote(rel, key, old, new, _summary([edit], rel), now))


def on_pass(ws: Workspace, event: HookEvent, state: SessionState, *, trust_agents: bool) -> None:
    """A command passed: if it failed earlier in the session and edits came in between, capture the fix."""
    key = command_key(event.command or "")
    matched = [f for f in state.failures if same_command(f.command, key)]
    if not matched:
        return
    for f in matched:
        state.failures.remove(f)
    failure = min(matched, key=lambda f: f.edits_before)
    changed = list(dict.fromkeys(k for n, k in state.edited if n > failure.edits_before))
    if not changed:  # passed with no edit in between: flaky, or the environment changed
        return
    counts = Counter(k for n, k in state.edited if n > failure.edits_before)
    on_trace = [k for k in changed if k.split("::", 1)[0] in failure.files]
    chosen = on_trace[0] if on_trace else max(changed, key=lambda k: (counts[k], -changed.index(k)))
    rel, symbol = chosen.split("::", 1)
    names = ", ".join(_name(k) for k in changed[:SHOWN_SYMBOLS]) + (
        f" and {len(changed) - SHOWN_SYMBOLS} more" if len(changed) > SHOWN_SYMBOLS else ""
    )
    note = next((n for n in reversed(state.edits) if n.key == chosen and not n.undone), None)
    how = f": {note.summary}" if note is not None and note.summary else ""
    text = f"{failure.signature} — `{failure.command}` failed until {names} changed{how}"
    _suggest(
        ws, event, state, text[:MAX_TEXT_CHARS], MemoryType.ERROR_PATTERN, rel, symbol or None,
        {"captured": "failure fixed", "command": failure.command[:200]}, trust_agents=trust_agents,
    )  # fmt: skip


def _dead_end(ws: Workspace, event: HookEvent, undone: EditNote, state: SessionState, *, trust_agents: bool) -> None:
    rel, symbol = undone.key.split("::", 1)
    where = f"`{spoken_symbol(symbol, rel)}`" if symbol else f"`{rel}`"
    text = f"Tried on {where} and undone in the same session: {undone.summary or 'an edit'}"
    _suggest(
        ws, event, state, text[:MAX_TEXT_CHARS], MemoryType.DEAD_END, rel, symbol or None, {"captured": "edit undone"},
        trust_agents=trust_agents,
    )  # fmt: skip


def _suggest(
    ws: Workspace, event: HookEvent, state: SessionState, text: str, mtype: MemoryType, rel: str,
    symbol: str | None, detail: dict[str, Any], *, trust_agents: bool,
) -> None:  # fmt: skip
    if state.captured >= MAX_CAPTURES_PER_SESSION:
        log.info("not capturing: this session proposed %d already", state.captured)
        return
    pending = ws.store.list_memories(MemoryFilter(statuses=(MemoryStatus.SUGGESTED,)), limit=-1)
    if sum(1 for m in pending if m.source == MemorySource.AGENT) >= MAX_PENDING_AGENT_SUGGESTIONS:
        log.info("not capturing: %d agent suggestions already wait for review", MAX_PENDING_AGENT_SUGGESTIONS)
        return
    provenance = {
        "agent": {"name": HOST_LABELS[event.host], "version": None},
        "session": event.session[:64] or None,
        **detail,
    }
    status = MemoryStatus.ACTIVE if trust_agents else MemoryStatus.SUGGESTED
    try:
        try:
            ws.remember(text, type=mtype, file=rel, symbol=symbol, source=MemorySource.AGENT, status=status,
                        provenance=provenance, as_indexed=True)  # fmt: skip
        except ForewarnError:  # the definition is gone (renamed, deleted): the file holds the lesson
            if symbol is None:
                raise
            ws.remember(text, type=mtype, file=rel, source=MemorySource.AGENT, status=status, provenance=provenance)
    except ForewarnError as exc:
        log.warning("capturing a %s from the session failed: %s", mtype, exc)
        return
    state.captured += 1


def _same_file(ws: Workspace, path: str, rel: str) -> bool:
    try:
        return ws.rel_path(path) == rel
    except ForewarnError:
        return False


def _holding(spans: Sequence[tuple[str, int, int]], lines: Sequence[int]) -> str | None:
    """The innermost definition holding the first of ``lines`` (None: top-level code, or the text is gone)."""
    if not lines:
        return None
    holding = [(end - start, s) for s, start, end in spans if start <= lines[0] <= end]
    return min(holding)[1] if holding else None


def _note(text: str | None) -> str | None:
    """An edit's text as kept to recognise its undoing (stripped, bounded)."""
    return text.strip()[:MAX_NOTE_CHARS] if text is not None else None


def _lines_of(text: str, new: str) -> list[int]:
    """1-based lines of ``text`` where ``new`` (or, failing that, its first few non-blank lines) now sits."""
    if not text or not new.strip():
        return []
    at = text.find(new)
    if at >= 0:
        first = text.count("\n", 0, at) + 1
        return list(range(first, first + new.count("\n") + 1))
    lines: list[int] = []
    for part in [ln for ln in new.splitlines() if ln.strip()][:5]:
        at = text.find(part)
        if at >= 0:
            lines.append(text.count("\n", 0, at) + 1)
    return lines


def _summary(edits: Sequence[Edit], rel: str) -> str:
    """What the edit did, in a line: ``old line`` → ``new line`` (the first lines that differ)."""
    for e in edits:
        if e.old is None and e.new is None:
            return f"rewrote {rel}"
        old = [ln.strip() for ln in (e.old or "").splitlines() if ln.strip()]
        new = [ln.strip() for ln in (e.new or "").splitlines() if ln.strip()]
        removed = next((ln for ln in old if ln not in new), None)
        added = next((ln for ln in new if ln not in old), None)
        if removed and added:
            return _clip(f"`{_code(removed)}` → `{_code(added)}`")
        if added:
            return _clip(f"added `{_code(added)}`")
        if removed:
            return _clip(f"removed `{_code(removed)}`")
    return f"edited {rel}"


def _code(line: str) -> str:
    line = line.replace("`", "'")
    return line if len(line) <= SUMMARY_LINE_CHARS else line[: SUMMARY_LINE_CHARS - 1] + "…"


def _clip(text: str) -> str:
    return text if len(text) <= MAX_SUMMARY_CHARS else text[: MAX_SUMMARY_CHARS - 1] + "…"


def _name(key: str) -> str:
    rel, symbol = key.split("::", 1)
    return f"`{spoken_symbol(symbol, rel)}` ({rel})" if symbol else f"`{rel}`"
