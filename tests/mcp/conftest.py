"""Shared pieces of the MCP tests: a small real workspace with memories, and the SDK's own stdio client.

Every end-to-end test starts the real ``forewarn mcp`` as a subprocess and talks to it with the official MCP
SDK client (``mcp.client``), as an agent host does. The server inherits this test's private ``FOREWARN_HOME``
(tests/conftest.py).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from forewarn.memory.vocabulary import MemoryType
from forewarn.workspace.engine import Workspace

FOREWARN = str(Path(sys.executable).with_name("forewarn"))
AGENT = mcp_types.Implementation(name="pytest-agent", title="Pytest Agent", version="9.1.0")
READ_TIMEOUT_S = 60.0  # a loaded 2-core machine; a hang still fails

PAY = '''\
"""Payments."""

from money import Money


def charge_card(amount: Money, key: str) -> bool:
    """Charge the card once per idempotency key."""
    return amount.cents > 0 and bool(key)


def finalize(total: Money) -> bool:
    return charge_card(total, "k")


def subtotal(lines: list[Money]) -> Money:
    return lines[0].__add__(lines[1])
'''

MONEY = '''\
"""Money."""


class Money:
    def __init__(self, cents: int) -> None:
        self.cents = cents

    def __add__(self, other: "Money") -> "Money":
        return Money(self.cents + other.cents)
'''

REPORT = """\
def monthly_report() -> str:
    return "ok"
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A git repository with three files, indexed, and memories: a gotcha on ``Money.__add__``, a decision on
    ``charge_card``, a stale note and a convention on ``report.py``. Lexical (``.forewarn/config.toml``)."""
    root = tmp_path / "shop"
    root.mkdir()
    (root / "pay.py").write_text(PAY)
    (root / "money.py").write_text(MONEY)
    (root / "report.py").write_text(REPORT)
    (root / ".forewarn").mkdir()
    (root / ".forewarn" / "config.toml").write_text("[embedder]\nenabled = false\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "-c", "user.name=T", "-c", "user.email=t@example.com", "add", ".")
    git(root, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "start")
    with Workspace.open(root, embedder=None) as ws:
        ws.reindex()
        ws.remember("Money.__add__ drops the currency: convert first", type=MemoryType.GOTCHA, file="money.py",
                    symbol="Money.__add__")  # fmt: skip
        ws.remember("every charge carries an idempotency key", type=MemoryType.DECISION, file="pay.py",
                    symbol="charge_card")  # fmt: skip
        note = ws.remember("finalize is called twice by the checkout page", file="pay.py", symbol="finalize")
        ws.mark_stale(note.memory.id, "the checkout page was rewritten")
        ws.remember("reports are generated at midnight UTC", type=MemoryType.CONVENTION, file="report.py")
    return root


@contextlib.asynccontextmanager
async def mcp_session(
    root: Path, *args: str, client_info: mcp_types.Implementation = AGENT, env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """``forewarn mcp -w root *args`` over stdio, initialized, as the SDK's client sees it."""
    params = StdioServerParameters(
        command=FOREWARN, args=["mcp", "-w", str(root), *args], env={**os.environ, **(env or {})}
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, client_info=client_info, read_timeout_seconds=READ_TIMEOUT_S) as s,
    ):
        await s.initialize()
        yield s


def text_of(result: Any) -> str:
    """The text of a tool result (every Forewarn tool answers one Markdown text)."""
    return "".join(getattr(c, "text", "") for c in result.content)
