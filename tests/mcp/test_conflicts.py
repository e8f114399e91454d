"""``remember`` through the MCP SDK's client says what the new memory conflicts with and how to replace it."""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace.engine import Workspace
from tests.mcp.conftest import mcp_session, text_of


async def test_remember_names_the_memory_it_conflicts_with(shop: Path) -> None:
    async with mcp_session(shop, "--trust-agents") as s:
        answer = text_of(
            await s.call_tool(
                "remember",
                {"text": "charge_card no longer needs an idempotency key", "file": "pay.py", "symbol": "charge_card"},
            )
        )
        other = text_of(
            await s.call_tool(
                "remember", {"text": "charge_card logs the gateway's answer", "file": "pay.py", "symbol": "charge_card"}
            )
        )
    assert "It seems to contradict these notes" in answer, answer
    assert '"every charge carries an idempotency key"' in answer and "negation" in answer
    assert "call supersede with that id" in answer
    assert "conflicts" not in other  # another aspect of the same function: nothing to settle


async def test_contested_memories_say_so(shop: Path) -> None:
    with Workspace.open(shop, embedder=None) as ws:
        new = ws.remember("charge_card no longer needs an idempotency key", file="pay.py", symbol="charge_card")
        ws.resolve_conflict(new.memory.id, new.conflicts[0].memory.id, "contested")
    async with mcp_session(shop) as s:
        text = text_of(await s.call_tool("memories_for_files", {"paths": ["pay.py"]}))
    assert f'⚠ contested (contradicts "{new.conflicts[0].memory.id}"' in text, text
    assert "every charge carries an idempotency key" in text and "no longer needs" in text
