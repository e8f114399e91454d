"""A Rust path through the standard library is no reference to a workspace namesake (QA pass 8 #12: ripgrep's map
opened on ``grep_regex::ErrorKind``, ranked first by 31 uses of ``io::ErrorKind`` in 18 files); another crate of the
workspace is found by its Cargo.toml name (``use grep_searcher::Searcher``). Real tree-sitter Rust grammar, real
index and graph."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from forewarn import paths
from forewarn.config import Settings
from forewarn.indexing.indexer import Indexer
from forewarn.indexing.languages import language_by_name
from forewarn.indexing.parse import parse_file
from forewarn.indexing.records import Import
from forewarn.indexing.resolve import ImportResolver

SEARCH_RS = """\
use std::io::{self, Write};
use std::fmt;
use std::io::ErrorKind as IoKind;

use crate::error::ErrorKind;

fn check(err: io::Error) -> io::Result<()> {
    if err.kind() == io::ErrorKind::BrokenPipe || err.kind() == std::io::ErrorKind::Other {
        return Err(io::Error::new(io::ErrorKind::Other, "x"));
    }
    let _f: fmt::Result = Ok(());
    let _k: IoKind = IoKind::NotFound;
    let _g = grep_regex::ErrorKind::Backtrack;
    let _mine = ErrorKind::Backtrack;
    let _c = core::mem::take(&mut 1);
    Ok(())
}
"""


def _refs(source: str) -> list[str]:
    spec = language_by_name("rust")
    assert spec is not None
    return [name for _, name, _, _ in parse_file(source.encode(), spec).refs]


def test_references_through_the_standard_library_are_left_out() -> None:
    refs = _refs(SEARCH_RS)
    # io::ErrorKind (3), std::io::ErrorKind, io::Error, io::Result, fmt::Result, IoKind, core::mem::take: std's
    assert refs.count("ErrorKind") == 2  # `grep_regex::ErrorKind` and the bare one `use crate::error::…` binds
    assert "IoKind" not in refs and "take" not in refs and "Result" not in refs
    assert "Error" not in refs and "new" not in refs  # `io::Error::new(…)`
    assert "kind" in refs  # a method call stays a reference: its receiver's type is not in the path
    local = "mod io;\n\nfn f() -> io::Thing {\n    io::make()\n}\n"  # a module of the crate named `io`: kept
    assert {"Thing", "make"} <= set(_refs(local))


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


WORKSPACE = {
    "crates/regex/Cargo.toml": '[package]\nname = "grep-regex"\nversion = "0.1.0"\n',
    "crates/regex/src/lib.rs": "mod error;\n\npub use crate::error::{Error, ErrorKind};\n",
    "crates/regex/src/error.rs": "pub struct Error {\n    kind: ErrorKind,\n}\n\npub enum ErrorKind {\n    Other,\n}\n",
    "crates/searcher/Cargo.toml": '[package]\nname = "grep-searcher"\n\n[lib]\nname = "grep_searcher"\n',
    "crates/searcher/src/lib.rs": "mod sink;\n\npub use crate::sink::Sink;\n",
    "crates/searcher/src/sink.rs": "pub trait Sink {\n    fn matched(&mut self) -> bool;\n}\n",
    "crates/printer/Cargo.toml": '[package]\nname = "grep-printer"\n',
    "crates/printer/src/lib.rs": "mod standard;\n",
    "crates/printer/src/standard.rs": (
        "use std::io;\n\nuse grep_searcher::Sink;\n\npub struct Standard;\n\n"
        "pub fn write(err: io::Error) -> bool {\n    err.kind() == io::ErrorKind::BrokenPipe\n}\n"
    ),
}


def test_a_std_path_draws_no_edge_and_another_crate_is_found_by_its_name(tmp_path: Path) -> None:
    root = tmp_path / "rg"
    _write(root, WORKSPACE)
    with Indexer(root, Settings()) as ix:
        ix.index()
        uses = ix.graph.dependencies("crates/printer/src/standard.rs")
    assert "crates/regex/src/error.rs" not in uses  # io::ErrorKind is std's
    assert "crates/searcher/src/lib.rs" in uses  # `use grep_searcher::Sink` names that crate


def test_rust_files_indexed_before_m010_parse_again(tmp_path: Path) -> None:
    root = tmp_path / "rg"
    _write(root, WORKSPACE)
    with Indexer(root, Settings()) as ix:
        ix.index()
    db = paths.workspace_dir(root) / "index.db"
    conn = sqlite3.connect(str(db))  # what the previous release left: io::ErrorKind counted, m010 not applied
    with conn:
        conn.execute(
            "INSERT INTO refs (file_id, name, count) SELECT id, 'ErrorKind', 1 FROM files WHERE rel LIKE '%standard.rs'"
        )
        conn.execute("DELETE FROM _migrations WHERE name = 'm010_rust_std_paths'")
    conn.close()
    with Indexer(root, Settings()) as ix:
        ix.index()
    conn = sqlite3.connect(str(db))
    try:
        rows = conn.execute(
            "SELECT r.name FROM refs r JOIN files f ON f.id = r.file_id WHERE f.rel = 'crates/printer/src/standard.rs'"
        ).fetchall()
    finally:
        conn.close()
    assert ("ErrorKind",) not in rows and ("kind",) in rows


def test_crates_by_their_cargo_names() -> None:
    files = [
        "crates/searcher/src/lib.rs",
        "crates/searcher/src/sink.rs",
        "crates/printer/src/lib.rs",
        "crates/printer/src/standard.rs",
        "crates/printer/src/grep_searcher.rs",
        "crates/other/src/lib.rs",
    ]
    texts = {
        "crates/searcher/Cargo.toml": '[package]\nname = "grep-searcher"  # the crate\n[dependencies]\nname = "x"\n',
        "crates/other/Cargo.toml": '[package]\nname = "other"\n',
    }
    resolver = ImportResolver(files, texts.get)

    def resolve(importer: str, spec: str, *names: str) -> list[str]:
        return resolver.resolve(importer, "rust", Import(spec=spec, line=1, names=names))

    assert resolve("crates/other/src/lib.rs", "grep_searcher", "Sink") == ["crates/searcher/src/lib.rs"]
    assert resolve("crates/other/src/lib.rs", "grep_searcher::sink::Sink") == ["crates/searcher/src/sink.rs"]
    assert resolve("crates/other/src/lib.rs", "termcolor::WriteColor") == []  # not the workspace's
    # a module of the importer's own crate so named comes first
    assert resolve("crates/printer/src/lib.rs", "grep_searcher::X") == ["crates/printer/src/grep_searcher.rs"]
