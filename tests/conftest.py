"""Test-wide set-up: every test gets its own Forewarn data dir, but shares the installed models.

Models are large and installed once by ``make model`` into the real models dir; workspaces,
memories and caches are per test so tests never see each other's (or the user's) data.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn import paths

REAL_MODELS_DIR = paths.models_dir()


@pytest.fixture(autouse=True)
def forewarn_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("forewarn-home")
    monkeypatch.setenv(paths.HOME_ENV, str(home))
    monkeypatch.setenv(paths.MODELS_ENV, str(REAL_MODELS_DIR))
    yield home
