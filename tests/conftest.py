"""Test-wide set-up: every test gets its own Forewarn data dir, but shares the installed models.

Models are large and installed once by ``make model`` into the real models dir; workspaces,
memories and caches are per test so tests never see each other's (or the user's) data.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from forewarn import paths

REAL_MODELS_DIR = paths.models_dir()


@pytest.fixture(autouse=True)
def forewarn_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("forewarn-home")
    monkeypatch.setenv(paths.HOME_ENV, str(home))
    monkeypatch.setenv(paths.MODELS_ENV, str(REAL_MODELS_DIR))
    yield home


@pytest.fixture(scope="module")
def raw_embedder() -> Iterator[Any]:
    """The real embedding model, loaded once per module, for tests that hand it to several workspaces."""
    from forewarn.config import EmbedderSettings
    from forewarn.memory.embedder import EmbedderUnavailable, open_embedder

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(paths.MODELS_ENV, str(REAL_MODELS_DIR))
        try:
            emb = open_embedder(EmbedderSettings())
        except EmbedderUnavailable as exc:
            pytest.skip(f"the real embedding model is needed (`make model`): {exc.reason}")
    yield emb
    emb.close()


class Unclosed:
    """A shared embedder handed to a workspace: closing the workspace must not close the model the next test uses."""

    def __init__(self, emb: Any) -> None:
        self.emb = emb

    def __getattr__(self, name: str) -> Any:
        return getattr(self.emb, name)

    def close(self) -> None:
        pass
