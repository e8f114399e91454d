"""Suggestions through the facade: idempotent adds, review (accept, edit, dismiss), ranking, search, export."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.memory.errors import InvalidMemoryError
from forewarn.memory.suggestions import Suggestion
from forewarn.memory.text import from_iso
from forewarn.memory.vocabulary import MemorySource, MemoryStatus, MemoryType
from forewarn.workspace.engine import Workspace

NOW = from_iso("2024-06-01T00:00:00Z")


def commit(sha: str, date: str = "2024-03-02T10:00:00Z", subject: str = "Fix fetch timeout") -> dict[str, str]:
    return {"sha": sha, "author": "Ann", "date": date, "subject": subject}


def suggestion(
    fp: str,
    text: str = "fetch hangs without a timeout",
    *,
    file: str | None = "net/http.py",
    symbol: str | None = "fetch",
    commits: int = 1,
    date: str = "2024-03-02T10:00:00Z",
) -> Suggestion:
    return Suggestion(
        fingerprint=fp, type=MemoryType.GOTCHA, text=text, source=MemorySource.COMMIT, created_at=date, file=file,
        symbol=symbol, provenance={"commits": [commit(f"{i:07x}abc", date) for i in range(commits)]},
    )  # fmt: skip


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "ws"
    (root / "net").mkdir(parents=True)
    (root / "net/http.py").write_text(
        "def fetch(url, timeout=5):\n    return url\n\n\ndef post(url, body):\n    return body\n", encoding="utf-8"
    )
    eng = Workspace.open(root, embedder=None)
    eng.clock = lambda: NOW
    eng.reindex()
    yield eng
    eng.close()


def test_adding_the_same_fingerprints_twice_stores_them_once(ws: Workspace) -> None:
    items = [suggestion("fix:a"), suggestion("fix:b", "post drops the body"), suggestion("fix:a")]
    first = ws.add_suggestions(items)
    assert first.to_dict() == {"added": 2, "known": 0, "dismissed_before": 0, "invalid": 0}
    again = ws.add_suggestions(items)
    assert (again.added, again.known) == (0, 2)
    assert len(ws.suggestions()) == 2
    m = ws.suggestions()[0]
    assert m.status == MemoryStatus.SUGGESTED and m.source == "commit" and m.created_at.startswith("2024-03-02")
    assert m.provenance is not None and m.provenance["anchor"] == "symbol"


def test_anchor_falls_back_to_file_then_workspace_and_says_so(ws: Workspace) -> None:
    ws.add_suggestions([
        suggestion("s", symbol="fetch"), suggestion("f", symbol="gone"), suggestion("w", file="deleted.py"),
    ])  # fmt: skip
    by_fp = {m.provenance["anchor"]: m for m in ws.suggestions() if m.provenance}
    assert by_fp["symbol"].anchor is not None and by_fp["symbol"].anchor.symbol == "fetch"
    assert by_fp["file"].anchor is not None and by_fp["file"].anchor.symbol is None
    assert by_fp["workspace"].anchor is None


def test_text_is_redacted_and_invalid_items_are_counted_not_stored(ws: Workspace) -> None:
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    report = ws.add_suggestions([suggestion("r", f"rotated key {key} after leak"), suggestion("e", "   ")])
    assert (report.added, report.invalid) == (1, 1)
    (m,) = ws.suggestions()
    assert key not in m.text


def test_a_dismissed_fingerprint_never_comes_back_and_accepted_ones_stay_accepted(ws: Workspace) -> None:
    ws.add_suggestions([suggestion("fix:a"), suggestion("fix:b", "post drops the body")])
    a, b = sorted(ws.suggestions(), key=lambda m: m.text)
    dismissed = ws.dismiss_suggestion(b.id)
    assert dismissed.status == MemoryStatus.DISMISSED
    accepted = ws.accept_suggestion(a.id, text="fetch needs a timeout: the default hangs forever")
    assert accepted.status == MemoryStatus.ACTIVE and accepted.source == "commit"
    assert accepted.text.startswith("fetch needs a timeout") and accepted.provenance == a.provenance
    kinds = [e.kind for e in ws.history(a.id).events[a.id]]
    assert kinds == ["suggested", "accepted"]
    report = ws.add_suggestions([suggestion("fix:a"), suggestion("fix:b", "post drops the body")])
    assert (report.added, report.known, report.dismissed_before) == (0, 1, 1)
    assert ws.suggestions() == []
    with pytest.raises(InvalidMemoryError):
        ws.accept_suggestion(b.id)  # dismissed is final for review; it stays as history
    with pytest.raises(InvalidMemoryError):
        ws.dismiss_suggestion(a.id)  # accepted: forget it instead


def test_ranking_prefers_repetition_recency_and_a_precise_anchor(ws: Workspace) -> None:
    ws.add_suggestions([
        suggestion("once", "once at symbol", commits=1),
        suggestion("often", "often at symbol", commits=6),
        suggestion("old", "old at symbol", date="2019-01-01T00:00:00Z"),
        suggestion("file", "once at file", symbol=None),
        suggestion("wide", "once workspace-wide", file=None, symbol=None),
    ])  # fmt: skip
    order = [m.text for m in ws.suggestions()]
    assert order == ["often at symbol", "once at symbol", "once at file", "old at symbol", "once workspace-wide"]
    assert [m.text for m in ws.suggestions("net/http.py", limit=2)] == ["often at symbol", "once at symbol"]


def test_search_and_export_leave_suggestions_out_unless_asked(ws: Workspace, tmp_path: Path) -> None:
    ws.add_suggestions([suggestion("fix:a", "zebracorn timeout trap"), suggestion("fix:b", "zebracorn body trap")])
    kept = ws.remember("zebracorn cache is per process", file="net/http.py")
    assert [h.memory.id for h in ws.search("zebracorn").memories] == [kept.memory.id]
    both = ws.search("zebracorn", include_suggestions=True).memories
    assert len(both) == 3
    a, b = ws.suggestions()
    ws.accept_suggestion(a.id)
    ws.dismiss_suggestion(b.id)
    out = tmp_path / "export.jsonl"
    ws.export(out)
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()[1:]]
    assert sorted(x["id"] for x in lines) == sorted([kept.memory.id, a.id])
    accepted = next(x for x in lines if x["id"] == a.id)
    assert accepted["provenance"]["commits"][0]["author"] == "Ann"
    assert "provenance" not in next(x for x in lines if x["id"] == kept.memory.id)
    stats = ws.stats().to_dict()
    assert stats["by_status"].get("dismissed") == 1


def test_mining_state_round_trips(ws: Workspace) -> None:
    assert ws.mining_state("last_mined_commit") is None
    ws.set_mining_state("last_mined_commit", "abc")
    assert ws.mining_state("last_mined_commit") == "abc"
