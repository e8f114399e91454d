"""Calls through a namespace import reach their definitions (QA pass 8 #3: zod calls its helpers as ``util.merge(…)``
after ``import * as util from "../core/util.js"``, or after ``import { util } from "../core/index.js"`` where the
index says ``export * as util from "./util.js"``; hovers and neighbour diagnostics found nothing). TypeScript's ESM
``.js`` suffix names the ``.ts`` file. Real tree-sitter grammars, a real index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.config import Settings
from forewarn.workspace.engine import Workspace
from forewarn.workspace.import_paths import spec_path
from forewarn.workspace.symbols import SymbolLookup

FILES = {
    "core/util.ts": "export function merge(a: object, b: object): object {\n  return { ...a, ...b };\n}\n",
    "core/index.ts": 'export * as util from "./util.js";\nexport const version = "4";\n',
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
