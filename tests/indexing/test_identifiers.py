"""Identifier-aware code search: snake_case, camelCase, acronyms and dotted paths are found by their
parts and as whole names, whichever way the query spells them (real parser, real index database)."""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn import paths, sqlite
from forewarn.config import Settings
from forewarn.indexing import migrations as index_migrations
from forewarn.indexing.indexer import Indexer
from forewarn.indexing.store import IndexStore
from forewarn.indexing.words import identifier_words, query_terms

FILES = {
    "uploads/s3.py": '''
def retry_upload(bucket, key, attempts=3):
    """Send the object again after a failure."""
    for _ in range(attempts):
        bucket.put(key)


def upload_size(key):
    return len(key)
''',
    "uploads/client.ts": """
export class Client {
  retryUpload(file: string): void {
    this.send(file);
  }
}
""",
    "net/server.py": """
import os


class HTTPServer:
    def serve_forever(self):
        return os.path.join(self.root, "index.html")


def retry_later(delay):
    return delay * 2


def describe(os_name, where):
    return "/".join([os_name, where.path])
""",
    "net/constants.py": "HTTP_SERVER_PORT = 8080\nUPLOAD_LIMIT = 10\n",
    # unrelated code, so that BM25 sees the searched words as rare, as they are in a real project
    "misc/filler.py": "".join(f"\n\ndef helper_{i}(value):\n    return value + {i}\n" for i in range(40)),
}


@pytest.fixture(scope="module")
def indexer(tmp_path_factory: pytest.TempPathFactory) -> Indexer:
    root = tmp_path_factory.mktemp("ident")
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"), encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(paths.HOME_ENV, str(tmp_path_factory.mktemp("home")))
        ix = Indexer(root, Settings())
        ix.index()
    yield ix
    ix.close()


def symbols(ix: Indexer, query: str, n: int) -> list[str]:
    return [c.symbol for c, _ in ix.search_chunks(query, limit=20)][:n]


@pytest.mark.parametrize("query", ["retry upload", "retry_upload", "retryUpload", "retryupload", "RetryUpload"])
def test_every_spelling_meets_both_snake_and_camel_names(indexer: Indexer, query: str) -> None:
    # the two definitions named retry+upload (and the class whose text holds the method's signature)
    # outrank chunks holding only one of the words
    assert set(symbols(indexer, query, 3)) == {"retry_upload", "Client.retryUpload", "Client"}


@pytest.mark.parametrize("query", ["http server", "HTTPServer", "httpserver", "HttpServer", "http_server"])
def test_acronyms_split_and_whole(indexer: Indexer, query: str) -> None:
    found = symbols(indexer, query, 2)
    # HTTP_SERVER_PORT (net/constants.py's <module>) holds both words too: either may come first
    assert "HTTPServer" in found and set(found) <= {"HTTPServer", "<module>", "HTTPServer.serve_forever"}


def test_a_dotted_path_ranks_where_it_is_written(indexer: Indexer) -> None:
    # describe holds os, path and join once each too, but not together as os.path.join
    assert symbols(indexer, "os.path.join", 2) == ["HTTPServer.serve_forever", "describe"]
    assert set(symbols(indexer, "os path join", 2)) == {"describe", "HTTPServer.serve_forever"}  # words alone


def test_identifier_words_add_what_the_tokenizer_lacks() -> None:
    assert identifier_words("retry_upload") == ["retryupload"]
    assert identifier_words("retryUpload") == ["retry", "upload"]
    assert identifier_words("HTTPServer") == ["http", "server"]
    assert identifier_words("get_HTTPResponse") == ["http", "response", "gethttpresponse"]
    assert identifier_words("MAX_SIZE") == ["maxsize"]
    for plain in ("plain", "CONSTANT", "__init__", "_private", "x"):
        assert identifier_words(plain) == []


def test_query_terms_spell_identifiers_whole_in_parts_and_as_phrases() -> None:
    assert query_terms("retry_upload") == ["retryupload", "retry", "upload", "retry upload"]
    assert query_terms("retryUpload") == ["retryupload", "retry", "upload"]
    assert query_terms("os.path.join") == ["os", "path", "join", "os path join"]
    assert query_terms("a.b_c") == ["a", "bc", "b", "c", "a b c"]
    assert query_terms("!!! ...") == []


def test_an_index_from_before_identifier_words_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    conn = sqlite.connect(path)
    sqlite.migrate(conn, index_migrations.MIGRATIONS[:2], what="old index")
    conn.execute(
        "INSERT INTO files (rel, language, size, mtime_ns, content_hash, status)"
        " VALUES ('a.py', 'python', 1, 1, 'h', 'ok')"
    )
    conn.commit()
    conn.close()
    s = IndexStore(path)
    try:
        assert s.files() == {}  # the next index run parses every file again, words and all
        applied = [r[0] for r in s.conn.execute("SELECT name FROM _migrations ORDER BY rowid")]
        assert "m003_identifier_words" in applied
        assert s.search_chunks("anything") == []
    finally:
        s.close()
