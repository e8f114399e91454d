"""llama.cpp contexts for the embedder: token batches we own, and a pool of contexts that evaluate side by side.

Why a pool of single-threaded contexts rather than one context with several threads: ggml splits every operation
of a graph across its threads and meets them at a barrier after each one (a 6-layer encoder has about 150 per
batch), so one descheduled thread stalls the others — on a shared machine that cost 2-4x (docs/gpu.md). Contexts
on the same model share its weights and nothing else: each evaluates a whole batch alone, never waiting for a
peer, and two of them keep two cores busy when the machine is idle and degrade to one core's pace, not below it,
when it is not. A context costs memory (MiniLM at 512-token batches: ~90 MB of compute buffers) and time to make
(~0.25 s), so extra contexts are made by the first call that has work for them and freed once the pool has been
idle for ``EXTRA_IDLE_S``: a process that only embeds queries holds one, a bulk fill keeps them all.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")

EXTRA_IDLE_S = 30.0  # extra contexts outlive a fill's pauses between calls (seconds), then give their memory back


class TokenBatch:
    """A ``llama_batch`` over NumPy arrays we own: filled with vector writes, not a ctypes call per token."""

    def __init__(self, ll: Any, capacity: int) -> None:
        self.capacity = capacity
        self.token = np.zeros(capacity, dtype=np.int32)
        self.pos = np.zeros(capacity, dtype=np.int32)
        self.n_seq_id = np.ones(capacity, dtype=np.int32)
        self.seq_id = np.zeros(capacity, dtype=np.int32)
        self.logits = np.ones(capacity, dtype=np.int8)  # every token is an output: pooling reads them all
        base = self.seq_id.ctypes.data
        seq_ptr_type = ctypes.POINTER(ll.llama_seq_id)
        self._seq_ptrs = (seq_ptr_type * capacity)(*[ctypes.cast(base + 4 * i, seq_ptr_type) for i in range(capacity)])
        self.struct = ll.llama_batch()
        self.struct.token = self.token.ctypes.data_as(ctypes.POINTER(ll.llama_token))
        self.struct.embd = ctypes.POINTER(ctypes.c_float)()
        self.struct.pos = self.pos.ctypes.data_as(ctypes.POINTER(ll.llama_pos))
        self.struct.n_seq_id = self.n_seq_id.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
        self.struct.seq_id = ctypes.cast(self._seq_ptrs, ctypes.POINTER(seq_ptr_type))
        self.struct.logits = self.logits.ctypes.data_as(ctypes.POINTER(ctypes.c_int8))

    def fill(self, sequences: list[list[int]]) -> None:
        total = sum(len(t) for t in sequences)
        if total > self.capacity:
            raise ValueError(f"batch of {total} tokens exceeds its capacity {self.capacity}")
        at = 0
        for seq_id, tokens in enumerate(sequences):
            n = len(tokens)
            self.token[at : at + n] = tokens
            self.pos[at : at + n] = np.arange(n, dtype=np.int32)
            self.seq_id[at : at + n] = seq_id
            at += n
        self.struct.n_tokens = at


class Context:
    """One llama.cpp context and its token batch; used by one thread at a time (the pool sees to it)."""

    def __init__(self, ll: Any, handle: Any, capacity: int) -> None:
        self.handle = handle
        self.batch = TokenBatch(ll, capacity)


class ContextPool:
    """Up to ``size`` contexts on one model; ``map`` evaluates work items on as many of them as it has items.

    ``create()`` makes a context handle (None: llama.cpp refused, e.g. out of memory: the pool goes on with the
    contexts it has); the first is made at once, so a model that cannot get any context fails where it loads.
    Thread-safe: callers wait for an idle context; ``close`` waits for work in flight, then frees every context.
    """

    def __init__(self, ll: Any, create: Callable[[], Any], capacity: int, size: int) -> None:
        self._ll = ll
        self._create = create
        self._capacity = capacity
        self.size = max(1, size)
        self._cond = threading.Condition()
        self._all: list[Context] = []
        self._idle: list[Context] = []
        self._closed = False
        self._refused = False  # llama.cpp refused a context once: stop asking for more
        self._executor: ThreadPoolExecutor | None = None
        self._trim: threading.Timer | None = None
        first = create()
        if not first:
            raise RuntimeError("no context")
        ctx = Context(ll, first, capacity)
        self._all.append(ctx)
        self._idle.append(ctx)

    @property
    def contexts(self) -> int:
        """Contexts created so far."""
        with self._cond:
            return len(self._all)

    @contextlib.contextmanager
    def take(self, *, grow: bool = False) -> Iterator[Context]:
        """An idle context for the caller's thread alone (``grow``: a new one rather than waiting, up to ``size``)."""
        ctx = self._acquire(grow)
        try:
            yield ctx
        finally:
            with self._cond:
                self._idle.append(ctx)
                self._cond.notify()
                if len(self._all) > 1 and len(self._idle) == len(self._all) and not self._closed:
                    self._schedule_trim()

    def _schedule_trim(self) -> None:
        """Free the extra contexts once the pool stays idle for ``EXTRA_IDLE_S`` (caller holds the condition)."""
        if self._trim is not None:
            self._trim.cancel()
        self._trim = threading.Timer(EXTRA_IDLE_S, self._free_extras)
        self._trim.daemon = True
        self._trim.start()

    def _free_extras(self) -> None:
        with self._cond:
            if self._closed or len(self._idle) < len(self._all):
                return  # closed meanwhile, or busy again: its last release schedules another try
            for ctx in self._all[1:]:
                self._idle.remove(ctx)
                self._ll.llama_free(ctx.handle)
            del self._all[1:]
            self._refused = False

    def _acquire(self, grow: bool) -> Context:
        with self._cond:
            while True:
                if self._closed:
                    raise ClosedError
                if self._idle:
                    return self._idle.pop()
                if grow and len(self._all) < self.size and not self._refused:
                    handle = self._create()
                    if handle:
                        ctx = Context(self._ll, handle, self._capacity)
                        self._all.append(ctx)
                        return ctx
                    self._refused = True
                    log.warning("llama.cpp refused another embedding context; going on with %d", len(self._all))
                self._cond.wait()

    def map(self, fn: Callable[[Context, T], R], items: Sequence[T]) -> list[R]:
        """``fn(context, item)`` for every item, in order of ``items``; items are spread over up to ``size``
        contexts, the caller's thread working on one of them."""
        results: list[Any] = [None] * len(items)
        if not items:
            return results
        helpers = min(self.size, len(items)) - 1
        if helpers <= 0:
            with self.take() as ctx:
                for i, item in enumerate(items):
                    results[i] = fn(ctx, item)
            return results
        cursor = iter(range(len(items)))
        cursor_lock = threading.Lock()

        def work() -> None:
            with self.take(grow=True) as ctx:
                while True:
                    with cursor_lock:
                        i = next(cursor, None)
                    if i is None:
                        return
                    results[i] = fn(ctx, items[i])

        executor = self._helpers()
        futures: list[Future[None]] = [executor.submit(work) for _ in range(helpers)]
        try:
            work()
        finally:
            for f in futures:
                f.result()  # a helper's failure is the call's failure (after every helper stopped)
        return results

    def _helpers(self) -> ThreadPoolExecutor:
        with self._cond:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=self.size - 1, thread_name_prefix="forewarn-embed")
            return self._executor

    def close(self) -> None:
        """Wait for work in flight, then free every context; later calls raise ``ClosedError``."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
            while len(self._idle) < len(self._all):
                self._cond.wait()
            for ctx in self._all:
                self._ll.llama_free(ctx.handle)
            self._all.clear()
            self._idle.clear()
            executor, self._executor = self._executor, None
            if self._trim is not None:
                self._trim.cancel()
        if executor is not None:
            executor.shutdown(wait=False)


class ClosedError(RuntimeError):
    """The pool was closed."""
