"""gdb and lldb backtraces and Rust panics read as errors: by ``read_error``, and end to end through the real
``forewarn explain`` and ``forewarn hook`` on a real repository.

The C++, C and Rust outputs below were printed by gdb 13 (``gdb -batch -ex run -ex bt``), rustc/cargo 1.95
(``RUST_BACKTRACE=1`` and ``=full``, ``cargo test``) on tiny programs; lldb's are written in the shapes lldb prints
on Linux and macOS (QA pass 6: "a gdb backtrace is not read as frames; a real rustc panic gave nothing").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from forewarn.workspace.error_text import read_error
from tests.forewarn_run import forewarn_in
from tests.gitrepo import Repo

GDB_CPP = """\
[Thread debugging using libthread_db enabled]
Using host libthread_db library "/lib/x86_64-linux-gnu/libthread_db.so.1".

Program received signal SIGSEGV, Segmentation fault.
0x000055555555519b in ns::Klass::method (this=0x7fffffffe698, n=3) at src/foo.cpp:5
5\t  int method(int n) { return p[n] + 1; }
#0  0x000055555555519b in ns::Klass::method (this=0x7fffffffe698, n=3) at src/foo.cpp:5
#1  0x00005555555551c6 in ns::twice<int> (x=3) at src/foo.cpp:7
#2  0x000055555555514e in run (n=3) at src/foo.cpp:9
#3  0x000055555555515e in main () at src/foo.cpp:10
"""

# glibc with debug info (its own sources named), a thread, and frames an interactive gdb wrapped at 80 columns
GDB_ABORT = (
    "[New Thread 0x7ffff7dd06c0 (LWP 22603)]\n"
    "jq: src/jv.c:6: jvp_array_read: Assertion `i < a->length' failed.\n"
    "\n"
    'Thread 2 "jq" received signal SIGABRT, Aborted.\n'
    "[Switching to Thread 0x7ffff7dd06c0 (LWP 22603)]\n"
    "__pthread_kill_implementation (threadid=<optimized out>, signo=signo@entry=6,"
    " no_tid=no_tid@entry=0) at ./nptl/pthread_kill.c:44\n"
    "44\t./nptl/pthread_kill.c: No such file or directory.\n"
    "#0  __pthread_kill_implementation (threadid=<optimized out>, signo=signo@entry=6,"
    " no_tid=no_tid@entry=0) at ./nptl/pthread_kill.c:44\n"
    "#1  0x00007ffff7e5ef4f in __pthread_kill_internal (signo=6, threadid=<optimized out>) at"
    " ./nptl/pthread_kill.c:78\n"
    "#2  0x00007ffff7e0ffb2 in __GI_raise (sig=sig@entry=6) at ../sysdeps/posix/raise.c:26\n"
    "#3  0x00007ffff7dfa472 in __GI_abort () at ./stdlib/abort.c:79\n"
    "#4  0x00007ffff7dfa395 in __assert_fail_base (fmt=0x7ffff7f6fa90 \"%s%s%s:%u: %s%sAssertion `%s'"
    ' failed.\\n%n",\n'
    '    assertion=assertion@entry=0x55555555600d "i < a->length", file=file@entry=0x555555556004'
    ' "src/jv.c",\n'
    "    line=line@entry=6, function=function@entry=0x555555556023 <__PRETTY_FUNCTION__.0>"
    ' "jvp_array_read")\n'
    "    at ./assert/assert.c:94\n"
    '#5  0x00007ffff7e08ec2 in __GI___assert_fail (assertion=0x55555555600d "i < a->length",'
    ' file=0x555555556004 "src/jv.c", line=6, function=0x555555556023 <__PRETTY_FUNCTION__.0>'
    ' "jvp_array_read") at ./assert/assert.c:103\n'
    "#6  0x0000555555555192 in jvp_array_read (a=0x5555555592a0, i=3) at src/jv.c:6\n"
    "#7  0x00005555555551ad in jv_array_get (a=0x5555555592a0, idx=3)\n"
    "    at src/jv.c:11\n"
    "#8  0x00007ffff7e5d1f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442\n"
    "#9  0x00007ffff7edd8ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81\n"
)

# no debug info for libc: its frames say only which library they are in
GDB_NO_LIBC_SYMBOLS = """\
Program received signal SIGSEGV, Segmentation fault.
0x00007ffff7f1b9bc in __strlen_avx2 () from /lib/x86_64-linux-gnu/libc.so.6
#0  0x00007ffff7f1b9bc in __strlen_avx2 () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007ffff7e2f3a8 in strdup () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x0000555555566b1e in jv_string_copy (s=0x0) at /home/ci/build/jq/src/jv.c:1102
#3  0x0000555555555e2f in main (argc=1, argv=0x7fffffffe5d8) at /home/ci/build/jq/src/main.c:290
#4  0x00007ffff7dfad90 in __libc_start_call_main () from /lib/x86_64-linux-gnu/libc.so.6
#5  0x0000555555558b25 in _start ()
"""

# a Rust program under gdb, stopped in the panic: std's frames (no address when inlined) and ours
GDB_RUST = (
    "Breakpoint 1, std::panicking::rust_panic () at library/std/src/panicking.rs:886\n"
    "#0  std::panicking::rust_panic () at library/std/src/panicking.rs:886\n"
    "#5  0x00005555555a490c in core::panicking::panic_fmt () at library/core/src/panicking.rs:80\n"
    "#7  0x0000555555569d84 in core::slice::index::{impl#2}::index<alloc::string::String> (self=3,"
    " slice=...) at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/slice/index.rs:272\n"
    "#9  alloc::vec::{impl#14}::index<alloc::string::String, usize, alloc::alloc::Global>"
    " (self=0x7fffffffe420, index=3) at"
    " /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/alloc/src/vec/mod.rs:3804\n"
    "#10 0x000055555556959a in rp::assets::HighlightingAssets::get_syntax (self=0x7fffffffe420, i=3) at"
    " src/main.rs:5\n"
    "#11 0x0000555555569827 in rp::main () at src/main.rs:11\n"
)

LLDB_LINUX = (
    "(lldb) bt\n"
    "* thread #1, name = 'foo', stop reason = signal SIGSEGV: address not mapped to object (fault"
    " address: 0x0)\n"
    "  * frame #0: 0x0000555555555131 foo`ns::Klass::method(this=0x00007fffffffe3f8, n=3) at"
    " foo.cpp:5:30\n"
    "    frame #1: 0x0000555555555156 foo`int ns::twice<int>(x=3) at foo.cpp:7:52\n"
    "    frame #2: 0x000055555555516e foo`run(n=3) at foo.cpp:9:25\n"
    "    frame #3: 0x0000555555555189 foo`main at foo.cpp:10:29\n"
    "    frame #4: 0x00007ffff7829d90 libc.so.6`__libc_start_call_main(main=(foo`main at foo.cpp:10),"
    " argc=1, argv=0x00007fffffffe528) at libc_start_call_main.h:58:16\n"
    "    frame #5: 0x0000555555555065 foo`_start + 37\n"
)

LLDB_MACOS = """\
* thread #1, queue = 'com.apple.main-thread', stop reason = EXC_BAD_ACCESS (code=1, address=0x18)
  * frame #0: 0x0000000100012f4c jq`jvp_array_read(a=<unavailable>, i=3) at jv.c:6:10 [opt]
    frame #1: 0x0000000100013a10 jq`jv_array_get(a=0x0000600000c04000, idx=3) at jv.c:11:15
    frame #2: 0x000000018a8e1a2c libsystem_c.dylib`abort + 180
    frame #3: 0x000000018a6f2b98 dyld`start + 6076
"""

# Rust 1.91+: the thread's id after its name; the message on the line below the place (since 1.73)
RUST_PANIC = """\
thread 'main' (23600) panicked at src/main.rs:5:24:
index out of bounds: the len is 1 but the index is 3
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
"""
RUST_PANIC_1_73 = """\
thread 'main' panicked at src/assets.rs:8:59:
called `Option::unwrap()` on a `None` value
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
"""
RUST_PANIC_OLD = """\
thread 'main' panicked at 'called `Option::unwrap()` on a `None` value', src/assets.rs:8:59
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
"""
RUST_BACKTRACE = """\
thread 'main' (23686) panicked at src/main.rs:5:24:
index out of bounds: the len is 1 but the index is 3
stack backtrace:
   0: __rustc::rust_begin_unwind
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/std/src/panicking.rs:689:5
   1: core::panicking::panic_fmt
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:80:14
   2: core::panicking::panic_bounds_check
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:271:5
   3: <usize as core::slice::index::SliceIndex<[T]>>::index
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/slice/index.rs:272:10
   4: <alloc::vec::Vec<T,A> as core::ops::index::Index<I>>::index
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/alloc/src/vec/mod.rs:3804:9
   5: rp::assets::HighlightingAssets::get_syntax
             at ./src/main.rs:5:24
   6: rp::main
             at ./src/main.rs:11:22
   7: core::ops::function::FnOnce::call_once
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/ops/function.rs:250:5
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.
"""
RUST_BACKTRACE_FULL = (
    "thread 'main' (29303) panicked at src/main.rs:5:24:\n"
    "index out of bounds: the len is 1 but the index is 3\n"
    "stack backtrace:\n"
    "   0:     0x5641e307cd6a - std[e28293b1aa0f68bd]::backtrace_rs::backtrace::libunwind::trace\n"
    "                               at"
    " /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/std/src/../../backtrace/src/backtrace/libun"
    "wind.rs:117:9\n"
    "   5:     0x5641e308d09a - core[c1f1a4ba060b9bfa]::fmt::write\n"
    "  20:     0x55992645e59a - rp::assets::HighlightingAssets::get_syntax::h02e8d66d4dd40d0f\n"
    "                               at /home/ci/rp/src/main.rs:5:24\n"
    "  21:     0x55992645e827 - rp::main::h01c7bd80a0a1de8d\n"
    "                               at /home/ci/rp/src/main.rs:11:22\n"
    "  22:     0x55992645e8ab - core::ops::function::FnOnce::call_once::h6c0b6d7f4d2d6c2e\n"
    "                               at"
    " /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/ops/function.rs:250:5\n"
    "  31:     0x7f3b6a229d90 - __libc_start_call_main\n"
    "                               at ./csu/../sysdeps/nptl/libc_start_call_main.h:58:16\n"
    "  33:     0x5599264561e5 - _start\n"
    "  34:                0x0 - <unknown>\n"
)

# ``cargo test`` with two failing tests; cargo's own ``error: test failed`` (stderr) printed first
CARGO_TEST = """\
error: test failed, to rerun pass `--bin rp`

running 2 tests
test tests::lookup ... FAILED
test tests::unwrap_none ... FAILED

failures:

---- tests::lookup stdout ----

thread 'tests::lookup' (23742) panicked at src/main.rs:5:24:
index out of bounds: the len is 0 but the index is 0
stack backtrace:
   6: rp::assets::HighlightingAssets::get_syntax
             at ./src/main.rs:5:24
   7: rp::tests::lookup
             at ./src/main.rs:19:22
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.

---- tests::unwrap_none stdout ----

thread 'tests::unwrap_none' (23743) panicked at src/main.rs:24:11:
a syntax set is loaded
stack backtrace:
   3: core::option::expect_failed
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/option.rs:2245:5
   5: rp::tests::unwrap_none
             at ./src/main.rs:24:11
   6: rp::tests::unwrap_none::{{closure}}
             at ./src/main.rs:22:21
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.


failures:
    tests::lookup
    tests::unwrap_none

test result: FAILED. 0 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.20s
"""


def _frames(text: str) -> list[tuple[str, int | None, str | None]]:
    return [(f.path, f.line, f.function) for f in read_error(text).frames]


@pytest.mark.parametrize(
    ("text", "kind", "signature"),
    [
        (GDB_CPP, "SIGSEGV", "SIGSEGV: Segmentation fault"),
        (GDB_ABORT, "assertion", "assertion: i < a->length failed"),  # the assert that raised the abort
        (GDB_NO_LIBC_SYMBOLS, "SIGSEGV", "SIGSEGV: Segmentation fault"),
        (LLDB_LINUX, "SIGSEGV", "SIGSEGV: address not mapped to object (fault address: 0x0)"),
        (LLDB_MACOS, "EXC_BAD_ACCESS", "EXC_BAD_ACCESS: code=<n>, address=0x18"),
        (RUST_PANIC, "panic", "panic: index out of bounds: the len is <n> but the index is <n>"),
        (RUST_PANIC_1_73, "panic", "panic: called `Option::unwrap()` on a `None` value"),
        (RUST_PANIC_OLD, "panic", "panic: called `Option::unwrap()` on a `None` value"),
        (RUST_BACKTRACE_FULL, "panic", "panic: index out of bounds: the len is <n> but the index is <n>"),
        (CARGO_TEST, "panic", "panic: a syntax set is loaded"),  # the last panic, not cargo's line
    ],
)  # fmt: skip
def test_a_debuggers_signal_and_a_rust_panic_read_as_the_error(text: str, kind: str, signature: str) -> None:
    report = read_error(text)
    assert (report.kind, report.signature) == (kind, signature)


def test_gdb_frames_are_read_innermost_first_and_the_c_library_is_left_out() -> None:
    """The stop place under the signal line, ``#N`` frames with and without an address, frames gdb wrapped onto
    indented lines; glibc's own sources, its reserved names and ``from libc.so.6`` frames carry no place of ours."""
    assert _frames(GDB_CPP) == [
        ("src/foo.cpp", 5, "method"),
        ("src/foo.cpp", 7, "twice"),
        ("src/foo.cpp", 9, "run"),
        ("src/foo.cpp", 10, "main"),
    ]
    assert _frames(GDB_ABORT) == [("src/jv.c", 6, "jvp_array_read"), ("src/jv.c", 11, "jv_array_get")]
    assert _frames(GDB_NO_LIBC_SYMBOLS) == [
        ("/home/ci/build/jq/src/jv.c", 1102, "jv_string_copy"),
        ("/home/ci/build/jq/src/main.c", 290, "main"),
    ]
    assert _frames(GDB_RUST) == [("src/main.rs", 5, "get_syntax"), ("src/main.rs", 11, "main")]


def test_lldb_frames_name_the_function_and_leave_system_modules_out() -> None:
    assert _frames(LLDB_LINUX) == [
        ("foo.cpp", 5, "method"),
        ("foo.cpp", 7, "twice"),
        ("foo.cpp", 9, "run"),
        ("foo.cpp", 10, "main"),
    ]
    assert _frames(LLDB_MACOS) == [("jv.c", 6, "jvp_array_read"), ("jv.c", 11, "jv_array_get")]  # ``[opt]`` read


def test_a_rust_panic_is_placed_where_it_panicked_and_through_its_backtrace() -> None:
    """The panic's own place first (every form), then RUST_BACKTRACE's frames by their function (a symbol's hash and
    a closure left off); std, core, alloc and libc frames are left out."""
    assert _frames(RUST_PANIC) == [("src/main.rs", 5, None)]
    assert _frames(RUST_PANIC_1_73) == _frames(RUST_PANIC_OLD) == [("src/assets.rs", 8, None)]
    assert _frames(RUST_BACKTRACE) == [
        ("src/main.rs", 5, None),
        ("./src/main.rs", 5, "get_syntax"),
        ("./src/main.rs", 11, "main"),
    ]
    assert _frames(RUST_BACKTRACE_FULL) == [
        ("src/main.rs", 5, None),
        ("/home/ci/rp/src/main.rs", 5, "get_syntax"),
        ("/home/ci/rp/src/main.rs", 11, "main"),
    ]


def test_a_cargo_test_failure_is_placed_by_the_panic_it_reports() -> None:
    """Two tests panicked: the last is the error, and the frames are those printed under it, not the other test's."""
    assert _frames(CARGO_TEST) == [
        ("src/main.rs", 24, None),
        ("./src/main.rs", 24, "unwrap_none"),
        ("./src/main.rs", 22, "unwrap_none"),
    ]
    compile_error = "error[E0308]: mismatched types\n --> src/main.rs:4:18\n"
    assert read_error(compile_error).signature == "E0308: mismatched types"  # rustc's own errors as before
    assert _frames(compile_error) == [("src/main.rs", 4, None)]


# -- end to end: the real CLI on a real git repository with real accepted memories ------------------------------

JV_C = """\
#include <assert.h>

typedef struct { int length; int *elements; } jv_array;

static int *jvp_array_read(jv_array *a, int i) {
  assert(i < a->length);
  return &a->elements[i];
}

int jv_array_get(jv_array *a, int idx) {
  int *slot = jvp_array_read(a, idx);
  return slot ? *slot : -1;
}
"""
ASSETS_RS = """\
pub struct HighlightingAssets {
    names: Vec<String>,
}

impl HighlightingAssets {
    pub fn get_syntax(&self, language: Option<&str>) -> &str {
        let wanted = language.unwrap();
        self.names.iter().find(|n| n.as_str() == wanted).unwrap()
    }
}
"""


@pytest.fixture
def native(tmp_path: Path) -> tuple[Path, str, str]:
    """A C file and a Rust file, committed, indexed, with one accepted gotcha on each function the failures go
    through (their words unlike the failures': found by where they failed)."""
    repo = Repo(tmp_path / "native")
    repo.write("src/jv.c", JV_C)
    repo.write("src/assets.rs", ASSETS_RS)
    repo.commit("Arrays and syntax lookup")
    forewarn_in(repo.root, "index", "--no-embed")
    ids = []
    for text, file, symbol in (
        ("callers bound-check the index against the length before reading a slot", "src/jv.c", "jvp_array_read"),
        ("a file with no extension has no language until its first line is sniffed", "src/assets.rs",
         "HighlightingAssets.get_syntax"),
    ):  # fmt: skip
        done = forewarn_in(
            repo.root, "remember", text, "--type", "gotcha", "--file", file, "--symbol", symbol, "--json"
        )
        ids.append(json.loads(done.stdout)["id"])
    return repo.root, ids[0], ids[1]


def _places(root: Path, text: str) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    result = json.loads(forewarn_in(root, "explain", "--lexical", "--json", stdin=text).stdout)
    return result, [(p["file"], p["symbol"]) for p in result["places"]]


def test_explain_places_a_gdb_backtrace_and_a_rust_panic_on_their_definitions(native: tuple[Path, str, str]) -> None:
    root, jv_id, assets_id = native
    result, places = _places(root, GDB_ABORT)
    assert places == [("src/jv.c", "jvp_array_read"), ("src/jv.c", "jv_array_get")]
    assert [m["id"] for m in result["memories"]] == [jv_id]

    _, places = _places(root, LLDB_MACOS)  # lldb's bare file names, placed by the workspace's one jv.c
    assert places[0] == ("src/jv.c", "jvp_array_read")

    for panic in (RUST_PANIC_1_73, RUST_PANIC_OLD):
        result, places = _places(root, panic)
        assert places == [("src/assets.rs", "HighlightingAssets.get_syntax")], panic
        assert [m["id"] for m in result["memories"]] == [assets_id]


def test_the_failure_hook_tells_what_is_known_where_a_rust_panic_went(native: tuple[Path, str, str]) -> None:
    root, _, assets_id = native
    event = {"session_id": "s", "cwd": str(root), "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
             "tool_input": {"command": "cargo run"}, "error": "Exit code 101\n" + RUST_PANIC_1_73}  # fmt: skip
    told = json.loads(forewarn_in(root, "hook", "claude", stdin=json.dumps(event)).stdout)
    assert assets_id in told["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize(
    ("text", "frame"),
    [
        ("jq: src/jv.c:859: jvp_array_read: Assertion `idx >= 0' failed.\n", ("src/jv.c", 859, "jvp_array_read")),
        (  # C++: glibc prints the whole signature as the function
            "fmt_test: src/core.cc:12: int fmt::detail::parse(const char*, int): Assertion `n > 0' failed.\n"
            "Aborted (core dumped)\n",
            ("src/core.cc", 12, "parse"),
        ),
        ("Assertion failed: (n > 0), function parse, file src/core.c, line 12.\n", ("src/core.c", 12, "parse")),
    ],
)
def test_a_failed_assert_is_the_error_and_its_place(text: str, frame: tuple[str, int, str]) -> None:
    report = read_error(text)
    assert report.kind == "assertion" and report.signature.endswith(" failed"), report
    assert (report.frames[0].path, report.frames[0].line, report.frames[0].function) == frame


def test_a_signature_keeps_a_standards_number_and_reads_every_quoting_alike() -> None:
    assert read_error("ArgumentError: invalid byte sequence in UTF-8\n").signature.endswith("in UTF-8")
    assert "ISO-8859-1" in read_error("UnicodeDecodeError: 'ISO-8859-1' codec can't decode byte\n").signature
    said = {
        read_error(f"NoMethodError: undefined method {quoted} for nil\n").signature
        for quoted in ("`start_with?'", "'start_with?'", "\u2018start_with?\u2019")
    }
    assert said == {"NoMethodError: undefined method 'start_with?' for nil"}
    assert read_error("TimeoutError: timed out after 3000 ms\n").signature == "TimeoutError: timed out after <n> ms"
