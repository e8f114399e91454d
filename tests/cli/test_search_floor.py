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


def test_code_found_for_an_unrelated_query_is_labelled_the_nearest_not_listed_as_a_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """D25: "banana smoothie recipe" found no memory, then printed a page of code under "Code:" as if it matched."""
    for i in range(6):
        (tmp_path / f"mod{i}.py").write_text(
            f"def handler_{i}(request):\n    return request.session.get('cart_{i}')\n", encoding="utf-8"
        )
    (tmp_path / "cart.py").write_text("def add_to_cart(cart, item):\n    cart.append(item)\n", encoding="utf-8")
    w = ["-w", str(tmp_path), "--lexical"]
    assert main(["index", "--no-embed", "-w", str(tmp_path)]) == 0  # a search reads a workspace, creating none
    capsys.readouterr()
    assert main(["search", "banana smoothie recipe with the cart", *w]) == 0
    out = capsys.readouterr().out
    assert "No memory matches" in out and "\nCode:" not in out
    listed = out.split("No code matches closely; the nearest:", 1)[1]
    assert 0 < listed.count(".py:") <= 3  # a few files, said to be only the nearest
    assert main(["search", "add item to cart", *w]) == 0
    out = capsys.readouterr().out
    assert "\nCode:" in out and "cart.py" in out
    assert main(["search", "add item to cart", "--json", *w]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["code_matched"] is True and data["files"][0]["file"] == "cart.py"
    assert main(["search", "banana smoothie recipe with the cart", "--json", *w]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["code_matched"] is False and data["files"]  # JSON keeps every file found, and the label
