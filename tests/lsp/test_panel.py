"""End to end, as both editors: what the panels ask the real server for — a file's memories grouped by symbol,
the health report with its trajectory — and the notification that tells them to ask again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import ClientServerConfig, LanguageClient

from forewarn.lsp import convert
from tests import panel_workspace as pw
from tests.lsp.conftest import EDITORS, SERVER_COMMAND, run, start_editor, wait_until

OPTIONS = {"embedder": {"enabled": False}, "mining": {"enabled": False}}  # no model needed; nothing mined behind


@pytest.fixture
def built(tmp_path: Path) -> pw.PanelWorkspace:
    return pw.build(tmp_path / "shop")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, built: pw.PanelWorkspace):
    lsp_client.set_configuration(OPTIONS, section="forewarn")
    changed: list[Any] = []
    lsp_client.feature(convert.MEMORIES_CHANGED)(lambda params: changed.append(params))
    lsp_client.memories_changed = changed  # type: ignore[attr-defined]
    await start_editor(lsp_client, request.param, built.root, OPTIONS)
    yield
    await lsp_client.shutdown_session()


async def test_this_file_lists_every_memory_of_the_file_by_symbol(
    client: LanguageClient, built: pw.PanelWorkspace
) -> None:
    uri = (built.root / pw.FILE).as_uri()
    answer = await run(client, convert.CMD_FILE_MEMORIES, uri=uri)
    assert (answer["file"], answer["uri"], answer["total"], answer["more"]) == (pw.FILE, uri, 8, 0)
    assert answer["counts"] == {"contested": 2, "active": 2, "stale": 1, "orphaned": 1, "suggested": 2}
    groups = {g["symbol"]: g for g in answer["symbols"]}
    assert list(groups) == [None, "charge_card", "_gateway_charge", "legacy_refund"]
    charge = groups["charge_card"]
    assert charge["range"]["start"]["line"] == (built.root / pw.FILE).read_text().splitlines().index(
        "def charge_card(customer_id: str, amount: float, retries: int = 4) -> str:"
    )
    statuses = [(m["status"], m["source"], m["severity"]) for m in charge["memories"]]
    assert statuses == [("active", "user", 2), ("stale", "user", 4), ("suggested", "commit", 4)]  # warning, hint
    mined = charge["memories"][2]
    assert mined["origin"].startswith(f"suggested from commit {built.commit[:7]} by Ann"), mined["origin"]
    assert mined["anchor"]["uri"] == uri and mined["age"]
    comment = groups["_gateway_charge"]["memories"][-1]
    assert comment["status"] == "suggested" and "warning comment" in comment["origin"]
    assert groups[None]["range"] == {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}


async def test_stats_carry_the_trajectory_and_a_bad_since_is_named(
    client: LanguageClient, built: pw.PanelWorkspace
) -> None:
    stats = await run(client, convert.CMD_STATS, since="6w")
    t = stats["trajectory"]
    assert t["bucket"] == "day" and len(t["buckets"]) == 43
    assert t["by_source"]["typed"][-1] == 7 and t["by_status"]["contested"][-1] == 2
    assert stats["important_files"][0]["file"] == "money.py" and stats["important_files"][0]["memories"] == 0
    assert stats["important_files"][0]["uri"] == (built.root / "money.py").as_uri()
    assert all(m["uri"].endswith(m["file"]) for m in stats["stale_memories"] + stats["dismissed_most"] if m["file"])
    with pytest.raises(JsonRpcInvalidParams, match="since 'soon'"):
        await run(client, convert.CMD_STATS, since="soon")


async def test_a_change_is_announced_and_the_accepted_suggestion_is_current(
    client: LanguageClient, built: pw.PanelWorkspace
) -> None:
    changed: list[Any] = client.memories_changed  # type: ignore[attr-defined]
    seen = len(changed)
    await run(client, convert.CMD_ACCEPT_SUGGESTION, id=built.ids["MINED"])
    await wait_until(client, convert.MEMORIES_CHANGED, lambda: len(changed) > seen)
    answer = await run(client, convert.CMD_FILE_MEMORIES, uri=(built.root / pw.FILE).as_uri())
    charge = next(g for g in answer["symbols"] if g["symbol"] == "charge_card")
    assert charge["counts"]["suggested"] == 0 and charge["counts"]["active"] == 2
    [accepted] = [m for m in charge["memories"] if m["id"] == built.ids["MINED"]]
    assert (accepted["status"], accepted["severity"]) == ("active", 2)  # a gotcha now: a warning
    review = await run(client, convert.CMD_REVIEW)
    assert built.ids["MINED"] not in [m["id"] for m in review["suggestions"]] and review["total"] == 2
