"""A search made while the folder is first indexed (the VS Code palette test's failure on a clean machine).

The extension shows the server as ready once the client runs, which is before the server's first index; the
search typed then was answered with the memory and no code (code search is skipped while a full index holds the
indexer, and the picker never asked again), so the "Code" group the test waited 90 s for never came. Now the
server waits for the pending index (bounded) and says whether its code part is complete (``indexing``).
"""

from __future__ import annotations

from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER_COMMAND, accept_registrations, indexing_done, initialize_params, run

FILES = 400  # enough that the first index takes a while on any machine


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def lsp(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_a_search_during_the_first_index_waits_for_it_and_has_the_code(
    lsp: LanguageClient, tmp_path: Path
) -> None:
    root = tmp_path / "shop"
    for i in range(FILES):
        package = root / f"pkg{i % 20}"
        package.mkdir(parents=True, exist_ok=True)
        (package / f"mod{i}.py").write_text(f"def handler_{i}(request):\n    return request.total + {i}\n")
    (root / "payments.py").write_text("def charge_card(customer, cents):\n    '''Idempotency key for the gateway.'''\n")
    accept_registrations(lsp)
    options = {"embedder": {"enabled": False}, "mining": {"enabled": False}}
    await lsp.initialize_session(initialize_params("visual-studio-code", root, options))
    found = await run(lsp, "forewarn.search", query="charge card idempotency gateway")  # at once, as a user types
    assert found["indexing"] is False, found
    assert [f["file"] for f in found["files"]][:1] == ["payments.py"], found["files"]
    runs = await indexing_done(lsp)
    assert runs and isinstance(runs[0][-1], types.WorkDoneProgressEnd)
