"""An imported memory takes this workspace's lines for its definition when the code is the same bytes: the shared
file's line numbers were the teammate's (QA pass 4: a diagnostic one line above `fn drop` on a teammate's clone)."""

from __future__ import annotations

from pathlib import Path

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
