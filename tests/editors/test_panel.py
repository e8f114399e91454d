"""The Forewarn panel in a real VS Code (code-server in headless Chromium, the packaged extension, the real server)
on a workspace with memories of every source and status and suggestions waiting (tests/panel_workspace.py).

This File groups the file's memories by symbol with the right counts; Review lists the queue in `forewarn memory
review`'s order, by file, with its count on a badge; accepting there turns the suggestion into a warning in This
File; Health draws the same numbers `forewarn stats --json` prints, as SVG series, from a webview that loads nothing
remote and runs no script without its nonce. Screenshots of each view land in tests/editors/artifacts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests import panel_workspace as pw
from tests.editors import test_vscode
from tests.editors.conftest import publish_screenshot, run_forewarn

pytestmark = pytest.mark.editor

code_server = test_vscode.code_server  # the same real code-server, with the packaged extension installed
# the panel reads what is built; the server must not mine the history behind it or wait for a model
WORKSPACE_SETTINGS = {"forewarn.mining.enabled": False, "forewarn.embedder.enabled": False}


def queue_order(root: Path) -> list[str]:
    """The review queue as ``forewarn memory review --json`` orders it: the order Review must keep."""
    listed = run_forewarn("memory", "review", "--workspace", str(root), "--json")
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    items = data["suggestions"] if isinstance(data, dict) else data
    return [item["text"].splitlines()[0] for item in items]


def by_level(rows: list[dict[str, Any]], level: int) -> list[dict[str, Any]]:
    return [row for row in rows if row["level"] == level]


def children(rows: list[dict[str, Any]], parent: str) -> list[dict[str, Any]]:
    """The rows under the level-1 row labelled ``parent`` (rows come in tree order)."""
    start = next(i for i, row in enumerate(rows) if row["level"] == 1 and row["label"] == parent)
    out = []
    for row in rows[start + 1 :]:
        if row["level"] == 1:
            break
        out.append(row)
    return out


def test_panel_this_file_review_and_health(code_server: Callable[[], str], tmp_path: Path, artifacts: Path) -> None:
    built = pw.build(tmp_path / "shop")
    (built.root / ".vscode").mkdir()
    (built.root / ".vscode" / "settings.json").write_text(json.dumps(WORKSPACE_SETTINGS))
    queue = queue_order(built.root)
    accept = pw.MINED_SUBJECT
    url = code_server()
    result = test_vscode.drive(
        url, built.root, tmp_path, artifacts, mode="panel", file=pw.FILE, line=9, column=5,
        expect=accept, accept=accept, comment=pw.COMMENT[:40],
    )  # fmt: skip
    panel = result["panel"]

    # This File: the file's symbols, the whole file first, each with its counts in words
    this_file = panel["thisFile"]
    assert this_file["description"] == pw.FILE
    assert (
        this_file["message"] == "8 memories: 2 contested · 2 current · 1 stale · 1 orphaned (code gone) · 2 suggested"
    )
    groups = [(row["label"], row["description"]) for row in by_level(this_file["rows"], 1)]
    assert groups == [
        ("(whole file)", "1 current"),
        ("charge_card", "1 current · 1 stale · 1 suggested"),
        ("_gateway_charge", "2 contested · 1 suggested"),
        ("legacy_refund", "1 orphaned (code gone)"),
    ]
    charge = children(this_file["rows"], "charge_card")
    assert [row["icon"] for row in charge] == ["warning", "history", "lightbulb"]
    assert charge[0]["label"] == pw.GOTCHA[:89] + "…" or charge[0]["label"] == pw.GOTCHA
    assert charge[2]["ariaLabel"].startswith(f"gotcha · suggested · suggested from commit {built.commit[:7]} by Ann")
    assert charge[1]["description"].startswith("decision · stale · recorded here")  # the origin phrase trust settled on
    gateway = children(this_file["rows"], "_gateway_charge")
    assert [row["icon"] for row in gateway] == ["warning", "warning", "lightbulb"]
    assert all("contested" in row["description"] for row in gateway[:2])
    assert [row["icon"] for row in children(this_file["rows"], "legacy_refund")] == ["debug-disconnect"]

    # Review: the queue by file, in the CLI's order, its count on the badge
    review = panel["review"]
    assert review["badge"] == "3" and review["message"] == "3 suggestions to review, best first."
    files = by_level(review["rows"], 1)
    assert grouped_in_order(queue, files, review["rows"]), (queue, review["rows"])
    assert {row["label"]: row["description"] for row in files} == {
        "payments.py": "2 suggestions",
        "checkout.py": "1 suggestion",
    }
    commit, comment = (panel[key].replace("\xa0", " ") for key in ("commit", "comment"))  # the editor's spaces
    assert commit.startswith(f"{built.commit[:7]} Ann 2024-01-02 {pw.MINED_SUBJECT}") and "diff --git" in commit
    assert comment.startswith("warning comment (HACK) at payments.py:19"), comment

    # accepted in Review: a current gotcha in This File, shown as a warning; the badge counts one less
    accepted = panel["accepted"]
    charge = children(accepted["thisFile"], "charge_card")
    row = next(r for r in charge if r["label"].startswith(accept))
    assert row["icon"] == "warning" and row["ariaLabel"].startswith("gotcha · learned from commit"), row
    assert by_level(accepted["thisFile"], 1)[1]["description"] == "2 current · 1 stale"
    assert accepted["badge"] == "2" and not any(r["label"].startswith(accept) for r in accepted["reviewRows"])

    # Health: the SVG's series are `forewarn stats --json`'s numbers
    stats = run_forewarn("stats", "--json", "--workspace", str(built.root))
    assert stats.returncode == 0, stats.stderr
    t = json.loads(stats.stdout)["trajectory"]
    series = panel["health"]["series"]
    assert series["by_source"] == {k: ",".join(map(str, v)) for k, v in t["by_source"].items()}
    drawn = ("contested", "active", "stale", "orphaned", "suggested")
    assert series["by_status"] == {k: ",".join(map(str, t["by_status"][k])) for k in drawn}
    assert {k: v for k, v in series["events"].items() if k != "shown"} == {
        k: ",".join(map(str, v)) for k, v in t["events"].items() if k != "shown"
    }  # what was shown goes on growing while the editor is open
    assert series["by_source"]["typed"].split(",")[-1] == "7" and series["by_source"]["mined"].split(",")[-1] == "2"
    files_chart = panel["health"]["bars"]["important_files"]
    assert list(files_chart) == ["money.py", "payments.py", "ledger.py", "checkout.py"]  # PageRank order
    text = panel["health"]["text"]
    assert "Memories over time, by source" in text and "Nobody wrote anything about: money.py" in text
    assert_webview_is_sealed(panel["health"]["webview"], panel["requests"], url)
    shots = {Path(png).name: Path(png) for png in panel["screenshots"]}
    assert set(shots) == {"vscode-panel-this-file.png", "vscode-panel-review.png", "vscode-panel-health.png",
                          "vscode-health.png", "vscode-health-lists.png"}  # fmt: skip
    for name in sorted(shots.keys() - {"vscode-health-lists.png"}):  # the README's pictures of each view
        publish_screenshot(shots[name], name)


def grouped_in_order(queue: list[str], files: list[dict[str, Any]], rows: list[dict[str, Any]]) -> bool:
    """Review's rows are the queue grouped by file: files in the order of their best suggestion, each file's
    suggestions in queue order."""
    position = {text[:40]: i for i, text in enumerate(queue)}
    order = [[position[r["label"][:40]] for r in children(rows, f["label"])] for f in files]
    return all(o == sorted(o) for o in order) and [o[0] for o in order] == sorted(o[0] for o in order)


def assert_webview_is_sealed(check: dict[str, Any], requests: list[dict[str, Any]], url: str) -> None:
    """The Health webview: a CSP that allows no inline script or style and only the nonce's script; every script of
    the page carries that nonce and is the extension's file; no handler attributes or style attributes; and every
    request stayed on this machine: code-server's own URL, or a webview resource VS Code's service worker answered
    from the extension's folder (its URLs name a CDN host, but never leave the browser)."""
    csp = check["csp"]
    assert "default-src 'none'" in csp and "unsafe" not in csp and "http:" not in csp, csp
    nonce = re.search(r"script-src 'nonce-([^']+)'", csp)
    assert nonce, csp
    ours = [s for s in check["scripts"] if not s["beforeCsp"]]
    assert ours and all(s["nonce"] == nonce[1] and not s["inline"] for s in ours), check["scripts"]
    assert all(s["src"].endswith("/media/panel/health.js") for s in ours), ours
    # what the webview host put ahead of the page's CSP is VS Code's own acquireVsCodeApi shim, nothing of ours
    host = [s for s in check["scripts"] if s["beforeCsp"]]
    assert all("acquireVsCodeApi" in s["head"] or "vscode" in s["head"].lower() for s in host), host
    assert check["handlers"] == [] and check["styled"] == 0, check
    remote = [r["url"] for r in requests if not r["url"].startswith((url, "data:", "blob:")) and not r["serviceWorker"]]
    assert remote == [], f"requests off the machine: {remote[:10]}"
    assert not [r for r in requests if r["failed"] and not r["url"].startswith(url)], requests
    from_worker = [r["url"] for r in requests if r["serviceWorker"] and not r["url"].startswith(url)]
    assert from_worker and all("/media/panel/" in u for u in from_worker), from_worker
    for resource in check["resources"]:
        assert "/media/panel/" in resource, resource
