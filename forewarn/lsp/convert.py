"""Domain records → lsprotocol types and JSON-able command results. Pure functions, no I/O.

Lines in the domain are 1-based and inclusive (``Chunk.start_line``); LSP positions are 0-based.
Ranges cover whole lines and end at column 0 of the next line, so they need neither the document
text nor the negotiated position encoding (UTF-8/16/32 columns) to be exact.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from forewarn.memory.origin import origin_of
from forewarn.memory.records import Memory
from forewarn.memory.suggestions import track_line
from forewarn.memory.text import age_text, from_iso
from forewarn.memory.timeline import stale_note
from forewarn.memory.vocabulary import MemoryStatus, MemoryType, Visibility
from forewarn.safe_text import (
    CONTROL_RE,
    code_span,
    escape_inline,
    escape_markdown,
    flat_text,
    headline,
    one_line,
)
from forewarn.workspace.symbols import spoken_symbol, symbol_label

SOURCE = "forewarn"  # diagnostics' source: lets clients and users filter ours
PRIVATE_MARK = "🔒 "  # before a private memory's type in hovers and diagnostics (the CLI's lists show the same)
WARNING_TYPES = frozenset({"gotcha", "error_pattern"})  # things that bite: worth a squiggle
HOVER_TEXT_MAX_CHARS = 2_000  # a hover is a glance; the full text is one search away
HOVER_MEMORIES = 10  # memories in one hover, best first: more would not fit the popup
SYMBOL_NAME_MAX_CHARS = 80  # symbol pickers show one line per entry
DIAGNOSTIC_TEXT_MAX_CHARS = 1_000  # Problems views truncate long messages anyway
CONTESTED_TEXT_MAX_CHARS = 300  # the other memory's text in a contested one's message: its own shows in full
CONTESTED_ACTIONS = 3  # contested partners offered as quick fixes per memory; more are resolved from the CLI
COMMIT_SHA_CHARS = 7  # git's short form: unique enough to paste into `git show`
NAMED_PLACES = 3  # other places one diagnostic names (the same lesson on several symbols); past them, a count

TYPE_ICONS: dict[str, str] = {  # one glyph per memory type in symbol pickers, so types are told apart at a glance
    MemoryType.GOTCHA: "⚠",
    MemoryType.ERROR_PATTERN: "✖",
    MemoryType.DECISION: "◆",
    MemoryType.DEAD_END: "⊘",
    MemoryType.CONVENTION: "≡",
    MemoryType.PREFERENCE: "♥",
    MemoryType.TODO: "☐",
    MemoryType.NOTE: "✎",
}
SYMBOL_KINDS = {  # memories have no code kind; these icons read as "event" and "key" in pickers
    "gotcha": types.SymbolKind.Event,
    "error_pattern": types.SymbolKind.Event,
    "decision": types.SymbolKind.Key,
    "convention": types.SymbolKind.Key,
    "dead_end": types.SymbolKind.Null,
}
CHUNK_KINDS = {
    "function": types.SymbolKind.Function,
    "method": types.SymbolKind.Method,
    "class": types.SymbolKind.Class,
    "interface": types.SymbolKind.Interface,
    "struct": types.SymbolKind.Struct,
    "enum": types.SymbolKind.Enum,
    "trait": types.SymbolKind.Interface,
    "impl": types.SymbolKind.Class,
    "module": types.SymbolKind.Module,
}


def age(created_at: str, now: float | None = None) -> str:
    """ "3 months ago" from an ISO-8601 time."""
    try:
        then = from_iso(created_at)
    except ValueError:
        return "at an unknown time"
    text = age_text((time.time() if now is None else now) - then)
    return text if text == "just now" else f"{text} ago"


def origin(memory: Memory) -> str:
    """Where a memory came from, in the one wording every front end uses (``forewarn.memory.origin``): "recorded
    here by Ann", "suggested from commit abc1234 by Ann, 2024-03-02", "imported from … ; it says it was written
    by “Alice”", "suggested by an agent that calls itself “Claude Code 2.1.0”"."""
    return origin_of(memory).phrase()


# ---------------------------------------------------------------- ranges


def line_span_range(start_line: int, end_line: int) -> types.Range:
    """Whole lines ``start_line..end_line`` (1-based, inclusive) as an LSP range."""
    start = max(start_line, 1) - 1
    end = max(end_line, start_line, 1)
    return types.Range(start=types.Position(line=start, character=0), end=types.Position(line=end, character=0))


def selection_lines(rng: types.Range) -> tuple[int, int]:
    """The 1-based inclusive lines a selection covers (one ending at column 0 leaves that line out)."""
    start = rng.start.line + 1
    end = rng.end.line + 1
    if rng.end.character == 0 and rng.end.line > rng.start.line:
        end -= 1
    return start, max(start, end)


FILE_RANGE = line_span_range(1, 1)  # file-wide memories sit on the first line


def range_dict(rng: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": rng.start.line, "character": rng.start.character},
        "end": {"line": rng.end.line, "character": rng.end.character},
    }


# ---------------------------------------------------------------- memories → diagnostics


@dataclass(frozen=True, slots=True)
class Span:
    """Where a memory sits now: its file and 1-based inclusive lines; ``None`` lines mean file-wide."""

    uri: str
    file: str
    symbol: str | None
    start_line: int | None
    end_line: int | None

    @property
    def range(self) -> types.Range:
        if self.start_line is None or self.end_line is None:
            return FILE_RANGE
        return line_span_range(self.start_line, self.end_line)


@dataclass(frozen=True, slots=True)
class DiagnosticHit:
    """One lesson to show in a file: a memory anchored here, or a graph neighbour's (``neighbour`` = its anchor).

    ``also``: other places holding a memory with the same text (one diagnostic names them all). ``summary``:
    for the file's file-wide memories, shown as one diagnostic, the others after ``memory``.
    """

    memory: Memory
    span: Span  # in the file being shown (the first line for file-wide memories; the using line for neighbours)
    neighbour: Span | None = None  # the neighbour's anchor, for relatedInformation
    contested: tuple[Memory, ...] = ()  # the memories this one is contested with (a person marked the pair)
    also: tuple[tuple[Memory, Span], ...] = ()  # the same lesson elsewhere: each copy and where it sits
    summary: tuple[Memory, ...] = ()  # the file's other file-wide memories (the diagnostic is their summary)

    @property
    def ids(self) -> list[str]:
        """Every memory this diagnostic stands for, shown one first."""
        return [self.memory.id, *(m.id for m, _ in self.also), *(m.id for m in self.summary)]


def _place(span: Span) -> str:
    """``file::symbol`` for a plain-text message: a file or symbol name cannot break it onto more lines, and
    a repeated definition's internal ``#2`` suffix never shows."""
    symbol = spoken_symbol(span.symbol, span.file) if span.symbol else None
    return flat_text(span.file + (f"::{symbol}" if symbol else ""))


def severity(memory: Memory, *, neighbour: bool) -> types.DiagnosticSeverity:
    """Stale or suggested → Hint; neighbours → Information; gotcha/error_pattern → Warning; the rest Information.

    A suggestion is never a Warning: mining proposed it and nobody has vouched for it yet.
    """
    if memory.status in (MemoryStatus.STALE, MemoryStatus.SUGGESTED):
        return types.DiagnosticSeverity.Hint
    if memory.status == MemoryStatus.CONTESTED and not neighbour:  # whatever its type: nobody knows which holds
        return types.DiagnosticSeverity.Warning
    if neighbour or memory.type not in WARNING_TYPES:
        return types.DiagnosticSeverity.Information
    return types.DiagnosticSeverity.Warning


def lock(memory: Memory) -> str:
    """The mark of a private memory (its writer's alone, never exported), before its type wherever it is listed."""
    return PRIVATE_MARK if memory.visibility == Visibility.PRIVATE else ""


def contested_note(memory: Memory, others: Sequence[Memory]) -> str:
    """What a contested memory's message adds: the text it is contested with, and how to settle it."""
    if not others:
        return ""
    first = others[0]
    more = f" (and {len(others) - 1} more)" if len(others) > 1 else ""
    quoted = one_line(first.text, CONTESTED_TEXT_MAX_CHARS)
    return (
        f"\ncontested with: {quoted}{more} — settle it with a quick fix or "
        f"forewarn memory resolve {memory.id} --with {first.id} --replace|--both"
    )


def _kind(memory: Memory) -> str:
    """The memory's type and state, as the second line of its diagnostic starts: "stale gotcha (…)"."""
    head = lock(memory) + memory.type.replace("_", " ")
    if memory.status == "stale":
        head += f" (stale: {flat_text(stale_note(memory))})"
    elif memory.status == MemoryStatus.SUGGESTED:
        head = f"suggested {head} (accept or dismiss)"
    elif memory.status == MemoryStatus.CONTESTED:
        head = f"contested {head}"
    return head


def _names(places: Sequence[str]) -> str:
    """A few places by name, then how many more."""
    named = ", ".join(places[:NAMED_PLACES])
    return named + (f" and {len(places) - NAMED_PLACES} more" if len(places) > NAMED_PLACES else "")


def diagnostic_message(
    memory: Memory,
    now: float | None = None,
    *,
    neighbour: Span | None = None,
    also: Sequence[Span] = (),
    summary: Sequence[Memory] = (),
) -> str:
    """A headline, then a line saying what and whose it is.

    The first line is the lesson itself (``safe_text.headline``: its first line, at most ``HEADLINE_MAX_CHARS``);
    the second names the type and state, where it sits when that is elsewhere (``about file::symbol``), its age
    and origin, the other places saying the same (``also``) and, for the file-wide summary, how many more there
    are. The full text is in the hover and in ``relatedInformation``.
    """
    where = f" about {_place(neighbour)}" if neighbour else ""
    if summary or (memory.anchor is not None and memory.anchor.symbol is None and neighbour is None):
        where = " about the whole file"
    meta = f"{_kind(memory)}{where} · {age(memory.created_at, now)}, {origin(memory)}"
    if also:
        meta += f" · also on {_names([_place(s) for s in also])}"
    if summary:
        kinds = ", ".join(dict.fromkeys(m.type.replace("_", " ") for m in summary))
        meta += f" · {len(summary)} more about the whole file ({kinds})"
    return f"{headline(memory.text)}\n{meta}"


def more_message(more: int, file: str | None, place: str = "file", quote: Callable[[str], str] = flat_text) -> str:
    """Where the memories a cap left out can be read: the CLI (``quote``d) and the editor's search command."""
    noun = "memory" if more == 1 else "memories"
    listing = f"forewarn memory list --file {flat_text(file)}" if file else "forewarn memory list"
    return f"{more} more {noun} on this {place}: {quote(listing)} or the Search Memories command"


SUGGESTIONS_MESSAGE = (
    "more suggestions on this file: the Review Suggestions command (:Forewarn review), or forewarn memory review"
)


def more_diagnostic(more: int, file: str, *, suggestions: bool = False, unchecked: bool = False) -> types.Diagnostic:
    """The last diagnostic of a capped file: what was left out and where it is (no memory id: no lifecycle actions).
    ``unchecked``: ``more`` counts the file's own memories only (those of the code it uses are listed, not counted)."""
    place = "file (the list adds those on the code it uses)" if unchecked else "file and the code it uses"
    parts = [more_message(more, file, place)] if more > 0 else []
    if suggestions:
        tail = f"{SUGGESTIONS_MESSAGE} --file {flat_text(file)}"
        parts.append(tail if parts else tail[0].upper() + tail[1:])
    return types.Diagnostic(
        range=FILE_RANGE,
        message="; ".join(parts),
        severity=types.DiagnosticSeverity.Information if more > 0 else types.DiagnosticSeverity.Hint,
        source=SOURCE,
        data={"more": more, **({"more_suggestions": True} if suggestions else {})},
    )


def _related(hit: DiagnosticHit) -> list[types.DiagnosticRelatedInformation]:
    """Where the rest of a diagnostic's story is: the anchor elsewhere, the same lesson's other places, the other
    file-wide memories it summarises, and the full text when the headline cut it."""
    out: list[types.DiagnosticRelatedInformation] = []

    def add(span: Span, message: str) -> None:
        location = types.Location(uri=span.uri, range=span.range)
        out.append(types.DiagnosticRelatedInformation(location=location, message=message))

    home = hit.neighbour or hit.span
    if hit.neighbour is not None:
        add(hit.neighbour, f"anchored at {_place(hit.neighbour)}")
    if headline(hit.memory.text) != flat_text(hit.memory.text):
        add(home, one_line(hit.memory.text, DIAGNOSTIC_TEXT_MAX_CHARS))
    for memory, where in hit.also:
        same = flat_text(memory.text) == flat_text(hit.memory.text)
        said = "" if same else f": {one_line(memory.text, DIAGNOSTIC_TEXT_MAX_CHARS)}"  # the headline alone matched
        add(where, f"the same lesson, on {_place(where)} ({memory.type.replace('_', ' ')}, id {memory.id}){said}")
    for memory in hit.summary:
        add(hit.span, f"{_kind(memory)}: {one_line(memory.text, DIAGNOSTIC_TEXT_MAX_CHARS)}")
    return out


def diagnostics(
    hits: Sequence[DiagnosticHit], *, max_warnings: int, now: float | None = None
) -> list[types.Diagnostic]:
    """Diagnostics for one file, in the engine's rank order.

    Warnings beyond ``max_warnings`` are demoted to Information rather than dropped: a file with
    many gotchas should not shout, but nothing the team learned should vanish from view either.
    """
    out: list[types.Diagnostic] = []
    warnings = 0
    for hit in hits:
        sev = severity(hit.memory, neighbour=hit.neighbour is not None)
        if sev == types.DiagnosticSeverity.Warning:
            warnings += 1
            if warnings > max_warnings:
                sev = types.DiagnosticSeverity.Information
        ids = hit.ids
        out.append(
            types.Diagnostic(
                range=hit.span.range,
                message=diagnostic_message(
                    hit.memory, now, neighbour=hit.neighbour, also=[s for _, s in hit.also], summary=hit.summary
                )
                + contested_note(hit.memory, hit.contested),
                severity=sev,
                code=hit.memory.id,
                source=SOURCE,
                related_information=_related(hit) or None,
                data={
                    "id": hit.memory.id,
                    "type": hit.memory.type,
                    "status": hit.memory.status,
                    **({"ids": ids} if len(ids) > 1 else {}),
                    **({"contested": [m.id for m in hit.contested]} if hit.contested else {}),
                },
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class FileView:
    """What one open shows: ``hits`` (one per lesson) in rank order, and ``more`` memories the engine's limit
    left out (they and any hits past the display cap are counted in one last "more" entry)."""

    file: str
    hits: list[DiagnosticHit]
    more: int = 0
    suggestions: list[DiagnosticHit] = field(default_factory=list)  # mined, unreviewed: shown as hints
    more_suggestions: bool = False  # the file has more than ``suggestions``: the review command lists them
    more_unchecked: bool = False  # ``more`` counts the file's own only: its neighbours' were not looked at


def file_diagnostics(
    view: FileView, *, max_warnings: int, max_diagnostics: int, now: float | None = None
) -> list[types.Diagnostic]:
    """A file's diagnostics: its lessons, then its suggestions as hints, at most ``max_diagnostics`` in all.

    When more would show, the last place goes to one entry counting what was left out (memories, and whether
    suggestions were) and where to read all of it.
    """
    entries = [*view.hits, *view.suggestions]
    total = max(1, max_diagnostics)
    more, suggestions_left = view.more, view.more_suggestions
    if len(entries) + (1 if more > 0 or suggestions_left else 0) > total:
        entries, rest = entries[: total - 1], entries[total - 1 :]
        more += sum(len(h.ids) for h in rest if h.memory.status != MemoryStatus.SUGGESTED)
        suggestions_left = suggestions_left or any(h.memory.status == MemoryStatus.SUGGESTED for h in rest)
    out = diagnostics(entries, max_warnings=max_warnings, now=now)
    if more > 0 or suggestions_left:
        out.append(more_diagnostic(more, view.file, suggestions=suggestions_left, unchecked=view.more_unchecked))
    return out


# ---------------------------------------------------------------- hover


@dataclass(frozen=True, slots=True)
class Importance:
    """How central a file is: its PageRank position among the workspace's files and its dependents."""

    rank: int  # 1 = most important
    files: int  # how many files were ranked
    dependents: int  # files that use definitions from this one


@dataclass(frozen=True, slots=True)
class HoverView:
    """What a hover shows: the symbol under the cursor (resolved to its definition) and what is known of it."""

    symbol: str | None
    memories: Sequence[Memory]
    importance: Importance | None
    where: str | None = None  # the definition's file, when the cursor is on a use of it in another file
    at: tuple[int, int, int] | None = None  # (1-based line, first, end column) of the identifier hovered
    changes: dict[str, str] = field(default_factory=dict)  # stale memory id → what changed in its code (a diff)


HOVER_NOTHING = HoverView(None, [], None)


def hover_markdown(
    symbol: str | None,
    memories: Sequence[Memory],
    importance: Importance | None,
    now: float | None = None,
    *,
    file: str | None = None,
    where: str | None = None,
    changes: dict[str, str] | None = None,
) -> str | None:
    """The hover body, or None when there is nothing worth a popup.

    ``memories`` come best first; past ``HOVER_MEMORIES`` a last line says how many more and where to read them.
    ``where``: the file that defines ``symbol`` when the hover is on a use of it elsewhere. ``changes``: for a
    stale memory, the change to its code since it was written or confirmed (a short diff), shown under it.
    """
    if not memories and importance is None:
        return None
    lines: list[str] = []
    name = flat_text(symbol or "")  # a JS computed name can hold newlines and Markdown: one code span, unbreakable
    title = f"**Forewarn** · {code_span(name)}" if name else "**Forewarn**"
    lines.append(title + (f" · defined in {code_span(where)}" if where else ""))
    if importance is not None:
        lines.append(
            f"Importance: its file ranks {importance.rank} of {importance.files} by PageRank; "
            f"{importance.dependents} {'file depends' if importance.dependents == 1 else 'files depend'} on that file."
        )
    for memory in memories[:HOVER_MEMORIES]:
        text = memory.text if len(memory.text) <= HOVER_TEXT_MAX_CHARS else memory.text[:HOVER_TEXT_MAX_CHARS] + "…"
        status = "" if memory.status == "active" else f" ({escape_inline(memory.status)})"
        if memory.status == MemoryStatus.STALE:
            status = f" (stale: {escape_inline(stale_note(memory))})"
        track = ""
        if (record := track_line(memory.provenance)) is not None:  # mined: what the history after it says
            track = f" · {escape_inline(record)}"
        lines.append("---")
        lines.append(
            f"{lock(memory)}**{escape_inline(memory.type.replace('_', ' '))}**{status} · "
            f"{escape_inline(age(memory.created_at, now))} · {escape_inline(origin(memory))}{track}"
            f" · id {code_span(memory.id)}"
        )
        lines.append(escape_markdown(text))
        if changes and (diff := changes.get(memory.id)):
            lines.append("What changed in its code since:")
            lines.append(code_block(diff, "diff"))
    if (more := len(memories) - HOVER_MEMORIES) > 0:
        lines.append("---")
        lines.append(more_message(more, file, "symbol", code_span))
    return "\n\n".join(lines)


def hover(markdown: str | None, line: int, at: tuple[int, int, int] | None = None) -> types.Hover | None:
    """The hover, over the identifier hovered (``at``: line, first and end column in the negotiated encoding)."""
    if markdown is None:
        return None
    if at is not None:
        row, first, end = at
        span = types.Range(start=types.Position(row - 1, first), end=types.Position(row - 1, end))
    else:
        span = line_span_range(line, line)
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown), range=span)


def hover_view(view: HoverView, line: int, file: str, now: float | None = None) -> types.Hover | None:
    """The hover of ``view`` at ``line`` of ``file`` (a cap's pointer names the file defining the symbol)."""
    where = view.where or file
    body = hover_markdown(
        view.symbol, view.memories, view.importance, now, file=where, where=view.where, changes=view.changes
    )
    return hover(body, line, view.at)


def code_block(text: str, language: str = "") -> str:
    """``text`` as a fenced code block nothing in it can close early (the fence outgrows its longest run)."""
    clean = CONTROL_RE.sub("", text)  # newlines and tabs stay; escapes and bidi controls go
    longest = max((len(run) for run in re.findall(r"`{3,}", clean)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{clean.rstrip()}\n{fence}"


# ---------------------------------------------------------------- results the palette shows


def memory_result(
    memory: Memory, anchor: Span | None, score: float | None = None, now: float | None = None
) -> dict[str, Any]:
    """The ``Memory`` object of command results (docs/internals.md, LSP surface)."""
    out: dict[str, Any] = {
        "id": memory.id,
        "type": memory.type,
        "text": memory.text,
        "status": memory.status,
        "source": memory.source,
        "confidence": memory.confidence,
        "created_at": memory.created_at,
        "age": age(memory.created_at, now),
        "tags": list(memory.tags),
        "provenance": memory.provenance,
        "origin": origin(memory),  # the server's words for where it came from: pickers show this, not their own
        "visibility": memory.visibility,  # private: pickers show a lock
        "recorded_by": memory.recorded_by,
        "anchor": None,
    }
    if score is not None:
        out["score"] = round(score, 6)
    if anchor is not None:
        out["anchor"] = {
            "uri": anchor.uri,
            "file": anchor.file,
            "symbol": anchor.symbol,
            "range": range_dict(anchor.range),
        }
    return out


@dataclass(frozen=True, slots=True)
class ChunkView:
    file: str
    uri: str
    symbol: str
    kind: str
    start_line: int
    end_line: int
    signature: str
    score: float | None = None


def chunk_result(chunk: ChunkView) -> dict[str, Any]:
    return {
        "uri": chunk.uri,
        "file": chunk.file,
        "symbol": chunk.symbol,
        "kind": chunk.kind,
        "signature": chunk.signature,
        "range": range_dict(line_span_range(chunk.start_line, chunk.end_line)),
        "score": chunk.score,
    }


def file_result(file: str, uri: str, score: float, is_test: bool, chunks: list[ChunkView]) -> dict[str, Any]:
    """A code search hit as a file: its best chunks (best first) open where they are."""
    return {
        "file": file,
        "uri": uri,
        "score": score,
        "is_test": is_test,
        "chunks": [chunk_result(c) for c in chunks],
    }


def memory_symbol(memory: Memory, anchor: Span) -> types.WorkspaceSymbol:
    """A memory in the standard symbol picker: "⚠ gotcha: text…" at its anchor."""
    icon = TYPE_ICONS.get(memory.type, "•")
    name = one_line(f"{icon} {memory.type.replace('_', ' ')}: {memory.text}", SYMBOL_NAME_MAX_CHARS)
    return types.WorkspaceSymbol(
        name=name,
        kind=SYMBOL_KINDS.get(memory.type, types.SymbolKind.Event),
        location=types.Location(uri=anchor.uri, range=anchor.range),
        container_name=_place(anchor),
        tags=[types.SymbolTag.Deprecated] if memory.status in ("stale", "superseded") else None,
    )


def chunk_symbol(chunk: ChunkView) -> types.WorkspaceSymbol:
    return types.WorkspaceSymbol(
        name=flat_text(spoken_symbol(chunk.symbol, chunk.file)),  # no ``#2``: its location tells namesakes apart
        kind=CHUNK_KINDS.get(chunk.kind, types.SymbolKind.Function),
        location=types.Location(uri=chunk.uri, range=line_span_range(chunk.start_line, chunk.end_line)),
        container_name=flat_text(chunk.file),
    )


# ---------------------------------------------------------------- code actions

CMD_REMEMBER = "forewarn.remember"
CMD_SEARCH = "forewarn.search"
CMD_SUPERSEDE = "forewarn.supersede"
CMD_FORGET = "forewarn.forget"
CMD_CONFIRM = "forewarn.confirm"
CMD_MARK_OUTDATED = "forewarn.markOutdated"
CMD_REPO_MAP = "forewarn.repoMap"
CMD_STATS = "forewarn.stats"
CMD_REINDEX = "forewarn.reindex"
CMD_ACCEPT = "forewarn.accept"  # the client opened a memory from search (or applied it): reinforce it
CMD_ACCEPT_SUGGESTION = "forewarn.acceptSuggestion"  # a mined suggestion becomes an active memory
CMD_DISMISS_SUGGESTION = "forewarn.dismissSuggestion"  # never proposed again
CMD_REVIEW = "forewarn.review"  # the suggestions of a file or folder, for a picker
CMD_SUGGESTION_DIFF = "forewarn.suggestionDiff"  # the commit diff a suggestion was mined from, shown beside it
CMD_RESTORE = "forewarn.restore"  # a forgotten memory comes back (forget archives, never deletes)
CMD_RESOLVE_CONFLICT = "forewarn.resolveConflict"  # two contradicting memories: replace, both hold, or contested
CMD_REANCHOR = "forewarn.reanchor"  # a memory anchored by hand to another definition (an orphan found again)
CMD_FILE_MEMORIES = "forewarn.fileMemories"  # every memory of one file, grouped by symbol (the This file views)
# sent whenever memories may have changed (open documents are republished then): panels query again. A "$/"
# method, which a client that does not know it may ignore (LSP), so every client gets it without asking
MEMORIES_CHANGED = "$/forewarn/memoriesChanged"
CMD_OPEN_LIST = "forewarn.openList"  # everything an open counts on a file: what its "N more" entry opens
REANCHOR_ACTIONS = 3  # orphans of a file offered on one of its definitions: past a few, the CLI lists them


CLIENT_CAPABILITY = "forewarn"  # our key under the client's ``capabilities.experimental``
PROMPTS_FOR_TEXT = "promptsForText"  # …whose true value says: I ask the user for a ``text: null`` argument


def client_prompts(experimental: Any) -> bool:
    """Whether the client declared ``experimental.forewarn.promptsForText: true`` (the VS Code and Neovim clients do).

    Agent hosts and generic editors declare nothing: they are offered only actions they can run as they are.
    """
    ours = experimental.get(CLIENT_CAPABILITY) if isinstance(experimental, dict) else None
    return isinstance(ours, dict) and ours.get(PROMPTS_FOR_TEXT) is True


def needs_text(command: str, memory_id: str | None = None) -> dict[str, Any]:
    """The answer to a command sent with ``text: null`` by a client that did not ask for it: nothing was done, and
    where the text can be given instead. Not an error: the request was well-formed, only incomplete."""
    where = {
        CMD_REMEMBER: "forewarn remember TEXT --file FILE, or this command with 'text' filled in",
        CMD_SUPERSEDE: f"forewarn memory supersede {memory_id or 'ID'} TEXT, or this command with 'text' filled in",
        CMD_ACCEPT_SUGGESTION: f"forewarn memory review accept {memory_id or 'ID'} --text TEXT, or this command "
        "with 'text' filled in (leave 'text' out to accept the suggestion as it is)",
    }.get(command, "this command with 'text' filled in")
    return {
        "done": False,
        "needs": "text",
        "message": f"{command} needs the text to write, and this editor did not ask for it; nothing was changed. "
        f"Use {where}.",
    }


def restore_hint(memory_id: str) -> dict[str, Any]:
    """How a forgotten memory comes back: the command to run as it is, and the same in words (and on the CLI)."""
    return {
        "command": {"title": "Restore", "command": CMD_RESTORE, "arguments": [{"id": memory_id}]},
        "message": f"Forgotten (archived, not deleted). Bring it back with {CMD_RESTORE} {{id: {memory_id}}} "
        f"or forewarn memory restore {memory_id}.",
    }


def memory_id_of(diagnostic: types.Diagnostic) -> str | None:
    """The memory a diagnostic of ours shows (``data.id``, else ``code``), or None for others'."""
    if diagnostic.source != SOURCE:
        return None
    data = diagnostic.data
    if isinstance(data, dict) and isinstance(data.get("id"), str):
        return data["id"]
    return diagnostic.code if isinstance(diagnostic.code, str) else None


def code_actions(
    uri: str,
    rng: types.Range,
    symbol: str | None,
    diags: Iterable[types.Diagnostic],
    *,
    prompts: bool = False,
    orphans: Sequence[Memory] = (),
) -> list[types.CodeAction]:
    """Actions for a selection: remember a gotcha here, and for each memory shown there, the lifecycle.

    ``remember``, ``supersede`` and "edit and accept" need text the user types: their argument carries
    ``text: null`` and the client prompts for it before running the command (docs/internals.md). Only a
    client that ``prompts`` (it declared ``experimental.forewarn.promptsForText``: an interactive editor) is
    offered them; any other client (an agent host, a generic editor) is an agent: it gets only actions whose
    arguments are complete, and never accept, dismiss, resolve or re-anchor (a person's decisions); its confirm,
    mark outdated and forget become proposals waiting for a person (forewarn.lsp.for_agents).
    ``orphans``: memories of this file whose code was not found again; on a definition each may be
    re-anchored to it (``forewarn.reanchor``).
    """
    actions: list[types.CodeAction] = []
    name = flat_text(spoken_symbol(symbol, uri)) if symbol else None  # the selection is in it: no ``#2`` to say which
    if symbol is not None and prompts:  # a person re-anchors; an agent host is offered nothing that revives a memory
        for orphan in orphans[:REANCHOR_ACTIONS]:
            a = orphan.anchor
            was = (
                symbol_label(a.symbol, a.start_line, a.end_line, quote=flat_text, file=a.file)
                if a and a.symbol
                else "its code"
            )
            actions.append(
                _quick_fix(
                    f"Forewarn: re-anchor “{flat_text(orphan.text)[:60]}” (was {was}, orphaned) to {name}",
                    "Re-anchor memory",
                    CMD_REANCHOR,
                    {"id": orphan.id, "uri": uri, "symbol": symbol},
                )
            )
    if prompts:
        where = f" for {name}" if name else " here"
        argument = {"text": None, "type": "gotcha", "uri": uri, "range": range_dict(rng), "symbol": symbol}
        actions.append(_quick_fix(f"Forewarn: remember a gotcha{where}", "Remember a gotcha", CMD_REMEMBER, argument))
    seen: set[str] = set()
    for diag in diags:
        if diag.source == SOURCE and isinstance(diag.data, dict) and "more" in diag.data:  # the "N more" entry
            title = "Forewarn: list every memory on this file and the code it uses"
            actions.append(_quick_fix(title, "List memories", CMD_OPEN_LIST, {"uri": uri}, diag))
            continue
        mid = memory_id_of(diag)
        if mid is None or mid in seen:
            continue
        seen.add(mid)
        short = mid[-6:]
        if isinstance(diag.data, dict) and diag.data.get("status") == MemoryStatus.SUGGESTED:
            if prompts:  # accepting or dismissing is a person's: an agent host is never offered it
                actions += _suggestion_actions(diag, mid, short, prompts=prompts)
            continue
        if prompts:  # so is settling a contested pair
            actions += _contested_actions(diag, mid, short)
        contested = isinstance(diag.data, dict) and diag.data.get("status") == MemoryStatus.CONTESTED
        for title, command, extra in (
            *((("confirm still true", CMD_CONFIRM, {}),) if not contested else ()),  # the pair is settled instead
            ("mark outdated", CMD_MARK_OUTDATED, {}),
            *((("supersede with new text", CMD_SUPERSEDE, {"text": None}),) if prompts else ()),
            ("forget", CMD_FORGET, {}),
        ):
            actions.append(_quick_fix(f"Forewarn: {title} ({short})", title, command, {"id": mid, **extra}, diag))
    return actions


def _quick_fix(
    title: str,
    command_title: str,
    command: str,
    argument: dict[str, Any],
    diag: types.Diagnostic | None = None,
    *,
    preferred: bool | None = None,
) -> types.CodeAction:
    """A quick fix running ``command`` with one argument object, for ``diag`` when it answers one."""
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diag] if diag is not None else None,
        is_preferred=preferred,
        command=types.Command(title=command_title, command=command, arguments=[argument]),
    )


def _contested_actions(diag: types.Diagnostic, mid: str, short: str) -> list[types.CodeAction]:
    """A contested memory's resolutions, per memory it is contested with: this one stands (the other is
    superseded), or both hold. (Keeping the other is the other diagnostic's own "this one stands".)"""
    data = diag.data if isinstance(diag.data, dict) else {}
    others = [o for o in data.get("contested") or [] if isinstance(o, str)] if data.get("status") == "contested" else []
    return [
        _quick_fix(
            f"Forewarn: {title} ({short} vs {other[-6:]})",
            title,
            CMD_RESOLVE_CONFLICT,
            {"id": mid, "other": other, "resolution": how},
            diag,
            preferred=False,
        )
        for other in others[:CONTESTED_ACTIONS]
        for title, how in (("this one holds: supersede the other", "replace"), ("both hold", "both"))
    ]


def _suggestion_actions(diag: types.Diagnostic, mid: str, short: str, *, prompts: bool) -> list[types.CodeAction]:
    """Accept, edit and accept (a client that ``prompts`` asks for the text: ``text: null``), or dismiss."""
    return [
        _quick_fix(
            f"Forewarn: {title} ({short})",
            title,
            command,
            {"id": mid, **extra},
            diag,
            preferred=command == CMD_ACCEPT_SUGGESTION and not extra,
        )
        for title, command, extra in (
            ("accept suggestion", CMD_ACCEPT_SUGGESTION, {}),
            *((("edit and accept suggestion", CMD_ACCEPT_SUGGESTION, {"text": None}),) if prompts else ()),
            ("dismiss suggestion", CMD_DISMISS_SUGGESTION, {}),
        )
    ]


def bare_commands(actions: Sequence[types.CodeAction]) -> list[types.Command]:
    """The same actions for clients without CodeAction literal support: their commands, titled."""
    return [
        types.Command(title=action.title, command=action.command.command, arguments=action.command.arguments)
        for action in actions
        if action.command is not None
    ]
