"""``forewarn search --as-of``: each memory's status and age as they were at that time, not today's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forewarn.cli.main import main
from forewarn.config import Settings
from forewarn.memory.text import to_iso
from forewarn.workspace.engine import Workspace

DAY = 86_400.0
T0 = 1_700_000_000.0  # 2023-11-14: the memory is written then, marked outdated ten days later


@pytest.fixture
def ws(tmp_path: Path) -> tuple[Path, str]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "queue.py").write_text("def drain(jobs):\n    return list(jobs)\n", encoding="utf-8")
    clock = [T0]
    settings = Settings()
    settings.embedder.enabled = False
    with Workspace.open(root, settings, embedder=None, clock=lambda: clock[0]) as engine:
        engine.reindex()
        mid = engine.remember(
            "drain drops jobs pushed during shutdown", type="gotcha", file="queue.py", symbol="drain"
        ).memory.id
        clock[0] = T0 + 10 * DAY
        engine.mark_stale(mid, "the queue was rewritten")
    return root, mid


def search(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> tuple[str, list[dict[str, object]]]:
    argv = ["search", "drain drops jobs pushed during shutdown", "--lexical", "-w", str(root), *extra]
    assert main([*argv, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)["memories"]
    assert main(argv) == 0
    return capsys.readouterr().out, found


def test_as_of_shows_the_status_and_age_of_that_time(ws: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    root, mid = ws
    before = to_iso(T0 + 5 * DAY)
    text, found = search(capsys, root, "--as-of", before)
    assert [m["id"] for m in found] == [mid]
    then = found[0]
    assert (then["status"], then["status_reason"], then["age"]) == ("active", None, "5 days ago")
    assert (then["status_now"], then["as_of"]) == ("stale", before)
    assert f"As of {before}" in text and "5 days ago" in text and "[stale]" not in text

    after = to_iso(T0 + 12 * DAY)
    text, found = search(capsys, root, "--as-of", after)
    assert (found[0]["status"], found[0]["status_reason"], found[0]["age"]) == (
        "stale", "the queue was rewritten", "12 days ago",
    )  # fmt: skip
    assert "[stale]" in text and "12 days ago" in text

    text, found = search(capsys, root)  # today: no as-of fields, today's age
    assert found[0]["status"] == "stale" and "status_now" not in found[0] and "As of" not in text
