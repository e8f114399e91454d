"""QA pass 9, finding 7: a library's whole trace counts, javac's symbol lines, vitest's frames, compiler words."""

from __future__ import annotations

from pathlib import Path

from forewarn.cli.explain import MAX_SHOWN_PLACES as SHOWN
from forewarn.memory.vocabulary import MemoryType
from forewarn.workspace.engine import Workspace
from forewarn.workspace.error_text import read_error, read_errors
from forewarn.workspace.explaining import MAX_PLACES, compiler_names
from tests.forewarn_run import explained, forewarn_in

DEPTH = MAX_PLACES + 2  # methods the trace goes through: two past the cap


def _chain_java() -> str:
    methods = "\n".join(
        f"    public int m{n}(int x) {{\n        return m{n + 1}(x + 1);\n    }}\n" for n in range(DEPTH - 1)
    )
    return (
        "package demo;\n\npublic class Chain {\n"
        f"{methods}"
        f'    public int m{DEPTH - 1}(int x) {{\n        throw new IllegalStateException("bad " + x);\n    }}\n'
        "    static final class Adapter {\n        void write(Object o) {\n            System.out.println(o);\n"
        "        }\n    }\n}\n"
    )


def _chain_workspace(tmp_path: Path) -> tuple[Path, str]:
    """A workspace holding ``Chain.java``, and a trace through every one of its methods, innermost first."""
    root = tmp_path / "lib"
    (root / "src" / "demo").mkdir(parents=True)
    (root / "src" / "demo" / "Chain.java").write_text(_chain_java())
    (root / ".forewarn").mkdir()
    # innermost first: m13 throws (its line 2 of 3), each m<n> calls at its return line; m<n> starts at 4 + 3n
    frames = [f"\tat demo.Chain.m{n}(Chain.java:{5 + 3 * n})" for n in range(DEPTH - 1, -1, -1)]
    return root, 'Exception in thread "main" java.lang.IllegalStateException: bad 3\n' + "\n".join(frames) + "\n"


def test_every_definition_of_a_librarys_trace_counts_and_the_cap_says_what_it_left_out(tmp_path: Path) -> None:
    """gson's NaN trace: the lesson on ``Gson.toJson``, the 8th definition out, was never read (only 3 were)."""
    root, trace = _chain_workspace(tmp_path)
    with Workspace.open(root, embedder=None) as w:
        w.reindex()
        deep = f"m{DEPTH - 1 - (MAX_PLACES - 1)}"  # the outermost definition still counted
        lesson = w.remember("callers must pass a positive count here", type=MemoryType.GOTCHA,
                            file="src/demo/Chain.java", symbol=f"Chain.{deep}").memory  # fmt: skip
        past = w.remember("the entry point validates nothing", type=MemoryType.GOTCHA,
                          file="src/demo/Chain.java", symbol="Chain.m0").memory  # fmt: skip
        result = w.explain_error(trace)
    assert len(result.places) == DEPTH  # every workspace frame is listed
    assert [p.symbol for p in result.places][:2] == [f"Chain.m{DEPTH - 1}", f"Chain.m{DEPTH - 2}"]
    hits = {h.memory.id: h for h in result.hits}
    assert lesson.id in hits and hits[lesson.id].place is not None
    assert past.id not in hits  # past the cap
    assert result.places_left_out == DEPTH - MAX_PLACES


def test_a_bridge_frame_on_its_classs_line_is_the_method_it_names(tmp_path: Path) -> None:
    """Java prints a bridge method (``write(Object)`` for ``write(Double)``) on its class's line."""
    root = tmp_path / "lib"
    (root / "src" / "demo").mkdir(parents=True)
    source = _chain_java()
    (root / "src" / "demo" / "Chain.java").write_text(source)
    (root / ".forewarn").mkdir()
    class_line = source.split("\n").index("    static final class Adapter {") + 1
    trace = f"java.lang.IllegalStateException: x\n\tat demo.Chain$Adapter.write(Chain.java:{class_line})\n"
    with Workspace.open(root, embedder=None) as w:
        w.reindex()
        result = w.explain_error(trace)
    assert [p.symbol for p in result.places] == ["Chain.Adapter.write"]


JAVAC = """\
src/main/java/demo/Gson.java:24: error: cannot find symbol
import demo.internal.BuildConfig;
                    ^
  symbol:   class BuildConfig
  location: package demo.internal
src/main/java/demo/Gson.java:386: error: cannot find symbol
          "GSON (" + BuildConfig.VERSION + ") cannot handle " + type);
                     ^
  symbol:   variable BuildConfig
  location: class Gson
src/main/java/demo/Gson.java:400: error: method put in class Cache cannot be applied to given types;
    cache.put(key);
         ^
  required: String,Object
  found:    String
  reason: actual and formal argument lists differ in length
3 errors
"""


def test_javacs_symbol_and_location_are_the_errors_text() -> None:
    errors = read_errors(JAVAC)
    assert [e.message for e in errors] == [
        "cannot find symbol (symbol: class BuildConfig; location: package demo.internal)",
        "cannot find symbol (symbol: variable BuildConfig; location: class Gson)",
        "method put in class Cache cannot be applied to given types; (required: String,Object; found: String; "
        "reason: actual and formal argument lists differ in length)",
    ]
    assert [e.frames[0].line for e in errors] == [24, 386, 400]


def test_mavens_javac_lines_carry_the_symbol_too() -> None:
    text = (
        "[ERROR] /ci/src/main/java/demo/Gson.java:[386,22] cannot find symbol\n"
        "[ERROR]   symbol:   variable BuildConfig\n[ERROR]   location: class Gson\n"
    )
    assert read_error(text).message == "cannot find symbol (symbol: variable BuildConfig; location: class Gson)"


VITEST = """\
 FAIL  __tests__/patch.js > applyPatches > throws when path traverses null
TypeError: Cannot read properties of null (reading 'Symbol(immer-state)')
 \u276f getArchtype src/utils/common.ts:104:40
 \u276f applyPatches_ src/plugins/patches.ts:351:17
 \u276f Immer.applyPatches src/core/immerClass.ts:225:11
 \u276f __tests__/patch.js:87:3
     85|   test("throws when path traverses null", () => {
     86|     expect(() =>
     87|       applyPatches({a: null}, [{op: "add", path: ["a", "b"], value: 1}])
       |   ^

 Test Files  1 failed (1)
"""


def test_vitests_stack_is_read_as_frames() -> None:
    report = read_error(VITEST)
    assert report.kind == "TypeError"
    assert [(f.path, f.line, f.function) for f in report.frames] == [
        ("src/utils/common.ts", 104, "getArchtype"),
        ("src/plugins/patches.ts", 351, "applyPatches_"),
        ("src/core/immerClass.ts", 225, "applyPatches"),
        ("__tests__/patch.js", 87, None),
    ]


def test_a_bare_error_over_vitests_stack_was_thrown_and_its_header_names_the_test_file() -> None:
    text = " FAIL  src/x.test.ts > parses\nError: boom\n \u276f parse src/x.ts:3:9\n"
    report = read_error(text)
    assert (report.kind, report.message) == ("Error", "boom")
    assert [(f.path, f.line) for f in report.frames] == [("src/x.ts", 3), ("src/x.test.ts", None)]


def test_the_names_a_compiler_error_is_about() -> None:
    said = read_errors(
        "./compress.go:315:5: cw.wroteHeader undefined (type *compressResponseWriter has no field or method "
        "wroteHeader)\n./compress.go:81:3: undefined: walker\n"
    )
    assert compiler_names(said[0]) == {"wroteheader", "compressresponsewriter"}
    assert compiler_names(said[1]) == {"walker"}
    assert compiler_names(read_error("ValueError: bad camelCase value")) == set()


COMPRESS = """\
package middleware

type compressResponseWriter struct {
	wroteHeader bool
}

func (cw *compressResponseWriter) WriteHeader(code int) {
	cw.wroteHeader = true
}

type fancyWriter struct{}

func (f *fancyWriter) ReadFrom() int {
	return 0
}
"""


FILLER = (
    "the router sorts routes by pattern length before matching",
    "url params are read from the request context, never from globals",
    "timeouts cancel the context; handlers must check ctx.Done",
    "a recovered panic logs its stack once and answers 500",
    "the throttle middleware counts tokens per client address",
)


def test_a_compiler_errors_word_match_must_name_what_the_error_names(tmp_path: Path) -> None:
    """chi: ``cw.wroteHeader undefined (type *compressResponseWriter …)`` also listed a ``ReadFrom`` lesson that
    shares only "writer" and "response" with it."""
    root = tmp_path / "mw"
    root.mkdir()
    (root / "compress.go").write_text(COMPRESS)
    (root / "other.go").write_text("package middleware\n\nfunc other() {}\n")
    (root / ".forewarn").mkdir()
    with Workspace.open(root, embedder=None) as w:
        w.reindex()
        for text in FILLER:  # words' weights come from a corpus: a team's other lessons
            w.remember(text, type=MemoryType.GOTCHA, file="other.go")
        noise = w.remember(
            "the compress response writer header field: ReadFrom wrote each byte twice through the writer",
            type=MemoryType.GOTCHA, file="compress.go", symbol="fancyWriter.ReadFrom",
        ).memory  # fmt: skip
        named = w.remember(
            "wroteHeader undefined on the compress response writer type: the field moved to its embedded writer",
            type=MemoryType.GOTCHA, file="compress.go", symbol="compressResponseWriter.WriteHeader",
        ).memory  # fmt: skip
        result = w.explain_error(
            "./gone.go:3:5: cw.wroteHeader undefined (type *compressResponseWriter has no field or method "
            "wroteHeader)\n"
        )
    assert not result.places  # found by words alone
    ids = {h.memory.id for h in result.hits}
    assert named.id in ids and noise.id not in ids


def test_the_cli_shows_a_far_place_that_holds_a_memory_and_counts_the_rest(tmp_path: Path) -> None:
    """``forewarn explain`` listed only the 5 innermost places: gson's ``Gson.toJson``, whose memory it returned, was
    not among them, and nothing said that places were left out."""
    root, trace = _chain_workspace(tmp_path)
    deep = f"m{DEPTH - MAX_PLACES}"  # the outermost definition still read for memories
    with Workspace.open(root, embedder=None) as w:
        w.reindex()
        w.remember("callers must pass a positive count here", type=MemoryType.GOTCHA, file="src/demo/Chain.java",
                   symbol=f"Chain.{deep}")  # fmt: skip
    said = forewarn_in(root, "explain", "--lexical", stdin=trace).stdout.splitlines()
    through = [line for line in said if line.startswith("  through ")]
    assert len(through) == SHOWN + 1 and through[-1].endswith(f"Chain.{deep}")  # the five innermost, and the far one
    assert f"  … and {DEPTH - SHOWN - 1} more places" in said
    assert explained(root, trace)["places_left_out"] == DEPTH - MAX_PLACES
