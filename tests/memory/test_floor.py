"""The relevance floor: an unrelated query returns no memory and names the closest one, a related query still
finds its memory — by words alone and with the real model — and memories reached through their code are held
to the same floor."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from forewarn.memory import retrieval
from forewarn.memory.records import Memory, MemoryFilter
from forewarn.memory.retrieval import SearchParams, lexical_coverage, text_terms
from forewarn.memory.vocabulary import MemoryType
from forewarn.workspace.engine import Workspace
from forewarn.workspace.results import SearchResult, below
from tests.conftest import Unclosed

# a small team's memories, as on the demo workspace: the floor must hold with few memories too
MEMORIES = [
    ("every charge carries an idempotency key so a retried request never bills twice", MemoryType.DECISION),
    ("Money.__add__ drops the currency: convert both amounts first", MemoryType.GOTCHA),
    ("reports are generated at midnight UTC, not in the user's time zone", MemoryType.CONVENTION),
    ("the checkout page calls finalize twice when the user double-clicks", MemoryType.ERROR_PATTERN),
    ("we tried caching exchange rates in Redis; stale rates cost more than the lookups", MemoryType.DEAD_END),
    ("invoices are immutable once sent; corrections are new credit notes", MemoryType.DECISION),
    ("the payment gateway times out after 30 seconds of idle connection", MemoryType.GOTCHA),
    ("database migrations must be backwards compatible for one release", MemoryType.CONVENTION),
]
OFF_TOPIC = [
    "banana smoothie recipe",
    "who won the world cup final",
    "kubernetes pod stuck in crashloopbackoff",
    "best stretches after a long bike ride",
]


def fill(ws: Workspace) -> dict[str, str]:
    return {text: ws.remember(text, type=mtype).memory.id for text, mtype in MEMORIES}


def test_lexical_coverage_is_the_share_of_the_querys_weight(tmp_path: Path) -> None:
    with Workspace.open(tmp_path, embedder=None) as ws:
        fill(ws)
        terms = ["idempotency", "key", "banana"]
        idfs = ws.store.term_idfs(terms)
        assert idfs[2] > idfs[0] > 0  # no memory holds "banana": it weighs the most
        matches = ['"idempotency"', '"key"', '"banana"']
        (num, _), *_ = ws.store.fts_ranked(" OR ".join(matches), 10)
        assert ws.store.matched_terms(matches, [num]) == {num: {0, 1}}
        # two words of three matched, the unknown one the heaviest: about half
        assert lexical_coverage({0, 1}, idfs) == pytest.approx((idfs[0] + idfs[1]) / sum(idfs))
        assert 0.4 < lexical_coverage({0, 1}, idfs) < 0.6
        assert lexical_coverage((), idfs) == 0.0 and lexical_coverage({0}, []) == 0.0
    assert text_terms(["retry", "upload"], "def retrying_upload(): ...") == {0, 1}
    assert text_terms(["retry", "banana"], "def retry_upload(): ...") == {0}
    assert text_terms(["up"], "def upload(): ...") == set()  # short words match whole only


def test_by_words_an_unrelated_query_returns_nothing_and_names_the_closest(tmp_path: Path) -> None:
    with Workspace.open(tmp_path, embedder=None) as ws:
        ids = fill(ws)
        for query in OFF_TOPIC:
            result = ws.search(query, chunks=0)
            assert result.mode == "lexical" and result.memories == [], query
        # no word of it is in any memory: nothing came close
        assert ws.search("banana smoothie recipe", chunks=0).no_memory_message() == "No memory matches."
        # one word shared with a memory, the rest unknown: held back, and named as the closest
        near = ws.search("charge my phone battery overnight", chunks=0)
        assert near.memories == [] and near.closest is not None
        assert near.closest.memory.id == ids[MEMORIES[0][0]]
        message = near.no_memory_message()
        assert message.startswith("No memory matches; closest: “every charge carries")
        assert "words matched" in message and f"< {retrieval.ANSWER_WORDS_FLOOR:.0%}" in message
        # one rare word of two shared: most of the query's weight, but a single word answers nothing
        rare = ws.search("redis tips", chunks=0)
        assert rare.memories == [] and rare.closest is not None and rare.closest.terms == 1
        assert (rare.closest.coverage or 0.0) >= retrieval.ANSWER_WORDS_FLOOR
        assert rare.no_memory_message().endswith("only 1 word of the query matched: “redis”)")  # which one
        assert ws.search("redis", chunks=0).memories  # the whole query held: answered
        # related queries still find their memory, first
        for query, text in [
            ("idempotency key for a retried charge", MEMORIES[0][0]),
            ("when are reports generated", MEMORIES[2][0]),
            ("why does the payment gateway time out", MEMORIES[6][0]),
        ]:
            found = ws.search(query, chunks=0)
            assert found.memories and found.memories[0].memory.id == ids[text], query
            assert found.closest is None and found.closest_summary() is None


def test_without_the_floor_the_unrelated_query_would_fill_the_list(tmp_path: Path) -> None:
    """The test above can fail: the same query ranked with the floor at zero returns the memory it held back."""
    with Workspace.open(tmp_path, embedder=None) as ws:
        fill(ws)
        params = SearchParams(k=10, flt=MemoryFilter(), now=time.time())
        query = "charge my phone battery overnight"
        assert retrieval.rank(ws.store, None, query, None, params, time.perf_counter).hits == []
        open_params = replace(params, floor=retrieval.NO_FLOOR)
        assert retrieval.rank(ws.store, None, query, None, open_params, time.perf_counter).hits


UPLOADER = '''\
def retry_upload(send, payload, attempts=3):
    """Send the payload, retrying with backoff when the server is busy."""
    for attempt in range(attempts):
        if send(payload):
            return True
        time.sleep(2**attempt)
    return False
'''


def test_memories_reached_through_code_are_held_to_the_floor(tmp_path: Path) -> None:
    root = tmp_path / "app"
    root.mkdir()
    (root / "uploader.py").write_text(UPLOADER)
    with Workspace.open(root, embedder=None) as ws:
        ws.reindex()
        gotcha = ws.remember(
            "backoff must stay under the gateway's 30 s idle timeout", type=MemoryType.GOTCHA, file="uploader.py",
            symbol="retry_upload",
        ).memory  # fmt: skip
        # the code holds most of the query: the memory on it is found though none of its own words match
        found = ws.search("what happens when the server is busy", k=5)
        assert [h.memory.id for h in found.memories] == [gotcha.id]
        # the code matched on one word ("sleep") of an unrelated question: the memory on it is held back, and the
        # code is listed as the nearest, not as a match (D25)
        off = ws.search("how long should I sleep at night to feel rested", k=5)
        assert off.memories == [] and off.closest is not None and off.closest.memory.id == gotcha.id
        assert [f.file for f in off.files] == ["uploader.py"] and off.code_matched is False
        on = ws.search("retry the upload when the server is busy", k=5)
        assert on.files[0].file == "uploader.py" and on.code_matched is True
        # the code holds one word of six ("backoff"), but the memory answered: the query is about this workspace
        answered = ws.search("backoff must stay under the gateway idle timeout", k=5)
        assert answered.memories and answered.code_matched is True


def test_by_meaning_an_unrelated_query_returns_nothing_and_a_paraphrase_is_found(
    tmp_path: Path, raw_embedder: Any
) -> None:
    with Workspace.open(tmp_path, embedder=Unclosed(raw_embedder)) as ws:
        ids = fill(ws)
        for query in OFF_TOPIC:
            result = ws.search(query, chunks=0)
            assert result.mode == "hybrid" and result.memories == [], (query, result.closest_summary())
            assert result.closest is not None and result.closest.cosine is not None
            assert result.closest.cosine < retrieval.ANSWER_COSINE_FLOOR
        message = ws.search("banana smoothie recipe", chunks=0).no_memory_message()
        assert message.startswith("No memory matches; closest: “") and "similarity 0." in message
        # paraphrases sharing almost no word with the memory are found by meaning
        for query, text in [
            ("how do we avoid billing a customer twice", MEMORIES[0][0]),
            ("adding two sums of money in different currencies", MEMORIES[1][0]),
        ]:
            found = ws.search(query, chunks=0)
            assert found.memories and found.memories[0].memory.id == ids[text], (query, found.closest_summary())
            assert (found.memories[0].cosine or 0.0) >= retrieval.ANSWER_COSINE_FLOOR


def test_a_memory_not_embedded_yet_is_judged_by_its_words(tmp_path: Path, raw_embedder: Any) -> None:
    with Workspace.open(tmp_path, embedder=None) as lexical:
        ids = fill(lexical)
    with Workspace.open(tmp_path, embedder=Unclosed(raw_embedder), backfill_on_open=False) as ws:
        assert ws.vectors is not None and len(ws.vectors) == 0  # written without a model, not embedded yet
        found = ws.search("idempotency key for a retried charge", chunks=0)
        assert found.mode == "hybrid" and found.memories[0].memory.id == ids[MEMORIES[0][0]]
        assert found.memories[0].cosine is None  # no vector: its words answered, at the words-only floor
        assert ws.search("banana smoothie recipe", chunks=0).memories == []


def test_a_miss_just_under_the_floor_never_reads_as_equal_to_it() -> None:
    """QA: "similarity 0.45 < 0.45": a value under the floor is rounded down, never up onto it."""
    at = "2024-01-01T00:00:00Z"
    memory = Memory("M1", MemoryType.GOTCHA, "daysToWeeks must use Math.trunc", None, "user", 1.0, at, at)
    floor = retrieval.Floor()

    def message(cosine: float | None, coverage: float) -> str:
        closest = retrieval.ScoredMemory(memory, 0.1, cosine=cosine, coverage=coverage, terms=3)
        return SearchResult([], "hybrid", closest=closest).no_memory_message()

    near = message(floor.answer_cosine - 0.0004, floor.answer_words_with_meaning - 0.0004)
    assert "similarity 0.44 < 0.45, words matched 59% < 60%" in near
    assert "words matched 32% < 33%" in message(None, floor.answer_words - 0.0004)
    assert "similarity 0.29 < 0.45, words matched 29% < 60%" in message(0.29, 0.29)  # 0.29 * 100 is 28.999…
    assert below(0.4549, 0.455) == "0.454 < 0.455"  # a floor between two printed figures: one more digit
