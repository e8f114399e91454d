"""TypeScript's overload signatures are one function with their implementation (QA pass 8 #14: zod's
``string(): ZodString; string(params?): ZodString; string(params?) { … }`` were three "overloads", so
``remember --symbol string`` landed on a one-line signature and a hover on the implementation showed nothing). An
interface's members and a ``declare``d function, which have no implementation, stay definitions; an index built
before parses its TypeScript files again (m009)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from forewarn import paths
from forewarn.config import Settings
from forewarn.indexing.indexer import Indexer
from forewarn.indexing.languages import language_for_path
from forewarn.indexing.parse import parse_file
from forewarn.workspace.engine import Workspace
from forewarn.workspace.symbols import SymbolLookup

SCHEMAS_TS = """\
export function string(): ZodString;
export function string(params: string): ZodString;
export function string(params?: string): ZodString {
  return new ZodString(params);
}

export class Registry {
  get(id: string): Schema;
  get(id: number): Schema;
  get(id: string | number): Schema {
    return this.table[id];
  }
}

export interface Parser {
  parse(input: unknown): unknown;
}

declare function ambient(): void;

export const shorthand = string();
"""


def test_overload_signatures_are_no_definitions_of_their_own() -> None:
    parsed = parse_file(SCHEMAS_TS.encode(), language_for_path("schemas.ts"))  # type: ignore[arg-type]
    assert [(name, line, symbol) for name, _, line, symbol in parsed.defs] == [
        ("string", 3, "string"),
        ("Registry", 7, "Registry"),
        ("get", 10, "Registry.get"),
        ("Parser", 15, "Parser"),
        ("parse", 16, "Parser.parse"),  # an interface's member: nothing implements it here
        ("ambient", 19, "ambient"),  # declared, not implemented here
    ]


def test_a_memory_on_the_name_is_on_the_implementation_and_its_calls(tmp_path: Path) -> None:
    root = tmp_path / "zod"
    root.mkdir()
    (root / "schemas.ts").write_text(SCHEMAS_TS)
    settings = Settings()
    settings.embedder.enabled = False
    with Workspace.open(root, settings, embedder=None) as ws:
        ws.reindex()
        made = ws.remember("string() with a params object is not the shorthand message", type="gotcha",
                           file="schemas.ts", symbol="string").memory  # fmt: skip
        assert made.anchor is not None and (made.anchor.symbol, made.anchor.start_line) == ("string", 3)
        lines = SCHEMAS_TS.split("\n")
        lookup = SymbolLookup(ws.indexer, ws.graph)
        on_impl = lookup.resolve("schemas.ts", SCHEMAS_TS, 3, lines[2].index("string"))
        on_call = lookup.resolve("schemas.ts", SCHEMAS_TS, 21, lines[20].index("string"))
        assert on_impl is not None and on_impl.symbols == ("string",)
        assert on_call is not None and on_call.symbols == ("string",)


def test_an_older_index_parses_its_typescript_again(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "schemas.ts").write_text(SCHEMAS_TS)
    with Indexer(root, Settings()) as ix:
        ix.index()
    db = paths.workspace_dir(root) / "index.db"
    conn = sqlite3.connect(str(db))  # m009 not applied, the function's chunk gone
    with conn:
        conn.execute("DELETE FROM chunks WHERE symbol = 'string'")
        conn.execute("DELETE FROM _migrations WHERE name = 'm009_typescript_overload_signatures'")
    conn.close()
    with Indexer(root, Settings()) as ix:
        report = ix.index()
    conn = sqlite3.connect(str(db))
    try:
        symbols = {s for (s,) in conn.execute("SELECT symbol FROM chunks")}
    finally:
        conn.close()
    assert "string" in symbols
    assert report.reparsed == ["schemas.ts"]
