"""Vectors for memories written without an embedder are filled in by the server's writer, then found by meaning."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from forewarn.config import Settings
from forewarn.workspace.engine import Workspace
from tests.lsp.conftest import SERVER_COMMAND, WAIT_S, accept_registrations, initialize_params, run
from tests.memory.test_embedder import require_model

LESSONS = [
    "Invoice totals are quantized once, at the end: rounding each line separately drops cents.",
    "The deploy script needs the staging credentials exported before it starts.",
    "Never resend a payment to the provider on timeout: a repeated attempt must reuse the idempotency key.",
]
PARAPHRASE = "charging customers twice when retrying"  # no word (or stem) in common with any lesson


@pytest.fixture
def seeded(workspace: Path) -> list[str]:
    """The lessons, remembered with no embedder (lexical mode): none has a vector yet."""
    require_model()
    with Workspace.open(workspace, Settings(), embedder=None) as engine:
        ids = [engine.remember(text, type="gotcha", file="billing/models.py").memory.id for text in LESSONS]
        assert engine.search(PARAPHRASE, chunks=0).memories == []  # words alone cannot find it
    return ids


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, workspace: Path, seeded: list[str]):
    lsp_client.set_configuration({}, section="forewarn")
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(initialize_params("visual-studio-code", workspace))
    yield
    await lsp_client.shutdown_session()


async def test_server_backfills_vectors_and_search_finds_a_paraphrase(
    client: LanguageClient, seeded: list[str]
) -> None:
    deadline = time.monotonic() + WAIT_S
    stats = await run(client, "forewarn.stats")
    while stats["vectors"] < len(LESSONS):  # each poll is a round trip to the server: no sleeping
        assert time.monotonic() < deadline, f"backfill did not finish: {stats}"
        stats = await run(client, "forewarn.stats")
    assert stats["mode"] == "hybrid" and stats["vectors"] == len(LESSONS)
    found = await run(client, "forewarn.search", query=PARAPHRASE, k=3)
    assert found["mode"] == "hybrid"
    assert found["memories"] and found["memories"][0]["id"] == seeded[2]


async def test_accept_reinforces_the_memory(client: LanguageClient, workspace: Path, seeded: list[str]) -> None:
    accepted = await run(client, "forewarn.accept", id=seeded[0])
    assert accepted == {"id": seeded[0]}
    with Workspace.open(workspace, Settings(), embedder=None) as engine:
        assert engine.get(seeded[0]).access_count == 1
        assert engine.get(seeded[1]).access_count == 0
