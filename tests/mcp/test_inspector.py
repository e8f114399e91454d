"""``forewarn mcp`` answered by a client no one here wrote: the MCP Inspector's CLI mode (npm).

``make test`` installs the Inspector (tests/mcp/inspector, pinned by its package-lock.json) and sets
``FOREWARN_REQUIRE_INSPECTOR=1``, so a missing Inspector fails there; a bare ``pytest`` run without it skips.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from forewarn import paths
from tests.mcp.conftest import FOREWARN

INSPECTOR = Path(__file__).parent / "inspector" / "node_modules" / ".bin" / "mcp-inspector"


def inspector(root: Path, home: Path, *args: str, tool_error: bool = False) -> Any:
    """The Inspector's JSON answer; with ``tool_error``, the error it reports (it exits non-zero for one)."""
    if not INSPECTOR.exists():
        if os.environ.get("FOREWARN_REQUIRE_INSPECTOR"):
            pytest.fail(f"the MCP Inspector is not installed at {INSPECTOR} (make test installs it)")
        pytest.skip("the MCP Inspector is not installed (make test installs it: cd tests/mcp/inspector && npm ci)")
    env = {**os.environ, "HOME": str(home)}  # its catalog (~/.mcp-inspector) stays in the test's home
    # the Inspector starts servers with a minimal environment: the test's data dir is passed as hosts pass it
    passed = [f"{name}={os.environ[name]}" for name in (paths.HOME_ENV, paths.MODELS_ENV) if name in os.environ]
    proc = subprocess.run(
        [str(INSPECTOR), "--cli", *(a for kv in passed for a in ("-e", kv)), FOREWARN, "mcp", "-w", str(root), *args],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    if tool_error:
        assert proc.returncode != 0
        return json.loads(proc.stderr.strip().splitlines()[-1])
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_the_inspector_lists_the_tools(shop: Path, tmp_path: Path) -> None:
    listed = inspector(shop, tmp_path, "--method", "tools/list")
    names = {t["name"] for t in listed["tools"]}
    assert {"memories_for_files", "search_memories", "remember", "repo_map"} <= names
    schema = next(t for t in listed["tools"] if t["name"] == "search_memories")["inputSchema"]
    assert schema["properties"]["k"]["maximum"] == 50


def test_the_inspector_calls_tools_and_reads_the_resource(shop: Path, tmp_path: Path) -> None:
    shown = inspector(
        shop, tmp_path, "--method", "tools/call", "--tool-name", "memories_for_files", "--tool-arg", 'paths=["pay.py"]'
    )
    assert shown["isError"] is False
    assert "every charge carries an idempotency key" in shown["content"][0]["text"]
    found = inspector(shop, tmp_path, "--method", "tools/call", "--tool-name", "search_memories",
                      "--tool-arg", "query=currency", "--tool-arg", "k=3")  # fmt: skip
    assert "Money.__add__ drops the currency" in found["content"][0]["text"]
    bad = inspector(shop, tmp_path, "--method", "tools/call", "--tool-name", "search_memories",
                    "--tool-arg", "query=x", "--tool-arg", "k=1000000000", tool_error=True)  # fmt: skip
    assert bad["error"]["code"] == "tool_is_error"
    read = inspector(shop, tmp_path, "--method", "resources/read", "--uri", "forewarn://memories/money.py")
    assert "Money.__add__" in read["contents"][0]["text"]
