"""The index database: chunks by file/line/symbol, full-text search, deletes, corrupt-file rebuild."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from forewarn.indexing.records import Chunk, Import
from forewarn.indexing.store import IndexStore
from forewarn.indexing.store_records import FileContent, FileRecord
from forewarn.indexing.words import (
    chunk_words,
    file_chunk_words,
    fts_query,
    fts_texts,
    selective_terms,
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
    s.write(
        [
            content(
                "app/users.py",
                [
                    chunk("<module>", "module", 1, 2, "import os\nLIMIT = 3\n"),
                    chunk("UserAccount", "class", 4, 6, class_text),
                    chunk(
                        "UserAccount.getUserName", "method", 5, 6, "def getUserName(self):\n        return self.name\n"
                    ),
                ],
                defs=[("UserAccount", "class", 4, "UserAccount", "class UserAccount:")],
            ),
            content(
                "app/other.py",
                [
                    chunk("compute_total_price", "function", 1, 2, "def compute_total_price():\n  pass\n"),
                ],
            ),
        ]
    )
    yield s
    s.close()


def test_split_identifier() -> None:
    assert split_identifier("getHTTPResponse_code") == ["get", "http", "response", "code"]
    assert split_identifier("__init__") == ["init"]
    assert split_identifier("parse2Tree") == ["parse", "2", "tree"]
    assert chunk_words(["plain", "words", "__init__"]) == ""
    assert chunk_words(["snake_case"]) == "snakecase"  # the whole name: unicode61 gives only its parts
    assert chunk_words(["x", "getUserName", "HTTPResponse", "getUserName"]) == "get user name http response"
    assert file_chunk_words([(1, "getUser"), (3, "setName"), (9, "x")], [(1, 9), (2, 3), (4, 8)]) == [
        "get user set name",
        "set name",
        "",
    ]


def test_fts_query_is_safe_for_any_text() -> None:
    assert fts_query('a "b" OR c*') == '"a" OR "b" OR "or" OR "c"'
    assert fts_query("!!!") == ""
    assert fts_query(["x", "y"]) == '"x" OR "y"'


def test_selective_terms_keeps_the_rarest_within_the_candidate_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    from forewarn.indexing import words as words_module

    monkeypatch.setattr(words_module, "SEARCH_CANDIDATES_MAX", 100)
    assert selective_terms({"the": 900, "invoice": 3, "ghost": 0, "refund": 40}) == ["invoice", "refund"]
    assert selective_terms({"the": 900, "self": 500}) == ["self"]  # the rarest always, however common
    assert selective_terms({"ghost": 0}) == []


def test_search_drops_common_words_and_quotes_user_syntax(tmp_path: Path) -> None:
    s = IndexStore(tmp_path / "index.db")
    try:
        filler = [chunk(f"f{i}", "function", i, i, f"def f{i}(): return the value\n") for i in range(1, 40)]
        rare = chunk("refund_invoice", "function", 50, 50, "def refund_invoice(): return the money\n")
        s.write([content("a.py", [*filler, rare])])
        from forewarn.indexing import words as words_module

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(words_module, "SEARCH_CANDIDATES_MAX", 10)  # "the" (40 chunks) no longer fits
            assert [c.symbol for c, _ in s.search_chunks("refund the value", limit=50)] == ["refund_invoice"]
        assert len(s.search_chunks("refund the value", limit=50)) == 40  # within budget, every match counts
        assert s.search_chunks('refund* OR "NEAR(')[0][0].symbol == "refund_invoice"
    finally:
        s.close()


def test_chunk_lookups(store: IndexStore) -> None:
    assert [c.symbol for c in store.chunks_for("app/users.py")] == [
        "<module>",
        "UserAccount",
        "UserAccount.getUserName",
    ]
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


def test_fts_holds_each_chunks_own_text_once(tmp_path: Path) -> None:
    from forewarn.indexing.languages import language_for_path
    from forewarn.indexing.parse import MAX_CHUNK_LINES, parse_source

    body = "".join(f"    step_{i} = 'é'\n" for i in range(MAX_CHUNK_LINES + 5))  # non-ASCII: byte offsets differ
    source = (
        "class Basket:\n    LIMIT = 3\n\n    @property\n    def total_price(self):\n        return zebra_sum(self)\n\n"
        f"def huge():\n{body}"
    ).encode()
    spec = language_for_path("shop.py")
    assert spec is not None
    chunks = parse_source("shop.py", source, spec).chunks
    texts = dict(zip([(c.symbol, c.part) for c in chunks], fts_texts(chunks), strict=True))
    own = texts[("Basket", 0)]
    assert own is not None and "LIMIT = 3" in own and "total_price" in own and "zebra_sum" not in own
    assert "zebra_sum" in (texts[("Basket.total_price", 0)] or "")
    assert texts[("huge", 0)] is None  # its parts carry the text
    parts = [t for (symbol, part), t in texts.items() if symbol == "huge" and part > 0]
    assert len(parts) >= 2 and sum(t.count("step_") for t in parts if t) == MAX_CHUNK_LINES + 5

    store = IndexStore(tmp_path / "index.db")
    try:
        store.write(
            [
                FileContent(
                    FileRecord("shop.py", "python", len(source), 1, "h", "ok"), chunks, [""] * len(chunks), [], {}, []
                )
            ]
        )
        assert [c.symbol for c, _ in store.search_chunks("zebra_sum")] == ["Basket.total_price"]
        found = [(c.symbol, c.part) for c, _ in store.search_chunks("step_3")]
        assert found[0] == ("huge", 1) and ("huge", 0) not in found
        assert len(store.chunks_for("shop.py")) == len(chunks)  # the chunks table keeps every chunk whole
    finally:
        store.close()
