"""QA pass 9a, F8 and F10: `memory review` lists the suggestions worth a look first (so "N worth a look" are the
first N, whatever their age), draws a line under them and marks each in --json; a read that finds a workspace
holding no memories says which workspace it used."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

from forewarn.memory.records import Anchor, Memory
from forewarn.memory.suggestions import Suggestion, rank_suggestions, suggestion_score, worth_a_look
from forewarn.memory.text import to_iso
from forewarn.memory.vocabulary import MemorySource, MemoryType
from forewarn.workspace.engine import Workspace
from tests.cli.conftest import Forewarn, git

OLD = "2014-01-01T00:00:00Z"  # an explained fix this old scores below a fresh "must" comment, yet is worth a look


def _commit(sha: str, date: str) -> dict[str, Any]:
    return {"sha": sha, "author": "Ann", "date": date, "subject": "Fix hang"}


def _seed(root: Path) -> dict[str, str]:
    """Four suggestions on ``fetch``: two worth a look (one new, one old) and two not (a fresh "must" comment and
    a fresh fix that says no why); the fingerprint → text of each."""
    (root / "net").mkdir(parents=True)
    (root / "net/http.py").write_text("def fetch(url, timeout=5):\n    return url\n", encoding="utf-8")
    now = to_iso(time.time() - 86_400)
    items = [
        Suggestion("fix:new", MemoryType.GOTCHA, "fetch hangs without a timeout: new", MemorySource.COMMIT, now,
                   "net/http.py", "fetch", {"commits": [_commit("aaa1111ffff", now)], "kind": "fix", "why": True}),
        Suggestion("fix:old", MemoryType.GOTCHA, "fetch hangs without a timeout: old", MemorySource.COMMIT, OLD,
                   "net/http.py", "fetch", {"commits": [_commit("bbb2222ffff", OLD)], "kind": "fix", "why": True}),
        Suggestion("comment:must", MemoryType.GOTCHA, "fetch must be given a timeout", MemorySource.COMMENT, now,
                   "net/http.py", "fetch", {"kind": "must"}),
        Suggestion("fix:unexplained", MemoryType.GOTCHA, "fetch: raise the timeout", MemorySource.COMMIT, now,
                   "net/http.py", "fetch", {"commits": [_commit("ccc3333ffff", now)], "kind": "fix", "why": False}),
    ]  # fmt: skip
    with Workspace.open(root, embedder=None) as ws:
        ws.reindex()
        ws.add_suggestions(items)
    return {s.fingerprint: s.text for s in items}


def test_the_suggestions_worth_a_look_lead_the_queue_whatever_their_age(forewarn: Forewarn, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    texts = _seed(root)
    w = ("-w", str(root))
    answer = json.loads(forewarn("memory", "review", "--json", *w).stdout)
    queue = answer["suggestions"]
    assert [m["text"] for m in queue] == [texts["fix:new"], texts["fix:old"], texts["comment:must"],
                                          texts["fix:unexplained"]]  # fmt: skip
    assert [m["worth_a_look"] for m in queue] == [True, True, False, False] and answer["worth_a_look"] == 2
    assert queue[1]["value"] < queue[2]["value"]  # the old lesson scores less, and still leads the comment
    assert all("value" in m and "proposal" in m for m in queue)  # the fields it had stay

    listed = forewarn("memory", "review", *w)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    line = lines.index("  — the rest: 2, less likely worth a look —")
    above, below = "\n".join(lines[:line]), "\n".join(lines[line:])
    assert texts["fix:old"] in above and texts["comment:must"] in below and texts["fix:unexplained"] in below
    assert "4 suggestion(s), best first; 2 worth a look (" in listed.stdout
    assert "They lead the list, above the line." in listed.stdout

    # --limit inside the part worth a look: no line to draw, and the footer does not point at one
    limited = forewarn("memory", "review", "--limit", "1", *w).stdout
    assert "the rest" not in limited and "They lead the list." in limited and "above the line" not in limited
    assert json.loads(forewarn("memory", "review", "--json", "--limit", "1", *w).stdout)["suggestions"][0][
        "worth_a_look"
    ]


def test_no_line_when_every_suggestion_or_none_is_worth_a_look(forewarn: Forewarn, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _seed(root)
    with Workspace.open(root, embedder=None) as ws:
        for m in ws.suggestions():
            if not worth_a_look(m):
                ws.dismiss_suggestion(m.id)
    listed = forewarn("memory", "review", "-w", str(root)).stdout
    assert "2 suggestion(s), best first; 2 worth a look" in listed
    assert "the rest" not in listed and "They lead" not in listed


def _memory(mid: str, created: str, provenance: dict[str, Any], source: str = "commit") -> Memory:
    return Memory(mid, "gotcha", f"lesson {mid}", Anchor("net.py", "fetch"), source, 0.8, created, created,
                  "suggested", provenance=provenance)  # fmt: skip


def test_rank_suggestions_puts_worth_a_look_first_and_a_proposal_never_counts() -> None:
    now = time.time()
    fresh = to_iso(now - 3_600)
    old = _memory("o", OLD, {"kind": "fix", "why": True})
    comment = _memory("c", fresh, {"kind": "must"}, source="comment")
    new = _memory("n", fresh, {"kind": "fix", "why": True})
    assert suggestion_score(old, now) < suggestion_score(comment, now)  # recency alone would put it last
    assert [m.id for m in rank_suggestions([comment, old, new], now)] == ["n", "o", "c"]
    commits = [{"sha": f"{n:040x}", "date": fresh, "subject": "Fix hang"} for n in range(1, 5)]
    says_more = {"kind": "fix", "why": True, "commits": commits, "proposal": {"action": "confirm", "target": "x"}}
    proposal = dataclasses.replace(new, id="p", provenance=says_more)
    assert suggestion_score(proposal, now) > suggestion_score(new, now)  # it says four commits stand behind it
    assert not worth_a_look(proposal) and [m.id for m in rank_suggestions([proposal, new], now)] == ["n", "p"]


def test_a_read_in_a_workspace_with_no_memories_says_which_workspace(forewarn: Forewarn, tmp_path: Path) -> None:
    """QA pass 9a, F10: run from a folder that is not the repository, review and show answered "nothing" with no
    word that the workspace they found is not the one holding the memories."""
    repo = tmp_path / "repo"
    _seed(repo)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    git(elsewhere, "init", "-q")  # found from the cwd: git's work tree
    found = "nothing was indexed or remembered there; for another, give -w DIR"
    review = forewarn("memory", "review", cwd=elsewhere)
    assert review.returncode == 0 and "No suggestions to review." in review.stdout
    assert f"no Forewarn workspace at {elsewhere.resolve()} (found from the current folder): {found}" in review.stderr
    assert json.loads(forewarn("memory", "review", "--json", cwd=elsewhere).stdout)["total"] == 0  # stdout: JSON
    some_id = json.loads(forewarn("memory", "review", "--json", "-w", str(repo)).stdout)["suggestions"][0]["id"]
    show = forewarn("memory", "show", some_id, cwd=elsewhere)
    assert show.returncode == 1 and "no memory with id" in show.stderr and found in show.stderr
    assert found in forewarn("memory", "list", cwd=elsewhere).stderr
    explicit = forewarn("memory", "show", some_id, "-w", str(elsewhere))
    assert "(-w): nothing was indexed or remembered there; is it the right folder?" in explicit.stderr
    # where memories are, a miss is only a miss; and the right workspace says nothing more
    assert "holds no memories" not in forewarn("memory", "show", "01XXXXXXXX", "-w", str(repo)).stderr
    assert "holds no memories" not in forewarn("memory", "review", "-w", str(repo)).stderr
