"""`forewarn memory review`: list, accept (edited), dismiss, --accept-all, through the real command."""

from __future__ import annotations

import json
from pathlib import Path

from forewarn.memory.origin import AGENT_NAME_MAX_CHARS, agent_name
from forewarn.memory.suggestions import Suggestion, provenance_line
from forewarn.memory.vocabulary import MemorySource, MemoryStatus, MemoryType
from forewarn.workspace.engine import Workspace
from tests.cli.conftest import Forewarn


def _seed(root: Path) -> None:
    (root / "net").mkdir(parents=True)
    (root / "net/http.py").write_text("def fetch(url, timeout=5):\n    return url\n", encoding="utf-8")
    commits = [{"sha": "abc1234ffff", "author": "Ann", "date": "2024-03-02T10:00:00Z", "subject": "Fix hang"}]
    prov = {"commits": commits, "kind": "fix", "why": True}
    with Workspace.open(root, embedder=None) as ws:
        ws.reindex()
        ws.add_suggestions([
            Suggestion(f"fix:{i}", MemoryType.GOTCHA, f"fetch trap number {i}", MemorySource.COMMIT,
                       "2024-03-02T10:00:00Z", "net/http.py", "fetch", prov)
            for i in range(3)
        ])  # fmt: skip


def test_review_round_trip(forewarn: Forewarn, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _seed(root)
    w = ("-w", str(root))
    listed = forewarn("memory", "review", *w)
    assert listed.returncode == 0, listed.stderr
    assert (
        "from commit abc1234 by Ann on 2024-03-02: Fix hang" in listed.stdout and "net/http.py::fetch" in listed.stdout
    )
    assert "3 suggestion(s), best first; 3 worth a look" in listed.stdout
    assert "--accept-all" not in listed.stdout  # read them: accepting unread is not the path offered
    answer = json.loads(forewarn("memory", "review", "--json", *w).stdout)
    ids = [m["id"] for m in answer["suggestions"]]
    assert len(ids) == 3 and answer["worth_a_look"] == 3 and all(m["value"] > 0 for m in answer["suggestions"])
    done = forewarn("memory", "review", "accept", ids[0], "--text", "fetch needs an explicit timeout", *w)
    assert done.returncode == 0, done.stderr
    assert forewarn("memory", "review", "dismiss", ids[1], *w).returncode == 0
    shown = forewarn("memory", "show", ids[0], *w).stdout
    assert "fetch needs an explicit timeout" in shown and "history:    from commit abc1234" in shown
    listed = forewarn("memory", "list", "--status", "suggested", "--json", *w)
    assert [m["id"] for m in json.loads(listed.stdout)] == [ids[2]]
    assert "fetch trap" not in forewarn("search", "fetch trap", "--lexical", *w).stdout
    assert "fetch trap number" in forewarn("search", "fetch trap", "--lexical", "--suggested", *w).stdout
    all_ = json.loads(forewarn("memory", "review", "--accept-all", "--file", "net", "--json", *w).stdout)
    assert all_["accepted"] == [ids[2]]
    assert "No suggestions" in forewarn("memory", "review", *w).stdout
    again = forewarn("memory", "review", "accept", ids[1], *w)
    assert again.returncode == 1 and "dismissed" in again.stderr


def test_review_names_the_agent_that_wrote_a_suggestion(forewarn: Forewarn, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _seed(root)
    agent = {"agent": {"name": "Claude Code", "version": "2.1.0"}}
    with Workspace.open(root, embedder=None) as ws:
        made = ws.remember(
            "fetch retries forever without a timeout", type=MemoryType.GOTCHA, file="net/http.py", symbol="fetch",
            source=MemorySource.AGENT, status=MemoryStatus.SUGGESTED, provenance=agent,
        ).memory  # fmt: skip
    w = ("-w", str(root))
    listed = forewarn("memory", "review", *w)
    assert listed.returncode == 0, listed.stderr
    said = "suggested by an agent that calls itself “Claude Code 2.1.0”"  # the client's claim, labelled as one
    assert "fetch retries forever" in listed.stdout and said in listed.stdout
    shown = forewarn("memory", "show", made.id, *w).stdout
    assert f"origin:     {said} (not vetted: waits for a person)" in shown


def test_an_agents_name_is_one_short_line_whatever_the_client_sent() -> None:
    assert provenance_line({"agent": {"name": "Claude Code", "version": "2.1.0"}}) == (
        "suggested by an agent that calls itself “Claude Code 2.1.0”"
    )
    assert agent_name({"agent": {"name": "codex\n\x1b[31mred", "version": None}}) == "codex [31mred"
    assert agent_name({"agent": {}}) == "unnamed"  # still an agent's, even without a name
    long = agent_name({"agent": {"name": "x" * 500}})
    assert long is not None and len(long) == AGENT_NAME_MAX_CHARS and long.endswith("…")
    assert agent_name({"commits": []}) is None and agent_name(None) is None
