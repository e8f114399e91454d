"""search_memories over the real MCP SDK client: a question no memory matches says so and names the closest."""

from __future__ import annotations

from pathlib import Path

from tests.mcp.conftest import mcp_session, text_of


async def test_an_unrelated_question_answers_no_memory_and_the_closest(shop: Path) -> None:
    async with mcp_session(shop) as s:
        off = text_of(await s.call_tool("search_memories", {"query": "charge my phone battery overnight"}))
        none = text_of(await s.call_tool("search_memories", {"query": "banana smoothie recipe"}))
        hit = text_of(await s.call_tool("search_memories", {"query": "idempotency key of a charge"}))
    # one word shared, the rest unknown to every memory: held back by the floor, and named
    assert "No memory matches (closest: “every charge carries an idempotency key”" in off
    assert "words matched" in off and "every charge carries" not in off.split("closest", 1)[0]
    assert "No memory matches." in none  # no word of it in any memory: nothing came close
    assert "every charge carries an idempotency key" in hit and "No memory matches" not in hit
