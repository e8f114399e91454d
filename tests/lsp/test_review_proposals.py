"""A proposal in the editors' review (a suggestion that changes another memory when a person accepts it): the
review and This file answers say what accepting it changes, as ``forewarn memory review`` does."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from forewarn.config import Settings
from forewarn.memory.origin import ProposalAction
from forewarn.memory.vocabulary import MemoryType
from forewarn.workspace.engine import Workspace
from tests.lsp.conftest import EDITORS, SERVER_COMMAND, run, start_editor

ROUNDING = "Invoice.total rounds once after summing, never per line, or cents go missing."
AGENT = {"name": "Review Bot", "version": "1.0"}


@pytest.fixture
def proposed(workspace: Path) -> tuple[Path, str, str]:
    """A person's memory on Invoice.total, and an agent's proposal to mark it outdated, waiting for review."""
    settings = Settings()
    settings.embedder.enabled = False
    settings.mining.enabled = False
    with Workspace.open(workspace, settings) as ws:
        ws.reindex()
        vetted = ws.remember(ROUNDING, type=MemoryType.GOTCHA, file="billing/models.py", symbol="Invoice.total")
        proposal, _ = ws.propose(ProposalAction.MARK_OUTDATED, vetted.memory.id, agent=AGENT, reason="rounding moved")
    return workspace, vetted.memory.id, proposal.id


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, proposed: tuple[Path, str, str]):
    lsp_client.set_configuration({"embedder": {"enabled": False}}, section="forewarn")
    await start_editor(lsp_client, request.param, proposed[0], {"embedder": {"enabled": False}})
    yield
    await lsp_client.shutdown_session()


async def test_review_and_file_memories_say_what_accepting_a_proposal_changes(
    client: LanguageClient, proposed: tuple[Path, str, str]
) -> None:
    _, vetted, proposal = proposed
    review = await run(client, "forewarn.review")
    (row,) = [s for s in review["suggestions"] if s["id"] == proposal]
    change = row["proposedChange"]
    assert change["action"] == "mark_outdated" and change["target"] == vetted
    assert change["changes"] == [{"field": "status", "from": "active", "to": "stale"}]
    assert change["summary"] == f"accepting it changes memory {vetted}: status active → stale"
    assert change["bookkeeping_only"] is False and change["blocked"] is None

    uri = (proposed[0] / "billing" / "models.py").as_uri()
    listed = await run(client, "forewarn.fileMemories", uri=uri)
    rows = {m["id"]: m for s in listed["symbols"] for m in s["memories"]}
    assert rows[proposal]["proposedChange"]["summary"] == change["summary"]
    assert "proposedChange" not in rows[vetted]  # a person's own memory proposes nothing
