"""QA pass 9b, findings 9 and 10, through the MCP SDK's own client: the smallest budget an agent may ask for lists
at least the best note (clipped when it must be), and an empty search query is an error result after which the
server keeps answering."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from forewarn.mcp.render import MIN_BUDGET, tokens
from forewarn.memory.vocabulary import MemoryType
from forewarn.workspace.engine import Workspace
from tests.mcp.conftest import mcp_session, text_of

DEEP = "gson/src/main/java/com/google/gson/stream/json_writer.py"  # a real project's path length
WRITER = """\
class JsonWriter:
    def value(self, number: float) -> "JsonWriter":
        return self
"""
QA_NOTE = (  # QA's note on gson's JsonWriter.value, which a 200-token answer listed as "0 listed below"
    "JsonWriter.value(double) throws IllegalArgumentException for NaN and Infinity unless the writer is lenient; "
    "check Strictness before writing computed doubles"
)
LONG = " ".join(["a long note that keeps going to say the same thing about values and writers"] * 12)


def git(root: Path, *args: str) -> None:
    identity = ("-c", "user.name=T", "-c", "user.email=t@example.com")
    subprocess.run(["git", *identity, *args], cwd=root, check=True, capture_output=True)


@pytest.fixture
def writer(tmp_path: Path) -> Path:
    root = tmp_path / "gson"
    (root / DEEP).parent.mkdir(parents=True)
    (root / DEEP).write_text(WRITER)
    (root / "other.py").write_text("def other() -> None:\n    pass\n")
    (root / ".forewarn").mkdir()
    (root / ".forewarn" / "config.toml").write_text("[embedder]\nenabled = false\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    with Workspace.open(root, embedder=None) as ws:
        ws.reindex()
        ws.remember(QA_NOTE, type=MemoryType.GOTCHA, file=DEEP, symbol="JsonWriter.value")
        ws.remember(LONG, type=MemoryType.GOTCHA, file="other.py", symbol="other")
    return root


async def test_the_smallest_budget_lists_the_best_note(writer: Path) -> None:
    async with mcp_session(writer) as s:
        one = text_of(await s.call_tool("memories_for_files", {"paths": [DEEP], "budget": MIN_BUDGET}))
        clipped = text_of(await s.call_tool("memories_for_files", {"paths": ["other.py"], "budget": MIN_BUDGET}))
        both = text_of(await s.call_tool("memories_for_files", {"paths": [DEEP, "other.py"], "budget": MIN_BUDGET}))
    # it fits whole: nothing is charged for a "left out" line that is not written
    assert f'file "{DEEP}": 1 note, 1 listed below' in one and QA_NOTE in one, one
    assert "left out" not in one and tokens(one) <= MIN_BUDGET
    # a note too long for the budget is listed anyway, its text cut to what the budget leaves
    assert 'file "other.py": 1 note, 1 listed below' in clipped and "…" in clipped, clipped
    assert LONG[:100] in clipped and LONG not in clipped and tokens(clipped) <= MIN_BUDGET
    # two files: both keep their count line, and the best note of the two is listed, the other counted
    assert "1 more left out by the 200-token budget" in both, both
    assert both.count("listed below") == 2 and "1 listed below" in both


async def test_an_empty_search_query_is_an_error_and_the_server_keeps_serving(writer: Path) -> None:
    async with mcp_session(writer) as s:
        for query in ("", "   "):
            result = await s.call_tool("search_memories", {"query": query})
            assert result.is_error and "empty" in text_of(result), text_of(result)
        after = await s.call_tool("search_memories", {"query": "NaN Infinity lenient"})
    assert not after.is_error and "IllegalArgumentException" in text_of(after)
