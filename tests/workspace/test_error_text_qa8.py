"""QA pass 8 #7 and #8: a bare ``Error: …`` (JavaScript's ``new Error("…")``) or ``Exception: …`` (Python's) is
read with its message where it was thrown, and a tool's ``Error: (none)`` field is not; cargo's and rustc's closing
"could not compile …" / "aborting due to …" lines are no error when a rustc error is above them, and a rustc
warning's ``-->`` place is no place the error went through. The rustc texts are the shapes rustc 1.8x prints."""

from __future__ import annotations

from forewarn.workspace.error_text import read_error

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
