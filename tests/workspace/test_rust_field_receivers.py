"""A method called on a field reaches the field's declared class (QA pass 8 #12: ripgrep's walk.rs calls
``self.ig_root.add_parents(path)`` with ``ig_root: Ignore`` declared in its struct, and defines its own
``Work::add_parents``: the hover said nothing and the gotcha on ``Ignore::add_parents`` never showed in walk.rs).
Real tree-sitter Rust grammar, a real index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.config import Settings
from forewarn.workspace.engine import Workspace
from forewarn.workspace.symbols import SymbolLookup

DIR_RS = """\
pub struct Ignore {
    depth: usize,
}

impl Ignore {
    pub fn add_parents(&self, path: &str) -> (Ignore, Option<String>) {
        (Ignore { depth: self.depth + 1 }, None)
    }
}
"""
WALK_RS = """\
use crate::dir::Ignore;

pub struct WalkParallel {
    ig_root: Ignore,
}

struct Work {
    depth: usize,
}

impl Work {
    fn add_parents(&mut self) -> Option<String> {
        None
    }
}

impl WalkParallel {
    fn visit(&self, path: &str, mut work: Work) {
        let (ig, err) = self.ig_root.add_parents(path);
        let more = work.add_parents();
    }
}
"""


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "ignore"
    (root / "src").mkdir(parents=True)
    (root / "src" / "lib.rs").write_text("pub mod dir;\npub mod walk;\n")
    (root / "src" / "dir.rs").write_text(DIR_RS)
    (root / "src" / "walk.rs").write_text(WALK_RS)
    settings = Settings()
    settings.embedder.enabled = False
    with Workspace.open(root, settings, embedder=None) as engine:
        engine.reindex()
        yield engine


def _at(ws: Workspace, line_text: str) -> tuple[str, tuple[str, ...]] | None:
    lines = WALK_RS.split("\n")
    row = next(i for i, line in enumerate(lines) if line_text in line)
    found = SymbolLookup(ws.indexer, ws.graph).resolve("src/walk.rs", WALK_RS, row + 1, lines[row].index("add_parents"))
    return (found.file, found.symbols) if found else None


def test_a_call_on_a_field_means_the_fields_declared_class(ws: Workspace) -> None:
    assert _at(ws, "self.ig_root.add_parents") == ("src/dir.rs", ("Ignore.add_parents",))
    assert _at(ws, "work.add_parents()") == ("src/walk.rs", ("Work.add_parents",))  # `mut work: Work`: its own
    uses = SymbolLookup(ws.indexer, ws.graph).uses(
        "src/walk.rs", WALK_RS, {"add_parents": [("src/dir.rs", "Ignore.add_parents")]}
    )
    assert uses == {("src/dir.rs", "Ignore.add_parents"): 19}
