"""forewarn search when no memory reaches the relevance floor: it says so and names the closest, in text and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forewarn.cli.main import main


def test_search_says_no_memory_matches_and_names_the_closest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w = ["-w", str(tmp_path)]
    for text in ("every charge carries an idempotency key", "reports are generated at midnight UTC"):
        assert main(["remember", text, "--type", "decision", *w]) == 0
    capsys.readouterr()
    assert main(["search", "charge my phone battery overnight", "--lexical", *w]) == 0
    out = capsys.readouterr().out
    assert out.startswith("No memory matches; closest: “every charge carries an idempotency key” (decision;")
    assert "words matched" in out and "midnight" not in out
    assert main(["search", "banana smoothie recipe", "--lexical", *w]) == 0
    assert capsys.readouterr().out.startswith("No memory matches.")
    assert main(["search", "charge my phone battery overnight", "--lexical", "--json", *w]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["memories"] == [] and data["message"].startswith("No memory matches; closest: “every charge")
    assert main(["search", "idempotency key of a charge", "--lexical", "--json", *w]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["memories"][0]["text"] == "every charge carries an idempotency key" and data["message"] is None
