"""One workspace folder as the server sees it: a ``Workspace`` and the answers handlers need.

Every method here blocks (SQLite, tree-sitter, embedding) and is called from the server's worker
threads, never from the event loop. Results are the small records of ``convert.py`` (or plain
dicts for command results), so handlers only map them to protocol types.
"""

from __future__ import annotations

import functools
import gc
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from lsprotocol import types
from pygls.uris import from_fs_path

from forewarn.config import Settings
from forewarn.errors import ForewarnError
from forewarn.lsp import convert
from forewarn.lsp.convert import HOVER_NOTHING, ChunkView, DiagnosticHit, FileView, HoverView, Importance, Span
from forewarn.memory.errors import (
    AmbiguousMemoryIdError,
    InvalidMemoryError,
    MemoryDatabaseCorruptError,
    MemoryNotFoundError,
)
from forewarn.memory.origin import ProposalAction
from forewarn.memory.records import Memory
from forewarn.memory.suggestions import worth_a_look
from forewarn.memory.vocabulary import ANCHORED_STATUSES, MemorySource, MemoryStatus
from forewarn.workspace import lessons
from forewarn.workspace.agents import AgentWriter
from forewarn.workspace.lessons import Lesson
from forewarn.workspace.limits import PROACTIVE_LIMIT
from forewarn.workspace.symbols import SymbolLookup, base_symbol, memories_of

CODE_SAVE_S = 120.0  # background code embedding saves its index this often (and when idle, and on exit)
MAX_CODE_FILES = 50  # code files in a search answer (they follow k up to this)

if TYPE_CHECKING:
    from forewarn.workspace.engine import Workspace

log = logging.getLogger(__name__)

MAP_FILES = 100  # ranked files listed beside the repo map text: a palette shows no more
# a definition with no memories gets a hover only when its file ranks in this top share by PageRank (and
# others use it): "this is central code" is worth a popup, "rank 812 of 2,700" is not
IMPORTANT_FILES_SHARE = 0.1
SUGGESTIONS_PER_FILE = 3  # mined suggestions shown on one open: a hot file's hundreds wait in the review command
SUGGESTION_CACHE_FILES = 1_000  # files whose shown suggestions are kept between opens (a few records each)
REVIEW_MAX = 500  # suggestions one review answer lists (best first); a picker past this is unusable


class Unavailable(ForewarnError):
    """The folder has no working engine (unreadable workspace, damaged database…); says why."""


P = ParamSpec("P")
R = TypeVar("R")
Method = Callable[Concatenate["FolderSession", P], R]


def _refusing_damage(quiet: Callable[[], Any] | None = None) -> Callable[[Method[P, R]], Method[P, R]]:
    """A session call on a damaged memory database: ``quiet()``'s empty answer (diagnostics, hovers and
    background work show nothing), else ``Unavailable`` naming ``forewarn memory recover`` (requests
    answer RequestFailed). The first sighting, at open or from any call, is kept for ``take_damage``."""

    def wrap(method: Method[P, R]) -> Method[P, R]:
        @functools.wraps(method)
        def guarded(self: FolderSession, *args: P.args, **kwargs: P.kwargs) -> R:
            if self.damage is None:
                try:
                    return method(self, *args, **kwargs)
                except MemoryDatabaseCorruptError as exc:
                    self.damage = exc
            if quiet is not None:
                result: R = quiet()
                return result
            raise Unavailable(str(self.damage)) from self.damage

        return guarded

    return wrap


@dataclass(frozen=True, slots=True)
class IndexProgress:
    done: int
    total: int
    message: str


def settle_heap() -> None:
    """After a full index: collect once, then keep what is left (the code graph, caches, grammars)
    out of later collections. Without it, an old-generation collection walks every one of those
    objects in the middle of a file open or a hover (27-99 ms seen on Django); opens and hovers then
    only pay for what they allocate. Unfrozen first, so what an earlier run left behind is collected."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


class FolderSession:
    """The engine of one workspace folder plus the caches the daemon keeps beside it."""

    def __init__(self, root: Path, settings: Settings) -> None:
        self.root = root
        self.uri = from_fs_path(str(root)) or root.as_uri()
        self.settings = settings
        self.engine: Workspace | None = None
        self.problems: list[str] = []
        self.damage: MemoryDatabaseCorruptError | None = None  # the folder is refused until it is opened again
        self._damage_told = False
        self.last_summary: str | None = None
        self.last_report: dict[str, Any] = {}
        self._cancel = threading.Event()
        self._uris: dict[str, str] = {}
        # what opens showed as suggestions, by file: ranking a hot file's hundreds costs ~7 ms, typing re-asks
        # every 0.3 s. Dropped whenever anything may have changed (``drop_cached``, on every republish)
        self._suggested: dict[str, list[Memory]] = {}
        self._suggested_generation = 0
        self._data_version: int | None = None
        self.full_index_running = threading.Event()  # the indexer's lock is held for the whole run
        self.indexed = threading.Event()  # the first full index has run: code search sees the folder as it is
        self._code_saved = time.monotonic()  # when background embedding last saved the code vectors

    # ------------------------------------------------------------ lifecycle

    def open(self) -> None:
        self.damage = None  # opened again (settings changed): a recovered database is checked afresh
        if not self.root.is_dir():
            self.problems.append(f"Forewarn: workspace folder {self.root} does not exist or is not a directory")
            return
        try:
            # imported here: an engine that cannot even load becomes a message, not a dead server
            from forewarn.workspace.engine import Workspace

            # vectors missing for this model are embedded by ``backfill`` batches after indexing, not here
            self.engine = Workspace.open(self.root, self.settings, backfill_on_open=False)
        except MemoryDatabaseCorruptError as exc:  # told once, as an error, by ``take_damage``
            self.damage = exc
            return
        except Exception as exc:  # keep serving: other folders and the protocol still work
            log.exception("cannot open the memory engine for %s", self.root)
            self.problems.append(f"Forewarn: cannot open memories for {self.root}: {exc}")
            return
        self.memories_changed_elsewhere()  # the baseline: later commits by others count as changes
        if self.damage is not None:
            return
        if self.settings.embedder.enabled and self.engine.embedder_problem:
            self.problems.append(f"Forewarn: search is lexical-only: {self.engine.embedder_problem}")

    def take_problems(self) -> list[str]:
        problems, self.problems = self.problems, []
        return problems

    def take_damage(self) -> str | None:
        """The damaged-database message, the first time it is asked for after the damage was found."""
        if self.damage is None or self._damage_told:
            return None
        self._damage_told = True
        return str(self.damage)

    def apply_settings(self, settings: Settings) -> None:
        reopen = settings.index != self.settings.index or settings.embedder != self.settings.embedder
        self.settings = settings
        if reopen and self.engine is not None:
            self.close()
            self.open()

    def cancel(self) -> None:
        self._cancel.set()

    def close(self) -> None:
        if self.engine is not None:
            try:
                self.engine.close()  # saves the vector index
            except Exception:
                log.exception("closing the engine for %s failed", self.root)
            self.engine = None

    def _engine(self) -> Workspace:
        if self.damage is not None:
            raise Unavailable(str(self.damage))
        if self.engine is None:
            raise Unavailable(f"memories for {self.root} are unavailable (see the earlier message)")
        return self.engine

    def uri_of(self, rel: str) -> str:
        """The file URI of a workspace-relative path (cached: quoting is most of a file-open's own cost)."""
        uri = self._uris.get(rel)
        if uri is None:
            uri = self._uris[rel] = from_fs_path(str(self.root / rel)) or (self.root / rel).as_uri()
        return uri

    # ------------------------------------------------------------ indexing

    @_refusing_damage()
    def index(self, rels: list[str] | None, progress: Callable[[IndexProgress], None] | None = None) -> dict[str, Any]:
        """Index everything (``rels`` None) or a few files; the engine then re-anchors or stales memories."""
        engine = self._engine()
        started = time.perf_counter()

        def on_progress(done: int, total: int) -> None:
            if progress is not None and not self._cancel.is_set():
                progress(IndexProgress(done, total, f"{done}/{total} files"))

        if not rels:
            self.full_index_running.set()
        try:
            result = engine.reindex(rels or None, progress=on_progress)
        finally:
            self.full_index_running.clear()
            if not rels:
                self.indexed.set()
        if not rels:
            engine.warm()  # ranks and references of every file, computed here rather than by the first opens
            self._symbols(engine).warm(engine.indexer.files())  # the hover's language queries, compiled once
            settle_heap()
        report, reconciled = result.index, result.memories
        elapsed_ms = round((time.perf_counter() - started) * 1000, 1)
        files = len(engine.indexer.files())
        changed = len(report.added) + len(report.changed)
        self.last_report = {
            "files": files,
            "changed": changed,
            "deleted": len(report.deleted),
            "renamed": len(report.renamed),
            "duration_ms": elapsed_ms,
        }
        self.last_summary = (
            f"{files} files; {changed} changed, {len(report.deleted)} deleted in {elapsed_ms / 1000:.1f} s"
        )
        changed_memories = ", ".join(f"{len(ids)} {what}" for what, ids in reconciled.to_dict().items() if ids)
        log.info("indexed %s: %s; memories: %s", self.root, self.last_summary, changed_memories or "none changed")
        return self.last_report

    @_refusing_damage(lambda: 0)
    def backfill(self, batch: int) -> int:
        """Embed up to ``batch`` memories that lack a vector for the current model; how many were embedded."""
        if self.engine is None:
            return 0
        return self.engine.backfill_vectors(batch=batch, limit=batch)

    @_refusing_damage(lambda: 0)
    def embed_code(self, first: list[str], busy: Callable[[], bool], batch: int) -> int:
        """Embed code chunks lacking vectors, ``first`` files first: one batch, then more until done or
        ``busy()`` (a request is waiting); how many got a vector."""
        engine = self.engine
        if engine is None:
            return 0
        batches = 0

        def count(done: int, total: int) -> None:
            nonlocal batches
            batches += 1

        def stop() -> bool:  # the server is exiting, the engine was reopened, or a request waits after a batch
            return self._cancel.is_set() or self.engine is not engine or (batches > 0 and busy())

        done = engine.embed_chunks(count, cancel=stop, first=first, batch=batch)
        now = time.monotonic()
        if done and engine.code_vectors is not None and now - self._code_saved >= CODE_SAVE_S:
            engine.code_vectors.save()  # a crash loses at most this much embedding
            self._code_saved = now
        return done

    @_refusing_damage(lambda: None)
    def prune_embedding_cache(self) -> None:
        """Drop cache entries nothing has used for a month, keeping this folder's (after a full index)."""
        if self.engine is not None and (report := self.engine.prune_embedding_cache()) is not None:
            log.info("embedding cache of %s: %s", self.root, report.to_dict())

    @_refusing_damage(lambda: None)
    def flush(self) -> None:
        """Persist the vector index (idle time, shutdown)."""
        if self.engine is not None:
            self.engine.flush()

    @_refusing_damage()
    def accept(self, memory_id: str) -> dict[str, Any]:
        """The user acted on a memory (opened it from search, applied it): reinforce it."""
        engine = self._engine()
        engine.accept(memory_id)
        return {"id": engine.get(memory_id).id}

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

    def _lesson_hit(self, rel: str, lesson: Lesson, live: dict[str, tuple[int, int]] | None) -> DiagnosticHit:
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

    def _home(self, rel: str, hit: Any, live: dict[str, tuple[int, int]] | None) -> Span:
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
        found = engine.suggestions(rel, limit=SUGGESTIONS_PER_FILE + 1)
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
        if live is not None and anchor.symbol in live:
            start, end = live[anchor.symbol]
            return Span(self.uri_of(rel), rel, anchor.symbol, start, end)
        return Span(self.uri_of(rel), rel, anchor.symbol, anchor.start_line, anchor.end_line)

    # ------------------------------------------------------------ hover and code actions

    @_refusing_damage(lambda: None)
    def symbol_at(self, rel: str, line: int) -> str | None:
        if self.engine is None or self.full_index_running.is_set():
            return None  # code spans wait for the index; answering without one beats blocking
        chunk = self.engine.indexer.chunk_at(rel, line)
        return chunk.symbol if chunk is not None and chunk.kind != "module" else None

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
        text = text if text is not None else _read_source(engine.root / rel, engine.settings.index.max_file_bytes)
        target = self._symbols(engine).resolve(rel, text, line, char, encoding) if text is not None else None
        if target is None:
            return HOVER_NOTHING  # a blank, a keyword, a comment or string, or nothing it could be resolved to
        memories = memories_of(engine.store, target, engine.clock())
        scores, positions = engine.graph.file_ranks()
        rank = positions.get(target.file)
        importance = Importance(rank, len(scores), engine.graph.dependents_count(target.file)) if rank else None
        if not memories and not (target.definition and importance and _worth_telling(importance)):
            return HOVER_NOTHING  # a use of something with nothing remembered: no popup at all
        symbol = base_symbol(target.symbol) if target.symbol else target.file  # a module: its file; no ``#3``
        where = target.file if target.file != rel else None
        at = (target.line, target.start_char, target.end_char)
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

        return HoverView(base_symbol(symbol), rank_anchored(same, time.time()), None)

    # ------------------------------------------------------------ commands

    def anchor_span(self, memory: Memory) -> Span | None:
        anchor = memory.anchor
        if anchor is None:
            return None
        return self._span(anchor.file, anchor, None)

    @_refusing_damage(lambda: None)
    def resolve_id(self, memory_id: str) -> str | None:
        """The full id of ``memory_id`` (a full id or a unique prefix) in this folder, or None."""
        if self.engine is None:
            return None
        try:
            return str(self.engine.get(memory_id).id)
        except AmbiguousMemoryIdError:
            raise  # the user must type more of the id: say so rather than "not found"
        except (MemoryNotFoundError, InvalidMemoryError):
            return None

    @_refusing_damage()
    def search(self, query: str, k: int, mtype: str | None, rel: str | None, code_only: bool = False) -> dict[str, Any]:
        # no code search while a full index holds the indexer; its number of files follows k. The answer says when
        # its code part is missing or may be stale (``indexing``), so a client can ask again once it is done
        code = 0 if self.full_index_running.is_set() else min(k, MAX_CODE_FILES)
        indexing = self.full_index_running.is_set() or not self.indexed.is_set()
        result = self._engine().search(
            query, k, types=(mtype,) if mtype else (), file=rel, chunks=code, code_only=code_only
        )
        files = [
            convert.file_result(
                f.file, self.uri_of(f.file), f.score, f.is_test, [self._chunk_view(c) for c in f.chunks]
            )
            for f in result.files
        ]
        return {
            "memories": [convert.memory_result(s.memory, self.anchor_span(s.memory), s.score) for s in result.memories],
            "chunks": [convert.chunk_result(self._chunk_view(c)) for c in result.chunks],
            "files": files,
            "mode": result.mode,
            "reason": result.reason,
            "message": None if result.memories or code_only else result.no_memory_message(),
            "indexing": indexing,
        }

    def _chunk_view(self, hit: Any) -> ChunkView:
        """A search's chunk hit (the indexer's ``CodeChunk`` and a score) as the daemon shows it."""
        c = hit.chunk
        return ChunkView(c.rel, self.uri_of(c.rel), c.symbol, c.kind, c.start_line, c.end_line, c.signature, hit.score)

    @_refusing_damage(list)
    def symbols(self, query: str, memories: int, chunks: int) -> list[types.WorkspaceSymbol]:
        if self.engine is None:
            return []
        if self.full_index_running.is_set():
            chunks = 0
        result = self.engine.search(query, memories, chunks=chunks, record=False)
        root = Span(self.uri, "", None, None, None)
        out = [convert.memory_symbol(s.memory, self.anchor_span(s.memory) or root) for s in result.memories]
        return out + [convert.chunk_symbol(self._chunk_view(c)) for c in result.chunks]

    @_refusing_damage()
    def remember(
        self,
        text: str,
        mtype: str,
        rel: str | None,
        symbol: str | None,
        line: int | None,
        tags: list[str],
        private: bool = False,
        writer: AgentWriter | None = None,
    ) -> dict[str, Any]:
        engine = self._engine()
        if writer is not None:  # an agent's: a suggestion (or, trusted, active), named after the client
            outcome = writer.remember(engine, text, type=mtype, file=rel, symbol=symbol, line=line, private=private)
        else:
            outcome = engine.remember(
                text, type=mtype, file=rel, symbol=symbol, line=line, tags=tags, source=MemorySource.USER,
                private=private,
            )  # fmt: skip
        return {
            "id": outcome.memory.id,
            "merged": outcome.merged,
            "known": outcome.known,  # an agent's near-duplicate: nothing stored
            "memory": convert.memory_result(outcome.memory, self.anchor_span(outcome.memory)),
            "candidates": [convert.memory_result(m, self.anchor_span(m)) for m in outcome.candidates],
            "conflicts": [
                {**convert.memory_result(c.memory, self.anchor_span(c.memory)), "cues": list(c.cues)}
                for c in outcome.conflicts
            ],
            "redacted": list(outcome.redacted),
        }

    @_refusing_damage()
    def resolve_conflict(self, memory_id: str, other_id: str, resolution: str) -> dict[str, Any]:
        kept, other = self._engine().resolve_conflict(memory_id, other_id, resolution)
        return {
            "id": kept.id,
            "other": other.id,
            "resolution": resolution,
            "memory": convert.memory_result(kept, self.anchor_span(kept)),
            "otherMemory": convert.memory_result(other, self.anchor_span(other)),
        }

    @_refusing_damage()
    def supersede(self, memory_id: str, text: str, mtype: str | None) -> dict[str, Any]:
        engine = self._engine()
        new = engine.supersede(memory_id, text, type=mtype)
        engine.accept(new.id)  # the user acted on this lesson: the replacement carries it on
        return {"id": new.id, "superseded": memory_id, "memory": convert.memory_result(new, self.anchor_span(new))}

    @_refusing_damage()
    def agent_supersede(self, writer: AgentWriter, memory_id: str, text: str) -> dict[str, Any]:
        """An agent's supersede: a suggestion replacing the memory once a person accepts it (trusted: at once)."""
        done = writer.supersede(self._engine(), memory_id, text)
        new = done.memory
        return {
            "id": new.id, "superseded": None if done.proposed else memory_id, "proposed": done.proposed,
            "memory": convert.memory_result(new, self.anchor_span(new)),
        }  # fmt: skip

    @_refusing_damage()
    def agent_act(
        self, writer: AgentWriter, action: ProposalAction, memory_id: str, reason: str | None
    ) -> dict[str, Any]:
        """An agent's confirm, mark outdated or forget: a proposal waiting for a person (trusted: done at once)."""
        engine = self._engine()
        done = writer.act(engine, action, memory_id, reason)
        if not done.proposed:
            return _status(done.memory)
        target = engine.get(memory_id)
        said = "proposed" if done.new else "already proposed"
        return {
            **_status(target), "proposed": True, "suggestion": done.memory.id,
            "message": f"{said}: suggestion {done.memory.id} waits for a person's review; memory {target.id} is "
            "unchanged until then",
        }  # fmt: skip

    @_refusing_damage()
    def forget(self, memory_id: str) -> dict[str, Any]:
        """Archive a memory; the answer says how to bring it back (forgetting is never deletion)."""
        memory = self._engine().forget(memory_id)
        return {**_status(memory), "restore": convert.restore_hint(memory.id)}

    @_refusing_damage()
    def restore(self, memory_id: str) -> dict[str, Any]:
        return _status(self._engine().restore(memory_id))

    @_refusing_damage()
    def confirm(self, memory_id: str) -> dict[str, Any]:
        engine = self._engine()
        memory = engine.confirm(memory_id)
        engine.accept(memory.id)
        return _status(memory)

    @_refusing_damage()
    def reanchor(self, memory_id: str, rel: str, symbol: str | None, line: int | None) -> dict[str, Any]:
        memory = self._engine().reanchor(memory_id, rel, symbol, line=line)
        return {**_status(memory), "memory": convert.memory_result(memory, self.anchor_span(memory))}

    def orphans(self, rel: str) -> list[Memory]:
        """The file's orphaned memories (their code was not found again), newest first, for re-anchoring."""
        if self.engine is None:
            return []
        found = self.engine.list_memories(file=rel, statuses=[MemoryStatus.ORPHANED], limit=convert.REANCHOR_ACTIONS)
        return [m for m in found if m.anchor is not None and m.anchor.file == rel]

    @_refusing_damage()
    def mark_outdated(self, memory_id: str) -> dict[str, Any]:
        return _status(self._engine().mark_stale(memory_id))

    @_refusing_damage()
    def accept_suggestion(self, memory_id: str, text: str | None) -> dict[str, Any]:
        memory = self._engine().accept_suggestion(memory_id, text)
        return {**_status(memory), "memory": convert.memory_result(memory, self.anchor_span(memory))}

    @_refusing_damage()
    def dismiss_suggestion(self, memory_id: str) -> dict[str, Any]:
        return _status(self._engine().dismiss_suggestion(memory_id))

    @_refusing_damage()
    def suggestion_diff(self, memory_id: str) -> dict[str, Any]:
        """The commit diff (or warning comment's place) a mined memory stands on, for the review pickers."""
        return {"id": memory_id, "diff": self._engine().suggestion_diff(memory_id)}

    @_refusing_damage()
    def open_list(self, rel: str, text: str | None) -> dict[str, Any]:
        """Everything an open of ``rel`` counts, for a picker: its own memories (best first), then those on the
        definitions it uses from other files (``usedAt``: the line of ``rel`` that uses each)."""
        engine = self._engine()
        from forewarn.memory.retrieval import rank_anchored

        own = rank_anchored(engine.store.anchored_to_files([rel]), engine.clock())
        used = engine.used_memories(rel, text=text)
        rows = [convert.memory_result(m, self.anchor_span(m)) for m in own]
        rows += [{**convert.memory_result(h.memory, self.anchor_span(h.memory)), "usedAt": h.line} for h in used]
        return {"file": rel, "memories": rows, "total": len(rows)}

    @_refusing_damage()
    def review(self, rel: str | None) -> dict[str, Any]:
        """The suggestions on ``rel`` (None or a folder: everywhere below it), best first, and how many there are."""
        found = self._engine().suggestions(rel or None)
        return {
            "suggestions": [convert.memory_result(m, self.anchor_span(m)) for m in found[:REVIEW_MAX]],
            "total": len(found),
            "worth_a_look": sum(1 for m in found if worth_a_look(m)),  # best first: these lead the list
        }

    def mineable(self) -> bool:
        """Whether the folder is in a git repository with commits (asked before any progress is shown)."""
        from forewarn.workspace.history import GitError, head_commit

        try:
            head_commit(self.root)
        except GitError as exc:
            log.info("not mining %s: %s", self.root, exc)
            return False
        return True

    def may_mine_on_open(self) -> bool:
        """Whether the user allowed mining this folder when it opens (never something the repository says)."""
        from forewarn.workspace import consent

        return self.settings.mining.on_open or consent.mining_on_open_allowed(self.root)

    @_refusing_damage(lambda: None)
    def mine(self, progress: Callable[[IndexProgress], None] | None = None) -> dict[str, Any] | None:
        """Mine the git history into suggestions (the background run after the first index); the report,
        or None when the folder is not a git repository (or has no commits)."""
        from forewarn.workspace import mining  # imported here: git plumbing loads only when mining runs
        from forewarn.workspace.history import GitError

        engine = self._engine()

        def on_progress(done: int, total: int) -> None:
            if progress is not None and not self._cancel.is_set():
                progress(IndexProgress(done, total, f"{done}/{total} commits"))

        try:
            report = mining.mine(engine, progress=on_progress, cancel=self._cancel)
        except GitError as exc:  # not a repository, no commits: nothing to mine, nothing to tell
            log.info("not mining %s: %s", self.root, exc)
            return None
        return report.to_dict()

    @_refusing_damage()
    def repo_map(self, budget: int, focus: list[str]) -> dict[str, Any]:
        rmap = self._engine().indexer.repo_map(budget, focus_files=focus)
        files = [{"file": rel, "uri": self.uri_of(rel), "score": score} for rel, score in rmap.ranked_files[:MAP_FILES]]
        return {"text": rmap.text, "tokens": rmap.tokens, "files": files}

    @_refusing_damage()
    def stats(self, since: str | None = None) -> dict[str, Any]:
        """``forewarn stats --json --since`` plus the code vectors, and a ``uri`` on every listed file."""
        engine = self._engine()
        data: dict[str, Any] = engine.stats(since=since).to_dict()
        embedded, total = engine.code_vector_state()
        data["code_vectors"] = {"embedded": embedded, "total": total}
        for key in ("important_without_memories", "important_files", "shown_most", "dismissed_most", "stale_memories"):
            for item in data[key]:
                if item.get("file"):
                    item["uri"] = self.uri_of(item["file"])
        return data

    def file_memories(self, rel: str) -> dict[str, Any]:
        """Every memory of ``rel`` grouped by symbol, each on its current span (the editors' *This file* view)."""
        found = self._engine().file_memories(rel)
        symbols = []
        for group in found.symbols:
            # each with the severity its diagnostic has on open, so a view marks what warns as the editor does
            memories = [
                {**convert.memory_result(m, self.anchor_span(m)), "severity": convert.severity(m, neighbour=False)}
                for m in group.memories
            ]
            ranges = [m["anchor"]["range"] for m in memories if m["anchor"] is not None]
            symbols.append(
                {
                    "symbol": group.symbol,
                    "range": min(ranges, key=lambda r: r["start"]["line"]) if ranges else None,
                    "counts": group.counts(),
                    "memories": memories,
                }
            )
        counts = found.counts()
        return {
            "file": found.file,
            "uri": self.uri_of(found.file),
            "symbols": symbols,
            "counts": counts,
            "total": sum(counts.values()) + found.more,
            "more": found.more,
        }


def _status(memory: Memory) -> dict[str, Any]:
    return {"id": memory.id, "status": memory.status}


# ---------------------------------------------------------------- helpers (pure)


def _buffer_spans(rel: str, text: str) -> dict[str, tuple[int, int]] | None:
    """Current symbol spans of an edited, unsaved buffer, by parsing it (None if unsupported)."""
    from forewarn.indexing.languages import language_for_path
    from forewarn.indexing.parse import parse_source

    spec = language_for_path(rel)
    if spec is None:
        return None
    try:
        parsed = parse_source(rel, text.encode("utf-8", "surrogatepass"), spec)
    except Exception:  # a half-typed buffer must never break diagnostics
        log.debug("parsing the buffer of %s failed", rel, exc_info=True)
        return None
    spans: dict[str, tuple[int, int]] = {}
    for chunk in parsed.chunks:
        if chunk.symbol in spans:
            start, end = spans[chunk.symbol]
            spans[chunk.symbol] = (min(start, chunk.start_line), max(end, chunk.end_line))
        else:
            spans[chunk.symbol] = (chunk.start_line, chunk.end_line)
    return spans


def _read_source(path: Path, max_bytes: int) -> str | None:
    """A file the editor has not opened, as text (None when unreadable or over the index's size limit)."""
    try:
        if path.stat().st_size > max_bytes:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
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
