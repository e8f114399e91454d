"""The index database: chunks by file/line/symbol, full-text search, deletes, corrupt-file rebuild."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hindsight.indexing.records import Chunk, Import
from hindsight.indexing.store import (
    FileContent,
    FileRecord,
    IndexStore,
    chunk_words,
    file_chunk_words,
    fts_query,
    split_identifier,
)

IDENT = re.compile(r"[A-Za-z_]\w*")


def chunk(symbol: str, kind: str, start: int, end: int, text: str) -> Chunk:
    return Chunk(symbol, kind, start, end, start * 10, end * 10, text.splitlines()[0], f"h-{symbol}", text)


def content(rel: str, chunks: list[Chunk], *, defs: list[tuple[str, str, int, str, str]] | None = None) -> FileContent:
    record = FileRecord(rel, "python", 100, 1, f"hash-{rel}", "ok")
    words = [chunk_words(IDENT.findall(c.text)) for c in chunks]
    return FileContent(record, chunks, words, defs or [], {"helper": 2}, [Import("os.path", 1, ("join",))])


@pytest.fixture
def store(tmp_path: Path) -> IndexStore:
    s = IndexStore(tmp_path / "index.db")
    class_text = "class UserAccount:\n    def getUserName(self):\n        return self.name\n"
    s.write([
        content("app/users.py", [
            chunk("<module>", "module", 1, 2, "import os\nLIMIT = 3\n"),
            chunk("UserAccount", "class", 4, 6, class_text),
            chunk("UserAccount.getUserName", "method", 5, 6, "def getUserName(self):\n        return self.name\n"),
        ], defs=[("UserAccount", "class", 4, "UserAccount", "class UserAccount:")]),
        content("app/other.py", [
            chunk("compute_total_price", "function", 1, 2, "def compute_total_price():\n  pass\n"),
        ]),
    ])
    yield s
    s.close()


def test_split_identifier() -> None:
    assert split_identifier("getHTTPResponse_code") == ["get", "http", "response", "code"]
    assert split_identifier("__init__") == ["init"]
    assert split_identifier("parse2Tree") == ["parse", "2", "tree"]
    assert chunk_words(["plain", "snake_case", "words"]) == ""
    assert chunk_words(["x", "getUserName", "HTTPResponse", "getUserName"]) == "get user name http response"
    assert file_chunk_words([(1, "getUser"), (3, "setName"), (9, "x")], [(1, 9), (2, 3), (4, 8)]) == [
        "get user set name", "set name", ""]


def test_fts_query_is_safe_for_any_text() -> None:
    assert fts_query('a "b" OR c*') == '"a" OR "b" OR "or" OR "c"'
    assert fts_query("!!!") == ""


def test_chunk_lookups(store: IndexStore) -> None:
    assert [c.symbol for c in store.chunks_for("app/users.py")] == [
        "<module>", "UserAccount", "UserAccount.getUserName"]
    assert store.chunk_at("app/users.py", 5).symbol == "UserAccount.getUserName"  # innermost
    assert store.chunk_at("app/users.py", 4).symbol == "UserAccount"
    assert store.chunk_at("app/users.py", 3) is None
    found = store.chunk_by_symbol("app/users.py", "UserAccount")
    assert found is not None and found.rel == "app/users.py" and found.start_line == 4
    assert store.chunk_by_symbol("app/users.py", "Nope") is None


def test_search_finds_split_identifiers_and_whole_ones(store: IndexStore) -> None:
    hits = store.search_chunks("user name")
    assert hits and hits[0][0].symbol == "UserAccount.getUserName"
    assert hits[0][1] > 0
    assert [c.symbol for c, _ in store.search_chunks("compute_total_price")] == ["compute_total_price"]
    assert [c.symbol for c, _ in store.search_chunks("total price")] == ["compute_total_price"]
    assert store.search_chunks("") == []


def test_rewrite_replaces_and_delete_removes_everything(store: IndexStore) -> None:
    store.write([content("app/other.py", [chunk("new_function", "function", 1, 1, "def new_function(): pass\n")])])
    assert store.search_chunks("compute_total_price") == []
    assert [c.symbol for c, _ in store.search_chunks("new_function")] == ["new_function"]
    assert store.definitions_named("UserAccount")[0].rel == "app/users.py"
    assert store.imports(["app/users.py"])["app/users.py"] == ("python", [Import("os.path", 1, ("join",))])
    store.set_edges({"app/users.py": {"app/other.py"}}, replace_all=True)
    assert store.edges() == {"app/users.py": {"app/other.py"}}
    store.delete(["app/users.py"])
    assert store.chunks_for("app/users.py") == []
    assert store.search_chunks("user name") == []
    assert store.definitions_named("UserAccount") == []
    assert store.edges() == {}
    assert set(store.files()) == {"app/other.py"}
    assert store.ref_counts() == {"app/other.py": {"helper": 2}}


def test_corrupt_database_is_moved_aside_and_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    path.write_bytes(b"this is not a database" * 100)
    store = IndexStore(path)
    try:
        assert store.files() == {}
        store.write([content("a.py", [chunk("f", "function", 1, 1, "def f(): pass\n")])])
        assert set(store.files()) == {"a.py"}
    finally:
        store.close()
    aside = list(tmp_path.glob("index.db.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not a database")
