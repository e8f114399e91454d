"""QA pass 8 #9: a build that printed several errors is read as several errors, each with its own place(s), in
printed order; never as the last error going through the places of the others. The texts are the shapes tsc 5.x,
rustc 1.8x, gcc 13, javac 21, mypy 1.x and go 1.22 print."""

from __future__ import annotations

from forewarn.workspace.error_text import MAX_ERRORS, read_error, read_errors

TSC = """\
packages/zod/src/v4/core/util.ts(745,11): error TS2322: Type 'string' is not assignable to type 'number'.
packages/zod/src/v4/classic/schemas.ts(1672,14): error TS2554: Expected 2 arguments, but got 1.
"""
RUSTC = """\
   Compiling ignore v0.4.33 (/tmp/qa8/r/ripgrep/crates/ignore)
error[E0308]: mismatched types
    --> crates/ignore/src/walk.rs:1205:28
     |
1205 |                     return Some(ent);
     |                            ^^^^^^^^^ expected `Option<Result<DirEntry, Error>>`, found `Option<DirEntry>`
     |
help: try wrapping the expression in `Ok`
     |
1205 |                     return Some(Ok(ent));
     |                                 +++   +

error[E0599]: no method named `with_start` found for struct `grep_matcher::Match` in the current scope
   --> crates/printer/src/standard.rs:1089:33
    |
1089|                     line = line.with_start2(upto);
    |                                 ^^^^^^^^^^^ help: there is a method with a similar name: `with_start`

For more information about this error, try `rustc --explain E0308`.
error: could not compile `ignore` (lib) due to 2 previous errors
"""
RUSTC_WARNED_BETWEEN = """\
error[E0425]: cannot find value `walker` in this scope
 --> src/walk.rs:3:5
  |
3 |     walker
  |     ^^^^^^ not found in this scope

warning: unused variable: `depth`
 --> src/walk.rs:7:9
  |
7 |     let depth = 1;
  |         ^^^^^ help: if this is intentional, prefix it with an underscore: `_depth`

error[E0308]: mismatched types
  --> src/walk.rs:12:5
   |
12 |     depth
   |     ^^^^^ expected `()`, found `usize`

error: aborting due to 2 previous errors; 1 warning emitted
"""
GCC_WARNED_BETWEEN = """\
src/jv.c: In function 'jv_array_get':
src/jv.c:12:7: error: 'idx' undeclared (first use in this function)
   12 |   if (idx < 0) return jv_invalid();
      |       ^~~
src/jv.c:30:9: warning: unused variable 'n' [-Wunused-variable]
   30 |     int n = 0;
      |         ^
src/jv.c:41:3: error: too few arguments to function 'jv_free'
make: *** [Makefile:12: src/jv.o] Error 1
"""
JAVAC = """\
src/main/java/x/Node.java:12: error: cannot find symbol
        return parent.depthh();
                     ^
  symbol:   method depthh()
  location: variable parent of type Node
src/main/java/x/Tree.java:40: error: incompatible types: String cannot be converted to int
        int n = name;
                ^
2 errors
"""
MYPY = """\
src/shop/billing.py:6: error: Incompatible return value type (got "str", expected "int")  [return-value]
src/shop/shipping.py:2: error: Value of type "object" is not indexable  [index]
Found 2 errors in 2 files (checked 3 source files)
"""
GO_BUILD = """\
# example.com/walker
./walk.go:12:5: undefined: walkDir
./walk.go:20:2: declared and not used: depth
"""


def places(text: str) -> list[list[tuple[str, int | None]]]:
    return [[(f.path, f.line) for f in report.frames] for report in read_errors(text)]


def test_tscs_two_errors_are_two_errors_each_at_its_own_place() -> None:
    errors = read_errors(TSC)
    assert [(e.kind, e.message) for e in errors] == [
        ("TS2322", "Type 'string' is not assignable to type 'number'."),
        ("TS2554", "Expected 2 arguments, but got 1."),
    ]
    assert places(TSC) == [
        [("packages/zod/src/v4/core/util.ts", 745)],
        [("packages/zod/src/v4/classic/schemas.ts", 1672)],
    ]
    assert read_error(TSC) == errors[0]  # the first error: the ones after it most often follow from it


def test_rustcs_two_errors_are_two_errors_and_cargos_closing_line_is_neither() -> None:
    assert [e.kind for e in read_errors(RUSTC)] == ["E0308", "E0599"]
    assert places(RUSTC) == [[("crates/ignore/src/walk.rs", 1205)], [("crates/printer/src/standard.rs", 1089)]]


def test_a_warning_between_two_errors_is_neither_error_nor_either_errors_place() -> None:
    assert [e.kind for e in read_errors(RUSTC_WARNED_BETWEEN)] == ["E0425", "E0308"]
    assert places(RUSTC_WARNED_BETWEEN) == [[("src/walk.rs", 3)], [("src/walk.rs", 12)]]  # not the warning's 7
    gcc = read_errors(GCC_WARNED_BETWEEN)
    assert [e.message for e in gcc] == ["'idx' undeclared (first use in this function)",
                                        "too few arguments to function 'jv_free'"]  # fmt: skip
    assert places(GCC_WARNED_BETWEEN) == [[("src/jv.c", 12)], [("src/jv.c", 41)]]  # not the warning's 30


def test_javacs_mypys_and_go_builds_errors_are_each_their_own() -> None:
    assert [e.message for e in read_errors(JAVAC)] == [
        "cannot find symbol (symbol: method depthh(); location: variable parent of type Node)",  # QA pass 9, #7
        "incompatible types: String cannot be converted to int",
    ]  # fmt: skip
    assert places(JAVAC) == [[("src/main/java/x/Node.java", 12)], [("src/main/java/x/Tree.java", 40)]]
    assert places(MYPY) == [[("src/shop/billing.py", 6)], [("src/shop/shipping.py", 2)]]
    assert [e.signature for e in read_errors(GO_BUILD)] == [
        "error: undefined: walkDir", "error: declared and not used: depth",
    ]  # fmt: skip
    assert places(GO_BUILD) == [[("./walk.go", 12)], [("./walk.go", 20)]]


def test_a_single_error_and_a_traceback_read_as_one_error_as_before() -> None:
    one = "src/jv.c:12:7: warning: unused variable 'x'\nsrc/jv.c:40:3: error: 'y' undeclared\n"
    assert [(e.kind, e.message) for e in read_errors(one)] == [("error", "'y' undeclared")]
    assert places(one) == [[("src/jv.c", 40)]]
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "/srv/app/jobs.py", line 3, in <module>\n    run()\n'
        '  File "/srv/app/run.py", line 9, in run\n    raise ValueError("bad")\n'
        "ValueError: bad\n"
    )
    assert [e.signature for e in read_errors(traceback)] == ["ValueError: bad"]
    assert places(traceback) == [[("/srv/app/run.py", 9), ("/srv/app/jobs.py", 3)]]
    # a traceback printed after a build's errors is what failed last: it is the error, as before
    assert [e.kind for e in read_errors(TSC + traceback)] == ["ValueError"]


def test_a_builds_many_errors_are_bounded_first_first_and_a_repeated_one_is_read_once() -> None:
    many = "".join(f"src/a{n}.ts({n + 1},3): error TS2304: Cannot find name 'x{n}'.\n" for n in range(40))
    errors = read_errors(many)
    assert len(errors) == MAX_ERRORS
    assert errors[0].message == "Cannot find name 'x0'." and errors[-1].frames[0].path == f"src/a{MAX_ERRORS - 1}.ts"
    twice = TSC + TSC.splitlines(keepends=True)[0]  # tsc reports a file's error again when it reads it twice
    assert [e.kind for e in read_errors(twice)] == ["TS2322", "TS2554"]
