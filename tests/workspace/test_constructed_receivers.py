"""A method called on a Rust or Go variable goes to the class the code plainly constructed it as: ``let mut builder
= WalkBuilder::new(path);`` (``new`` declares ``-> Self``), ``let x = y.method()?`` (one definition, ``-> Result<T,
E>``), ``x, err := NewFoo()`` (``(*Foo, error)``), struct literals and ``var x *Foo``. A generic or trait-object
return, namesakes that disagree, or a re-binding that says nothing leave the hover as it was. Real tree-sitter
grammars, a real index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.config import Settings
from forewarn.workspace import declared_types
from forewarn.workspace.engine import Workspace
from forewarn.workspace.symbols import SymbolLookup
from tests.workspace.lookup_at import resolved_at

WALK_RS = """\
pub struct WalkBuilder {
    depth: usize,
}

impl WalkBuilder {
    pub fn new(path: &str) -> WalkBuilder {
        WalkBuilder { depth: 0 }
    }

    pub fn open(path: &str) -> std::io::Result<Self> {
        Ok(WalkBuilder { depth: 0 })
    }

    pub fn add(&mut self, path: &str) -> &mut WalkBuilder {
        self
    }

    pub fn build(&self) -> Result<Walk, String> {
        Ok(Walk { depth: self.depth })
    }

    pub fn files(&self) -> impl Iterator<Item = Walk> {
        std::iter::empty()
    }
}

impl Default for WalkBuilder {
    fn default() -> Self {
        WalkBuilder { depth: 0 }
    }
}

pub struct Walk {
    depth: usize,
}

impl Walk {
    pub fn add(&mut self, path: &str) {}
    pub fn next(&mut self) -> Option<Walk> {
        None
    }
    pub fn rows(&self) -> Rows {
        Rows {}
    }
}
"""
OTHER_RS = """\
pub struct Rows {}

impl Rows {
    pub fn add(&mut self, row: u8) {}
    pub fn next(&mut self) -> Option<u8> {
        None
    }
    pub fn sheet(&self) -> Sheet {
        Sheet {}
    }
}

pub struct Sheet {}

impl Sheet {
    pub fn add(&mut self, row: u8) {}
    pub fn next(&mut self) -> Option<u8> {
        None
    }
    pub fn sheet(&self) -> Rows {
        Rows {}
    }
}
"""
MAIN_RS = """\
use crate::walk::{Walk, WalkBuilder};
use crate::other::{Rows, Sheet};

mod other;
mod walk;

fn run(path: &str, paper: u8) -> Result<(), String> {
    let mut builder = WalkBuilder::new(path);
    builder.add(path);
    let mut opened = WalkBuilder::open(path)?;
    opened.add(path);
    let mut kept = WalkBuilder::open(path);
    kept.add(path);
    let mut step = builder.build()?;
    step.add(path);
    let mut whole = builder.build();
    whole.add(path);
    let mut files = builder.files();
    files.next();
    let mut literal = Walk { depth: 1 };
    literal.add(path);
    let mut fallback = WalkBuilder::default();
    fallback.add(path);
    let mut rows = step.rows();
    rows.add(paper);
    let mut which = unknown(paper).sheet();
    which.add(paper);
    let mut step = unknown(paper);
    step.add(paper);
    let mut chained = WalkBuilder::new(path).build()?;
    chained.add(path);
    let mut copy = builder.clone();
    copy.add(path);
    Ok(())
}
"""

FOO_GO = """\
package store

type Foo struct {
	n int
}

func NewFoo(n int) (*Foo, error) {
	return &Foo{n: n}, nil
}

func MakeFoo(n int) *Foo {
	return &Foo{n: n}
}

func (f *Foo) Close() error {
	return nil
}
"""
BAR_GO = """\
package store

type Bar struct {
	n int
}

func (b *Bar) Close() error {
	return nil
}
"""
MAIN_GO = """\
package main

import "example.com/app/store"

func main() {
	made := store.MakeFoo(1)
	made.Close()
	opened, err := store.NewFoo(2)
	opened.Close()
	pointed := &store.Bar{n: 3}
	pointed.Close()
	var declared *store.Bar
	declared.Close()
	plain := store.Foo{}
	plain.Close()
	println(err)
}
"""


def _workspace(root: Path) -> Iterator[Workspace]:
    settings = Settings()
    settings.embedder.enabled = False
    with Workspace.open(root, settings, embedder=None) as engine:
        engine.reindex()
        yield engine


@pytest.fixture
def rust(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "walker"
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text('[package]\nname = "walker"\n')
    (root / "src" / "main.rs").write_text(MAIN_RS)
    (root / "src" / "walk.rs").write_text(WALK_RS)
    (root / "src" / "other.rs").write_text(OTHER_RS)
    yield from _workspace(root)


@pytest.fixture
def go(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "app"
    (root / "store").mkdir(parents=True)
    (root / "go.mod").write_text("module example.com/app\n\ngo 1.21\n")
    (root / "main.go").write_text(MAIN_GO)
    (root / "store" / "foo.go").write_text(FOO_GO)
    (root / "store" / "bar.go").write_text(BAR_GO)
    yield from _workspace(root)


def _rs(ws: Workspace, line_text: str, word: str) -> tuple[str, tuple[str, ...]] | None:
    return resolved_at(ws, "src/main.rs", MAIN_RS, line_text, word)


def _go(ws: Workspace, line_text: str, word: str) -> tuple[str, tuple[str, ...]] | None:
    return resolved_at(ws, "main.go", MAIN_GO, line_text, word)


def test_an_associated_function_returning_the_type_constructs_it(rust: Workspace) -> None:
    assert _rs(rust, "builder.add(path)", "add") == ("src/walk.rs", ("WalkBuilder.add",))
    assert _rs(rust, "opened.add(path)", "add") == ("src/walk.rs", ("WalkBuilder.add",))  # Result<Self> with `?`
    assert _rs(rust, "fallback.add(path)", "add") == ("src/walk.rs", ("WalkBuilder.add",))  # `-> Self`
    assert _rs(rust, "literal.add(path)", "add") == ("src/walk.rs", ("Walk.add",))  # a struct literal
    assert _rs(rust, "copy.add(path)", "add") == ("src/walk.rs", ("WalkBuilder.add",))  # `builder.clone()`


def test_a_wrapped_return_needs_the_call_unwrapped(rust: Workspace) -> None:
    assert _rs(rust, "kept.add(path)", "add") != ("src/walk.rs", ("WalkBuilder.add",))  # still an io::Result
    assert _rs(rust, "whole.add(path)", "add") != ("src/walk.rs", ("Walk.add",))
    assert _rs(rust, "chained.add(path)", "add") != ("src/walk.rs", ("WalkBuilder.add",))  # `.build()` follows


def test_a_method_s_declared_return_types_its_variable(rust: Workspace) -> None:
    assert _rs(rust, "step.add(path)", "add") == ("src/walk.rs", ("Walk.add",))  # `builder.build()?`
    assert _rs(rust, "rows.add(paper)", "add") == ("src/other.rs", ("Rows.add",))  # `step.rows()`: one step


def test_a_generic_return_or_disagreeing_namesakes_say_nothing(rust: Workspace) -> None:
    assert _rs(rust, "files.next()", "next") is None  # `-> impl Iterator`
    assert _rs(rust, "which.add(paper)", "add") is None  # Rows::sheet and Sheet::sheet return each other


def test_the_nearest_binding_wins(rust: Workspace) -> None:
    assert _rs(rust, "step.add(paper)", "add") is None  # `let mut step = unknown(paper);` hides the Walk above
    code = MAIN_RS.replace("let mut step = unknown(paper);", "let mut step = WalkBuilder::new(path);")
    assert resolved_at(rust, "src/main.rs", code, "step.add(paper)", "add") == ("src/walk.rs", ("WalkBuilder.add",))


def test_uses_reads_constructed_receivers(rust: Workspace) -> None:
    uses = SymbolLookup(rust.indexer, rust.graph).uses(
        "src/main.rs", MAIN_RS, {"add": [("src/walk.rs", "WalkBuilder.add"), ("src/other.rs", "Sheet.add")]}
    )
    assert uses == {("src/walk.rs", "WalkBuilder.add"): 9}


def test_go_constructors_literals_and_vars_name_their_class(go: Workspace) -> None:
    assert _go(go, "made.Close()", "Close") == ("store/foo.go", ("Foo.Close",))
    assert _go(go, "opened.Close()", "Close") == ("store/foo.go", ("Foo.Close",))  # `(*Foo, error)`
    assert _go(go, "pointed.Close()", "Close") == ("store/bar.go", ("Bar.Close",))
    assert _go(go, "declared.Close()", "Close") == ("store/bar.go", ("Bar.Close",))
    assert _go(go, "plain.Close()", "Close") == ("store/foo.go", ("Foo.Close",))


@pytest.mark.parametrize(
    ("signature", "language", "unwrapped", "results", "expected"),
    [
        ("pub fn new() -> Self", "rust", False, 1, "Owner"),
        ("pub fn open(p: &Path) -> io::Result<Self>", "rust", True, 1, "Owner"),
        ("pub fn open(p: &Path) -> io::Result<Self>", "rust", False, 1, None),
        ("fn get(&self) -> Option<&'a Node<T>>", "rust", True, 1, "Node"),
        ("fn iter(&self) -> impl Iterator<Item = u8>", "rust", False, 1, None),
        ("fn boxed(&self) -> Box<dyn Sink>", "rust", False, 1, None),
        ("fn map<F: Fn(u8) -> u8>(f: F) -> Mapped where F: Copy", "rust", False, 1, "Mapped"),
        ("func NewFoo(n int) (*Foo, error)", "go", False, 2, "Foo"),
        ("func NewFoo(n int) (*Foo, error)", "go", False, 1, None),
        ("func New() *pkg.Engine", "go", False, 1, "Engine"),
        ("func New() []Engine", "go", False, 1, None),
        ("func (f *Foo) Run() *Bar", "go", False, 1, "Bar"),
    ],
)
def test_returned_type(signature: str, language: str, unwrapped: bool, results: int, expected: str | None) -> None:
    assert declared_types.returned_type(signature, language, "Owner", unwrapped, results) == expected


@pytest.mark.parametrize(
    ("statement", "language", "expected"),
    [
        ("let x = Foo { a: 1 };", "rust", ("Foo", None)),
        ("let x = Msg::Move { a: 1 };", "rust", (None, None)),  # an enum's variant, not a class
        ("let x = Foo { a: 1 }.build();", "rust", (None, None)),  # chained: what build returns
        ("let x = y.iter().count();", "rust", (None, None)),
        ('let mut x = walker::WalkBuilder::new(p)\n    .expect("a walker");', "rust", (None, "new")),
        ("let xs = Foo::new();", "rust", None),  # another variable
        ("x := &pkg.Foo{n: 1}", "go", ("Foo", None)),
        ("x, err := pkg.NewFoo(1)", "go", (None, "NewFoo")),
        ("_, x := NewFoo(1)", "go", (None, None)),  # the second result
        ("var x *pkg.Foo", "go", ("Foo", None)),
    ],
)
def test_nearest_binding(statement: str, language: str, expected: tuple[str | None, str | None] | None) -> None:
    bound = declared_types.nearest_binding(statement, "x", language)
    assert ((bound.type, bound.function) if bound else None) == expected
