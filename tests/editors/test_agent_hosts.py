"""The files that declare Forewarn to agent hosts start what they say, and it answers.

Every command line is read from the files users copy (Claude Code's plugin ``.lsp.json`` / ``.mcp.json``,
Copilot CLI's ``lsp.json`` / ``mcp-config.json``, the generic ``mcp.json``, Codex's TOML), never written
here, and started as the host would: ``forewarn`` found on ``PATH`` (this checkout's virtualenv first), in
the project directory. A language server must answer a real LSP client that declares nothing of ours (as
an agent host does) with the file's memory as a diagnostic; an MCP server must answer the MCP SDK's own
client and list ``memories_for_files``. No editor is needed, so this is not marked ``editor``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from pytest_lsp import ClientServerConfig, LanguageClient

from forewarn.config import Settings
from forewarn.indexing.languages import all_languages
from forewarn.memory.vocabulary import MemoryType
from forewarn.workspace.engine import Workspace
from tests.editors.conftest import REPO
from tests.lsp.conftest import PY_MODELS, WAIT_S, diagnostics_for, open_document

CLIENTS = REPO / "editor-clients"
VENV_BIN = Path(sys.executable).parent  # this checkout's forewarn, not whatever else is installed
GOTCHA = "Invoice.total must quantize after summing, never per line: rounding per line loses cents."


@dataclass(frozen=True)
class Declared:
    where: str  # the file and the server's name in it, for messages and test ids
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    extensions: dict[str, str] = field(default_factory=dict)  # language servers: file extension -> language id


def _json(path: str) -> Any:
    return json.loads((CLIENTS / path).read_text(encoding="utf-8"))


def _servers(where: str, servers: dict[str, Any], extensions_key: str | None = None) -> list[Declared]:
    return [
        Declared(
            f"{where}:{name}",
            [spec["command"], *spec.get("args", [])],
            dict(spec.get("env") or {}),
            dict(spec[extensions_key]) if extensions_key else {},
        )
        for name, spec in servers.items()
    ]


def language_servers() -> list[Declared]:
    return [
        *_servers("claude-code/.lsp.json", _json("claude-code/.lsp.json"), "extensionToLanguage"),
        *_servers("copilot-cli/lsp.json", _json("copilot-cli/lsp.json")["lspServers"], "fileExtensions"),
    ]


def mcp_servers() -> list[Declared]:
    plugin = _json("claude-code/.mcp.json")  # a plugin's file is the bare map; a project's wraps it in mcpServers
    codex = tomllib.loads((CLIENTS / "codex-config.toml").read_text(encoding="utf-8"))
    return [
        *_servers("claude-code/.mcp.json", plugin.get("mcpServers", plugin)),
        *_servers("copilot-cli/mcp-config.json", _json("copilot-cli/mcp-config.json")["mcpServers"]),
        *_servers("mcp.json", _json("mcp.json")["mcpServers"]),
        *_servers("codex-config.toml", codex["mcp_servers"]),
    ]


def host_env(declared: Declared) -> dict[str, str]:
    """The host's environment: ours, this checkout's virtualenv first on PATH, plus what the file declares."""
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}", **declared.env}
    found = shutil.which(declared.command[0], path=env["PATH"])
    assert found is not None, f"{declared.where}: {declared.command[0]!r} is not on PATH"
    return env


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small project with one gotcha on Invoice.total, written before any server starts."""
    root = tmp_path / "shop"
    (root / "billing").mkdir(parents=True)
    (root / "billing" / "__init__.py").write_text("")
    (root / "billing" / "models.py").write_text(PY_MODELS)
    settings = Settings()
    settings.embedder.enabled = False
    with Workspace.open(root, settings) as ws:
        ws.reindex()
        ws.remember(GOTCHA, type=MemoryType.GOTCHA, file="billing/models.py", symbol="Invoice.total")
    return root


def test_the_declarations_cover_what_forewarn_indexes_and_the_hosts_need() -> None:
    indexed = {ext for spec in all_languages() for ext in spec.extensions}
    for server in language_servers():
        assert set(server.extensions) == indexed, f"{server.where}: the extensions Forewarn indexes"
        assert all(re.fullmatch(r"[a-z]+", lang) for lang in server.extensions.values()), server.where
    assert len(mcp_servers()) == 4 and len(language_servers()) == 2
    plugin = _json("claude-code/.claude-plugin/plugin.json")
    assert re.fullmatch(r"[a-z][a-z0-9-]*", plugin["name"]) and plugin["version"] and plugin["description"]
    marketplace = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text(encoding="utf-8"))
    entry = next(p for p in marketplace["plugins"] if p["name"] == plugin["name"])
    assert (REPO / entry["source"] / ".claude-plugin" / "plugin.json").is_file(), "the marketplace entry's source"
    # VS Code: the provider the manifest contributes is the one the extension registers
    manifest = json.loads((CLIENTS / "vscode" / "package.json").read_text(encoding="utf-8"))
    registered = re.search(r'MCP_PROVIDER_ID = "([^"]+)"', (CLIENTS / "vscode" / "src" / "mcp.ts").read_text())
    assert registered is not None
    assert [p["id"] for p in manifest["contributes"]["mcpServerDefinitionProviders"]] == [registered.group(1)]


def generic_client_capabilities() -> types.ClientCapabilities:
    """What an agent host can be counted on to declare: it takes diagnostics; nothing of Forewarn's."""
    return types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities()
        )
    )


@pytest.mark.parametrize("server", language_servers(), ids=lambda s: s.where)
async def test_each_declared_language_server_shows_the_memory_of_an_opened_file(
    server: Declared, project: Path
) -> None:
    config = ClientServerConfig(server_command=server.command, server_env=host_env(server))
    client = await config.start()
    assert isinstance(client, LanguageClient)
    try:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=generic_client_capabilities(),
                root_uri=project.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name=project.name)],
                client_info=types.ClientInfo(name="agent-host-test"),
            )
        )
        uri = open_document(client, project / "billing" / "models.py", server.extensions[".py"])
        diags = await diagnostics_for(client, uri, lambda ds: any(GOTCHA[:40] in d.message for d in ds), WAIT_S)
        ours = next(d for d in diags if GOTCHA[:40] in d.message)
        assert ours.source == "forewarn" and ours.severity == types.DiagnosticSeverity.Warning
        assert ours.range.start.line == PY_MODELS.splitlines().index("    def total(self, lines):")
        await client.shutdown_session()
    finally:
        await client.stop()


@pytest.mark.parametrize("server", mcp_servers(), ids=lambda s: s.where)
async def test_each_declared_mcp_server_answers_the_sdk_client(server: Declared, project: Path) -> None:
    params = StdioServerParameters(
        command=server.command[0], args=server.command[1:], env=host_env(server), cwd=project
    )  # the hosts start it in the project: it finds the workspace as git finds its root
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, read_timeout_seconds=WAIT_S) as session,
    ):
        await session.initialize()
        tools = {tool.name for tool in (await session.list_tools()).tools}
        assert "memories_for_files" in tools, f"{server.where}: {sorted(tools)}"
        result = await session.call_tool("memories_for_files", {"paths": ["billing/models.py"]})
        text = "\n".join(getattr(block, "text", "") for block in result.content)
        assert not result.is_error and GOTCHA[:40] in text, text
