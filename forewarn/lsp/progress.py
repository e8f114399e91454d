"""``$/progress`` for one job of the language server (an index run, mining), reported from worker threads."""

from __future__ import annotations

import asyncio

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from forewarn.lsp.session import IndexProgress

PROGRESS_INTERVAL_S = 0.1  # more frequent $/progress reports only cost the client redraws


class Progress:
    """``$/progress`` for one job, safe to report from the worker thread; a no-op without a token."""

    def __init__(self, server: LanguageServer, token: str | None, loop: asyncio.AbstractEventLoop) -> None:
        self.server, self.token, self.loop = server, token, loop
        self._last = 0.0

    def begin(self, title: str) -> None:
        if self.token is not None:
            self.server.work_done_progress.begin(
                self.token, types.WorkDoneProgressBegin(title=title, percentage=0, cancellable=False)
            )

    def __call__(self, update: IndexProgress) -> None:
        """Called from the indexing thread; throttled, forwarded to the event loop."""
        if self.token is None:
            return
        now = self.loop.time()
        if now - self._last < PROGRESS_INTERVAL_S and update.done < update.total:
            return
        self._last = now
        pct = int(100 * update.done / update.total) if update.total else None
        report = types.WorkDoneProgressReport(message=update.message, percentage=pct)
        self.loop.call_soon_threadsafe(self.server.work_done_progress.report, self.token, report)

    def end(self, message: str | None) -> None:
        if self.token is not None:
            self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
