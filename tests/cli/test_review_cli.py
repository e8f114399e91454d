"""`forewarn review` through the real command: formats, exit codes per --fail-on, git errors as status 2."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import jsonschema
import pytest

from forewarn.workspace.engine import Workspace
from tests.cli.conftest import Forewarn, git

SCHEMA = Path(__file__).resolve().parent.parent / "data" / "sarif-schema-2.1.0.json"

INVOICE = """\
def total(lines):
    return sum(round(x, 2) for x in lines)


def tax(amount):
    return amount * 0.2
"""
REPORT = """\
from billing.invoice import total


def monthly(lines):
    return total(lines)
"""


def repo_with_memories(root: Path) -> dict[str, str]:
    """A committed repository with memories on total (gotcha), tax (note), monthly (decision) and a private one."""
    (root / "billing").mkdir(parents=True)
    (root / "billing" / "invoice.py").write_text(INVOICE, encoding="utf-8")
    (root / "billing" / "report.py").write_text(REPORT, encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first")
    ids: dict[str, str] = {}
    with Workspace.open(root, embedder=None) as ws:
        ws.reindex()
        ids["total"] = ws.remember(
            "total rounds each line", type="gotcha", file="billing/invoice.py", symbol="total"
        ).memory.id
        ids["tax"] = ws.remember("tax is VAT only", file="billing/invoice.py", symbol="tax").memory.id
        ids["monthly"] = ws.remember("monthly runs at 02:00 UTC", type="decision", file="billing/report.py",
                                     symbol="monthly").memory.id  # fmt: skip
        if "private" in inspect.signature(Workspace.remember).parameters:
            ids["private"] = ws.remember(
                "my half-done rounding refactor", file="billing/invoice.py", symbol="total", private=True
            ).memory.id  # type: ignore[call-arg]
    return ids


def change_total(root: Path) -> None:
    path = root / "billing" / "invoice.py"
    path.write_text(path.read_text().replace("round(x, 2)", "round(x, 3)"), encoding="utf-8")


def test_text_lists_each_memory_at_file_and_line(forewarn: Forewarn, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    ids = repo_with_memories(root)
    clean = forewarn("review", "-w", str(root))
    assert clean.returncode == 0, clean.stderr
    assert "No memories on this change." in clean.stdout
    change_total(root)
    done = forewarn("review", "-w", str(root))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("Reviewing the working tree against HEAD: 1 changed file, 1 changed symbol (total).")
    stale, uses = out.index("Made stale or losing their code"), out.index("On code that uses what changed")
    assert stale < out.index("  billing/invoice.py:1  gotcha · stale  total rounds each line") < uses  # ranked
    assert uses < out.index("  billing/report.py:4  decision · active  monthly runs at 02:00 UTC")  # one hop
    assert "tax is VAT only" not in out
    assert ids["total"] in out
    if "private" in ids:
        assert "· private  my half-done rounding refactor" in out  # the writer's own terminal shows it, marked


def test_text_prints_a_memorys_lines_as_lines(forewarn: Forewarn, tmp_path: Path) -> None:
    """D4: a multi-line memory (a mined commit message) reads as indented lines, never as ``\\x0a`` escapes."""
    root = tmp_path / "ws"
    repo_with_memories(root)
    with Workspace.open(root, embedder=None) as ws:
        body = "Restore the iterator interface\n\n- add a test\n- keep the old name"
        ws.remember(body, type="decision", file="billing/invoice.py", symbol="total")
    change_total(root)
    out = forewarn("review", "-w", str(root)).stdout
    assert "\\x0a" not in out
    assert "decision · stale  Restore the iterator interface\n      - add a test\n      - keep the old name\n" in out


def test_json_and_sarif_leave_private_memories_out_and_sarif_validates(forewarn: Forewarn, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    ids = repo_with_memories(root)
    change_total(root)
    done = forewarn("review", "--format", "json", "-w", str(root))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["schema"] == "forewarn.review/1"
    listed = {m["id"]: m for m in data["memories"]}
    assert set(listed) == {ids["total"], ids["monthly"]}
    assert listed[ids["total"]]["line"] == 1 and listed[ids["total"]]["reasons"] == ["changed", "stale"]
    assert listed[ids["monthly"]]["via"] == ["billing/invoice.py::total"]
    sarif_run = forewarn("review", "--format", "sarif", "-w", str(root))
    assert sarif_run.returncode == 0, sarif_run.stderr
    sarif = json.loads(sarif_run.stdout)
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(sarif)
    results = sarif["runs"][0]["results"]
    assert sorted(r["properties"]["memoryId"] for r in results) == sorted([ids["total"], ids["monthly"]])
    for shared in (done.stdout, sarif_run.stdout):
        assert "half-done" not in shared and ids.get("private", "-") not in shared


@pytest.mark.parametrize(
    ("rule", "changed", "code"),
    [
        ("none", True, 0),
        ("stale", True, 1),
        ("any", True, 1),
        ("contested", True, 0),  # nothing is contested today
        ("stale", False, 0),
        ("any", False, 0),
    ],
)
def test_exit_codes_per_fail_on(forewarn: Forewarn, tmp_path: Path, rule: str, changed: bool, code: int) -> None:
    root = tmp_path / "ws"
    repo_with_memories(root)
    if changed:
        change_total(root)
    done = forewarn("review", "--fail-on", rule, "--format", "json", "-w", str(root))
    assert done.returncode == code, done.stderr
    assert json.loads(done.stdout)["failed"] is (code == 1)
    if code == 1:
        assert f"review fails (--fail-on {rule})" in done.stderr


def test_base_reviews_a_branch_as_a_pull_request_would(forewarn: Forewarn, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    ids = repo_with_memories(root)
    git(root, "branch", "-M", "main")
    git(root, "checkout", "-q", "-b", "feature")
    change_total(root)
    git(root, "commit", "-q", "-am", "round to 3 places")
    head_only = forewarn("review", "--fail-on", "stale", "-w", str(root))
    assert head_only.returncode == 0, head_only.stderr  # committed: nothing left against HEAD
    pr = forewarn("review", "--base", "main", "--fail-on", "stale", "--format", "json", "-w", str(root))
    assert pr.returncode == 1, pr.stderr
    data = json.loads(pr.stdout)
    assert data["base"]["ref"] == "main" and data["head"]["commit"] != data["base"]["commit"]
    assert ids["total"] in {m["id"] for m in data["memories"]}


def test_git_problems_are_one_line_and_status_2(forewarn: Forewarn, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    root = tmp_path / "ws"
    repo_with_memories(root)
    cases = [
        (["-w", str(plain)], "is not inside a git repository"),
        (["-w", str(empty)], "has no commits yet"),
        (["--base", "no-such-branch", "-w", str(root)], "no commit named 'no-such-branch'"),
    ]
    for args, message in cases:
        done = forewarn("review", *args)
        assert done.returncode == 2, done.stderr
        assert message in done.stderr
        assert "Traceback" not in done.stderr and done.stdout == ""
    bad = forewarn("review", "--fail-on", "sometimes", "-w", str(root))
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_the_pre_commit_hook_runs_a_command_we_have() -> None:
    yaml = pytest.importorskip("yaml")
    from forewarn.cli.main import build_parser

    hooks = yaml.safe_load((Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml").read_text())
    (hook,) = [h for h in hooks if h["id"] == "forewarn-review"]
    assert hook["language"] == "python" and hook["pass_filenames"] is False and hook["always_run"] is True
    program, *argv = hook["entry"].split()
    assert program == "forewarn"
    args = build_parser().parse_args(argv)
    assert args.command == "review" and args.fail_on == "stale"
