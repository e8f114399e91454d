"""A signature is the declaration only: the comment written after or inside it belongs to no header.

Ruby's first comment inside a module, class or method lies between its name and its body, so cutting at the
body kept it (``module Rack # Request env keys``); Python's trailing ``# pragma: no cover`` and a comment
among Rust parameters are the same fault in other grammars. Existing indexes parse those files again (m006).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from forewarn import paths
from forewarn.config import Settings
from forewarn.indexing.indexer import Indexer
from forewarn.indexing.languages import language_by_name
from forewarn.indexing.parse import parse_source

RACK = """\
module Rack
  # Request env keys
  class BodyProxy # :nodoc:
    # Set the response body to wrap, and the block to call when the
    # response has been fully sent.
    def initialize(body, &block)
      @body = body
    end

    def wrap_ipv6(host) # Even thought IPv6 addresses should be wrapped
      host
    end

    def close # nothing to release
    end

    def closed?; @closed end
  end
end
"""

PYTHON = """\
def run(self):  # pragma: no cover
    return 1
"""

RUST = """\
pub async fn handler(
    // the body, parsed as JSON
    body: String,
) -> String {
    body
}
"""


def _signatures(rel: str, source: str, language: str) -> dict[str, str]:
    spec = language_by_name(language)
    assert spec is not None
    parsed = parse_source(rel, source.encode(), spec)
    return {c.symbol: c.signature for c in parsed.chunks if c.part == 0}


def test_ruby_signatures_stop_before_the_comment_that_follows_the_declaration() -> None:
    signatures = _signatures("lib/rack/body_proxy.rb", RACK, "ruby")
    assert signatures["Rack"] == "module Rack"
    assert signatures["Rack.BodyProxy"] == "class BodyProxy"
    assert signatures["Rack.BodyProxy.initialize"] == "def initialize(body, &block)"
    assert signatures["Rack.BodyProxy.wrap_ipv6"] == "def wrap_ipv6(host)"
    assert signatures["Rack.BodyProxy.close"] == "def close"  # no body: its first line, less the comment
    assert signatures["Rack.BodyProxy.closed?"] == "def closed?"  # the `;` parts it from its body


def test_comments_in_python_and_rust_headers_are_left_out() -> None:
    assert _signatures("app.py", PYTHON, "python")["run"] == "def run(self):"
    assert _signatures("src/main.rs", RUST, "rust")["handler"] == "pub async fn handler(body: String, ) -> String"


def _stored_signature(db: Path, symbol: str) -> str:
    conn = sqlite3.connect(str(db))
    try:
        row = conn.execute("SELECT signature FROM chunks WHERE symbol = ? AND part = 0", (symbol,)).fetchone()
    finally:
        conn.close()
    assert row is not None
    return str(row[0])


def test_an_index_written_before_m006_parses_ruby_files_again(tmp_path: Path) -> None:
    """Unchanged files are skipped by size and mtime, so without the migration the old signature would stay."""
    root = tmp_path / "ws"
    (root / "lib/rack").mkdir(parents=True)
    (root / "lib/rack/body_proxy.rb").write_text(RACK, encoding="utf-8")
    (root / "lib/rack/version.rb").write_text("module Rack\n  VERSION = '3.1'\nend\n", encoding="utf-8")
    with Indexer(root, Settings()) as ix:
        ix.index()
    db = paths.workspace_dir(root) / "index.db"
    conn = sqlite3.connect(str(db))  # what the previous release left: the comment glued on, m006 not applied
    with conn:
        conn.execute("UPDATE chunks SET signature = 'class BodyProxy # :nodoc:' WHERE symbol = 'Rack.BodyProxy'")
        conn.execute("DELETE FROM _migrations WHERE name = 'm006_signatures_without_comments'")
        conn.execute("UPDATE files SET gen = 0")
    conn.close()
    with Indexer(root, Settings()) as ix:
        ix.index()
    assert _stored_signature(db, "Rack.BodyProxy") == "class BodyProxy"
    conn = sqlite3.connect(str(db))
    try:
        untouched = conn.execute("SELECT gen FROM files WHERE rel = 'lib/rack/version.rb'").fetchone()
    finally:
        conn.close()
    assert untouched == (0,)  # a file whose signatures hold no comment marker is not read again
