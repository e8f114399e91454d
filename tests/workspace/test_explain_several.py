"""QA pass 8 #9 end to end: ``forewarn explain`` (text and ``--json``) and ``Workspace.explain_error`` (what the MCP
tool and the agent hooks answer with) on a build that printed several errors: each error is named with its own
place, the first first, and the memories on each error's code are found, the first error's first."""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.workspace.engine import Workspace
from tests.forewarn_run import explained, forewarn_in, remember_gotcha
from tests.gitrepo import Repo

UTIL_TS = """\
export function merge(a: object, b: object): object {
  const depth: number = 0;
  return { ...a, ...b, depth };
}
"""
SCHEMAS_TS = """\
import { merge } from "./util";

export function extend(shape: object): object {
  return merge(shape);
}
"""
WALK_RS = """\
pub struct Walk {
    depth: usize,
}

impl Walk {
    pub fn next(&self) -> Option<usize> {
        let unused = 1;
        Some(self.depth)
    }

    pub fn skip(&self) -> usize {
        self.depth.with_start(1)
    }
}
"""
TSC = """\
src/util.ts(2,9): error TS2322: Type 'string' is not assignable to type 'number'.
src/schemas.ts(4,10): error TS2554: Expected 2 arguments, but got 1.
"""
RUSTC = """\
error[E0308]: mismatched types
 --> src/walk.rs:8:14
  |
8 |         Some(self.depth)
  |              ^^^^^^^^^^ expected `Result<usize, Error>`, found `usize`

warning: unused variable: `unused`
 --> src/walk.rs:7:13
  |
7 |         let unused = 1;
  |             ^^^^^^ help: if this is intentional, prefix it with an underscore: `_unused`

error[E0599]: no method named `with_start` found for type `usize` in the current scope
  --> src/walk.rs:12:20
   |
12 |         self.depth.with_start(1)
   |                    ^^^^^^^^^^ method not found in `usize`

error: could not compile `walker` (lib) due to 2 previous errors; 1 warning emitted
"""


@pytest.fixture
def workspace(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """TypeScript and Rust files, committed, indexed, with a gotcha on each function an error is in."""
    repo = Repo(tmp_path / "walker")
    repo.write("src/util.ts", UTIL_TS)
    repo.write("src/schemas.ts", SCHEMAS_TS)
    repo.write("src/walk.rs", WALK_RS)
    repo.commit("Walker, merge and extend")
    forewarn_in(repo.root, "index", "--no-embed")
    ids = {}
    for name, text, rel in (
        ("merge", "the right-hand shape wins on a clash: callers rely on it", "src/util.ts"),
        ("extend", "extend keeps the base shape's checks; merge drops them", "src/schemas.ts"),
        ("next", "a walk resumes from the ignore stack it was built with", "src/walk.rs"),
        ("skip", "skipping past the root yields nothing, by design", "src/walk.rs"),
    ):
        ids[name] = remember_gotcha(repo.root, text, "--file", rel, "--symbol", name)
    return repo.root, ids


def test_explain_names_each_tsc_error_at_its_own_place(workspace: tuple[Path, dict[str, str]]) -> None:
    root, ids = workspace
    said = forewarn_in(root, "explain", "--lexical", stdin=TSC).stdout.splitlines()
    assert said[:4] == [
        "error 1: TS2322: Type 'string' is not assignable to type 'number'.",
        "  through src/util.ts:2  merge",
        "error 2: TS2554: Expected <n> arguments, but got <n>.",
        "  through src/schemas.ts:4  extend",
    ]
    assert said[4].startswith(f"1. {ids['merge']} ") and said[4].endswith("(on code error 1 went through)")
    assert said[6].startswith(f"2. {ids['extend']} ") and said[6].endswith("(on code error 2 went through)")
    result = explained(root, TSC)
    assert result["error"]["kind"] == "TS2322"  # the first error, and only its place
    assert [(f["path"], f["line"]) for f in result["error"]["frames"]] == [("src/util.ts", 2)]
    assert [(e["kind"], [(p["file"], p["line"], p["symbol"]) for p in e["places"]]) for e in result["errors"]] == [
        ("TS2322", [("src/util.ts", 2, "merge")]),
        ("TS2554", [("src/schemas.ts", 4, "extend")]),
    ]
    assert [(m["id"], m["error_index"]) for m in result["memories"]] == [(ids["merge"], 0), (ids["extend"], 1)]


def test_explain_names_each_rustc_error_and_not_the_warning_between(workspace: tuple[Path, dict[str, str]]) -> None:
    root, ids = workspace
    said = forewarn_in(root, "explain", "--lexical", stdin=RUSTC).stdout.splitlines()
    assert said[:4] == [
        "error 1: E0308: mismatched types",
        "  through src/walk.rs:8  Walk::next",
        "error 2: E0599: no method named `with_start` found for type `usize` in the current scope",
        "  through src/walk.rs:12  Walk::skip",
    ]
    result = explained(root, RUSTC)
    assert [e["kind"] for e in result["errors"]] == ["E0308", "E0599"]  # not the warning, not cargo's closing line
    assert [m["id"] for m in result["memories"]] == [ids["next"], ids["skip"]]


def test_the_workspaces_explanation_keeps_one_error_as_it_was(workspace: tuple[Path, dict[str, str]]) -> None:
    root, ids = workspace
    with Workspace.open(root, embedder=None) as ws:
        several = ws.explain_error(TSC)
        one = ws.explain_error(TSC.splitlines(keepends=True)[1])
    assert several.error.kind == "TS2322" and [e.error.kind for e in several.errors] == ["TS2322", "TS2554"]
    assert [(p.file, p.line) for p in several.places] == [("src/util.ts", 2), ("src/schemas.ts", 4)]
    assert [h.error for h in several.hits] == [0, 1]
    assert one.error.kind == "TS2554" and [e.error for e in one.errors] == [one.error]
    assert [(p.file, p.symbol) for p in one.places] == [("src/schemas.ts", "extend")]
    assert [h.memory.id for h in one.hits] == [ids["extend"]]
    said = forewarn_in(root, "explain", "--lexical", stdin=TSC.splitlines(keepends=True)[1]).stdout
    assert said.startswith("error: TS2554: Expected <n> arguments, but got <n>.\n  through src/schemas.ts:4  extend\n")
    assert "(on code the error went through)" in said
