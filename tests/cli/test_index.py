"""``forewarn index`` and ``forewarn map`` through the real CLI entry point."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from forewarn.cli.main import main

WORKSPACE = Path(__file__).parents[1] / "indexing" / "workspaces" / "shop"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(WORKSPACE, root)
    (root / "blob.py").write_bytes(b"\0\1\2")
    return root


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_index_json_summary(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = run_json(capsys, "index", str(ws))
    assert summary["files"] == 14
    assert summary["chunks"] > summary["files"]
    assert summary["languages"] == {"python": 8, "typescript": 4, "go": 2}
    assert summary["skipped_by_reason"] == {"binary": 1}
    assert summary["report"]["parsed"] == 14
    again = run_json(capsys, "index", str(ws))
    assert again["report"]["parsed"] == 0 and again["report"]["unchanged"] == 15


def test_index_human_summary(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", str(ws)]) == 0
    out = capsys.readouterr().out
    assert "14 files" in out and "skipped: binary 1" in out and "python 8" in out


def test_map_json_gives_ranked_files_and_definitions(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys, "map", str(ws), "--budget", "200", "--focus", str(ws / "app/views.py"), "--ident", "restock_all"
    )
    assert data["tokens"] <= 200
    assert data["files"][0]["score"] >= data["files"][-1]["score"]
    assert {f["file"] for f in data["files"]} >= {"app/views.py", "app/core/db.py"}
    assert data["definitions"]
    assert {"rel", "name", "symbol", "line", "signature", "score"} <= set(data["definitions"][0])
    assert data["text"].startswith(data["definitions"][0]["rel"] + ":")


def test_map_prints_the_map(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["map", str(ws), "--budget", "100"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("app/core/db.py:\n")


def test_missing_workspace_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", str(tmp_path / "nope")]) == 1
    assert "does not exist" in capsys.readouterr().err
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    assert main(["map", str(tmp_path / "file.txt")]) == 1
    assert "not a directory" in capsys.readouterr().err


def test_focus_outside_workspace_is_refused(ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "elsewhere.py"
    outside.write_text("x = 1\n", encoding="utf-8")
    assert main(["map", str(ws), "--focus", str(outside)]) == 1
    assert "outside the workspace" in capsys.readouterr().err


def test_index_says_which_files_it_parsed_with_syntax_errors(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """QA pass 7: 121 of spdlog's files parsed with errors and ``index`` said nothing."""
    (ws / "broken.py").write_text("def ok():\n    return 1\n\n\ndef broken(:\n    pass\n", encoding="utf-8")
    summary = run_json(capsys, "index", str(ws))
    assert summary["syntax_errors"] == ["broken.py"]
    assert main(["index", str(ws)]) == 0
    assert "parsed with syntax errors: 1 file (" in capsys.readouterr().out
