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
        "def total(lines):\n    # do not round each entry alone: the errors add up\n    return round(sum(lines), 2)\n",
        encoding="utf-8",
    )
    git(root, "commit", "-q", "-am", EXPLAINED_FIX)
    git(root, "commit", "-q", "--allow-empty", "-m", "v1.0.0")
    return root


def test_mine_json_then_an_incremental_no_op(tmp_path: Path, forewarn: Forewarn) -> None:
    root = _repo(tmp_path)
    done = forewarn("mine", "--all", "--json", "-w", str(root))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["commits_read"] == 3 and report["held_back"] == {}
    # the fix and the warning comment in `total` are one suggestion on one symbol, the comment folded into the fix
    assert report["suggestions"] == {"error_pattern": 1} and report["noise"]["merged-same-symbol"] == 1
    assert report["noise"]["version-bump"] == 1 and report["anchors"]["symbol"] >= 1
    assert report["added"] == sum(report["suggestions"].values())
    again = json.loads(forewarn("mine", "--json", "-w", str(root)).stdout)
    assert again["commits_read"] == 0 and again["added"] == 0 and again["seconds"] < 1


def test_mine_json_counts_every_noise_rule_by_name(tmp_path: Path, forewarn: Forewarn) -> None:
    """Issue 23: what proposes nothing is counted under its rule's name, in the report scripts read."""
    root = git_repo(tmp_path / "ws")
    invoice = root / "billing" / "invoice.py"
    (root / "tests").mkdir()
    (root / "tests" / "test_invoice.py").write_text("def test_total():\n    assert True\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Make the test stricter\n\nOtherwise the flaky CI run passes although it fails.")
    invoice.write_text(invoice.read_text(encoding="utf-8") + "\n\ndef vat(x: float) -> float:\n    return x\n")
    git(root, "commit", "-q", "-am", "Fix mypy findings in vat")
    invoice.write_text(invoice.read_text(encoding="utf-8").replace("return x", "return x * 0.21"))
    git(root, "commit", "-q", "-am", "Compute VAT in vat\n\nWe compute it here because the gateway rounds otherwise.")
    git(root, "revert", "--no-edit", "HEAD")
    report = json.loads(forewarn("mine", "--json", "-w", str(root)).stdout)
    assert {"test-only", "typing-only", "revert-without-reason", "reverted"} <= set(report["noise"]), report
    assert report["added"] == 0 and report["suggestions"] == {}  # a revert with no reason: no dead end either


def test_mine_human_summary(tmp_path: Path, forewarn: Forewarn) -> None:
    """A default run says what it held back and how to have it; ``--all`` reads everything again and proposes it."""
    root = _repo(tmp_path)
    done = forewarn("mine", "-w", str(root))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Read 3 commits in ") and "0 new suggestions" in done.stdout
    assert "noise skipped: " in done.stdout and "version-bump 1" in done.stdout
    # a one-sentence why on a three-line function scores under the bar, and the comment is already in the code
    assert "held back (forewarn mine --all proposes them): low-score 1, warning-comment 1" in done.stdout
    assert "Review them" not in done.stdout
    everything = forewarn("mine", "--all", "-w", str(root)).stdout
    assert everything.startswith("Read 3 commits in ") and "1 new suggestions" in everything
    assert "held back" not in everything and "Review them: forewarn memory review" in everything
    assert "  suggestions: error_pattern 1" in everything  # all of them new: the breakdown is of what was added
    assert "Nothing new since" in forewarn("mine", "-w", str(root)).stdout
    again = forewarn("mine", "--all", "-w", str(root)).stdout  # read again: the same suggestion, known now
    assert "0 new suggestions (1 known, 0 dismissed before)" in again
    assert "  proposed (new, known and dismissed before): error_pattern 1" in again and "  suggestions:" not in again


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
