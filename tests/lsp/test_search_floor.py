"""forewarn.search over the real server: a query no memory matches answers an empty list and a message naming
the closest memory (the relevance floor); a related query answers the memory and no message."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import EDITORS, SERVER_COMMAND, run, start_editor

GOTCHA = "Invoice.total must quantize after summing, never per line: rounding per line loses cents."


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS[:1])
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    await start_editor(lsp_client, request.param, workspace)
    yield
    await lsp_client.shutdown_session()


async def test_an_unrelated_search_answers_no_memory_and_says_which_came_closest(
    client: LanguageClient, workspace: Path
) -> None:
    models = workspace / "billing" / "models.py"
    await run(client, "forewarn.remember", text=GOTCHA, type="gotcha", uri=models.as_uri(), symbol="Invoice.total")
    off = await run(client, "forewarn.search", query="banana smoothie recipe with frozen berries")
    assert off["memories"] == []
    assert off["message"].startswith("No memory matches")
    if off["mode"] == "hybrid":  # by meaning every memory is some distance away: the nearest is named
        assert "closest: “Invoice.total must quantize" in off["message"] and "similarity" in off["message"]
    found = await run(client, "forewarn.search", query="rounding cents quantize")
    assert found["memories"][0]["text"] == GOTCHA and found["message"] is None
    code = await run(client, "forewarn.search", query="banana smoothie recipe", codeOnly=True)
    assert code["message"] is None  # code alone was asked for: no word about memories
