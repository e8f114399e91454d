"""What a file shows and what a hover shows: a folder's diagnostics records, its shown suggestions (cached) and
the hover's resolved symbol, its memories and importance.

Part of :class:`forewarn.lsp.session.FolderSession` (a mixin: the session's ``__init__`` sets the state declared
here). Every method blocks and runs on the server's worker threads.
"""

from __future__ import annotations

import difflib
import logging
import math
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forewarn.lsp import convert
from forewarn.lsp.convert import HOVER_NOTHING, DiagnosticHit, FileView, HoverView, Importance, Span
from forewarn.lsp.session_guard import _refusing_damage
from forewarn.memory.errors import MemoryDatabaseCorruptError
from forewarn.memory.records import Memory
from forewarn.memory.vocabulary import ANCHORED_STATUSES, MemoryStatus
from forewarn.workspace import lessons
from forewarn.workspace.lessons import Lesson
from forewarn.workspace.limits import PROACTIVE_LIMIT
from forewarn.workspace.symbols import SymbolLookup, base_symbol, memories_of, say_overloads, spoken_symbol

if TYPE_CHECKING:
    from forewarn.workspace.engine import Workspace

log = logging.getLogger("forewarn.lsp.session")  # the session's logger, as before the split

# a definition with no memories gets a hover only when its file ranks in this top share by PageRank (and
# others use it): "this is central code" is worth a popup, "rank 812 of 2,700" is not
IMPORTANT_FILES_SHARE = 0.1
SUGGESTIONS_PER_FILE = 3  # mined suggestions shown on one open: a hot file's hundreds wait in the review command
SUGGESTION_CACHE_FILES = 1_000  # files whose shown suggestions are kept between opens (a few records each)
BUFFER_PARSES_KEPT = 4  # edited buffers whose definitions are kept: a code action comes on every cursor move


@dataclass(frozen=True, slots=True)
class SavedPlace:
    """Where a line of a document as the editor has it sits in the saved file the index read."""

    symbol: str | None  # the saved definition holding it; None: top-level code, or none that can be told
    line: int | None  # its line in the saved file; None: unsaved code the saved file does not have


class SessionViews:
    """Diagnostics and hover answers of one folder (part of ``FolderSession``)."""

    uri: str
    engine: Workspace | None
    damage: MemoryDatabaseCorruptError | None
    full_index_running: threading.Event
    _suggested: dict[str, list[Memory]]
    _suggested_generation: int
    _data_version: int | None
    _buffer_parses: dict[str, tuple[str, BufferSpans | None]]  # rel → (the buffer's text, its definitions)

    if TYPE_CHECKING:

        def _engine(self) -> Workspace: ...
        def uri_of(self, rel: str) -> str: ...

    # ------------------------------------------------------------ what a file shows

    def file_hits(self, rel: str, text: str | None, dirty: bool = False) -> list[DiagnosticHit]:
        """The memories to show on ``rel``, placed on their current spans."""
        return self.file_view(rel, text, dirty).hits

    @_refusing_damage(lambda: FileView("", []))
    def file_view(self, rel: str, text: str | None, dirty: bool = False) -> FileView:
        """What an open of ``rel`` shows: one entry per lesson, best first, on current spans; how many more."""
        engine = self.engine
        if engine is None:
            return FileView(rel, [])
        unchecked = False
        if self.full_index_running.is_set():
            hits, more = self._own_memories(rel)  # the graph waits for the index; the file's own lessons need not
        else:
            view = engine.open_view(rel, limit=PROACTIVE_LIMIT, text=text)
            hits, more, unchecked = view.hits, view.more, view.neighbours_unchecked
        live = _buffer_spans(rel, text) if dirty and text is not None else None
        out = [self._lesson_hit(rel, lesson, live) for lesson in lessons.group(hits)]
        contested = [h.memory.id for h in out if h.memory.status == MemoryStatus.CONTESTED and h.neighbour is None]
        if contested:  # each names what it is contested with, so both texts show on either
            partners = engine.contested_with(contested)
            out = [replace(h, contested=tuple(partners.get(h.memory.id, ()))) if not h.neighbour else h for h in out]
        suggested = self._suggestions_shown(engine, rel)
        hints = [DiagnosticHit(m, self._span(rel, m.anchor, live)) for m in suggested[:SUGGESTIONS_PER_FILE]]
        return FileView(rel, out, more, hints, len(suggested) > SUGGESTIONS_PER_FILE, unchecked)

    def _lesson_hit(self, rel: str, lesson: Lesson, live: BufferSpans | None) -> DiagnosticHit:
        """One lesson as a diagnostic's record: where its best memory shows in ``rel`` and where the rest sit."""
        first, *others = lesson.hits
        if lesson.file_wide:
            distinct = tuple(h.memory for h in lesson.distinct())
            return DiagnosticHit(first.memory, Span(self.uri_of(rel), rel, None, None, None), summary=distinct[1:])
        also = tuple((h.memory, self._home(rel, h, live)) for h in others)
        if first.relation == "file":
            return DiagnosticHit(first.memory, self._span(rel, first.memory.anchor, live), also=also)
        anchor = first.memory.anchor
        there = self._span(anchor.file, anchor, None) if anchor else Span(self.uri, "", None, None, None)
        return DiagnosticHit(first.memory, Span(self.uri_of(rel), rel, None, first.line, first.line), there, also=also)

    def _home(self, rel: str, hit: Any, live: BufferSpans | None) -> Span:
        """Where a memory sits: its span in ``rel`` (the buffer's, while edited), or its anchor in its own file."""
        anchor = hit.memory.anchor
        if hit.relation == "file" or anchor is None:
            return self._span(rel, anchor, live)
        return self._span(anchor.file, anchor, None)

    def _suggestions_shown(self, engine: Workspace, rel: str) -> list[Memory]:
        """The best suggestions on ``rel``, one more than an open shows (so it can say there are more); cached."""
        cached = self._suggested.get(rel)
        if cached is not None:
            return cached
        generation = self._suggested_generation
        # a suggestion whose definition is gone has no lines (reconcile): it waits in the review, not on line 1
        found = [m for m in engine.suggestions(rel) if not _lost_its_code(m)][: SUGGESTIONS_PER_FILE + 1]
        if generation == self._suggested_generation:  # nothing changed meanwhile: safe to keep
            if len(self._suggested) >= SUGGESTION_CACHE_FILES:
                self._suggested.clear()
            self._suggested[rel] = found
        return found

    def drop_cached(self) -> None:
        """Memories may have changed (a write, the CLI, indexing, mining): the next open asks the store again."""
        self._suggested_generation += 1
        self._suggested.clear()

    @_refusing_damage(lambda: False)
    def memories_changed_elsewhere(self) -> bool:
        """True once after another process (the CLI, a second editor) committed to the memory database."""
        if self.engine is None:
            return False
        version = self.engine.store.data_version()
        changed = self._data_version is not None and version != self._data_version
        self._data_version = version
        return changed

    def _own_memories(self, rel: str) -> tuple[list[Any], int]:
        """The file's own memories, straight from the memory store, best first; and how many the limit left out."""
        from forewarn.memory.retrieval import ProactiveHit, rank_anchored

        own = rank_anchored(self._engine().store.anchored_to_files([rel]), time.time())
        return [ProactiveHit(m, 0.0, "file") for m in own[:PROACTIVE_LIMIT]], max(0, len(own) - PROACTIVE_LIMIT)

    def _span(self, rel: str, anchor: Any, live: dict[str, tuple[int, int]] | None) -> Span:
        if anchor is None or anchor.symbol is None:
            return Span(self.uri_of(rel), rel, None, None, None)
        if live is not None and (placed := _placed(live, anchor.symbol, anchor.content_hash)) is not None:
            symbol, start, end = placed
            return Span(self.uri_of(rel), rel, symbol, start, end)
        return Span(self.uri_of(rel), rel, anchor.symbol, anchor.start_line, anchor.end_line)

    # ------------------------------------------------------------ hover and code actions

    @_refusing_damage(lambda: None)
    def symbol_at(self, rel: str, line: int) -> str | None:
        if self.engine is None or self.full_index_running.is_set():
            return None  # code spans wait for the index; answering without one beats blocking
        chunk = self.engine.indexer.chunk_at(rel, line)
        return chunk.symbol if chunk is not None and chunk.kind != "module" else None

    @_refusing_damage(lambda: SavedPlace(None, None))
    def saved_place(self, rel: str, line: int, text: str | None) -> SavedPlace:
        """Where ``line`` (1-based) of ``rel`` as the editor has it (``text``; None: as saved) is in the saved file.

        In an edited, unsaved buffer the definition around the line is the buffer's, matched to its saved one as
        diagnostics match them (the same bytes, else the same symbol path); a definition the saved file lacks, or a
        buffer that cannot be parsed, names none rather than the one at that line on disk."""
        if self.engine is None:
            return SavedPlace(None, line)
        saved = self.engine.source_text(rel) if text is not None else None
        if text is None or _as_saved(text, saved) or self.full_index_running.is_set():
            return SavedPlace(self.symbol_at(rel, line), line)
        if saved is None:
            return SavedPlace(None, None)
        on_disk = _saved_line(saved, text, line)  # the same line of code, where the saved file has it
        live = self._buffer_definitions(rel, text)
        if live is None:  # unparsable: the line may still be told where it is saved, never which definition
            return SavedPlace(None, on_disk)
        around = _innermost(live, line)
        if around is None:  # top-level code
            return SavedPlace(None, on_disk)
        symbol, start, _ = around
        same = self._saved_definition(rel, symbol, _hash_of(live, around))
        if same is None:  # written in the buffer, not saved yet: nothing on disk to anchor to
            return SavedPlace(None, None)
        if on_disk is None or not same.start_line <= on_disk <= same.end_line:
            on_disk = min(same.start_line + line - start, same.end_line)  # an edited line: as far into it
        return SavedPlace(same.symbol, on_disk)

    def _same_line_saved(self, rel: str, saved: str, text: str, line: int) -> int | None:
        """The line of the saved file with the same code as ``line`` of the edited ``text``: found by a line diff,
        or (a definition moved past others) the same line of the same definition where it is saved."""
        found = _saved_line(saved, text, line)
        if found is None and (moved := self.saved_place(rel, line, text).line) is not None:
            found = moved if _line_text(saved, moved) == _line_text(text, line) else None
        return found

    def _buffer_definitions(self, rel: str, text: str) -> BufferSpans | None:
        """``_buffer_spans`` of an edited buffer, kept until it changes (a parse of a long file takes ~50 ms)."""
        kept = self._buffer_parses.get(rel)
        if kept is not None and kept[0] == text:
            return kept[1]
        spans = _buffer_spans(rel, text)
        if len(self._buffer_parses) >= BUFFER_PARSES_KEPT:
            self._buffer_parses.clear()
        self._buffer_parses[rel] = (text, spans)
        return spans

    def _saved_definition(self, rel: str, symbol: str, content_hash: str | None) -> Any:
        """The indexed definition of ``rel`` that the buffer's ``symbol`` (with bytes ``content_hash``) is: one with
        the same name and bytes (the one of that path first: overloads moved past each other swap ordinals), else
        the same symbol path; None when the saved file has neither."""
        whole = [c for c in self._engine().indexer.chunks_for(rel) if c.part == 0 and c.kind != "module"]
        base = base_symbol(symbol)
        same = [c for c in whole if content_hash and c.content_hash == content_hash and base_symbol(c.symbol) == base]
        if same:
            return next((c for c in same if c.symbol == symbol), same[0])
        return next((c for c in whole if c.symbol == symbol), None)

    @_refusing_damage(lambda: HOVER_NOTHING)
    def symbol_info(self, rel: str, line: int, char: int, text: str | None, encoding: str = "utf-16") -> HoverView:
        """What a hover at ``line`` (1-based), ``char`` (``encoding`` units) shows: the symbol under the cursor
        resolved to its definition (itself, or what a reference names), its memories (best first, all of them),
        its file's importance when worth telling, and for stale memories what changed in their code."""
        if self.engine is None:
            return HOVER_NOTHING
        if self.full_index_running.is_set():
            return self._symbol_info_from_anchors(rel, line, char, text, encoding)
        engine = self.engine
        saved = engine.source_text(rel)
        asked = line
        if text is None or _as_saved(text, saved):
            text = saved
        elif saved is not None and (on_disk := self._same_line_saved(rel, saved, text, line)) is not None:
            # the index's spans are the saved file's: read the same line of code where the saved file has it
            text, line = saved, on_disk
        target = self._symbols(engine).resolve(rel, text, line, char, encoding) if text is not None else None
        if target is None:
            return HOVER_NOTHING  # a blank, a keyword, a comment or string, or nothing it could be resolved to
        memories = say_overloads(memories_of(engine.store, target, engine.clock()), target)
        scores, positions = engine.graph.file_ranks()
        rank = positions.get(target.file)
        importance = Importance(rank, len(scores), engine.graph.dependents_count(target.file)) if rank else None
        if not memories and not (target.definition and importance and _worth_telling(importance)):
            return HOVER_NOTHING  # a use of something with nothing remembered: no popup at all
        symbol = spoken_symbol(target.symbol, target.file) if target.symbol else target.file  # a module: its file
        where = target.file if target.file != rel else None
        at = (asked, target.start_char, target.end_char)  # the identifier under the cursor, in the buffer
        return HoverView(symbol, memories, importance, where, at, self._changes(memories))

    def _symbols(self, engine: Workspace) -> SymbolLookup:
        """This engine's symbol lookup (a new engine after a settings change has its own)."""
        return engine.symbol_lookup

    def _changes(self, memories: list[Memory]) -> dict[str, str]:
        """For each stale memory a hover shows, what changed in its code since it was written or confirmed
        (the short diff staleness keeps in its history), when known."""
        engine = self._engine()
        shown = [m for m in memories[: convert.HOVER_MEMORIES] if m.status == MemoryStatus.STALE]
        return {m.id: diff for m in shown if (diff := engine.stale_diff(m.id))}

    def _symbol_info_from_anchors(self, rel: str, line: int, char: int, text: str | None, encoding: str) -> HoverView:
        """While the first index runs the code index is busy: answer from the spans stored with the
        memories (the innermost one holding ``line``), without importance, when the cursor is on that
        symbol's name; nothing elsewhere."""
        holding = [
            (m, a)
            for m in self._engine().store.anchored_to_files([rel])
            if (a := m.anchor) is not None
            and a.symbol
            and a.start_line is not None
            and a.start_line <= line <= (a.end_line or a.start_line)
        ]
        if not holding or text is None:
            return HOVER_NOTHING
        _, innermost = min(holding, key=lambda ma: (ma[1].end_line or 0) - (ma[1].start_line or 0))
        symbol = innermost.symbol
        lines = text.split("\n")
        word = _word_at(lines[line - 1], char, encoding) if line <= len(lines) else None
        if symbol is None or word != _mention_name(innermost):
            return HOVER_NOTHING
        same = [m for m, a in holding if a.symbol == symbol and m.status in ANCHORED_STATUSES]
        from forewarn.memory.retrieval import rank_anchored

        return HoverView(spoken_symbol(symbol, rel), rank_anchored(same, time.time()), None)


# ---------------------------------------------------------------- helpers (pure)


class BufferSpans(dict[str, tuple[int, int]]):
    """Where the definitions of an edited, unsaved buffer are now: symbol path → lines, and by content for
    overloads (a dict, as the session's other parts take the buffer's spans)."""

    def __init__(self) -> None:
        super().__init__()
        # (base symbol, content hash) → the whole definitions with those bytes: (symbol, start, end)
        self.by_content: dict[tuple[str, str], list[tuple[str, int, int]]] = {}


def _placed(live: dict[str, tuple[int, int]], symbol: str, content_hash: str | None) -> tuple[str, int, int] | None:
    """Where the definition an anchor names sits in the buffer, matched as the saved index matches it: a
    same-named definition with the anchor's bytes first (overloads moved past each other swap ordinals:
    ``before#2`` is ``before`` once it comes first), else the symbol path."""
    by_content = live.by_content if isinstance(live, BufferSpans) else {}
    same = by_content.get((base_symbol(symbol), content_hash)) if content_hash else None
    if same:
        return next((s for s in same if s[0] == symbol), same[0])
    if symbol in live:
        return (symbol, *live[symbol])
    return None


def _buffer_spans(rel: str, text: str) -> BufferSpans | None:
    """Current symbol spans of an edited, unsaved buffer, by parsing it (None if unsupported)."""
    from forewarn.indexing.languages import language_for_path
    from forewarn.indexing.parse import parse_source

    spec = language_for_path(rel, text)
    if spec is None:
        return None
    try:
        parsed = parse_source(rel, text.encode("utf-8", "surrogatepass"), spec)
    except Exception:  # a half-typed buffer must never break diagnostics
        log.debug("parsing the buffer of %s failed", rel, exc_info=True)
        return None
    found = spans = BufferSpans()
    for chunk in parsed.chunks:
        if chunk.symbol in spans:
            start, end = spans[chunk.symbol]
            spans[chunk.symbol] = (min(start, chunk.start_line), max(end, chunk.end_line))
        else:
            spans[chunk.symbol] = (chunk.start_line, chunk.end_line)
    for chunk in parsed.chunks:  # whole definitions only: the parts of a long one carry the parts' hashes
        if spans[chunk.symbol] == (chunk.start_line, chunk.end_line):
            key = (base_symbol(chunk.symbol), chunk.content_hash)
            found.by_content.setdefault(key, []).append((chunk.symbol, chunk.start_line, chunk.end_line))
    return found


def _innermost(live: BufferSpans, line: int) -> tuple[str, int, int] | None:
    """The buffer's innermost definition holding ``line``: (symbol, start, end); None in top-level code."""
    holding = [(s, a, b) for s, (a, b) in live.items() if a <= line <= b and base_symbol(s) != "<module>"]
    return min(holding, key=lambda d: (d[2] - d[1], -d[1])) if holding else None


def _hash_of(live: BufferSpans, definition: tuple[str, int, int]) -> str | None:
    """The content hash of a whole buffer definition (None for one split into parts: its parts have their own)."""
    return next((h for (_, h), found in live.by_content.items() if definition in found), None)


def _as_saved(text: str, saved: str | None) -> bool:
    """Whether a buffer's ``text`` is the saved file's (read with its line endings as ``\\n``)."""
    return saved is not None and (text == saved or text.replace("\r\n", "\n") == saved)


def _lines(text: str) -> list[str]:
    """``text``'s lines as LSP counts them (``\\n`` or ``\\r\\n``), without their endings."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def _line_text(text: str, line: int) -> str | None:
    """Line ``line`` (1-based) of ``text``, None past its end."""
    lines = _lines(text)
    return lines[line - 1] if 1 <= line <= len(lines) else None


def _saved_line(saved: str, text: str, line: int) -> int | None:
    """The line of ``saved`` that ``line`` (1-based) of the edited ``text`` is: the same line of code, unchanged
    around it, found by a line diff; None for a line the edit wrote or changed."""
    old, new = _lines(saved), _lines(text)
    if not 1 <= line <= len(new):
        return None
    head = 0  # lines before the first difference are where they were…
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    if line <= head:
        return line
    tail = 0  # …and lines after the last one moved by what the edit added
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    if line > len(new) - tail:
        return line + len(old) - len(new)
    changed = difflib.SequenceMatcher(None, old[head : len(old) - tail], new[head : len(new) - tail], autojunk=False)
    for a, b, size in changed.get_matching_blocks():  # between them, a line moved (or kept) inside the change
        if head + b < line <= head + b + size:
            return line - b + a
    return None


def _worth_telling(importance: Importance) -> bool:
    """Whether a definition with no memories still earns a hover: its file is among the workspace's most
    important (``IMPORTANT_FILES_SHARE``) and other files use it."""
    top = max(1, math.ceil(importance.files * IMPORTANT_FILES_SHARE))
    return importance.rank <= top and importance.dependents > 0


def _word_at(line: str, char: int, encoding: str) -> str | None:
    """The identifier-like word at column ``char`` (``encoding`` units) of ``line``, or None."""
    if encoding == "utf-16":
        char = len(line.encode("utf-16-le", "surrogatepass")[: 2 * char].decode("utf-16-le", "replace"))
    elif encoding == "utf-8":
        char = len(line.encode("utf-8", "surrogatepass")[:char].decode("utf-8", "replace"))
    if not 0 <= char < len(line) or not (line[char].isalnum() or line[char] in "_$"):
        return None
    start, end = char, char
    while start > 0 and (line[start - 1].isalnum() or line[start - 1] in "_$"):
        start -= 1
    while end < len(line) and (line[end].isalnum() or line[end] in "_$"):
        end += 1
    return line[start:end]


def _mention_name(anchor: Any) -> str | None:
    """What a file that depends on the anchor would write: the symbol's last part, or the module name."""
    if anchor.symbol and anchor.symbol != "<module>":
        return base_symbol(str(anchor.symbol)).rsplit(".", 1)[-1]
    stem = Path(anchor.file).stem
    return stem if stem not in ("__init__", "index", "mod", "main") else Path(anchor.file).parent.name or None


def _lost_its_code(m: Memory) -> bool:
    """A suggestion about a definition that is no longer in its file (its symbol kept, its lines dropped)."""
    a = m.anchor
    return a is not None and a.symbol is not None and a.start_line is None
