"""An imported memory takes this workspace's lines for its definition when the code is the same bytes: the shared
file's line numbers were the teammate's (QA pass 4: a diagnostic one line above `fn drop` on a teammate's clone)."""

from __future__ import annotations

import json
from pathlib import Path

from forewarn.memory.vocabulary import MemoryStatus
from forewarn.workspace import reconcile
from forewarn.workspace.engine import Workspace
from tests.gitrepo import Repo

PAY = "import os\n\n\ndef charge(card, amount):\n    total = amount\n    return total\n"
SHIFTED = PAY.replace("import os\n", "import os\n# one more line above charge on this branch\n")


def _repo(root: Path, text: str) -> Repo:
    r = Repo(root)
    r.write("pay.py", text)
    r.commit("Add pay")
    return r


def test_an_imported_memory_on_the_same_code_takes_this_workspace_s_lines(tmp_path: Path) -> None:
    theirs, ours = _repo(tmp_path / "theirs", PAY), _repo(tmp_path / "ours", SHIFTED)
    shared = tmp_path / "team.jsonl"
    with Workspace.open(theirs.root, embedder=None) as ws:
        ws.reindex()
        written = ws.remember(
            "charge must never run twice for one order", type="gotcha", file="pay.py", symbol="charge"
        )
        assert written.memory.anchor is not None and written.memory.anchor.start_line == 4
        ws.export(shared)
    with Workspace.open(ours.root, embedder=None) as ws:
        ws.reindex()
        assert ws.import_(shared, embed=False).added == 1  # waiting for review: placed all the same
        [m] = ws.suggestions()
        assert m.anchor is not None and (m.anchor.symbol, m.anchor.start_line, m.anchor.end_line) == ("charge", 5, 7)


# QA pass 5, F4: the definition here with other bytes, a symbol not here, and a line whose hash is another function's
TWO = PAY + "\n\ndef refund(card, amount):\n    back = amount\n    return back\n"
EDITED_HERE = SHIFTED.replace("    total = amount\n", "    total = round(amount)\n") + (
    "\n\ndef refund(card, amount):\n    back = amount\n    return back\n"
)


def _exported(tmp_path: Path, symbol: str) -> tuple[Path, dict[str, object]]:
    """A shared file with one memory on ``symbol`` of TWO's pay.py, and that memory's line as a dict."""
    theirs = _repo(tmp_path / "theirs", TWO)
    shared = tmp_path / "team.jsonl"
    with Workspace.open(theirs.root, embedder=None) as ws:
        ws.reindex()
        ws.remember("charge must never run twice for one order", type="gotcha", file="pay.py", symbol=symbol)
        ws.export(shared)
    header, line = shared.read_text(encoding="utf-8").splitlines()
    assert json.loads(header)["format"]
    return shared, json.loads(line)


def _rewrite(shared: Path, record: dict[str, object]) -> None:
    header = shared.read_text(encoding="utf-8").splitlines()[0]
    shared.write_text(header + "\n" + json.dumps(record) + "\n", encoding="utf-8")


def test_an_imported_memory_on_code_that_differs_here_takes_this_workspace_s_lines_and_is_stale(
    tmp_path: Path,
) -> None:
    shared, _ = _exported(tmp_path, "charge")
    ours = _repo(tmp_path / "ours", EDITED_HERE)
    with Workspace.open(ours.root, embedder=None) as ws:
        ws.reindex()
        ws.import_(shared, embed=False, accept=True)
        [m] = ws.list_memories()
        assert m.anchor is not None and (m.anchor.symbol, m.anchor.start_line, m.anchor.end_line) == ("charge", 5, 7)
        assert m.status == MemoryStatus.STALE and m.status_reason == reconcile.STALE_REASON.format(symbol="charge")


def test_an_imported_suggestion_on_code_that_differs_here_says_so_on_this_workspace_s_lines(tmp_path: Path) -> None:
    shared, _ = _exported(tmp_path, "charge")
    ours = _repo(tmp_path / "ours", EDITED_HERE)
    with Workspace.open(ours.root, embedder=None) as ws:
        ws.reindex()
        ws.import_(shared, embed=False)
        [m] = ws.suggestions()
        assert m.anchor is not None and (m.anchor.start_line, m.anchor.end_line) == (5, 7)
        assert m.status_reason == reconcile.SUGGESTION_CHANGED_REASON.format(symbol="charge")


def test_an_imported_memory_on_a_symbol_not_here_is_orphaned_and_shown_on_no_lines(tmp_path: Path) -> None:
    shared, record = _exported(tmp_path, "refund")
    ours = _repo(tmp_path / "ours", SHIFTED)  # no refund here; the shared file's lines 10-12 are past charge's end
    accepted = tmp_path / "accepted.jsonl"
    accepted.write_bytes(shared.read_bytes())
    with Workspace.open(ours.root, embedder=None) as ws:
        ws.reindex()
        ws.import_(shared, embed=False)
        [s] = ws.suggestions()  # waiting for review: kept, on no lines
        assert s.anchor is not None and s.anchor.symbol == "refund"
        assert (s.anchor.start_line, s.anchor.end_line) == (None, None)
        assert s.status_reason == reconcile.IMPORTED_LOST_REASON.format(symbol="refund", file="pay.py")
    ours2 = _repo(tmp_path / "ours2", SHIFTED)
    with Workspace.open(ours2.root, embedder=None) as ws:
        ws.reindex()
        ws.import_(accepted, embed=False, accept=True)
        [m] = ws.list_memories()
        assert m.status == MemoryStatus.ORPHANED and m.id == record["id"]


def test_an_imported_line_whose_hash_is_another_function_s_is_placed_by_its_symbol(tmp_path: Path) -> None:
    shared, record = _exported(tmp_path, "charge")
    with Workspace.open(_repo(tmp_path / "probe", TWO).root, embedder=None) as ws:
        ws.reindex()
        [refund] = [c for c in ws.indexer.chunks_for("pay.py") if c.symbol == "refund"]
    anchor = dict(record["anchor"])  # type: ignore[call-overload]
    anchor.update(content_hash=refund.content_hash, start_line=refund.start_line, end_line=refund.end_line)
    _rewrite(shared, {**record, "anchor": anchor})  # hostile: charge, with refund's code and lines
    ours = _repo(tmp_path / "ours", TWO)
    with Workspace.open(ours.root, embedder=None) as ws:
        ws.reindex()
        ws.import_(shared, embed=False, accept=True)
        [m] = ws.list_memories()
        assert m.anchor is not None and (m.anchor.symbol, m.anchor.start_line, m.anchor.end_line) == ("charge", 4, 6)
        assert m.status == MemoryStatus.STALE  # what it was written on is unknown: a person confirms it
        ours.write("pay.py", TWO + "\n# end\n")
        ws.reindex()  # reconciling later does not take it to refund, whose bytes the line claimed
        again = ws.get(m.id)
        assert again.anchor is not None and again.anchor.symbol == "charge" and again.status == MemoryStatus.STALE
