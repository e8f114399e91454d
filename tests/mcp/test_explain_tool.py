"""``explain_error`` through the MCP SDK's client, and ``forewarn explain`` on the command line."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from forewarn.mcp.hooks.handler import failure
from forewarn.mcp.hooks.session import SessionState
from forewarn.memory.vocabulary import MemoryType
from forewarn.workspace.engine import Workspace
from tests.mcp.conftest import FOREWARN, mcp_session, text_of


def _traceback(root: Path) -> str:
    return (
        "Traceback (most recent call last):\n"
        f'  File "{root}/pay.py", line 8, in charge_card\n    return amount.cents > 0 and bool(key)\n'
        "AttributeError: 'NoneType' object has no attribute 'cents'\n"
    )


def _seed(shop: Path) -> str:
    with Workspace.open(shop, embedder=None) as ws:
        return ws.remember(
            "charge_card gets None when the cart is empty: AttributeError on cents, check the cart first",
            type=MemoryType.ERROR_PATTERN, file="pay.py", symbol="charge_card",
        ).memory.id  # fmt: skip


async def test_explain_error_names_the_pattern_on_the_code_the_error_went_through(shop: Path) -> None:
    mid = _seed(shop)
    async with mcp_session(shop) as s:
        text = text_of(await s.call_tool("explain_error", {"output": _traceback(shop)}))
        unrelated = text_of(
            await s.call_tool("explain_error", {"output": "OSError: [Errno 28] No space left on device"})
        )
        nothing = text_of(await s.call_tool("explain_error", {"output": "3 passed in 0.2s"}))
    assert mid in text and "AttributeError" in text
    assert "idempotency" not in text  # a decision on the same code does not explain an error
    assert mid not in unrelated and "No error pattern, gotcha or dead end explains it." in unrelated
    assert "no error found" in nothing


def test_forewarn_explain_reads_stdin(shop: Path) -> None:
    mid = _seed(shop)
    done = subprocess.run([FOREWARN, "explain", "--json", "--lexical", "-w", str(shop)], input=_traceback(shop),
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["error"]["kind"] == "AttributeError"
    assert data["places"][0] == {"file": "pay.py", "symbol": "charge_card", "label": "charge_card", "line": 8}
    assert data["memories"][0]["id"] == mid and data["memories"][0]["on_trace"]
    human = subprocess.run([FOREWARN, "explain", "--lexical", "-w", str(shop)], input=_traceback(shop),
                           capture_output=True, text=True, timeout=120)  # fmt: skip
    assert "through pay.py:8  charge_card" in human.stdout and mid in human.stdout


def test_a_compilers_own_error_label_is_not_said_twice(shop: Path) -> None:
    """QA pass 6, #23: a javac line printed "error: error: cannot find symbol"."""
    compiler = "pay.py:8: error: cannot find symbol\n"
    human = subprocess.run([FOREWARN, "explain", "--lexical", "-w", str(shop)], input=compiler,
                           capture_output=True, text=True, timeout=120)  # fmt: skip
    assert human.stdout.startswith("error: cannot find symbol\n"), human.stdout
    assert "error: error:" not in human.stdout


async def test_a_builds_later_errors_are_counted_in_the_heading(shop: Path) -> None:
    """QA pass 8 #9: a build's several errors are each looked up; the tool's heading names the first and says how
    many more there were, as the agent hook's does."""
    mid = _seed(shop)
    build = (
        "pay.py:8: error: cannot find symbol\npay.py:3: error: incompatible types\npay.py:5: error: missing return\n"
    )
    async with mcp_session(shop) as s:
        text = text_of(await s.call_tool("explain_error", {"output": build}))
    assert "cannot find symbol" in text.splitlines()[0] and "and 2 more errors" in text.splitlines()[0]
    assert mid in text
    with Workspace.open(shop, embedder=None) as ws:
        said = failure(ws.explain_error(build), SessionState(), ws)
    assert "and 2 more errors" in said.splitlines()[0] and mid in said
