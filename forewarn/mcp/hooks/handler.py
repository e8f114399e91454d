"""What a hook event is answered with, and what it leaves in the session's state.

* a session starts: a briefing — the memories of the files this branch changes (and of the definitions they
  use), then the repository's gotchas and error patterns on its most important files (PageRank);
* a file is read or edited: what ``memories_for_files`` gives for it (``Workspace.open_view``'s ranking, the
  MCP renderer, a token budget), each memory at most once per session unless it changed since;
* a shell command failed: what the error matcher finds (``Workspace.explain_error``), or nothing — whatever reading
  a file told the session already; the same failure again in the session is a one-line reminder naming them.

Suggestions (mined, agent-written, not yet accepted) never reach an agent. Edits and commands are recorded for
``capture`` whether or not the host shows anything for the event.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from forewarn.indexing import conventions
from forewarn.mcp import render
from forewarn.mcp.hooks import capture
from forewarn.mcp.hooks.events import EventKind, HookEvent, ToolKind
from forewarn.mcp.hooks.hosts import delivers
from forewarn.mcp.hooks.session import Failure, SessionState, session_state
from forewarn.mcp.render import Entry
from forewarn.memory.records import Memory, MemoryFilter
from forewarn.memory.vocabulary import ANCHORED_STATUSES, MemoryStatus, MemoryType
from forewarn.safe_text import code_span
from forewarn.workspace import history
from forewarn.workspace.engine import Workspace
from forewarn.workspace.explaining import Explanation
from forewarn.workspace.limits import PROACTIVE_LIMIT

log = logging.getLogger(__name__)

FILE_BUDGET = 800  # tokens for one tool call's files: under the MCP default, since it arrives unasked
BRIEFING_BUDGET = 1_200  # tokens for the session briefing, read once
EXPLAIN_BUDGET = 600  # tokens for what the team knows about a failure
BRIEF_CHANGED_FILES = 20  # files this branch changes whose memories join the briefing
BRIEF_PER_CHANGED_FILE = 5  # each changed file's best memories in the briefing (its own and its neighbours')
BRIEF_IMPORTANT_FILES = 30  # the most important files (PageRank) whose gotchas follow
BRIEF_IMPORTANT = 10  # gotchas and error patterns from them
CHANGED_BOOST = 10.0  # a changed file's memories rank above the important files' within a type
IMPORTANT_TYPES = (MemoryType.GOTCHA, MemoryType.ERROR_PATTERN)
NOT_FOR_AGENTS = frozenset({MemoryStatus.SUGGESTED, MemoryStatus.DISMISSED})
DEFAULT_BRANCHES = ("origin/HEAD", "origin/main", "origin/master", "main", "master")
NO_SESSION = "-"  # a host that gives no session id: all its calls share one state
MAX_TITLE_CHARS = 120


def handle(
    ws: Workspace, event: HookEvent, wdir: Path, later: list[Callable[[], None]], *, trust_agents: bool = False
) -> str:
    """What to tell the agent about ``event`` ('' for nothing), recording the session's edits and failures;
    re-indexing the files it touched goes to ``later``, run once the answer is out (a large file's parse and the
    code graph's rebuild, which the agent must not wait for)."""
    with session_state(wdir, event.host, event.session or NO_SESSION) as state:
        if event.kind == EventKind.SESSION_START:
            return briefing(ws, state) if delivers(event) else ""
        if event.kind not in (EventKind.BEFORE_TOOL, EventKind.AFTER_TOOL, EventKind.TOOL_FAILED):
            return ""
        rels = workspace_files(ws, event.paths, event.cwd)
        parts: list[str] = []
        if event.tool == ToolKind.EDIT and event.kind == EventKind.AFTER_TOOL and rels:
            capture.record_edits(ws, event, rels, state, trust_agents=trust_agents)
        if rels:
            later.append(lambda: capture.fresh(ws, rels))
        if event.tool == ToolKind.SHELL and event.kind != EventKind.BEFORE_TOOL and event.command:
            if event.failed:
                explanation = ws.explain_error(event.output)
                parts.append(failure(explanation, state, ws) if delivers(event) else "")
                _remember_failure(ws, event, explanation, state)
            else:
                capture.on_pass(ws, event, state, trust_agents=trust_agents)
        if rels and delivers(event) and event.kind != EventKind.TOOL_FAILED:
            parts.append(file_memories(ws, rels, state))
        return "\n".join(p for p in parts if p)


def workspace_files(ws: Workspace, paths: Iterable[str], cwd: str | None = None) -> list[str]:
    """The event's paths that name files inside the workspace, workspace-relative (others are ignored); a
    relative one is taken from the agent's working directory, and ignored when the event does not name it (the
    hook's own directory would be a guess)."""
    out: list[str] = []
    for p in paths:
        if not cwd and not os.path.isabs(p):
            log.info("said nothing about %r: a relative path in an event without a working directory", p[:200])
            continue
        try:
            rel = ws.rel_path(os.path.join(cwd, p) if cwd and not os.path.isabs(p) else p)
        except Exception:  # outside the workspace, not a usable path: nothing to say about it
            continue
        if rel not in out and (ws.root / rel).is_file():
            out.append(rel)
    return out


def version(memory: Memory) -> str:
    """What must change for a memory to be shown again in a session: its text, or a standing a person gave it
    (contested, orphaned). Going stale because the agent just edited its code is no news to the agent."""
    standing = "current" if memory.status in (MemoryStatus.ACTIVE, MemoryStatus.STALE) else str(memory.status)
    return f"{standing}:{hashlib.sha1(memory.text.encode('utf-8')).hexdigest()[:16]}"


def line_of(memory: Memory) -> int | None:
    return memory.anchor.start_line if memory.anchor is not None and memory.anchor.symbol else None


def for_agents(memory: Memory) -> bool:
    return memory.status not in NOT_FOR_AGENTS


def file_memories(ws: Workspace, rels: Sequence[str], state: SessionState) -> str:
    """``memories_for_files`` for ``rels``, less what this session was already shown (unchanged since)."""
    entries: list[Entry] = []
    seen: set[str] = set()
    withheld: set[str] = set()  # told already this session, unchanged since
    for rel in rels:
        view = ws.open_view(rel, limit=PROACTIVE_LIMIT)
        for hit in view.hits:
            m = hit.memory
            if m.id in seen or not for_agents(m):
                continue
            if state.shown.get(m.id) == version(m):
                withheld.add(m.id)
                continue
            seen.add(m.id)
            via = hit.via_file if hit.relation == "dependency" else None
            entries.append(Entry(m, line_of(m), via, hit.score, group=rel))
    if not entries:
        if withheld:
            log.info("%s: said nothing: its %d note(s) were told earlier in this session", ", ".join(rels[:5]),
                     len(withheld))  # fmt: skip
        return ""
    names = ", ".join(code_span(r) for r in rels[:5]) + (f" and {len(rels) - 5} more" if len(rels) > 5 else "")
    packed = render.fence_notes(
        entries,
        FILE_BUDGET,
        title=f"# Forewarn: notes on {names}",
        empty="",
        groups=[r for r in rels if any(e.group == r for e in entries)],
        more_hint="ask memories_for_files with a larger budget",
        spans_of=ws.indexer.chunk_spans,
    )
    return _shown(packed, entries, state)


def briefing(ws: Workspace, state: SessionState) -> str:
    """The memories of what this branch changes, then the gotchas of the most important files."""
    entries: list[Entry] = []
    seen: set[str] = set()
    roles: dict[str, tuple[str, str]] = {}  # group → (its file, what the file is here)
    for rel in branch_files(ws.root)[:BRIEF_CHANGED_FILES]:
        view = ws.open_view(rel, limit=BRIEF_PER_CHANGED_FILE, record=False)
        for hit in view.hits:
            m = hit.memory
            if m.id in seen or not for_agents(m):
                continue
            seen.add(m.id)
            via = hit.via_file if hit.relation == "dependency" else None
            group = f"changed:{rel}"
            roles[group] = (rel, "changed on this branch")
            entries.append(Entry(m, line_of(m), via, hit.score + CHANGED_BOOST, group=group))
    important: list[Entry] = []
    try:
        _, positions = ws.graph.file_ranks()
    except Exception:
        log.exception("ranking files for the briefing failed")
        positions = {}
    wanted = MemoryFilter(types=IMPORTANT_TYPES, statuses=ANCHORED_STATUSES)
    # vendored or generated code is not the team's most important: its path says so for free; .gitattributes and a
    # generator's banner are read only for a file with memories to show (a few, not the 30 ranked: one git call
    # and thirty reads were 3-5 ms of every session start)
    ranked = [r for r in sorted(positions, key=lambda r: positions[r]) if not conventions.VENDORED_PATH.search(r)]
    for rel in ranked[:BRIEF_IMPORTANT_FILES]:
        if len(important) >= BRIEF_IMPORTANT:
            break
        # the file alone: at 100k memories the file-or-folder filter made SQLite scan every current memory (26 ms)
        found = ws.store.list_memories(replace(wanted, file=rel, file_only=True), limit=BRIEF_IMPORTANT)
        if found and conventions.not_own_code(ws.root, [rel]):
            continue
        found.sort(key=lambda m: (-m.confidence, m.id))
        for m in found:
            if m.id in seen or not for_agents(m) or m.file != rel or len(important) >= BRIEF_IMPORTANT:
                continue
            seen.add(m.id)
            group = f"important:{rel}"
            roles[group] = (rel, "one of the most important files; its gotchas and error patterns")
            important.append(Entry(m, line_of(m), None, 1.0 / positions[rel], group=group))
    entries += important
    if not entries:
        return ""
    packed = render.fence_notes(
        entries,
        BRIEFING_BUDGET,
        title="# Forewarn: notes on the code this branch changes, and the most important files' gotchas",
        empty="",
        groups=list(dict.fromkeys(e.group for e in entries if e.group is not None)),
        more_hint="ask memories_for_files about the files you work on",
        spans_of=ws.indexer.chunk_spans,
        group_files=roles,
    )
    return _shown(packed, entries, state)


def failure(explanation: Explanation, state: SessionState, ws: Workspace) -> str:
    """What the team knows about the error a failed command printed ('' when nothing passes the floor).

    Told whatever reading a file told this session already: the failure is when the note matters most. The same
    failure again in the session (``failure_key``) is told only what it was not told yet (a memory new, or changed
    since); what it was told is named in one reminder line, so an agent rerunning a failing test in a loop is
    pointed back at the notes without being handed the same 600 tokens each time."""
    if not explanation.error.found:
        log.info("a failed command said nothing: its output shows no error Forewarn can read")
        return ""
    said = explanation.error.signature or explanation.error.kind
    hits = [h for h in explanation.hits if for_agents(h.memory)]
    if not hits:
        why = "only suggestions, not yet accepted, match it" if explanation.hits else "no memory passes the floor"
        log.info("a failed command said nothing about %s: %s", safe_title(said or "its error"), why)
        return ""
    key = failure_key(explanation)
    told = state.explained.pop(key, {})  # re-inserted last: the failures kept are the latest
    state.explained[key] = told
    fresh = [h for h in hits if told.get(h.memory.id) != version(h.memory)]
    again = [h.memory for h in hits if told.get(h.memory.id) == version(h.memory)]
    more = len(explanation.errors) - 1  # a build's later errors, looked up too
    if said and more > 0:
        said += f" and {more} more error{'s' if more > 1 else ''}"
    heading = safe_title(said) if said else "this error"
    text = ""
    if fresh:
        entries = [Entry(h.memory, line_of(h.memory), None, h.score) for h in fresh]
        packed = render.fence_notes(
            entries,
            EXPLAIN_BUDGET,
            title=f"# Forewarn: what the team knows about this failure ({heading})",
            empty="",
            more_hint="call explain_error with the output",
            spans_of=ws.indexer.chunk_spans,
        )
        text = _shown(packed, entries, state)
        for e in entries:
            if _printed(e.memory.id, packed.text):
                told[e.memory.id] = version(e.memory)
    if again:
        line = reminder(again, heading, alone=not text)
        text = f"{text}\n\n{line}" if text else line
    return text


def failure_key(explanation: Explanation) -> str:
    """What makes two failures the same one: the signatures of the errors read (numbers, paths and ids already
    replaced), else the innermost frame's file and function."""
    errors = [e.error for e in explanation.errors] or [explanation.error]
    parts = [r.signature or r.kind or "" for r in errors]
    if not any(parts):
        first = explanation.error.frames[0] if explanation.error.frames else None
        # the file's name alone: the same failure prints another checkout's absolute path
        parts = [
            f"{first.path.rsplit('/', 1)[-1]}:{first.function}" if first is not None else explanation.error.message
        ]
    return hashlib.sha1("\n".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:16]


MAX_REMINDED = 5  # memories named in a repeated failure's reminder


def reminder(memories: Sequence[Memory], heading: str, *, alone: bool) -> str:
    """One line naming the memories this session was already told about the same failure (``alone``: the whole
    answer, so it carries the heading)."""
    names = [f"`{m.id}` ({m.type}{' on ' + code_span(m.anchor.symbol) if m.anchor and m.anchor.symbol else ''})"
             for m in memories[:MAX_REMINDED]]  # fmt: skip
    named = ", ".join(names) + (f" and {len(memories) - MAX_REMINDED} more" if len(memories) > MAX_REMINDED else "")
    noun = "memory" if len(memories) == 1 else "memories"
    if alone:
        return (
            f"# Forewarn: this failure again ({heading}): this session was told the team's {noun} about it at its "
            f"first failure: {named}; explain_error with the output shows {'it' if len(memories) == 1 else 'them'}"
            " in full."
        )
    return f"Told at this failure's first run in this session, not repeated: {noun} {named}."


def _remember_failure(ws: Workspace, event: HookEvent, explanation: Explanation, state: SessionState) -> None:
    """Keep the failing command until it passes (``capture.on_pass``); the earliest failure's edit count stays."""
    key = capture.command_key(event.command or "")
    if not key:
        return
    report = explanation.error
    signature = (report.signature if report.found else "") or f"{key} failed"
    files = list(dict.fromkeys(p.file for p in explanation.places))[:3]
    for f in state.failures:
        if capture.same_command(f.command, key):
            f.signature, f.at, f.files = signature, time.time(), files or f.files
            return
    state.failures.append(Failure(key, signature, time.time(), state.edit_count, files))


def branch_files(root: Path) -> list[str]:
    """Files this branch changes against the default branch (committed or not), else the uncommitted ones."""
    try:
        names = {f"refs/remotes/{r}" if "/" in r else f"refs/heads/{r}": r for r in DEFAULT_BRANCHES}
        found = set(history.git(root, "for-each-ref", "--format=%(refname)", *names, check=False).split())
        known = [short for full, short in names.items() if full in found]
        base = history.git(root, "merge-base", known[0], "HEAD", check=False).strip() if known else ""
        out = history.git(root, "diff", "--name-only", "-z", "--no-renames", base or "HEAD", "--", check=False)
    except Exception:  # no git, not a repository, no commits: no branch to brief on
        return []
    return [p for p in out.split("\0") if p and (root / p).is_file()]


_TITLE_UNSAFE_RE = re.compile(r"[`\n\r\t]")  # what could end the code span or the heading's line
PLACEHOLDERS = {"<n>": "N", "<path>": "PATH", "<id>": "ID", "<addr>": "ADDR"}  # error_text.normalise's


def safe_title(text: str) -> str:
    """A bit of untrusted text (an error signature) fit for a heading: one line, clipped, as a code span, where
    nothing is Markdown (``text/*, */xml`` keeps its asterisks) and, its backticks gone, nothing can close it."""
    for placeholder, word in PLACEHOLDERS.items():
        text = text.replace(placeholder, word)
    text = text.replace("`", "'")  # Ruby's `start_with?' quoting: a quote still, never the end of the span
    return f"`{render.clip(' '.join(_TITLE_UNSAFE_RE.sub(' ', text).split()), MAX_TITLE_CHARS)}`"


def _printed(memory_id: str, text: str) -> bool:
    return f"`{memory_id}`" in text or memory_id in text


def _shown(packed: render.Packed, entries: Sequence[Entry], state: SessionState) -> str:
    """Record the memories the packed answer holds as shown; the answer."""
    for e in entries:
        if _printed(e.memory.id, packed.text):
            state.shown[e.memory.id] = version(e.memory)
    if not packed.shown:
        log.info("said nothing: none of %d note(s) fits the budget of %d tokens", len(entries), packed.tokens)
    return packed.text if packed.shown else ""
