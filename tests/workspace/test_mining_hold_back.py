"""What a default mining run proposes, and what it holds back (issue 23: what a person sees first must be good).

A commit lesson is scored on its commit's shape (``mine_score``); one under ``MIN_LESSON_SCORE`` is held back, and
so is every warning comment (it is already written beside the code it warns about). Both are counted by name in
``MineReport.held_back``; a run with ``hold_back=False`` over the whole history (``forewarn mine --all``), or the
setting ``mining.hold_back = false``, proposes them. A hot spot that joins no lesson (a count of fixes and their
titles, no why) is held back too; one on a lesson's symbol is that lesson's "History:" line. Dead ends are never held
back.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from forewarn.config import Settings
from forewarn.memory.vocabulary import MemoryType
from forewarn.workspace import mining
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_score import MIN_LESSON_SCORE, CommitShape, lesson_counts, lesson_score
from tests.gitrepo import Repo
from tests.workspace.billing_history import kinds, mined, record

LEDGER = """\
def settle(batch, gateway):
    paid = []
    for entry in batch:
        if entry.amount <= 0:
            continue
        receipt = gateway.charge(entry.card, entry.amount)
        paid.append(receipt)
    return paid


def describe(entry):
    return f"{entry.card}: {entry.amount}"


def void(entry, gateway):
    # never call this after the nightly settlement run: the processor rejects it and support must refund by hand
    return gateway.void(entry.id)
"""

EXPLAINED = (
    "Fix settle charging a batch twice after a gateway timeout (#412)\n\n"
    "When the gateway times out it may still have taken the money, and settle used to retry the whole batch, "
    "so customers were charged twice. The idempotency key makes a retried charge a no-op on the gateway's side; "
    "never retry a charge without one, and never build the key from anything but the entry's own id."
)
TERSE = "Fix card numbers in the support log\n\ndescribe printed the whole number because it formatted the raw card."


def _score(subject: str, body: str, why: str, kind: MemoryType, files: int, added: int, removed: int) -> float:
    commit = replace(record(subject, body), file_count=files)
    text = f"In `settle`: {subject}\n\nWhy: {why}"
    return lesson_score(lesson_counts(text, kind, commit, CommitShape(files, added, removed), 8))


def test_the_score_rises_with_an_explained_cause_and_falls_with_a_sweeping_change() -> None:
    why = "When the gateway times out it may still have taken the money, so a retry charges twice."
    base = _score("Fix double charge", why, why, MemoryType.GOTCHA, 2, 10, 2)
    assert 0.0 < base < 1.0
    assert _score("Fix double charge", why, why[:20], MemoryType.GOTCHA, 2, 10, 2) < base  # a shorter why
    assert _score("Fix double charge", why, why, MemoryType.GOTCHA, 40, 10, 2) < base  # forty files
    assert _score("Fix double charge", why, why, MemoryType.GOTCHA, 2, 10, 400) < base  # mostly deletes
    assert _score("Fix double charge", why, why, MemoryType.DECISION, 2, 10, 2) < base  # a decision, not a fix
    assert _score("Fix double charge (#7)", why, why, MemoryType.GOTCHA, 2, 10, 2) > base  # names its issue


def _history(root: Path) -> Repo:
    """A ledger whose history holds one well-explained fix, one terse fix, a warning comment and a hot spot."""
    repo = Repo(root)
    repo.write("ledger.py", LEDGER)
    repo.commit("Add the ledger")
    repo.edit(
        "ledger.py", "gateway.charge(entry.card, entry.amount)", "gateway.charge(entry.card, entry.amount, entry.id)"
    )
    repo.commit(EXPLAINED)
    for n in range(1, 4):  # three real fixes of refund's logic: a hot spot
        repo.write("refund.py", f"def refund(entry):\n    amount = abs(entry.amount) * {n}\n    return -amount\n")
        repo.commit(f"Fix refund sign, take {n}")
    repo.edit("ledger.py", 'f"{entry.card}: ', 'f"card {entry.card[-4:]}: ')
    repo.commit(TERSE)
    return repo


def test_a_default_run_proposes_what_clears_the_bars_and_counts_what_it_holds_back(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo = _history(tmp_path)
    ws, report = mined(repo, open_ws, hold_back=True)
    proposed = ws.suggestions()
    explained = [m for m in proposed if m.provenance and "#412" in str(m.provenance.get("commits"))]
    assert len(explained) == 1 and explained[0].anchor is not None and explained[0].anchor.symbol == "settle"
    assert explained[0].provenance is not None and explained[0].provenance["score"] >= MIN_LESSON_SCORE
    assert kinds(ws, "hotspot") == []  # refund's three fixes, on no lesson: a count, no why
    assert not [m for m in proposed if m.source == "comment"]
    assert report.held_back == {"warning-comment": 1, "low-score": 1, "hotspot": 1}, report.held_back
    assert report.to_dict()["held_back"] == report.held_back
    # everything again, nothing held back: what was held back is proposed now, what was proposed is known
    everything = mining.mine(ws, hold_back=False, full=True)
    assert everything.held_back == {} and everything.commits_read == report.commits_read
    assert everything.added == 3 and everything.known == len(proposed)
    held = [m for m in ws.suggestions() if m.id not in {p.id for p in proposed}]
    assert {m.source for m in held} == {"comment", "commit"}
    [spot] = kinds(ws, "hotspot")
    assert spot.anchor is not None and spot.anchor.symbol == "refund" and spot in held
    [terse] = [m for m in held if m.source == "commit" and m.id != spot.id]
    assert terse.provenance is not None and terse.provenance["score"] < MIN_LESSON_SCORE
    again = mining.mine(ws, full=True)  # a default run again: the hot spot proposed by --all stays as it is
    assert "hotspot" not in again.held_back and len(kinds(ws, "hotspot")) == 1


def test_a_hot_spot_on_an_explained_lessons_symbol_is_its_history_line(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo = _history(tmp_path)
    # settle fixed twice more after the explained fix: with it, a hot spot on its symbol
    repo.edit("ledger.py", "if entry.amount <= 0:", "if entry.amount <= 1:")
    repo.commit("Fix settle skipping one-cent entries")
    repo.edit("ledger.py", "paid.append(receipt)", "paid.append(receipt or entry.id)")
    repo.commit("Fix settle losing receipts the gateway returned empty")
    ws, report = mined(repo, open_ws, hold_back=True)
    [settle] = [m for m in ws.suggestions() if m.anchor is not None and m.anchor.symbol == "settle"]
    assert settle.text.startswith("Avoid reintroducing a bug in `settle`") and "#412" not in settle.text
    assert settle.text.endswith("\n\nHistory: its code has needed 3 fixes in 2024."), settle.text
    assert "one-cent" not in settle.text and "receipts" not in settle.text  # the other fixes: evidence, not quoted
    assert report.held_back["hotspot"] == 1  # refund's, on no lesson


def test_the_setting_turns_holding_back_off(tmp_path: Path) -> None:
    repo = _history(tmp_path)
    settings = Settings()
    settings.mining.hold_back = False
    with Workspace.open(repo.root, settings, embedder=None) as ws:
        report = mining.mine(ws)
        assert report.held_back == {} and any(m.source == "comment" for m in ws.suggestions())
