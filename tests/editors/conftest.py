"""Shared pieces of the real-editor tests: the fixture workspace with a recorded gotcha, tool paths.

Each test gets a copy of ``fixtures/workspace`` and records one gotcha into it with the real
``forewarn remember`` CLI, into the test's private ``FOREWARN_HOME`` (tests/conftest.py); the
editors then start the real ``forewarn serve``, which inherits that environment.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / "editor-clients" / ".tools"
FIXTURE = Path(__file__).parent / "fixtures" / "workspace"
ARTIFACTS = Path(__file__).parent / "artifacts"
FOREWARN = [sys.executable, "-m", "forewarn.cli.main"]
EDITOR_WAIT_S = 90  # one wait inside an editor: a cold server start (model load, first index) on a busy 2-core CI
EDITOR_RUN_S = 300  # a whole editor session, so a hang fails the test instead of blocking CI
DOCS_IMAGES = REPO / "docs" / "images"
# screenshots always land in artifacts/; the README's copies are refreshed only on request
# (`make screenshots`), so a test run never leaves tracked files modified
UPDATE_SCREENSHOTS_ENV = "FOREWARN_UPDATE_SCREENSHOTS"


@dataclass(frozen=True)
class Gotcha:
    root: Path
    file: str  # workspace-relative
    symbol: str
    line: int  # 1-based, where the symbol's name is
    column: int  # 1-based
    text: str
    marker: str  # a phrase of the text unique enough to assert on
    query: str  # a search query that must find it


GOTCHA = {
    "file": "payments.py",
    "symbol": "charge_card",
    "line": 6,
    "column": 5,
    "text": "Retrying charge_card after a timeout double-charges customers: the gateway may already have "
    "charged the card, so pass an idempotency key",
    "marker": "the gateway may already have charged the card",
    "query": "idempotency key gateway timeout",
}


def run_forewarn(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*FOREWARN, *args], capture_output=True, text=True, timeout=timeout, check=False)


def memories(root: Path, *args: str) -> list[dict[str, Any]]:
    """``forewarn memory list --json`` for the workspace, as the CLI sees the store the editor wrote to."""
    listed = run_forewarn("memory", "list", "--workspace", str(root), "--json", *args)
    assert listed.returncode == 0, listed.stderr
    found: list[dict[str, Any]] = json.loads(listed.stdout)
    return found


@functools.cache
def daemon_missing_reason() -> str | None:
    """Why the real server cannot serve these tests yet, or None: both CLI commands the tests use must exist."""
    for command in ("serve", "remember"):
        probe = run_forewarn(command, "--help", timeout=60)
        if probe.returncode != 0:
            detail = (probe.stderr.strip().splitlines() or ["no output"])[-1]
            return f"`forewarn {command}` is not available yet: {detail}"
    return None


@pytest.fixture
def gotcha_workspace(tmp_path: Path) -> Gotcha:
    """A copy of the fixture workspace with one gotcha recorded on ``charge_card`` by the real CLI."""
    reason = daemon_missing_reason()
    if reason:
        pytest.skip(reason)
    root = tmp_path / "shop"
    shutil.copytree(FIXTURE, root)
    recorded = run_forewarn(
        "remember",
        "--workspace", str(root),
        "--type", "gotcha",
        "--file", GOTCHA["file"],
        "--symbol", GOTCHA["symbol"],
        GOTCHA["text"],
    )  # fmt: skip
    assert recorded.returncode == 0, f"forewarn remember failed:\n{recorded.stdout}\n{recorded.stderr}"
    return Gotcha(root=root, **GOTCHA)  # type: ignore[arg-type]


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def publish_screenshot(png: Path, name: str) -> None:
    """Copy a passing run's screenshot over the README's, when asked to (see UPDATE_SCREENSHOTS_ENV)."""
    if os.environ.get(UPDATE_SCREENSHOTS_ENV) == "1":
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        shutil.copy(png, DOCS_IMAGES / name)
