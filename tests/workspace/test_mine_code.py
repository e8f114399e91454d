"""What a change did to the code, line by line (mine_code), and the runtimes a project still supports (mine_runtime)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forewarn.workspace import mine_code
from forewarn.workspace.mine_runtime import Runtimes, runtimes


@pytest.mark.parametrize(
    ("removed", "added", "path", "logic"),
    [
        (["x = a+b"], ["x  =  a + b"], "a.py", 0),  # whitespace ("fix spaces")
        (["s = 'x'"], ['s = "x"'], "a.py", 0),  # quotes
        (["f(a, b,)"], ["f(a, b)"], "a.py", 0),  # a trailing comma before the closer
        (["def f(a, b=1):"], ["def f(a: int, b: dict[str, int] = 1) -> str:"], "a.py", 0),  # annotations
        (["x = 1"], ["x: int = 1"], "a.py", 0),
        (["total = a  # old note"], ["total = a  # type: ignore[misc]"], "a.py", 0),  # a trailing comment
        ([], ["# a comment", "import os", "from . import x", '"""Docstring."""', ")", "pass"], "a.py", 0),
        ([], ["const x = require('x')", "// note", "}"], "a.js", 0),
        (["return a"], ["return a or b"], "a.py", 2),  # logic: one line out, one in
        (["x = {a: 1}"], ["x = {a: 2}"], "a.js", 2),  # JS keys are no annotations
        (["if x:"], ["if x and y:", "    log(x)"], "a.py", 3),
    ],
)
def test_logic_lines_leave_out_what_changes_no_behaviour(removed: list[str], added: list[str], path: str, logic: int):
    assert mine_code.logic_lines(removed, added, path) == logic


# fc45ceed in date-fns ("Fix areIntervalsOverlapping types", QA pass 4, Q2): only type parameters and arguments went
FC45CEED_REMOVED = [
    "export interface AreIntervalsOverlappingOptions<DateType extends Date>",
    "  extends DateFns.ContextOptions<DateType> {",
    " * @typeParam DateType - The `Date` type, the function operates on.",
    "export function areIntervalsOverlapping<",
    "  DateType extends Date,",
    "  ContextDate extends Date,",
    ">(",
    "  intervalLeft: Interval<DateType>,",
    "  intervalRight: Interval<DateType>,",
    "  options?: AreIntervalsOverlappingOptions<ContextDate>,",
]
FC45CEED_ADDED = [
    "export interface AreIntervalsOverlappingOptions",
    "  extends DateFns.ContextOptions<Date> {",
    "export function areIntervalsOverlapping(",
    "  intervalLeft: Interval,",
    "  intervalRight: Interval,",
    "  options?: AreIntervalsOverlappingOptions,",
]


@pytest.mark.parametrize(
    ("removed", "added", "path", "logic"),
    [
        (FC45CEED_REMOVED, FC45CEED_ADDED, "src/areIntervalsOverlapping/index.ts", 0),
        (["function f(a, b) {"], ["function f(a: number, b?: Opts<T>): Promise<void> {"], "a.ts", 0),
        (["const m = new Map()"], ["const m: Map<string, T> = new Map<string, T>()"], "a.ts", 0),
        (["return x.bar!.baz as Baz"], ["return x.bar.baz"], "a.ts", 0),
        (["const c = cfg satisfies Config"], ["const c = cfg as const"], "a.ts", 0),
        (
            ["const h = async (c: Context, next) => {"],
            ["const h = async (c: Context<Env>, next: Next): R => {"],
            "a.mts",
            0,
        ),
        (["class A<T> extends B<T> implements C {"], ["class A extends B {"], "a.ts", 0),
        (["  private cache: Map<K, V> = new Map()"], ["  private cache: Map<K, T> = new Map()"], "a.ts", 0),
        (["const [v, setV] = useState<string>('')"], ["const [v, setV] = useState<string | null>('')"], "a.tsx", 0),
        (["const timeout: number = 100"], ["const timeout: string = 200"], "a.ts", 2),  # a value changed beside a type
        (["  key: string | undefined"], ["  key?: string"], "a.ts", 0),  # a parameter's line out of its signature
        (["  total: count,"], ["  total: sum,"], "a.ts", 2),  # … or an object literal's: it may hold a value
        (["  U extends Types,"], ["  U extends keyof Types,"], "a.ts", 0),  # a type parameter's line, alone
        (["  out: { [K in U]: T }"], ["  out: { [K in U]: Exclude<T> }"], "a.ts", 0),  # a mapped type
        (["class A extends B {"], ["class A extends C {"], "a.ts", 2),  # a base class decides what runs
        (["f(x as A)"], ["f(y as B)"], "a.ts", 2),
        (["  timeout: 100,"], ["  timeout: 200,"], "a.ts", 2),  # an object literal's key is no annotation
        (["const o = { a: x, b: 1 }"], ["const o = { a: y, b: 1 }"], "a.ts", 2),
        (["f(ok ? a : b)"], ["f(ok ? a : c)"], "a.ts", 2),  # a ternary's ``:`` in a call is no annotation
        (["if (a<b && c>d) go()"], ["if (a<b && c>e) go()"], "a.ts", 2),  # comparisons are no type arguments
        (["return <p>Total: {n}</p>"], ["return <p>Total: {m}</p>"], "a.tsx", 2),
        (["const f = <T,>(x: T) => x"], ["const f = (x: unknown) => x"], "a.tsx", 0),
        (["const el = <b>(hi)</b>"], ["const el = <b>(ho)</b>"], "a.tsx", 2),  # an element, no type parameters
        (["function f(a: number) {"], ["function f(a: string) {"], "a.js", 2),  # other languages as before
    ],
)
def test_typescript_types_are_no_logic(removed: list[str], added: list[str], path: str, logic: int) -> None:
    assert mine_code.logic_lines(removed, added, path) == logic


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "export function overlaps<\n  D extends Date,\n>(\n  left: Interval<D>,\n  opts?: Opts<D>,\n): boolean {",
            "export function overlaps(\n\n\n  left,\n  opts,\n){",  # the opener stays on its name's line
        ),
        ("catch (e: unknown) {", "catch (e) {"),
        ("let x!: number", "let x"),
        ("const v = c.req.header('x') as string", "const v = c.req.header('x') "),
        ("(a: number = 1, { b }: Opts = {}) => a", "(a= 1, { b }= {}) => a"),
        ("class K {\n  name?: string;\n  max: number = 3\n}", "class K {\n  name;\n  max= 3\n}"),
        ("const h = <E extends Env = Env>(\n  app: Hono<E>\n) => {", "const h = (\n  app\n) => {"),
        ("): ((event: E, ctx?: C) => Promise<R>) => {", ")=> {"),  # a return type whose ``(`` came before
        ("export { a as b }", "export { a as b }"),  # a rename, no cast
        ("case f(x): return 1", "case f(x): return 1"),
        ("const t = `${a ? b : c}: d` as const", "const t = `${a ? b : c}: d` "),
        ("const re = /<(\\w+)>/g", "const re = /<(\\w+)>/g"),
    ],
)
def test_without_types_keeps_the_lines_and_what_runs(before: str, after: str) -> None:
    assert mine_code.without_types(before) == after


def test_typescript_samples_still_stand_after_a_type_only_change() -> None:
    sample = mine_code.sample(["  const hit: Entry<T> | undefined = this.cache.get(key)!"], "cache.ts")
    assert sample == ("consthit=this.cache.get(key)",)
    head = "get(key: string) {\n  const hit = this.cache.get(key) as Entry | undefined\n  return hit\n}\n"
    assert mine_code.survival(sample, mine_code.joined(head, "cache.ts")) == 1.0
    # a parameter's line out of its signature keeps what may be a value: found as the line at HEAD alone reads
    partial = mine_code.sample(["  onRetry: RetryHandler = backoff<Request>(send),"], "client.ts")
    assert partial == ("onRetry:RetryHandler=backoff(send),",)
    head = "export function send(\n  onRetry: RetryHandler = backoff<Request>(send),\n  req: Request,\n) {\n}\n"
    assert mine_code.survival(partial, mine_code.joined(head, "client.ts")) == 1.0
    assert mine_code.wrapper_call("function f(a: T) {\n  return g<T>(a as U)\n}", "w.ts") == "returng(a)"


def test_typescript_interfaces_and_type_aliases_only_declare_types() -> None:
    assert mine_code.is_typing_only("export interface Options<D extends Date> {\n  in?: D\n}", "a.ts")
    assert mine_code.is_typing_only("type Handler = (c: Context) => Response", "a.tsx")
    assert mine_code.is_typing_only("export declare function f(a: T): U;", "a.mts")
    assert not mine_code.is_typing_only("export function f(a: T): U {\n  return g(a)\n}", "a.ts")
    assert not mine_code.is_typing_only("const type = 1", "a.ts")
    assert not mine_code.is_typing_only("interface Foo {}", "a.js")  # no types in JavaScript: as before


def test_the_sample_keeps_long_logic_lines_and_survival_finds_them_at_head() -> None:
    added = ["x = 1", "# a long comment that says nothing here", "value = value.decode('utf-8', 'replace')"]
    sample = mine_code.sample(added, "a.py")
    assert sample == ('value=value.decode("utf-8","replace")',)  # short lines prove nothing; comments are no code
    head = "def convert(value):\n    return value.decode(\n        'utf-8', 'replace',\n    )\n"
    assert mine_code.survival(sample, mine_code.joined(head, "a.py")) == 1.0  # re-wrapped, returned, not assigned
    rewritten = mine_code.joined("def convert(value):\n    return str(value)\n", "a.py")
    assert mine_code.survival(sample, rewritten) == 0.0
    assert mine_code.survival(sample, rewritten, sample[0]) == 1.0  # … unless what replaced it counts as standing
    assert mine_code.survival((), rewritten) is None


def test_stubs_and_typing_only_code() -> None:
    assert mine_code.is_stub("@t.overload\ndef it(self, a: int) -> int: ...", "m.py")
    assert mine_code.is_stub("@overload\ndef it(\n    self,\n    a: str,\n) -> str:\n    ...", "m.py")
    assert not mine_code.is_stub("def it(self, a):\n    return a", "m.py")
    assert mine_code.is_typing_only("class K(t.TypedDict):\n    a: int", "m.py")
    assert mine_code.is_typing_only("class P(Protocol):\n    def f(self) -> int: ...", "m.py")
    assert mine_code.is_typing_only("def f(x): return x", "m.pyi")
    assert not mine_code.is_typing_only("class K(dict):\n    a = 1", "m.py")
    assert not mine_code.is_stub("function f() { ... }", "m.js")


def test_runtimes_come_from_the_projects_own_declarations(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nrequires-python = ">=3.10"\n', encoding="utf-8")
    (tmp_path / "package.json").write_text(json.dumps({"engines": {"node": ">= 18"}}), encoding="utf-8")
    found = runtimes(tmp_path)
    assert found == Runtimes(python=(3, 10), node=(18, 0))
    assert found.dropped("Always work on Unicode in Python 2.") and found.dropped("py2 compat")
    assert found.dropped("simplejson fails on Python 3.2") and found.dropped("tests broke on node v0.12")
    assert not found.dropped("Fix the editor on Python 3") and not found.dropped("needs Node.js 20")
    (tmp_path / "package.json").write_text("[1, 2]", encoding="utf-8")  # not a manifest: declares nothing
    assert runtimes(tmp_path).node is None
    assert not Runtimes().dropped("Python 2 only")  # a project that declares nothing keeps every lesson
