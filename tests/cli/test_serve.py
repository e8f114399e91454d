"""``forewarn serve -w DIR``: the folder served when the editor names none (single-file mode)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from forewarn.cli.serve import check_host
from forewarn.cli.util import CliError
from tests.cli.conftest import Forewarn
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


@pytest.mark.parametrize("host", ["", " ", "0.0.0.0", "::", "192.168.1.10", "10.0.0.2"])
def test_tcp_refuses_hosts_other_machines_can_reach(forewarn: Forewarn, host: str) -> None:
    done = forewarn("serve", "--tcp", "--port", "0", "--host", host)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr  # a usage error (D18)
    assert ("every interface" if not host.strip() else "--allow-remote") in done.stderr


def test_allow_remote_warns_loudly(capsys: pytest.CaptureFixture[str]) -> None:
    check_host("0.0.0.0", allow_remote=True, token=False)  # checked without binding anything
    warning = capsys.readouterr().err
    assert warning.startswith("forewarn: WARNING: serving on 0.0.0.0, which other machines can reach")
    assert "no token is required" in warning
    check_host("::", allow_remote=True, token=True)
    assert "no token" not in capsys.readouterr().err
    check_host("localhost", allow_remote=False, token=False)  # loopback names and addresses need no flag
    check_host("::1", allow_remote=False, token=False)
    with pytest.raises(CliError, match="every interface"):
        check_host("", allow_remote=True, token=True)


def test_token_file_must_be_private_and_not_empty(forewarn: Forewarn, tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("s3cret\n")
    token.chmod(0o644)
    done = forewarn("serve", "--tcp", "--port", "0", "--token-file", str(token))
    assert done.returncode == 1 and f"fix it with: chmod 600 {token}" in done.stderr
    token.write_text("\n")
    token.chmod(0o600)
    assert "is empty" in forewarn("serve", "--tcp", "--port", "0", "--token-file", str(token)).stderr
    stdio = forewarn("serve", "--token-file", str(token))
    assert stdio.returncode == 2 and "apply to --tcp only" in stdio.stderr
