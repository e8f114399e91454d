"""Compilers' and checkers' error lines, read from a build's output (pure: no I/O, no index); ``error_text`` reads
the rest of an error with them.

* one line per error, its place first: gcc, clang, javac, mypy, go vet, eslint's unix format
  (``src/jv.c:40:3: error: 'y' undeclared``), tsc (``src/util.ts(745,11): error TS2322: …``, and ``--pretty``'s
  ``src/util.ts:745:11 - error TS2322: …``), MSVC (``C:\\src\\x.h(341,9): error C3861: …``) and Maven's compiler
  plugin (``[ERROR] /abs/src/main/java/x/Node.java:[408,25] cannot find symbol``); javac's ``symbol:`` and
  ``location:`` lines under an error are its message's (``with_details``);
* rustc: ``error[E0308]: mismatched types`` with its place on the ``-->`` line under it (a ``warning: …``'s place is
  the warning's); cargo's closing ``error: could not compile …`` says only that the build failed;
* ``go build``: ``./main.go:12:5: undefined: walker`` (read when nothing else in the output is an error).

A build prints several errors, each with its own place: ``error_starts`` finds where each begins, so each is read as
an error of its own, never as a place another went through.
"""

from __future__ import annotations

import re

from forewarn.workspace.error_frames import MAX_LINE_CHARS, Frame

# ``  --> src/walk.rs:12:5`` under a rustc diagnostic; ``at src/main.rs:10:5`` in a Rust backtrace
RUST_FRAME_RE = re.compile(r"^\s*(?:-->|at) (?P<path>[^\s:]{1,1000}\.rs):(?P<line>\d{1,9})(?::\d{1,9})?")
# path:line:col: error: message (gcc, clang, go vet, eslint's unix format), path(line,col): error TSnnnn: (tsc) and
# MSVC's ``C:\src\x.h(341,9): error C3861:`` or ``(341)``
_COMPILER_RE = re.compile(
    r"^(?P<path>(?:[A-Za-z]:)?[^\s:()]{1,1000}\.\w{1,6})"
    r"(?::(?P<line>\d{1,9})(?::\d{1,9})?:|\((?P<tline>\d{1,9})(?:,\d{1,9})?\):)"
    r"\s*(?:(?:fatal )?error|error TS\d+|Error)\b:?\s*(?P<msg>.*)$"
)
# Maven's compiler plugin: ``[ERROR] /abs/src/main/java/x/Node.java:[408,25] cannot find symbol``
_MAVEN_COMPILER_RE = re.compile(
    r"^\[ERROR\] (?P<path>[^\s:\[\]]{1,1000}\.\w{1,6}):\[(?P<line>\d{1,9}),\d{1,9}\] (?P<msg>.+)$"
)
_TS_PRETTY_RE = re.compile(
    r"^(?P<path>[^\s:]{1,1000}\.\w{1,6}):(?P<line>\d{1,9}):\d{1,9} - error (?P<kind>TS\d+): (?P<msg>.*)"
)
_TS_CODE_RE = re.compile(r"^(?P<kind>TS\d+|C\d{4}):\s*(?P<msg>.*)$")  # tsc's ``TS2322``, MSVC's ``C3861``
_GO_COMPILE_RE = re.compile(r"^(?P<path>\.?/?[^\s:]{1,1000}\.go):(?P<line>\d{1,9}):\d{1,9}: (?P<msg>.+)$")

# what javac prints under an error, after the source line and its caret (Maven prefixes each with ``[ERROR]``):
# ``  symbol:   class GsonBuildConfig``, ``  location: class Gson``; ``required:``/``found:``/``reason:`` under a
# call that does not apply. Eight "cannot find symbol" errors differ only there
_JAVAC_DETAIL_RE = re.compile(
    r"^(?:\[ERROR\])?\s+(?P<label>symbol|location|required|found|reason):\s+(?P<text>\S.{0,300})$"
)
JAVAC_DETAIL_LOOKAHEAD = 7  # the source line, its caret, then at most symbol and location, or required/found/reason
RUST_PLACE_LOOKAHEAD = 3  # rustc prints a diagnostic's ``-->`` place right under its first line
RUST_ERROR_RE = re.compile(r"^error(?:\[(?P<code>E\d{4})\])?: (?P<msg>.+)$")
# a rustc diagnostic's first line: ``error[E0308]: …``, ``warning: unused variable: `depth` ``
RUST_DIAGNOSTIC_RE = re.compile(r"^(?:error|warning)(?:\[[A-Za-z]?\d{1,5}\])?: ")
# cargo's and rustc's lines after a panic or a failed build: what failed is the panic or the error above it
CARGO_WRAPPER_ERRORS = (
    "test failed, to rerun pass", "process didn't exit successfully", "could not compile", "aborting due to",
)  # fmt: skip


def compiler_error(line: str) -> tuple[str, str] | None:
    """(kind, message) when the stripped ``line`` is a one-line compiler error (tsc's kind is its ``TS2322``, MSVC's
    its ``C3861``; the others' ``error``), else None."""
    m = _TS_PRETTY_RE.match(line)
    if m:
        return m["kind"], m["msg"]
    m = _MAVEN_COMPILER_RE.match(line)
    if m:
        return "error", m["msg"].strip()
    m = _COMPILER_RE.match(line)
    if m:
        code = _TS_CODE_RE.match(m["msg"])  # tsc: ``error TS2322: …``
        return (code["kind"], code["msg"]) if code else ("error", m["msg"])
    return None


def with_details(message: str, lines: list[str], at: int) -> str:
    """A one-line compiler error's message with javac's detail lines under ``lines[at]``: ``cannot find symbol
    (symbol: class GsonBuildConfig; location: class Gson)``; as it was without them."""
    details: list[str] = []
    for line in lines[at + 1 : at + 1 + JAVAC_DETAIL_LOOKAHEAD]:
        line = line[:MAX_LINE_CHARS]
        if _compiler_error_line(line.strip()):
            break  # the next error
        m = _JAVAC_DETAIL_RE.match(line)
        if m:
            details.append(f"{m['label']}: {' '.join(m['text'].split())}")
    return f"{message} ({'; '.join(details)})" if details else message


def compiler_frame(line: str) -> Frame | None:
    """The place a one-line compiler error (or a ``go build`` line) names, else None."""
    m = _TS_PRETTY_RE.match(line) or _COMPILER_RE.match(line) or _GO_COMPILE_RE.match(line)
    m = m or _MAVEN_COMPILER_RE.match(line)
    return _place(m) if m else None


def go_compile_error(line: str) -> str | None:
    """The message of a ``go build`` line (``./main.go:12:5: undefined: walker``), else None."""
    m = _GO_COMPILE_RE.match(line.strip())
    return m["msg"] if m else None


def compiler_place(lines: list[str], at: int) -> Frame | None:
    """The place a compiler's error at ``lines[at]`` names: its own line's (gcc, clang, tsc, Maven), the ``-->`` under
    rustc's; None for another error."""
    line = lines[at][:MAX_LINE_CHARS].strip()
    if RUST_DIAGNOSTIC_RE.match(line):
        below = (RUST_FRAME_RE.match(x) for x in lines[at + 1 : at + 1 + RUST_PLACE_LOOKAHEAD] if "-->" in x)
        m = next((m for m in below if m), None)
        return Frame(m["path"], int(m["line"]), None) if m else None
    m = _TS_PRETTY_RE.match(line) or _COMPILER_RE.match(line) or _MAVEN_COMPILER_RE.match(line)
    return _place(m) if m else None


def error_starts(lines: list[str], at: int) -> list[int]:
    """Where each compiler error of ``lines`` begins, in printed order, when the error read at ``lines[at]`` is a
    compiler's: rustc's ``error…:`` lines but cargo's closing ones, the one-line errors (warnings and notes are
    none); ``go build``'s lines when ``lines[at]`` is one. [] when ``lines[at]`` is another error."""
    head = lines[at][:MAX_LINE_CHARS].strip()
    if not _compiler_error_line(head):
        go = go_compile_error(head) is not None
        return [i for i, x in enumerate(lines) if go_compile_error(x[:MAX_LINE_CHARS])] if go else []
    return [i for i, x in enumerate(lines) if _compiler_error_line(x[:MAX_LINE_CHARS].strip())]


def _compiler_error_line(line: str) -> bool:
    m = RUST_ERROR_RE.match(line)
    if m:
        return not m["msg"].startswith(CARGO_WRAPPER_ERRORS)
    return compiler_error(line) is not None


def _place(m: re.Match[str]) -> Frame:
    number = m.groupdict().get("line") or m.groupdict().get("tline")
    return Frame(m["path"], int(number) if number else None, None)
