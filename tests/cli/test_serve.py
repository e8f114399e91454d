"""``forewarn serve -w DIR``: the folder served when the editor names none (single-file mode)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import indexing_done, initialize_params

SERVED_FOLDER = "served-folder"  # under FOREWARN_HOME, which the autouse fixture sets before the server starts
# the server starts before any fixture of the test could make the folder, so its command makes it
SERVE_WITH_W = [
    sys.executable,
    "-c",
    "import os, sys, pathlib; from forewarn.cli.main import main; "
    f"root = pathlib.Path(os.environ['FOREWARN_HOME']) / '{SERVED_FOLDER}'; root.mkdir(); "
    "(root / 'tax.py').write_text('def vat(amount):\\n    return amount * 0.2\\n'); "
    "sys.exit(main(['serve', '-w', str(root)]))",
]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVE_WITH_W))
async def client(lsp_client: LanguageClient) -> Any:
    await lsp_client.initialize_session(initialize_params("neovim", None))  # no rootUri, no folders
    await indexing_done(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_serve_opens_the_w_folder_when_the_editor_names_none(client: LanguageClient, forewarn_home: Path) -> None:
    made = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="forewarn.remember", arguments=[{"text": "VAT is 20% only in the UK"}])
    )
    found = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="forewarn.search", arguments=[{"query": "VAT rate"}])
    )
    assert [m["id"] for m in found["memories"]] == [made["id"]]
    assert [c["file"] for c in found["chunks"]] == ["tax.py"]  # the -w folder was indexed
    assert (forewarn_home / SERVED_FOLDER / "tax.py").is_file()
