"""Reading an error out of a failing command's output: its type, a stable signature, the frames it went through."""

from __future__ import annotations

import pytest

from forewarn.workspace.error_text import MAX_FRAMES, MAX_SIGNATURE_CHARS, normalise, read_error

PYTHON = """\
Traceback (most recent call last):
  File "/home/ci/build/src/requests/models.py", line 971, in json
    return complexjson.loads(self.content.decode(encoding), **kwargs)
  File "/usr/lib/python3.11/json/__init__.py", line 346, in loads
    return _default_decoder.decode(s)
json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)
"""

PYTEST = """\
    def test_parse():
>       assert parse_amount("1,50") == 150
E       ValueError: invalid literal for int() with base 10: '1,50'

billing/money.py:12: ValueError
=========================== short test summary info ============================
FAILED tests/test_money.py::test_parse - ValueError: invalid literal for int() with base 10: '1,50'
========================= 1 failed, 3 passed in 0.20s ==========================
"""

NODE = """\
TypeError: Cannot read properties of undefined (reading 'length')
    at sendFile (/app/lib/response.js:412:18)
    at Layer.handle [as handle_request] (/app/node_modules/express/lib/router/layer.js:95:5)
"""

GO = """\
panic: runtime error: index out of range [5] with length 3

goroutine 1 [running]:
main.parse(0xc000012345)
\t/home/u/proj/parse.go:14 +0x1d
main.main()
\t/home/u/proj/main.go:8 +0x25
"""

JAVA = """\
Exception in thread "main" java.lang.NullPointerException: Cannot invoke "String.length()" because "s" is null
\tat com.acme.Parser.parse(Parser.java:42)
\tat com.acme.Main.main(Main.java:7)
"""


@pytest.mark.parametrize(
    ("text", "kind", "signature", "first_frame"),
    [
        (
            PYTHON,
            "JSONDecodeError",
            "JSONDecodeError: Expecting value: line <n> column <n> (char <n>)",
            ("/usr/lib/python3.11/json/__init__.py", 346, "loads"),
        ),
        (
            PYTEST,
            "ValueError",
            "ValueError: invalid literal for int() with base <n>: <n>",
            ("billing/money.py", 12, None),
        ),
        (
            NODE,
            "TypeError",
            "TypeError: Cannot read properties of undefined (reading 'length')",
            ("/app/lib/response.js", 412, "sendFile"),
        ),
        (
            GO,
            "panic",
            "panic: runtime error: index out of range [<n>] with length <n>",
            ("/home/u/proj/parse.go", 14, "parse"),
        ),
        (
            JAVA,
            "NullPointerException",
            'NullPointerException: Cannot invoke "String.length()" because "s" is null',
            ("Parser.java", 42, "parse"),
        ),
        (
            "error[E0308]: mismatched types\n --> src/main.rs:4:18\n",
            "E0308",
            "E0308: mismatched types",
            ("src/main.rs", 4, None),
        ),
        (
            "src/app.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.",
            "TS2322",
            "TS2322: Type 'string' is not assignable to type 'number'.",
            ("src/app.ts", 12, None),
        ),
        (
            "src/x.c:12:5: error: 'foo' undeclared (first use in this function)",
            "error",
            "error: 'foo' undeclared (first use in this function)",
            ("src/x.c", 12, None),
        ),
        (  # Maven's compiler plugin (QA pass 6, #22): "No error found" before
            "[INFO] --- maven-compiler-plugin:3.11.0:compile (default-compile) @ jsoup ---\n"
            "[ERROR] COMPILATION ERROR :\n"
            "[ERROR] /w/src/main/java/org/jsoup/nodes/Node.java:[408,25] cannot find symbol\n"
            "  symbol:   method addChildrenAt(int,org.jsoup.nodes.Node)\n[INFO] BUILD FAILURE\n",
            "error",
            "error: cannot find symbol (symbol: method addChildrenAt(int,org.jsoup.nodes.Node))",  # QA pass 9, #7
            ("/w/src/main/java/org/jsoup/nodes/Node.java", 408, None),
        ),
    ],
)
def test_each_language_reads_its_error(text: str, kind: str, signature: str, first_frame: tuple) -> None:
    report = read_error(text)
    assert report.kind == kind
    assert report.signature == signature
    f = report.frames[0]
    assert (f.path, f.line, f.function) == first_frame


def test_python_frames_come_innermost_first() -> None:
    frames = read_error(PYTHON).frames
    assert [f.function for f in frames] == ["loads", "json"]


def test_the_signature_is_the_same_for_two_runs_of_one_failure() -> None:
    a = read_error("KeyError: 'user_42' at 0x7f3a9c0d1e20 in /tmp/run-1/cache.py (id 5f2b9c1d8e7a)")
    b = read_error("KeyError: 'user_7' at 0x55d1aa0e3f10 in /tmp/run-2/cache.py (id 0a1b2c3d4e5f)")
    assert a.signature == b.signature
    assert "<addr>" in a.signature and "<path>" in a.signature and "<id>" in a.signature


def test_normalise_keeps_names_and_drops_values() -> None:
    assert (
        normalise("Cannot read 'total' of 3 items at C:\\build\\x.py") == "Cannot read 'total' of <n> items at <path>"
    )
    assert normalise("requests.exceptions.SSLError: 1/2 done") == "requests.exceptions.SSLError: <n>/<n> done"


def test_output_without_an_error_reads_as_none() -> None:
    report = read_error("collected 4 items\n\n4 passed in 0.12s\n")
    assert not report.found and report.kind is None and report.signature == ""


def test_hostile_output_is_bounded() -> None:
    frames = "".join(f'  File "/x/m{i}.py", line {i}, in f{i}\n' for i in range(500))
    text = "\x1b[31m" + "A" * 3_000_000 + "\x00\x07\n" + frames + "ValueError: " + "v" * 50_000 + "\n"
    report = read_error(text)
    assert report.kind == "ValueError"
    assert len(report.signature) <= MAX_SIGNATURE_CHARS
    assert len(report.frames) == MAX_FRAMES
    assert "\x00" not in report.message and "\x1b" not in report.message
