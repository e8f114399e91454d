"""A real git repository built by a test: fixed identity and dates, no user or system git config."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

ENV = {
    "GIT_AUTHOR_NAME": "Ann",
    "GIT_AUTHOR_EMAIL": "ann@example.com",
    "GIT_COMMITTER_NAME": "Ann",
    "GIT_COMMITTER_EMAIL": "ann@example.com",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
    "PATH": "/usr/bin:/bin:/usr/local/bin",
}


def write_files(root: Path, files: Mapping[str, str]) -> None:
    """Each file under ``root`` (its folders made), as UTF-8: a workspace a test builds without git."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


class Repo:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.n = 0
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, input: bytes | None = None) -> str:
        done = subprocess.run(["git", "-C", str(self.root), *args], env=ENV, capture_output=True, input=input)
        assert done.returncode == 0, done.stderr.decode()
        return done.stdout.decode("utf-8", "replace").strip()

    def write(self, rel: str, text: str | bytes) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode())

    def edit(self, rel: str, old: str, new: str) -> None:
        text = (self.root / rel).read_text(encoding="utf-8")
        assert old in text
        self.write(rel, text.replace(old, new))

    def commit(
        self, message: str | bytes, author: str = "Ann", *, date: str | None = None, verbatim: bool = False
    ) -> str:
        """Commit everything (``date``: ISO, else one day per commit in January 2024; ``verbatim``: the message's
        bytes as given, control characters and all)."""
        self.n += 1
        self.git("add", "-A")
        env_date = date or f"2024-01-{self.n:02d}T12:00:00+02:00"
        data = message if isinstance(message, bytes) else message.encode()
        cleanup = ["--cleanup=verbatim"] if verbatim else []
        done = subprocess.run(
            [
                "git",
                "-C",
                str(self.root),
                "commit",
                "-q",
                "--allow-empty",
                *cleanup,
                "-F",
                "-",
                f"--author={author} <a@x.org>",
            ],
            env={**ENV, "GIT_AUTHOR_DATE": env_date, "GIT_COMMITTER_DATE": env_date},
            input=data,
            capture_output=True,
        )
        assert done.returncode == 0, done.stderr.decode()
        return self.git("rev-parse", "HEAD")
