"""QA pass 8 #7 and #8: a bare ``Error: …`` (JavaScript's ``new Error("…")``) or ``Exception: …`` (Python's) is
read with its message where it was thrown, and a tool's ``Error: (none)`` field is not; cargo's and rustc's closing
"could not compile …" / "aborting due to …" lines are no error when a rustc error is above them, and a rustc
warning's ``-->`` place is no place the error went through. The rustc texts are the shapes rustc 1.8x prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.workspace.error_text import read_error, read_errors
from tests.forewarn_run import explained, forewarn_in, remember_gotcha
from tests.gitrepo import Repo

NODE = """\
/home/u/app/node_modules/zod/v4/core/util.js:748
    throw new Error(".merge() cannot be used on object schemas containing refinements");
    ^

Error: .merge() cannot be used on object schemas containing refinements
    at merge (/home/u/zod/packages/zod/src/v4/core/util.ts:748:13)
    at Object.<anonymous> (/home/u/app/index.ts:10:3)
"""
PYTHON = """\
Traceback (most recent call last):
  File "/srv/app/jobs.py", line 3, in <module>
    run()
Exception: boom happened
"""
# Gemini CLI's shell tool result: its "Error:" field is the tool's, not the program's
GEMINI_SHELL = """\
Command: pytest
Directory: (root)
Stdout: Traceback (most recent call last):
  File "/r/billing/money.py", line 3, in total
    return sum(x)
TypeError: unsupported operand

Stderr: (empty)
Error: (none)
Exit Code: 1
Signal: (none)
"""
RUSTC = """\
error[E0308]: mismatched types
   --> crates/searcher/src/line_buffer.rs:420:24
    |
420 |         let len: u32 = self.buf.len();
    |                  ---   ^^^^^^^^^^^^^^ expected `u32`, found `usize`
    |
help: you can convert a `usize` to a `u32` and panic if the converted value doesn't fit
    |
420 |         let len: u32 = self.buf.len().try_into().unwrap();
    |                                      ++++++++++++++++++++

For more information about this error, try `rustc --explain E0308`.
error: could not compile `grep-searcher` (lib) due to 1 previous error
"""
WARNED = """\
warning: unused variable: `depth`
    --> crates/ignore/src/walk.rs:1772:13
     |
1772 |         let depth = work.dent.depth();
     |             ^^^^^ help: if this is intentional, prefix it with an underscore: `_depth`

error[E0599]: no method named `add_parent` found for struct `Ignore` in the current scope
   --> crates/ignore/src/walk.rs:1250:30
    |
1250|             let (ig, err) = self.ig_root.add_parent(path);
    |                                          ^^^^^^^^^^ help: there is a method with a similar name: `add_parents`

error: aborting due to 1 previous error; 1 warning emitted
"""


def test_a_bare_error_or_exception_is_read_with_its_message_where_it_was_thrown() -> None:
    node = read_error(NODE)
    assert (node.kind, node.message) == ("Error", ".merge() cannot be used on object schemas containing refinements")
    assert node.frames[0].path.endswith("core/util.ts") and node.frames[0].line == 748
    python = read_error(PYTHON)
    assert (python.kind, python.message) == ("Exception", "boom happened")
    gemini = read_error(GEMINI_SHELL)
    assert (gemini.kind, gemini.message) == ("TypeError", "unsupported operand")  # not the tool's "Error: (none)"
    assert not read_error("Error: could not reach the registry, retrying\n").found  # a log line: nothing thrown


def test_rustcs_error_is_the_error_not_cargos_closing_line_and_a_warnings_place_is_not_its() -> None:
    built = read_error(RUSTC)
    assert (built.kind, built.message) == ("E0308", "mismatched types")
    warned = read_error(WARNED)
    assert warned.kind == "E0599"
    assert [(f.path, f.line) for f in warned.frames] == [("crates/ignore/src/walk.rs", 1250)]  # not the warning's 1772
    alone = read_error("error: could not compile `grep-searcher` (lib) due to 1 previous error\n")
    assert alone.message.startswith("could not compile")  # nothing above it: cargo's line is all there is


# -- what the first pass left: pytest's and a console's marked lines, Python 3.11's carets, Node's error codes, and
# the place of the error that is reported when several are -------------------------------------------------------
PYTEST_E = """\
    def test_total():
>       raise Exception("boom happened")
E       Exception: boom happened

tests/test_money.py:3: Exception
"""
PYTHON_CARETS = """\
Traceback (most recent call last):
  File "/srv/app/jobs.py", line 3, in <module>
    total = 1 + run()
                ^^^^^
Exception: boom happened
"""
NODE_CODE = """\
node:internal/modules/esm/resolve:873
  throw new ERR_MODULE_NOT_FOUND(packageName, fileURLToPath(base), null);
        ^

Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /home/u/app/index.js
    at packageResolve (node:internal/modules/esm/resolve:873:9)
    at load (/home/u/app/src/config.js:12:20)

Node.js v22.14.0
"""
RUSTC_TWO = """\
error[E0425]: cannot find value `walker` in this scope
 --> src/walk.rs:3:5
  |
3 |     walker
  |     ^^^^^^ not found in this scope

warning: unused variable: `depth`
 --> src/walk.rs:7:9

error[E0308]: mismatched types
 --> src/walk.rs:12:5
  |
12|     depth
  |     ^^^^^ expected `()`, found `usize`

error: aborting due to 2 previous errors; 1 warning emitted
"""
TSC_TWO = """\
src/util.ts(745,11): error TS2339: Property 'checks' does not exist on type 'Def'.
src/schemas.ts(1672,19): error TS2345: Argument of type 'this' is not assignable to parameter of type 'Obj'.
"""


def test_a_marked_bare_exception_and_one_above_carets_are_read() -> None:
    for text in (PYTEST_E, "FAILED tests/test_money.py::test_total - Exception: boom happened\n", PYTHON_CARETS):
        found = read_error(text)
        assert (found.kind, found.message) == ("Exception", "boom happened"), text
    console = read_error("> throw new Error('boom')\nUncaught Error: boom\n")
    assert (console.kind, console.message) == ("Error", "boom")


def test_nodes_error_code_is_read_with_its_kind_and_message() -> None:
    found = read_error(NODE_CODE)
    assert found.kind == "Error[ERR_MODULE_NOT_FOUND]"
    assert found.message == "Cannot find package 'zod' imported from /home/u/app/index.js"
    assert [(f.path, f.line) for f in found.frames] == [("/home/u/app/src/config.js", 12)]


def test_each_compiler_error_is_read_with_its_own_place() -> None:  # QA pass 8 #9: not one error through both
    rust = read_errors(RUSTC_TWO)
    assert [r.kind for r in rust] == ["E0425", "E0308"]
    assert [[(f.path, f.line) for f in r.frames] for r in rust] == [[("src/walk.rs", 3)], [("src/walk.rs", 12)]]
    assert read_error(RUSTC_TWO) == rust[0]  # the first error: the others most often follow from it
    tsc = read_errors(TSC_TWO)
    assert [r.kind for r in tsc] == ["TS2339", "TS2345"]
    assert [[(f.path, f.line) for f in r.frames] for r in tsc] == [[("src/util.ts", 745)], [("src/schemas.ts", 1672)]]
    gcc = read_error("src/jv.c:12:7: warning: unused variable 'x'\nsrc/jv.c:40:3: error: 'y' undeclared\n")
    assert [(f.path, f.line) for f in gcc.frames] == [("src/jv.c", 40)]  # a warning's line is no place


# -- end to end: the real CLI on a small real repository with real memories -----------------------------------------
WALK_RS = """\
pub struct Worker {
    depth: usize,
}

impl Worker {
    pub fn run_one(&self) -> usize {
        let depth = self.depth;
        self.depth
    }

    pub fn next(&self) -> Option<usize> {
        Some(self.depth + 1)
    }
}
"""
UTIL_TS = """\
export function merge(a: object, b: object): object {
  if ("refine" in a) {
    throw new Error(".merge() cannot be used on object schemas containing refinements");
  }
  return { ...a, ...b };
}
"""
RUSTC_WARNED_IN_REPO = """\
warning: unused variable: `depth`
 --> src/walk.rs:7:13
  |
7 |         let depth = self.depth;
  |             ^^^^^ help: if this is intentional, prefix it with an underscore: `_depth`

error[E0599]: no method named `add_parent` found for struct `Worker` in the current scope
  --> src/walk.rs:12:14
   |
12 |         Some(self.add_parent(1))
   |                   ^^^^^^^^^^

error: aborting due to 1 previous error; 1 warning emitted
error: could not compile `walker` (lib) due to 1 previous error; 1 warning emitted
"""
NODE_IN_REPO = """\
Error: .merge() cannot be used on object schemas containing refinements
    at merge (/home/u/app/src/util.ts:3:11)
    at Object.<anonymous> (/home/u/app/index.ts:10:3)
"""


@pytest.fixture
def workspace(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A Rust and a TypeScript file, committed, indexed, with a gotcha on each function the errors concern."""
    repo = Repo(tmp_path / "walker")
    repo.write("src/walk.rs", WALK_RS)
    repo.write("src/util.ts", UTIL_TS)
    repo.commit("Walker and merge")
    forewarn_in(repo.root, "index", "--no-embed")
    ids = {}
    for name, text, rel in (
        ("run_one", "keep the queue's order: the parallel walker relies on it", "src/walk.rs"),
        ("next", "a walker resumes from the ignore stack it was built with", "src/walk.rs"),
        ("merge", "shapes with checks cannot be combined: extend the shape instead", "src/util.ts"),
    ):
        ids[name] = remember_gotcha(repo.root, text, "--file", rel, "--symbol", name)
    return repo.root, ids


def test_explain_on_rustc_offers_the_errors_function_not_the_warnings(workspace: tuple[Path, dict[str, str]]) -> None:
    root, ids = workspace
    result = explained(root, RUSTC_WARNED_IN_REPO)
    assert result["error"]["signature"].startswith("E0599: no method named")  # not cargo's "could not compile"
    assert [(p["file"], p["line"]) for p in result["places"]] == [("src/walk.rs", 12)]
    offered = [m["id"] for m in result["memories"]]
    assert ids["next"] in offered and ids["run_one"] not in offered


def test_explain_reads_a_thrown_bare_error_with_its_message(workspace: tuple[Path, dict[str, str]]) -> None:
    root, ids = workspace
    result = explained(root, NODE_IN_REPO)
    assert (result["error"]["kind"], result["error"]["message"]) == (
        "Error", ".merge() cannot be used on object schemas containing refinements",
    )  # fmt: skip
    assert ids["merge"] in [m["id"] for m in result["memories"]]
    said = forewarn_in(root, "explain", "--lexical", stdin=NODE_IN_REPO).stdout
    assert said.startswith("error: Error: .merge() cannot be used")
