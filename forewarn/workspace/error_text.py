"""What an error says, read from the text a failing command printed (pure: no I/O, no index).

``read_error(text)`` finds the error's type and message and the stack frames in a Python traceback, pytest
output, a Node/JavaScript stack, a Go panic or compiler message, a Rust error or panic, a Java stack trace,
and C/C++/TypeScript compiler lines. The message is normalised into a *signature* that stays the same between
two runs of the same failure: numbers, paths, ids, hex addresses and quoted values are replaced by
placeholders, so ``KeyError: 'user_42'`` at ``0x7f3a…`` and ``KeyError: 'user_7'`` at ``0x55d1…`` read alike.

The text is untrusted (a test's output may print anything): it is read bounded (``MAX_SCAN_CHARS``, the tail
kept, where a failure's summary is), control characters and ANSI colours are dropped, and every field is
capped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_SCAN_CHARS = 64_000  # a failure's cause sits at the end of its output; the rest is progress and passing tests
MAX_FRAMES = 40  # frames kept from one trace (innermost first); deeper ones are the framework's plumbing
MAX_MESSAGE_CHARS = 300  # an error message is a line; past this it is a dump of data
MAX_SIGNATURE_CHARS = 400
MAX_LINE_CHARS = 2_000  # a longer line is not a frame; an error line is read by its start

_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

# -- frames: where the error went through, one pattern per language's way of printing a stack -------------------
_PY_FRAME_RE = re.compile(r'^\s*File "(?P<path>[^"\n]{1,1000})", line (?P<line>\d{1,9})(?:, in (?P<func>[\w<>.]+))?')
_PYTEST_FRAME_RE = re.compile(r"^(?P<path>[\w./\\-]{1,1000}\.py):(?P<line>\d{1,9}):(?: in (?P<func>[\w<>.]+))?")
_JS_FRAME_RE = re.compile(
    r"^\s*at (?:(?:async |new )?(?P<func>[\w$.<>\[\] ]{1,200}?) \()?(?:file://)?(?P<path>[^\s():]{1,1000})"
    r":(?P<line>\d{1,9})(?::\d{1,9})?\)?\s*$"
)
_JAVA_FRAME_RE = re.compile(r"^\s*at (?P<func>[\w$.<>]{1,300})\((?P<path>[\w$.-]{1,300}):(?P<line>\d{1,9})\)")
_GO_FRAME_RE = re.compile(r"^\t(?P<path>[^\s:]{1,1000}\.go):(?P<line>\d{1,9})(?: \+0x[0-9a-f]+)?\s*$")
_GO_FUNC_RE = re.compile(r"^(?P<func>[\w./*()-]{1,300})\(.*\)\s*$")
_RUST_FRAME_RE = re.compile(r"^\s*(?:-->|at) (?P<path>[^\s:]{1,1000}\.rs):(?P<line>\d{1,9})(?::\d{1,9})?")
# path:line:col: error: message (gcc, clang, go vet, eslint's unix format) and path(line,col): error TSnnnn: (tsc)
_COMPILER_RE = re.compile(
    r"^(?P<path>[^\s:()]{1,1000}\.\w{1,6})(?::(?P<line>\d{1,9})(?::\d{1,9})?:|\((?P<tline>\d{1,9}),\d{1,9}\):)"
    r"\s*(?:(?:fatal )?error|error TS\d+|Error)\b:?\s*(?P<msg>.*)$"
)
_TS_PRETTY_RE = re.compile(
    r"^(?P<path>[^\s:]{1,1000}\.\w{1,6}):(?P<line>\d{1,9}):\d{1,9} - error (?P<kind>TS\d+): (?P<msg>.*)"
)
_GO_COMPILE_RE = re.compile(r"^(?P<path>\.?/?[^\s:]{1,1000}\.go):(?P<line>\d{1,9}):\d{1,9}: (?P<msg>.+)$")

# -- the error itself ---------------------------------------------------------------------------------------------
# an exception line: ``ValueError: bad``, ``requests.exceptions.SSLError: …``, ``E   KeyError: 'x'`` (pytest)
_EXCEPTION_RE = re.compile(
    r"^(?:E\s+|FAILED \S+ - |ERROR \S+ - |Uncaught |Exception in thread \"[^\"]*\" )?"
    r"(?P<kind>(?:[A-Za-z_][\w]*\.){0,6}[A-Z][\w]*(?:Error|Exception|Warning|Exit|Interrupt|Iteration|Failure|Fault"
    r"|Timeout|Refused|Denied|NotFound|Invalid|Abort|Conflict))"
    r"(?:\[(?P<code>[\w-]{1,20})\])?(?::\s*(?P<msg>.*))?$"
)
_RUST_ERROR_RE = re.compile(r"^error(?:\[(?P<code>E\d{4})\])?: (?P<msg>.+)$")
_RUST_PANIC_RE = re.compile(r"^thread '[^']*' panicked at (?:'(?P<old>.*)', )?(?P<where>[^\s]+?)(?::)?$")
_GO_PANIC_RE = re.compile(r"^panic: (?P<msg>.+)$")
_ASSERT_RE = re.compile(r"^(?:E\s+)?(?P<kind>assert(?:ion)?)\b\s*(?P<msg>.*)$", re.IGNORECASE)

# -- what a signature leaves out ----------------------------------------------------------------------------------
_HEX_ADDR_RE = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
_UUID_RE = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_HEX_ID_RE = re.compile(r"\b(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{7,}\b")  # shas, object ids
_PATH_RE = re.compile(r"(?:[A-Za-z]:\\|\.{0,2}/)?(?:[\w.@+-]+[/\\]){1,}[\w.@+-]+|[A-Za-z]:\\[^\s'\"]+")
_QUOTED_NUMBER_RE = re.compile(r"(['\"])[+-]?\d[\d.,_:+-]*\1")
_SUFFIX_NUMBER_RE = re.compile(r"(?<=[A-Za-z][_-])\d+\b")  # user_42, worker-3: an id's counter
_NUMBER_RE = re.compile(r"(?<![\w<])[+-]?\d+(?:[.,_]\d+)*(?:e[+-]?\d+)?(?![\w>])", re.IGNORECASE)
_WS_RE = re.compile(r"\s+")
_JS_ALIAS_RE = re.compile(r"\s*\[as [^\]]*\]")
_TS_CODE_RE = re.compile(r"^(?P<kind>TS\d+):\s*(?P<msg>.*)$")


@dataclass(frozen=True, slots=True)
class Frame:
    """One place the error went through, as printed (the path may be absolute, relative, or another machine's)."""

    path: str
    line: int | None
    function: str | None = None


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
    """A message without what changes between two runs of the same failure (see the module docstring)."""
    out = _UUID_RE.sub("<id>", message)
    out = _HEX_ADDR_RE.sub("<addr>", out)
    out = _HEX_ID_RE.sub("<id>", out)
    out = _PATH_RE.sub(_path_placeholder, out)
    out = _QUOTED_NUMBER_RE.sub("<n>", out)
    out = _SUFFIX_NUMBER_RE.sub("<n>", out)
    out = _NUMBER_RE.sub("<n>", out)
    return _WS_RE.sub(" ", out).strip()[:MAX_SIGNATURE_CHARS]


def _path_placeholder(m: re.Match[str]) -> str:
    text = m.group(0)
    # a dotted name (requests.exceptions.SSLError) or a ratio (1/2) is not a path: only slashes with a name
    return "<path>" if ("/" in text or "\\" in text) and re.search(r"[A-Za-z]", text) else text


def read_error(text: str) -> ErrorReport:
    """The error in ``text`` (the last one reported: a traceback's final line, a failed test's message)."""
    lines = clean(text).split("\n")
    frames = _frames(lines)
    kind, message = _last_error(lines)
    if kind is None and not message and frames:
        message = ""
    message = " ".join(message.split())[:MAX_MESSAGE_CHARS]
    norm = normalise(message)
    signature = (f"{kind}: {norm}" if norm else kind) if kind else norm
    return ErrorReport(kind, message, (signature or "")[:MAX_SIGNATURE_CHARS], tuple(frames))


def _frames(lines: list[str]) -> list[Frame]:
    """Stack frames, innermost first (Python and pytest print outermost first; the others innermost first)."""
    python: list[Frame] = []
    other: list[Frame] = []
    go_func: str | None = None
    for line in lines:
        if len(line) > MAX_LINE_CHARS:
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
        for regex in (_JAVA_FRAME_RE, _JS_FRAME_RE, _RUST_FRAME_RE):
            m = regex.match(line)
            if m:
                func = m.groupdict().get("func")
                other.append(Frame(m["path"], int(m["line"]), _last_part(func) if func else None))
                break
        else:
            m = _TS_PRETTY_RE.match(line) or _COMPILER_RE.match(line) or _GO_COMPILE_RE.match(line)
            if m:
                number = m.groupdict().get("line") or m.groupdict().get("tline")
                other.append(Frame(m["path"], int(number) if number else None, None))
    found = [*reversed(python), *other]
    unique: list[Frame] = []
    seen: set[tuple[str, int | None]] = set()
    for f in found:
        key = (f.path, f.line)
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique[:MAX_FRAMES]


def _go_name(func: str | None) -> str | None:
    if not func:
        return None
    name = func.split("(")[0].rsplit("/", 1)[-1]
    return _last_part(name.replace("*", ""))


def _last_part(func: str) -> str | None:
    func = _JS_ALIAS_RE.sub("", func)  # ``Layer.handle [as handle_request]``: the name it was defined with
    parts = [p for p in re.split(r"[.\s]", func) if p and p not in ("<anonymous>", "<module>", "Object")]
    return parts[-1] if parts else None


def _last_error(lines: list[str]) -> tuple[str | None, str]:
    """(kind, message) of the last error line in ``lines``, else the first compiler message, else ('', '')."""
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i][:MAX_LINE_CHARS].strip()  # a message that long is data: its start says what it is
        if not line:
            continue
        m = _EXCEPTION_RE.match(line)
        if m and not line.startswith(("at ", "File ")):
            kind = m["kind"].rsplit(".", 1)[-1] if "." in m["kind"] else m["kind"]
            return (f"{kind}[{m['code']}]" if m["code"] else kind), (m["msg"] or "").strip()
        m = _RUST_ERROR_RE.match(line)
        if m:
            return (m["code"] or "error"), m["msg"]
        m = _GO_PANIC_RE.match(line)
        if m:
            return "panic", m["msg"]
        m = _RUST_PANIC_RE.match(line)
        if m:
            follow = lines[i + 1].strip() if i + 1 < len(lines) else ""
            return "panic", (m["old"] or follow)
        m = _TS_PRETTY_RE.match(line)
        if m:
            return m["kind"], m["msg"]
        m = _COMPILER_RE.match(line)
        if m:
            code = _TS_CODE_RE.match(m["msg"])  # tsc: ``error TS2322: …``
            return (code["kind"], code["msg"]) if code else ("error", m["msg"])
        m = _ASSERT_RE.match(line)
        if m and lines[i].lstrip().startswith("E "):
            return "AssertionError", m["msg"]
    for line in lines:
        m = _GO_COMPILE_RE.match(line.strip())
        if m:
            return "error", m["msg"]
    return None, ""
