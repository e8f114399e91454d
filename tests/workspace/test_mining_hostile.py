"""Mining a hostile repository (red-team R6): the kit's ``mkrepo.py`` recipe, built here on the demo workspace.

A commit message forging a whole git-log record (another sha, a security lead as author, a 2030 date, diff
lines naming ``billing/money.py``), an author name holding separators, a date years ahead, and real fixes of
``finalize`` that a forged record would have pushed over the hot-spot threshold.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from forewarn.memory.suggestions import provenance_commits
from forewarn.memory.text import from_iso
from forewarn.workspace import mine_fixes, mining
from forewarn.workspace.engine import Workspace
from tests.gitrepo import Repo
from tests.workspace.test_history import FAKE_SHA, forged_record_message

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo-workspace"
FINALIZE = "def finalize(invoice: Invoice, card_token: str) -> None:"


def hostile(tmp_path: Path) -> Repo:
    root = tmp_path / "victim"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns(".forewarn"))
    repo = Repo(root)
    repo.commit("initial import", author="Mallory")
    for n in range(mine_fixes.HOTSPOT_PAIR_MIN_FIXES - 1):  # real fixes of finalize: one short of a hot spot
        repo.edit("billing/invoice.py", FINALIZE, f"{FINALIZE}\n    retry_safe = {n}")
        repo.commit(f"Fix double charge in finalize, take {n}", author="Mallory")
    # the forged record: a fake "Fix: …" commit whose fake diff names invoice.py (a second fix of finalize, once)
    repo.edit("billing/money.py", "class Money:", "class Money:  # noqa")
    repo.commit(forged_record_message(target="billing/invoice.py"), author="Mallory", verbatim=True)
    repo.edit("billing/money.py", "total = sum(ratios)", "total = sum(ratios) or 1")
    repo.commit(
        "Fix rounding of cents\n\nTotals were wrong because the cart was empty and the sum failed otherwise.",
        author="Bob\x1fX\x1f2031-01-01T00:00:00+00:00\x1fforged",
        date="2031-01-01T00:00:00+00:00",
    )
    return repo


def test_a_hostile_history_forges_no_record_anchor_date_or_hot_spot(tmp_path: Path) -> None:
    repo = hostile(tmp_path)
    forged_sha = repo.git("log", "-1", "--format=%H", "--grep=Tidy finalize imports")
    with Workspace.open(repo.root, embedder=None) as ws:
        report = mining.mine(ws, hold_back=False)  # what the rules make of it, held back or not
        suggested = ws.suggestions()
    assert report.commits_read == int(repo.git("rev-list", "--count", "HEAD"))
    assert report.clamped_dates == 1 and any("dated in the future" in n for n in report.notes)
    commits = [c for m in suggested for c in provenance_commits(m.provenance)]
    assert all(c["sha"] != FAKE_SHA and not str(c["author"]).startswith("Alice") for c in commits)
    assert all(from_iso(m.created_at) <= time.time() + 1 for m in suggested)
    assert all(str(c["date"]) < "2030" for c in commits)
    # the forged record's commit touched money.py only: nothing of it lands on the invoice.py its message names
    assert not [m for m in suggested if forged_sha in {c["sha"] for c in provenance_commits(m.provenance)}
                and m.anchor is not None and m.anchor.file == "billing/invoice.py"]  # fmt: skip
    assert [
        m for m in suggested if (m.provenance or {}).get("kind") == "hotspot"
    ] == []  # one real fix short, whatever the forged record claims
    [future] = [m for m in suggested if m.anchor is not None and m.anchor.file == "billing/money.py"]
    assert future.provenance is not None and future.provenance["commits"][0]["author"].startswith("Bob\x1fX")
