"""One workspace opened for hook calls: reads an event, answers it, never raises.

Used by the hook server (kept open between calls) and by a hook call that finds no server (opened for that
call). The workspace is opened without the embedder (no llama.cpp, no vector index): what hooks deliver is
anchored, and the error matcher searches by words. What an answer leaves to do — re-indexing the files the agent
touched, noting what its edits changed — runs in ``after``, once the answer is out (the server calls it after
each reply and when idle), followed by catching up with what other processes changed in the code index (an
editor's language server, ``forewarn index``).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from pathlib import Path

from forewarn.config import Settings, load_settings
from forewarn.mcp.hooks import handler, hosts
from forewarn.mcp.hooks.events import Host
from forewarn.mcp.hooks.hosts import NOTHING, HookReply
from forewarn.mcp.hooks.wire import MAX_EVENT_BYTES
from forewarn.workspace.engine import Workspace

log = logging.getLogger(__name__)

SLOW_CALL_S = 0.5  # calls slower than this are logged with their event kind


class HookService:
    """The workspace at ``root`` and its data dir ``wdir``, answering hook events."""

    def __init__(self, root: Path, wdir: Path, settings: Settings | None = None) -> None:
        self.root = root
        self.wdir = wdir
        if settings is None:
            settings, problems = load_settings(root)
            for problem in problems:
                log.warning("settings: %s", problem)
        self.settings = settings
        self.ws: Workspace | None = None
        self._seen: tuple[str | None, int] = (None, 0)  # the index (epoch, generation) the workspace caught up with
        self._later: list[Callable[[], None]] = []  # work left by the last answers, for ``after``

    def open(self) -> Workspace:
        if self.ws is None:
            self.ws = Workspace.open(self.root, self.settings, embedder=None, backfill_on_open=False)
            changes = self.ws.indexer.changes_since(None, 0)
            self._seen = (changes.epoch, changes.generation)
        return self.ws

    def warm(self) -> None:
        """Compute ranks and references ahead of the first file the agent touches."""
        self.open().warm()

    def close(self) -> None:
        if self.ws is not None:
            try:
                self.ws.close()
            finally:
                self.ws = None

    def flush(self) -> None:
        if self.ws is not None:
            self.ws.flush()

    def answer(self, host: str, raw: bytes, event_name: str | None = None) -> HookReply:
        """The reply to one raw hook event; any problem is logged and answered with nothing."""
        started = time.perf_counter()
        try:
            if len(raw) > MAX_EVENT_BYTES:
                log.warning("a %s hook event of %d bytes was answered with nothing", host, len(raw))
                return NOTHING
            try:
                data = json.loads(raw.decode("utf-8", "replace"))
            except json.JSONDecodeError as exc:  # the host's input, not our fault: one line, no traceback
                log.warning("a %s hook event that is not JSON (%s) was answered with nothing", host, exc)
                return NOTHING
            if not isinstance(data, dict):
                log.warning("a %s hook event that is not a JSON object was answered with nothing", host)
                return NOTHING
            wrong = hosts.mistyped(data)
            if wrong is not None:
                log.warning("a %s hook event whose %s is mistyped was answered with nothing", host, wrong)
                return NOTHING
            event = hosts.parse(Host(host), data, event_name)
            if event is None:
                return NOTHING
            ws = self.open()
            text = handler.handle(ws, event, self.wdir, self._later, trust_agents=self.settings.agents.trust)
            reply = hosts.reply(event, text)
        except Exception:
            log.exception("a %s hook call failed; answered with nothing", host)
            return NOTHING
        elapsed = time.perf_counter() - started
        if elapsed > SLOW_CALL_S:
            log.info("a %s %s hook call took %.2f s", host, event.kind, elapsed)
        return reply

    def after(self) -> None:
        """The work the answers left (files to re-index, edits to note), then what other processes changed in the
        code index; run once the answer is out, and when idle. Problems are logged."""
        tasks, self._later = self._later, []
        for task in tasks:
            try:
                task()
            except Exception:
                log.exception("work after a hook call failed")
        if self.ws is not None:
            try:
                self._catch_up()
            except Exception:
                log.exception("following the code index failed")

    def complete_index(self) -> None:
        """Index the whole workspace if its code index was never completed (the server does this once, idle:
        neighbours' memories and the error matcher's frames need it; a hook call alone never waits for it)."""
        ws = self.open()
        if not ws.indexer.changes_since(None, 0).complete:
            log.info("the code index of %s is incomplete: indexing it", self.root)
            ws.reindex()
            changes = ws.indexer.changes_since(None, 0)
            self._seen = (changes.epoch, changes.generation)

    def _catch_up(self) -> None:
        """Follow the code index to what other processes wrote since this workspace last looked."""
        ws = self.ws
        assert ws is not None
        epoch, gen = self._seen
        changes = ws.indexer.changes_since(epoch, gen)
        if changes.whole:  # rebuilt, or this process is too far behind to be told file by file: open it afresh
            self.close()
            self.open()
            return
        touched = [*changes.changed, *(old for old, _ in changes.removed)]
        if touched:
            ws.reindex(touched)  # files another process indexed: this process's graph and records follow
        after = ws.indexer.changes_since(changes.epoch, changes.generation)
        self._seen = (after.epoch, after.generation)
