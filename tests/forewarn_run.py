"""``forewarn`` run as a user runs it, in a workspace, for the tests that check a command's output end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

CLI_TIMEOUT_S = 120  # one command on a busy 2-core machine


def forewarn_in(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``forewarn *args`` with ``root`` as its working folder (hooks answered in process); it must succeed."""
    done = subprocess.run(
        [sys.executable, "-m", "forewarn", *args], cwd=root, input=stdin, capture_output=True, text=True,
        timeout=CLI_TIMEOUT_S, env={**os.environ, "FOREWARN_HOOK_SERVER": "0"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


def remember_gotcha(root: Path, text: str, *where: str) -> str:
    """``forewarn remember TEXT --type gotcha WHERE…`` in ``root``; the new memory's id."""
    done = forewarn_in(root, "remember", text, "--type", "gotcha", *where, "--json")
    return str(json.loads(done.stdout)["id"])


def explained(root: Path, text: str) -> dict[str, Any]:
    """``forewarn explain --lexical --json`` of ``text`` in ``root``, as JSON."""
    return cast(dict[str, Any], json.loads(forewarn_in(root, "explain", "--lexical", "--json", stdin=text).stdout))
