"""Out-of-range input is refused like any other bad input: one ``forewarn: …`` line, no traceback (F16); exit 2
when the command line itself is wrong (a time that cannot be, D18), 1 when the workspace says no (a line past
the end of the file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn import paths
from tests.cli.conftest import Forewarn, git_repo

INVOICE_LINES = 25


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = git_repo(tmp_path / "shop")
    body = "".join(f"def line_{n}():\n    return {n}\n" for n in range(12)) + "TOTAL = 0\n"
    (root / "billing" / "invoice.py").write_text(body, encoding="utf-8")
    assert len(body.splitlines()) == INVOICE_LINES
    return root


@pytest.mark.parametrize(
    ("argv", "message", "code"),
    [
        (["search", "x", "--lexical", "--as-of", "0001-01-01"], "--as-of 0001-01-01 is before 1970", 2),
        (["search", "x", "--lexical", "--as-of", "0999-06-01"], "--as-of 0999-06-01 is before 1970", 2),
        (["search", "x", "--lexical", "--since", "0001-01-01T00:00:00+01:00"], "outside the years 1 to 9999", 2),
        (["search", "x", "--lexical", "--since", "2025-13-45"], "is not an ISO-8601 date", 2),
        (
            ["remember", "x", "--file", "billing/invoice.py", "--line", "99999999999999999999"],
            "line 99999999999999999999 is past the end of billing/invoice.py (25 lines)",
            1,
        ),
        (
            ["remember", "x", "--file", "billing/invoice.py", "--line", "999"],
            "line 999 is past the end of billing/invoice.py (25 lines)",
            1,
        ),
        (
            ["remember", "x", "--file", "billing/invoice.py", "--line", "26"],
            "line 26 is past the end of billing/invoice.py (25 lines)",
            1,
        ),
        (["remember", "x", "--file", "-rf.py"], "-rf.py is not a file in the workspace", 1),
    ],
)
def test_refused_in_one_line(forewarn: Forewarn, ws: Path, argv: list[str], message: str, code: int) -> None:
    done = forewarn(*argv, cwd=ws)
    lines = [line for line in done.stderr.splitlines() if "without the embedding model" not in line]
    assert (done.returncode, len(lines)) == (code, 1), done.stderr
    assert lines[0].startswith("forewarn: ") and message in lines[0]
    assert "Traceback" not in done.stderr


def test_the_last_line_and_a_dash_file_name_are_fine(forewarn: Forewarn, ws: Path) -> None:
    last = forewarn("remember", "the total starts at zero", "--file", "billing/invoice.py", "--line", "25", cwd=ws)
    assert last.returncode == 0, last.stderr
    (ws / "-rf.py").write_text("print('hi')\n", encoding="utf-8")
    dash = forewarn("remember", "never run this", "--file", "-rf.py", cwd=ws)
    assert dash.returncode == 0, dash.stderr
    assert "(note, -rf.py)" in dash.stdout
    missing = forewarn("remember", "x", "--file", "--json", cwd=ws)  # an option is not a file name
    assert missing.returncode == 2 and "expected one argument" in missing.stderr


def test_a_search_without_the_model_says_so_once(
    forewarn: Forewarn, ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA pass 7, finding 9: two warnings with the same cause and advice."""
    monkeypatch.setenv(paths.MODELS_ENV, str(tmp_path / "no-models"))
    assert forewarn("index", "--no-embed", cwd=ws).returncode == 0  # a search reads a workspace, creating none
    done = forewarn("search", "invoice total", cwd=ws)
    said = [line for line in done.stderr.splitlines() if "model" in line]
    assert done.returncode == 0 and len(said) == 1 and "searched by words only" in said[0], done.stderr
