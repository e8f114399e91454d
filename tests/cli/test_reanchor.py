"""forewarn memory reanchor and the history of a stale memory, through the real entry point."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from forewarn.cli.main import main

QUEUE = "class JobQueue:\n    def push(self, job):\n        return job\n\n    def drain(self):\n        return []\n"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    st = path.stat()  # a new mtime even within the filesystem's timestamp granularity
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_an_orphan_is_reanchored_by_hand_and_a_stale_one_shows_its_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "ws"
    write(root / "src/queue.py", QUEUE)
    w = ("-w", str(root))
    code, out, err = run(
        capsys, "remember", "drain drops jobs", "--file", "src/queue.py", "--symbol", "JobQueue.drain", "--json", *w
    )
    assert code == 0, err
    mid = json.loads(out)["id"]
    write(
        root / "src/queue.py",
        QUEUE.replace(
            "    def drain(self):\n        return []\n",
            "    def flush_all(self, force):\n        self.items = None\n        return force\n",
        ),
    )
    code, out, _ = run(capsys, "index", "--no-embed", *w)
    assert code == 0 and "orphaned" in out
    code, out, _ = run(capsys, "memory", "show", mid, "--json", *w)
    assert json.loads(out)["status"] == "orphaned"

    code, out, err = run(
        capsys, "memory", "reanchor", mid[:12], "--file", "src/queue.py", "--symbol", "JobQueue.flush_all", *w
    )
    assert code == 0, err
    assert "src/queue.py::JobQueue.flush_all (active)" in out
    code, out, err = run(capsys, "memory", "reanchor", mid, "--file", "src/queue.py", "--symbol", "nope", *w)
    assert code != 0 and "no symbol 'nope'" in err

    write(root / "src/queue.py", (root / "src/queue.py").read_text().replace("return force", "return not force"))
    code, out, _ = run(capsys, "index", "--no-embed", *w)
    assert "may be outdated" in out
    code, out, _ = run(capsys, "memory", "history", mid, *w)
    assert "reanchored" in out and "how=by hand" in out
    assert "-        return force" in out and "+        return not force" in out
