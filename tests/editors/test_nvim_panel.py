"""`:Forewarn panel` in a real headless Neovim (Debian's 0.7.2 and a current one) on the panel workspace
(tests/panel_workspace.py): its three sections, an accept from Review by key that moves the suggestion into This
file as a warning, This file following BufEnter, and a change made by another process reaching the panel through
the server's $/forewarn/memoriesChanged. Then the current Neovim's screen, captured in tmux, as a PNG.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import panel_workspace as pw
from tests.editors.conftest import EDITOR_WAIT_S, REPO, TOOLS, publish_screenshot
from tests.editors.terminal import capture_to_html
from tests.editors.test_nvim import (
    ANSI,
    CHAR_W,
    CHROMIUM,
    LINE_H,
    MINIMAL_INIT,
    NEOVIMS,
    PAD,
    SETUP_HINT,
    nvim_or_skip,
    run_nvim,
    tmux_screen,
)

pytestmark = pytest.mark.editor

HERE = Path(__file__).parent
CHECK_PANEL = HERE / "nvim" / "check_panel.lua"
SCREEN_PANEL = HERE / "nvim" / "screen_panel.lua"
COLUMNS, ROWS = 150, 44  # the file and the 64-column panel beside it


def panel_workspace(tmp_path: Path) -> pw.PanelWorkspace:
    built = pw.build(tmp_path / "shop")
    # the panel reads what is built: no mining behind it, no model to wait for
    (built.root / ".forewarn" / "config.toml").write_text("[mining]\nenabled = false\n[embedder]\nenabled = false\n")
    return built


def section(lines: list[str], title: str) -> list[str]:
    """The lines of the panel section whose first line starts with ``title`` (up to the next blank line)."""
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


@pytest.mark.parametrize(("nvim", "version_prefix"), NEOVIMS)
def test_panel_sections_accept_bufenter_and_changes_elsewhere(
    nvim: Path, version_prefix: str, tmp_path: Path, artifacts: Path
) -> None:
    version = nvim_or_skip(nvim, version_prefix)
    built = panel_workspace(tmp_path)
    result_path = tmp_path / "panel.json"
    config = {
        "root": str(built.root), "file": pw.FILE, "other_file": "checkout.py", "accept": pw.MINED_SUBJECT,
        "outdated_id": built.ids["IMPORTED_2"], "outdated_text": pw.IMPORTED[2][2],
        "timeout_ms": EDITOR_WAIT_S * 1000, "result": str(result_path),
    }  # fmt: skip
    config_path = tmp_path / "panel-config.json"
    config_path.write_text(json.dumps(config))
    done = run_nvim(nvim, built.root, f"luafile {CHECK_PANEL}", env={"FOREWARN_TEST_CONFIG": str(config_path)})
    assert result_path.exists(), f"Neovim {version} wrote no result (exit {done.returncode}):\n{done.stderr}"
    result = json.loads(result_path.read_text())
    shutil.copy(result_path, artifacts / f"nvim-{version}-panel.json")
    assert result["ok"], f"Neovim {version}: {result['error']}\nsteps: {result['steps']}\nstderr: {done.stderr}"
    assert result["file_window"], "the panel opens beside the file; the cursor stays in the file"

    first = result["snapshots"]["open the file and :Forewarn panel"]
    assert first[0].startswith("Forewarn  <CR> open  a accept  e edit+accept  d dismiss  g commit  c confirm")
    this_file = section(first, "This file:")
    assert this_file[0] == (
        f"This file: {pw.FILE} — 8 memories: 2 contested · 2 current · 1 stale · 1 orphaned (code gone) · 2 suggested"
    )
    groups = [line.strip() for line in this_file if line.startswith("  ") and not line.startswith("    ")]
    assert groups == [
        "(whole file)  1 current",
        "charge_card  1 current · 1 stale · 1 suggested",
        "_gateway_charge  2 contested · 1 suggested",
        "legacy_refund  1 orphaned (code gone)",
    ]
    charge = this_file[this_file.index("  charge_card  1 current · 1 stale · 1 suggested") + 1 :][:3]
    assert [line[4:6] for line in charge] == ["! ", "~ ", "? "], charge
    assert charge[2].startswith(f"    ? gotcha (suggested): {pw.MINED_SUBJECT}")
    assert f"suggested from commit {built.commit[:7]} by Ann" in charge[2]
    review = section(first, "Review:")
    assert review[0] == "Review: 3 suggestions to review, best first"
    assert {line.strip() for line in review if not line.startswith("    ")} - {review[0]} == {
        "payments.py  2 suggestions", "checkout.py  1 suggestion",
    }  # fmt: skip
    health = section(first, "Health:")
    assert health[0].startswith("Health: 18 memories · 1 stale · 3 suggestions waiting")
    typed = next(line for line in health if line.strip().startswith("typed here"))
    assert "█" in typed and typed.endswith("now 7"), typed
    assert any(line.strip().startswith("1. money.py") and line.endswith("none") for line in health), health

    accepted = result["snapshots"]["a in Review accepts; the memory is current in This file, a warning"]
    assert section(accepted, "Review:")[0] == "Review: 2 suggestions to review, best first"
    assert any(line.startswith(f"    ! gotcha: {pw.MINED_SUBJECT}") for line in section(accepted, "This file:"))
    assert "charge_card  2 current · 1 stale" in "\n".join(accepted)

    followed = result["snapshots"]["BufEnter: This file follows the buffer"]
    assert section(followed, "This file:")[0] == "This file: checkout.py — 5 memories: 4 current · 1 suggested"
    changed = result["snapshots"]["another process marks a memory outdated: the server says so, the panel asks again"]
    assert any(line.startswith(f"    ~ decision (stale): {pw.IMPORTED[2][2]}") for line in changed)
    print(f"Neovim {version}: steps {result['steps']}")


def test_panel_on_a_real_terminal_screen(tmp_path: Path, artifacts: Path) -> None:
    """The current Neovim in a tmux pane with the panel open beside the file; saved as a PNG."""
    nvim = TOOLS / "nvim-venv" / "bin" / "nvim"
    nvim_or_skip(nvim, "0.1")
    if not shutil.which("tmux"):
        pytest.skip("tmux is not installed (Debian package tmux)")
    if not CHROMIUM.exists():
        pytest.skip(f"Debian's chromium is not installed: {SETUP_HINT}")
    built = panel_workspace(tmp_path)
    socket_name, channel = f"forewarn-panel-{os.getpid()}", "forewarn-panel-done"
    config = {"root": str(built.root), "file": pw.FILE, "timeout_ms": EDITOR_WAIT_S * 1000,
              "tmux_socket": socket_name, "channel": channel}  # fmt: skip
    config_path = tmp_path / "screen.json"
    config_path.write_text(json.dumps(config))
    env = {"FOREWARN_REPO": str(REPO), "FOREWARN_PYTHON": sys.executable, "FOREWARN_TEST_CONFIG": str(config_path)}
    editor = ["env", *[f"{k}={v}" for k, v in env.items()], str(nvim), "--clean", "-u", str(MINIMAL_INIT), "-c",
              f"luafile {SCREEN_PANEL}"]  # fmt: skip
    # screen_panel.lua signals this channel once the panel is open; re-capture until its Health is on the screen
    capture_text = tmux_screen(editor, built.root, (COLUMNS, ROWS), socket_name, channel, until="current by source")
    plain = ANSI.sub("", capture_text)
    (artifacts / "nvim-panel-screen.txt").write_text(plain)
    assert f"This file: {pw.FILE}" in plain and "Review: 3 suggestions" in plain, plain
    assert "current by source" in plain, plain
    page = tmp_path / "screen.html"
    page.write_text(capture_to_html(capture_text, "Forewarn panel in Neovim"))
    png = artifacts / "nvim-panel.png"
    width, height = math.ceil(COLUMNS * CHAR_W) + 2 * PAD, math.ceil(ROWS * LINE_H) + 2 * PAD
    shot = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync", "--hide-scrollbars",
         f"--user-data-dir={tmp_path / 'chromium'}", f"--window-size={width},{height}", f"--screenshot={png}",
         page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert shot.returncode == 0 and png.exists(), shot.stderr
    publish_screenshot(png, "nvim-panel.png")
