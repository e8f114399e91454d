"""What an error says, read from the text a failing command printed (pure: no I/O, no index).

``read_error(text)`` finds the error's type and message and the stack frames in a Python traceback, pytest
output, a Node/JavaScript stack (vitest's ``❯`` frames and its ``FAIL  file > test`` header too), a Go panic,
compiler message or ``go test`` report, a Rust error or panic (its
``RUST_BACKTRACE`` frames, ``cargo test``'s last panic), a gdb or lldb backtrace and the signal that stopped the
program (those frames are read in ``error_frames``), a Java stack trace, compilers' errors (read in
``error_compilers``: each of a build's several errors is read as its own, ``read_errors``), an
AddressSanitizer/LeakSanitizer/UBSan report, and a Ruby exception's backtrace, minitest's ``Error:``/``Failure:``
blocks and RSpec's failures (gems' and Ruby's own frames read, and left out); Catch2's and GoogleTest's failed
assertions, CTest's summary and a linker's errors are read in ``error_runners``.
A failed Go test is placed on its test file's lines and on the code its name names (as pytest's frames place a
failure on the test and the code under it). The message is normalised into a *signature* that stays the same
between two runs of the same failure: numbers, paths, ids, hex addresses and quoted values are replaced by
placeholders, so ``KeyError: 'user_42'`` at ``0x7f3a…`` and ``KeyError: 'user_7'`` at ``0x55d1…`` read alike
(a MIME type, ``text/html``, and a glob, ``src/**/*.rb``, are not paths: they stay).

The text is untrusted (a test's output may print anything): it is read bounded (``MAX_SCAN_CHARS``, the tail
kept, where a failure's summary is), control characters and ANSI colours are dropped, and every field is
capped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from forewarn.workspace.error_compilers import (
    CARGO_WRAPPER_ERRORS,
    RUST_DIAGNOSTIC_RE,
    RUST_ERROR_RE,
    RUST_FRAME_RE,
    compiler_error,
    compiler_frame,
    compiler_place,
    error_starts,
    go_compile_error,
    with_details,
)
from forewarn.workspace.error_frames import (
    MAX_LINE_CHARS,
    RUST_PANIC_RE,
    debugger_frame,
    is_native_runtime,
    native_name,
    signal_error,
)
from forewarn.workspace.error_frames import Frame as Frame  # a frame's record, read here and by explaining
from forewarn.workspace.error_runners import (
    LINKER_WRAPPER_ERRORS,
    ctest_failure,
    linker_error,
    linker_frame,
    runner_test_failure,
)

MAX_SCAN_CHARS = 64_000  # a failure's cause sits at the end of its output; the rest is progress and passing tests
MAX_FRAMES = 40  # frames kept from one trace (innermost first); deeper ones are the framework's plumbing
MAX_ERRORS = 10  # a build's errors kept, first first: the later ones most often follow from the first few
ABORT_LOOKBEHIND = 20  # lines above a SIGABRT searched for the failed assertion that raised it
MAX_MESSAGE_CHARS = 300  # an error message is a line; past this it is a dump of data
MAX_SIGNATURE_CHARS = 400

_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

# -- frames: where the error went through, one pattern per language's way of printing a stack -------------------
_PY_FRAME_RE = re.compile(r'^\s*File "(?P<path>[^"\n]{1,1000})", line (?P<line>\d{1,9})(?:, in (?P<func>[\w<>.]+))?')
_PYTEST_FRAME_RE = re.compile(r"^(?P<path>[\w./\\-]{1,1000}\.py):(?P<line>\d{1,9}):(?: in (?P<func>[\w<>.]+))?")
_JS_FRAME_RE = re.compile(
    r"^\s*at (?:(?:async |new )?(?P<func>[\w$.<>\[\] ]{1,200}?) \()?(?:file://)?(?P<path>[^\s():]{1,1000})"
    r":(?P<line>\d{1,9})(?::\d{1,9})?\)?\s*$"
)
# vitest: `` ❯ applyPatches_ src/plugins/patches.ts:351:17``, `` ❯ __tests__/patch.js:87:3`` (no name: the test's body)
_VITEST_FRAME_RE = re.compile(
    r"^\s*\u276f (?:(?P<func>[\w$.<>\[\] ]{1,200}?) )?(?:file://)?(?P<path>[^\s():]{1,1000}):(?P<line>\d{1,9})"
    r"(?::\d{1,9})?\s*$"
)
# vitest's ``FAIL  __tests__/patch.js > applyPatches > throws …`` and jest's ``FAIL src/x.test.ts``: the test file,
# placed (file-wide) after the stack's frames when none of them is in it
_JS_TEST_HEAD_RE = re.compile(r"^\s*FAIL\s+(?P<path>[^\s>]{1,1000}\.(?:[cm]?[jt]sx?|vue|svelte))(?:\s|$)")
_JAVA_FRAME_RE = re.compile(r"^\s*at (?P<func>[\w$.<>]{1,300})\((?P<path>[\w$.-]{1,300}):(?P<line>\d{1,9})\)")
_GO_FRAME_RE = re.compile(r"^\t(?P<path>[^\s:]{1,1000}\.go):(?P<line>\d{1,9})(?: \+0x[0-9a-f]+)?\s*$")
_GO_FUNC_RE = re.compile(r"^(?P<func>[\w./*()-]{1,300})\(.*\)\s*$")
_GO_ARGS_RE = re.compile(r"\([^()]*\)\s*$")  # a Go frame's argument words
_GO_CLOSURE_RE = re.compile(r"(?:\.(?:func\d+|\d+))+$")  # ``parse.func1``, ``tRunner.func1.2``: the closures' names
# a sanitizer's frame: ``    #0 0x4f2a1b in f_strftime /src/jq/src/builtin.c:1850:12`` (``(binary+0x…)``: no file)
_NATIVE_FRAME_RE = re.compile(
    r"^\s*#\d{1,4} 0x[0-9a-fA-F]{1,16} in (?P<func>.{1,500}?) (?P<path>(?:[A-Za-z]:)?[^\s():]{1,1000})"
    r":(?P<line>\d{1,9})(?::\d{1,9})?(?: \([^)]{0,1000}\))?\s*$"
)
# ``SUMMARY: AddressSanitizer: SEGV src/builtin.c:1850:12 in f_strftime``
_SAN_SUMMARY_RE = re.compile(r"^SUMMARY: (?P<tool>\w{1,40}Sanitizer): (?P<rest>.+)$")
_SAN_SUMMARY_WHERE_RE = re.compile(
    r"^\S+ (?P<path>[^\s:()]{1,1000}):(?P<line>\d{1,9})(?::\d{1,9})?(?: in (?P<func>[^\s(]{1,300}))?"
)
# a Ruby frame: ``lib/x.rb:12:in `meth'`` (Ruby 3.4: ``in 'Klass#meth'``), after ``\tfrom`` in a plain backtrace,
# indented in minitest's ``Error:`` block, after ``# `` in RSpec's report; the first line of a plain one too
_RUBY_FRAME_RE = re.compile(
    r"^\s*(?:from |# )?(?P<path>(?:[A-Za-z]:)?[^\s:`'<>]{1,1000}):(?P<line>\d{1,9}):in [`'](?P<func>[^`'\n]{1,300})'"
)
# gems (installed, bundled, from git: by name and version) and Ruby's own library: every trace passes there
_RUBY_OUTSIDE_PATH_RE = re.compile(
    r"(?:^|/)(?:gems/[\w.-]{1,200}-(?:\d[\w.]{0,60}|[0-9a-f]{7,40})|(?:lib/)?ruby/\d{1,3}\.\d{1,3}\.\d{1,3}"
    r"|site_ruby|vendor_ruby)/"
)
_RUBY_BLOCK_RE = re.compile(r"^(?:(?:block|rescue|ensure)(?: \(\d{1,4} levels\))? in )+")  # ``block in call``
_RUBY_NAME_SPLIT_RE = re.compile(r"::|#|\.")  # ``Rack::Request::Helpers#wrap_ipv6``, ``Rack::Utils.escape``
_RUBY_METHOD_RE = re.compile(r"^[A-Za-z_]\w*[?!=]?$")  # not ``+`` or ``[]``: an operator of Ruby's own classes
# Ruby 3.4 names a core method by its class (``Array#each``) at its caller's line: the line places it, not the name
RUBY_CORE_OWNERS = frozenset({
    "Array", "BasicObject", "Class", "Comparable", "Enumerable", "Enumerator", "Hash", "Integer", "IO", "File",
    "Kernel", "Module", "Object", "Proc", "Range", "Regexp", "String", "Struct", "Symbol", "Thread",
})  # fmt: skip

# -- the error itself ---------------------------------------------------------------------------------------------
# an exception line: ``ValueError: bad``, ``requests.exceptions.SSLError: …``, ``E   KeyError: 'x'`` (pytest)
_EXCEPTION_RE = re.compile(
    r"^(?:E\s+|FAILED \S+ - |ERROR \S+ - |Uncaught |Exception in thread \"[^\"]*\" )?"
    r"(?P<kind>(?:[A-Za-z_][\w]*\.){0,6}(?:[A-Z][\w]*(?:Error|Exception|Warning|Exit|Interrupt|Iteration|Failure|Fault"
    r"|Timeout|Refused|Denied|NotFound|Invalid|Abort|Conflict)|Error|Exception))"  # bare: ``new Error("…")``, Python's
    r"(?: ?\[(?P<code>[\w-]{1,40})\])?(?::\s*(?P<msg>.*))?$"  # Node: ``Error [ERR_MODULE_NOT_FOUND]: …``
)
BARE_KINDS = frozenset({"Error", "Exception"})  # thrown as they are (``new Error("…")``): read where one was thrown
# a line that says it was thrown: pytest's ``E   Exception: boom`` and its ``FAILED … - Exception: boom`` summary, a
# JavaScript console's ``Uncaught Error: boom``
THROWN_MARKS = ("E ", "FAILED ", "ERROR ", "Uncaught ")
PY_CODE_LINES = 3  # under a traceback's last ``File "…"`` line: its code, and Python 3.11's ``^^^`` and ``~~~`` marks
_GO_PANIC_RE = re.compile(r"^panic: (?P<msg>.+)$")
# what cargo and rustc print after a panic or a failed build, and the compiler driver after a failed link: that it
# failed; the panic or the error above it says why
WRAPPER_ERRORS = CARGO_WRAPPER_ERRORS + LINKER_WRAPPER_ERRORS
_ASSERT_RE = re.compile(r"^(?:E\s+)?(?P<kind>assert(?:ion)?)\b\s*(?P<msg>.*)$", re.IGNORECASE)
_RUBY_KIND = r"[A-Z]\w{0,100}(?:::[A-Z]\w{0,100}){0,6}"  # ``TypeError``, ``Rack::Lint::LintError``, ``Errno::ENOENT``
# a plain Ruby exception's first line: ``lib/x.rb:117:in `+': no implicit conversion of nil into String (TypeError)``
_RUBY_EXCEPTION_RE = re.compile(
    r"^(?:[A-Za-z]:)?[^\s:`'<>]{1,1000}:\d{1,9}:in [`'][^`'\n]{1,300}': (?P<msg>.*) \((?P<kind>" + _RUBY_KIND + r")\)$"
)
_GO_RECOVERED_RE = re.compile(r"\s*\[recovered(?:, repanicked)?\]\s*$")  # a panic in a test, printed once more
# ``==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x… at pc 0x…``; TSan/MSan say WARNING
_SAN_HEAD_RE = re.compile(r"^(?:==\d{1,10}==\s*)?(?:ERROR|WARNING): (?P<tool>\w{1,40}Sanitizer): (?P<rest>.+)$")
_SAN_KIND_END_RE = re.compile(r" on | \(| at | 0x|:")  # what follows the kind: where, the pc, a detail
_SAN_WHERE_END_RE = re.compile(r" at pc | \(pc ")  # registers: different every run, nothing to read
_SAN_DETAIL_RE = re.compile(
    r"^(?P<detail>(?:READ|WRITE) of size \d{1,12}"
    r"|(?:Direct|Indirect) leak of \d{1,20} byte\(s\) in \d{1,12} object\(s\))"
)
SAN_DETAIL_LOOKAHEAD = 4  # the access (``READ of size 4``) or the first leak follows the report's first line closely
SAN_KIND_PREFIXES = ("attempting ", "detected ")  # ``attempting double-free``, ``detected memory leaks``
MAX_KIND_CHARS = 60
# UBSan: ``src/x.c:10:5: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'``
# a C/C++ ``assert`` that failed: glibc's ``prog: src/jv.c:859: jvp_array_read: Assertion `idx >= 0' failed.`` (C++
# prints the whole signature as the function) and macOS's/BSD's ``Assertion failed: (idx >= 0), function f, file x.c,
# line 12.``: the message and the place in one line
_ASSERT_GLIBC_RE = re.compile(
    r"^(?:[^\s:]{1,200}: )?(?P<path>[^\s:]{1,1000}\.\w{1,6}):(?P<line>\d{1,9}): (?P<func>.{1,500}?): "
    r"Assertion [`'\u2018](?P<expr>.{0,1000})['\u2019] failed\.$"
)
_ASSERT_BSD_RE = re.compile(
    r"^Assertion failed: \(?(?P<expr>.{0,1000}?)\)?, function (?P<func>.{1,500}?), file (?P<path>[^\s,]{1,1000}), "
    r"line (?P<line>\d{1,9})\.?$"
)
_UBSAN_RE = re.compile(r"^(?P<path>[^\s:]{1,1000}):(?P<line>\d{1,9})(?::\d{1,9})?: runtime error: (?P<msg>.+)$")

# -- go test: ``--- FAIL: TestX (0.00s)`` and, indented below it (or, with -v, below ``=== RUN TestX``), the test's
# ``    x_test.go:42: message`` lines; ``FAIL\tpkg\t0.012s`` closes a package's report ---------------------------
_GO_TEST_HEAD_RE = re.compile(
    r"^\s*(?:--- (?P<verdict>FAIL|PASS|SKIP):|=== (?:RUN|CONT|NAME|PAUSE))\s+(?P<name>[^\s()]{1,300})"
)
_GO_TEST_LOG_RE = re.compile(r"^(?P<indent>[ \t]+)(?P<path>[^\s:]{1,1000}\.go):(?P<line>\d{1,9}): ?(?P<msg>.*)$")
_GO_PACKAGE_RE = re.compile(r"^(?:FAIL|ok)\s+(?P<pkg>[\w.~-]{1,200}(?:/[\w.~-]{1,200}){0,30})\s+(?:\d|\(cached\)|\[)")
_TESTIFY_FIELD_RE = re.compile(r"^(?P<label>[A-Z][A-Za-z ]{0,20}):\s*(?P<text>.*)$")  # testify's ``Error: Not equal:``
GO_TEST_PREFIXES = ("Test", "Benchmark", "Fuzz", "Example")
GO_NO_PACKAGE = "command-line-arguments"  # ``go test x_test.go``: no import path to place the file by
MAX_GO_LOG_LINES = 12  # a multi-line message's lines kept; past these it is a dump

# -- minitest: ``  1) Error:`` / ``Klass#test_name:`` / ``NoMethodError: msg`` / frames, and ``  1) Failure:`` /
# ``Klass#test_name [test/x_test.rb:12]:`` / ``Expected: 1`` / ``  Actual: 2``; RSpec: ``  1) description`` /
# ``     Failure/Error: code`` / ``     NoMethodError:`` (an exception's class; none for an expectation) / the message /
# ``     # ./lib/x.rb:12:in `meth'`` --------------------------------------------------------------------------------
_RUBY_TEST_HEAD_RE = re.compile(r"^\s*\d{1,6}\) (?P<rest>\S.{0,1000})$")
_MINITEST_VERDICT_RE = re.compile(r"^(?P<verdict>Failure|Error):$")
_MINITEST_TEST_RE = re.compile(r"^(?P<test>\S.{0,1000}?)(?: \[(?P<path>[^\s\[\]:]{1,1000}):(?P<line>\d{1,9})\])?:$")
_RSPEC_FAILURE_RE = re.compile(r"^\s*Failure/Error:")
_RUBY_KIND_LINE_RE = re.compile(r"^(?P<kind>" + _RUBY_KIND + r"):(?:\s+(?P<msg>.*))?$")  # ``NoMethodError: msg``
_RUBY_TEST_END_RE = re.compile(r"^\d{1,9} (?:runs|examples?|tests), |^Finished in |^Failed examples:|^rake aborted!")
RUBY_FAILURE = "Failure"  # a failed assertion or expectation (minitest's block head; RSpec's ``Failure/Error``)
MAX_RUBY_MESSAGE_LINES = 12  # an assertion's message and diff lines kept; past these it is a dump

# -- what a signature leaves out ----------------------------------------------------------------------------------
_HEX_ADDR_RE = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
_UUID_RE = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_HEX_ID_RE = re.compile(r"\b(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{7,}\b")  # shas, object ids
_PATH_RE = re.compile(r"(?:[A-Za-z]:\\|\.{0,2}/)?(?:[\w.@+-]+[/\\]){1,}[\w.@+-]+|[A-Za-z]:\\[^\s'\"]+")
# ``text/html``, ``Text/HTML``, ``application/vnd.api+json``: a MIME type (a registered top-level type, one slash, a
# subtype with no file extension) says what was sent, the same on every run
_MIME_RE = re.compile(
    r"(?:application|audio|font|image|message|model|multipart|text|video)/"
    r"(?:(?:vnd|prs|x)\.[\w.+-]{1,200}|[\w+-]{1,100})",
    re.IGNORECASE,
)
_GLOB_CHARS = "*"  # a path with a wildcard in the same word (``src/**/*.rb``, ``*/xml``) is a pattern, not a place
_WORD_END_CHARS = " \t\n'\"`,;()[]{}<>="
_QUOTED_NUMBER_RE = re.compile(r"(['\"])[+-]?\d[\d.,_:+-]*\1")
_SUFFIX_NUMBER_RE = re.compile(r"(?<=[A-Za-z][_-])\d+\b")  # user_42, worker-3: an id's counter
_NUMBER_RE = re.compile(r"(?<![\w<])[+-]?\d+(?:[.,_]\d+)*(?:e[+-]?\d+)?(?![\w>])", re.IGNORECASE)
_WS_RE = re.compile(r"\s+")
# names of standards whose number is part of the name, never a value that changes between runs
_STANDARD_NAME_RE = re.compile(
    r"\b(?:UTF|UCS)-?(?:8|16|32)(?:[BL]E)?\b|\bISO[-_]?8859[-_]\d{1,2}\b|\bSHA-?(?:1|224|256|384|512)\b"
    r"|\b(?:windows|cp)-?125\d\b|\blatin-?\d\b|\bx86[-_]64\b|\b(?:base|int|uint|float)(?:8|16|32|64)\b",
    re.IGNORECASE,
)
_HELD_BASE = 0xE000  # a private-use character per held name, between NULs
_HELD_RE = re.compile("\x00([\ue000-\uf8ff])\x00")
_OPEN_QUOTE_RE = re.compile("[\u2018\u2019]|`(?=[^`'\n]{0,200}')")  # ‘x’, and `x' as GNU tools and old Ruby quote
_JS_ALIAS_RE = re.compile(r"\s*\[as [^\]]*\]")


@dataclass(frozen=True, slots=True)
class ErrorReport:
    """An error read from a command's output. ``frames``: innermost first."""

    kind: str | None  # ValueError, E0308, TS2322, panic, assert; None when only a message was found
    message: str  # as printed (one line, capped)
    signature: str  # kind and message with numbers, paths, ids, addresses and quoted values replaced
    frames: tuple[Frame, ...]

    @property
    def found(self) -> bool:
        return bool(self.kind or self.message or self.frames)


def clean(text: str) -> str:
    """``text`` bounded to its tail, without ANSI colours or control characters (newlines and tabs kept)."""
    if len(text) > MAX_SCAN_CHARS:
        text = text[-MAX_SCAN_CHARS:]
    return _CONTROL_RE.sub("", _ANSI_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n")))


def normalise(message: str) -> str:
    """A message without what changes between two runs of the same failure (see the module docstring). A standard's
    name keeps its number (``UTF-8``, ``ISO-8859-1``, ``SHA-256``), and every quoting style reads as ``'x'``: Ruby
    3.4 and gcc in a UTF-8 locale quote the same failure otherwise (```x'``, ``'x'``, ``‘x’``)."""
    message = _OPEN_QUOTE_RE.sub("'", message)
    kept: list[str] = []
    out = _STANDARD_NAME_RE.sub(lambda m: _hold(kept, m.group(0)), message)
    out = _UUID_RE.sub("<id>", out)
    out = _HEX_ADDR_RE.sub("<addr>", out)
    out = _HEX_ID_RE.sub("<id>", out)
    out = _PATH_RE.sub(_path_placeholder, out)
    out = _QUOTED_NUMBER_RE.sub("<n>", out)
    out = _SUFFIX_NUMBER_RE.sub("<n>", out)
    out = _NUMBER_RE.sub("<n>", out)
    out = _HELD_RE.sub(lambda m: kept[ord(m.group(1)) - _HELD_BASE], out)
    return _WS_RE.sub(" ", out).strip()[:MAX_SIGNATURE_CHARS]


def _hold(kept: list[str], text: str) -> str:
    """A placeholder no rule of :func:`normalise` changes, for ``text`` (put back at the end)."""
    kept.append(text)
    return f"\x00{chr(_HELD_BASE + len(kept) - 1)}\x00"


def _path_placeholder(m: re.Match[str]) -> str:
    text = m.group(0)
    # a dotted name (requests.exceptions.SSLError) or a ratio (1/2) is not a path: only slashes with a name
    if not (("/" in text or "\\" in text) and re.search(r"[A-Za-z]", text)):
        return text
    return text if _MIME_RE.fullmatch(text) or _GLOB_CHARS in _word_around(m) else "<path>"


def _word_around(m: re.Match[str]) -> str:
    """The whitespace- or punctuation-bounded word a match sits in (``src/**/lib/x.rb`` around ``lib/x.rb``)."""
    text, start, end = m.string, m.start(), m.end()
    while start > 0 and text[start - 1] not in _WORD_END_CHARS:
        start -= 1
    while end < len(text) and text[end] not in _WORD_END_CHARS:
        end += 1
    return text[start:end]


def read_error(text: str) -> ErrorReport:
    """The error in ``text`` (the last one reported: a traceback's final line, a failed test's message; a build's
    first error when it printed several: see ``read_errors``)."""
    return read_errors(text)[0]


def read_errors(text: str) -> tuple[ErrorReport, ...]:
    """The errors in ``text``: the one ``read_error`` reads, or each of the errors a compiler printed (gcc, clang,
    tsc, javac, mypy, rustc, ``go build``) with its own places, in printed order (the first is most often the
    cause of the others), at most ``MAX_ERRORS``. Never empty: a report that found nothing when there is none."""
    lines = clean(text).split("\n")
    return tuple(_report(kind, message, frames) for kind, message, frames in _errors_and_frames(lines))


def _report(kind: str | None, message: str, frames: list[Frame]) -> ErrorReport:
    message = " ".join(message.split())[:MAX_MESSAGE_CHARS]
    norm = normalise(message)
    signature = (f"{kind}: {norm}" if norm else kind) if kind else norm
    return ErrorReport(kind, message, (signature or "")[:MAX_SIGNATURE_CHARS], tuple(frames))


def _errors_and_frames(lines: list[str]) -> list[tuple[str | None, str, list[Frame]]]:
    """(kind, message, frames) of each error: a sanitizer's report first (it is why the run died), else the last
    error line (or each compiler error, when that is one of several), a failed Go test's message taking the place
    of all but a panic."""
    frames = _frames(lines)
    sanitizer = _sanitizer_error(lines)
    if sanitizer is not None:
        return [(sanitizer[0], sanitizer[1], frames)]
    kind, message, at = _last_error(lines)
    if at >= 0 and RUST_PANIC_RE.match(lines[at].strip()):  # cargo test: the frames printed under this panic
        frames = _frames(lines[at:])
    own = compiler_place(lines, at) if at >= 0 else None
    if own is not None:  # a compiler's last error: its place first, before the places of the errors above it
        frames = _unique([own, *frames])
    failed_test = _ruby_test_failure(lines) or runner_test_failure(lines)  # minitest, RSpec; Catch2, GoogleTest
    if failed_test is not None and at < failed_test.end:  # no error printed after the failed test's report
        return [(failed_test.kind, failed_test.message, failed_test.frames)]
    go_test = _go_test_failure(lines)
    ctest = ctest_failure(lines) if kind is None and go_test is None else None
    if ctest is not None:  # which test programs failed, and nothing above says why
        return [(ctest.kind, ctest.message, frames)]
    if go_test is None:
        return _each_compiler_error(lines, at) or [(kind, message, frames)]
    if kind == "panic":  # a panic in a test: its trace says where; the test's own lines come after
        return [(kind, message, _unique([*frames, *go_test.frames]))]
    return [("FAIL", go_test.message, _unique([*go_test.frames, *frames]))]


def _each_compiler_error(lines: list[str], at: int) -> list[tuple[str | None, str, list[Frame]]]:
    """Each error of a build that printed several (the one at ``lines[at]`` among them), with the places printed
    from its first line to the next error's (the first error's from the top): its own, never another's. [] for one
    error, or another kind of error."""
    starts = error_starts(lines, at) if at >= 0 else []
    if len(starts) < 2:
        return []
    out: list[tuple[str | None, str, list[Frame]]] = []
    seen: set[tuple[str, str, tuple[Frame, ...]]] = set()
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        found = _error_line(lines[start][:MAX_LINE_CHARS].strip(), lines, start)
        kind, message = found or ("error", go_compile_error(lines[start][:MAX_LINE_CHARS]) or "")
        own = compiler_place(lines, start)
        frames = _frames(lines[start if n else 0 : end])
        frames = _unique([own, *frames]) if own is not None else frames
        key = (kind, message, tuple(frames))
        if key not in seen:  # tsc and javac print an error again when a file is read twice
            seen.add(key)
            out.append((kind, message, frames))
        if len(out) == MAX_ERRORS:
            break
    return out


def _frames(lines: list[str]) -> list[Frame]:
    """Stack frames, innermost first (Python and pytest print outermost first; the others innermost first)."""
    python: list[Frame] = []
    other: list[Frame] = []
    tests: list[Frame] = []
    go_func: str | None = None
    warned = False  # under rustc's ``warning: …``: its ``-->`` place is the warning's, not the error's
    for i, line in enumerate(lines):
        if len(line) > MAX_LINE_CHARS:
            continue
        if RUST_DIAGNOSTIC_RE.match(line):
            warned = line.startswith("warning")
            continue
        if warned and line.lstrip().startswith("-->"):
            continue
        native = debugger_frame(lines, i) or _native_frame(line) or _ruby_frame(line) or linker_frame(lines, i)
        if native is not None:
            if native.path:  # a runtime or library frame: read, and left out
                other.append(native)
            continue
        m = _PY_FRAME_RE.match(line)
        if m:
            python.append(Frame(m["path"], int(m["line"]), m["func"]))
            continue
        m = _PYTEST_FRAME_RE.match(line)
        if m:
            python.append(Frame(m["path"], int(m["line"]), m["func"]))
            continue
        m = _GO_FRAME_RE.match(line)
        if m:
            other.append(Frame(m["path"], int(m["line"]), _go_name(go_func)))
            go_func = None
            continue
        m = _GO_FUNC_RE.match(line)
        if m and not line.startswith((" ", "\t")):
            go_func = m["func"]
        m = _JS_TEST_HEAD_RE.match(line)
        if m:
            tests.append(Frame(m["path"], None, None))
            continue
        for regex in (_JAVA_FRAME_RE, _JS_FRAME_RE, _VITEST_FRAME_RE, RUST_FRAME_RE):
            m = regex.match(line)
            if m:
                func = m.groupdict().get("func")
                other.append(Frame(m["path"], int(m["line"]), _last_part(func) if func else None))
                break
        else:
            place = compiler_frame(line)
            if place is not None:
                other.append(place)
    traced = {f.path for f in other}
    return _unique([*reversed(python), *other, *(f for f in tests if f.path not in traced)])


def _unique(frames: list[Frame]) -> list[Frame]:
    """Each place once (the first time it is printed), at most ``MAX_FRAMES``."""
    unique: list[Frame] = []
    seen: set[tuple[str, int | None]] = set()
    for f in frames:
        key = (f.path, f.line)
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique[:MAX_FRAMES]


def _native_frame(line: str) -> Frame | None:
    """A sanitizer's frame or report line naming a place (``#0 0x… in f path:line``, the ``SUMMARY:``, UBSan's
    ``path:line:col: runtime error``); ``Frame("", None)`` for one in the sanitizer's runtime, libc or the system's
    headers; None when ``line`` is none of these."""
    m = _NATIVE_FRAME_RE.match(line)
    if m:
        func = m["func"].strip()
        if is_native_runtime(func, m["path"]):
            return Frame("", None)
        return Frame(m["path"], int(m["line"]), native_name(func))
    m = _SAN_SUMMARY_RE.match(line)
    if m:
        where = _SAN_SUMMARY_WHERE_RE.match(m["rest"])
        if where is None or is_native_runtime("", where["path"]):
            return Frame("", None)
        return Frame(where["path"], int(where["line"]), native_name(where["func"]) if where["func"] else None)
    m = _UBSAN_RE.match(line)
    if m:
        return Frame(m["path"], int(m["line"]), None)
    m = _failed_assertion(line)
    return Frame(m["path"], int(m["line"]), native_name(m["func"])) if m else None


def _failed_assertion(line: str) -> re.Match[str] | None:
    """A failed C/C++ ``assert``'s line (glibc's or macOS's form), else None."""
    stripped = line.strip()
    return _ASSERT_GLIBC_RE.match(stripped) or _ASSERT_BSD_RE.match(stripped)


def _ruby_frame(line: str) -> Frame | None:
    """A Ruby backtrace's frame; ``Frame("", None)`` for one in a gem or Ruby's own library; None for another line."""
    m = _RUBY_FRAME_RE.match(line)
    if m is None:
        return None
    if _RUBY_OUTSIDE_PATH_RE.search(m["path"].replace("\\", "/")):
        return Frame("", None)
    return Frame(m["path"], int(m["line"]), _ruby_name(m["func"]))


def _ruby_name(func: str) -> str | None:
    """``wrap_ipv6``; ``Rack::Request::Helpers#wrap_ipv6`` (Ruby 3.4), ``block (2 levels) in call``: the method's
    name; ``<main>``, ``<top (required)>``, ``<class:Request>``, a core method (``+``, ``Array#each``): None."""
    name = _RUBY_BLOCK_RE.sub("", func.strip())
    if not name or name.startswith("<"):
        return None
    parts = _RUBY_NAME_SPLIT_RE.split(name)
    if not _RUBY_METHOD_RE.match(parts[-1]) or (len(parts) == 2 and parts[0] in RUBY_CORE_OWNERS):
        return None
    return parts[-1]


def _go_name(func: str | None) -> str | None:
    """``github.com/u/p/src.(*Reader).readFiles(0xc0…)``: ``readFiles``; a closure (``parse.func1``, ``func1.2``) by
    the function it is in."""
    if not func:
        return None
    name = _GO_ARGS_RE.sub("", func).rsplit("/", 1)[-1].replace("(*", "").replace("(", "").replace(")", "")
    return _last_part(_GO_CLOSURE_RE.sub("", name))


def _last_part(func: str) -> str | None:
    func = _JS_ALIAS_RE.sub("", func)  # ``Layer.handle [as handle_request]``: the name it was defined with
    parts = [p for p in re.split(r"[.\s]", func) if p and p not in ("<anonymous>", "<module>", "Object")]
    return parts[-1] if parts else None


def _last_error(lines: list[str]) -> tuple[str | None, str, int]:
    """(kind, message, its line's index) of the last error line in ``lines``, else the first compiler message, else
    (None, '', -1). Cargo's own ``error: test failed`` under a panic is not the error: the panic is."""
    wrapper: tuple[str | None, str, int] | None = None
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i][:MAX_LINE_CHARS].strip()  # a message that long is data: its start says what it is
        if not line:
            continue
        found = _error_line(line, lines, i)
        if found is not None and found[0] == "error" and found[1].startswith(WRAPPER_ERRORS):
            wrapper = wrapper or (found[0], found[1], i)
        elif found is not None:
            return found[0], found[1], i
    if wrapper is not None:
        return wrapper
    for i, line in enumerate(lines):
        said = go_compile_error(line)
        if said is not None:
            return "error", said, i
    return None, "", -1


def _thrown(lines: list[str], i: int) -> bool:
    """Whether the bare ``Error: …`` or ``Exception: …`` at ``lines[i]`` was thrown: it says so (``THROWN_MARKS``), a
    JavaScript stack follows it (``    at merge (util.ts:748:13)``) or it ends a Python traceback (a frame's code
    lines above it). A tool's field (Gemini CLI's ``Error: (none)``) or a log's ``Error: …`` line is none."""
    below = lines[i + 1].strip() if i + 1 < len(lines) else ""
    if lines[i].lstrip().startswith(THROWN_MARKS) or below.startswith(("at ", "\u276f ")):
        return True
    for j in range(i - 1, max(i - 2 - PY_CODE_LINES, -1), -1):
        if not lines[j].startswith((" ", "\t")):
            return False
        if lines[j].lstrip().startswith('File "'):
            return j < i - 1
    return False


def _error_line(line: str, lines: list[str], i: int) -> tuple[str, str] | None:
    """(kind, message) when ``line`` (the stripped ``lines[i]``) reports an error, else None."""
    m = _RUBY_EXCEPTION_RE.match(line)
    if m:
        return _last_name(m["kind"]), m["msg"].strip()
    m = _RUBY_KIND_LINE_RE.match(line)  # ``Rack::Lint::LintError: msg`` above a Ruby frame (rake, minitest)
    if m and "::" in m["kind"] and i + 1 < len(lines) and _RUBY_FRAME_RE.match(lines[i + 1][:MAX_LINE_CHARS]):
        return _last_name(m["kind"]), (m["msg"] or "").strip()
    m = _EXCEPTION_RE.match(line)
    if m and not line.startswith(("at ", "File ")) and (m["kind"] not in BARE_KINDS or _thrown(lines, i)):
        kind = m["kind"].rsplit(".", 1)[-1] if "." in m["kind"] else m["kind"]
        return (f"{kind}[{m['code']}]" if m["code"] else kind), (m["msg"] or "").strip()
    m = RUST_ERROR_RE.match(line)
    if m:
        return (m["code"] or "error"), m["msg"]
    m = _GO_PANIC_RE.match(line)
    if m:
        return "panic", _GO_RECOVERED_RE.sub("", m["msg"])
    m = RUST_PANIC_RE.match(line)
    if m:
        follow = lines[i + 1].strip() if i + 1 < len(lines) else ""
        return "panic", (m["old"] or follow)
    m = _failed_assertion(line)
    if m:
        return "assertion", f"{m['expr'].strip()} failed"
    signal = signal_error(line)  # gdb's or lldb's ``Program received signal SIGSEGV, Segmentation fault.``
    if signal:  # an abort an assert raised says why in the assertion's line above it
        above = (_failed_assertion(x[:MAX_LINE_CHARS]) for x in reversed(lines[max(0, i - ABORT_LOOKBEHIND) : i]))
        cause = next((a for a in above if a), None) if signal[0] == "SIGABRT" else None
        return ("assertion", f"{cause['expr'].strip()} failed") if cause else signal
    found = compiler_error(line)
    if found is not None:
        return found[0], with_details(found[1], lines, i)
    m = _ASSERT_RE.match(line)
    if m and lines[i].lstrip().startswith("E "):
        return "AssertionError", m["msg"]
    return linker_error(line)


def _last_name(kind: str) -> str:
    """``Rack::Lint::LintError``: ``LintError`` (as ``requests.exceptions.SSLError`` reads ``SSLError``)."""
    return _RUBY_NAME_SPLIT_RE.split(kind)[-1] or kind


def _sanitizer_error(lines: list[str]) -> tuple[str, str] | None:
    """(kind, message) of the last sanitizer report in ``lines`` (``heap-buffer-overflow``, ``SEGV``, ``memory
    leaks``, UBSan's ``runtime error``), from its first line, else from its ``SUMMARY:``; None without one."""
    summary: tuple[str, str] | None = None
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i][:MAX_LINE_CHARS].strip()
        m = _SAN_HEAD_RE.match(line)
        if m:
            return _sanitizer_head(m["rest"], lines[i + 1 : i + 1 + SAN_DETAIL_LOOKAHEAD])
        m = _UBSAN_RE.match(line)
        if m:
            return "runtime error", m["msg"]
        m = _SAN_SUMMARY_RE.match(line)
        if m:
            if summary is not None:  # an earlier report's summary: the later one printed no first line
                break
            rest = m["rest"].strip()
            summary = ("memory leaks" if " leaked in " in rest else rest.split()[0][:MAX_KIND_CHARS]), ""
    return summary


def _sanitizer_head(rest: str, after: list[str]) -> tuple[str, str]:
    """``heap-buffer-overflow on address 0x… at pc 0x…`` and the access below it: the kind, and where and what
    (``on address 0x…; READ of size 1``) without the registers."""
    cut = _SAN_KIND_END_RE.search(rest)
    kind = (rest[: cut.start()] if cut else rest).strip()
    for prefix in SAN_KIND_PREFIXES:
        kind = kind.removeprefix(prefix)
    where = _SAN_WHERE_END_RE.split(rest[cut.start() :] if cut else "", maxsplit=1)[0].strip(" :")
    details = [m["detail"] for m in (_SAN_DETAIL_RE.match(line.strip()) for line in after) if m]
    message = "; ".join(part for part in (where, *details[:1]) if part)
    return (kind[:MAX_KIND_CHARS] or "sanitizer"), message


@dataclass(frozen=True, slots=True)
class _RubyTestFailure:
    kind: str
    message: str
    frames: list[Frame]
    end: int  # the index of the line after its report


def _ruby_test_failure(lines: list[str]) -> _RubyTestFailure | None:
    """The last failed test of a minitest or RSpec report (its exception or what its assertion said, and the frames
    printed under it; a failed assertion placed on its test file's line); None without one."""
    heads = [
        (i, m["rest"].strip()) for i, m in enumerate(_RUBY_TEST_HEAD_RE.match(x[:MAX_LINE_CHARS]) for x in lines) if m
    ]
    for n in range(len(heads) - 1, -1, -1):
        start, head = heads[n]
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        end = next((i for i in range(start + 1, end) if _RUBY_TEST_END_RE.match(lines[i].strip())), end)
        body = lines[start + 1 : end]
        verdict = _MINITEST_VERDICT_RE.match(head)
        found = _minitest_failure(verdict["verdict"], body) if verdict else _rspec_failure(head, body)
        if found is not None:
            return _RubyTestFailure(found[0], found[1], _unique(found[2]), end)
    return None


def _minitest_failure(verdict: str, body: list[str]) -> tuple[str, str, list[Frame]] | None:
    """A minitest ``Error:`` block's exception, or a ``Failure:`` block's test and what its assertion said."""
    said = [line.strip() for line in body if line.strip() and len(line) <= MAX_LINE_CHARS]
    test = _MINITEST_TEST_RE.match(said[0]) if said else None
    if test is None:
        return None
    frames = _frames(body)
    words = [line for line in said[1:] if _ruby_frame(line) is None][:MAX_RUBY_MESSAGE_LINES]
    if verdict == "Error":
        m = _RUBY_KIND_LINE_RE.match(words[0]) if words else None
        if m is None:
            return None
        return _last_name(m["kind"]), " ".join([m["msg"] or "", *words[1:]]).strip(), frames
    name = test["test"].rsplit("#", 1)[-1]
    where = [Frame(test["path"], int(test["line"]), name if name.isidentifier() else None)] if test["path"] else []
    return RUBY_FAILURE, _titled(test["test"], " ".join(words)), [*where, *frames]


def _rspec_failure(description: str, body: list[str]) -> tuple[str, str, list[Frame]] | None:
    """An RSpec failure: the exception (``NoMethodError:`` above its message) or the expectation's message."""
    said = [line.strip() for line in body if line.strip() and len(line) <= MAX_LINE_CHARS]
    if not said or not _RSPEC_FAILURE_RE.match(said[0]):
        return None
    words = [line for line in said[1:] if not line.startswith("# ")][:MAX_RUBY_MESSAGE_LINES]
    m = _RUBY_KIND_LINE_RE.match(words[0]) if words else None
    if m is not None:
        return _last_name(m["kind"]), " ".join([m["msg"] or "", *words[1:]]).strip(), _frames(body)
    return RUBY_FAILURE, _titled(description, " ".join(words)), _frames(body)


def _titled(test: str, said: str) -> str:
    """``Klass#test_x: Expected: 1 Actual: 2``: which test failed, and what its assertion said."""
    return f"{test}: {said}" if said else test


@dataclass(slots=True)
class _GoTestLog:
    """One ``    x_test.go:42: message`` line of a test (and the deeper-indented lines that continue it)."""

    test: str
    path: str
    line: int
    message: str
    at: int  # its line's index in the output
    indent: int
    more: list[str]


@dataclass(frozen=True, slots=True)
class _GoTestFailure:
    message: str  # ``TestReadFiles: walker followed symlink …``
    frames: list[Frame]


def _go_test_failure(lines: list[str]) -> _GoTestFailure | None:
    """The last failed test of a ``go test`` report: its first message, the test file's lines it printed, and the
    code under test (``reader_test.go``'s ``TestReadFiles``: ``reader.go``'s ``ReadFiles``); None without one."""
    failed: dict[str, None] = {}  # in the order reported
    logs: list[_GoTestLog] = []
    packages: list[tuple[int, str]] = []
    test: str | None = None
    last: _GoTestLog | None = None
    for i, line in enumerate(lines):
        if len(line) > MAX_LINE_CHARS:
            continue
        m = _GO_TEST_HEAD_RE.match(line)
        if m:
            test, last = m["name"], None
            if m["verdict"] == "FAIL":
                failed[test] = None
            continue
        m = _GO_PACKAGE_RE.match(line)
        if m:
            packages.append((i, m["pkg"]))
            test, last = None, None
            continue
        m = _GO_TEST_LOG_RE.match(line)
        if m and test is not None:
            last = _GoTestLog(test, m["path"], int(m["line"]), m["msg"].strip(), i, len(m["indent"]), [])
            logs.append(last)
        elif last is not None and line.strip() and len(line) - len(line.lstrip()) > last.indent:
            if len(last.more) < MAX_GO_LOG_LINES:
                last.more.append(line.strip())
        else:
            last = None
    failing = [log for log in logs if log.test in failed]
    if not failing:
        return _GoTestFailure(list(failed)[-1].split("/")[0], []) if failed else None  # no message: its name
    name = failing[-1].test
    own = [log for log in failing if log.test == name]
    func = name.split("/", 1)[0]
    frames: list[Frame] = []
    for log in own:
        package = next((pkg for at, pkg in packages if at > log.at), None)
        frames.append(Frame(_in_package(log.path, package), log.line, func))
    tested = _tested_name(func)
    if tested and frames[0].path.endswith("_test.go"):
        frames.append(Frame(frames[0].path.removesuffix("_test.go") + ".go", None, tested))
    return _GoTestFailure(f"{func}: {_go_log_message(own[0])}", frames)


def _in_package(path: str, package: str | None) -> str:
    """``reader_test.go`` printed by package ``github.com/u/fzf/src``: ``github.com/u/fzf/src/reader_test.go``,
    whose tail (``src/reader_test.go``) places it in the workspace where its bare name may be ambiguous."""
    if not package or package == GO_NO_PACKAGE or "/" in path or "\\" in path:
        return path
    return f"{package}/{path}"


def _tested_name(func: str) -> str | None:
    """The definition a Go test's name names: ``TestReadFiles``: ``ReadFiles``; ``TestReader_readFiles``
    (``TestType_Method``): ``readFiles``."""
    prefix = next((p for p in GO_TEST_PREFIXES if func.startswith(p)), None)
    rest = func[len(prefix) :].strip("_") if prefix else ""
    parts = [p for p in rest.split("_") if p]
    if not parts:
        return None
    return parts[1] if len(parts) == 2 else parts[0]


def _go_log_message(log: _GoTestLog) -> str:
    """A test's message: its line's text, else the lines below it (testify: its ``Error:`` and ``Messages:``)."""
    if log.message:
        return log.message
    fields: dict[str, list[str]] = {}
    label = ""
    for text in log.more:
        m = _TESTIFY_FIELD_RE.match(text)
        if m:
            label = m["label"].strip()
            fields[label] = [m["text"].strip()]
        else:
            fields.setdefault(label, []).append(text)
    said = [" ".join(fields.get(label, [])).strip() for label in ("Error", "Messages")]
    return "; ".join(part for part in said if part) or " ".join(log.more)
