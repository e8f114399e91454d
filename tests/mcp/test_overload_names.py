"""Same-named definitions (Java overloads) are named as people call them, in every text a person or agent reads.

The index tells ``before(String)`` and ``before(Node)`` of one class apart as ``Node.before`` and ``Node.before#2``
(the second definition of that name in its file); the ``#2`` is identity, kept where a symbol path is data a client
sends back (a code action's argument), and never shown: a note, an explanation or an action title says
``Node.before`` and, where the file has more than one, which one by its lines, as ``forewarn memory list`` does.
Real repository, index, MCP server (the SDK's client), hook command, CLI and language server.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from forewarn.memory.vocabulary import MemoryType
from forewarn.workspace.engine import Workspace
from tests.lsp.conftest import SERVER_COMMAND, diagnostics_for, open_document, raw_request, start_editor
from tests.mcp import hook_replay as hr
from tests.mcp.conftest import FOREWARN, git, mcp_session, text_of

NODE = """\
package demo;

public class Node {
    public Node before(String html) {
        return this;
    }

    public Node before(Node node) {
        return node.parent();
    }

    public Node parent() {
        return this;
    }
}
"""
FILE = "src/demo/Node.java"
ON_NODE = "before(Node) must detach the incoming node from its old parent first"  # lines 8-10: Node.before#2
ON_STRING = "before(String) parses the html in this node's context"  # lines 4-6: Node.before
TRACE = (
    'Exception in thread "main" java.lang.IllegalStateException: node already has a parent\n'
    "\tat demo.Node.before(Node.java:9)\n"
    "\tat demo.Main.main(Main.java:3)\n"
)
SUFFIX = re.compile(r"#\d")  # the index's ordinal, wherever it would show


@pytest.fixture
def overloads(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A Java repository with two ``before`` overloads, indexed (lexical), a gotcha on each (by line)."""
    root = tmp_path / "dom"
    (root / "src" / "demo").mkdir(parents=True)
    (root / FILE).write_text(NODE)
    (root / ".forewarn").mkdir()
    (root / ".forewarn" / "config.toml").write_text("[embedder]\nenabled = false\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "-c", "user.name=T", "-c", "user.email=t@example.com", "add", ".")
    git(root, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "start")
    with Workspace.open(root, embedder=None) as ws:
        ws.reindex()
        on_node = ws.remember(ON_NODE, type=MemoryType.ERROR_PATTERN, file=FILE, line=9).memory
        on_string = ws.remember(ON_STRING, type=MemoryType.GOTCHA, file=FILE, line=5).memory
    assert on_node.anchor is not None and on_node.anchor.symbol == "Node.before#2"  # the fixture's premise
    assert on_string.anchor is not None and on_string.anchor.symbol == "Node.before"
    yield root, {"node": on_node.id, "string": on_string.id}
    hr.stop_server(root)


def _note_head(text: str, memory_id: str) -> str:
    return next(line for line in text.splitlines() if memory_id in line)


def _says_which(text: str, ids: dict[str, str]) -> None:
    assert _note_head(text, ids["node"]).endswith(f'symbol "Node.before" (lines 8-10) · id {ids["node"]}'), text
    assert _note_head(text, ids["string"]).endswith(f'symbol "Node.before" (lines 4-6) · id {ids["string"]}'), text
    assert not SUFFIX.search(text), text


async def test_mcp_notes_name_each_overload_by_its_lines(overloads: tuple[Path, dict[str, str]]) -> None:
    root, ids = overloads
    async with mcp_session(root) as s:
        listed = text_of(await s.call_tool("memories_for_files", {"paths": [FILE]}))
        explained = text_of(await s.call_tool("explain_error", {"output": TRACE}))
    _says_which(listed, ids)  # the first overload too: the file has two of that name
    assert _note_head(explained, ids["node"]).endswith(f'symbol "Node.before" (lines 8-10) · id {ids["node"]}')
    assert not SUFFIX.search(explained), explained


def test_hook_notes_name_each_overload_by_its_lines(overloads: tuple[Path, dict[str, str]]) -> None:
    root, ids = overloads
    read = {"session_id": "s", "cwd": str(root), "hook_event_name": "PreToolUse", "tool_name": "Read",
            "tool_input": {"file_path": FILE}}  # fmt: skip
    out, _, code, _ = hr.hook("claude", read, env={"FOREWARN_HOOK_SERVER": "0"})
    assert code == 0
    _says_which(hr.Call(hr.Step({}), out, "", 0, 0.0).context("claude"), ids)
    failed = {"session_id": "f", "cwd": str(root), "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
              "tool_input": {"command": "mvn test"}, "error": TRACE}  # fmt: skip
    out, _, code, _ = hr.hook("claude", failed, env={"FOREWARN_HOOK_SERVER": "0"}, cwd=root)
    told = hr.Call(hr.Step({}), out, "", 0, 0.0).context("claude")
    assert code == 0 and f'symbol "Node.before" (lines 8-10) · id {ids["node"]}' in told, told
    assert not SUFFIX.search(told), told


def test_explain_names_the_frame_and_the_memory_as_memory_list_does(overloads: tuple[Path, dict[str, str]]) -> None:
    root, ids = overloads
    done = subprocess.run([FOREWARN, "explain", "--lexical"], input=TRACE, capture_output=True, text=True, cwd=root,
                          env=os.environ, check=True, timeout=120)  # fmt: skip
    assert f"through {FILE}:9  Node.before (lines 8-10)" in done.stdout, done.stdout
    assert f"{ids['node']}  error_pattern  {FILE}::Node.before (lines 8-10)" in done.stdout, done.stdout
    assert not SUFFIX.search(done.stdout), done.stdout
    listed = subprocess.run([FOREWARN, "memory", "list"], capture_output=True, text=True, cwd=root, check=True)
    assert f"{FILE}::Node.before (lines 8-10)" in listed.stdout  # the same words
    data = json.loads(subprocess.run([FOREWARN, "explain", "--lexical", "--json"], input=TRACE, capture_output=True,
                                     text=True, cwd=root, env=os.environ, check=True, timeout=120).stdout)  # fmt: skip
    assert data["places"][0]["label"] == "Node.before (lines 8-10)", data["places"]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def editor(lsp_client: LanguageClient, overloads: tuple[Path, dict[str, str]]) -> AsyncIterator[None]:
    await start_editor(lsp_client, "visual-studio-code", overloads[0])
    yield
    await lsp_client.shutdown_session()


async def test_the_code_action_title_says_the_name_and_its_argument_keeps_the_path(
    editor: LanguageClient, overloads: tuple[Path, dict[str, str]]
) -> None:
    root, ids = overloads
    uri = open_document(editor, root / FILE, "java")
    diags = await diagnostics_for(editor, uri, lambda ds: any(d.code == ids["node"] for d in ds))
    params = types.CodeActionParams(  # inside before(Node), on its diagnostic
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(8, 8), end=types.Position(8, 12)),
        context=types.CodeActionContext(diagnostics=[d for d in diags if d.code == ids["node"]]),
    )
    request = {"jsonrpc": "2.0", "id": "actions", "method": "textDocument/codeAction"}
    actions = await raw_request(
        editor, {**request, "params": editor.protocol._converter.unstructure(params)}, "actions"
    )
    remember = next(a for a in actions if a["command"]["command"] == "forewarn.remember")
    assert remember["title"] == "Forewarn: remember a gotcha for Node.before"
    assert remember["command"]["arguments"][0]["symbol"] == "Node.before#2"  # data the command sends back
    assert not any(SUFFIX.search(a["title"]) for a in actions), [a["title"] for a in actions]


def test_an_agent_clients_diagnostic_names_the_overload_by_its_lines() -> None:
    """Recheck of QA pass 6, #9: a client that is no interactive editor still read ``Node.before#2``."""
    from forewarn.lsp.convert import DiagnosticHit, Span
    from forewarn.lsp.for_agents import agent_message
    from forewarn.memory.records import Anchor, Memory
    from forewarn.memory.text import new_id, to_iso

    at = to_iso(1_700_000_000)
    anchor = Anchor("src/demo/Node.java", "Node.before#2", 8, 10, "h")
    memory = Memory(new_id(), MemoryType.GOTCHA, "before(Node) must detach first", anchor, "user", 1.0, at, at)
    said = agent_message(DiagnosticHit(memory, Span("file:///x", "src/demo/Node.java", "Node.before#2", 8, 10)))
    assert 'gotcha on "src/demo/Node.java::Node.before (lines 8-10)"' in said and "#2" not in said


def test_the_health_report_names_each_overload_by_its_lines(overloads: tuple[Path, dict[str, str]]) -> None:
    """``forewarn stats`` lists (here: stale memories) label the first overload by its lines too, not only the
    ``#2`` one: the label asks the index whether the file has namesakes."""
    root, ids = overloads
    with Workspace.open(root, embedder=None) as ws:
        for memory_id in ids.values():
            ws.mark_stale(memory_id)
        labels = {m["id"]: m["label"] for m in ws.stats().to_dict()["stale_memories"]}
    assert labels == {ids["node"]: "Node.before (lines 8-10)", ids["string"]: "Node.before (lines 4-6)"}
