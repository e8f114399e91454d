"""Go test reports and sanitizer crash reports read as errors: by ``read_error``, by the agent hook's failure
detection, and end to end through the real ``forewarn explain`` and ``forewarn hook`` on a real repository.

The reports are written here in the shapes ``go test`` (plain, ``-v``, testify, a panic in a test), AddressSanitizer,
LeakSanitizer and UBSan print (QA pass 5, F3: all of them read as "No error found").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forewarn.mcp.hooks import hosts
from forewarn.mcp.hooks.events import Host
from forewarn.workspace.error_text import read_error
from tests.forewarn_run import forewarn_in
from tests.gitrepo import Repo

GO_TEST = """\
--- FAIL: TestReadFiles (0.00s)
    reader_test.go:42: walker followed symlink to an ancestor of the walker root: resource exhaustion
    reader_test.go:47: 2 files read, want 1
FAIL
FAIL\tgithub.com/junegunn/fzf/src\t0.012s
FAIL
"""

# -v: a test's lines come right after its ``=== RUN``, before its verdict; a passing test's log is no failure
GO_TEST_VERBOSE = """\
=== RUN   TestTokenize
    tokenizer_test.go:18: tokens: [a b]
--- PASS: TestTokenize (0.00s)
=== RUN   TestParseRange
=== RUN   TestParseRange/open_end
    options_test.go:311: parseRange("3..") = 3..0, want 3..-1
--- FAIL: TestParseRange (0.00s)
    --- FAIL: TestParseRange/open_end (0.00s)
FAIL
exit status 1
FAIL\tgithub.com/junegunn/fzf/src\t0.031s
"""

GO_TESTIFY = """\
--- FAIL: TestHistory_append (0.00s)
    history_test.go:57:
        \tError Trace:\t/home/ci/fzf/src/history_test.go:57
        \tError:      \tNot equal:
        \t            \texpected: 3
        \t            \tactual  : 4
        \tTest:       \tTestHistory_append
        \tMessages:   \tduplicate entry kept after reload
FAIL
FAIL\tgithub.com/junegunn/fzf/src\t0.009s
"""

GO_TEST_PANIC = """\
--- FAIL: TestMerger (0.00s)
panic: runtime error: index out of range [3] with length 3 [recovered]
\tpanic: runtime error: index out of range [3] with length 3

goroutine 19 [running]:
testing.tRunner.func1.2({0x5b3e20, 0xc0000a8018})
\t/usr/local/go/src/testing/testing.go:1632 +0x230
panic({0x5b3e20?, 0xc0000a8018?})
\t/usr/local/go/src/runtime/panic.go:785 +0x132
github.com/junegunn/fzf/src.(*Merger).Get(0xc0000c6000, 0x3)
\t/home/ci/fzf/src/merger.go:66 +0x2f4
github.com/junegunn/fzf/src.TestMerger(0xc0000b4680)
\t/home/ci/fzf/src/merger_test.go:71 +0x1c5
testing.tRunner(0xc0000b4680, 0x5d9a70)
\t/usr/local/go/src/testing/testing.go:1690 +0xf4
exit status 2
FAIL\tgithub.com/junegunn/fzf/src\t0.015s
"""

GO_VET = """\
# github.com/junegunn/fzf/src
# [github.com/junegunn/fzf/src]
./terminal.go:1204:3: fmt.Sprintf format %d has arg name of wrong type string
FAIL\tgithub.com/junegunn/fzf/src [build failed]
"""

ASAN_HEAP = (
    "=================================================================\n"
    "==31337==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000031 at pc 0x55c3e1 "
    "bp 0x7ffc1a8e0 sp 0x7ffc1a8d8\n"
    """\
WRITE of size 1 at 0x602000000031 thread T0
    #0 0x7f2b8c45a1e0 in __interceptor_strcpy ../../../../src/libsanitizer/asan/asan_interceptors.cpp:440
    #1 0x55c3e1 in f_strftime /home/ci/build/jq/src/builtin.c:1850:12
    #2 0x55a002 in process /home/ci/build/jq/src/main.c:200:3
    #3 0x7f2b8c029d8f in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58
    #4 0x41a2b4  (/home/ci/build/jq/jq+0x41a2b4)

0x602000000031 is located 0 bytes to the right of 1-byte region [0x602000000030,0x602000000031)
allocated by thread T0 here:
    #0 0x7f2b8c4b5867 in __interceptor_malloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:145
    #1 0x55d0e1 in jv_mem_alloc /home/ci/build/jq/src/jv_alloc.c:141:15

SUMMARY: AddressSanitizer: heap-buffer-overflow /home/ci/build/jq/src/builtin.c:1850:12 in f_strftime
Shadow bytes around the buggy address:
  0x0c047fff8000: fa fa 00 00 fa fa[01]fa fa fa fa fa fa fa fa fa
==31337==ABORTING
"""
)

ASAN_SEGV_TAIL = """\
    #0 0x4f2a1b in f_strftime (/home/ci/build/jq/jq+0x4f2a1b)
SUMMARY: AddressSanitizer: SEGV src/builtin.c:1850:12 in f_strftime
==4242==ABORTING
"""

UBSAN = """\
src/jv.c:712:17: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'
SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior src/jv.c:712:17 in
"""

LSAN = """\
=================================================================
==9911==ERROR: LeakSanitizer: detected memory leaks

Direct leak of 24 byte(s) in 1 object(s) allocated from:
    #0 0x7f1b2c6b5867 in malloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:145
    #1 0x55d0e1 in jv_mem_alloc /home/ci/build/jq/src/jv_alloc.c:141:15
    #2 0x55a3c2 in jvp_string_new /home/ci/build/jq/src/jv.c:1102:28

SUMMARY: AddressSanitizer: 24 byte(s) leaked in 1 allocation(s).
"""

DOUBLE_FREE = """\
==77==ERROR: AddressSanitizer: attempting double-free on 0x602000000010 in thread T0:
    #0 0x7f2b8c4b5537 in __interceptor_free ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:127
    #1 0x55d1f0 in jv_mem_free /home/ci/build/jq/src/jv_alloc.c:180:3
    #2 0x55c002 in Parser::drop(int) const /home/ci/build/jq/src/parser.cc:88:5
"""


def _frames(text: str) -> list[tuple[str, int | None, str | None]]:
    return [(f.path, f.line, f.function) for f in read_error(text).frames]


@pytest.mark.parametrize(
    ("text", "kind", "signature"),
    [
        (GO_TEST, "FAIL", "FAIL: TestReadFiles: walker followed symlink to an ancestor of the walker root: resource "
         "exhaustion"),
        (GO_TEST_VERBOSE, "FAIL", "FAIL: TestParseRange: parseRange(<n>) = <n>..<n>, want <n>..<n>"),
        (GO_TESTIFY, "FAIL", "FAIL: TestHistory_append: Not equal: expected: <n> actual : <n>; duplicate entry kept "
         "after reload"),
        (ASAN_HEAP, "heap-buffer-overflow", "heap-buffer-overflow: on address <addr>; WRITE of size <n>"),
        (ASAN_SEGV_TAIL, "SEGV", "SEGV"),
        (UBSAN, "runtime error", "runtime error: signed integer overflow: <n> + <n> cannot be represented in type "
         "'int'"),
        (LSAN, "memory leaks", "memory leaks: Direct leak of <n> byte(s) in <n> object(s)"),
        (DOUBLE_FREE, "double-free", "double-free: on <addr> in thread T0"),
    ],
)  # fmt: skip
def test_go_test_and_sanitizer_reports_read_as_errors(text: str, kind: str, signature: str) -> None:
    report = read_error(text)
    assert (report.kind, report.signature) == (kind, signature)


def test_a_failed_go_test_is_placed_on_its_test_file_and_the_code_its_name_names() -> None:
    """Like pytest's frames (the test's line and the code under it): the test file's printed lines, named by the
    package ``FAIL`` line so a file name many packages share is placed, then the file the test tests."""
    assert _frames(GO_TEST) == [
        ("github.com/junegunn/fzf/src/reader_test.go", 42, "TestReadFiles"),
        ("github.com/junegunn/fzf/src/reader_test.go", 47, "TestReadFiles"),
        ("github.com/junegunn/fzf/src/reader.go", None, "ReadFiles"),
    ]
    assert _frames(GO_TEST_VERBOSE)[0] == ("github.com/junegunn/fzf/src/options_test.go", 311, "TestParseRange")
    assert _frames(GO_TESTIFY)[-1] == ("github.com/junegunn/fzf/src/history.go", None, "append")  # TestType_Method
    passing = "=== RUN   TestTokenize\n    tokenizer_test.go:18: tokens: [a b]\n--- PASS: TestTokenize (0.00s)\n"
    for text in (passing + "PASS\nok  \tgithub.com/junegunn/fzf/src\t0.010s\n", "exit status 1\n", "Exit code 2\n"):
        assert not read_error(text).found, text  # a passing test's log, a bare exit: no error


def test_a_panic_in_a_test_names_the_method_it_went_through() -> None:
    """Go prints a method as ``pkg.(*Type).Name(args)`` and a test runner closure as ``tRunner.func1.2``; the panic,
    not the test's ``--- FAIL`` line, is the error (as is a vet/compile error in the run)."""
    report = read_error(GO_TEST_PANIC)
    assert report.signature == "panic: runtime error: index out of range [<n>] with length <n>"
    assert read_error(GO_VET).signature == "error: fmt.Sprintf format %d has arg name of wrong type string"
    frames = _frames(GO_TEST_PANIC)
    assert ("/home/ci/fzf/src/merger.go", 66, "Get") in frames
    assert ("/home/ci/fzf/src/merger_test.go", 71, "TestMerger") in frames
    assert frames[0] == ("/usr/local/go/src/testing/testing.go", 1632, "tRunner")


def test_sanitizer_frames_keep_the_programs_code_and_leave_the_runtime_out() -> None:
    """Innermost first; the sanitizer's interceptors, libc and ``(binary+0x…)`` frames carry no place of ours."""
    assert _frames(ASAN_HEAP) == [
        ("/home/ci/build/jq/src/builtin.c", 1850, "f_strftime"),
        ("/home/ci/build/jq/src/main.c", 200, "process"),
        ("/home/ci/build/jq/src/jv_alloc.c", 141, "jv_mem_alloc"),
    ]
    assert _frames(ASAN_SEGV_TAIL) == [("src/builtin.c", 1850, "f_strftime")]  # the SUMMARY's place
    assert _frames(UBSAN) == [("src/jv.c", 712, None)]
    assert _frames(LSAN)[0] == ("/home/ci/build/jq/src/jv_alloc.c", 141, "jv_mem_alloc")
    assert _frames(DOUBLE_FREE)[1] == ("/home/ci/build/jq/src/parser.cc", 88, "drop")  # C++: the method's name


def test_the_hook_counts_a_go_test_or_sanitizer_report_as_a_failed_run() -> None:
    """A shell event with no exit code (Claude's PostToolUse): the output says whether the run failed."""
    passing = "=== RUN   TestTokenize\n    tokenizer_test.go:18: tokens: [a b]\n--- PASS: TestTokenize (0.00s)\nPASS\n"
    for report, failed in ((GO_TEST, True), (ASAN_HEAP, True), (UBSAN, True), (LSAN, True), (passing, False)):
        event = hosts.parse(
            Host.CLAUDE,
            {"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Bash",
             "tool_input": {"command": "make check"}, "tool_response": {"stdout": "", "stderr": report}},
        )  # fmt: skip
        assert event is not None and event.exit_code is None and event.failed == failed, report


# -- end to end: the real CLI on a real git repository with real accepted memories ------------------------------

GO_MOD = "module example.com/shop\n\ngo 1.22\n"
MONEY_GO = """\
package billing

import "strconv"

// ParseAmount reads a typed amount in cents.
func ParseAmount(text string) (int, error) {
\treturn strconv.Atoi(text)
}
"""
MONEY_TEST_GO = """\
package billing

import "testing"

func TestParseAmount(t *testing.T) {
\tgot, err := ParseAmount("1,50")
\tif err != nil || got != 150 {
\t\tt.Errorf("ParseAmount(%q) = %d, %v; want 150", "1,50", got, err)
\t}
}
"""
LEGACY_MONEY_TEST_GO = """\
package legacy

import "testing"

func TestRound(t *testing.T) {
\tif Round(5) != 5 {
\t\tt.Fatal("round")
\t}
}
"""
LEGACY_MONEY_GO = "package legacy\n\nfunc Round(n int) int {\n\treturn n\n}\n"
FORMAT_C = """\
#include <string.h>
#include <time.h>

int format_time(char *out, size_t size, const char *fmt, const struct tm *tm) {
  char buf[16];
  size_t n = strftime(buf, sizeof buf, fmt, tm);
  memcpy(out, buf, n + 1);
  return (int)n;
}
"""

BILLING_FAILED = """\
=== RUN   TestParseAmount
    money_test.go:8: ParseAmount("1,50") = 0, strconv.Atoi: parsing "1,50": invalid syntax; want 150
--- FAIL: TestParseAmount (0.00s)
FAIL
exit status 1
FAIL\texample.com/shop/billing\t0.004s
ok  \texample.com/shop/legacy\t0.003s
FAIL
"""
FORMAT_CRASH = (
    "==5150==ERROR: AddressSanitizer: stack-buffer-overflow on address 0x7ffd4c2e1a30 at pc 0x4f10a2 "
    "bp 0x7ffd4c2e19f0 sp 0x7ffd4c2e19e8\n"
    """\
READ of size 17 at 0x7ffd4c2e1a30 thread T0
    #0 0x7f6a1c4a2d2c in __interceptor_memcpy ../../../../src/libsanitizer/asan/asan_interceptors_memintrinsics.cpp:63
    #1 0x4f10a2 in format_time /builds/ci/shop/native/format.c:7:3
    #2 0x4f1200 in main /builds/ci/shop/native/main.c:12:3
    #3 0x7f6a1c229d8f in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58
    #4 0x4f0e14 in _start (/builds/ci/shop/native/fmt+0x4f0e14)

SUMMARY: AddressSanitizer: stack-buffer-overflow /builds/ci/shop/native/format.c:7:3 in format_time
==5150==ABORTING
"""
)


@pytest.fixture
def shop(tmp_path: Path) -> tuple[Path, str, str]:
    """A Go module with two ``money_test.go`` and a C file, committed, indexed, with one accepted gotcha on the Go
    code under test and one on the C function (their words unlike the failures': found by where they failed)."""
    repo = Repo(tmp_path / "shop")
    repo.write("go.mod", GO_MOD)
    repo.write("billing/money.go", MONEY_GO)
    repo.write("billing/money_test.go", MONEY_TEST_GO)
    repo.write("legacy/money.go", LEGACY_MONEY_GO)
    repo.write("legacy/money_test.go", LEGACY_MONEY_TEST_GO)
    repo.write("native/format.c", FORMAT_C)
    repo.write("native/main.c", "int main(void) { return 0; }\n")
    repo.commit("Shop: billing, legacy rounding and the native time formatter")
    forewarn_in(repo.root, "index", "--no-embed")
    ids = []
    for text, file, symbol in (
        ("amounts typed by European users carry a decimal comma; convert it before Atoi", "billing/money.go",
         "ParseAmount"),
        ("the scratch array holds 16 chars while long locales spell weekdays longer", "native/format.c",
         "format_time"),
    ):  # fmt: skip
        done = forewarn_in(
            repo.root, "remember", text, "--type", "gotcha", "--file", file, "--symbol", symbol, "--json"
        )
        ids.append(json.loads(done.stdout)["id"])
    return repo.root, ids[0], ids[1]


def test_explain_reads_a_go_test_failure_and_an_asan_crash(shop: tuple[Path, str, str]) -> None:
    root, billing_id, format_id = shop
    done = forewarn_in(root, "explain", "--lexical", "--json", stdin=BILLING_FAILED)
    result = json.loads(done.stdout)
    assert result["error"]["kind"] == "FAIL"
    # the package line places the test among two money_test.go; the test's name leads to the code it tests
    places = [(p["file"], p["symbol"]) for p in result["places"]]
    assert places == [("billing/money_test.go", "TestParseAmount"), ("billing/money.go", "ParseAmount")]
    assert [m["id"] for m in result["memories"]] == [billing_id]

    done = forewarn_in(root, "explain", "--lexical", stdin=FORMAT_CRASH)
    assert "error: stack-buffer-overflow: on address" in done.stdout
    assert "through native/format.c:7  format_time" in done.stdout
    assert format_id in done.stdout and "(on code the error went through)" in done.stdout


def test_the_failure_hook_tells_a_go_test_failure_and_stays_quiet_on_a_bare_exit(shop: tuple[Path, str, str]) -> None:
    root, billing_id, _ = shop

    def failed(error: str, session: str) -> str:
        event = {"session_id": session, "cwd": str(root), "hook_event_name": "PostToolUseFailure",
                 "tool_name": "Bash", "tool_input": {"command": "go test ./..."}, "error": error}  # fmt: skip
        return forewarn_in(root, "hook", "claude", stdin=json.dumps(event)).stdout

    told = json.loads(failed("Exit code 1\n" + BILLING_FAILED, "a"))["hookSpecificOutput"]["additionalContext"]
    assert billing_id in told and "TestParseAmount" in told
    assert failed("Exit code 1\n", "b") == ""


def test_a_go_test_reaches_its_unexported_method_whatever_the_case(tmp_path: Path) -> None:
    """fzf's TestReadFiles tests ``Reader.readFiles``: the name read off the test is ``ReadFiles``, and Go's
    unexported names start lowercase. With no exact match, the one definition named so in any case is it."""
    repo = Repo(tmp_path / "fz")
    repo.write("go.mod", "module example.com/fz\n\ngo 1.21\n")
    repo.write("reader.go", "package fz\n\ntype Reader struct{}\n\nfunc (r *Reader) readFiles() int {\n\treturn 1\n}\n")
    repo.write(
        "reader_test.go",
        'package fz\n\nimport "testing"\n\nfunc TestReadFiles(t *testing.T) {\n'
        '\tif (&Reader{}).readFiles() != 2 {\n\t\tt.Error("walker followed a symlink loop")\n\t}\n}\n',
    )
    repo.commit("Reader")
    forewarn_in(repo.root, "index", "--no-embed")
    text = "the walker must not follow a symlink to an ancestor of its root"
    done = forewarn_in(repo.root, "remember", text, "--type", "gotcha", "--file", "reader.go", "--symbol",
                     "Reader.readFiles", "--json")  # fmt: skip
    memory_id = json.loads(done.stdout)["id"]
    failed = "--- FAIL: TestReadFiles (0.00s)\n    reader_test.go:7: walker followed a symlink loop\nFAIL\n"
    failed += "FAIL\texample.com/fz\t0.004s\nFAIL\n"
    result = json.loads(forewarn_in(repo.root, "explain", "--lexical", "--json", stdin=failed).stdout)
    places = [(p["file"], p["symbol"]) for p in result["places"]]
    assert places == [("reader_test.go", "TestReadFiles"), ("reader.go", "Reader.readFiles")]
    assert memory_id in [m["id"] for m in result["memories"]]
