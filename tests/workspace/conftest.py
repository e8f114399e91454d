"""Shared pieces of the workspace tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from forewarn.workspace.engine import Workspace


@pytest.fixture
def open_ws() -> Iterator[list[Workspace]]:
    """The workspaces a test opens (``tests.workspace.billing_history.mined`` adds to it), closed after it."""
    opened: list[Workspace] = []
    yield opened
    for ws in opened:
        ws.close()
