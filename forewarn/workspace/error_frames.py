"""Native stack frames read from a debugger's backtrace and a Rust panic (pure: no I/O, no index); ``error_text``
reads the rest of an error with them.

* gdb: ``#0  0x…5a9 in ns::Klass::method (this=0x…, n=3) at src/foo.cpp:42``, ``#1  main () at src/main.c:10``, the
  stop place printed under ``Program received signal SIGSEGV, Segmentation fault.`` (no ``#0``), a frame gdb
  wrapped onto indented lines; ``… from /lib/x86_64-linux-gnu/libc.so.6`` and frames with no source are read and
  left out.
* lldb: ``frame #0: 0x… prog`ns::f(int) at foo.cpp:12:5``; ``libsystem_c.dylib`abort + 123`` is left out.
* Rust: the ``thread 'main' (4242) panicked at src/main.rs:10:5:`` place (``panicked at 'msg', src/main.rs:10:5``
  before Rust 1.73) and ``RUST_BACKTRACE`` frames (``  12: bat::assets::HighlightingAssets::get_syntax`` over
  ``at ./src/assets.rs:271:17``); std/core/alloc (``/rustc/<hash>/library/``) and crates.io's frames are left out.

Every frame of the C library, the C++ runtime, a sanitizer's runtime or Rust's standard library is read, and left
out (``Frame("", None)``): every crash passes there, never the workspace's code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_WRAPPED_LINES = 4  # gdb wraps a frame with long arguments onto indented lines at the terminal's width
MAX_LINE_CHARS = 2_000  # a longer line is not a frame; an error line is read by its start

# -- the C library, the C++ runtime and a sanitizer's runtime ---------------------------------------------------
NATIVE_RUNTIME_PATH_RE = re.compile(
    r"(?:^|/)(?:libsanitizer|compiler-rt|sanitizer_common|sysdeps|csu)/|^/usr/(?:include|lib|lib64|libexec)/|^/lib(?:64)?/"
)
NATIVE_RUNTIME_FUNCS = ("__interceptor_", "___interceptor_", "__asan", "__lsan", "__ubsan", "__sanitizer", "__tsan",
                        "__msan", "__libc_")  # fmt: skip
# glibc's own sources, as its debug info names them (``./nptl/pthread_kill.c``, ``./stdlib/abort.c``)
_GLIBC_SOURCE_RE = re.compile(r"^\./(?:nptl|stdlib|assert|libio|string|malloc|signal|posix|misc|elf|csu|io|dlfcn)/")
# C reserves ``__x`` and ``_X`` names to the implementation (``__GI_raise``, ``__assert_fail_base``, ``_start``)
_RESERVED_NAME_RE = re.compile(r"^_[_A-Z]")
# a debugger's module of the C library, the C++ runtime, the dynamic loader (lldb's ``libc.so.6`abort``)
_SYSTEM_MODULE_RE = re.compile(
    r"^(?:libc[.-]|libm\.|libpthread|libdl\.|libstdc\+\+|libc\+\+|libgcc_s|libsystem_|libdyld|libobjc|ld-linux|dyld$"
    r"|libclang_rt|libasan|libubsan)"
)
# Rust's standard library (``/rustc/<hash>/library/core/src/…``, a toolchain's ``lib/rustlib/src``) and the crates
# cargo downloaded (``~/.cargo/registry/src/…``, ``~/.cargo/git/checkouts/…``)
_RUST_LIBRARY_PATH_RE = re.compile(
    r"^/rustc/[0-9a-f]{7,40}/|(?:^|/)rustlib/src/|(?:^|/)library/(?:std|core|alloc|proc_macro|test)/src/"
    r"|(?:^|/)\.cargo/(?:registry|git)/"
)
# std's, core's and alloc's functions (``core::panicking::panic_fmt``, ``<alloc::vec::Vec<T> as …>::index``; with
# RUST_BACKTRACE=full, ``std[e282…]::panicking::…``), and the panic runtime's
_RUST_LIBRARY_FUNC_RE = re.compile(
    r"^<*(?:std|core|alloc|proc_macro|test|__rustc)(?:\[[0-9a-f]{1,40}\])?::|^(?:rust_begin_unwind|rust_panic|__rust_)"
)
_RUST_HASH_RE = re.compile(r"::h[0-9a-f]{16}$")  # a symbol's hash: ``get_syntax::h1a2b…``
_RUST_CLOSURE_RE = re.compile(r"(?:::\{\{closure\}\}|::\{closure#\d+\})+$")  # a closure by the function it is in

# -- gdb ---------------------------------------------------------------------------------------------------------
_GDB_FRAME_HEAD_RE = re.compile(r"^#\d{1,4}\s+(?:0x[0-9a-fA-F]{1,16} in )?\S")
_GDB_FRAME_RE = re.compile(
    r"^(?:#\d{1,4}\s+)?(?:0x[0-9a-fA-F]{1,16} in )?(?P<func>[^\s(#].{0,1000}?) \((?P<args>.{0,4000})\)"
    r"(?: at (?P<path>\S{1,1000}?):(?P<line>\d{1,9})| from (?P<lib>\S{1,1000}))?\s*$"
)
# ``Program received signal SIGSEGV, Segmentation fault.``; ``Thread 2 "ab" received signal SIGABRT, Aborted.``;
# a core file's ``Program terminated with signal SIGSEGV, Segmentation fault.``
_GDB_SIGNAL_RE = re.compile(
    r"^(?:Program|Thread \d{1,9}(?: \"[^\"]{0,200}\")?) (?:received|terminated with) signal "
    r"(?P<signal>SIG[A-Z0-9]{1,20}), (?P<msg>.{1,300}?)\.?$"
)
GDB_STOP_PLACE_LOOKBACK = 2  # the stop place follows the signal line (a ``[Switching to Thread …]`` between)

# -- lldb --------------------------------------------------------------------------------------------------------
_LLDB_FRAME_RE = re.compile(
    r"^\s*\*?\s*frame #\d{1,4}: 0x[0-9a-fA-F]{1,16} (?P<module>[^`\s]{1,300})`(?P<func>.{1,4000}?)"
    r"(?: at (?P<path>[^\s:]{1,1000}):(?P<line>\d{1,9})(?::\d{1,9})?(?: \[(?:opt|inlined|artificial)\])*)?\s*$"
)
# ``* thread #1, name = 'a.out', stop reason = signal SIGSEGV: invalid address (fault address: 0x0)``;
# macOS: ``stop reason = EXC_BAD_ACCESS (code=1, address=0x0)``
_LLDB_STOP_RE = re.compile(
    r"^\*?\s*thread #\d{1,9}\b.{0,500}?, stop reason = (?:signal (?P<signal>SIG[A-Z0-9]{1,20})(?::\s*(?P<msg>.+))?"
    r"|(?P<exc>EXC_[A-Z_]{1,40})(?: \((?P<detail>.{0,300})\))?)\s*$"
)

# -- Rust --------------------------------------------------------------------------------------------------------
# ``thread 'main' panicked at src/main.rs:10:5:`` (1.73+; 1.91+ print the thread's id: ``'main' (4242)``) with the
# message on the next line, or ``thread 'main' panicked at 'msg', src/main.rs:10:5`` before 1.73
RUST_PANIC_RE = re.compile(
    r"^thread '[^']*'(?: \(\d{1,20}\))? panicked at (?:'(?P<old>.*)', )?(?P<where>[^\s]+?)(?::)?$"
)
_RUST_PANIC_PLACE_RE = re.compile(r"^(?P<path>[^\s]{1,1000}?):(?P<line>\d{1,9})(?::\d{1,9})?$")
# a RUST_BACKTRACE frame's name line: ``  12: bat::assets::…::get_syntax``; ``=full``: ``  12:  0x55… - name::h…``
_RUST_BACKTRACE_NAME_RE = re.compile(r"^\s*\d{1,4}:\s+(?:0x[0-9a-fA-F]{1,16} - )?(?P<func>\S.{0,2000})$")
_RUST_BACKTRACE_AT_RE = re.compile(r"^\s+at (?P<path>[^\s:]{1,1000}):(?P<line>\d{1,9})(?::\d{1,9})?\s*$")


@dataclass(frozen=True, slots=True)
class Frame:
    """One place the error went through, as printed (the path may be absolute, relative, or another machine's)."""

    path: str
    line: int | None
    function: str | None = None


LEFT_OUT = Frame("", None)  # a library's frame: read, so no other reader takes its line, and left out


def debugger_frame(lines: list[str], i: int) -> Frame | None:
    """The frame ``lines[i]`` prints in a gdb or lldb backtrace or a Rust panic or backtrace; ``LEFT_OUT`` for a
    library's frame or one with no source; None when ``lines[i]`` is none of these."""
    line = lines[i]
    if _GDB_FRAME_HEAD_RE.match(line) or _after_gdb_signal(lines, i):
        return _gdb_frame(_unwrapped(lines, i)[0])
    if line.startswith((" ", "\t")) and _wrapped_onto(lines, i):
        return LEFT_OUT  # read with its frame's first line
    m = _LLDB_FRAME_RE.match(line)
    if m:
        return _lldb_frame(m)
    m = RUST_PANIC_RE.match(line)
    if m:
        place = _RUST_PANIC_PLACE_RE.match(m["where"])
        return _rust_frame(place["path"], int(place["line"]), None) if place else LEFT_OUT
    m = _RUST_BACKTRACE_AT_RE.match(line)
    if m and i > 0:
        name = _RUST_BACKTRACE_NAME_RE.match(lines[i - 1])
        if name:
            return _rust_frame(m["path"], int(m["line"]), name["func"].strip())
    return None


def signal_error(line: str) -> tuple[str, str] | None:
    """(the signal, what it says) when ``line`` is gdb's or lldb's report of the signal that stopped the program
    (``SIGSEGV``, ``Segmentation fault``; macOS: ``EXC_BAD_ACCESS``, ``code=1, address=0x0``), else None."""
    m = _GDB_SIGNAL_RE.match(line)
    if m:
        return m["signal"], m["msg"].strip()
    m = _LLDB_STOP_RE.match(line)
    if m is None:
        return None
    if m["signal"]:
        return m["signal"], (m["msg"] or "").strip()
    return m["exc"], (m["detail"] or "").strip()


def native_name(func: str) -> str | None:
    """``f_strftime``; ``ns::Parser::parse(int) const``: ``parse``; ``std::vector<int>::at``: ``at``."""
    name = func.split("(", 1)[0].strip()
    name = re.sub(r"<[^<>]*>", "", re.sub(r"<[^<>]*>", "", name))  # template arguments, nested once
    return name.rsplit("::", 1)[-1].strip() or None


def is_native_runtime(func: str, path: str) -> bool:
    """Whether a native frame is in the sanitizer's runtime, libc or the system's headers."""
    return func.startswith(NATIVE_RUNTIME_FUNCS) or bool(NATIVE_RUNTIME_PATH_RE.search(path))


def _after_gdb_signal(lines: list[str], i: int) -> bool:
    """Whether ``lines[i]`` is the stop place gdb prints under the signal (``0x… in f (n=3) at x.c:4``)."""
    for back in range(1, GDB_STOP_PLACE_LOOKBACK + 1):
        if i - back < 0:
            return False
        before = lines[i - back].strip()
        if _GDB_SIGNAL_RE.match(before):
            return True
        if not before.startswith("[Switching to "):
            return False
    return False


def _unwrapped(lines: list[str], i: int) -> tuple[str, int]:
    """A gdb frame's line with the indented lines gdb wrapped it onto (the rest of its arguments, its place), and
    how many lines it took."""
    text = lines[i].rstrip()
    taken = 1
    for more in lines[i + 1 : i + 1 + MAX_WRAPPED_LINES]:
        said = more.strip()
        if not more.startswith((" ", "\t")) or not said:
            break
        placed = " at " in text or " from " in text
        if not (_ends_open(text) or (not placed and said.startswith(("at ", "from ")))):
            break
        text = f"{text} {said}"
        taken += 1
    return text, taken


def _wrapped_onto(lines: list[str], i: int) -> bool:
    """Whether the indented ``lines[i]`` continues a gdb frame above it (``    at ./assert/assert.c:94``)."""
    for j in range(i - 1, max(i - 1 - MAX_WRAPPED_LINES, -1), -1):
        if _GDB_FRAME_HEAD_RE.match(lines[j]):
            return j + _unwrapped(lines, j)[1] > i
        if not lines[j].startswith((" ", "\t")):
            return False
    return False


def _ends_open(text: str) -> bool:
    """Whether the argument list gdb printed is still open (the frame goes on on the next line)."""
    return text.count("(") > text.count(")")


def _gdb_frame(text: str) -> Frame | None:
    m = _GDB_FRAME_RE.match(text.lstrip())
    if m is None:  # not gdb's (a sanitizer's frame printed flush left): another reader's
        return None
    if not m["path"]:  # ``from libc.so.6``, ``main ()`` with no debug info, ``?? ()``: no place
        return LEFT_OUT
    func, path = m["func"].strip(), m["path"]
    if _is_library(func, path):
        return LEFT_OUT
    return Frame(path, int(m["line"]), _rust_name(func))


def _lldb_frame(m: re.Match[str]) -> Frame:
    func, path = m["func"].strip(), m["path"]
    if not path or _SYSTEM_MODULE_RE.match(m["module"]) or _is_library(func, path):
        return LEFT_OUT
    return Frame(path, int(m["line"]), _rust_name(func))


def _rust_frame(path: str, line: int, func: str | None) -> Frame:
    if _is_library(func or "", path):
        return LEFT_OUT
    return Frame(path, line, _rust_name(func) if func else None)


def _is_library(func: str, path: str) -> bool:
    """A frame of the C library, the C++ runtime, a sanitizer's runtime or Rust's standard library."""
    return (
        is_native_runtime(func, path)
        or bool(_GLIBC_SOURCE_RE.match(path) or _RESERVED_NAME_RE.match(func))
        or bool(_RUST_LIBRARY_PATH_RE.search(path.replace("\\", "/")))
        or bool(_RUST_LIBRARY_FUNC_RE.match(func))
    )


def _rust_name(func: str) -> str | None:
    """``bat::assets::HighlightingAssets::get_syntax::h1a2b…``: ``get_syntax``; a closure by its function's name;
    a C++ name as ``native_name`` reads it."""
    name = _RUST_CLOSURE_RE.sub("", _RUST_HASH_RE.sub("", func.strip()))
    return native_name(name)
