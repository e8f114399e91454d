"""The shared foundation: settings parsing, data paths, SQLite opening and migrations."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from forewarn import paths
from forewarn.config import Settings, parse_settings
from forewarn.sqlite import Migration, SchemaTooNewError, connect, migrate


def test_settings_accept_camel_case_and_keep_defaults_on_bad_values() -> None:
    settings, problems = parse_settings(
        {"index": {"maxFileBytes": 5000, "workers": "many"}, "diagnostics": {"maxWarnings": 2}, "nope": 1}
    )
    assert settings.index.max_file_bytes == 5000
    assert settings.index.workers == Settings().index.workers
    assert settings.diagnostics.max_warnings == 2
    assert any("workers" in p for p in problems)
    assert any("unknown setting 'nope'" in p for p in problems)


def test_settings_below_their_minimum_are_refused_and_the_default_kept() -> None:
    base = Settings()
    settings, problems = parse_settings({"diagnostics": {"maxWarnings": -3}, "embedder": {"nGpuLayers": -1}})
    assert settings.diagnostics.max_warnings == base.diagnostics.max_warnings
    assert settings.embedder.n_gpu_layers == -1  # -1 is meaningful there: offload every layer
    assert problems == ["setting 'diagnostics.maxWarnings' = -3 must be at least 0; kept 3"]
    settings, problems = parse_settings({"diagnostics": {"maxWarnings": 0}, "index": {"maxFileBytes": 0}})
    assert settings.diagnostics.max_warnings == 0  # no warnings at all is a choice, not a mistake
    assert settings.index.max_file_bytes == base.index.max_file_bytes
    assert len(problems) == 1 and "maxFileBytes" in problems[0]


def test_settings_reject_non_object() -> None:
    settings, problems = parse_settings(["not", "a", "dict"])  # type: ignore[arg-type]
    assert settings == Settings()
    assert problems


def test_data_dir_is_private_and_overridable(forewarn_home: Path) -> None:
    assert paths.data_dir() == forewarn_home
    wdir = paths.workspace_dir(forewarn_home / "some workspace")
    assert wdir.parent.parent == forewarn_home
    assert stat.S_IMODE(os.stat(wdir).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(wdir.parent).st_mode) == 0o700  # "workspaces/" lists which projects exist
    assert stat.S_IMODE(os.stat(wdir / "workspace.json").st_mode) == 0o600


def test_files_written_through_a_writer_are_replaced_whole_and_private(tmp_path: Path) -> None:
    import numpy as np

    target = tmp_path / "keys.npz"
    target.write_bytes(b"the old keys")
    os.chmod(target, 0o644)
    paths.replace_private(target, lambda tmp: np.savez(tmp, ids=np.arange(3)))  # NumPy adds .npz to other names
    assert np.load(target)["ids"].tolist() == [0, 1, 2]
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600

    def fails(tmp: Path) -> None:
        tmp.write_bytes(b"half written")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        paths.replace_private(target, fails)
    assert np.load(target)["ids"].tolist() == [0, 1, 2]  # the old file stands
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keys.npz"]  # no temporary file left


def test_database_files_are_private_and_migrations_append_only(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    conn = connect(db)
    steps = [Migration("m001_create", "CREATE TABLE t (a INTEGER);"), Migration("m002_col", "ALTER TABLE t ADD b;")]
    assert migrate(conn, steps, what="test database") == ["m001_create", "m002_col"]
    assert migrate(conn, steps, what="test database") == []
    assert stat.S_IMODE(os.stat(db).st_mode) == 0o600
    conn.close()

    older_code = steps[:1]
    with pytest.raises(SchemaTooNewError, match="newer Forewarn"):
        migrate(connect(db), older_code, what="test database")
