"""The Forewarn language server: thin handlers over one ``FolderSession`` per workspace folder.

Handlers get the document, call domain code off the event loop (``ForewarnServer.read`` /
``write``), and map the result with the pure converters of ``convert.py``. State lives on
``ForewarnServer``; settings are one ``Settings`` tree per folder (``lsp_settings.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO, TypeVar
from urllib.parse import unquote

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcInvalidParams
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from forewarn import __version__
from forewarn.config import Settings
from forewarn.lsp import commands, convert, for_agents
from forewarn.lsp import settings as lsp_settings
from forewarn.lsp.progress import Progress
from forewarn.lsp.session import FolderSession, Unavailable
from forewarn.lsp.transport import ForewarnProtocol, GuardedReader
from forewarn.workspace import relocation
from forewarn.workspace.agents import AgentWriter

log = logging.getLogger(__name__)
T = TypeVar("T")

SERVER_NAME = "forewarn"
CHANGE_DEBOUNCE_S = 0.3  # re-anchor after typing pauses, not on every keystroke
WATCH_BATCH_S = 0.2  # a branch switch fires hundreds of file events: index them as one batch
EXIT_GRACE_S = 5.0  # how long exit waits for running work before leaving anyway (SQLite is crash-safe)
EXTERNAL_CHECK_S = 2.0  # how soon memories written by the CLI or another editor window show up
READ_THREADS = 2  # opens and hovers run concurrently with each other, never behind indexing
BACKFILL_BATCH = 32  # memories embedded per writer job: a remember queued behind backfill waits for one batch only
# chunks per model call when the server embeds code: a search's query embedding waits for one call (~1 s)
CODE_EMBED_BATCH = 16
CODE_EMBED_QUIET_S = 0.05  # how soon code embedding, yielding to requests, looks again for a quiet moment
CODE_EMBED_MAX_WAIT_S = 1.0  # a client that never pauses (polling) still lets one batch through this often
IDLE_FLUSH_S = 10.0  # the vector index is saved once writes pause this long (and on shutdown)
WATCH_REGISTRATION_ID = "forewarn-watch"
WATCH_GLOB = "**/*"  # the indexer filters by language and ignore files; the client just reports


class ForewarnServer(LanguageServer):
    """Server state: folder sessions, open-document bookkeeping, worker threads."""

    def __init__(self) -> None:
        super().__init__(SERVER_NAME, __version__, protocol_cls=ForewarnProtocol)
        self.sessions: dict[str, FolderSession] = {}  # by folder root path
        self.init_options: Any = None
        self.log_level_from_cli = False  # ``-v`` on the command line wins over the log_level setting
        self.fallback_root: Path | None = None  # ``serve -w DIR``: the folder to open when the client names none
        self.reads = ThreadPoolExecutor(READ_THREADS, thread_name_prefix="forewarn-read")
        # one writer thread: indexing and memory writes are serialized, never concurrent
        self.writes = ThreadPoolExecutor(1, thread_name_prefix="forewarn-write")
        # history mining reads git for seconds to a minute: its own thread, so neither opens nor writes wait
        self.mining = ThreadPoolExecutor(1, thread_name_prefix="forewarn-mine")
        # code chunks are embedded here, a batch at a time, only while no read or write is waiting
        self.embedding = ThreadPoolExecutor(1, thread_name_prefix="forewarn-embed")
        self._in_flight = 0  # reads and writes submitted and not yet answered: code embedding yields to them
        self._embedding: set[str] = set()  # folders whose code chunks are being embedded
        self._embed_again: set[str] = set()  # ... and that were re-indexed meanwhile
        self._mined: set[str] = set()  # folders mined (or being mined) since the server started
        self._index_settled: dict[str, asyncio.Event] = {}  # by folder: no full index pending or running
        self._debounce: dict[str, asyncio.TimerHandle] = {}
        self._generation: dict[str, int] = {}
        self.open_uris: set[str] = set()  # as the client spelled them: diagnostics go back under the same URI
        self._dirty: set[str] = set()  # open documents with unsaved edits
        self._watch_pending: set[str] = set()
        self._watch_timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._backfilling: set[str] = set()  # folders whose vectors are being filled in
        self._flush_timer: asyncio.TimerHandle | None = None
        self._stopping = threading.Event()
        self.ready = asyncio.Event()  # set once every folder has been opened (or failed to open)
        self.agent = for_agents.ClientAgent()  # the client as an agent, when it is not an interactive editor

    # ------------------------------------------------------------ plumbing

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        self._stop_event = threading.Event()
        reader = GuardedReader(stdin or sys.stdin.buffer, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(run_async(self._stop_event, reader, self.protocol, log, self.report_server_error))
        except BrokenPipeError:
            log.error("the client went away; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def shutdown(self) -> None:
        """Stop reading; unlike pygls, never wait for the stdin reader thread, which may block forever."""
        if self._stop_event is not None:
            self._stop_event.set()
        if self._thread_pool is not None:
            self._thread_pool.shutdown(wait=False, cancel_futures=True)

    def finish(self) -> int:
        """Stop background work and close sessions; returns the exit code (LSP: 1 unless shut down first)."""
        self._stopping.set()
        for session in list(self.sessions.values()):
            session.cancel()
        closer = threading.Thread(target=self._close_all, name="forewarn-close", daemon=True)
        closer.start()
        closer.join(EXIT_GRACE_S)
        if closer.is_alive():
            log.warning("background work did not stop within %.0f s; exiting anyway", EXIT_GRACE_S)
        return 0 if self.protocol._shutdown else 1

    def _close_all(self) -> None:
        self.writes.shutdown(wait=True, cancel_futures=True)
        self.reads.shutdown(wait=True, cancel_futures=True)
        self.mining.shutdown(wait=True, cancel_futures=True)  # a running mine stops at the session's cancel
        self.embedding.shutdown(wait=True, cancel_futures=True)  # a running batch ends, then the cancel stops it
        for session in list(self.sessions.values()):
            session.close()

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        """Run ``coro`` in the background; its errors are logged, never lost, never fatal."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("background task failed", exc_info=exc)

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        self._in_flight += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self.reads, fn, *args)
        finally:
            self._in_flight -= 1
            self.tell_damage()

    async def write(self, fn: Callable[..., T], *args: Any) -> T:
        self._in_flight += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self.writes, fn, *args)
        finally:
            self._in_flight -= 1
            self.tell_damage()

    def busy(self) -> bool:
        """Whether a read or write is waiting or running (background embedding then yields)."""
        return self._in_flight > 0

    def tell_damage(self) -> None:
        """A folder whose memory database turned out damaged: one error message, naming the way out."""
        for session in list(self.sessions.values()):
            if (message := session.take_damage()) is not None:
                self.tell(f"Forewarn: {message}", types.MessageType.Error)

    def tell(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        log.log(logging.ERROR if kind == types.MessageType.Error else logging.WARNING, "%s", message)
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def capability(self, path: str, default: Any = None) -> Any:
        return get_capability(self.client_capabilities, path, default)

    def interactive(self) -> bool:
        """Whether the client declared itself an interactive editor (a person answers its prompts); any other
        client is an agent (forewarn.lsp.for_agents)."""
        return convert.client_prompts(self.capability("experimental"))

    def agent_writer(self) -> AgentWriter | None:
        """How an agent's writes go (suggestions and proposals, within its limits); None for an interactive editor."""
        return None if self.interactive() else self.agent.writer()

    # ------------------------------------------------------------ folders and documents

    def locate(self, uri: str) -> tuple[FolderSession, str] | None:
        """The session owning ``uri`` and the file's workspace-relative path (innermost folder wins)."""
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if path is None:
            return None
        # folder roots are resolved; try the path as given first (cheap), then with links resolved
        return self._locate(Path(os.path.abspath(path))) or self._locate(Path(os.path.realpath(path)))

    def _locate(self, path: Path) -> tuple[FolderSession, str] | None:
        best: tuple[FolderSession, str] | None = None
        for session in self.sessions.values():
            try:
                rel = path.relative_to(session.root)
            except ValueError:
                continue
            if best is None or len(session.root.parts) > len(best[0].root.parts):
                best = (session, rel.as_posix())
        return best

    def session_for(self, uri: str | None) -> FolderSession:
        """The folder a command applies to: ``uri``'s, else the only (or first) folder."""
        return self.target(uri)[0]

    def target(self, uri: str | None) -> tuple[FolderSession, str | None]:
        """The folder and relative path a command's ``uri`` names (no uri: the first folder, no path)."""
        if uri:
            found = self.locate(uri)
            if found is None:
                raise JsonRpcInvalidParams(f"{uri} is not inside a workspace folder")
            return found
        if not self.sessions:
            raise JsonRpcInvalidParams("no workspace folder is open")
        return next(iter(self.sessions.values())), None

    async def session_owning(self, memory_id: str) -> tuple[FolderSession, str]:
        """The folder whose database holds ``memory_id`` (or a unique prefix), and the full id."""
        for session in list(self.sessions.values()):
            if (full := await self.read(session.resolve_id, memory_id)) is not None:
                return session, full
        raise JsonRpcInvalidParams(f"no memory with id {memory_id!r}")

    def folder_roots(self) -> list[tuple[str, Path]]:
        roots: list[tuple[str, Path]] = []
        for folder in self.workspace.folders.values():
            path = to_fs_path(folder.uri)
            if path:
                roots.append((folder.uri, Path(path).resolve()))
        if not roots and self.workspace.root_path:
            roots.append((self.workspace.root_uri or "", Path(self.workspace.root_path).resolve()))
        if not roots and self.fallback_root is not None:
            roots.append((from_fs_path(str(self.fallback_root)) or "", self.fallback_root))
        return roots

    async def settings_for(self, folder_uri: str, root: Path) -> tuple[Settings, list[str]]:
        config = None
        if self.capability("workspace.configuration", False):
            try:
                items = [types.ConfigurationItem(scope_uri=folder_uri, section=lsp_settings.SECTION)]
                result = await self.workspace_configuration_async(types.ConfigurationParams(items=items))
                config = result[0] if result else None
            except Exception as exc:  # a client that fails this request still gets a working server
                log.warning("workspace/configuration failed: %s", exc)
        return lsp_settings.folder_settings(root, self.init_options, config)

    async def open_folder(self, folder_uri: str, root: Path) -> FolderSession:
        settings, problems = await self.settings_for(folder_uri, root)
        if problems:
            self.tell(lsp_settings.problems_message(problems))
        self.apply_log_level(settings)
        session = FolderSession(root, settings)
        self.sessions[str(root)] = session
        await self.write(session.open)
        for message in session.take_problems():
            self.tell(message)
        if (moved := await self.read(_moved_hint, session)) is not None:
            self.tell(moved, types.MessageType.Info)
        return session

    async def start(self) -> None:
        """After ``initialized``: open every folder, watch files, index in the background."""
        try:
            opened = [await self.open_folder(folder_uri, root) for folder_uri, root in self.folder_roots()]
        finally:
            self.ready.set()
        for session in opened:
            self.spawn(self.index(session))
        await self.watch_files()
        self.spawn(self.follow_external_writes())

    async def follow_external_writes(self) -> None:
        """Republish open documents when another process changed the memories (no notification exists)."""
        while not self._stopping.is_set():
            await asyncio.sleep(EXTERNAL_CHECK_S)
            changed = [await self.read(s.memories_changed_elsewhere) for s in list(self.sessions.values())]
            if any(changed):
                self.republish_all()

    async def reload_settings(self, pushed: Any) -> None:
        for session in list(self.sessions.values()):
            if self.capability("workspace.configuration", False):
                settings, problems = await self.settings_for(from_fs_path(str(session.root)) or "", session.root)
            else:
                settings, problems = lsp_settings.folder_settings(session.root, self.init_options, _section_of(pushed))
            if problems:
                self.tell(lsp_settings.problems_message(problems))
            self.apply_log_level(settings)
            await self.write(session.apply_settings, settings)
            for message in session.take_problems():
                self.tell(message)
            self.spawn(self.backfill(session))  # a new model has no vectors yet: search falls back until filled
        self.republish_all()

    def apply_log_level(self, settings: Settings) -> None:
        level = logging.getLevelName(settings.log_level.upper())
        if isinstance(level, int) and not self.log_level_from_cli:
            logging.getLogger("forewarn").setLevel(level)
        elif not isinstance(level, int):
            self.tell(f"Forewarn: log_level {settings.log_level!r} is not a logging level; kept the current one")

    async def watch_files(self) -> None:
        if not self.capability("workspace.did_change_watched_files.dynamic_registration", False):
            log.info("client cannot watch files for us; re-indexing on save only")
            return
        watcher = types.FileSystemWatcher(glob_pattern=WATCH_GLOB)
        registration = types.Registration(
            id=WATCH_REGISTRATION_ID,
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[watcher]),
        )
        try:
            await self.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
        except Exception as exc:
            log.warning("could not register file watching: %s", exc)

    # ------------------------------------------------------------ indexing

    def index_settled(self, session: FolderSession) -> asyncio.Event:
        """Set while no full index of ``session`` is pending or running (clear from its start until the first ends)."""
        return self._index_settled.setdefault(str(session.root), asyncio.Event())

    async def until_indexed(self, session: FolderSession, timeout: float) -> None:
        """Wait (without holding a thread) for the folder's pending or running full index, at most ``timeout``."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.index_settled(session).wait(), timeout)

    async def index(self, session: FolderSession, rels: list[str] | None = None) -> Any:
        """Index (all, or ``rels``) with ``$/progress`` when the client shows it; then republish."""
        settled = self.index_settled(session) if rels is None else None
        if session.engine is None or session.damage is not None:
            if settled is not None:
                settled.set()
            return None  # its open failed, and the user was told why
        if settled is not None:
            settled.clear()
        progress = await self.begin_progress(f"Forewarn: indexing {session.root.name}")
        try:
            report = await self.write(session.index, rels, progress)
        except Unavailable:  # its memory database turned out damaged: told once, by ``write``
            report = None
        except Exception as exc:
            log.exception("indexing %s failed", session.root)
            self.tell(f"Forewarn: indexing {session.root} failed: {exc}", types.MessageType.Error)
            report = None
        finally:
            progress.end(session.last_summary)
            if settled is not None:
                settled.set()
        self.republish_all()
        if report is not None and rels is None:
            self.spawn(self.fill_vectors(session))
            self.spawn(self.mine(session))
        elif report is not None:
            self.spawn(self.embed_code(session))  # the saved files' changed chunks
        return report

    async def mine(self, session: FolderSession) -> dict[str, Any] | None:
        """Mine a folder's history once, after its first full index, where the user allowed it (the user-level
        ``mining.on_open``, or ``forewarn mine --on-open`` for this folder) and ``mining.enabled`` is on."""
        key = str(session.root)
        if key in self._mined or not session.settings.mining.enabled or session.engine is None:
            return None
        self._mined.add(key)
        loop = asyncio.get_running_loop()
        try:
            if not await loop.run_in_executor(self.mining, session.mineable):
                return None  # not a git repository: nothing to show, nothing to tell
            if not await loop.run_in_executor(self.mining, session.may_mine_on_open):
                said = (
                    f"Forewarn: not mining the history of {session.root} on open; allow it with `forewarn mine "
                    "--on-open` in that folder, or mining.on_open in your user-level settings"
                )
                log.info("%s", said)  # the client's log (VS Code: the Forewarn output), not a toast on every open
                self.window_log_message(types.LogMessageParams(type=types.MessageType.Info, message=said))
                return None
        except RuntimeError:  # the executor was shut down: the server is exiting
            return None
        progress = await self.begin_progress(f"Forewarn: mining the history of {session.root.name}")
        report = None
        try:
            report = await loop.run_in_executor(self.mining, session.mine, progress)
        except asyncio.CancelledError:  # the server is exiting: its output is closed, nothing more to say
            session.cancel()
            raise
        except Unavailable:  # its memory database turned out damaged: told once, below
            pass
        except RuntimeError:  # the executor was shut down: the server is exiting
            pass
        except Exception:
            log.exception("mining the history of %s failed", session.root)
        progress.end(_mined_summary(report))
        self.tell_damage()
        if report is not None and report.get("added"):
            self.republish_all()  # the new suggestions show on open files as hints
        return report

    async def backfill(self, session: FolderSession) -> int:
        """Embed the memories that lack vectors, one small batch per writer job (opens never wait for it)."""
        key = str(session.root)
        if key in self._backfilling or session.engine is None or session.damage is not None:
            return 0
        self._backfilling.add(key)
        total = 0
        try:
            while not self._stopping.is_set():
                try:
                    done = await self.write(session.backfill, BACKFILL_BATCH)
                except RuntimeError:  # the writer was shut down: the server is exiting
                    break
                if done == 0:
                    break
                total += done
        finally:
            self._backfilling.discard(key)
        if total:
            log.info("embedded %d memories of %s that had no vector", total, session.root)
            self.flush_when_idle()
        return total

    async def fill_vectors(self, session: FolderSession) -> None:
        """After a full index: memories' vectors, then the code chunks', then a prune of the embedding cache."""
        await self.backfill(session)
        await self.embed_code(session)
        if self._stopping.is_set() or session.engine is None:
            return
        with contextlib.suppress(RuntimeError):  # the executor was shut down: the server is exiting
            await asyncio.get_running_loop().run_in_executor(self.embedding, session.prune_embedding_cache)

    async def embed_code(self, session: FolderSession) -> int:
        """Embed code chunks lacking vectors (open files first, then by PageRank), yielding to every request."""
        key = str(session.root)
        if session.engine is None or session.damage is not None:
            return 0
        if key in self._embedding:
            self._embed_again.add(key)  # the running loop goes round once more
            return 0
        self._embedding.add(key)
        loop = asyncio.get_running_loop()
        total = 0
        try:
            while not self._stopping.is_set():
                waited = 0.0
                while self.busy() and waited < CODE_EMBED_MAX_WAIT_S and not self._stopping.is_set():
                    await asyncio.sleep(CODE_EMBED_QUIET_S)
                    waited += CODE_EMBED_QUIET_S
                self._embed_again.discard(key)
                first = self.open_files_of(session)
                try:
                    done = await loop.run_in_executor(
                        self.embedding, session.embed_code, first, self.busy, CODE_EMBED_BATCH
                    )
                except RuntimeError:  # the executor was shut down: the server is exiting
                    break
                except Unavailable:
                    break
                total += done
                if done == 0 and key not in self._embed_again:
                    break  # each job embeds at least one batch when any is left: none was
        finally:
            self._embedding.discard(key)
        if total:
            log.info("embedded %d code chunks of %s", total, session.root)
            self.flush_when_idle()
        return total

    def open_files_of(self, session: FolderSession) -> list[str]:
        """The folder's files open in the editor (workspace-relative)."""
        rels = []
        for uri in list(self.open_uris):
            found = self.locate(uri)
            if found is not None and found[0] is session:
                rels.append(found[1])
        return rels

    def flush_when_idle(self) -> None:
        """Save the vector indexes once writes pause for ``IDLE_FLUSH_S`` (each new write postpones it)."""
        if self._flush_timer is not None:
            self._flush_timer.cancel()
        self._flush_timer = asyncio.get_running_loop().call_later(IDLE_FLUSH_S, lambda: self.spawn(self._flush()))

    async def _flush(self) -> None:
        self._flush_timer = None
        for session in list(self.sessions.values()):
            if not self._stopping.is_set():
                await self.write(session.flush)

    async def begin_progress(self, title: str) -> Progress:
        token: str | None = None
        if self.capability("window.work_done_progress", False):
            token = f"forewarn-{uuid.uuid4()}"
            try:
                await self.work_done_progress.create_async(token)
            except Exception as exc:
                log.info("client refused a progress token: %s", exc)
                token = None
        progress = Progress(self, token, asyncio.get_running_loop())
        progress.begin(title)
        return progress

    def queue_watched(self, uris: list[str]) -> None:
        self._watch_pending.update(uris)
        if self._watch_timer is not None:
            self._watch_timer.cancel()
        self._watch_timer = asyncio.get_running_loop().call_later(
            WATCH_BATCH_S, lambda: self.spawn(self._flush_watched())
        )

    async def _flush_watched(self) -> None:
        pending, self._watch_pending = self._watch_pending, set()
        by_session: dict[str, tuple[FolderSession, list[str]]] = {}
        for uri in pending:
            found = self.locate(uri)
            if found is not None:
                by_session.setdefault(str(found[0].root), (found[0], []))[1].append(found[1])
        for session, rels in by_session.values():
            await self.index(session, sorted(rels))

    # ------------------------------------------------------------ diagnostics

    def republish_all(self) -> None:
        """Every open document again: called whenever memories may have changed (so cached answers go too)."""
        for session in list(self.sessions.values()):
            session.drop_cached()
        self.protocol.notify(convert.MEMORIES_CHANGED, {})  # the panels query again
        for uri in list(self.open_uris):
            self.spawn(self.publish(uri, from_buffer=uri in self._dirty))

    def debounce_change(self, uri: str) -> None:
        self._dirty.add(uri)
        if (handle := self._debounce.pop(uri, None)) is not None:
            handle.cancel()
        self._debounce[uri] = asyncio.get_running_loop().call_later(
            CHANGE_DEBOUNCE_S, lambda: self.spawn(self.publish(uri, from_buffer=True))
        )

    def opened(self, uri: str) -> None:
        self.open_uris.add(uri)
        self.spawn(self.publish(uri))

    def saved(self, uri: str) -> None:
        """The buffer is on disk now: diagnostics read the file again, and it is re-indexed."""
        self._dirty.discard(uri)
        if (found := self.locate(uri)) is not None:
            self.spawn(self.index(found[0], [found[1]]))

    def begin_shutdown(self) -> None:
        """``shutdown``: background loops stop and running index runs are cancelled before ``exit``."""
        self._stopping.set()
        for session in self.sessions.values():
            session.cancel()

    def forget_document(self, uri: str) -> None:
        self.open_uris.discard(uri)
        self._dirty.discard(uri)
        if (handle := self._debounce.pop(uri, None)) is not None:
            handle.cancel()
        self._generation[uri] = self._generation.get(uri, 0) + 1
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    async def publish(self, uri: str, *, from_buffer: bool = False) -> None:
        """Compute and push one document's diagnostics; a newer call for the same URI wins."""
        generation = self._generation[uri] = self._generation.get(uri, 0) + 1
        started = time.perf_counter()
        await self.ready.wait()
        found = self.locate(uri)
        diags: list[types.Diagnostic] = []
        if found is not None:
            session, rel = found
            if session.settings.diagnostics.enabled:
                view = await self.read(session.file_view, rel, self.buffer_text(uri), from_buffer)
                shown = session.settings.diagnostics
                if self.interactive():
                    diags = convert.file_diagnostics(
                        view, max_warnings=shown.max_warnings, max_diagnostics=shown.max_diagnostics
                    )
                else:  # an agent host: vetted notes only, as data
                    diags = for_agents.agent_diagnostics(
                        view, max_warnings=shown.max_warnings, max_diagnostics=shown.max_diagnostics
                    )
        if self._generation.get(uri) != generation or uri not in self.open_uris:
            return
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diags))
        self.flush_when_idle()  # what opens showed is counted on the writer once things go quiet
        log.debug("published %d diagnostics for %s in %.1f ms", len(diags), uri, (time.perf_counter() - started) * 1e3)

    def buffer_text(self, uri: str) -> str | None:
        doc = self.workspace.text_documents.get(unquote(uri))  # pygls keys documents by unquoted URI
        return doc.source if doc is not None else None


def _moved_hint(session: FolderSession) -> str | None:
    """A folder with no memories whose moved or renamed copy has some: the command that brings them back."""
    if session.engine is None or session.engine.store.count() != 0:
        return None
    text = relocation.hint(session.root)
    return f"Forewarn: {text}" if text else None


def _mined_summary(report: dict[str, Any] | None) -> str:
    if report is None:
        return "mining stopped"
    added = report.get("added", 0)
    return f"{report.get('commits_read', 0)} commits read; {added} new suggestion{'' if added == 1 else 's'}"


def _section_of(settings: Any) -> Any:
    if isinstance(settings, dict) and lsp_settings.SECTION in settings:
        return settings[lsp_settings.SECTION]
    return None


def create_server() -> ForewarnServer:
    from forewarn.lsp import features  # its handlers name ForewarnServer: imported once this module is loaded

    server = ForewarnServer()
    features.register(server)
    commands.register(server)
    return server
