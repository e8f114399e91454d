"""Domain records → lsprotocol types and JSON-able command results. Pure functions, no I/O.

Lines in the domain are 1-based and inclusive (``Chunk.start_line``); LSP positions are 0-based.
Ranges cover whole lines and end at column 0 of the next line, so they need neither the document
text nor the negotiated position encoding (UTF-8/16/32 columns) to be exact.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from forewarn.memory.store import Memory
from forewarn.memory.text import age_text, from_iso

SOURCE = "forewarn"  # diagnostics' source: lets clients and users filter ours
WARNING_TYPES = frozenset({"gotcha", "error_pattern"})  # things that bite: worth a squiggle
HOVER_TEXT_MAX_CHARS = 2_000  # a hover is a glance; the full text is one search away
SYMBOL_NAME_MAX_CHARS = 80  # symbol pickers show one line per entry
DIAGNOSTIC_TEXT_MAX_CHARS = 1_000  # Problems views truncate long messages anyway

TYPE_ICONS = {  # one glyph per memory type in symbol pickers, so types are told apart at a glance
    "gotcha": "⚠",
    "error_pattern": "✖",
    "decision": "◆",
    "dead_end": "⊘",
    "convention": "≡",
    "preference": "♥",
    "todo": "☐",
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
PROVENANCE = {  # how a memory's source reads in a message
    "user": "recorded by a person",
    "agent": "recorded by an agent",
    "commit": "learned from a commit",
    "import": "imported from the team's export",
}


# ---------------------------------------------------------------- text safety

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
# the characters that can open Markdown constructs: links and images ([ ] !), autolinks and HTML (< >),
# entities (&), code (`), emphasis (* _ ~), headings (#), tables (|), and the escape itself; escaping
# only these keeps prose readable in editors that show Markdown source (Neovim's hover float)
MARKDOWN_ACTIVE = "\\`*_[]<>&#|~!"
_MD_ACTIVE_RE = re.compile("([" + re.escape(MARKDOWN_ACTIVE) + "])")


def escape_markdown(text: str) -> str:
    """Memory text as inert Markdown: no links (``command:`` or other), images, HTML, entities or code.

    CommonMark lets any ASCII punctuation be backslash-escaped, and an escaped character is always
    literal: with brackets, angles and ampersands escaped, ``[x](command:...)``, ``<img>``, ``&#x3c;``
    and ``<command:...>`` autolinks cannot form and render as plain text.
    Control and bidi-override characters are dropped so text cannot hide or reorder what it shows.
    """
    cleaned = _CONTROL_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    escaped = _MD_ACTIVE_RE.sub(r"\\\1", cleaned)
    return escaped.replace("\n", "  \n")  # a hard break: newlines the author wrote stay newlines


def one_line(text: str, limit: int) -> str:
    """First line-ish of ``text`` (whitespace collapsed), cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(_CONTROL_RE.sub("", text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def age(created_at: str, now: float | None = None) -> str:
    """ "3 months ago" from an ISO-8601 time."""
    try:
        then = from_iso(created_at)
    except ValueError:
        return "at an unknown time"
    text = age_text((time.time() if now is None else now) - then)
    return text if text == "just now" else f"{text} ago"


def provenance(source: str) -> str:
    return PROVENANCE.get(source, f"from {source}")


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
    """One memory to show in a file: anchored here, or a graph neighbour's (``via`` = its anchor)."""

    memory: Memory
    span: Span  # in the file being shown (the first line for neighbours and file-wide memories)
    neighbour: Span | None = None  # the neighbour's anchor, for relatedInformation


def severity(memory: Memory, *, neighbour: bool) -> types.DiagnosticSeverity:
    """Stale → Hint; neighbours → Information; gotcha/error_pattern → Warning; the rest Information."""
    if memory.status == "stale":
        return types.DiagnosticSeverity.Hint
    if neighbour or memory.type not in WARNING_TYPES:
        return types.DiagnosticSeverity.Information
    return types.DiagnosticSeverity.Warning


def diagnostic_message(memory: Memory, now: float | None = None, *, neighbour: Span | None = None) -> str:
    head = memory.type.replace("_", " ")
    if memory.status == "stale":
        head += " (stale: the code it describes changed)"
    where = f" [about {neighbour.file}{'::' + neighbour.symbol if neighbour.symbol else ''}]" if neighbour else ""
    text = one_line(memory.text, DIAGNOSTIC_TEXT_MAX_CHARS)
    return f"{head}{where}: {text} — {age(memory.created_at, now)}, {provenance(memory.source)}"


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
        related = None
        if hit.neighbour is not None:
            related = [
                types.DiagnosticRelatedInformation(
                    location=types.Location(uri=hit.neighbour.uri, range=hit.neighbour.range),
                    message=f"anchored at {hit.neighbour.file}"
                    + (f"::{hit.neighbour.symbol}" if hit.neighbour.symbol else ""),
                )
            ]
        out.append(
            types.Diagnostic(
                range=hit.span.range,
                message=diagnostic_message(hit.memory, now, neighbour=hit.neighbour),
                severity=sev,
                code=hit.memory.id,
                source=SOURCE,
                related_information=related,
                data={"id": hit.memory.id, "type": hit.memory.type, "status": hit.memory.status},
            )
        )
    return out


# ---------------------------------------------------------------- hover


@dataclass(frozen=True, slots=True)
class Importance:
    """How central a file is: its PageRank position among the workspace's files and its dependents."""

    rank: int  # 1 = most important
    files: int  # how many files were ranked
    dependents: int  # files that use definitions from this one


def hover_markdown(
    symbol: str | None, memories: Sequence[Memory], importance: Importance | None, now: float | None = None
) -> str | None:
    """The hover body, or None when there is nothing worth a popup."""
    if not memories and importance is None:
        return None
    lines: list[str] = []
    if symbol:
        lines.append(f"**Forewarn** · `{symbol.replace('`', '')}`")
    else:
        lines.append("**Forewarn**")
    if importance is not None:
        lines.append(
            f"Importance: its file ranks {importance.rank} of {importance.files} by PageRank; "
            f"{importance.dependents} {'file depends' if importance.dependents == 1 else 'files depend'} on that file."
        )
    for memory in memories:
        text = memory.text if len(memory.text) <= HOVER_TEXT_MAX_CHARS else memory.text[:HOVER_TEXT_MAX_CHARS] + "…"
        status = "" if memory.status == "active" else f" ({escape_markdown(memory.status)})"
        lines.append("---")
        lines.append(
            f"**{escape_markdown(memory.type.replace('_', ' '))}**{status} · "
            f"{escape_markdown(age(memory.created_at, now))} · {escape_markdown(provenance(memory.source))}"
            f" · id `{memory.id.replace('`', '')}`"
        )
        lines.append(escape_markdown(text))
    return "\n\n".join(lines)


def hover(markdown: str | None, line: int) -> types.Hover | None:
    if markdown is None:
        return None
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown),
        range=line_span_range(line, line),
    )


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


def memory_symbol(memory: Memory, anchor: Span) -> types.WorkspaceSymbol:
    """A memory in the standard symbol picker: "⚠ gotcha: text…" at its anchor."""
    icon = TYPE_ICONS.get(memory.type, "•")
    name = one_line(f"{icon} {memory.type.replace('_', ' ')}: {memory.text}", SYMBOL_NAME_MAX_CHARS)
    return types.WorkspaceSymbol(
        name=name,
        kind=SYMBOL_KINDS.get(memory.type, types.SymbolKind.Event),
        location=types.Location(uri=anchor.uri, range=anchor.range),
        container_name=anchor.file + (f"::{anchor.symbol}" if anchor.symbol else ""),
        tags=[types.SymbolTag.Deprecated] if memory.status in ("stale", "superseded") else None,
    )


def chunk_symbol(chunk: ChunkView) -> types.WorkspaceSymbol:
    return types.WorkspaceSymbol(
        name=chunk.symbol,
        kind=CHUNK_KINDS.get(chunk.kind, types.SymbolKind.Function),
        location=types.Location(uri=chunk.uri, range=line_span_range(chunk.start_line, chunk.end_line)),
        container_name=chunk.file,
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


def memory_id_of(diagnostic: types.Diagnostic) -> str | None:
    """The memory a diagnostic of ours shows (``data.id``, else ``code``), or None for others'."""
    if diagnostic.source != SOURCE:
        return None
    data = diagnostic.data
    if isinstance(data, dict) and isinstance(data.get("id"), str):
        return data["id"]
    return diagnostic.code if isinstance(diagnostic.code, str) else None


def code_actions(
    uri: str, rng: types.Range, symbol: str | None, diags: Iterable[types.Diagnostic]
) -> list[types.CodeAction]:
    """Actions for a selection: remember a gotcha here, and for each memory shown there, the lifecycle.

    ``remember`` and ``supersede`` need text the user types: their argument carries ``text: null``
    and editor clients prompt for it before running the command (see docs/internals.md).
    """
    where = f" for {symbol}" if symbol else " here"
    actions = [
        types.CodeAction(
            title=f"Forewarn: remember a gotcha{where}",
            kind=types.CodeActionKind.QuickFix,
            command=types.Command(
                title="Remember a gotcha",
                command=CMD_REMEMBER,
                arguments=[{"text": None, "type": "gotcha", "uri": uri, "range": range_dict(rng), "symbol": symbol}],
            ),
        )
    ]
    seen: set[str] = set()
    for diag in diags:
        mid = memory_id_of(diag)
        if mid is None or mid in seen:
            continue
        seen.add(mid)
        short = mid[-6:]
        for title, command, extra in (
            ("confirm still true", CMD_CONFIRM, {}),
            ("mark outdated", CMD_MARK_OUTDATED, {}),
            ("supersede with new text", CMD_SUPERSEDE, {"text": None}),
            ("forget", CMD_FORGET, {}),
        ):
            actions.append(
                types.CodeAction(
                    title=f"Forewarn: {title} ({short})",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diag],
                    command=types.Command(title=title, command=command, arguments=[{"id": mid, **extra}]),
                )
            )
    return actions


def bare_commands(actions: Sequence[types.CodeAction]) -> list[types.Command]:
    """The same actions for clients without CodeAction literal support: their commands, titled."""
    return [
        types.Command(title=action.title, command=action.command.command, arguments=action.command.arguments)
        for action in actions
        if action.command is not None
    ]
