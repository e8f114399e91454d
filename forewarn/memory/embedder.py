"""The embedder: a GGUF sentence-embedding model run by llama.cpp (through llama-cpp-python's C API).

``open_embedder(settings)`` loads the configured model or raises ``EmbedderUnavailable`` with a
reason a person can act on; callers then fall back to lexical retrieval and say so.

We drive llama.cpp's C functions directly rather than ``llama_cpp.Llama``: its quiet mode swaps
the process's fd 1 and 2 for /dev/null while loading, which would swallow LSP messages written
meanwhile by another thread (the daemon's stdout is the protocol), and its ``embed()`` truncates
long inputs silently. Here llama.cpp's log goes to Python logging, never to a file descriptor, and
long inputs are split into overlapping windows that are embedded and pooled, never dropped.

Many texts are packed into one llama.cpp batch (one sequence id each), so a batch of short chunks
costs one graph evaluation; the batch size was tuned on a 2-core CPU (see bench/embed_bench.py).
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import json
import logging
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from forewarn import paths
from forewarn.config import EmbedderSettings
from forewarn.errors import ForewarnError
from forewarn.memory import model_install
from forewarn.memory.llama_contexts import ClosedError, Context, ContextPool

log = logging.getLogger(__name__)
llama_log = logging.getLogger("forewarn.llama_cpp")  # llama.cpp's own chatter, at DEBUG unless it is a problem

# tokens per llama.cpp batch (and the most a window may hold, so never below the context): a non-causal
# encoder attends across the whole packed batch; 2048 cost 45% more CPU per token than 512 (bench sweep)
DEFAULT_BATCH_TOKENS = 512
# on a GPU too the packed batch's attention grows with its square: on one H200 (bench/gpu_embed_bench.py, docs/gpu.md)
# 1,024 tokens per evaluation embedded indexing's calls of 32 chunks 2.8-5.2x faster than 4,096, and 512 or 2,048 less
DEFAULT_GPU_BATCH_TOKENS = 1024
# a long-context model (Qwen3-Embedding: 32k) would reserve gigabytes of KV cache at its full context;
# longer texts are windowed anyway, so default windows stop here
MAX_DEFAULT_WINDOW = 4096
# windows of a long text overlap by this fraction, so a sentence cut at a window edge is still seen whole once
WINDOW_OVERLAP = 0.125
# CPU threads by default: every core, each running a single-threaded context of its own (llama_contexts.py says
# why not one context with many threads); past this many, a context's buffers cost more memory than its core adds
MAX_DEFAULT_THREADS = 8
# OpenMP's idle threads spin by default; beside other processes they spin against descheduled peers. Two
# threads embedding 300 Django chunks at load ~5.5 on 2 cores: 2.0 chunks/s spinning, 25.2 passive (one
# thread: 14.6) — bench/code_embed_bench.py. Set before llama.cpp loads; a user's own value is kept
OMP_WAIT_POLICY = "PASSIVE"
GGUF_MAGIC = b"GGUF"
HASH_MEMO_FILE = "model_hashes.json"  # sha256 of user-configured GGUF files, keyed by path, size and mtime

POOLING_NAMES = {"model": -1, "none": 0, "mean": 1, "cls": 2, "last": 3, "rank": 4}
_POOLING_BY_VALUE = {v: k for k, v in POOLING_NAMES.items()}
# ggml log levels: NONE, DEBUG, INFO, WARN, ERROR, CONT(inue the previous line)
_GGML_LEVELS = {0: logging.DEBUG, 1: logging.DEBUG, 2: logging.DEBUG, 3: logging.WARNING, 4: logging.ERROR}
_PROBLEM_LINES = 20  # recent llama.cpp warnings/errors kept to explain a failed load


class EmbedderUnavailable(ForewarnError, RuntimeError):
    """No embedder can be used; ``reason`` says why and what to do. Retrieval falls back to lexical."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class EmbedderStats:
    """Counters a caller (and a test) can read to see what the embedder did."""

    texts: int = 0  # texts embedded
    tokens: int = 0  # tokens evaluated, windows' overlaps included
    sequences: int = 0  # sequences evaluated (a short text is one, a long text one per window)
    split_texts: int = 0  # texts longer than the context, embedded as several windows
    batches: int = 0  # llama.cpp graph evaluations
    seconds: float = 0.0  # time spent embedding


@dataclass(frozen=True)
class _Sequence:
    text_index: int
    tokens: list[int]


@dataclass
class _LlamaLog:
    """Process-wide llama.cpp log sink (llama.cpp has one callback for the whole process)."""

    recent_problems: collections.deque[str] = field(default_factory=lambda: collections.deque(maxlen=_PROBLEM_LINES))
    last_level: int = logging.DEBUG
    callback: Any = None  # the ctypes callback object: kept alive here, or llama.cpp calls freed memory

    def install(self, llama_cpp: Any) -> None:
        if self.callback is not None:
            return

        @llama_cpp.llama_log_callback
        def _callback(level: int, text: bytes, _user_data: ctypes.c_void_p) -> None:
            py_level = self.last_level if level == 5 else _GGML_LEVELS.get(level, logging.DEBUG)
            self.last_level = py_level
            message = text.decode("utf-8", "replace").rstrip()
            if not message:
                return
            if py_level >= logging.WARNING:
                self.recent_problems.append(message)
            # a warning from llama.cpp about its own config is noise to a Forewarn user: keep it at DEBUG
            llama_log.log(logging.DEBUG if py_level < logging.ERROR else logging.WARNING, "%s", message)

        self.callback = _callback
        llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))


_LOG = _LlamaLog()
_BACKEND_LOCK = threading.Lock()
_backend_ready = False


def import_llama_cpp() -> Any:
    """``import llama_cpp``, its OpenMP threads told to sleep rather than spin when idle (unless the user said
    otherwise): the runtime reads OMP_WAIT_POLICY once, when the library loads."""
    os.environ.setdefault("OMP_WAIT_POLICY", OMP_WAIT_POLICY)
    import llama_cpp

    return llama_cpp


def _llama() -> Any:
    """Import llama_cpp once, route its log to Python logging and initialise the backend."""
    global _backend_ready
    try:
        llama_cpp = import_llama_cpp()
    except ImportError as exc:  # a broken or missing build: semantic search is off, lexical still works
        raise EmbedderUnavailable(f"llama-cpp-python is not importable ({exc}); reinstall it (make install)") from exc
    with _BACKEND_LOCK:
        if not _backend_ready:
            _LOG.install(llama_cpp)
            llama_cpp.llama_backend_init()
            _backend_ready = True
    return llama_cpp


def gpu_offload_supported() -> bool:
    """Whether this llama.cpp build can offload layers to a GPU (CUDA, Metal, Vulkan…)."""
    try:
        return bool(_llama().llama_supports_gpu_offload())
    except EmbedderUnavailable:
        return False


def llama_cpp_build() -> str:
    """llama-cpp-python's version, and whether it carries Forewarn's CPU-kernel patch (a ``+forewarn`` build)."""
    try:
        version = str(getattr(_llama(), "__version__", "unknown"))
    except EmbedderUnavailable as exc:
        return exc.reason
    if "+forewarn" in version:
        return f"{version} (with Forewarn's CPU-kernel patch, third_party/llama-cpp-python)"
    return f"{version} (stock build: `make install` builds the patched one, faster on CPU)"


def llama_system_info() -> str:
    try:
        return _llama().llama_print_system_info().decode("utf-8", "replace").strip()
    except EmbedderUnavailable as exc:
        return exc.reason


@dataclass(frozen=True)
class ResolvedModel:
    """Where the configured model is and what we know of it before loading it."""

    name: str
    path: Path
    sha256: str
    manifest: dict[str, Any] | None  # present for models installed by ``forewarn model install``


def resolve_model(settings: EmbedderSettings) -> ResolvedModel:
    """Find the configured model: an installed model's name, or a path to a GGUF file."""
    spec = settings.model.strip()
    if not spec:
        raise EmbedderUnavailable("no embedding model is configured (embedder.model is empty)")
    installed = paths.models_dir() / spec
    looks_like_path = "/" in spec or spec.endswith(".gguf") or spec.startswith("~")
    if not looks_like_path or installed.is_dir():
        manifest = model_install.read_manifest(installed)
        gguf_path = installed / model_install.GGUF_FILE
        if manifest is None or not gguf_path.is_file():
            hint = (
                "run `forewarn model install`"
                if spec == model_install.DEFAULT_MODEL_NAME
                else "set embedder.model to an installed model name or a path to a GGUF embedding model"
            )
            raise EmbedderUnavailable(f"embedding model '{spec}' is not installed in {paths.models_dir()}: {hint}")
        sha = model_install.file_sha256(gguf_path)
        if sha != manifest.get("sha256"):
            raise EmbedderUnavailable(
                f"embedding model '{spec}' is corrupt: {gguf_path} does not match the sha256 in its manifest; "
                f"reinstall it with `forewarn model install --force`"
            )
        return ResolvedModel(spec, gguf_path, sha, manifest)
    path = Path(spec).expanduser()
    if not path.is_file():
        raise EmbedderUnavailable(f"embedding model file {path} does not exist")
    return ResolvedModel(path.stem, path, _memo_sha256(path), None)


def _memo_sha256(path: Path) -> str:
    """sha256 of a user's GGUF, remembered by (path, size, mtime): hashing a 600 MB model on every start is slow."""
    stat = path.stat()
    key = f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    memo_path = paths.cache_dir() / HASH_MEMO_FILE
    try:
        memo = json.loads(memo_path.read_text(encoding="utf-8"))
        if not isinstance(memo, dict):
            memo = {}
    except (OSError, ValueError):
        memo = {}
    if isinstance(memo.get(key), str):
        return str(memo[key])
    sha = model_install.file_sha256(path)
    memo[key] = sha
    try:
        paths.write_private_text(memo_path, json.dumps(memo))  # 0600: it lists the user's model paths
    except OSError as exc:  # only a memo: the next start hashes again
        log.debug("could not save %s: %s", memo_path, exc)
    return sha


def _check_gguf_magic(path: Path) -> None:
    try:
        with open(path, "rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise EmbedderUnavailable(f"cannot read embedding model {path}: {exc}") from exc
    if magic != GGUF_MAGIC:
        raise EmbedderUnavailable(f"{path} is not a GGUF file (it starts with {magic!r}, not {GGUF_MAGIC!r})")


def _threads(requested: int) -> int:
    if requested > 0:
        return requested
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_DEFAULT_THREADS))


def open_embedder(settings: EmbedderSettings) -> Embedder:
    """Load the configured embedding model, or raise ``EmbedderUnavailable`` saying why."""
    if not settings.enabled:
        raise EmbedderUnavailable("the embedder is disabled in settings (embedder.enabled = false)")
    if settings.pooling not in POOLING_NAMES or settings.pooling in ("none", "rank"):
        raise EmbedderUnavailable(f"embedder.pooling = {settings.pooling!r} is not one of model, mean, cls, last")
    resolved = resolve_model(settings)
    _check_gguf_magic(resolved.path)
    return Embedder(resolved, settings)


class Embedder:
    """A loaded embedding model. Thread-safe: on the CPU, ``n_threads`` single-threaded contexts evaluate a call's
    batches side by side (one on a GPU); tokenizing and the counters are serialised by one lock."""

    def __init__(self, resolved: ResolvedModel, settings: EmbedderSettings) -> None:
        ll = _llama()
        self._ll = ll
        self._lock = threading.Lock()
        self._model: Any = None
        self._pool: ContextPool | None = None
        self.stats = EmbedderStats()
        self.path = resolved.path
        self.name = resolved.name
        self.sha256 = resolved.sha256
        self.query_prefix = settings.query_prefix
        self.document_prefix = settings.document_prefix
        self.n_gpu_layers = settings.n_gpu_layers
        self.n_threads = _threads(settings.n_threads)
        self.gpu_offload_supported = bool(ll.llama_supports_gpu_offload())
        self.device = "gpu" if self.gpu_offload_supported and settings.n_gpu_layers != 0 else "cpu"
        # contexts evaluating side by side: one per thread on the CPU; a GPU parallelises within one
        self.workers = 1 if self.device == "gpu" else self.n_threads

        _LOG.recent_problems.clear()
        mparams = ll.llama_model_default_params()
        # llama.cpp takes a layer count; -1 in our settings means all of them
        mparams.n_gpu_layers = 0x7FFFFFFF if settings.n_gpu_layers < 0 else settings.n_gpu_layers
        model = ll.llama_model_load_from_file(str(resolved.path).encode("utf-8"), mparams)
        if not model:
            raise EmbedderUnavailable(f"llama.cpp could not load {resolved.path}: {self._problems()}")
        self._model = model
        try:
            self._init_context(settings)
        except BaseException:
            self.close()
            raise
        self.model_id = self._make_model_id(resolved, settings)
        log.info(
            "embedder %s loaded from %s: %d dims, window %d tokens, pooling %s, %s, %d threads (%d contexts), "
            "batch %d tokens",
            self.model_id,
            self.path,
            self.dim,
            self.n_ctx,
            self.pooling,
            self.device,
            self.n_threads,
            self.workers,
            self.n_batch,
        )

    def _init_context(self, settings: EmbedderSettings) -> None:
        ll = self._ll
        model = self._model
        if ll.llama_model_has_encoder(model) and ll.llama_model_has_decoder(model):
            raise EmbedderUnavailable(f"{self.path} is an encoder-decoder model, not a sentence-embedding model")
        self._vocab = ll.llama_model_get_vocab(model)
        self.n_embd = int(ll.llama_model_n_embd(model))
        n_ctx_train = int(ll.llama_model_n_ctx_train(model))
        self.n_ctx_train = n_ctx_train
        window = settings.n_ctx if settings.n_ctx > 0 else min(n_ctx_train, MAX_DEFAULT_WINDOW)
        if window > n_ctx_train > 0:  # positions past training (BERT's learned table ends there) give garbage
            log.warning(
                "embedder.n_ctx = %d exceeds the %d tokens %s was trained on; using %d",
                window,
                n_ctx_train,
                self.path.name,
                n_ctx_train,
            )
            window = n_ctx_train
        self.n_ctx = window
        default_batch = DEFAULT_GPU_BATCH_TOKENS if self.device == "gpu" else DEFAULT_BATCH_TOKENS
        self.n_batch = max(settings.n_batch if settings.n_batch > 0 else default_batch, window)
        self.n_seq_max = min(self.n_batch, int(ll.llama_max_parallel_sequences()))
        cparams = ll.llama_context_default_params()
        # causal models keep every packed sequence in one unified KV cache, so it must hold a whole batch
        cparams.n_ctx = self.n_batch
        cparams.n_batch = self.n_batch
        # a non-causal encoder must see a whole batch in one micro-batch
        cparams.n_ubatch = self.n_batch
        cparams.n_seq_max = self.n_seq_max
        cparams.kv_unified = True
        cparams.embeddings = True
        cparams.pooling_type = POOLING_NAMES[settings.pooling]
        threads = self.n_threads // self.workers
        cparams.n_threads = threads
        cparams.n_threads_batch = threads
        try:
            self._pool = ContextPool(ll, lambda: ll.llama_init_from_model(model, cparams), self.n_batch, self.workers)
        except RuntimeError:
            raise EmbedderUnavailable(
                f"llama.cpp could not create a context for {self.path}: {self._problems()}"
            ) from None
        with self._pool.take() as first:
            pooling = int(ll.llama_pooling_type(first.handle))
        if pooling in (POOLING_NAMES["none"], POOLING_NAMES["rank"]):
            raise EmbedderUnavailable(
                f"{self.path} does not pool its output into one vector ({_POOLING_BY_VALUE.get(pooling)} pooling): "
                f"it is not a sentence-embedding model (set embedder.pooling to mean, cls or last to force one)"
            )
        self.pooling = _POOLING_BY_VALUE.get(pooling, str(pooling))
        if settings.dimensions > self.n_embd:
            raise EmbedderUnavailable(f"embedder.dimensions = {settings.dimensions} exceeds the model's {self.n_embd}")
        self.dim = settings.dimensions if settings.dimensions > 0 else self.n_embd
        probe = self._tokenize("", add_special=True)
        content = self._tokenize("a", add_special=False)
        full = self._tokenize("a", add_special=True)
        self._n_prefix, self._n_suffix = _special_layout(full, content, len(probe))

    def _make_model_id(self, resolved: ResolvedModel, settings: EmbedderSettings) -> str:
        """Name the vector space: the file's hash plus every setting that changes the vectors."""
        base = resolved.manifest["model_id"] if resolved.manifest else f"{resolved.name}@{resolved.sha256[:12]}"
        extras = []
        if settings.pooling != "model":
            extras.append(f"pool={self.pooling}")
        if self.dim != self.n_embd:
            extras.append(f"dim={self.dim}")
        if self.n_ctx != min(self.n_ctx_train, MAX_DEFAULT_WINDOW):  # windows change long texts' vectors
            extras.append(f"ctx={self.n_ctx}")
        return base + "".join("+" + e for e in extras)

    def _problems(self) -> str:
        lines = list(_LOG.recent_problems)
        return "; ".join(lines[-3:]) if lines else "no reason given (run with -vv for llama.cpp's log)"

    # -- tokens -------------------------------------------------------------------------------------

    def _tokenize(self, text: str, *, add_special: bool) -> list[int]:
        data = text.encode("utf-8", "replace")
        capacity = len(data) + 16  # WordPiece/BPE never yield more tokens than bytes, plus specials
        buf = (self._ll.llama_token * capacity)()
        n = self._ll.llama_tokenize(self._vocab, data, len(data), buf, capacity, add_special, False)
        if n < 0:  # the buffer was short: llama.cpp says how many it needs
            capacity = -n
            buf = (self._ll.llama_token * capacity)()
            n = self._ll.llama_tokenize(self._vocab, data, len(data), buf, capacity, add_special, False)
        return list(buf[:n])

    def tokenize(self, text: str) -> list[int]:
        """Token ids of ``text`` as the model sees it, special tokens included."""
        with self._lock:
            self._check_open()
            return self._tokenize(text, add_special=True)

    def count_tokens(self, text: str) -> int:
        """Tokens ``text`` takes as model input, special tokens included (prefixes are the caller's)."""
        with self._lock:
            self._check_open()
            return len(self._tokenize(text, add_special=True))

    # -- embedding ----------------------------------------------------------------------------------

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts to store: ``(len(texts), dim)`` float32, L2-normalised rows."""
        return self.embed_texts([self.document_prefix + t for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        """Embed a search query: ``(dim,)`` float32, L2-normalised."""
        return self.embed_texts([self.query_prefix + text])[0]

    def document_input(self, text: str) -> str:
        """The exact string embedded for a document (what a cache must key on)."""
        return self.document_prefix + text

    def query_input(self, text: str) -> str:
        return self.query_prefix + text

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Embed exact input strings (prefixes already applied)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        start = time.perf_counter()
        with self._lock:
            pool = self._open_pool()
            sequences, splits = self._sequences(texts)
        batches = self._pack(sequences)
        try:
            evaluated = pool.map(self._decode, batches)
        except ClosedError:
            raise EmbedderUnavailable("the embedder was closed") from None
        sums = np.zeros((len(texts), self.dim), dtype=np.float64)
        for batch, vectors in zip(batches, evaluated, strict=True):
            for seq, vec in zip(batch, vectors, strict=True):
                # weight windows by length so a short tail window does not count as much as a full one
                sums[seq.text_index] += vec * len(seq.tokens)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        out[:] = sums / np.where(norms > 0, norms, 1.0)
        with self._lock:
            self.stats.batches += len(batches)
            self.stats.texts += len(texts)
            self.stats.sequences += len(sequences)
            self.stats.tokens += sum(len(s.tokens) for s in sequences)
            self.stats.split_texts += splits
            self.stats.seconds += time.perf_counter() - start
        return out

    def _sequences(self, texts: Sequence[str]) -> tuple[list[_Sequence], int]:
        sequences: list[_Sequence] = []
        splits = 0
        for i, text in enumerate(texts):
            # a tokenizer that adds no special tokens gives nothing for "": embed a space rather than no sequence
            tokens = self._tokenize(text, add_special=True) or self._tokenize(" ", add_special=True)
            if len(tokens) <= self.n_ctx:
                sequences.append(_Sequence(i, tokens))
                continue
            windows = self._windows(tokens)
            splits += 1
            log.info(
                "embedding a %d-token text as %d overlapping windows of at most %d tokens (the model's context)",
                len(tokens),
                len(windows),
                self.n_ctx,
            )
            sequences.extend(_Sequence(i, w) for w in windows)
        return sequences, splits

    def _windows(self, tokens: list[int]) -> list[list[int]]:
        """Overlapping windows over the content tokens, each wrapped in the model's special tokens again."""
        prefix = tokens[: self._n_prefix]
        suffix = tokens[len(tokens) - self._n_suffix :] if self._n_suffix else []
        body = tokens[self._n_prefix : len(tokens) - self._n_suffix]
        size = self.n_ctx - len(prefix) - len(suffix)
        step = max(1, size - int(size * WINDOW_OVERLAP))
        windows = []
        for begin in range(0, len(body), step):
            windows.append(prefix + body[begin : begin + size] + suffix)
            if begin + size >= len(body):
                break
        return windows

    def _pack(self, sequences: list[_Sequence]) -> list[list[_Sequence]]:
        batches: list[list[_Sequence]] = []
        current: list[_Sequence] = []
        used = 0
        for seq in sequences:
            if current and (used + len(seq.tokens) > self.n_batch or len(current) >= self.n_seq_max):
                batches.append(current)
                current, used = [], 0
            current.append(seq)
            used += len(seq.tokens)
        if current:
            batches.append(current)
        return batches

    def _decode(self, ctx: Context, batch: list[_Sequence]) -> np.ndarray:
        """One packed batch evaluated on ``ctx`` (this thread's alone): each sequence's normalised vector."""
        ll = self._ll
        ctx.batch.fill([s.tokens for s in batch])
        memory = ll.llama_get_memory(ctx.handle)
        if memory:  # causal models keep a KV cache; every batch starts from an empty one
            ll.llama_memory_clear(memory, True)
        rc = ll.llama_decode(ctx.handle, ctx.batch.struct)
        if rc != 0:
            raise EmbedderUnavailable(
                f"llama.cpp failed to evaluate a batch (llama_decode returned {rc}): {self._problems()}"
            )
        vectors = np.empty((len(batch), self.dim), dtype=np.float64)
        for seq_id in range(len(batch)):
            ptr = ll.llama_get_embeddings_seq(ctx.handle, seq_id)
            if not ptr:
                raise EmbedderUnavailable(f"llama.cpp returned no embedding for sequence {seq_id}")
            vec = np.ctypeslib.as_array(ptr, shape=(self.n_embd,))[: self.dim].astype(np.float64)
            norm = np.linalg.norm(vec)
            vectors[seq_id] = vec / norm if norm > 0 else vec
        return vectors

    # -- lifecycle ----------------------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        """What is loaded and where it runs (for ``forewarn model info`` and the daemon's status)."""
        return {
            "model_id": self.model_id,
            "name": self.name,
            "path": str(self.path),
            "dim": self.dim,
            "n_embd": self.n_embd,
            "n_ctx": self.n_ctx,
            "pooling": self.pooling,
            "device": self.device,
            "gpu_offload_supported": self.gpu_offload_supported,
            "n_gpu_layers": self.n_gpu_layers,
            "n_threads": self.n_threads,
            "contexts": self.workers,
            "n_batch": self.n_batch,
            "query_prefix": self.query_prefix,
            "document_prefix": self.document_prefix,
            "stats": asdict(self.stats),
        }

    def _check_open(self) -> None:
        self._open_pool()

    def _open_pool(self) -> ContextPool:
        if self._pool is None:
            raise EmbedderUnavailable("the embedder was closed")
        return self._pool

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.close()  # waits for evaluations in flight
                self._pool = None
            if self._model is not None:
                self._ll.llama_model_free(self._model)
                self._model = None

    def __enter__(self) -> Embedder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # interpreter shutdown: llama_cpp may already be gone
            self.close()


def _special_layout(full: list[int], content: list[int], n_special: int) -> tuple[int, int]:
    """How many special tokens the tokenizer puts before and after the content (e.g. [CLS] … [SEP])."""
    for n_prefix in range(0, n_special + 1):
        if full[n_prefix : n_prefix + len(content)] == content:
            return n_prefix, max(0, len(full) - n_prefix - len(content))
    return 0, 0  # unusual tokenizer: windows then carry no re-added special tokens
