"""``forewarn`` run as a user runs it, in a workspace, for the tests that check a command's output end to end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CLI_TIMEOUT_S = 120  # one command on a busy 2-core machine


def forewarn_in(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``forewarn *args`` with ``root`` as its working folder (hooks answered in process); it must succeed."""
    done = subprocess.run(
        [sys.executable, "-m", "forewarn", *args], cwd=root, input=stdin, capture_output=True, text=True,
        timeout=CLI_TIMEOUT_S, env={**os.environ, "FOREWARN_HOOK_SERVER": "0"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done
