"""A hover on an interface member's own name finds it (QA pass 8 #4: zod's ``export interface ZodObject`` declares
``partial(): ZodObject<…>;`` twice; a memory on the first shows as a warning on open, but the hover there answered
nothing: the lines between the members' boundaries, parsed without their interface, read as a call). Real
tree-sitter TypeScript grammar, a real index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.config import Settings
from forewarn.workspace.engine import Workspace
from forewarn.workspace.symbols import SymbolLookup, Target, memories_of
from tests.workspace.lookup_at import target_at

SCHEMAS_TS = """\
export interface ZodObject<Shape> {
  pick<M>(mask: M): ZodObject<Shape>;

  partial(): ZodObject<
    {
      -readonly [k in keyof Shape]: Shape[k];
    }
  >;
  partial<M>(
    mask: M
  ): ZodObject<
    {
      -readonly [k in keyof Shape]: k extends keyof M ? Shape[k] : never;
    }
  >;
}

export class Methods {
  partial(mask?: unknown) {
    return partial(mask);
  }
}

export function again(n: number): number { return n > 0 ? again(n - 1) : 0; }
"""


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "zod"
    (root / "src").mkdir(parents=True)
    (root / "src" / "schemas.ts").write_text(SCHEMAS_TS)
    settings = Settings()
    settings.embedder.enabled = False
    with Workspace.open(root, settings, embedder=None) as engine:
        engine.reindex()
        yield engine


def _at(ws: Workspace, line_text: str, word: str) -> Target | None:
    return target_at(ws, "src/schemas.ts", SCHEMAS_TS, line_text, word)


def test_a_hover_on_an_interface_members_name_is_that_member(ws: Workspace) -> None:
    first = _at(ws, "partial(): ZodObject<", "partial")
    assert first is not None and (first.symbols, first.definition) == (("ZodObject.partial",), True)
    second = _at(ws, "partial<M>(", "partial")
    assert second is not None and second.symbols == ("ZodObject.partial#2",)
    remembered = ws.remember(
        "partial keeps readonly keys", type="gotcha", file="src/schemas.ts", symbol="ZodObject.partial#1"
    )
    assert [m.id for m in memories_of(ws.store, first, ws.clock())] == [remembered.memory.id]


def test_a_method_and_a_call_on_a_definitions_line(ws: Workspace) -> None:
    method = _at(ws, "  partial(mask?: unknown) {", "partial")
    assert method is not None and method.symbols == ("Methods.partial",)
    line = next(x for x in SCHEMAS_TS.split("\n") if "again(n - 1)" in x)
    found = SymbolLookup(ws.indexer, ws.graph).resolve(
        "src/schemas.ts", SCHEMAS_TS, SCHEMAS_TS.split("\n").index(line) + 1, line.index("again(n - 1)")
    )
    assert found is not None and (found.symbols, found.definition) == (("again",), False)  # its call, on its line
