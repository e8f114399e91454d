"""A hover on a name reached through the standard library says nothing, and a neighbour's memory does not go on it
(QA pass 8 #12: ``std::env::current_dir()`` in ripgrep's index.rs showed ``WalkBuilder::current_dir``, and
``io::Error::new(…)`` a workspace ``new``). Real tree-sitter Rust grammar, a real index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.config import Settings
from forewarn.workspace.engine import Workspace
from forewarn.workspace.symbols import SymbolLookup
from tests.workspace.lookup_at import resolved_at

WALK_RS = """\
pub struct WalkBuilder {
    cwd: Option<String>,
}

impl WalkBuilder {
    pub fn current_dir(&mut self, cwd: String) -> &mut WalkBuilder {
        self.cwd = Some(cwd);
        self
    }
}

pub enum ErrorKind {
    Loop,
}
"""
INDEX_RS = """\
use std::io;

use crate::walk::{ErrorKind, WalkBuilder};
use crate::{doc::version, walk::Loop};

mod doc;
mod walk;

fn build(walker: &mut WalkBuilder) -> bool {
    let cwd = std::env::current_dir().unwrap();
    walker.current_dir(cwd.display().to_string());
    let kind = io::ErrorKind::NotFound;
    let mine = ErrorKind::Loop;
    version::generate_digits() == ""
}
"""


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "rg"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.rs").write_text(INDEX_RS)
    (root / "src" / "walk.rs").write_text(WALK_RS)
    (root / "src" / "doc").mkdir()
    (root / "src" / "doc" / "mod.rs").write_text("pub mod version;\n")
    (root / "src" / "doc" / "version.rs").write_text("pub fn generate_digits() -> String {\n    String::new()\n}\n")
    settings = Settings()
    settings.embedder.enabled = False
    with Workspace.open(root, settings, embedder=None) as engine:
        engine.reindex()
        yield engine


def _at(ws: Workspace, line_text: str, word: str) -> tuple[str, tuple[str, ...]] | None:
    return resolved_at(ws, "src/main.rs", INDEX_RS, line_text, word)


def test_a_name_through_the_standard_library_is_no_workspace_definition(ws: Workspace) -> None:
    assert _at(ws, "std::env::current_dir()", "current_dir") is None
    assert _at(ws, "io::ErrorKind::NotFound", "ErrorKind") is None
    assert _at(ws, "walker.current_dir(", "current_dir") == ("src/walk.rs", ("WalkBuilder.current_dir",))
    assert _at(ws, "let mine = ErrorKind", "ErrorKind") == ("src/walk.rs", ("ErrorKind",))
    assert _at(ws, "version::generate_digits()", "generate_digits") == ("src/doc/version.rs", ("generate_digits",))


def test_a_neighbours_memory_goes_on_its_own_use_not_on_stds(ws: Workspace) -> None:
    uses = SymbolLookup(ws.indexer, ws.graph).uses(
        "src/main.rs",
        INDEX_RS,
        {"current_dir": [("src/walk.rs", "WalkBuilder.current_dir")], "ErrorKind": [("src/walk.rs", "ErrorKind")]},
    )
    lines = INDEX_RS.split("\n")
    walker, mine = (next(i + 1 for i, x in enumerate(lines) if text in x) for text in ("walker.", "let mine"))
    assert uses == {("src/walk.rs", "WalkBuilder.current_dir"): walker, ("src/walk.rs", "ErrorKind"): mine}
