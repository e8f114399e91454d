"""Unknown keys in a command's argument object are refused, as MCP refuses unknown arguments; what the editors
send (their own arguments and the server's code actions) is still taken."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pytest_lsp import ClientServerConfig, LanguageClient

from forewarn.lsp import convert
from forewarn.lsp.commands import COMMANDS
from forewarn.memory.records import Anchor, Memory
from forewarn.memory.vocabulary import MemoryStatus, MemoryType
from tests.lsp.conftest import EDITORS, SERVER_COMMAND, run, start_editor

KEYS = {command.name: set(command.keys) for command in COMMANDS}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS[:1])
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    await start_editor(lsp_client, request.param, workspace)
    yield
    await lsp_client.shutdown_session()


async def test_a_misspelt_key_is_refused_and_nothing_is_stored(client: LanguageClient, workspace: Path) -> None:
    with pytest.raises(JsonRpcException, match="unknown argument 'fil'; unknown argument 'symbl'") as refused:
        await run(client, "forewarn.remember", text="qa typo key", fil="billing/models.py", symbl="Invoice.total")
    assert refused.value.code == JsonRpcInvalidParams.CODE
    assert "forewarn.remember takes: text, type, uri, range, symbol, tags, private" in str(refused.value)
    with pytest.raises(JsonRpcException, match="unknown argument 'file'"):  # `uri` names the file
        await run(client, "forewarn.remember", text="x", file="../../etc/passwd")
    assert (await run(client, "forewarn.stats"))["total"] == 0  # no workspace-wide gotcha by accident
    # what VS Code's and Neovim's "remember" send is taken as it is
    models = (workspace / "billing" / "models.py").as_uri()
    line = {"line": 8, "character": 0}
    made = await run(
        client, "forewarn.remember", text="totals quantize once", type="gotcha", private=False, uri=models,
        range={"start": line, "end": line}, symbol="Invoice.total",
    )  # fmt: skip
    assert made["memory"]["anchor"]["symbol"] == "Invoice.total"


async def test_every_command_refuses_a_key_it_does_not_take(client: LanguageClient) -> None:
    for command in sorted(KEYS):
        with pytest.raises(JsonRpcException, match=f"{command}: unknown argument 'zzz'") as refused:
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=command, arguments=[{"zzz": 1}])
            )
        assert refused.value.code == JsonRpcInvalidParams.CODE, command
    assert (await run(client, "forewarn.stats"))["total"] == 0


def test_the_servers_own_code_actions_send_only_keys_their_commands_take() -> None:
    """The editors run these arguments as they are (adding only the text, type and private they ask for)."""

    def diagnostic(data: dict[str, object]) -> types.Diagnostic:
        return types.Diagnostic(range=convert.FILE_RANGE, message="m", source="forewarn", data=data)

    at = "2024-01-01T00:00:00Z"
    orphan = Memory("O1", MemoryType.GOTCHA, "t", Anchor("a.py", "g", 3, 5), "user", 1.0, at, at, MemoryStatus.ORPHANED)
    diags = [
        diagnostic({"id": "M1"}),
        diagnostic({"id": "S1", "status": "suggested"}),
        diagnostic({"id": "C1", "status": "contested", "contested": ["C2"]}),
        diagnostic({"more": 3}),
    ]
    actions = convert.code_actions("file:///w/a.py", convert.FILE_RANGE, "f", diags, prompts=True, orphans=[orphan])
    sent = [(a.command.command, a.command.arguments[0]) for a in actions if a.command and a.command.arguments]
    hint = convert.restore_hint("M1")["command"]
    sent.append((hint["command"], hint["arguments"][0]))
    assert {command for command, _ in sent} >= {
        "forewarn.remember", "forewarn.reanchor", "forewarn.openList", "forewarn.confirm", "forewarn.markOutdated",
        "forewarn.supersede", "forewarn.forget", "forewarn.acceptSuggestion", "forewarn.dismissSuggestion",
        "forewarn.resolveConflict", "forewarn.restore",
    }  # fmt: skip
    for command, argument in sent:
        extra = {"type", "private"} if command == "forewarn.remember" else set()  # what the editor asks for
        assert set(argument) | extra <= KEYS[command], (command, argument)
