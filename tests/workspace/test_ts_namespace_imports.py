"""Calls through a namespace import reach their definitions (QA pass 8 #3: zod calls its helpers as ``util.merge(…)``
after ``import * as util from "../core/util.js"``, or after ``import { util } from "../core/index.js"`` where the
index says ``export * as util from "./util.js"``; hovers and neighbour diagnostics found nothing). TypeScript's ESM
``.js`` suffix names the ``.ts`` file. Real tree-sitter grammars, a real index."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from forewarn.config import Settings
from forewarn.workspace.engine import Workspace
from forewarn.workspace.import_paths import spec_path
from forewarn.workspace.symbols import SymbolLookup
from tests.lsp.conftest import EDITORS, SERVER_COMMAND, diagnostics_for, open_document, run, start_editor

FILES = {
    "core/util.ts": "export function merge(a: object, b: object): object {\n  return { ...a, ...b };\n}\n",
    "core/index.ts": (
        'export * from "./core.js";\nexport * from "./api.js";\nexport * from "./checks.js";\n'
        'export * as util from "./util.js";\nexport const version = "4";\n'
    ),
    "core/core.ts": "export function $constructor(name: string) {\n  return { name };\n}\n",
    "core/api.ts": "export function _gte(n: number) {\n  return n;\n}\nexport function shared() {}\n",
    "core/checks.ts": "export function $ZodCheck() {}\nexport function shared() {}\n",
    "classic/checks.ts": 'export { _gte as gte, type Kind } from "../core/index.js";\n',
    "classic/types.ts": (
        'import * as core from "../core/index.js";\nimport * as checks from "./checks.js";\n'
        'import { $ZodCheck } from "../core/checks.js";\n\n'
        'export const ZodString = core.$constructor("ZodString");\n'
        "export function min(n: number) {\n  $ZodCheck();\n  return checks.gte(n);\n}\n"
        "export function both() {\n  return core.shared();\n}\n"
    ),
    "mini/schemas.ts": (
        'import * as util from "../core/util.js";\n\nexport function extend(a: object, b: object) {\n'
        "  return util.merge(a, b);\n}\n"
    ),
    "classic/schemas.ts": (
        'import { util } from "../core/index.js";\n\nexport function safeExtend(a: object, b: object) {\n'
        "  return util.merge(a, b);\n}\n"
    ),
}


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "zod"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    settings = Settings()
    settings.embedder.enabled = False
    with Workspace.open(root, settings, embedder=None) as engine:
        engine.reindex()
        yield engine


def test_typescripts_esm_suffix_names_the_ts_file() -> None:
    assert spec_path("../core/util.js") == "core/util" and spec_path("./util.js") == "util"
    assert spec_path("billing.models") == "billing/models" and spec_path("./lib/pay") == "lib/pay"


@pytest.mark.parametrize("rel", ["mini/schemas.ts", "classic/schemas.ts"])
def test_a_call_through_a_namespace_reaches_its_definition(ws: Workspace, rel: str) -> None:
    text = FILES[rel]
    lines = text.split("\n")
    row = next(i for i, line in enumerate(lines) if "util.merge" in line)
    lookup = SymbolLookup(ws.indexer, ws.graph)
    found = lookup.resolve(rel, text, row + 1, lines[row].index("merge"))
    assert found is not None and (found.file, found.symbols) == ("core/util.ts", ("merge",))
    assert lookup.uses(rel, text, {"merge": [("core/util.ts", "merge")]}) == {("core/util.ts", "merge"): row + 1}


def _hover(ws: Workspace, rel: str, needle: str) -> tuple[str, tuple[str, ...]] | None:
    text = FILES[rel]
    lines = text.split("\n")
    row = next(i for i, line in enumerate(lines) if needle in line)
    found = SymbolLookup(ws.indexer, ws.graph).resolve(rel, text, row + 1, lines[row].index(needle.split(".")[1]))
    return None if found is None else (found.file, found.symbols)


def test_a_namespace_reaches_what_its_index_reexports(ws: Workspace) -> None:
    """``core.$constructor`` where core/index.ts says ``export * from "./core.js"`` (and other files of core/ are
    imported too: ``./core.js`` is core/core.ts, not the strongest file of the folder core/)."""
    assert _hover(ws, "classic/types.ts", "core.$constructor") == ("core/core.ts", ("$constructor",))
    uses = SymbolLookup(ws.indexer, ws.graph).uses(
        "classic/types.ts", FILES["classic/types.ts"], {"$constructor": [("core/core.ts", "$constructor")]}
    )
    assert uses == {("core/core.ts", "$constructor"): 5}


def test_a_renamed_reexport_is_followed_from_the_importers_own_folder(ws: Workspace) -> None:
    """``checks.gte`` after ``import * as checks from "./checks.js"`` is classic/checks.ts's (not core/checks.ts,
    which the file imports as well), which says ``export { _gte as gte } from "../core/index.js"``."""
    assert _hover(ws, "classic/types.ts", "checks.gte") == ("core/api.ts", ("_gte",))


def test_a_name_two_star_reexports_define_is_no_ones(ws: Workspace) -> None:
    assert _hover(ws, "classic/types.ts", "core.shared") is None


GOTCHA = "$constructor must run the traits' initialisers in order"


@pytest.fixture
def zod(tmp_path: Path) -> Path:
    root = tmp_path / "zod"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS[:1])
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, zod: Path) -> AsyncIterator[None]:
    await start_editor(lsp_client, request.param, zod, {"mining": {"enabled": False}})
    yield
    await lsp_client.shutdown_session()


async def test_the_server_shows_a_memory_on_a_call_through_a_namespace(client: LanguageClient, zod: Path) -> None:
    """Through the real server: opening classic/types.ts shows core/core.ts's ``$constructor`` memory on the line of
    ``core.$constructor(…)``, and a hover there shows it."""
    made = await run(
        client,
        "forewarn.remember",
        text=GOTCHA,
        type="gotcha",
        uri=(zod / "core/core.ts").as_uri(),
        symbol="$constructor",
    )
    uri = open_document(client, zod / "classic/types.ts", "typescript")
    lines = FILES["classic/types.ts"].split("\n")
    row = next(i for i, line in enumerate(lines) if "core.$constructor" in line)
    diags = await diagnostics_for(client, uri, lambda ds: any(d.code == made["id"] for d in ds))
    assert [d.range.start.line for d in diags if d.code == made["id"]] == [row]
    at = types.Position(row, lines[row].index("$constructor"))
    found = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)
    )
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    assert GOTCHA in found.contents.value and "core/core.ts" in found.contents.value
