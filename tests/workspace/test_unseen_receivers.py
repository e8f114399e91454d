"""A method called on a variable whose class the hover cannot see is no one's (QA pass 8 #7: ripgrep's main.rs
imports ``HiArgs`` and calls ``searcher.printer()`` on the ``SearchWorker`` that ``args.search_worker(…)`` returned;
the hover showed ``HiArgs::printer``'s memory because the import made hiargs.rs the strongest file defining a
``printer``). A parameter declared by reference (``args: &HiArgs``) still names its class. Real tree-sitter Rust
grammar, a real index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.config import Settings
from forewarn.workspace.engine import Workspace
from forewarn.workspace.symbols import RESOLVE_MARGIN, SymbolLookup
from tests.workspace.lookup_at import resolved_at

HIARGS_RS = """\
pub(crate) struct HiArgs {
    quiet: bool,
}

impl HiArgs {
    pub(crate) fn printer(&self, mode: u8) -> Printer {
        Printer { mode }
    }

    pub(crate) fn search_worker(&self, printer: Printer) -> SearchWorker {
        SearchWorker { printer }
    }

    pub(crate) fn quiet(&self) -> bool {
        self.quiet
    }

    pub(crate) fn stats(&self) -> bool {
        self.quiet
    }

    pub(crate) fn matcher(&self) -> bool {
        self.quiet
    }

    pub(crate) fn sorted(&self) -> bool {
        self.quiet
    }

    pub(crate) fn haystack_builder(&self) -> bool {
        self.quiet
    }

    pub(crate) fn walk_builder(&self) -> bool {
        self.quiet
    }
}

pub(crate) struct Printer {
    pub(crate) mode: u8,
}
"""
SEARCH_RS = """\
pub(crate) struct SearchWorker {
    printer: Printer,
}

impl SearchWorker {
    pub(crate) fn printer(&mut self) -> &mut Printer {
        &mut self.printer
    }
}
"""
MAIN_RS = """\
use crate::flags::{HiArgs, Printer};

mod flags;
mod search;

fn search(args: &HiArgs, mode: u8) -> bool {
    let mut searcher = args.search_worker(args.printer(mode));
    let walk = args.walk_builder() && args.haystack_builder();
    if args.quiet() && args.stats() && args.matcher() && args.sorted() {
        let wtr = searcher.printer();
        return wtr.mode == 0;
    }
    let other: HiArgs = make(args.quiet());
    other.quiet()
}
"""


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "rg"
    (root / "src" / "flags").mkdir(parents=True)
    (root / "src" / "main.rs").write_text(MAIN_RS)
    (root / "src" / "flags" / "mod.rs").write_text(
        "mod hiargs;\npub(crate) use crate::flags::hiargs::{HiArgs, Printer};\n"
    )
    (root / "src" / "flags" / "hiargs.rs").write_text(HIARGS_RS)
    (root / "src" / "search.rs").write_text(SEARCH_RS)
    settings = Settings()
    settings.embedder.enabled = False
    with Workspace.open(root, settings, embedder=None) as engine:
        engine.reindex()
        yield engine


def _at(ws: Workspace, line_text: str, word: str) -> tuple[str, tuple[str, ...]] | None:
    return resolved_at(ws, "src/main.rs", MAIN_RS, line_text, word)


def test_a_method_on_a_variable_of_unseen_class_is_no_imported_classs(ws: Workspace) -> None:
    deps = ws.graph.dependencies("src/main.rs")
    assert deps["src/flags/hiargs.rs"] >= RESOLVE_MARGIN * deps["src/search.rs"]  # main.rs mostly uses HiArgs
    assert _at(ws, "let wtr = searcher.printer()", "printer") is None  # a SearchWorker: the import is no clue


def test_a_parameter_declared_by_reference_names_its_class(ws: Workspace) -> None:
    assert _at(ws, "args.printer(mode)", "printer") == ("src/flags/hiargs.rs", ("HiArgs.printer",))
    assert _at(ws, "other.quiet()", "quiet") == ("src/flags/hiargs.rs", ("HiArgs.quiet",))
    uses = SymbolLookup(ws.indexer, ws.graph).uses(
        "src/main.rs",
        MAIN_RS,
        {"printer": [("src/flags/hiargs.rs", "HiArgs.printer"), ("src/search.rs", "SearchWorker.printer")]},
    )
    assert uses == {("src/flags/hiargs.rs", "HiArgs.printer"): 7}  # the searcher's call is not HiArgs's
