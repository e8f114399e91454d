"""C++ test runners' failures (Catch2, GoogleTest, CTest's summary), MSVC's errors with a drive letter or a line
only, and linkers' errors read as errors: by ``read_error``, and end to end through the real ``forewarn explain`` on
a real repository (QA pass 7 #3: each said "No error found").

The Catch2 v3.5.2, GoogleTest and CTest outputs are the QA pass's own (spdlog's tests), their paths and lines moved
onto the small repository below; the GNU ld ones were printed by g++ 13 / binutils 2.42 linking a call to a function
never defined (with and without ``-g``); lld's and MSVC's are written in the shapes they print.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from forewarn.workspace.error_text import read_error
from tests.forewarn_run import explained, forewarn_in, remember_gotcha
from tests.gitrepo import Repo

CATCH2 = """
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
spdlog-utests is a Catch2 v3.5.2 host application.
Run with -? for options

-------------------------------------------------------------------------------
rotating_file_logger3
-------------------------------------------------------------------------------
/home/ci/spdlog/tests/test_file_logging.cpp:3
...............................................................................

/home/ci/spdlog/tests/test_file_logging.cpp:11: FAILED:
  REQUIRE( get_filesize(filename) <= max_size )
with expansion:
  1087 (0x43f) <= 1024 (0x400)

===============================================================================
test cases:  101 |  100 passed | 1 failed
assertions: 1093 | 1092 passed | 1 failed

"""
# Catch2 v2 on an MSVC build: the place in parentheses; a section under the test case; an unexpected exception
CATCH2_V2_MSVC = """\
-------------------------------------------------------------------------------
registry
  drop all
-------------------------------------------------------------------------------
C:\\src\\spdlog\\tests\\test_registry.cpp(4)
...............................................................................

C:\\src\\spdlog\\tests\\test_registry.cpp(6): FAILED:
due to unexpected exception with message:
  logger with name 'logger1' already exists

===============================================================================
test cases: 1 | 1 failed
"""
GTEST = """\
[==========] Running 3 tests from 1 test suite.
[----------] 3 tests from RegistryTest
[ RUN      ] RegistryTest.GetByStringView
/home/ci/spdlog/tests/test_registry.cpp:6: Failure
Expected equality of these values:
  spdlog::get("logger1")
    Which is: 0x0
  logger
    Which is: 0x5577f3a0
[  FAILED  ] RegistryTest.GetByStringView (0 ms)
[==========] 3 tests from 1 test suite ran. (1 ms total)
[  PASSED  ] 2 tests.
[  FAILED  ] 1 test, listed below:
[  FAILED  ] RegistryTest.GetByStringView
"""
CTEST = """\
Test project /home/ci/spdlog/build
    Start 1: spdlog-utests
1/1 Test #1: spdlog-utests ....................***Failed    2.31 sec

0% tests passed, 1 tests failed out of 1

Total Test time (real) =   2.32 sec

The following tests FAILED:
\t  1 - spdlog-utests (Failed)
Errors while running CTest
"""
MSVC_ABSOLUTE = (
    "C:\\src\\spdlog\\include\\spdlog\\details\\os-inl.h(13,9): error C3861: 'pthread_threadid_np': identifier not"
    " found\n"
)
MSVC_LINE_ONLY = (  # another machine's checkout (a CI runner's D:\a\…), the line without a column
    "D:\\a\\spdlog\\spdlog\\include\\spdlog\\details\\os-inl.h(13): error C3861: 'pthread_threadid_np': identifier"
    " not found\n"
)
LD = """\
/usr/bin/ld: /tmp/ccKY4JfH.o: in function `main':
example.cpp:(.text+0x5): undefined reference to `spdlog::details::os::thread_id()'
collect2: error: ld returned 1 exit status
"""
LD_DEBUG_INFO = """\
/usr/bin/ld: /tmp/ccbCstDQ.o: in function `main':
/home/ci/spdlog/example/example.cpp:4: undefined reference to `spdlog::details::os::thread_id()'
collect2: error: ld returned 1 exit status
"""
LLD = """\
ld.lld: error: undefined symbol: spdlog::details::os::thread_id()
>>> referenced by example.cpp:4
>>>               /tmp/example-1a2b3c.o:(main)
clang++: error: linker command failed with exit code 1 (use -v to see invocation)
"""


def _frames(text: str) -> list[tuple[str, int | None, str | None]]:
    return [(f.path, f.line, f.function) for f in read_error(text).frames]


def test_a_catch2_failure_is_the_assertion_at_its_test_file_line() -> None:
    report = read_error(CATCH2)
    assert report.kind == "Failure"
    assert report.message == (
        "rotating_file_logger3: REQUIRE( get_filesize(filename) <= max_size ) with expansion: 1087 <= 1024"
    )  # Catch2's hex echo of each number left out: the numbers change between runs, the placeholders stay
    assert report.signature.endswith("with expansion: <n> <= <n>")
    assert _frames(CATCH2) == [("/home/ci/spdlog/tests/test_file_logging.cpp", 11, None)]

    report = read_error(CATCH2_V2_MSVC)
    assert report.message == (
        "registry / drop all: due to unexpected exception with message: logger with name 'logger1' already exists"
    )
    assert _frames(CATCH2_V2_MSVC) == [("C:\\src\\spdlog\\tests\\test_registry.cpp", 6, None)]
    compact = "tests/test_x.cpp:12: failed: a <= b for: 1087 <= 1024\n"  # the compact reporter's one line
    assert (read_error(compact).message, _frames(compact)) == (
        "a <= b for: 1087 <= 1024",
        [("tests/test_x.cpp", 12, None)],
    )


def test_a_googletest_failure_is_what_it_printed_at_its_test_file_line() -> None:
    report = read_error(GTEST)
    assert report.kind == "Failure"
    assert report.message.startswith("RegistryTest.GetByStringView: Expected equality of these values:")
    assert "Which is: 0x0" in report.message and "[  FAILED  ]" not in report.message
    assert _frames(GTEST) == [("/home/ci/spdlog/tests/test_registry.cpp", 6, None)]
    msvc = GTEST.replace(
        "/home/ci/spdlog/tests/test_registry.cpp:6: Failure\n", "C:\\src\\test_registry.cpp(6): error: "
    )
    assert read_error(msvc).message == report.message  # an MSVC build: the place in parentheses, then ``error:``
    assert _frames(msvc) == [("C:\\src\\test_registry.cpp", 6, None)]
    crashed = "[ RUN      ] RegistryTest.Drop\n[  FAILED  ] RegistryTest.Drop (3 ms)\n"  # nothing said why
    assert (read_error(crashed).kind, read_error(crashed).message) == ("Failure", "RegistryTest.Drop")


def test_ctests_summary_names_the_failed_test_program() -> None:
    report = read_error(CTEST)
    assert (report.kind, report.message, report.frames) == ("FAILED", "spdlog-utests (Failed)", ())
    # with --output-on-failure the test's own failure is above the summary: that says why
    assert read_error(GTEST + CTEST).message.startswith("RegistryTest.GetByStringView: Expected equality")


def test_msvc_errors_with_a_drive_letter_or_a_line_only_are_read() -> None:
    for text, path in ((MSVC_ABSOLUTE, "C:\\src\\"), (MSVC_LINE_ONLY, "D:\\a\\")):
        report = read_error(text)
        assert report.signature == "C3861: 'pthread_threadid_np': identifier not found"
        assert [(f.path.startswith(path), f.line) for f in report.frames] == [(True, 13)]


def test_a_linkers_undefined_reference_is_the_error_not_the_drivers_last_line() -> None:
    for text in (LD, LD_DEBUG_INFO):
        assert read_error(text).signature == "error: undefined reference to 'spdlog::details::os::thread_id()'"
    assert _frames(LD) == [("example.cpp", None, "main")]  # ``in function `main':`` above it names the caller
    assert _frames(LD_DEBUG_INFO) == [("/home/ci/spdlog/example/example.cpp", 4, "main")]
    report = read_error(LLD)
    assert report.signature == "error: undefined symbol: spdlog::details::os::thread_id()"
    assert _frames(LLD) == [("example.cpp", 4, None)]
    assert read_error("collect2: error: ld returned 1 exit status\n").message == "ld returned 1 exit status"
    msvc = (  # MSVC's link names the object file, no source place
        'example.obj : error LNK2019: unresolved external symbol "unsigned __int64 __cdecl spdlog::details::os::'
        'thread_id(void)" (?thread_id@os@details@spdlog@@YA_KXZ) referenced in function main\n'
    )
    assert (read_error(msvc).kind, read_error(msvc).frames) == ("LNK2019", ())


# -- end to end: the real CLI on a real git repository with real memories ---------------------------------------

OS_INL_H = """\
#pragma once

#include <cstddef>
#include <pthread.h>

namespace spdlog {
namespace details {
namespace os {

// Return current thread id as size_t
size_t _thread_id() noexcept {
    uint64_t tid;
    pthread_threadid_np(nullptr, &tid);
    return static_cast<size_t>(tid);
}

// Return current thread id as size_t (from thread local storage)
size_t thread_id() noexcept {
    static thread_local const size_t tid = _thread_id();
    return tid;
}

}  // namespace os
}  // namespace details
}  // namespace spdlog
"""
TEST_FILE_LOGGING_CPP = """\
#include "includes.h"

TEST_CASE("rotating_file_logger3", "[rotating_logger]") {
    prepare_logdir();
    size_t max_size = 1024;
    auto logger = spdlog::rotating_logger_mt("logger", "rotating_log", max_size, 0);
    for (int i = 0; i < 10; ++i) {
        logger->info("Test message {}", i);
    }
    logger->flush();
    REQUIRE(get_filesize(filename) <= max_size);
}
"""
TEST_REGISTRY_CPP = """\
#include <gtest/gtest.h>
#include "spdlog/spdlog.h"

TEST(RegistryTest, GetByStringView) {
    auto logger = spdlog::create<spdlog::sinks::null_sink_mt>("logger1");
    EXPECT_EQ(spdlog::get("logger1"), logger);
}
"""
EXAMPLE_CPP = """\
#include "spdlog/spdlog.h"

int main(int, char *[]) {
    return (int)spdlog::details::os::thread_id();
}
"""


@pytest.fixture
def spdlog(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A C++ library's header, a test of each runner and an example, committed, indexed, with a gotcha on
    ``_thread_id`` (its words unlike the errors': found by where they failed) and one on the Catch2 test's line."""
    repo = Repo(tmp_path / "spdlog")
    repo.write("include/spdlog/details/os-inl.h", OS_INL_H)
    repo.write("tests/test_file_logging.cpp", TEST_FILE_LOGGING_CPP)
    repo.write("tests/test_registry.cpp", TEST_REGISTRY_CPP)
    repo.write("example/example.cpp", EXAMPLE_CPP)
    repo.commit("Thread ids, tests and an example")
    forewarn_in(repo.root, "index", "--no-embed")
    ids = {}
    for name, text, where in (
        ("_thread_id", "macOS and iOS only: guard the call by __APPLE__, other platforms use gettid",
         ("--file", "include/spdlog/details/os-inl.h", "--symbol", "_thread_id")),
        ("rotating", "the rotated file may exceed max_size by one message: compare with a margin",
         ("--file", "tests/test_file_logging.cpp", "--line", "11")),
    ):  # fmt: skip
        ids[name] = remember_gotcha(repo.root, text, *where)
    return repo.root, ids


def _explained(root: Path, text: str) -> tuple[dict[str, Any], list[tuple[str, str | None, int | None]]]:
    result = explained(root, text)
    return result, [(p["file"], p["symbol"], p["line"]) for p in result["places"]]


def test_explain_places_runner_failures_on_their_test_file_lines(spdlog: tuple[Path, dict[str, str]]) -> None:
    root, ids = spdlog
    result, places = _explained(root, CATCH2)
    assert places[0][0::2] == ("tests/test_file_logging.cpp", 11)
    assert ids["rotating"] in [m["id"] for m in result["memories"]]
    _, places = _explained(root, GTEST)
    assert places == [("tests/test_registry.cpp", "TEST", 6)]
    result, places = _explained(root, CTEST)
    assert (result["error"]["kind"], places) == ("FAILED", [])


def test_explain_places_msvc_errors_on_the_definition(spdlog: tuple[Path, dict[str, str]]) -> None:
    root, ids = spdlog
    for text in (MSVC_ABSOLUTE, MSVC_LINE_ONLY):
        result, places = _explained(root, text)
        assert places == [("include/spdlog/details/os-inl.h", "spdlog.details.os._thread_id", 13)], text
        assert [m["id"] for m in result["memories"]][:1] == [ids["_thread_id"]]


def test_explain_reads_a_linker_error_and_its_referencing_place(spdlog: tuple[Path, dict[str, str]]) -> None:
    root, _ = spdlog
    where = ("--file", "include/spdlog/details/os-inl.h", "--symbol", "thread_id")
    text = "thread_id is defined in os-inl.h: build with SPDLOG_COMPILED_LIB or include the header-only variant"
    made = remember_gotcha(root, text, *where)
    defined = ("include/spdlog/details/os-inl.h", "spdlog.details.os.thread_id", 18)
    for text, line in ((LD, None), (LD_DEBUG_INFO, 4), (LLD, 4)):
        # the caller's place, then the definition the linker did not find, by its name (defined once here)
        result, places = _explained(root, text)
        assert places == [("example/example.cpp", "main", line), defined], text
        assert made in [m["id"] for m in result["memories"]], text
        assert result["places"][1]["label"] == "spdlog::details::os::thread_id"  # as C++ writes it, not dotted
    elsewhere = LD.replace("os::thread_id()", "os::process_id()")  # defined nowhere in the workspace: the caller
    assert _explained(root, elsewhere)[1] == [("example/example.cpp", "main", None)]
    said = forewarn_in(root, "explain", "--lexical", stdin=LD).stdout
    assert re.search(r"^error: undefined reference to 'spdlog::details::os::thread_id\(\)'", said, re.MULTILINE)
