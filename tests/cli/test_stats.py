"""``forewarn stats``: the trajectory as sparklines on a terminal, as numbers in a pipe, as series in --json;
``--since`` bounds it, and a bad one is a usage error before anything loads."""

from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path

from forewarn.memory.trajectory import SPARK_BLOCKS
from tests import panel_workspace as pw
from tests.cli.conftest import CLI_TIMEOUT_S, Forewarn, forewarn_argv, plain_env


def workspace(tmp_path: Path) -> Path:
    """The panel workspace, lexical (its own config turns the model off: the report needs none)."""
    built = pw.build(tmp_path / "shop")
    (built.root / ".forewarn" / "config.toml").write_text("[embedder]\nenabled = false\n", encoding="utf-8")
    return built.root


def test_json_has_the_series_and_since_bounds_them(tmp_path: Path, forewarn: Forewarn) -> None:
    root = workspace(tmp_path)
    done = forewarn("stats", "--json", "-w", str(root))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    t = data["trajectory"]
    assert t["bucket"] == "day" and len(t["buckets"]) == 41  # the first memory, 40 days back, to today
    assert all(
        len(series) == len(t["buckets"]) for part in ("by_source", "by_status", "events") for series in t[part].values()
    )
    assert t["by_source"]["typed"][-1] == 7 and t["by_status"]["suggested"][-1] == 3
    assert data["important_files"][0] == {**data["important_files"][0], "file": "money.py", "memories": 0}
    bounded = json.loads(forewarn("stats", "--json", "--since", "7d", "-w", str(root)).stdout)["trajectory"]
    assert len(bounded["buckets"]) == 8 and bounded["by_source"]["typed"] == [7] * 8  # earlier history folded in


def test_a_pipe_gets_numbers_and_a_terminal_sparklines(tmp_path: Path, forewarn: Forewarn) -> None:
    root = workspace(tmp_path)
    piped = forewarn("stats", "--since", "3d", "-w", str(root))
    assert piped.returncode == 0, piped.stderr
    lines = piped.stdout.splitlines()
    assert "Trajectory" in piped.stdout and not set(SPARK_BLOCKS.strip()) & set(piped.stdout)
    typed = next(line for line in lines if line.strip().startswith("typed"))
    assert typed.split()[1:5] == ["7", "7", "7", "7"] and typed.endswith("now 7, peak 7"), typed
    assert "Most important files (PageRank)" in piped.stdout and "money.py  none" in piped.stdout
    assert "Turned away most" not in piped.stdout  # nothing was dismissed in the last three days
    # on a terminal (a real pseudo-terminal), the same series drawn as blocks
    leader, follower = pty.openpty()
    env = plain_env(COLUMNS="200")
    with subprocess.Popen(
        forewarn_argv("stats", "-w", str(root)), stdout=follower, stderr=subprocess.PIPE, env=env, text=False
    ) as child:
        os.close(follower)
        out = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            out += chunk
        child.wait(timeout=CLI_TIMEOUT_S)
    os.close(leader)
    text = out.decode()
    assert child.returncode == 0
    drawn = next(line for line in text.splitlines() if line.strip().startswith("typed"))
    assert "█" in drawn and "now 7, peak 8" in drawn, drawn
    assert "Shown most since" in text and "Turned away most since" in text and "Stale (1):" in text


def test_a_bad_since_is_a_usage_error(tmp_path: Path, forewarn: Forewarn) -> None:
    done = forewarn("stats", "--since", "last tuesday", "-w", str(tmp_path))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == (
        "forewarn: since 'last tuesday': give a date (2026-09-01) or a span back from today (90d, 12w, 6m, 1y)"
    )
