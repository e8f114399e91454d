"""The index is a cache: a migration that changes what a language's query finds makes those files parse again."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from forewarn import paths
from forewarn.config import Settings
from forewarn.indexing.indexer import Indexer

FILES = {
    "go.mod": "module example.com/fz\n\ngo 1.21\n",
    "src/algo/algo.go": "package algo\n\nfunc FuzzyMatchV2(score int) int {\n\treturn score\n}\n",
    "src/options.go": 'package fz\n\nimport "example.com/fz/src/algo"\n\nvar defaultAlgo = algo.FuzzyMatchV2\n',
}


def _value_refs(db: Path) -> list[str]:
    return _refs_of(db, "src/options.go")


def test_go_files_indexed_before_value_references_parse_again(tmp_path: Path) -> None:
    """An index written before m005 holds no reference for ``algo.FuzzyMatchV2`` used as a value; unchanged files
    are skipped by size and mtime, so without the migration the reference would never appear."""
    root = tmp_path / "ws"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    with Indexer(root, Settings()) as ix:
        ix.index()
    db = paths.workspace_dir(root) / "index.db"
    assert "FuzzyMatchV2" in _value_refs(db)
    conn = sqlite3.connect(str(db))  # what the previous release left: no such reference, m005 not applied
    with conn:
        conn.execute("DELETE FROM refs WHERE name = 'FuzzyMatchV2'")
        conn.execute("DELETE FROM _migrations WHERE name = 'm005_go_value_references'")
    conn.close()
    with Indexer(root, Settings()) as ix:
        ix.index()
    assert "FuzzyMatchV2" in _value_refs(db)


RUST = {
    "Cargo.toml": '[package]\nname = "maps"\nversion = "0.1.0"\n',
    "src/mapping.rs": "pub enum MappingTarget {\n    Unknown,\n}\n",
    "src/main.rs": "mod mapping;\n\nfn main() {\n    let _t = crate::mapping::MappingTarget::Unknown;\n}\n",
}


def _refs_of(db: Path, rel: str) -> list[str]:
    conn = sqlite3.connect(str(db))
    try:
        rows = conn.execute(
            "SELECT r.name FROM refs r JOIN files f ON f.id = r.file_id WHERE f.rel = ?", (rel,)
        ).fetchall()
    finally:
        conn.close()
    return [name for (name,) in rows]


def test_rust_files_indexed_before_type_paths_parse_again(tmp_path: Path) -> None:
    """An index written before m007 holds no reference for the type a path goes through (``MappingTarget`` in
    ``crate::mapping::MappingTarget::Unknown``); the migration makes the unchanged Rust files parse again."""
    root = tmp_path / "ws"
    for rel, text in RUST.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    with Indexer(root, Settings()) as ix:
        ix.index()
    db = paths.workspace_dir(root) / "index.db"
    assert "MappingTarget" in _refs_of(db, "src/main.rs")
    conn = sqlite3.connect(str(db))  # what the previous release left: no such reference, m007 not applied
    with conn:
        conn.execute("DELETE FROM refs WHERE name = 'MappingTarget'")
        conn.execute("DELETE FROM _migrations WHERE name = 'm007_rust_type_paths'")
    conn.close()
    with Indexer(root, Settings()) as ix:
        ix.index()
    assert "MappingTarget" in _refs_of(db, "src/main.rs")
