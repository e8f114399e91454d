"""A few precise diagnostics per open, through a real LSP client (issue 22): after a repository's worth of
memories, duplicates included, an open shows at most five entries, three of them warnings, one per lesson, each
a short headline; the "more" entry counts exactly what ``forewarn memory list --file`` adds (D9); a hover on an
overloaded name shows no internal ``#3`` (D2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from forewarn.config import Settings
from forewarn.safe_text import HEADLINE_MAX_CHARS
from forewarn.workspace.engine import Workspace
from tests.lsp.conftest import (
    EDITORS,
    SERVER_COMMAND,
    diagnostics_for,
    open_document,
    raw_request,
    run,
    start_editor,
)

APP = """\
import typing as t


class App:
    def make_response(self, rv):
        return rv

    def run(self):
        return 1

    @t.overload
    def invoke(self, x: int) -> int: ...

    @t.overload
    def invoke(self, x: str) -> str: ...

    def invoke(self, x):
        return x
"""
USER = """\
from app import App


def main():
    app = App()
    app.invoke(1)
    return app.run()
"""
LONG = (
    "Fix the retry loop so it stops after three attempts; the gateway retries by itself and we double-charge "
    "customers when both retry, which is what the incident in March was about.\n\n- add a test\n- keep the name"
)


@pytest.fixture
def crowded(tmp_path: Path) -> Path:
    """app.py with the lessons a mined, accepted history leaves: one text on several symbols, many file-wide
    ones, long commit messages; user.py uses two of App's methods."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text(APP, encoding="utf-8")
    (root / "user.py").write_text(USER, encoding="utf-8")
    settings = Settings()
    settings.embedder.enabled = False
    with Workspace.open(root, settings, embedder=None) as ws:
        ws.reindex()
        for symbol in ("App.make_response", "App.run", "App.invoke"):
            ws.remember("Don't use threads in this code", type="gotcha", file="app.py", symbol=symbol)
            ws.remember(LONG + f" ({symbol})", type="error_pattern", file="app.py", symbol=symbol)
        for n in range(6):
            ws.remember(f"app.py fact {n}", type="gotcha" if n % 2 else "note", file="app.py")
        ws.remember("invoke calls back synchronously", type="decision", file="app.py", symbol="App.invoke")
        for n in range(4):
            ws.remember(f"run trap {n}", type="gotcha", file="app.py", symbol="App.run")
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, crowded: Path):
    options = {"embedder": {"enabled": False}, "mining": {"enabled": False}}
    lsp_client.set_configuration(options, section="forewarn")
    await start_editor(lsp_client, request.param, crowded, options)
    yield
    await lsp_client.shutdown_session()


def listed(root: Path, rel: str) -> list[dict[str, object]]:
    argv = ["memory", "list", "--file", rel, "--limit", "1000", "--json", "-w", str(root)]
    done = subprocess.run([sys.executable, "-m", "forewarn", *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    data: list[dict[str, object]] = json.loads(done.stdout)
    return data


async def test_an_open_shows_a_few_headlines_one_per_lesson(client: LanguageClient, crowded: Path) -> None:
    for rel in ("app.py", "user.py"):
        uri = open_document(client, crowded / rel)
        diags = await diagnostics_for(client, uri, lambda ds: len(ds) > 1)
        assert len(diags) <= Settings().diagnostics.max_diagnostics
        assert sum(d.severity == types.DiagnosticSeverity.Warning for d in diags) <= 3
        heads = [d.message.split("\n")[0] for d in diags]
        assert len(set(heads)) == len(heads)  # no lesson twice
        assert all(len(h) <= HEADLINE_MAX_CHARS for h in heads)
        more = diags[-1]
        assert isinstance(more.data, dict) and "more" in more.data
        shown = {i for d in diags[:-1] if isinstance(d.data, dict) for i in d.data.get("ids", [d.data["id"]])}
        everything = {str(m["id"]) for m in listed(crowded, rel)}  # D9: the listing reaches all it counts
        assert shown <= everything and len(everything - shown) == more.data["more"]
        assert f"forewarn memory list --file {rel}" in more.message
        params = types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=more.range,
            context=types.CodeActionContext(diagnostics=[more]),
        )
        request = {"jsonrpc": "2.0", "id": f"more-{rel}", "method": "textDocument/codeAction"}
        body = {**request, "params": client.protocol._converter.unstructure(params)}
        actions = await raw_request(client, body, f"more-{rel}")  # as sent: the typed client misreads literals
        listing = next(a["command"] for a in actions if a["command"]["command"] == "forewarn.openList")
        picked = await run(client, listing["command"], **listing["arguments"][0])
        assert {m["id"] for m in picked["memories"]} == everything  # the entry opens what it counts
    used = [m for m in listed(crowded, "user.py") if m.get("used_at")]
    assert {m["used_at"] for m in used} <= {5, 6, 7}  # placed where user.py uses App, invoke and run
    assert not any("make_response" in str(m["anchor"]) for m in used)  # never called from user.py


async def test_a_hover_on_an_overloaded_name_shows_no_internal_suffix(client: LanguageClient, crowded: Path) -> None:
    uri = open_document(client, crowded / "user.py")
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(5, 9))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    title = hover.contents.value.split("\n")[0]
    assert "`App.invoke`" in title and "#" not in title
    assert "invoke calls back synchronously" in hover.contents.value
