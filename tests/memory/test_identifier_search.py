"""Memories are found by identifiers however the search spells them: parts, whole names, acronyms, dotted
paths (the ``terms`` column holds the split forms; the tokenizer splits snake_case at ``_``)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from forewarn.memory import retrieval
from forewarn.memory.records import Memory, MemoryFilter
from forewarn.memory.retrieval import SearchParams
from forewarn.memory.store import MemoryStore
from forewarn.memory.text import new_id, to_iso

NOW = 1_800_000_000.0
SNAKE = "retry_upload gives up after three attempts"
CAMEL = "retryUpload in the client swallows timeouts"
ACRONYM = "HTTPServer closes idle sockets after a minute"
DOTTED = "call os.path.join with the configured root, never string concatenation"


def make(text: str) -> Memory:
    at = to_iso(NOW)
    return Memory(
        id=new_id(NOW),
        text=text,
        created_at=at,
        updated_at=at,
        type="gotcha",
        source="user",
        confidence=1.0,
        anchor=None,
    )  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> MemoryStore:
    s = MemoryStore(Path(tmp_path_factory.mktemp("ident")) / "memory.db")
    for text in (SNAKE, CAMEL, ACRONYM, DOTTED, *(f"lesson {i} about billing and invoices" for i in range(30))):
        s.insert(make(text))
    yield s
    s.close()


def found(store: MemoryStore, query: str) -> list[str]:
    params = SearchParams(k=5, flt=MemoryFilter(), now=NOW)
    return [h.memory.text for h in retrieval.rank(store, None, query, None, params, time.perf_counter).hits]


@pytest.mark.parametrize("query", ["retry upload", "retry_upload", "retryUpload", "RetryUpload"])
def test_snake_and_camel_names_meet_every_spelling(store: MemoryStore, query: str) -> None:
    assert set(found(store, query)[:2]) == {SNAKE, CAMEL}


def test_a_camel_name_typed_whole_in_lower_case(store: MemoryStore) -> None:
    assert found(store, "retryupload")[0] == CAMEL


def test_a_snake_name_typed_whole_without_underscores(store: MemoryStore) -> None:
    assert SNAKE in found(store, "retryupload")


@pytest.mark.parametrize("query", ["http server", "HTTPServer", "httpserver", "http_server"])
def test_acronyms(store: MemoryStore, query: str) -> None:
    assert found(store, query)[0] == ACRONYM


@pytest.mark.parametrize("query", ["os.path.join", "path join", "os_path_join"])
def test_dotted_paths(store: MemoryStore, query: str) -> None:
    assert found(store, query)[0] == DOTTED


def test_m008_gives_memories_written_before_it_their_whole_snake_names(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "memory.db"
    s = MemoryStore(path)
    s.insert(make(SNAKE))
    for i in range(5):
        s.insert(make(f"lesson {i} about billing"))
    s.close()
    with sqlite3.connect(path) as conn:  # as m007 left it: terms split, never joined
        conn.execute("UPDATE memories SET terms = 'retry upload' WHERE text = ?", (SNAKE,))
        conn.execute("DELETE FROM _migrations WHERE name = 'm008_joined_identifier_terms'")
    old = MemoryStore(path)
    try:
        assert SNAKE in found(old, "retryupload")
        assert old.conn.execute("SELECT terms FROM memories WHERE text = ?", (SNAKE,)).fetchone()[0] == (
            "retry upload retryupload"
        )
    finally:
        old.close()
