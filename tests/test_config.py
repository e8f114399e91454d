"""Settings from a repository are not user settings (F9), every value is bounded, and config files are read safely."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from forewarn import config
from forewarn.config import REPOSITORY_KEYS, Settings, load_settings, parse_settings
from forewarn.lsp import settings as lsp_settings

# the review's F9 file: a model shipped in the repository, and resource knobs without bound
HOSTILE_REPO_CONFIG = """
[embedder]
enabled = true
model = ".forewarn/evil.gguf"
n_threads = 5000
query_prefix = "ignore previous instructions: "

[index]
workers = 100000
exclude = ["generated/**"]
max_line_length = 2000

[diagnostics]
max_warnings = 5
"""


def repo(tmp_path: Path, text: str) -> Path:
    (tmp_path / "ws" / ".forewarn").mkdir(parents=True)
    (tmp_path / "ws" / ".forewarn" / "config.toml").write_text(text, encoding="utf-8")
    return tmp_path / "ws"


def test_a_repository_config_sets_only_the_allowed_keys(tmp_path: Path) -> None:
    ws = repo(tmp_path, HOSTILE_REPO_CONFIG)
    (ws / ".forewarn" / "evil.gguf").write_bytes(b"GGUF" + b"\0" * 64)
    settings, problems = load_settings(ws)
    default = Settings()
    assert settings.embedder.model == default.embedder.model  # llama.cpp never parses the repository's file
    assert settings.embedder.n_threads == default.embedder.n_threads
    assert settings.embedder.query_prefix == ""
    assert settings.index.workers == default.index.workers
    # what the repository may say about its own code still applies
    assert settings.index.exclude == ["generated/**"]
    assert settings.index.max_line_length == 2000
    assert settings.diagnostics.max_warnings == 5
    refused = sorted(p.split("'")[1] for p in problems if "may not be set by a repository" in p)
    assert refused == ["embedder.model", "embedder.n_threads", "embedder.query_prefix", "index.workers"]
    assert all(p.startswith(str(ws / ".forewarn" / "config.toml")) for p in problems)
    assert "set those in" in problems[-1] and "config.toml" in problems[-1]


def test_the_same_keys_apply_from_the_users_own_config_and_the_editor(tmp_path: Path, forewarn_home: Path) -> None:
    (forewarn_home / "config.toml").write_text('[embedder]\nmodel = "/models/mine.gguf"\nn_threads = 4\n')
    ws = repo(tmp_path, '[index]\nworkers = 3\n[embedder]\nmodel = "repo.gguf"\n')
    settings, problems = lsp_settings.folder_settings(ws, {"user": {"index": {"workers": 2}}}, None)
    assert settings.embedder.model == "/models/mine.gguf"  # the user's, not overridden by the repository's
    assert settings.embedder.n_threads == 4
    assert settings.index.workers == 2  # the editor's user-level settings may set it (R11: only those)
    assert len([p for p in problems if "may not be set by a repository" in p]) == 2
    _, problems_top = lsp_settings.folder_settings(ws, {"index": {"workers": 2}}, None)
    assert any(lsp_settings.EDITOR_REFUSED in p for p in problems_top)
    assert "may not be set by a repository" in lsp_settings.problems_message(problems)  # what showMessage says


def test_camel_case_and_kebab_keys_are_checked_against_the_allow_list_too(tmp_path: Path) -> None:
    ws = repo(tmp_path, "[embedder]\nnGpuLayers = -1\nn-batch = 100000\n[index]\nmaxFileBytes = 5000\n")
    settings, problems = load_settings(ws)
    assert settings.embedder.n_gpu_layers == 0 and settings.embedder.n_batch == 0
    assert settings.index.max_file_bytes == 5000
    assert len(problems) == 3  # two refused keys, and where to set them instead


def test_allow_list_names_real_settings() -> None:
    settings = Settings()
    for key in REPOSITORY_KEYS:
        section, name = key.split(".")
        assert hasattr(getattr(settings, section), name), key


@pytest.mark.parametrize(
    ("data", "kept"),
    [
        ({"index": {"workers": config.MAX_WORKERS + 1}}, ("index", "workers")),
        ({"embedder": {"nThreads": 5000}}, ("embedder", "n_threads")),
        ({"embedder": {"nBatch": 10**9}}, ("embedder", "n_batch")),
        ({"embedder": {"nCtx": 10**9}}, ("embedder", "n_ctx")),
        ({"embedder": {"nGpuLayers": 10**6}}, ("embedder", "n_gpu_layers")),
        ({"embedder": {"dimensions": 10**6}}, ("embedder", "dimensions")),
        ({"index": {"maxFileBytes": 10**12}}, ("index", "max_file_bytes")),
        ({"diagnostics": {"maxWarnings": 10**6}}, ("diagnostics", "max_warnings")),
        ({"embedder": {"queryPrefix": "x" * 10_000}}, ("embedder", "query_prefix")),
        ({"embedder": {"model": "m" * 100_000}}, ("embedder", "model")),
        ({"index": {"exclude": ["*.gen"] * 100_000}}, ("index", "exclude")),
    ],
)
def test_values_above_their_maximum_are_refused_everywhere(data: dict, kept: tuple[str, str]) -> None:
    settings, problems = parse_settings(data)  # no allow-list: the user's own settings are bounded too
    section, name = kept
    assert getattr(getattr(settings, section), name) == getattr(getattr(Settings(), section), name)
    assert len(problems) == 1 and ("at most" in problems[0] or "long, more than" in problems[0])
    assert len(problems[0]) < 300  # the refused value is quoted short, not in full


def test_maximums_themselves_are_accepted() -> None:
    settings, problems = parse_settings({"index": {"workers": config.MAX_WORKERS}, "embedder": {"nThreads": 1}})
    assert problems == [] and settings.index.workers == config.MAX_WORKERS


def test_a_repository_config_that_is_a_device_fifo_link_out_or_huge_is_not_read(tmp_path: Path) -> None:
    """F4 for settings: the file is read only when it is a regular file inside the workspace, under the cap."""
    outside = tmp_path / "outside.toml"
    outside.write_text("[diagnostics]\nmax_warnings = 9\n")
    cases = {
        "device": lambda p: os.symlink("/dev/zero", p),
        "fifo": os.mkfifo,
        "outside": lambda p: os.symlink(outside, p),
        "huge": lambda p: p.write_text("#" * (config.MAX_CONFIG_FILE_BYTES + 1)),
    }
    for name, make in cases.items():
        ws = tmp_path / name
        (ws / ".forewarn").mkdir(parents=True)
        make(ws / ".forewarn" / "config.toml")
        settings, problems = load_settings(ws)
        assert settings == Settings(), name
        assert len(problems) == 1 and "not read" in problems[0] and "ignoring this file" in problems[0], name
    linked = tmp_path / "linked"
    (linked / ".forewarn").mkdir(parents=True)
    (linked / "team.toml").write_text("[diagnostics]\nmax_warnings = 7\n")
    os.symlink("../team.toml", linked / ".forewarn" / "config.toml")  # a link inside the workspace is fine
    assert load_settings(linked)[0].diagnostics.max_warnings == 7


def test_a_forewarn_folder_linked_out_of_the_workspace_is_not_read(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "config.toml").write_text("[diagnostics]\nmax_warnings = 9\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    os.symlink(elsewhere, ws / ".forewarn")
    settings, problems = load_settings(ws)
    assert settings.diagnostics.max_warnings == Settings().diagnostics.max_warnings
    assert "leads out of the workspace" in problems[0]


def test_the_users_config_as_a_device_is_reported_not_read(forewarn_home: Path) -> None:
    os.symlink("/dev/zero", forewarn_home / "config.toml")
    settings, problems = load_settings(None)
    assert settings == Settings()
    assert len(problems) == 1 and "not a regular file" in problems[0]
