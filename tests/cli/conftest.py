"""Run the real ``forewarn`` command in a child process, as a shell would."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

CLI_TIMEOUT_S = 120  # one command on a busy 2-core machine, model load included

Forewarn = Callable[..., subprocess.CompletedProcess[str]]


def forewarn_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "forewarn", *args]


INHERITED_NOT_WANTED = (
    "NO_COLOR",
    "FORCE_COLOR",
    "TTY_COMPATIBLE",
    # unbuffered, Python ignores a pipe's short write (the reader left mid-write) and exits 0: run as users do
    "PYTHONUNBUFFERED",
)


def plain_env(**extra: str) -> dict[str, str]:
    """The test's environment (FOREWARN_HOME included), less what the caller's shell may set that changes output."""
    env = {k: v for k, v in os.environ.items() if k not in INHERITED_NOT_WANTED}
    env.update(extra)
    return env


@pytest.fixture
def forewarn() -> Forewarn:
    """``forewarn(*args, cwd=…)``: run the command, capture its text output, never raise on a non-zero exit."""

    def run(*args: str, cwd: Path | None = None, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            forewarn_argv(*args), cwd=cwd, env=plain_env(), capture_output=True, text=True, timeout=CLI_TIMEOUT_S,
            **kwargs,
        )  # fmt: skip

    return run


def git_repo(root: Path) -> Path:
    """A real git work tree at ``root`` with a ``billing`` package, committed."""
    (root / "billing").mkdir(parents=True)
    (root / "billing" / "__init__.py").write_text("", encoding="utf-8")
    (root / "billing" / "invoice.py").write_text(
        "def total(lines):\n    return sum(round(x, 2) for x in lines)\n", encoding="utf-8"
    )
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first")
    return root


def git(cwd: Path, *args: str) -> None:
    identity = ("-c", "user.name=Forewarn Tests", "-c", "user.email=tests@forewarn.invalid")
    subprocess.run(["git", *identity, *args], cwd=cwd, check=True, capture_output=True, timeout=CLI_TIMEOUT_S)
