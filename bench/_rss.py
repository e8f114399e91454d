"""Peak memory of a benchmark's process and its children, sampled from a thread."""

from __future__ import annotations

import contextlib
import threading

RSS_SAMPLE_SECONDS = 0.05  # how often the process samples its own and its children's memory


class PeakRss(threading.Thread):
    """Samples a process's RSS and that of it plus its children (parser workers, git): forkserver
    children are not waited for by us, so ``RUSAGE_CHILDREN`` cannot see them."""

    def __init__(self, proc: object) -> None:
        super().__init__(daemon=True)
        self.proc = proc
        self.main_mb = self.tree_mb = 0.0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(RSS_SAMPLE_SECONDS):
            self._sample()

    def _sample(self) -> None:
        import psutil

        try:
            main = self.proc.memory_info().rss  # type: ignore[attr-defined]
            total = main
            for child in self.proc.children(recursive=True):  # type: ignore[attr-defined]
                with contextlib.suppress(psutil.Error):  # a worker may exit between listing and reading
                    total += child.memory_info().rss
        except psutil.Error:
            return
        self.main_mb = max(self.main_mb, main / 2**20)
        self.tree_mb = max(self.tree_mb, total / 2**20)

    def stop(self) -> None:
        self._sample()
        self._stop_event.set()
        self.join()
