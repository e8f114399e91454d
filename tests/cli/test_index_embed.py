"""``forewarn index`` embeds code chunks after indexing (``--no-embed`` skips; without a model, says lexical)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from forewarn import paths
from forewarn.cli.main import main

WORKSPACE = Path(__file__).parents[1] / "indexing" / "workspaces" / "shop"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(WORKSPACE, root)
    return root


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_index_embeds_every_chunk_once(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = run_json(capsys, "index", str(ws))
    vectors = summary["code_vectors"]
    assert vectors["mode"] == "hybrid", vectors
    assert vectors["covered"] == vectors["total"] == vectors["added"] == vectors["embedded"] > 0
    assert vectors["cache"]["kept"] == vectors["total"] and vectors["cache"]["bytes"] > 0
    assert (paths.workspace_dir(ws) / "code_vectors.hnsw").is_file()

    again = run_json(capsys, "index", str(ws))["code_vectors"]
    assert again["added"] == 0 and again["covered"] == vectors["total"]

    (ws / "app" / "extra.py").write_text("def extra():\n    return 1\n", encoding="utf-8")
    edited = run_json(capsys, "index", str(ws))["code_vectors"]
    assert edited["embedded"] == 1  # only the new file's one chunk reached the model
    assert edited["covered"] == edited["total"] == vectors["total"] + 1


def test_no_embed_skips_embedding(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = run_json(capsys, "index", str(ws), "--no-embed")
    assert "code_vectors" not in summary and summary["chunks"] > 0
    assert not (paths.workspace_dir(ws) / "code_vectors.hnsw").exists()
    assert main(["index", str(ws), "--no-embed"]) == 0
    assert "code vectors" not in capsys.readouterr().out


def test_without_a_model_search_of_code_is_lexical(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(paths.MODELS_ENV, str(tmp_path / "no-models"))
    assert main(["index", str(ws)]) == 0
    out = capsys.readouterr().out
    assert "search of code is lexical" in out
    assert run_json(capsys, "index", str(ws))["code_vectors"]["mode"] == "lexical"
