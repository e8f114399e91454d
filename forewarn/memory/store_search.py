"""The memory store's full-text search: FTS5 ranking, the term statistics that prune a query to what is worth
scoring, and the light rows of the candidates a search judges.

Part of :class:`forewarn.memory.store.MemoryStore` (a mixin, so the store still owns every line of memory SQL;
the store's ``__init__`` sets the caches declared here).
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from forewarn.memory.records import MemoryFilter, SearchRow
from forewarn.memory.store_rows import SQL_VARIABLE_CHUNK, _chunks, _placeholders

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


class FullTextReads:
    """Lexical search over ``memory_fts`` (mixed into ``MemoryStore``, which provides the connection, its lock and
    the filter's SQL)."""

    conn: sqlite3.Connection
    _lock: threading.RLock
    _stem_ready: bool
    _candidate_ready: bool
    _stem_cache: dict[str, list[str]]
    _df_cache: dict[str, int]
    _df_at: float
    _doc_count: int
    _doc_count_at: float

    if TYPE_CHECKING:

        @staticmethod
        def _filter_sql(flt: MemoryFilter, alias: str = "") -> tuple[list[str], list[Any]]: ...

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
