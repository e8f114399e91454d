"""``forewarn remember`` says what a new memory contradicts and how to resolve it; ``forewarn memory resolve``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from forewarn.cli.main import main

OLD = "every charge carries an idempotency key"
NEW = "charge_card no longer needs an idempotency key"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "payments.py").write_text("def charge_card(order):\n    return order\n", encoding="utf-8")
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def remember(capsys: pytest.CaptureFixture[str], ws: Path, text: str) -> Any:
    code, out, err = run(
        capsys, "remember", text, "--type", "decision", "--file", "payments.py", "--symbol", "charge_card",
        "-w", str(ws), "--json",
    )  # fmt: skip
    assert code == 0, err
    return json.loads(out)


def test_remember_names_the_contradiction_and_the_command_that_resolves_it(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = remember(capsys, ws, OLD)["id"]
    code, out, _ = run(
        capsys, "remember", NEW, "--file", "payments.py", "--symbol", "charge_card", "-w", str(ws)
    )  # fmt: skip
    assert code == 0
    assert "It seems to contradict:" in out and old in out and "negation" in out
    new = out.split()[1]
    assert f"forewarn memory resolve {new} --with {old} --replace" in out
    assert "--both" in out and "--contested" in out
    again = remember(capsys, ws, "charge_card never needs an idempotency key; the gateway dedupes")
    assert [c["id"] for c in again["conflicts"]] == [old] and "negation" in again["conflicts"][0]["cues"]


def test_resolve_both_then_contested_then_replace(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = ("-w", str(ws))
    old = remember(capsys, ws, OLD)["id"]
    new = remember(capsys, ws, NEW)["id"]
    code, out, _ = run(capsys, "memory", "resolve", new, "--both", *w)  # the other is found: the only conflict
    assert code == 0 and "both hold" in out and old in out
    code, _, err = run(capsys, "memory", "resolve", new, "--both", *w)
    assert code == 1 and "contradicts no current memory" in err  # resolved: not found again
    code, out, _ = run(capsys, "memory", "resolve", new, "--with", old, "--contested", *w)
    assert code == 0 and "contested" in out
    listed = json.loads(run(capsys, "memory", "list", "--json", *w)[1])
    assert {m["status"] for m in listed} == {"contested"}
    # a prefix of the id (ids made in one millisecond share their first 10 characters: give one past where they differ)
    cut = max(10, next(i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b) + 1)
    done = json.loads(run(capsys, "memory", "resolve", old[:cut], "--replace", "--json", *w)[1])
    assert done["memory"]["id"] == old and done["memory"]["status"] == "active"
    assert done["other"]["id"] == new and done["other"]["status"] == "superseded"


def test_resolve_needs_one_resolution_and_an_unambiguous_other(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = ("-w", str(ws))
    remember(capsys, ws, OLD)
    remember(capsys, ws, "every charge carries an idempotency key made from the order id")
    new = remember(capsys, ws, NEW)["id"]
    with pytest.raises(SystemExit):
        main(["memory", "resolve", new, *w])  # argparse: one of --replace/--both/--contested is required
    capsys.readouterr()
    code, _, err = run(capsys, "memory", "resolve", new, "--both", *w)
    assert code == 1 and "several memories" in err and "--with" in err
