"""Incremental indexing of a workspace by content hash.

A run scans the workspace, trusts ``(size, mtime_ns)`` for files it already knows, hashes the
others and re-parses only those whose bytes changed. Many files (a cold index) are read and parsed
in worker processes, in batches, while this process writes each batch in one transaction; a few
files (a save) are parsed in-process, which is faster than starting a pool. The file graph is kept
in memory once loaded and updated file by file, so a save re-ranks without reloading anything.

A record's stat must never vouch for bytes other than its own, or later runs skip the file for good.
The stat is taken before the read, and one too recent to rule out a same-tick rewrite is recorded as
unsettled (read again next run). Another process (the CLI beside the hook server) may write the same
rows: a new stat for bytes this process already knew is stored only if the row still holds them.

Readers are not held up by a run. Runs queue on their own lock; queries about chunks, search and
definitions go through a second connection (WAL: reads never wait for writes) and see each batch as
soon as its transaction commits. The in-memory records and graph (``files()``, ``graph``,
``repo_map``) stay the previous generation until the run's end swaps the new one in, under a state
lock held only for that swap and for this process's own writes, never across a batch's parsing.

Workers start by ``forkserver`` (``fork`` is unsafe in the threaded daemon), so like any
multiprocessing user, a script that indexes a large tree must guard its entry point with
``if __name__ == "__main__":``.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import multiprocessing
import os
import stat
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forewarn import paths
from forewarn.config import IndexSettings, Settings
from forewarn.indexing.languages import language_for_path
from forewarn.indexing.orphans import die_with_parent, expect_children
from forewarn.indexing.parse import HASH_DIGEST_BYTES, SIGNATURE_MAX_CHARS, ParsedFile, parse_file
from forewarn.indexing.records import Import
from forewarn.indexing.resolve import ImportResolver
from forewarn.indexing.scanner import (
    IGNORE_FILES,
    SKIP_OVERSIZED,
    SKIP_UNREADABLE,
    ScannedFile,
    Scanner,
    content_skip_reason,
)
from forewarn.indexing.store import IndexStore
from forewarn.indexing.store_records import CodeChunk, Definition, FileContent, FileRecord, IndexChanges
from forewarn.indexing.words import file_chunk_words, graph_def_names, identifier_words

if TYPE_CHECKING:  # numpy/scipy load only where ranking happens, never in parser processes
    from forewarn.indexing.graph import FileGraph
    from forewarn.indexing.repomap import RepoMap

log = logging.getLogger(__name__)

IN_PROCESS_MAX_FILES = 300  # ~1 s of parsing here: about what starting workers (forkserver, grammars) costs
BATCH_FILES = 48  # files per worker task: large enough to amortise IPC, small enough to balance load
WORKER_GC_THRESHOLD = 10_000  # a worker makes ~10 short-lived objects per query match: collecting every 700 cost ~3%
POOL_ATTEMPTS = 2  # pools tried before suspecting a file: a second death means a file kills its worker
# a write this long after a file's mtime may leave the mtime as it was (FAT keeps 2 s, ext3 and HFS+ 1 s, and the
# kernel stamps from a clock a tick behind): a stat this recent cannot vouch that the bytes read are still there
RACY_MTIME_NS = 3_000_000_000
UNSETTLED_SIZE = -1  # recorded for such a file: no file has this size, so the next run reads it again

STATUS_OK = "ok"
STATUS_ERRORS = "errors"  # parsed, but tree-sitter had to recover from syntax errors
STATUS_SKIPPED = "skipped"
SKIP_PARSE_FAILED = "parse-failed"
SKIP_UNSUPPORTED = "unsupported"
VANISHED = "vanished"  # deleted between the scan and the read: simply gone

Progress = Callable[[int, int], None]  # (files done, files to do)


@dataclass
class IndexReport:
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    reparsed: list[str] = field(default_factory=list)  # of ``changed``: read again because an upgrade asked it
    deleted: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)  # (old, new)
    skipped: dict[str, str] = field(default_factory=dict)  # rel -> reason
    parsed: int = 0  # files run through the parser in this run
    unchanged: int = 0
    unsupported: int = 0  # files no language claims
    workers: int = 0  # parser processes started (0: parsed in this process)
    timings: dict[str, float] = field(default_factory=dict)  # phase -> seconds

    def to_dict(self) -> dict[str, Any]:
        return {
            "added": self.added,
            "changed": self.changed,
            "reparsed": self.reparsed,
            "deleted": self.deleted,
            "renamed": [list(p) for p in self.renamed],
            "skipped": self.skipped,
            "parsed": self.parsed,
            "unchanged": self.unchanged,
            "unsupported": self.unsupported,
            "workers": self.workers,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }


@dataclass(frozen=True, slots=True)
class _Limits:
    max_file_bytes: int
    max_line_length: int


@dataclass(slots=True)
class _Outcome:
    """What reading one file found: new content, the same bytes (``record`` has the new stat) or nothing."""

    rel: str
    content: FileContent | None = None
    record: FileRecord | None = None
    missing: str | None = None  # why nothing could be read: "vanished" (deleted meanwhile) or "unreadable"


class Indexer:
    """The code index of one workspace; safe to share between threads (calls are serialised)."""

    def __init__(self, root: Path, settings: Settings | IndexSettings, db_path: Path | None = None) -> None:
        self.root = Path(root).resolve()
        self.settings = settings.index if isinstance(settings, Settings) else settings
        self.store = IndexStore(db_path or paths.workspace_dir(self.root) / "index.db")
        claimed: dict[str, bool] = {}  # extension -> a language with a working grammar claims it

        def wanted(rel: str) -> bool:  # as language_for_path decides, without a path object per file
            ext = os.path.splitext(rel)[1].lower()
            known = claimed.get(ext)
            if known is None:  # checks (and compiles) only the languages the workspace has: ~0.25 s for all
                known = claimed[ext] = language_for_path("x" + ext) is not None if ext else False
            return known

        self.scanner = Scanner(self.root, self.settings, want=wanted)
        self._records = self.store.files()
        self._graph: FileGraph | None = None
        self._resolver: ImportResolver | None = None
        self._run_lock = threading.RLock()  # one index run at a time; readers never take it
        self._lock = threading.RLock()  # the in-memory state and ``store``'s connection, held briefly
        self._reader = IndexStore(self.store.path, verify=False)  # queries, beside a run's writes
        self._read_lock = threading.Lock()  # a connection serves one thread at a time

    def close(self) -> None:
        with self._run_lock, self._lock, self._read_lock:
            self._reader.close()
            self.store.close()

    def __enter__(self) -> Indexer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- indexing ------------------------------------------------------------------------------

    def index(self, progress: Progress | None = None) -> IndexReport:
        """Bring the index up to date with the whole workspace."""
        with self._run_lock:
            report = IndexReport()
            started = time.perf_counter()
            scan = self.scanner.scan()
            report.timings["scan"] = time.perf_counter() - started
            report.skipped.update(scan.skipped)
            report.unsupported = scan.unsupported
            present = {f.rel: f for f in scan.files}
            jobs = self._jobs(scan.files, report)
            gone = [rel for rel in self._records if rel not in present]
            self._apply(jobs, gone, report, progress, full=True)
            report.timings["total"] = time.perf_counter() - started
            return report

    def index_files(self, rels: Iterable[str]) -> IndexReport:
        """Re-index a few files (an editor save); deleted or newly ignored ones leave the index.

        ``rels`` are workspace-relative (absolute paths inside the workspace are accepted); paths
        outside the workspace are ignored.
        """
        rels = [rel for r in rels if (rel := self._relative(r)) is not None]
        if any(rel.rsplit("/", 1)[-1] in IGNORE_FILES for rel in rels):
            return self.index()  # ignore rules changed: only a full scan knows what they now cover
        with self._run_lock:
            report = IndexReport()
            started = time.perf_counter()
            found: list[ScannedFile] = []
            gone: list[str] = []
            for rel in dict.fromkeys(rels):
                verdict = self.scanner.check(rel)
                if isinstance(verdict, ScannedFile):
                    found.append(verdict)
                    continue
                if verdict is not None:
                    report.skipped[rel] = verdict
                if rel in self._records:
                    gone.append(rel)
            jobs = self._jobs(found, report)
            self._apply(jobs, gone, report, None, full=False)
            report.timings["total"] = time.perf_counter() - started
            return report

    def _relative(self, path: str) -> str | None:
        full = os.path.normpath(os.path.join(self.root, path))  # an absolute path replaces the root
        candidates = [full, os.path.join(os.path.realpath(os.path.dirname(full)), os.path.basename(full))]
        for candidate in candidates:  # the editor may name the root through a symlink we resolved
            rel = os.path.relpath(candidate, self.root)
            if rel != "." and rel != ".." and not rel.startswith(".." + os.sep):
                return rel.replace(os.sep, "/")
        log.warning("not indexing %s: it is outside the workspace %s", path, self.root)
        return None

    def _jobs(self, files: Iterable[ScannedFile], report: IndexReport) -> list[tuple[str, str | None]]:
        """Files to read: unknown ones, and known ones whose size or mtime moved (with their old hash)."""
        jobs: list[tuple[str, str | None]] = []
        for f in files:
            known = self._records.get(f.rel)
            if known is not None and known.size == f.size and known.mtime_ns == f.mtime_ns:
                report.unchanged += 1
                if known.status == STATUS_SKIPPED and known.reason:
                    report.skipped[f.rel] = known.reason
                continue
            jobs.append((f.rel, known.content_hash if known else None))
        return jobs

    def _apply(
        self,
        jobs: list[tuple[str, str | None]],
        gone: list[str],
        report: IndexReport,
        progress: Progress | None,
        *,
        full: bool,
    ) -> None:
        started = time.perf_counter()
        written: list[FileContent] = []
        touched: list[FileRecord] = []
        write_time = parse_cpu = 0.0
        report.workers = self._worker_count(len(jobs))

        def take(batch: list[_Outcome], cpu: float, stored: bool) -> None:
            nonlocal write_time, parse_cpu
            parse_cpu += cpu
            contents = [o.content for o in batch if o.content is not None]
            touched.extend(o.record for o in batch if o.record is not None)
            gone.extend(o.rel for o in batch if o.missing and o.rel in self._records)
            report.skipped.update({o.rel: o.missing for o in batch if o.missing == SKIP_UNREADABLE})
            if not stored:
                t = time.perf_counter()
                with self._lock:
                    self.store.write(contents)
                write_time += time.perf_counter() - t
            written.extend(contents)

        for result in self._outcomes(jobs, progress):
            take(*result)
        with self._lock:
            moved = set(self.store.touch(touched))
        if moved:
            # another process (the CLI beside the hook server) stored other bytes for these files since this
            # one read its records: "the same bytes as before" says nothing about the row, so parse them again
            log.info("another process re-indexed %d of these files meanwhile; parsing them again", len(moved))
            touched[:] = [rec for rec in touched if rec.rel not in moved]
            take(*_process_batch(str(self.root), [(rel, None) for rel in sorted(moved)], self._limits(), None), False)
        with self._lock:  # the swap: readers see the previous generation or this one, never half
            self._finish(written, touched, gone, report, started, write_time, parse_cpu)
            self.store.record_changes(
                [*report.changed, *report.added, *(new for _, new in report.renamed)],
                [*((rel, None) for rel in report.deleted), *report.renamed],
                full=full,
            )

    def _finish(
        self,
        written: list[FileContent],
        touched: list[FileRecord],
        gone: list[str],
        report: IndexReport,
        started: float,
        write_time: float,
        parse_cpu: float,
    ) -> None:
        report.timings["parse"] = time.perf_counter() - started
        report.timings["write"] = write_time  # in this process; workers write their own batches
        report.timings["parse_cpu"] = parse_cpu  # CPU seconds reading, parsing (and in workers writing)
        self._classify(written, touched, gone, report)
        t = time.perf_counter()
        removed = [rel for rel in gone if rel in self._records]
        set_changed = bool(report.added or removed) or any(self._status_flips(c.record) for c in written)
        self.store.delete(removed)
        self._update_memory(written, touched, removed)
        self._update_edges(written, removed, file_set_changed=set_changed)
        report.timings["resolve"] = time.perf_counter() - t

    def _outcomes(
        self, jobs: list[tuple[str, str | None]], progress: Progress | None
    ) -> Iterator[tuple[list[_Outcome], float, bool]]:
        """(outcomes, CPU seconds, whether already stored) per batch: workers store their own batches,
        so chunk text never crosses a process boundary and writes run beside parsing."""
        limits = self._limits()
        total, done = len(jobs), 0
        if progress:
            progress(0, total)
        workers = self._worker_count(total)
        if not workers:
            if jobs:
                yield (*_process_batch(str(self.root), jobs, limits, None), False)
                if progress:
                    progress(total, total)
            return
        batches = [jobs[i : i + BATCH_FILES] for i in range(0, total, BATCH_FILES)]
        root, db = str(self.root), str(self.store.path)
        for attempt in range(POOL_ATTEMPTS):  # a worker killed once (the OOM killer) costs one more pool
            unfinished: list[list[tuple[str, str | None]]] = []
            for batch, result in _pool_round(root, batches, limits, db, workers, unfinished):
                yield result
                done += len(batch)
                if progress:
                    progress(done, total)
            if not unfinished:
                return
            log.warning(
                "a parser process died (pool %d of %d); %d files left to parse",
                attempt + 1,
                POOL_ATTEMPTS,
                sum(len(b) for b in unfinished),
            )
            batches = unfinished
        for batch in batches:  # it died again: a file kills its process; find it in processes of its own
            yield from _isolated(root, batch, limits, db)
            done += len(batch)
            if progress:
                progress(done, total)

    def _limits(self) -> _Limits:
        return _Limits(self.settings.max_file_bytes, self.settings.max_line_length)

    def _worker_count(self, files: int) -> int:
        """Parser processes for this many files; 0 means parse here."""
        if files <= IN_PROCESS_MAX_FILES:
            return 0
        batches = -(-files // BATCH_FILES)
        return min(batches, max(1, self.settings.workers or os.cpu_count() or 1))

    def _status_flips(self, rec: FileRecord) -> bool:
        """A known file became skipped, or a skipped one parseable: the set of graph files changes."""
        known = self._records.get(rec.rel)
        return known is not None and (known.status == STATUS_SKIPPED) != (rec.status == STATUS_SKIPPED)

    def _classify(
        self, written: list[FileContent], touched: list[FileRecord], gone: list[str], report: IndexReport
    ) -> None:
        """Fill the report in terms of indexed code: a file that turns binary is deleted (its chunks are
        gone), a skipped one that becomes parseable is added, and a vanished file's bytes reappearing
        under a new name are a rename."""
        report.unchanged += len(touched)
        for rec in touched:  # the same bytes: the verdict on them stands, as on the stat fast path
            known = self._records.get(rec.rel)
            if known is not None and known.status == STATUS_SKIPPED and known.reason:
                report.skipped[rec.rel] = known.reason
        indexed_before = {rel for rel, rec in self._records.items() if rec.status != STATUS_SKIPPED}
        vanished_by_hash = {self._records[rel].content_hash: rel for rel in gone if rel in indexed_before}
        deleted = [rel for rel in gone if rel in indexed_before]
        for content in written:
            rec = content.record
            if rec.status == STATUS_SKIPPED:
                report.skipped[rec.rel] = rec.reason or STATUS_SKIPPED
                if rec.rel in indexed_before:
                    deleted.append(rec.rel)
                continue
            report.parsed += 1
            if rec.rel in indexed_before:
                report.changed.append(rec.rel)
                if self._records[rec.rel].content_hash == "":  # an index migration asked for it (m005, m008)
                    report.reparsed.append(rec.rel)
            elif (old := vanished_by_hash.pop(rec.content_hash, None)) is not None:
                report.renamed.append((old, rec.rel))
            else:
                report.added.append(rec.rel)
        renamed_from = {old for old, _ in report.renamed}
        report.deleted = sorted(rel for rel in deleted if rel not in renamed_from)
        report.added.sort()
        report.changed.sort()

    # -- in-memory state: records, graph, resolver ---------------------------------------------

    def _update_memory(self, written: list[FileContent], touched: list[FileRecord], removed: list[str]) -> None:
        for rec in touched:  # a new stat for known bytes: what parsing them found (status, reason) stands
            known = self._records.get(rec.rel)
            self._records[rec.rel] = rec if known is None else replace(known, size=rec.size, mtime_ns=rec.mtime_ns)
        for rel in removed:
            self._records.pop(rel, None)
            if self._graph is not None:
                self._graph.remove_file(rel)
        for content in written:
            rec = content.record
            self._records[rec.rel] = rec
            if self._graph is None:
                continue
            if rec.status == STATUS_SKIPPED:
                self._graph.remove_file(rec.rel)
            else:
                self._graph.set_file(rec.rel, graph_def_names((d[0], d[1], d[3]) for d in content.defs), content.refs)

    def _indexed(self) -> list[str]:
        return [rel for rel, rec in self._records.items() if rec.status != STATUS_SKIPPED]

    def _update_edges(self, written: list[FileContent], removed: list[str], *, file_set_changed: bool) -> None:
        if not written and not removed:
            return
        resolver = self._resolver
        if resolver is not None:
            for rel in removed:
                resolver.remove(rel)
            for content in written:
                resolver.remove(content.record.rel)
                if content.record.status != STATUS_SKIPPED:
                    resolver.add(content.record.rel)
        if file_set_changed:
            imports = self.store.imports()  # a new or vanished file can change what any import means
        else:
            imports = {c.record.rel: (c.record.language, c.imports) for c in written}
        edges = self._resolve(imports)
        self.store.set_edges(edges, replace_all=file_set_changed)
        if self._graph is not None:
            self._graph.set_imports(edges, replace_all=file_set_changed)

    def _resolve(self, imports: dict[str, tuple[str, list[Import]]]) -> dict[str, set[str]]:
        if self._resolver is None:
            self._resolver = ImportResolver(self._indexed(), self._read_text)
        edges: dict[str, set[str]] = {}
        for rel, (language, imps) in imports.items():
            targets: set[str] = set()
            for imp in imps:
                try:
                    targets.update(self._resolver.resolve(rel, language, imp))
                except Exception:  # one odd import must not stop indexing the rest
                    log.exception("resolving import %r in %s failed", imp.spec, rel)
            edges[rel] = targets - {rel}
        return edges

    def _read_text(self, rel: str) -> str | None:
        try:
            return (self.root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    @property
    def graph(self) -> FileGraph:
        """The file graph, loaded from the index on first use and kept up to date afterwards."""
        with self._lock:
            if self._graph is None:
                from forewarn.indexing.graph import FileGraph

                self._graph = FileGraph.build(
                    self._indexed(), self.store.def_names(), self.store.ref_counts(), self.store.edges()
                )
            return self._graph

    # -- queries -------------------------------------------------------------------------------

    def files(self) -> dict[str, FileRecord]:
        with self._lock:
            return dict(self._records)

    def record(self, rel: str) -> FileRecord | None:
        """One file's record (``files()`` copies them all: hovers and opens ask about a few files each)."""
        with self._lock:
            return self._records.get(rel)

    def chunks_for(self, rel: str) -> list[CodeChunk]:
        with self._read_lock:
            return self._reader.chunks_for(rel)

    def chunk_at(self, rel: str, line: int) -> CodeChunk | None:
        with self._read_lock:
            return self._reader.chunk_at(rel, line)

    def chunk_spans(self, rel: str) -> list[tuple[str, str, int, int]]:
        """(symbol, kind, start_line, end_line) of ``rel``'s whole chunks, without text (see ``IndexStore``)."""
        with self._read_lock:
            return self._reader.chunk_spans(rel)

    def chunks_by_ids(self, ids: Sequence[int]) -> dict[int, CodeChunk]:
        with self._read_lock:
            return self._reader.chunks_by_ids(ids)

    def chunk_keys(self) -> list[tuple[int, str, str]]:
        """(id, file, content hash) of every chunk that carries its own text (see ``IndexStore.chunk_keys``)."""
        with self._read_lock:
            return self._reader.chunk_keys()

    def changes_since(self, epoch: str | None, since: int) -> IndexChanges:
        """What changed in the index after (``epoch``, ``since``): see ``IndexStore.changes_since``."""
        with self._read_lock:
            return self._reader.changes_since(epoch, since)

    def chunk_by_symbol(self, rel: str, symbol: str) -> CodeChunk | None:
        with self._read_lock:
            return self._reader.chunk_by_symbol(rel, symbol)

    def search_chunks(self, text: str, limit: int = 20) -> list[tuple[CodeChunk, float]]:
        """Code chunks matching free text by BM25 (higher is better), best first."""
        with self._read_lock:
            return self._reader.search_chunks(text, limit)

    def definitions_named(self, name: str) -> list[Definition]:
        with self._read_lock:
            return self._reader.definitions_named(name)

    def ref_counts(self) -> dict[str, dict[str, int]]:
        """The names each indexed file references, with counts (from the ref tags of the last run)."""
        with self._lock:  # the store's connection is not thread-safe: ``_lock`` serialises it
            return self.store.ref_counts()

    def repo_map(self, budget_tokens: int, focus_files: Sequence[str] = (), idents: Sequence[str] = ()) -> RepoMap:
        with self._lock:
            from forewarn.indexing.repomap import build_repo_map

            return build_repo_map(self.graph, self.store, budget_tokens, focus_files, idents, self.root)


# -- worker side: everything below runs in worker processes (or in-process for a few files) ----


# imported once, in the forkserver; the guard, first, makes the forkserver die with the indexer
WORKER_PRELOAD = ["forewarn.indexing.forkserver_guard", "forewarn.indexing.parse", "forewarn.indexing.store"]


def _pool_context() -> multiprocessing.context.BaseContext:
    # forkserver: the daemon has threads, and fork() with threads can deadlock the child
    expect_children()
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(WORKER_PRELOAD)  # workers fork with the parser modules loaded
    return context


def _worker_started() -> None:
    """A parser worker dies with its parent (the forkserver, or the indexer under spawn); it keeps nothing
    alive between files: collect garbage less often, and never scan the modules the forkserver preloaded."""
    die_with_parent()
    gc.freeze()
    gc.set_threshold(WORKER_GC_THRESHOLD, *gc.get_threshold()[1:])


_worker_stores: dict[str, IndexStore] = {}  # one connection per worker process and index


def _process_batch(
    root: str, jobs: list[tuple[str, str | None]], limits: _Limits, db_path: str | None
) -> tuple[list[_Outcome], float]:
    """Outcomes of a batch of files, and the CPU seconds they took.

    With ``db_path`` (in a worker) the batch is stored here, in one transaction, and the chunks are
    left out of what goes back: only what the file graph and the report need crosses processes.
    """
    started = time.process_time()
    outcomes = [_guarded_file(root, rel, old_hash, limits) for rel, old_hash in jobs]
    if db_path is not None:
        store = _worker_stores.get(db_path)
        if store is None:
            store = _worker_stores[db_path] = IndexStore(Path(db_path), verify=False)
        store.write([o.content for o in outcomes if o.content is not None])
        for o in outcomes:
            if o.content is not None:
                o.content = replace(o.content, chunks=[], chunk_words=[])
    return outcomes, time.process_time() - started


def _pool_round(
    root: str,
    batches: list[list[tuple[str, str | None]]],
    limits: _Limits,
    db_path: str,
    workers: int,
    unfinished: list[list[tuple[str, str | None]]],
) -> Iterator[tuple[list[tuple[str, str | None]], tuple[list[_Outcome], float, bool]]]:
    """(batch, outcome as ``_outcomes`` yields it) for each batch parsed in one pool; batches left
    when a worker dies (every pending one fails then) go to ``unfinished``."""
    with ProcessPoolExecutor(max_workers=workers, mp_context=_pool_context(), initializer=_worker_started) as pool:
        futures = {pool.submit(_process_batch, root, batch, limits, db_path): batch for batch in batches}
        for future in as_completed(futures):
            batch = futures[future]
            try:
                outcomes, cpu = future.result()
            except BrokenProcessPool:  # a worker died (a grammar crashed, the OOM killer)
                unfinished.append(batch)
            except Exception:  # the batch's write failed in the worker: parse it here, file by file
                log.exception("a parser process failed on %d files; parsing them here", len(batch))
                yield batch, (*_process_batch(root, batch, limits, None), False)
            else:
                yield batch, (outcomes, cpu, True)


def _isolated(
    root: str, jobs: list[tuple[str, str | None]], limits: _Limits, db_path: str
) -> Iterator[tuple[list[_Outcome], float, bool]]:
    """A batch whose worker died, again in a fresh process; if that one dies too, each file in its own,
    so only the file that kills its process is skipped ("parse-failed"). Yields as ``_outcomes`` does."""
    result = _in_fresh_process(root, jobs, limits, db_path)
    if result is not None:
        yield result
        return
    for rel, old_hash in jobs:
        result = _in_fresh_process(root, [(rel, old_hash)], limits, db_path)
        if result is None:
            log.error("parsing %s crashed its process; skipped", rel)
            result = [_failed(root, rel)], 0.0, False
        yield result


def _in_fresh_process(
    root: str, jobs: list[tuple[str, str | None]], limits: _Limits, db_path: str
) -> tuple[list[_Outcome], float, bool] | None:
    """``jobs`` parsed (and stored) in a process of their own, as ``_outcomes`` yields them; None if it died."""
    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=_pool_context(), initializer=_worker_started) as pool:
            outcomes, cpu = pool.submit(_process_batch, root, jobs, limits, db_path).result()
    except BrokenProcessPool:
        return None
    except Exception:  # the write failed in the worker: parse the files here
        log.exception("a parser process failed on %d files; parsing them here", len(jobs))
        return (*_process_batch(root, jobs, limits, None), False)
    return outcomes, cpu, True


def _guarded_file(root: str, rel: str, old_hash: str | None, limits: _Limits) -> _Outcome:
    try:
        return _process_file(root, rel, old_hash, limits)
    except Exception:  # whatever one file does must cost that file only
        log.exception("indexing %s failed", rel)
        return _failed(root, rel)


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """A file's bytes and the stat to record with them: taken before reading, so a change during the read
    leaves the record older than the file (read again next run), never newer than its bytes."""

    size: int  # UNSETTLED_SIZE when the mtime was too recent to vouch for the bytes
    mtime_ns: int
    data: bytes


def _read_file(path: str, limit: int | None) -> _Snapshot:
    """Up to ``limit`` bytes of ``path`` (all of it when None), with the stat they are recorded under."""
    started = time.time_ns()
    # non-blocking: a file swapped for a FIFO since the scan must not hang the worker on open()
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with open(fd, "rb") as fh:
        st = os.fstat(fd)  # the same file as the bytes, even if the path is replaced meanwhile
        if not stat.S_ISREG(st.st_mode):  # replaced by a directory, FIFO or device since the scan
            raise OSError(f"not a regular file (mode {st.st_mode:o})")
        data = fh.read(-1 if limit is None else limit)
    # a later write in the same timestamp tick, at the same size, would leave this stat unchanged
    settled = st.st_mtime_ns < started - RACY_MTIME_NS
    return _Snapshot(st.st_size if settled else UNSETTLED_SIZE, st.st_mtime_ns, data)


def _failed(root: str, rel: str) -> _Outcome:
    """A file that could not be parsed, recorded as skipped: it is tried again once its bytes change."""
    try:
        snapshot = _read_file(os.path.join(root, rel), None)
    except OSError:
        return _Outcome(rel, missing=VANISHED)
    digest = hashlib.blake2b(snapshot.data, digest_size=HASH_DIGEST_BYTES).hexdigest()
    spec = language_for_path(rel, snapshot.data)
    record = FileRecord(rel, spec.name if spec else "", snapshot.size, snapshot.mtime_ns, digest, STATUS_OK)
    return _Outcome(rel, content=_skipped(record, SKIP_PARSE_FAILED))


def _process_file(root: str, rel: str, old_hash: str | None, limits: _Limits) -> _Outcome:
    try:
        snapshot = _read_file(os.path.join(root, rel), limits.max_file_bytes + 1)
    except FileNotFoundError:
        return _Outcome(rel, missing=VANISHED)
    except OSError as exc:
        log.warning("cannot read %s: %s", rel, exc)
        return _Outcome(rel, missing=SKIP_UNREADABLE)
    data = snapshot.data
    spec = language_for_path(rel, data)  # a .h of C++ (header-only libraries) is C++
    digest = hashlib.blake2b(data, digest_size=HASH_DIGEST_BYTES).hexdigest()
    language = spec.name if spec else ""
    record = FileRecord(rel, language, snapshot.size, snapshot.mtime_ns, digest, STATUS_OK)
    if digest == old_hash:
        return _Outcome(rel, record=record)
    too_big = len(data) > limits.max_file_bytes
    reason = SKIP_OVERSIZED if too_big else content_skip_reason(data, limits.max_line_length)
    if reason is None and spec is None:  # the scanner only passes claimed names; a registry change could not
        reason = SKIP_UNSUPPORTED
    if reason is not None:
        log.info("skipping %s: %s", rel, reason)
        return _Outcome(rel, content=_skipped(record, reason))
    assert spec is not None  # a file without a language was skipped just above
    try:
        parsed = parse_file(data, spec)
    except Exception:  # a parser bug on one file must cost that file only
        log.exception("parsing %s failed", rel)
        return _Outcome(rel, content=_skipped(record, SKIP_PARSE_FAILED))
    return _Outcome(rel, content=_content(record, parsed, data))


def _skipped(record: FileRecord, reason: str) -> FileContent:
    return FileContent(replace(record, status=STATUS_SKIPPED, reason=reason), [], [], [], {}, [])


def _content(record: FileRecord, parsed: ParsedFile, data: bytes) -> FileContent:
    rec = replace(record, status=STATUS_ERRORS if parsed.has_errors else STATUS_OK)
    signatures = {c.symbol: c.signature for c in parsed.chunks if c.part == 0}
    lines: list[bytes] | None = None
    defs = []
    for name, category, line, symbol in parsed.defs:
        signature = signatures.get(symbol)
        if signature is None:  # a definition without its own chunk: show its line
            lines = lines if lines is not None else data.splitlines()
            raw = lines[line - 1] if 0 < line <= len(lines) else b""
            signature = raw.decode("utf-8", "replace").strip()[:SIGNATURE_MAX_CHARS]
        defs.append((name, category, line, symbol, signature))
    refs = Counter(ref[1] for ref in parsed.refs)  # first-seen order, as the rows go in
    # only compound names (snake_case, camelCase) give chunk words, so only theirs need a line
    compound = {name for name in (*refs, *(d[0] for d in parsed.defs)) if identifier_words(name)}
    names_by_line = sorted(
        [(line, name) for name, _, line, _ in parsed.defs if name in compound]
        + [(parsed.ref_line(ref), ref[1]) for ref in parsed.refs if ref[1] in compound]
    )
    words = file_chunk_words(names_by_line, [(c.start_line, c.end_line) for c in parsed.chunks])
    return FileContent(rec, parsed.chunks, words, defs, dict(refs), parsed.imports)
