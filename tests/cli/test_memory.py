"""The memory commands through the real ``forewarn`` entry point: output, JSON shapes, errors, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from forewarn.cli.main import main


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src/queue.py").write_text(
        "class JobQueue:\n    def push(self, job):\n        return job\n\n    def drain(self):\n        return []\n",
        encoding="utf-8",
    )
    (root / "src/worker.py").write_text(
        "from src.queue import JobQueue\n\n\ndef work():\n    return JobQueue().drain()\n", encoding="utf-8"
    )
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_remember_search_show_history_and_lifecycle(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = ("-w", str(ws))
    made = run_json(
        capsys, "remember", "drain drops jobs pushed during shutdown", "--type", "gotcha", "--file", "src/queue.py",
        "--line", "5", "--tag", "shutdown", *w,
    )  # fmt: skip
    mid = made["id"]
    assert made["memory"]["anchor"]["symbol"] == "JobQueue.drain"
    assert made["memory"]["tags"] == ["shutdown"] and made["merged"] is False
    found = run_json(capsys, "search", "drain loses jobs at shutdown", "-k", "3", *w)
    assert [m["id"] for m in found["memories"]] == [mid]
    assert found["mode"] in ("hybrid", "lexical")
    assert found["chunks"] and all({"file", "symbol", "start_line"} <= set(c) for c in found["chunks"])
    code, out, _ = run(capsys, "memory", "show", mid[:10], *w)
    assert code == 0 and "JobQueue.drain" in out and "drain drops jobs" in out
    new = run_json(capsys, "memory", "supersede", mid, "drain drops jobs pushed after stop() is called", *w)
    assert new["superseded"] == mid
    history = run_json(capsys, "memory", "history", mid, *w)
    assert [h["id"] for h in history] == [mid, new["id"]]
    assert [h["status"] for h in history] == ["superseded", "active"]
    assert run_json(capsys, "memory", "forget", new["id"], *w) == {"id": new["id"], "status": "archived"}
    assert run_json(capsys, "memory", "list", *w) == []
    assert len(run_json(capsys, "memory", "list", "--all", *w)) == 2
    assert run_json(capsys, "memory", "restore", new["id"], *w)["status"] == "active"
    assert run_json(capsys, "memory", "outdated", new["id"], *w)["status"] == "stale"
    assert run_json(capsys, "memory", "confirm", new["id"], *w)["status"] == "active"
    stats = run_json(capsys, "stats", *w)
    assert stats["by_status"] == {"active": 1, "superseded": 1}
    assert stats["important_without_memories"][0]["file"] == "src/worker.py"
    code, out, _ = run(capsys, "search", "jobs", "--as-of", "2000-01-01", *w)
    assert code == 0 and "No memory matches" in out


def test_export_import_between_workspaces(ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_json(capsys, "remember", "workers must be idempotent", "--type", "convention", "-w", str(ws))
    exported = run_json(capsys, "memory", "export", "-w", str(ws))
    assert exported["exported"] == 1 and Path(exported["path"]) == ws / ".forewarn" / "memories.jsonl"
    other = tmp_path / "other"
    other.mkdir()
    imported = run_json(capsys, "memory", "import", exported["path"], "-w", str(other))
    assert imported["added"] == 1 and imported["waiting"] == 1  # another person's words wait for this one's review
    code, out, _ = run(capsys, "memory", "list", "-w", str(other))
    assert code == 0 and "workers must be idempotent" not in out
    code, out, _ = run(capsys, "memory", "review", "-w", str(other))
    assert code == 0 and "workers must be idempotent" in out and "imported from" in out
    again = run_json(capsys, "memory", "import", exported["path"], "--accept", "-w", str(other))
    assert again["updated"] == 1 and again["waiting"] == 0  # --accept: taken as it is
    code, out, _ = run(capsys, "memory", "list", "-w", str(other))
    assert code == 0 and "workers must be idempotent" in out


def test_errors_are_one_line_with_exit_code_1(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = ("-w", str(ws))
    assert run(capsys, "index", "--no-embed", *w)[0] == 0  # a workspace: a read in a folder never indexed says so
    cases = [
        (("memory", "show", "0123456789ABCDEFGHJKMNPQRS"), "no memory with id"),
        (("memory", "show", "?!"), "not a memory id"),
        (("remember", "x", "--file", "src/nope.py"), "not a file in the workspace"),
        (("remember", "x", "--file", "src/queue.py", "--symbol", "Nope"), "no symbol 'Nope'"),
        (("remember", "   "), "memory text is empty"),
        (("memory", "import", str(ws / "missing.jsonl")), "does not exist"),
    ]
    for argv, message in cases:
        code, out, err = run(capsys, *argv, *w)
        assert code == 1, argv
        assert message in err and err.startswith("forewarn: ") and "Traceback" not in err, (argv, err)
        assert out == ""
    code, _, err = run(capsys, "search", "x", "-w", str(ws / "absent"))
    assert code == 1 and "does not exist" in err
    for argv, message in (  # the command line itself is wrong: a usage error (D18)
        (("remember", "x", "--line", "3"), "need --file"),
        (("search", "x", "--as-of", "last tuesday"), "not an ISO-8601"),
    ):
        code, out, err = run(capsys, *argv, *w)
        assert (code, out) == (2, "") and message in err and err.startswith("forewarn: "), (argv, err)


def test_redaction_is_reported(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "remember", "rotated ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 today", "-w", str(ws))
    assert code == 0 and "Redacted before storage: github-token" in out
    listed = run_json(capsys, "memory", "list", "-w", str(ws))
    assert listed[0]["text"] == "rotated [REDACTED:github-token] today"


def require_model() -> None:
    from forewarn import paths
    from forewarn.memory import model_install

    if model_install.installed_manifest(verify=False) is None:
        pytest.fail(f"the embedding model is not installed in {paths.models_dir()}: run `make model`")


def test_stats_reports_the_mode_search_uses(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    require_model()
    w = ("-w", str(ws))
    run_json(capsys, "remember", "drain drops jobs pushed during shutdown", *w)
    run_json(capsys, "remember", "workers must be idempotent", "--type", "convention", *w)
    searched = run_json(capsys, "search", "jobs lost at shutdown", *w)
    stats = run_json(capsys, "stats", *w)
    assert searched["mode"] == "hybrid", searched["reason"]
    assert (stats["mode"], stats["reason"], stats["vectors"]) == ("hybrid", None, 2)


def test_stats_says_lexical_and_why_when_search_is(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (ws / ".forewarn").mkdir()
    (ws / ".forewarn" / "config.toml").write_text("[embedder]\nenabled = false\n", encoding="utf-8")
    w = ("-w", str(ws))
    run_json(capsys, "remember", "drain drops jobs pushed during shutdown", *w)
    searched = run_json(capsys, "search", "jobs lost at shutdown", *w)
    stats = run_json(capsys, "stats", *w)
    assert searched["mode"] == stats["mode"] == "lexical" and stats["vectors"] == 0
    assert "embedder.enabled = false" in stats["reason"]


def test_forget_says_how_to_restore(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = ("--workspace", str(ws))
    made = run_json(capsys, "remember", "drain() empties the queue without acking", "--file", "src/queue.py", *w)
    code, out, _ = run(capsys, "memory", "forget", made["id"], *w)
    assert code == 0 and f"restore it with: forewarn memory restore {made['id']}" in out
    code, out, _ = run(capsys, "memory", "restore", made["id"], *w)
    assert code == 0 and "is now active" in out and "restore it with" not in out
