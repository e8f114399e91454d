"""One workspace folder as the server sees it: a ``Workspace`` and the answers handlers need.

Every method here blocks (SQLite, tree-sitter, embedding) and is called from the server's worker
threads, never from the event loop. Results are the small records of ``convert.py`` (or plain
dicts for command results), so handlers only map them to protocol types.

Lifecycle, indexing and mining are here; ``FolderSession`` is built from ``session_views.SessionViews`` (what a
file and a hover show) and ``session_commands.SessionCommands`` (the commands' answers), every call guarded by
``session_guard._refusing_damage`` (a damaged memory database refuses the folder).
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pygls.uris import from_fs_path

from forewarn.config import Settings
from forewarn.lsp.session_commands import SessionCommands
from forewarn.lsp.session_guard import Unavailable, _refusing_damage
from forewarn.lsp.session_views import SUGGESTIONS_PER_FILE, BufferSpans, SessionViews
from forewarn.memory.errors import MemoryDatabaseCorruptError
from forewarn.memory.records import Memory

CODE_SAVE_S = 120.0  # background code embedding saves its index this often (and when idle, and on exit)

if TYPE_CHECKING:
    from forewarn.workspace.engine import Workspace

log = logging.getLogger(__name__)


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


class FolderSession(SessionViews, SessionCommands):
    """The engine of one workspace folder plus the caches the daemon keeps beside it: lifecycle and indexing here,
    what a file and a hover show in ``SessionViews``, the commands' answers in ``SessionCommands``."""

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
        # rel → (an edited buffer's text, its definitions): a code action is asked on every cursor move
        self._buffer_parses: dict[str, tuple[str, BufferSpans | None]] = {}
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

    # ------------------------------------------------------------ mining

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


__all__ = ["SUGGESTIONS_PER_FILE", "FolderSession", "IndexProgress", "Unavailable", "settle_heap"]
