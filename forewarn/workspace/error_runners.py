"""C and C++ test runners' failures and linkers' errors, read from a command's output (pure: no I/O, no index);
``error_text`` reads the rest of an error with them.

* Catch2 (v2, v3): ``tests/x.cpp:92: FAILED:`` (an MSVC build: ``tests\\x.cpp(92): FAILED:``) and the assertion on
  the lines below it (``  REQUIRE( a <= b )``, ``with expansion:``, ``due to unexpected exception …``), under its
  test case's ``----`` header block (the test's name and sections); the compact reporter's one line
  ``tests/x.cpp:92: failed: a <= b for: 1087 <= 1024``.
* GoogleTest: ``tests/x.cpp:57: Failure`` (an MSVC build: ``tests\\x.cpp(57): error: Value of: …``) and the lines
  below it (``Expected equality of these values:``, ``Value of: …``), in the test ``[ RUN      ]`` opened; a test
  reported ``[  FAILED  ]`` with no failure printed (it crashed), by its name.
* CTest's summary, ``The following tests FAILED:`` / ``\\t  1 - utests (Failed)``: which tests failed, no place.
* GNU ld (``x.cpp:(.text+0x2a): undefined reference to `ns::f()'``, ``x.cpp:12: …`` with debug info), lld
  (``ld.lld: error: undefined symbol: ns::f()`` over ``>>> referenced by x.cpp:12``) and MSVC's link (``x.obj :
  error LNK2019: …``); the compiler driver's ``collect2: error: ld returned 1 exit status`` says only that the
  link failed: it is the error when nothing above it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from forewarn.workspace.error_frames import LEFT_OUT, MAX_LINE_CHARS, Frame

RUNNER_FAILURE = "Failure"  # a failed assertion of a test runner (as Ruby's minitest and RSpec ones read)
CTEST_FAILED = "FAILED"  # CTest's summary: a test program failed, what it printed is not in the output
MAX_ASSERTION_LINES = 12  # an assertion's expression and expansion lines kept; past these it is a dump
# the driver's line after a failed link: the undefined reference above it is the error
LINKER_WRAPPER_ERRORS = ("ld returned", "linker command failed")

_PLACE = r"(?P<path>(?:[A-Za-z]:)?[^\s:()]{1,1000}?)(?::(?P<line>\d{1,9})|\((?P<mline>\d{1,9})\))"

# -- Catch2 ------------------------------------------------------------------------------------------------------
_CATCH2_FAILED_RE = re.compile(r"^" + _PLACE + r": FAILED:\s*$")
_CATCH2_COMPACT_RE = re.compile(r"^" + _PLACE + r": failed: (?P<msg>.+)$")
_CATCH2_RULE_RE = re.compile(r"^-{20,}$")  # the lines around a test case's name (and its sections)
_CATCH2_END_RE = re.compile(r"^(?:={20,}|-{20,}|\.{20,})$")
_CATCH2_HEX_ECHO_RE = re.compile(r"(?<=\d) \(0x[0-9a-fA-F]{1,16}\)")  # ``1087 (0x43f)``: the number again, in hex
_CATCH2_RUN_END_RE = re.compile(r"^={20,}$")  # the totals after the last test case
CATCH2_MAX_NAME_LINES = 8  # a header's test case name and its sections, between its two rules

# -- GoogleTest --------------------------------------------------------------------------------------------------
_GTEST_FAILURE_RE = re.compile(r"^(?:" + _PLACE + r"|unknown file): Failure$")
_GTEST_MSVC_FAILURE_RE = re.compile(r"^" + _PLACE + r": error: (?P<msg>.*)$")  # only inside a test gtest ran
_GTEST_RUN_RE = re.compile(r"^\[ RUN      \] (?P<test>\S{1,500})")
_GTEST_VERDICT_RE = re.compile(r"^\[ {1,8}(?P<verdict>FAILED|OK|SKIPPED) {1,8}\] (?P<test>[^\s,]{1,500})(?: \(|$)")
_GTEST_END_RE = re.compile(r"^\[[ =A-Z-]{10}\] ")

# -- CTest -------------------------------------------------------------------------------------------------------
_CTEST_HEAD_RE = re.compile(r"^The following tests FAILED:$")  # not "did not run:": those were disabled
_CTEST_TEST_RE = re.compile(r"^\s*\d{1,9} - (?P<test>.{1,500}?) \((?P<why>[^()]{1,100})\)(?:\s+\S.*)?$")

# -- linkers -----------------------------------------------------------------------------------------------------
# ``/usr/bin/ld: /tmp/ccX.o: in function `main':`` over GNU ld's error; newer binutils prefix its lines ``…/ld: ``
_LD_PREFIX_RE = re.compile(r"^(?:\S{0,1000}?/)?(?:ld|ld\.bfd|ld\.gold|ld\.lld|ld64\.lld|lld|lld-link)(?:\.exe)?: ")
_LD_IN_FUNCTION_RE = re.compile(r"^\S{1,1000}: in function [`'\u2018](?P<func>[^`'\u2019]{1,1000})['\u2019]:$")
_LD_REFERENCE_RE = re.compile(
    r"^(?P<path>(?:[A-Za-z]:)?[^\s:()]{1,1000}?):(?:\(\.[\w.$]{1,200}\+0x[0-9a-fA-F]{1,16}\)|(?P<line>\d{1,9})): "
    r"(?P<msg>(?:undefined reference to|multiple definition of) .+)$"
)
_LD_ERROR_RE = re.compile(r"^(?:error: )?(?P<msg>(?:undefined|duplicate) symbol: .+|(?:cannot|unable to) find .+)$")
_LLD_REFERENCED_RE = re.compile(
    r"^>>> referenced by (?P<path>[^\s:()]{1,1000}):(?P<line>\d{1,9})(?: \((?P<full>[^()]{1,1000}):\d{1,9}\))?\s*$"
)
_MSVC_LINK_RE = re.compile(r"^\S{1,1000} : (?:fatal )?error (?P<code>LNK\d{4}): (?P<msg>.+)$")
_DRIVER_ERROR_RE = re.compile(
    r"^(?:collect2|(?:\S{0,1000}/)?(?:clang(?:\+\+)?|g\+\+|gcc|c\+\+|cc)(?:-\d{1,3})?(?:\.exe)?): "
    r"(?:fatal )?error: (?P<msg>.+)$"
)


@dataclass(frozen=True, slots=True)
class RunnerFailure:
    """A failed test read from a runner's report: what it said, where (innermost first)."""

    kind: str
    message: str
    frames: list[Frame]
    end: int  # the index of the line after its report


def runner_test_failure(lines: list[str]) -> RunnerFailure | None:
    """The last failed assertion of a Catch2 or GoogleTest report (or a GoogleTest test failed with nothing
    printed), placed on its test file's line; None without one."""
    last: RunnerFailure | None = None
    for found in (_catch2_failure(lines), _gtest_failure(lines)):
        if found is not None and (last is None or found.end > last.end):
            last = found
    return last


def ctest_failure(lines: list[str]) -> RunnerFailure | None:
    """CTest's ``The following tests FAILED:`` summary: the failed tests' names and why (``Failed``, ``SEGFAULT``,
    ``Timeout``); None without one."""
    for start in range(len(lines) - 1, -1, -1):
        if not _CTEST_HEAD_RE.match(lines[start].strip()):
            continue
        tests: list[str] = []
        end = start + 1
        while end < len(lines) and len(lines[end]) <= MAX_LINE_CHARS and (m := _CTEST_TEST_RE.match(lines[end])):
            tests.append(f"{m['test'].strip()} ({m['why'].strip()})")
            end += 1
        if tests:
            return RunnerFailure(CTEST_FAILED, "; ".join(tests), [], end)
    return None


def linker_error(line: str) -> tuple[str, str] | None:
    """(kind, message) when the stripped ``line`` is a linker's error (or the driver's line after one), else
    None."""
    m = _DRIVER_ERROR_RE.match(line)
    if m:
        return "error", m["msg"].strip()
    m = _MSVC_LINK_RE.match(line)
    if m:
        return m["code"], m["msg"].strip()
    rest = _LD_PREFIX_RE.sub("", line, count=1)
    m = _LD_REFERENCE_RE.match(rest)
    if m:
        return "error", m["msg"].strip()
    m = _LD_ERROR_RE.match(rest) if rest != line or rest.startswith("error: ") else None
    return ("error", m["msg"].strip()) if m else None


def linker_frame(lines: list[str], i: int) -> Frame | None:
    """The place a linker's error names on ``lines[i]``: the referencing file and line (GNU ld's, with the
    function ``in function `main':`` above it names; lld's ``>>> referenced by``); None for another line."""
    line = _LD_PREFIX_RE.sub("", lines[i].strip(), count=1)
    m = _LD_REFERENCE_RE.match(line)
    if m:
        above = _LD_IN_FUNCTION_RE.match(_LD_PREFIX_RE.sub("", lines[i - 1].strip(), count=1)) if i > 0 else None
        func = above["func"].split("(", 1)[0].rsplit("::", 1)[-1].strip() if above else None
        return Frame(m["path"], int(m["line"]) if m["line"] else None, func or None)
    m = _LLD_REFERENCED_RE.match(line)
    if m:
        return Frame(m["full"] or m["path"], int(m["line"]))
    return LEFT_OUT if _LD_IN_FUNCTION_RE.match(line) else None


def _catch2_failure(lines: list[str]) -> RunnerFailure | None:
    """The last ``path:line: FAILED:`` block (or compact ``failed:`` line) of a Catch2 report."""
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i].rstrip()
        if len(line) > MAX_LINE_CHARS:
            continue
        compact = _CATCH2_COMPACT_RE.match(line)
        if compact:
            return RunnerFailure(RUNNER_FAILURE, compact["msg"].strip(), [_place(compact)], i + 1)
        m = _CATCH2_FAILED_RE.match(line)
        if m is None:
            continue
        said, end = _block(lines, i + 1, _CATCH2_END_RE)
        expanded = _CATCH2_HEX_ECHO_RE.sub("", " ".join(said))
        return RunnerFailure(RUNNER_FAILURE, _titled(_catch2_test(lines, i), expanded), [_place(m)], end)
    return None


def _catch2_test(lines: list[str], i: int) -> str | None:
    """The test case (and sections) of the header block above the failure at ``lines[i]``: ``name / section``."""
    rules: list[int] = []
    for j in range(i - 1, -1, -1):  # a test case's later failures are printed under its one header
        if _CATCH2_RUN_END_RE.match(lines[j]) or (rules and rules[0] - j > CATCH2_MAX_NAME_LINES):
            break
        if _CATCH2_RULE_RE.match(lines[j]):
            rules.append(j)
            if len(rules) == 2:
                break
    if len(rules) < 2:
        return None
    names = [x.strip() for x in lines[rules[1] + 1 : rules[0]] if x.strip()]
    return " / ".join(names) or None


def _gtest_failure(lines: list[str]) -> RunnerFailure | None:
    """The last failure GoogleTest printed in a test (``path:line: Failure`` and its lines), else the last test it
    reported ``[  FAILED  ]`` by name."""
    test: str | None = None
    found: RunnerFailure | None = None
    failed_at: tuple[str, int] | None = None
    for i, line in enumerate(lines):
        if len(line) > MAX_LINE_CHARS:
            continue
        m = _GTEST_RUN_RE.match(line)
        if m:
            test = m["test"]
            continue
        verdict = _GTEST_VERDICT_RE.match(line)
        if verdict and verdict["verdict"] == "FAILED":
            failed_at = failed_at or (verdict["test"], i)
            continue
        head = _GTEST_FAILURE_RE.match(line) or (_GTEST_MSVC_FAILURE_RE.match(line) if test else None)
        if head is None:
            continue
        said, end = _block(lines, i + 1, _GTEST_END_RE)
        first = head.groupdict().get("msg")
        frames = [_place(head)] if head["path"] else []
        found = RunnerFailure(RUNNER_FAILURE, _titled(test, " ".join([first or "", *said]).strip()), frames, end)
        failed_at = None
    if found is None and failed_at is not None:
        return RunnerFailure(RUNNER_FAILURE, failed_at[0], [], failed_at[1] + 1)
    return found


def _block(lines: list[str], start: int, end_re: re.Pattern[str]) -> tuple[list[str], int]:
    """The lines of a failure's report from ``start`` to a blank line or a runner's own line (``end_re``), at most
    ``MAX_ASSERTION_LINES`` kept, and the index after it."""
    said: list[str] = []
    end = start
    while end < len(lines) and lines[end].strip() and not end_re.match(lines[end].strip()):
        if len(said) < MAX_ASSERTION_LINES and len(lines[end]) <= MAX_LINE_CHARS:
            said.append(lines[end].strip())
        end += 1
    return said, end


def _place(m: re.Match[str]) -> Frame:
    number = m["line"] or m["mline"]
    return Frame(m["path"], int(number) if number else None)


def _titled(test: str | None, said: str) -> str:
    """``TestCase: REQUIRE( a <= b ) with expansion: 1087 <= 1024``: which test failed, and what it said."""
    if not test:
        return said
    return f"{test}: {said}" if said else test
