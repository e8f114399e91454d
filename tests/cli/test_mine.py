"""``forewarn mine``: the summary, --json, incremental runs, --since/--limit and its errors, as a shell runs it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Forewarn, git, git_repo

EXPLAINED_FIX = (
    "Fix rounding of invoice totals\n\n"
    "Rounding each line before summing would lose cents on long invoices because the error adds up."
)


def _repo(tmp_path: Path) -> Path:
    root = git_repo(tmp_path / "ws")
    (root / "billing" / "invoice.py").write_text(
        "def total(lines):\n    # do not round per line: the errors add up\n    return round(sum(lines), 2)\n",
        encoding="utf-8",
    )
    git(root, "commit", "-q", "-am", EXPLAINED_FIX)
    git(root, "commit", "-q", "--allow-empty", "-m", "v1.0.0")
    return root


def test_mine_json_then_an_incremental_no_op(tmp_path: Path, forewarn: Forewarn) -> None:
    root = _repo(tmp_path)
    done = forewarn("mine", "--json", "-w", str(root))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["commits_read"] == 3
    assert report["suggestions"] == {"error_pattern": 1, "gotcha": 1} or report["suggestions"].get("gotcha")
    assert report["noise"]["version-bump"] == 1 and report["anchors"]["symbol"] >= 1
    assert report["added"] == sum(report["suggestions"].values())
    again = json.loads(forewarn("mine", "--json", "-w", str(root)).stdout)
    assert again["commits_read"] == 0 and again["added"] == 0 and again["seconds"] < 1


def test_mine_human_summary(tmp_path: Path, forewarn: Forewarn) -> None:
    root = _repo(tmp_path)
    done = forewarn("mine", "-w", str(root))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Read 3 commits in ")
    assert "noise skipped: " in done.stdout and "version-bump 1" in done.stdout
    assert "Review them: forewarn memory review" in done.stdout
    assert "Nothing new since" in forewarn("mine", "-w", str(root)).stdout


def test_mine_refuses_bad_input_in_one_line(tmp_path: Path, forewarn: Forewarn) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    done = forewarn("mine", "-w", str(plain))
    assert done.returncode == 1 and "not inside a git repository" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    root = _repo(tmp_path)
    bad = forewarn("mine", "--since", "nonsense", "-w", str(root))
    assert bad.returncode == 1 and "neither a commit nor a date" in bad.stderr
    assert forewarn("mine", "--limit", "0", "-w", str(root)).returncode == 2
