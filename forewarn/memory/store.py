"""The memory database (user data): memories, their history, full-text index and vectors.

This module owns every line of memory SQL. ``memory.db`` holds:

- ``memories`` — one row per memory, with its anchor inline (file, symbol path, line span, content
  hash of the anchored code when recorded). ``file`` NULL means workspace-wide; ``symbol`` NULL
  means file-wide. ``num`` is the integer key shared with the FTS index and the hnsw labels.
- ``memory_events`` — the history of each memory (created, merged, superseded, stale, …); event
  ids are unique so imports merge histories without duplicating them.
- ``memory_fts`` — an external-content FTS5 index over text, tags, file, symbol and the split forms
  of compound identifiers, kept in sync by triggers inside the writing transaction.
- ``memory_vectors`` — embeddings per (memory, model), the source of truth for the hnsw index.
- ``memory_shown_daily`` — how often each memory was shown per UTC day (m012); the health report's reads of
  it and of the rest live in ``store_health.py``, a part of this class.

Nothing is ever deleted: superseded and archived memories stay as inspectable history. A database
that cannot be read raises :class:`MemoryDatabaseCorruptError` naming the file; it is never replaced
here (moving it aside and recovering is the reliability layer's job, through that exception).
"""

from __future__ import annotations

import json
import logging
import math
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from forewarn.memory.errors import (
    AmbiguousMemoryIdError,
    MemoryDatabaseCorruptError,
    MemoryNotFoundError,
)
from forewarn.memory.migrations import MIGRATIONS
from forewarn.memory.records import (
    Anchor,
    AnchoredRef,
    Memory,
    MemoryEvent,
    MemoryFilter,
    Relation,
    SearchRow,
    StoreStats,
)
from forewarn.memory.store_health import HealthReads
from forewarn.memory.text import identifier_terms, normalise_id_prefix
from forewarn.memory.vocabulary import (
    ANCHORED_STATUSES,
    CURRENT_STATUSES,
    ENDED_STATUSES,
    MemorySource,
    MemoryStatus,
    MemoryType,
    Visibility,
)
from forewarn.sqlite import (
    CACHE_KIB,
    GuardedConnection,
    connect_guarded,
    is_corruption,
    migrate,
    transaction,
)

log = logging.getLogger(__name__)

# plain-string views of the vocabulary (forewarn.memory.vocabulary), for choices and messages
MEMORY_TYPES: tuple[str, ...] = tuple(t.value for t in MemoryType)
STATUSES: tuple[str, ...] = tuple(s.value for s in MemoryStatus)
SOURCES: tuple[str, ...] = tuple(s.value for s in MemorySource)
# a neighbour's memories can only add context: at most this many per file (newest first, after the symbol
# filter) are ranked on open; the workspace's PROACTIVE_LIMIT are shown in all, and a hot file's 500th
# memory cannot outrank its newest
NEIGHBOUR_ROWS_PER_FILE = 40
# file opens read the same neighbour files again and again (a project's core modules): their light rows are
# kept until the database next changes. A file with more memories than this is read through the indexes
# every time (its rows would crowd out the rest); the cache holds at most FILE_REFS_CACHE_ROWS rows in all
FILE_REFS_CACHE_FILE_MAX = 2_000
FILE_REFS_CACHE_ROWS = 20_000  # about 12 MB
AMBIGUOUS_IDS_SHOWN = 3  # ids listed when a prefix matches several: enough to see how much more to type
SQL_VARIABLE_CHUNK = 500  # stays far below SQLite's bound-parameter limit
PURGED_REASON = "purged"  # status_reason of a memory whose text was removed for good (see MemoryStore.purge)

FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"  # must match memory_fts in M001
COMMON_TERM_FRACTION = 0.1  # a term in over 10% of memories has a BM25 weight near zero (recall_bench: no loss)
MIN_KEPT_TERMS = 2  # however common, the two rarest terms are always searched
MATCH_ROW_BUDGET = 3000  # rows FTS5 may score per query: ~5 ms of BM25 on 2 cores (search budget: 50 ms)
DOC_COUNT_TTL_S = 30.0  # counts only steer pruning: refreshing them twice a minute is plenty
STEM_CACHE_SIZE = 50_000  # distinct query words remembered (a few MB at most); cleared when full

# BM25 column weights, in FTS column order (text, tags, file, symbol, terms)
BM25_TEXT_WEIGHT = 1.0  # the memory itself
BM25_TAGS_WEIGHT = 2.0  # a tag is a deliberate label: a match means more than a word in passing
BM25_FILE_WEIGHT = 0.5  # path words are broad ("src", "utils"): weak evidence
BM25_SYMBOL_WEIGHT = 2.0  # naming the anchored symbol is strong evidence
BM25_TERMS_WEIGHT = 0.75  # split identifiers repeat words already in text/symbol: count them less
BM25_MIN_IDF = 1e-6  # FTS5 floors a term's IDF here rather than letting a very common word count against a row

_COLUMNS = """num, id, type, text, file, symbol, start_line, end_line, content_hash, source, confidence,
  created_at, updated_at, status, status_reason, last_accessed_at, access_count, surfaced_count, ended_at,
  supersedes, superseded_by, session_id, tags, provenance, visibility, recorded_by"""
_M_COLUMNS = ", ".join("m." + c.strip() for c in _COLUMNS.split(","))


def _row_to_memory(row: sqlite3.Row | tuple[Any, ...]) -> Memory:
    (num, id_, type_, text, file, symbol, start, end, chash, source, conf, created, updated, status, reason,
     accessed, access_count, surfaced, ended, supersedes, superseded_by, session_id, tags,
     prov, visibility, recorded_by) = tuple(row)  # fmt: skip
    anchor = Anchor(file, symbol, start, end, chash) if file is not None else None
    return Memory(
        id=id_, type=MemoryType(type_), text=text, anchor=anchor, source=source, confidence=conf, created_at=created,
        updated_at=updated, status=MemoryStatus(status), status_reason=reason, last_accessed_at=accessed,
        access_count=access_count, surfaced_count=surfaced, ended_at=ended, supersedes=supersedes,
        superseded_by=superseded_by, session_id=session_id, tags=tuple(json.loads(tags)), num=num,
        provenance=_provenance(prov), visibility=Visibility(visibility), recorded_by=recorded_by,
    )  # fmt: skip


def _provenance(raw: str | None) -> dict[str, Any] | None:
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:  # written by us, so only a damaged row gets here: show the memory without it
        log.warning("memory provenance is not JSON; ignored")
        return None
    return value if isinstance(value, dict) else None


def _provenance_json(memory: Memory) -> str | None:
    return json.dumps(memory.provenance, ensure_ascii=False) if memory.provenance is not None else None


def _chunks(items: Sequence[Any], size: int = SQL_VARIABLE_CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _placeholders(n: int) -> str:
    return ", ".join("?" * n)


class MemoryStore(HealthReads):
    """The memory database. Thread-safe: one connection, every call serialized by a re-entrant lock.

    Compound writes run in one transaction via :meth:`batch`; single calls open their own.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._depth = 0
        self._stem_ready = False
        self._candidate_ready = False
        self._stem_cache: dict[str, list[str]] = {}
        self._df_cache: dict[str, int] = {}
        self._df_at = -DOC_COUNT_TTL_S
        self._doc_count = 0
        self._doc_count_at = -DOC_COUNT_TTL_S
        # recent_refs' cache: rows by file (None: too many to keep), valid while _refs_key() is unchanged
        self._refs: OrderedDict[str, tuple[AnchoredRef, ...] | None] = OrderedDict()
        self._refs_rows = 0
        self._refs_at: tuple[int, int] | None = None
        self._benign_changes = 0  # rows changed by writes no cached row shows (surfaced counts)
        # checked on open, then every statement stops at the first sign of damage: see GuardedConnection
        self._guard: GuardedConnection = connect_guarded(self.path, self._damaged)
        self.conn: sqlite3.Connection = self._guard
        try:
            self.conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
            migrate(self.conn, MIGRATIONS, what=f"memory database {self.path}")
            self.conn.execute("SELECT count(*) FROM memories").fetchone()
        except sqlite3.DatabaseError as exc:
            if is_corruption(exc):
                self._guard.refuse(exc)
            self.conn.close()
            raise
        except BaseException:
            self.conn.close()
            raise

    def _damaged(self, cause: BaseException) -> MemoryDatabaseCorruptError:
        return MemoryDatabaseCorruptError(self.path, cause)

    @property
    def damage(self) -> MemoryDatabaseCorruptError | None:
        """Why this store refuses every call (the database is damaged), or None while it is sound."""
        damage = self._guard.damage
        return damage if isinstance(damage, MemoryDatabaseCorruptError) else None

    def close(self) -> None:
        with self._lock:
            self.conn.close()

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: moves only when another connection (the CLI, a second editor) commits."""
        with self._lock:
            return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    # ------------------------------------------------------------ transactions

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group writes into one transaction (re-entrant: inner batches join the outer one)."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._depth = 1
            try:
                with transaction(self.conn):
                    yield
            finally:
                self._depth = 0

    # ------------------------------------------------------------ reads

    def get(self, memory_id: str) -> Memory | None:
        with self._lock:
            row = self.conn.execute(f"""SELECT {_COLUMNS} FROM memories WHERE id = ?""", (memory_id,)).fetchone()
        return _row_to_memory(row) if row else None

    def resolve(self, id_or_prefix: str) -> Memory:
        """A memory by full id or unique id prefix (what people type); clear errors otherwise."""
        prefix = normalise_id_prefix(id_or_prefix)
        if prefix is None:
            raise MemoryNotFoundError(f"'{id_or_prefix}' is not a memory id (give at least 4 of its characters)")
        with self._lock:
            rows = self.conn.execute(
                f"""SELECT {_COLUMNS} FROM memories WHERE id >= ? AND id < ? ORDER BY id LIMIT ?""",
                (prefix, prefix + "~", AMBIGUOUS_IDS_SHOWN + 1),
            ).fetchall()
        if not rows:
            raise MemoryNotFoundError(f"no memory with id '{id_or_prefix}'")
        if len(rows) > 1 and rows[0]["id"] != prefix:
            shown = ", ".join(str(r["id"]) for r in rows[:AMBIGUOUS_IDS_SHOWN])
            more = ", …" if len(rows) > AMBIGUOUS_IDS_SHOWN else ""
            raise AmbiguousMemoryIdError(
                f"'{id_or_prefix}' matches several memories ({shown}{more}); give more of the id to pick one"
            )
        return _row_to_memory(rows[0])

    def get_many(self, ids: Sequence[str]) -> dict[str, Memory]:
        return {m.id: m for m in self._where_in("id", ids)}

    def by_nums(self, nums: Sequence[int]) -> dict[int, Memory]:
        return {m.num: m for m in self._where_in("num", nums)}

    def _where_in(self, column: str, values: Sequence[Any]) -> list[Memory]:
        """Memories whose ``column`` (a fixed name, never user input) is one of ``values``, in bounded batches."""
        out: list[Memory] = []
        with self._lock:
            for part in _chunks(list(values)):
                rows = self.conn.execute(
                    f"""SELECT {_COLUMNS} FROM memories WHERE {column} IN ({_placeholders(len(part))})""", tuple(part)
                )
                out.extend(_row_to_memory(row) for row in rows)
        return out

    @staticmethod
    def _filter_sql(flt: MemoryFilter, alias: str = "") -> tuple[list[str], list[Any]]:
        p = alias + "." if alias else ""
        where_bits: list[str] = []
        where_args: list[Any] = []
        if flt.types:
            where_bits.append(f"{p}type IN ({_placeholders(len(flt.types))})")
            where_args += list(flt.types)
        if flt.file:
            folder = flt.file.rstrip("/") + "/"
            where_bits.append(f"({p}file = ? OR ({p}file >= ? AND {p}file < ?))")
            where_args += [flt.file.rstrip("/"), folder, folder[:-1] + "0"]  # "0" sorts right after "/"
        if flt.since:
            where_bits.append(f"{p}created_at >= ?")
            where_args.append(flt.since)
        if flt.as_of:
            where_bits.append(f"{p}created_at <= ?")
            where_args.append(flt.as_of)
            # current as of then: not yet superseded/archived at that time counts as current
            if flt.statuses:
                where_bits.append(
                    f"({p}status IN ({_placeholders(len(flt.statuses))})"
                    f" OR ({p}status IN ({_placeholders(len(ENDED_STATUSES))}) AND {p}ended_at > ?))"
                )
                where_args += [*flt.statuses, *ENDED_STATUSES, flt.as_of]
        elif flt.statuses:
            where_bits.append(f"{p}status IN ({_placeholders(len(flt.statuses))})")
            where_args += list(flt.statuses)
        for tag in flt.tags:
            where_bits.append(f"EXISTS (SELECT 1 FROM json_each({p}tags) WHERE json_each.value = ?)")
            where_args.append(tag)
        return where_bits, where_args

    def list_memories(self, flt: MemoryFilter = MemoryFilter(), *, limit: int = 50, offset: int = 0) -> list[Memory]:
        where_bits, where_args = self._filter_sql(flt)
        where = ("WHERE " + " AND ".join(where_bits)) if where_bits else ""
        with self._lock:
            rows = self.conn.execute(
                f"""SELECT {_COLUMNS} FROM memories {where} ORDER BY created_at DESC, num DESC LIMIT ? OFFSET ?""",
                (*where_args, limit, offset),
            ).fetchall()
        return [_row_to_memory(r) for r in rows]

    def count(self, flt: MemoryFilter = MemoryFilter(statuses=())) -> int:
        where_bits, where_args = self._filter_sql(flt)
        where = ("WHERE " + " AND ".join(where_bits)) if where_bits else ""
        with self._lock:
            return int(self.conn.execute(f"""SELECT count(*) FROM memories {where}""", where_args).fetchone()[0])

    def _ensure_stem_tables(self) -> None:
        if self._stem_ready:
            return
        # a private, in-memory FTS table with the same tokenizer: the exact stems FTS5 indexes, without
        # reimplementing SQLite's Porter stemmer in Python
        self.conn.execute(
            f"""CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_stems USING fts5 (t, tokenize = '{FTS_TOKENIZER}')"""
        )
        self.conn.execute(
            """CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_stems_v USING fts5vocab (temp, query_stems, instance)"""
        )
        self.conn.execute(
            """CREATE VIRTUAL TABLE IF NOT EXISTS temp.memory_fts_v USING fts5vocab (main, memory_fts, row)"""
        )
        self._stem_ready = True

    def selective_terms(self, terms: Sequence[str]) -> list[str]:
        """The query terms worth searching: rarest first, within a budget of rows for FTS5 to score.

        BM25 gives a term found in many memories almost no weight, yet FTS5 scores every row each term
        matches: on 100k memories "return" or "model" costs tens of milliseconds and barely moves the
        ranking. Terms in more than ``COMMON_TERM_FRACTION`` of memories are left out, then the rarest are
        kept while their summed document frequency stays within ``MATCH_ROW_BUDGET`` (never fewer than
        ``MIN_KEPT_TERMS``). On small stores nothing is left out; large ones trade common words for speed.
        """
        if len(terms) < 2:
            return list(terms)
        with self._lock:
            total = self._fts_doc_count()
            if total <= MATCH_ROW_BUDGET:  # every term together scores no more rows than the budget allows
                return list(terms)
            stems = self._stems(terms)
            every = sorted({st for group in stems for st in group})
            df = self._doc_freqs(every)
        # a term's frequency is at most that of its rarest token (a phrase needs all of them)
        freq = [min((df.get(st, 0) for st in stems[i]), default=0) for i in range(len(terms))]
        cutoff = COMMON_TERM_FRACTION * total
        kept: set[int] = set()
        spent = 0
        for i in sorted(range(len(terms)), key=lambda i: freq[i]):
            if len(kept) >= MIN_KEPT_TERMS and (freq[i] > cutoff or spent + freq[i] > MATCH_ROW_BUDGET):
                break
            kept.add(i)
            spent += freq[i]
        return [terms[i] for i in sorted(kept)]

    def match_floor(self, terms: Sequence[str]) -> int | None:
        """The lowest memory num worth scoring for ``terms`` (as ``selective_terms`` kept them), or None.

        When even the kept terms match more than ``MATCH_ROW_BUDGET`` rows (a query of words most memories
        hold, such as "test self"), FTS5 would score every one of them: tens of thousands at 100k memories.
        Such a query says little, so it is ranked among the newest matches only — FTS5 seeks a rowid
        bound in its doclists instead of reading them whole — in a window sized to hold about the budget.
        """
        if not terms:
            return None
        with self._lock:
            stems = self._stems(terms)
            df = self._doc_freqs(sorted({st for group in stems for st in group}))
            total = self._fts_doc_count()
            spent = sum(min((df.get(st, 0) for st in group), default=0) for group in stems)
            if spent <= MATCH_ROW_BUDGET or total <= 0:
                return None
            top = self.conn.execute("""SELECT max(num) FROM memories""").fetchone()[0]
        if top is None:
            return None
        window = max(MATCH_ROW_BUDGET, int(total * MATCH_ROW_BUDGET / spent))
        return max(0, int(top) - window)

    def term_idfs(self, terms: Sequence[str]) -> list[float]:
        """FTS5's BM25 weight (IDF) of each term, a phrase counting as its rarest token: the most a term can add
        to a memory's BM25 score, so a score can be judged on an absolute scale (``retrieval.lexical_coverage``).
        A word no memory holds weighs the most: a query made of such words can match little."""
        if not terms:
            return []
        with self._lock:
            stems = self._stems(terms)
            df = self._doc_freqs(sorted({st for group in stems for st in group}))
            total = self._fts_doc_count()
        out: list[float] = []
        for group in stems:
            hits = min((df.get(st, 0) for st in group), default=total)  # no token at all: matches nothing
            # FTS5's own formula (fts5_aux.c), floored as it does: a term in over half the rows counts next to nothing
            out.append(max(BM25_MIN_IDF, math.log((total - hits + 0.5) / (hits + 0.5))))
        return out

    def matched_terms(self, matches: Sequence[str], nums: Sequence[int]) -> dict[int, set[int]]:
        """Which of ``matches`` (FTS5 expressions, one per query term) each of these memories holds: the indexes
        of the terms found, by memory num (memories holding none are left out).

        Matched against a private copy of just these rows (a temporary FTS5 table with the same tokenizer and
        columns): asking the main index ``MATCH ? AND rowid IN (…)`` reads a common term's whole doclist,
        hundreds of milliseconds at 100k memories, where a few hundred candidates take a few milliseconds.
        """
        out: dict[int, set[int]] = {}
        if not matches or not nums:
            return out
        with self._lock:
            self._ensure_candidate_table()
            self.conn.execute("""DELETE FROM temp.candidate_fts""")
            for part in _chunks(list(dict.fromkeys(nums)), SQL_VARIABLE_CHUNK):
                self.conn.execute(
                    f"""INSERT INTO temp.candidate_fts (rowid, text, tags, file, symbol, terms)
                        SELECT num, text, tags, file, symbol, terms FROM memories
                        WHERE num IN ({_placeholders(len(part))})""",
                    part,
                )
            for i, match in enumerate(matches):
                if not match:
                    continue
                for (num,) in self.conn.execute(
                    """SELECT rowid FROM temp.candidate_fts WHERE candidate_fts MATCH ?""", (match,)
                ):
                    out.setdefault(int(num), set()).add(i)
        return out

    def _ensure_candidate_table(self) -> None:
        """``temp.candidate_fts``: memory_fts's columns and tokenizer, for the few rows a search is judging."""
        if self._candidate_ready:
            return
        self.conn.execute(
            f"""CREATE VIRTUAL TABLE IF NOT EXISTS temp.candidate_fts USING fts5 (
                  text, tags, file, symbol, terms, tokenize = '{FTS_TOKENIZER}')"""
        )
        self._candidate_ready = True

    def _stems(self, terms: Sequence[str]) -> list[list[str]]:
        """The FTS tokens of each term (cached: a word always stems the same way). Caller holds the lock."""
        todo = [t for t in dict.fromkeys(terms) if t not in self._stem_cache]
        if todo:
            self._ensure_stem_tables()
            self.conn.execute("""DELETE FROM temp.query_stems""")
            self.conn.executemany(
                """INSERT INTO temp.query_stems (rowid, t) VALUES (?, ?)""", [(i + 1, t) for i, t in enumerate(todo)]
            )
            found: dict[int, list[str]] = {}
            for term, doc in self.conn.execute("""SELECT term, doc FROM temp.query_stems_v ORDER BY doc, offset"""):
                found.setdefault(int(doc) - 1, []).append(str(term))
            if len(self._stem_cache) > STEM_CACHE_SIZE:
                self._stem_cache.clear()
            for i, t in enumerate(todo):
                self._stem_cache[t] = found.get(i, [])
        return [self._stem_cache[t] for t in terms]

    def _doc_freqs(self, stems: Sequence[str]) -> dict[str, int]:
        """Memories holding each stem; cached for ``DOC_COUNT_TTL_S`` (only pruning reads it). Caller holds the lock."""
        now = time.monotonic()
        if now - self._df_at > DOC_COUNT_TTL_S or len(self._df_cache) > STEM_CACHE_SIZE:
            self._df_cache.clear()
            self._df_at = now
        todo = [st for st in stems if st not in self._df_cache]
        if todo:
            self._ensure_stem_tables()
            rows = dict(
                self.conn.execute(
                    f"""SELECT term, doc FROM temp.memory_fts_v WHERE term IN ({_placeholders(len(todo))})""", todo
                ).fetchall()
            )
            for st in todo:
                self._df_cache[st] = int(rows.get(st, 0))
        return {st: self._df_cache[st] for st in stems}

    def _fts_doc_count(self) -> int:
        now = time.monotonic()
        if now - self._doc_count_at > DOC_COUNT_TTL_S:
            self._doc_count = int(self.conn.execute("""SELECT count(*) FROM memories""").fetchone()[0])
            self._doc_count_at = now
        return self._doc_count

    def fts_ranked(self, match: str, limit: int, floor: int | None = None) -> list[tuple[int, float]]:
        """(num, bm25) of the best lexical matches, no filter (callers check statuses on these few rows);
        ``floor``: only memories numbered above it (``match_floor``)."""
        weights = (BM25_TEXT_WEIGHT, BM25_TAGS_WEIGHT, BM25_FILE_WEIGHT, BM25_SYMBOL_WEIGHT, BM25_TERMS_WEIGHT)
        with self._lock:
            rows = self.conn.execute(
                """SELECT rowid, bm25(memory_fts, ?, ?, ?, ?, ?) AS score FROM memory_fts
                   WHERE memory_fts MATCH ? AND rowid > ? ORDER BY score LIMIT ?""",
                (*weights, match, -1 if floor is None else floor, limit),
            ).fetchall()
        return [(int(r[0]), float(r[1])) for r in rows]

    def fts_candidates(
        self, match: str, flt: MemoryFilter, limit: int, floor: int | None = None
    ) -> list[tuple[int, float]]:
        """(num, bm25) of the best lexical matches passing ``flt`` (joined in SQL); lower bm25 is better."""
        where_bits, where_args = self._filter_sql(flt, "m")
        if not where_bits:
            return self.fts_ranked(match, limit, floor)
        weights = (BM25_TEXT_WEIGHT, BM25_TAGS_WEIGHT, BM25_FILE_WEIGHT, BM25_SYMBOL_WEIGHT, BM25_TERMS_WEIGHT)
        with self._lock:
            rows = self.conn.execute(
                f"""SELECT f.rowid, bm25(memory_fts, ?, ?, ?, ?, ?) AS score
                    FROM memory_fts AS f JOIN memories AS m ON m.num = f.rowid
                    WHERE memory_fts MATCH ? AND f.rowid > ? AND {" AND ".join(where_bits)} ORDER BY score LIMIT ?""",
                (*weights, match, -1 if floor is None else floor, *where_args, limit),
            ).fetchall()
        return [(int(r[0]), float(r[1])) for r in rows]

    def anchored_to_files(self, files: Sequence[str], statuses: Sequence[str] = ANCHORED_STATUSES) -> list[Memory]:
        if not files:
            return []
        out: list[Memory] = []
        with self._lock:
            for part in _chunks(list(files)):
                out += [
                    _row_to_memory(r)
                    for r in self.conn.execute(
                        f"""SELECT {_COLUMNS} FROM memories WHERE file IN ({_placeholders(len(part))})
                              AND status IN ({_placeholders(len(statuses))})""",
                        (*part, *statuses),
                    )
                ]
        return out

    def anchored_refs(
        self,
        files: Sequence[str],
        statuses: Sequence[str] = ANCHORED_STATUSES,
        *,
        keep: Callable[[str, str | None], bool] | None = None,
    ) -> list[AnchoredRef]:
        """Light rows of the memories anchored to ``files`` (the file-open path: no text, no tags).

        ``keep(file, symbol)`` drops rows before they become objects (most neighbour rows are dropped).
        """
        if not files:
            return []
        out: list[AnchoredRef] = []
        with self._lock:
            for part in _chunks(list(files)):
                cur = self.conn.execute(
                    f"""SELECT num, id, type, file, symbol, source, confidence, status, created_at,
                          last_accessed_at, access_count
                        FROM memories WHERE file IN ({_placeholders(len(part))})
                          AND status IN ({_placeholders(len(statuses))})""",
                    (*part, *statuses),
                )
                cur.row_factory = None  # plain tuples: this loop runs over hundreds of rows per file open
                out += [AnchoredRef._make(r) for r in cur.fetchall() if keep is None or keep(r[3], r[4])]
        return out

    def recent_refs(self, files: Sequence[str]) -> dict[str, tuple[AnchoredRef, ...] | None]:
        """Each file's light rows in an anchored status (ANCHORED_STATUSES), newest first, as
        ``neighbour_refs`` orders them; None for a file with more than ``FILE_REFS_CACHE_FILE_MAX``
        (read it through ``symbols_in``/``neighbour_refs``).

        Cached until the database changes: a row changed through this connection (``total_changes``,
        less the surfaced counts no cached row shows) or a commit by any other (``PRAGMA data_version``).
        """
        out: dict[str, tuple[AnchoredRef, ...] | None] = {}
        with self._lock:
            version = self.data_version()  # first: a damaged database refuses here, before the closed handle is read
            key = (self.conn.total_changes - self._benign_changes, version)
            if key != self._refs_at:
                self._refs.clear()
                self._refs_rows = 0
                self._refs_at = key
            placeholders = _placeholders(len(ANCHORED_STATUSES))
            for file in files:
                if file in self._refs:
                    self._refs.move_to_end(file)
                    out[file] = self._refs[file]
                    continue
                cur = self.conn.execute(
                    f"""SELECT num, id, type, file, symbol, source, confidence, status, created_at,
                          last_accessed_at, access_count
                        FROM memories INDEXED BY memories_file_recent
                        WHERE file = ? AND status IN ({placeholders})
                        ORDER BY created_at DESC LIMIT ?""",
                    (file, *ANCHORED_STATUSES, FILE_REFS_CACHE_FILE_MAX + 1),
                )
                cur.row_factory = None
                rows = cur.fetchall()
                refs = None if len(rows) > FILE_REFS_CACHE_FILE_MAX else tuple(map(AnchoredRef._make, rows))
                out[file] = self._refs[file] = refs
                self._refs_rows += len(refs or ())
                while self._refs_rows > FILE_REFS_CACHE_ROWS and len(self._refs) > 1:
                    _, evicted = self._refs.popitem(last=False)
                    self._refs_rows -= len(evicted or ())
        return out

    def symbols_in(
        self, files: Sequence[str], statuses: Sequence[str] = ANCHORED_STATUSES
    ) -> dict[str, list[str | None]]:
        """The distinct anchor symbols (None: file-wide) of each file's memories, read from an index only."""
        out: dict[str, list[str | None]] = {}
        if not files:
            return out
        with self._lock:
            for part in _chunks(list(files)):
                cur = self.conn.execute(
                    f"""SELECT DISTINCT file, symbol FROM memories INDEXED BY memories_anchor_cover
                        WHERE file IN ({_placeholders(len(part))}) AND status IN ({_placeholders(len(statuses))})""",
                    (*part, *statuses),
                )
                cur.row_factory = None
                for file, symbol in cur:
                    out.setdefault(file, []).append(symbol)
        return out

    def neighbour_refs(
        self,
        symbols_by_file: dict[str, list[str | None]],
        statuses: Sequence[str] = ANCHORED_STATUSES,
        *,
        per_file: int = NEIGHBOUR_ROWS_PER_FILE,
    ) -> list[AnchoredRef]:
        """Light rows anchored to these symbols (None: file-wide) of each file, at most ``per_file`` newest each."""
        out: list[AnchoredRef] = []
        with self._lock:
            for file, symbols in symbols_by_file.items():
                named = [s for s in symbols if s is not None][:SQL_VARIABLE_CHUNK]
                wide = len(named) < len(symbols)
                cur = self.conn.execute(
                    f"""SELECT num, id, type, file, symbol, source, confidence, status, created_at,
                          last_accessed_at, access_count
                        FROM memories INDEXED BY memories_file_recent
                        WHERE file = ? AND status IN ({_placeholders(len(statuses))})
                          AND (symbol IN ({_placeholders(len(named))}) OR (? AND symbol IS NULL))
                        ORDER BY created_at DESC LIMIT ?""",
                    (file, *statuses, *named, wide, per_file),
                )
                cur.row_factory = None
                out += map(AnchoredRef._make, cur.fetchall())
        return out

    def refs_on_code(
        self, file: str, symbols: Sequence[str], containers: Sequence[str], statuses: Sequence[str], *, limit: int
    ) -> list[AnchoredRef]:
        """Light rows of ``file``'s memories on one of ``symbols``, on a definition inside one of ``containers``
        (``Router`` holds ``Router.handle``), or file-wide: the newest ``limit``, read in date order from an index
        (a file with thousands of memories costs no sort and no row past the limit)."""
        named = list(dict.fromkeys(symbols))[: SQL_VARIABLE_CHUNK // 2]
        outer = list(dict.fromkeys(containers))[: SQL_VARIABLE_CHUNK // 4]
        inside = " OR ".join("substr(symbol, 1, ?) = ?" for _ in outer) or "0"
        with self._lock:
            cur = self.conn.execute(
                f"""SELECT num, id, type, file, symbol, source, confidence, status, created_at,
                      last_accessed_at, access_count
                    FROM memories INDEXED BY memories_file_recent
                    WHERE file = ? AND status IN ({_placeholders(len(statuses))})
                      AND (symbol IS NULL OR symbol IN ({_placeholders(len(named))}) OR {inside})
                    ORDER BY created_at DESC LIMIT ?""",
                (file, *statuses, *named, *(x for n in outer for x in (len(n) + 1, n + ".")), limit),
            )
            cur.row_factory = None
            return list(map(AnchoredRef._make, cur.fetchall()))

    def workspace_wide(self, statuses: Sequence[str] = CURRENT_STATUSES, *, limit: int = 1000) -> list[Memory]:
        with self._lock:
            rows = self.conn.execute(
                f"""SELECT {_COLUMNS} FROM memories WHERE file IS NULL AND status IN ({_placeholders(len(statuses))})
                    ORDER BY created_at DESC LIMIT ?""",
                (*statuses, limit),
            ).fetchall()
        return [_row_to_memory(r) for r in rows]

    def anchored_to_symbol(self, file: str, symbol: str, statuses: Sequence[str] = ANCHORED_STATUSES) -> list[Memory]:
        with self._lock:
            rows = self.conn.execute(
                f"""SELECT {_COLUMNS} FROM memories
                    WHERE file = ? AND symbol = ? AND status IN ({_placeholders(len(statuses))})
                    ORDER BY created_at DESC""",
                (file, symbol, *statuses),
            ).fetchall()
        return [_row_to_memory(r) for r in rows]

    def in_session(self, session_id: str, *, limit: int = 50) -> list[Memory]:
        with self._lock:
            rows = self.conn.execute(
                f"""SELECT {_COLUMNS} FROM memories WHERE session_id = ? ORDER BY created_at LIMIT ?""",
                (session_id, limit),
            ).fetchall()
        return [_row_to_memory(r) for r in rows]

    def events(self, memory_id: str) -> list[MemoryEvent]:
        with self._lock:
            rows = self.conn.execute(
                """SELECT id, memory_id, at, kind, detail FROM memory_events WHERE memory_id = ? ORDER BY at, id""",
                (memory_id,),
            ).fetchall()
        return [MemoryEvent(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    def iter_all(self, batch_size: int = 1000) -> Iterator[Memory]:
        """Every memory in creation order (export)."""
        last = 0
        while True:
            with self._lock:
                rows = self.conn.execute(
                    f"""SELECT {_COLUMNS} FROM memories WHERE num > ? ORDER BY num LIMIT ?""", (last, batch_size)
                ).fetchall()
            if not rows:
                return
            for r in rows:
                yield _row_to_memory(r)
            last = rows[-1][0]

    def stats(self, *, top: int = 5) -> StoreStats:
        with self._lock:
            by_type = dict(
                self.conn.execute(
                    f"""SELECT type, count(*) FROM memories WHERE status IN ({_placeholders(len(CURRENT_STATUSES))})
                        GROUP BY type ORDER BY count(*) DESC""",
                    CURRENT_STATUSES,
                ).fetchall()
            )
            by_status = dict(self.conn.execute("""SELECT status, count(*) FROM memories GROUP BY status""").fetchall())
            surfaced = [
                _row_to_memory(r)
                for r in self.conn.execute(
                    f"""SELECT {_COLUMNS} FROM memories WHERE surfaced_count > 0
                        ORDER BY surfaced_count DESC, num LIMIT ?""",
                    (top,),
                )
            ]
            files = {
                r[0]
                for r in self.conn.execute(
                    f"""SELECT DISTINCT file FROM memories
                        WHERE file IS NOT NULL AND status IN ({_placeholders(len(CURRENT_STATUSES))})""",
                    CURRENT_STATUSES,
                )
            }
        return StoreStats(sum(by_status.values()), by_type, by_status, surfaced, files)

    # ------------------------------------------------------------ writes

    def insert(self, memory: Memory, events: Iterable[MemoryEvent] = ()) -> Memory:
        """Insert a new memory with its events; returns it with ``num`` set."""
        return self.insert_many([(memory, list(events))])[0]

    def insert_many(self, items: Sequence[tuple[Memory, Sequence[MemoryEvent]]]) -> list[Memory]:
        out: list[Memory] = []
        with self.batch():
            for memory, events in items:
                a = memory.anchor
                cur = self.conn.execute(
                    """INSERT INTO memories (id, type, text, file, symbol, start_line, end_line, content_hash, source,
                         confidence, created_at, updated_at, status, status_reason, last_accessed_at, access_count,
                         surfaced_count, ended_at, supersedes, superseded_by, session_id, tags, terms, provenance,
                         visibility, recorded_by)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                    (
                        memory.id, memory.type, memory.text, a.file if a else None, a.symbol if a else None,
                        a.start_line if a else None, a.end_line if a else None, a.content_hash if a else None,
                        memory.source, memory.confidence, memory.created_at, memory.updated_at, memory.status,
                        memory.status_reason, memory.last_accessed_at, memory.access_count, memory.surfaced_count,
                        memory.ended_at, memory.supersedes, memory.superseded_by, memory.session_id,
                        json.dumps(list(memory.tags)),
                        identifier_terms(memory.text, a.file if a else None, a.symbol if a else None, *memory.tags),
                        _provenance_json(memory), memory.visibility, memory.recorded_by,
                    ),
                )  # fmt: skip
                self._add_events(events)
                out.append(replace(memory, num=int(cur.lastrowid or 0)))
        return out

    def replace_memory(self, memory: Memory) -> None:
        """Overwrite every field of an existing memory (by id) — used by import when the incoming copy is newer.

        The caller keeps the replaced version as history (an event holding its fields, forewarn.memory.transfer).
        ``visibility`` is never changed here: an import does not make a private memory team or the reverse.
        """
        a = memory.anchor
        with self.batch():
            self.conn.execute(
                """UPDATE memories SET type = ?, text = ?, file = ?, symbol = ?, start_line = ?, end_line = ?,
                     content_hash = ?, source = ?, confidence = ?, created_at = ?, updated_at = ?, status = ?,
                     status_reason = ?, last_accessed_at = ?, access_count = ?, surfaced_count = ?, ended_at = ?,
                     supersedes = ?, superseded_by = ?, session_id = ?, tags = ?, terms = ?,
                     provenance = coalesce(?, provenance), recorded_by = coalesce(?, recorded_by)
                   WHERE id = ?""",
                (
                    memory.type, memory.text, a.file if a else None, a.symbol if a else None,
                    a.start_line if a else None, a.end_line if a else None, a.content_hash if a else None,
                    memory.source, memory.confidence, memory.created_at, memory.updated_at, memory.status,
                    memory.status_reason, memory.last_accessed_at, memory.access_count, memory.surfaced_count,
                    memory.ended_at, memory.supersedes, memory.superseded_by, memory.session_id,
                    json.dumps(list(memory.tags)),
                    identifier_terms(memory.text, a.file if a else None, a.symbol if a else None, *memory.tags),
                    _provenance_json(memory), memory.recorded_by,
                    memory.id,
                ),
            )  # fmt: skip

    def purge(self, memory_id: str, *, at: str, event: MemoryEvent) -> None:
        """Remove a memory's text for good: the row's text, tags and search terms, the text merged into its
        events' details, its vectors, and the full-text index's copy (optimized, so old segments go too).

        The row stays (archived, reason ``purged``, empty text) with its events' kinds and times, so
        history shows that a memory was purged, not what it said. Freed pages are zeroed
        (``secure_delete``) and the WAL is checkpointed, so the text is not left in the files either.
        """
        with self._lock:
            row = self.conn.execute("""SELECT num, ended_at FROM memories WHERE id = ?""", (memory_id,)).fetchone()
            if row is None:
                raise MemoryNotFoundError(f"no memory with id '{memory_id}'")
            previous = self.conn.execute("PRAGMA secure_delete").fetchone()[0]
            self.conn.execute("PRAGMA secure_delete = ON")
            try:
                with self.batch():
                    self.conn.execute(
                        """UPDATE memories SET text = '', tags = '[]', terms = '', status = ?, status_reason = ?,
                             ended_at = ?, updated_at = ?
                           WHERE id = ?""",
                        (MemoryStatus.ARCHIVED, PURGED_REASON, row["ended_at"] or at, at, memory_id),
                    )
                    self.conn.execute("""UPDATE memory_events SET detail = '{}' WHERE memory_id = ?""", (memory_id,))
                    self.conn.execute("""DELETE FROM memory_vectors WHERE memory_num = ?""", (row["num"],))
                    self.conn.execute("""INSERT INTO memory_fts (memory_fts) VALUES ('optimize')""")
                    self._add_events([event])
                self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self.conn.execute(f"PRAGMA secure_delete = {int(previous)}")

    def update_status(
        self,
        memory_id: str,
        status: MemoryStatus,
        *,
        at: str,
        reason: str | None = None,
        ended_at: str | None = None,
        superseded_by: str | None = None,
        event: MemoryEvent | None = None,
    ) -> None:
        with self.batch():
            self.conn.execute(
                """UPDATE memories SET status = ?, status_reason = ?, ended_at = ?, updated_at = ?,
                     superseded_by = coalesce(?, superseded_by)
                   WHERE id = ?""",
                (status, reason, ended_at, at, superseded_by, memory_id),
            )
            if event:
                self._add_events([event])

    def update_anchor(self, memory_id: str, anchor: Anchor | None, *, at: str, event: MemoryEvent | None) -> None:
        with self.batch():
            row = self.conn.execute("""SELECT text, tags FROM memories WHERE id = ?""", (memory_id,)).fetchone()
            if row is None:
                raise MemoryNotFoundError(f"no memory with id '{memory_id}'")
            tags = json.loads(row[1])
            self.conn.execute(
                """UPDATE memories SET file = ?, symbol = ?, start_line = ?, end_line = ?, content_hash = ?,
                     updated_at = ?, terms = ?
                   WHERE id = ?""",
                (
                    anchor.file if anchor else None, anchor.symbol if anchor else None,
                    anchor.start_line if anchor else None, anchor.end_line if anchor else None,
                    anchor.content_hash if anchor else None, at,
                    identifier_terms(row[0], anchor.file if anchor else None, anchor.symbol if anchor else None, *tags),
                    memory_id,
                ),
            )  # fmt: skip
            if event:
                self._add_events([event])

    def move_spans(self, moves: Sequence[tuple[str, int, int]]) -> None:
        """Follow symbols that moved within their file: (id, start_line, end_line). No event: it is bookkeeping."""
        if not moves:
            return
        with self.batch():
            self.conn.executemany(
                """UPDATE memories SET start_line = ?, end_line = ? WHERE id = ?""",
                [(s, e, i) for i, s, e in moves],
            )

    def reinforce(self, memory_id: str, *, at: str, confidence_gain: float, event: MemoryEvent | None) -> None:
        with self.batch():
            self.conn.execute(
                """UPDATE memories SET access_count = access_count + 1, last_accessed_at = ?, updated_at = ?,
                     confidence = min(1.0, confidence + ?)
                   WHERE id = ?""",
                (at, at, confidence_gain, memory_id),
            )
            if event:
                self._add_events([event])

    def set_created_at(self, num: int, created_at: str) -> None:
        """Place a memory at another time. Benchmarks use it to ask the same question of an old and a new memory."""
        with self.batch():
            self.conn.execute("""UPDATE memories SET created_at = ? WHERE num = ?""", (created_at, num))

    def record_access(self, ids: Sequence[str], at: str) -> None:
        if not ids:
            return
        with self.batch():
            self.conn.executemany(
                """UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? WHERE id = ?""",
                [(at, i) for i in ids],
            )

    def record_surfaced(self, ids: Sequence[str], at: str | None = None) -> None:
        """Count ``ids`` as shown once more: in all (``surfaced_count``) and on the UTC day of ``at`` (default: now)."""
        if not ids:
            return
        day = (at or time.strftime("%Y-%m-%d", time.gmtime()))[:10]
        with self.batch():
            before = self.conn.total_changes
            self.conn.executemany(
                """UPDATE memories SET surfaced_count = surfaced_count + 1 WHERE id = ?""", [(i,) for i in ids]
            )
            self._record_shown_day(ids, day)
            self._benign_changes += self.conn.total_changes - before  # recent_refs' rows stay valid

    def set_text(self, memory_id: str, text: str, *, at: str) -> None:
        """Replace a memory's text in place (a reviewed suggestion edited before it is accepted)."""
        with self.batch():
            row = self.conn.execute("""SELECT file, symbol, tags FROM memories WHERE id = ?""", (memory_id,)).fetchone()
            if row is None:
                raise MemoryNotFoundError(f"no memory with id '{memory_id}'")
            self.conn.execute(
                """UPDATE memories SET text = ?, terms = ?, updated_at = ? WHERE id = ?""",
                (text, identifier_terms(text, row[0], row[1], *json.loads(row[2])), at, memory_id),
            )

    # ------------------------------------------------------------ mining (suggestions)

    def mined(self, fingerprints: Sequence[str]) -> dict[str, tuple[str, str | None]]:
        """fingerprint → (memory id, that memory's status or None if the row is gone) for those seen before."""
        out: dict[str, tuple[str, str | None]] = {}
        with self._lock:
            for part in _chunks(list(fingerprints)):
                rows = self.conn.execute(
                    f"""SELECT mined.fingerprint, mined.memory_id, memories.status FROM mined
                          LEFT JOIN memories ON memories.id = mined.memory_id
                        WHERE mined.fingerprint IN ({_placeholders(len(part))})""",
                    tuple(part),
                ).fetchall()
                out.update({r[0]: (r[1], r[2]) for r in rows})
        return out

    def record_mined(self, items: Sequence[tuple[str, str]], *, at: str) -> None:
        """Remember (fingerprint, memory id) pairs for good; a fingerprint already known keeps its first memory."""
        with self.batch():
            self.conn.executemany(
                """INSERT OR IGNORE INTO mined (fingerprint, memory_id, first_seen) VALUES (?, ?, ?)""",
                [(fp, mid, at) for fp, mid in items],
            )

    def anchored_code(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """(syntax hash, code) each memory's anchored code had when written or last confirmed (m007)."""
        out: dict[str, tuple[str, str]] = {}
        with self._lock:
            for part in _chunks(list(memory_ids)):
                for mid, syntax, code in self.conn.execute(
                    f"""SELECT memory_id, syntax_hash, code FROM anchored_code
                        WHERE memory_id IN ({_placeholders(len(part))})""",
                    part,
                ):
                    out[mid] = (syntax, code)
        return out

    def without_anchored_code(self, statuses: Sequence[str], limit: int) -> list[Memory]:
        """Symbol-anchored memories whose code was never remembered (imported, mined, from before m007)."""
        with self._lock:
            return [
                _row_to_memory(r)
                for r in self.conn.execute(
                    f"""SELECT {_COLUMNS} FROM memories m WHERE symbol IS NOT NULL AND content_hash IS NOT NULL
                          AND status IN ({_placeholders(len(statuses))})
                          AND NOT EXISTS (SELECT 1 FROM anchored_code a WHERE a.memory_id = m.id)
                        LIMIT ?""",
                    (*statuses, limit),
                )
            ]

    def set_anchored_code(self, items: Sequence[tuple[str, str, str]], *, at: str) -> None:
        """Remember (memory id, syntax hash, code) as what each memory now describes."""
        if not items:
            return
        with self.batch():
            self.conn.executemany(
                """INSERT INTO anchored_code (memory_id, syntax_hash, code, at) VALUES (?, ?, ?, ?)
                   ON CONFLICT (memory_id) DO UPDATE SET syntax_hash = excluded.syntax_hash,
                     code = excluded.code, at = excluded.at""",
                [(mid, syntax, code, at) for mid, syntax, code in items],
            )

    def file_symbols(self, files: Sequence[str]) -> dict[str, set[str]]:
        """The symbols each file had when memories were last reconciled with it (absent: never looked at)."""
        out: dict[str, set[str]] = {}
        with self._lock:
            for part in _chunks(list(files)):
                for file, symbols in self.conn.execute(
                    f"""SELECT file, symbols FROM file_symbols WHERE file IN ({_placeholders(len(part))})""", part
                ):
                    out[file] = set(json.loads(symbols))
        return out

    def set_file_symbols(self, items: Sequence[tuple[str, Sequence[str]]]) -> None:
        if not items:
            return
        with self.batch():
            self.conn.executemany(
                """INSERT INTO file_symbols (file, symbols) VALUES (?, ?)
                   ON CONFLICT (file) DO UPDATE SET symbols = excluded.symbols""",
                [(file, json.dumps(sorted(set(symbols)))) for file, symbols in items],
            )

    def code_sync(self) -> tuple[str | None, int]:
        """(epoch, generation) of the code index this database last caught up with; (None, 0) never."""
        with self._lock:
            rows = dict(self.conn.execute("""SELECT key, value FROM code_sync""").fetchall())
        return rows.get("epoch"), int(rows.get("generation", 0))

    def set_code_sync(self, epoch: str, generation: int) -> None:
        with self.batch():
            self.conn.executemany(
                """INSERT INTO code_sync (key, value) VALUES (?, ?)
                   ON CONFLICT (key) DO UPDATE SET value = excluded.value""",
                [("epoch", epoch), ("generation", str(generation))],
            )

    def mining_state(self, key: str) -> str | None:
        with self._lock:
            row = self.conn.execute("""SELECT value FROM mining_state WHERE key = ?""", (key,)).fetchone()
        return str(row[0]) if row else None

    def set_mining_state(self, key: str, value: str) -> None:
        with self.batch():
            self.conn.execute(
                """INSERT INTO mining_state (key, value) VALUES (?, ?)
                   ON CONFLICT (key) DO UPDATE SET value = excluded.value""",
                (key, value),
            )

    def relations(self, memory_ids: Sequence[str]) -> list[Relation]:
        """Every recorded relation with one of ``memory_ids`` on either side (m006)."""
        out: list[Relation] = []
        with self._lock:
            for part in _chunks(list(dict.fromkeys(memory_ids)), SQL_VARIABLE_CHUNK // 2):
                marks = _placeholders(len(part))
                out += [
                    Relation(*row)
                    for row in self.conn.execute(
                        f"""SELECT a, b, kind, at FROM memory_relations WHERE a IN ({marks})
                            UNION SELECT a, b, kind, at FROM memory_relations WHERE b IN ({marks})""",
                        (*part, *part),
                    )
                ]
        return sorted(set(out), key=lambda r: (r.a, r.b))

    def set_supersedes(self, memory_id: str, old_id: str, *, at: str) -> None:
        """``memory_id`` now stands in for ``old_id`` (a contradiction resolved by replacing the older)."""
        with self.batch():
            self.conn.execute(
                """UPDATE memories SET supersedes = ?, updated_at = ? WHERE id = ?""", (old_id, at, memory_id)
            )

    def set_relation(self, x: str, y: str, kind: str, *, at: str) -> bool:
        """Record what holds between two memories (``both`` or ``contested``); an older ``at`` than the one
        recorded changes nothing (imports replay history out of order). True when the row changed."""
        a, b = sorted((x, y))
        with self.batch():
            cur = self.conn.execute(
                """INSERT INTO memory_relations (a, b, kind, at) VALUES (?, ?, ?, ?)
                   ON CONFLICT (a, b) DO UPDATE SET kind = excluded.kind, at = excluded.at
                   WHERE excluded.at >= memory_relations.at AND excluded.kind != memory_relations.kind""",
                (a, b, kind, at),
            )
            return cur.rowcount > 0

    def add_events(self, events: Iterable[MemoryEvent]) -> int:
        with self.batch():
            return self._add_events(events)

    def _add_events(self, events: Iterable[MemoryEvent]) -> int:
        rows = [(e.id, e.memory_id, e.at, e.kind, json.dumps(e.detail, ensure_ascii=False)) for e in events]
        if not rows:
            return 0
        before = self.conn.total_changes
        self.conn.executemany(
            """INSERT OR IGNORE INTO memory_events (id, memory_id, at, kind, detail) VALUES (?, ?, ?, ?, ?)""", rows
        )
        return self.conn.total_changes - before

    # ------------------------------------------------------------ vectors

    def put_vectors(self, model_id: str, items: Sequence[tuple[int, np.ndarray]]) -> None:
        """Store (memory num, vector) pairs for ``model_id``, replacing any previous vector of that memory."""
        if not items:
            return
        with self.batch():
            for num, vec in items:
                v = np.ascontiguousarray(vec, dtype=np.float32)
                self.conn.execute(
                    """DELETE FROM memory_vectors WHERE memory_num = ? AND model_id = ?""", (num, model_id)
                )
                self.conn.execute(
                    """INSERT INTO memory_vectors (memory_num, model_id, dim, vector) VALUES (?, ?, ?, ?)""",
                    (num, model_id, int(v.shape[0]), v.tobytes()),
                )

    def delete_vectors(self, num: int) -> None:
        """Drop a memory's vectors (all models) because its text changed: they are derived data, re-embedded later."""
        with self.batch():
            self.conn.execute("""DELETE FROM memory_vectors WHERE memory_num = ?""", (num,))

    def vectors_for(self, model_id: str, nums: Sequence[int]) -> dict[int, np.ndarray]:
        out: dict[int, np.ndarray] = {}
        with self._lock:
            for part in _chunks(list(nums)):
                cur = self.conn.execute(
                    f"""SELECT memory_num, vector FROM memory_vectors
                        WHERE model_id = ? AND memory_num IN ({_placeholders(len(part))})""",
                    (model_id, *part),
                )
                cur.row_factory = None  # plain tuples, fetched in one call: a search reads hundreds
                for num, blob in cur.fetchall():
                    out[int(num)] = np.frombuffer(blob, dtype=np.float32)
        return out

    def vector_state(self, model_id: str) -> tuple[int, int]:
        """(count, highest vec_id) of the vectors of ``model_id`` — what the hnsw sidecar must match."""
        with self._lock:
            row = self.conn.execute(
                """SELECT count(*), coalesce(max(vec_id), 0) FROM memory_vectors WHERE model_id = ?""", (model_id,)
            ).fetchone()
        return int(row[0]), int(row[1])

    def last_vec_id(self, model_id: str) -> int:
        """The highest ``vec_id`` of ``model_id`` (an index seek: cheap enough to call before every search)."""
        with self._lock:
            row = self.conn.execute(
                """SELECT max(vec_id) FROM memory_vectors WHERE model_id = ?""", (model_id,)
            ).fetchone()
        return int(row[0] or 0)

    def iter_vectors(
        self, model_id: str, *, after_vec_id: int = 0, batch_size: int = 5000
    ) -> Iterator[tuple[list[int], np.ndarray, int]]:
        """Batches of (memory nums, vectors matrix, last vec_id) with vec_id > ``after_vec_id``."""
        last = after_vec_id
        while True:
            with self._lock:
                rows = self.conn.execute(
                    """SELECT vec_id, memory_num, vector FROM memory_vectors
                       WHERE model_id = ? AND vec_id > ? ORDER BY vec_id LIMIT ?""",
                    (model_id, last, batch_size),
                ).fetchall()
            if not rows:
                return
            nums = [int(r[1]) for r in rows]
            mat = np.vstack([np.frombuffer(r[2], dtype=np.float32) for r in rows])
            last = int(rows[-1][0])
            yield nums, mat, last

    def nums_without_vector(self, model_id: str, *, limit: int = 10_000) -> list[tuple[int, str]]:
        """(num, text) of memories that have no vector for ``model_id`` yet (embedder added later, imports).

        Purged memories (empty text) never get one again."""
        with self._lock:
            rows = self.conn.execute(
                """SELECT m.num, m.text FROM memories AS m
                   WHERE NOT EXISTS (SELECT 1 FROM memory_vectors AS v WHERE v.memory_num = m.num AND v.model_id = ?)
                     AND m.text != ''
                   ORDER BY m.num LIMIT ?""",
                (model_id, limit),
            ).fetchall()
        return [(int(r[0]), str(r[1])) for r in rows]

    def search_rows(self, nums: Sequence[int]) -> dict[int, SearchRow]:
        out: dict[int, SearchRow] = {}
        with self._lock:
            for part in _chunks(list(nums)):
                cur = self.conn.execute(
                    f"""SELECT num, id, type, file, source, confidence, status, created_at, last_accessed_at,
                          access_count, ended_at, tags
                        FROM memories WHERE num IN ({_placeholders(len(part))})""",
                    tuple(part),
                )
                cur.row_factory = None  # plain tuples, fetched in one call: a search reads hundreds
                for r in cur.fetchall():
                    num, id_, type_, file, source, conf, status, created, accessed, count, ended, raw_tags = r
                    tags = () if raw_tags == "[]" else tuple(json.loads(raw_tags))
                    out[int(num)] = SearchRow(
                        num, id_, type_, file, source, conf, status, created, accessed, count, ended, tags
                    )
        return out

    def status_of_nums(self, nums: Sequence[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        with self._lock:
            for part in _chunks(list(nums)):
                for num, status in self.conn.execute(
                    f"""SELECT num, status FROM memories WHERE num IN ({_placeholders(len(part))})""", tuple(part)
                ):
                    out[int(num)] = str(status)
        return out
