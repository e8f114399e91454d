"""Mining history and warning comments, on small repositories each test builds with real git."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

import pytest

from forewarn.memory.timeline import standing_at
from forewarn.memory.vocabulary import MemoryStatus, MemoryType
from forewarn.workspace import mine_comments, mine_fixes, mining
from forewarn.workspace.engine import Workspace
from forewarn.workspace.history import CommitRecord, GitError
from forewarn.workspace.mine_rules import Noise, VerdictKind, classify
from tests.gitrepo import ENV, Repo
from tests.workspace.billing_history import BILLING, billing_repo, kinds, mined, record, revert, round_charge


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return billing_repo(tmp_path / "repo")


EXPLAINED = "The pool was shared across threads, so a second request would reuse a closed socket and hang."


# --- classification: each noise rule and each lesson ---------------------------------------------------


@pytest.mark.parametrize(
    ("rec", "reason"),
    [
        (record("Merge branch 'x'", EXPLAINED, parents=2), Noise.MERGE),
        (record("Bump urllib3 from 1.2 to 1.3", EXPLAINED, author="dependabot[bot]"), Noise.BOT),
        (record("v2.31.0"), Noise.VERSION),
        (record("Release 2.31.0", EXPLAINED), Noise.VERSION),
        (record("Fix typo in charge"), Noise.COSMETIC),
        (record("Run black over the tree"), Noise.COSMETIC),
        (record("Fix mypy findings", "The stubs changed and the checker reports it now."), Noise.TYPING),
        (record("Update changelog", EXPLAINED, paths=("HISTORY.md",)), Noise.CHANGELOG),
        (record("Fix the pool", "Fixes #12.\n\nSigned-off-by: Ann <a@x.org>"), Noise.EMPTY),
        (record('Revert "Revert "Stream uploads""', "This reverts commit 1234567."), Noise.REAPPLIED),
        (record('Revert "Stream uploads"', "This reverts commit 1234567."), Noise.REVERT_NO_REASON),
        (record("Fix the pool docs", EXPLAINED, paths=("docs/pool.rst", "README.md")), Noise.DOCS),
        (record("Simplify the pool", EXPLAINED), Noise.REFACTOR),
        (record("PR review fixes", EXPLAINED), Noise.VAGUE),
        (record("Fix the comment on the pool", EXPLAINED * 3), Noise.COSMETIC),
        (record("Skip the flaky pool test on macOS", EXPLAINED, paths=("pool.py", "tests/t.py")), Noise.TEST_ONLY),
        (record("Fix the pool example", EXPLAINED, paths=("examples/pool.py",)), Noise.TEST_ONLY),
        (
            record("Don't make the ResourceWarning an error", "Otherwise pytest fails on CI.", paths=("tests/t.py",)),
            Noise.TEST_ONLY,
        ),
        (record("Add a retry helper", "This adds the helper and its tests to the module here."), Noise.FEATURE),
        (record("Rework the retry helper", "This reworks the helper and moves code around here."), Noise.NO_LESSON),
    ],
)
def test_each_noise_rule_names_its_reason(rec: CommitRecord, reason: str) -> None:
    verdict = classify(rec)
    assert (verdict.kind, verdict.reason) == (VerdictKind.NOISE, reason)


def test_a_fix_with_an_empty_body_is_noise_but_still_counts_toward_hot_spots() -> None:
    assert classify(record("Fix the pool")).fix
    assert not classify(record("Fix mypy findings")).fix  # typing, formatting and docs fixes are no real fixes
    assert not classify(record("Fix the docs of the pool")).fix
    assert not classify(record("Fix flaky test", paths=("tests/test_pool.py",))).fix


def test_a_test_only_commit_that_explains_a_product_bug_is_a_lesson() -> None:
    body = "charge() would round the total twice when the card is declined, so customers were billed a cent more."
    verdict = classify(record("Add a regression test for the double rounding bug", body, paths=("tests/t.py",)))
    assert verdict.kind == VerdictKind.FIX and not verdict.fix  # a lesson, but no fix of product code


def test_revert_is_a_dead_end_with_the_reason_from_the_body() -> None:
    body = "This reverts commit 1234567890abcdef.\n\nIt broke uploads on Windows.\n\nSigned-off-by: Ann <a@x.org>"
    verdict = classify(record('Revert "Stream uploads in chunks"', body))
    assert (verdict.type, verdict.what, verdict.why) == (
        MemoryType.DEAD_END, "Stream uploads in chunks", "It broke uploads on Windows."
    )  # fmt: skip


def test_fix_with_an_explained_cause_is_an_error_pattern_or_a_gotcha() -> None:
    err = classify(record("Fix hang in pool", EXPLAINED + "\n\nTraceback ends in\nConnectionError: pool closed"))
    assert (err.kind, err.type, err.error) == (
        VerdictKind.FIX,
        MemoryType.ERROR_PATTERN,
        "ConnectionError: pool closed",
    )
    trap = classify(record("Fix rounding in charge", "Amounts are cents; dividing by 100 would lose the remainder."))
    assert (trap.kind, trap.type) == (VerdictKind.FIX, MemoryType.GOTCHA)
    assert trap.why == "Amounts are cents; dividing by 100 would lose the remainder."


def test_rationale_is_a_decision_and_trailers_are_stripped() -> None:
    body = (
        "We chose sqlite rather than a server because installs must stay one step.\n\n"
        "Co-authored-by: Bo <b@x.org>\nChange-Id: I123"
    )
    verdict = classify(record("Store sessions in sqlite", body))
    assert verdict.type is MemoryType.DECISION
    assert verdict.why == "We chose sqlite rather than a server because installs must stay one step."


# --- lessons: one per commit, on the symbol it is about, said as a lesson -------------------------------------

FIVE = "".join(f"def step{i}(x):\n    return x + {i}\n\n\n" for i in range(5))


def fix_steps(repo: Repo, step3: str, message: str) -> None:
    """Commit five steps, then one commit that changes them all, step3's body to ``step3``."""
    repo.write("steps.py", FIVE)
    repo.commit("Add steps")
    repo.write("steps.py", FIVE.replace("x + ", "x * ").replace("return x * 3", step3))
    repo.commit(message)


def test_a_commit_touching_five_symbols_is_one_suggestion_on_the_one_it_names(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    fix_steps(
        repo,
        "y = x\n    z = y\n    return z * 3",
        "Fix overflow in step1\n\nstep1 would overflow when x is large because the sum was not bounded.",
    )
    ws, _ = mined(repo, open_ws)
    [fix] = kinds(ws, "fix")
    assert fix.anchor is not None and fix.anchor.symbol == "step1"  # named, though step3 changed most
    assert fix.text == (
        "Avoid reintroducing a bug in `step1`: overflow in step1.\n\n"
        "Why: step1 would overflow when x is large because the sum was not bounded."
    )
    assert fix.provenance is not None and fix.provenance["named"] is True and len(fix.provenance["also"]) == 3


def test_unnamed_it_goes_to_the_most_changed_symbol(repo: Repo, open_ws: list[Workspace]) -> None:
    step3 = "y = x\n    z = y\n    w = z\n    v = w\n    return v * 3"  # 6 of the 14 changed lines: the dominant one
    fix_steps(
        repo, step3, "Fix overflow in the steps\n\nThey would overflow when x is large because sums were unbounded."
    )
    ws, _ = mined(repo, open_ws)
    [fix] = kinds(ws, "fix")
    assert fix.anchor is not None and fix.anchor.symbol == "step3"
    assert fix.text.startswith("Avoid reintroducing a bug in `step3`: overflow in the steps.")


def test_unnamed_and_spread_evenly_over_many_symbols_it_is_about_none_of_them(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    fix_steps(
        repo,
        "y = x\n    z = y\n    return z * 3",
        "Fix overflow in the steps\n\nThey would overflow when x is large because sums were unbounded.",
    )
    ws, report = mined(repo, open_ws)
    assert kinds(ws, "fix") == [] and report.noise[Noise.DIFFUSE_SYMBOLS] == 1  # step3 holds 4 of 12 lines: a sibling


def test_a_helper_the_fix_added_is_not_where_the_lesson_goes(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.write("unzip.py", "def extract(member, path):\n    return member.extract(path)\n")
    repo.commit("Add unzip")
    helper = "def atomic_write(path, data):\n    tmp = path + '.tmp'\n    write(tmp, data)\n    rename(tmp, path)\n"
    repo.write("unzip.py", f"{helper}\n\ndef extract(member, path):\n    return atomic_write(path, member.read())\n")
    repo.commit("Fix a race between two processes unzipping\n\nTwo processes would see a half-written file because "
                "extraction writes in place.")  # fmt: skip
    ws, _ = mined(repo, open_ws)
    [fix] = kinds(ws, "fix")
    assert fix.anchor is not None and fix.anchor.symbol == "extract"  # atomic_write changed more lines: all new


def test_a_lesson_never_repeats_its_subject_nor_keeps_a_bullet_log(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.edit("billing.py", "return -amount", "return -abs(amount)")
    repo.commit(
        "Fix refund sign for negative amounts\n\n"
        "Fix refund sign for negative amounts.\n\n"
        "* a negative amount would refund a charge twice because the sign flips\n"
        "* tidy\n* more tidy\n\nFixes #12\nSigned-off-by: Ann <a@x.org>"
    )
    ws, _ = mined(repo, open_ws)
    [fix] = kinds(ws, "fix")
    assert fix.text == (
        "Avoid reintroducing a bug in `refund`: refund sign for negative amounts.\n\n"
        "Why: a negative amount would refund a charge twice because the sign flips."
    )


def test_test_only_commits_propose_nothing(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.write("tests/test_billing.py", "def test_charge():\n    assert True\n")
    repo.commit("Don't make the ResourceWarning an error\n\nOtherwise pytest fails because the socket is open.")
    ws, report = mined(repo, open_ws)
    assert ws.suggestions() == [] and report.noise[Noise.TEST_ONLY] == 1


def test_docstrings_are_not_warnings_but_warning_comments_are() -> None:
    source = b"""\
class App:
    #: The key must match the name of the extension module.
    extensions = {}

    #: HACK: cleared by the test client, never by the app: it would lose the registry.
    cache = {}

    def run(self):
        # the socket must be closed before the fork, or the child inherits it
        # We do not need to patch the whole interpreter; this is narrative and never a warning at all really.
        return 1
"""
    scan = mine_comments.warning_comments("app.py", source)
    assert [(c.kind, c.line, symbol) for c, symbol in scan.found] == [("HACK", 5, "App"), ("must", 9, "App.run")]
    assert scan.skipped[Noise.DOCSTRING] == 1


def test_warning_comments_are_found_by_tree_sitter_and_anchored_to_their_symbol() -> None:
    source = b"""\
def charge(card, amount):
    # HACK: the gateway rounds half-down,
    # so we add a cent before sending.
    s = "# never shows: this is a string"
    t = s  # type: ignore[assignment]  # stubs don't know
    u = t  # must not merge with the line above, it would count the cent twice
    return amount


# Do not call this before login, it must wait: the token is empty until then
def refund(card):
    return 0
"""
    found = mine_comments.warning_comments("billing.py", source).found
    assert [(c.kind, c.line, symbol) for c, symbol in found] == [
        ("HACK", 2, "charge"),
        ("must not", 6, "charge"),
        ("do not", 10, "refund"),
    ]
    assert found[0][0].text == "HACK: the gateway rounds half-down, so we add a cent before sending."
    assert mine_comments.warning_comments("tests/test_billing.py", source).skipped[Noise.TEST_COMMENT] == 3


# --- hot spots, reverts, workspace-wide rules -----------------------------------------------------------------


def _fix_refund(repo: Repo, n: int, subject: str | None = None) -> str:
    repo.write("billing.py", BILLING.replace("return -amount", f"return -abs(amount) * {n}"))
    return repo.commit(
        (subject or f"Fix refund sign, take {n}")
        + "\n\nA negative amount would refund a charge twice because the sign flips."
    )


def _quiet_fix(repo: Repo, n: int, subject: str) -> str:
    """A fix of refund's logic that explains nothing: it counts toward hot spots, proposes no lesson of its own."""
    repo.write("billing.py", BILLING.replace("return -amount", f"return -abs(amount) * {n}"))
    return repo.commit(subject)


def test_hot_spots_count_real_fixes_only(repo: Repo, open_ws: list[Workspace]) -> None:
    _quiet_fix(repo, 2, "Fix mypy findings in refund")  # typing: no fix of behaviour
    _quiet_fix(repo, 3, "Fix the docstring of refund")  # docs
    repo.git("checkout", "-q", "-b", "backport")
    _quiet_fix(repo, 4, "Fix refund sign for credits")
    picked = repo.git("rev-parse", "HEAD")
    repo.git("checkout", "-q", "main")
    repo.git("cherry-pick", picked)  # the same patch twice: counted once
    repo.git("merge", "-q", "--no-edit", "backport")
    ws, report = mined(repo, open_ws)
    assert kinds(ws, "hotspot") == []  # 1 real fix
    assert report.noise[Noise.CHERRY_PICK] == 1 and report.noise[Noise.MERGE] == 1
    assert report.noise[Noise.TYPING] == 1 and report.noise[Noise.COSMETIC] == 1
    _quiet_fix(repo, 5, "Fix refund for zero amounts")
    mining.mine(ws, hold_back=False)
    [hot] = kinds(ws, "hotspot")  # two real fixes close together, lately: a problem that came back
    assert hot.anchor is not None and hot.anchor.symbol == "refund"
    assert hot.text == (
        "Keep the fixes of `refund`: avoid the bug in refund for zero amounts; avoid the bug in refund sign for"
        " credits. It has needed 2 fixes in 2024."
    )  # never a bullet log
    assert hot.provenance is not None and [c["subject"] for c in hot.provenance["commits"]] == [
        "Fix refund for zero amounts", "Fix refund sign for credits",
    ]  # fmt: skip


def test_a_reverted_commit_is_withdrawn_and_its_revert_is_one_dead_end(repo: Repo, open_ws: list[Workspace]) -> None:
    bad = round_charge(repo)
    revert(repo, bad, f'Revert "Round totals in charge"\n\nThis reverts commit {bad}.\n\n'
           "Rounding each charge lost cents on long invoices.")  # fmt: skip
    ws, report = mined(repo, open_ws)
    [dead] = ws.suggestions()
    assert dead.type == MemoryType.DEAD_END and dead.anchor is not None and dead.anchor.symbol == "charge"
    assert dead.text == (
        "Do not bring back “Round totals in charge” in `charge`: it was tried and reverted.\n\n"
        "Why: Rounding each charge lost cents on long invoices."
    )
    assert report.noise[Noise.REVERTED] == 1


def test_a_revert_without_a_reason_proposes_nothing_and_withdraws_earlier_runs(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    bad = round_charge(repo)
    ws, _ = mined(repo, open_ws)
    [decision] = ws.suggestions()
    repo.git("revert", "--no-edit", bad)
    report = mining.mine(ws)  # incremental: the revert is new, the reverted commit was mined before
    assert report.withdrawn == 1 and report.noise[Noise.REVERT_NO_REASON] == 1
    assert ws.suggestions() == [] and ws.get(decision.id).status == MemoryStatus.DISMISSED
    events = ws.store.events(decision.id)
    assert events[-1].kind == "withdrawn"
    withdrawn = ws.get(decision.id)
    assert standing_at(withdrawn, events, events[0].at).status == MemoryStatus.SUGGESTED  # the history replays
    assert standing_at(withdrawn, events, events[-1].at).status == MemoryStatus.DISMISSED


def test_workspace_wide_only_for_a_repository_wide_rule(repo: Repo, open_ws: list[Workspace]) -> None:
    for i in range(6):
        repo.write(f"mod{i}.py", f"X{i} = {i}\n")
    repo.commit("Add modules")
    for i in range(6):
        repo.write(f"mod{i}.py", f"X{i} = {i + 1}\n")
    repo.commit(
        "Change the gateway constants\n\nThe old values would overflow the gateway because they were too large."
    )
    for i in range(6):
        repo.write(f"mod{i}.py", f"X{i} = {i + 2}\n")
    repo.commit("Use small constants\n\nNever use a constant over 100 anywhere in the code base because it overflows.")
    ws, report = mined(repo, open_ws)
    [rule] = ws.suggestions()
    assert rule.anchor is None and rule.text.startswith("In this repository: use small constants.")
    assert report.noise[Noise.NO_ANCHOR] == 1


# --- the track record ------------------------------------------------------------------------------------------


def test_each_lesson_carries_the_fixes_of_its_code_after_it(repo: Repo, open_ws: list[Workspace]) -> None:
    kept = BILLING.replace("    total = amount\n", "    total = amount\n    cents = round(amount * 100)\n")
    repo.write("billing.py", kept)
    repo.commit(
        "Keep cents in charge\n\nWe keep integer cents because floats lose precision on totals.",
        date="2021-06-01T12:00:00+00:00",
    )
    # two fixes years apart: no hot spot, so nothing is folded into the decision's evidence (a fix it learned from
    # is no fix since: test_mining_evidence_qa5)
    for n, date in enumerate(("2022-06-01T12:00:00+00:00", None)):
        repo.write("billing.py", kept.replace("total = amount\n", f"total = amount + {n}\n"))
        repo.commit(f"Fix charge rounding, take {n}", date=date)
    ws, _ = mined(repo, open_ws)
    [decision] = kinds(ws, "decision")
    assert decision.provenance is not None
    track = decision.provenance["track"]
    assert (track["fixes"], track["scope"], track["last_fix"]) == (2, "symbol", "2024-01-04T10:00:00Z")
    assert decision.confidence > 0.8  # fixed again since: it keeps mattering
    # a later run adds its fixes to the record of what earlier runs proposed
    repo.write("billing.py", kept.replace("total = amount\n", "total = amount + 9\n"))
    repo.commit("Fix charge rounding once more")
    report = mining.mine(ws)
    again = ws.get(decision.id)
    assert report.tracks_updated >= 1 and again.provenance is not None
    assert again.provenance["track"]["fixes"] == 3
    assert again.provenance["track"]["factor"] > track["factor"] and again.confidence >= decision.confidence


def test_a_lesson_on_code_quiet_for_years_ranks_lower(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.write("old.py", "def settled(x):\n    return x\n")
    repo.commit("Add settled")
    repo.write("old.py", "def settled(x):\n    return x or 0\n")
    repo.commit(
        "Fix settled for None\n\nNone would crash the report because it was summed.", date="2016-01-01T00:00:00Z"
    )
    repo.edit("billing.py", "return -amount", "return -abs(amount)")
    repo.commit("Fix refund sign\n\nA negative amount would refund twice because the sign flips.",
                date="2024-06-01T00:00:00Z")  # fmt: skip
    ws, _ = mined(repo, open_ws)
    by_symbol = {m.anchor.symbol: m for m in kinds(ws, "fix") if m.anchor}
    assert by_symbol["settled"].confidence < by_symbol["refund"].confidence
    assert [m.anchor.symbol for m in ws.suggestions() if m.anchor][:2] == ["refund", "settled"]


# --- mine(): anchoring, incremental, bad input -------------------------------------------------------------


def test_mine_anchors_a_fix_to_its_symbol_followed_through_a_rename(repo: Repo, open_ws: list[Workspace]) -> None:
    sha = _fix_refund(repo, 1)
    repo.git("mv", "billing.py", "payments.py")
    repo.commit("Rename billing to payments")
    ws, report = mined(repo, open_ws)
    [memory] = kinds(ws, "fix")
    assert memory.status == MemoryStatus.SUGGESTED and memory.type == MemoryType.GOTCHA
    assert memory.anchor is not None and (memory.anchor.file, memory.anchor.symbol) == ("payments.py", "refund")
    assert memory.provenance is not None and memory.provenance["anchor"] == "symbol"
    assert memory.provenance["then"] == "billing.py::refund"
    assert memory.provenance["commits"][0]["sha"] == sha
    assert memory.created_at.startswith("2024-01-02T10:00:00")
    assert report.anchors["symbol"] >= 1


def test_release_notes_and_tests_beside_code_are_no_anchor(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.write("HISTORY.md", "- refund fixed\n")
    repo.write("tests/test_billing.py", "def test_refund():\n    assert True\n" * 5)
    _fix_refund(repo, 1)
    ws, _ = mined(repo, open_ws)
    assert [(m.anchor.file, m.anchor.symbol) for m in kinds(ws, "fix") if m.anchor] == [("billing.py", "refund")]


def test_a_lesson_whose_symbol_is_gone_at_head_lands_on_its_file_and_proposes_nothing(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    _fix_refund(repo, 1)
    repo.write("billing.py", BILLING.replace("def refund", "def give_back"))
    repo.commit("Rename refund")
    ws, report = mined(repo, open_ws)
    assert kinds(ws, "fix") == [] and report.noise[Noise.FILE_ANCHOR] == 1  # a whole file is about no code


def test_comment_and_idempotent_incremental_re_mine(repo: Repo, open_ws: list[Workspace]) -> None:
    for n in range(mine_fixes.HOTSPOT_MIN_FIXES):
        _fix_refund(repo, n)
    repo.write(
        "billing.py",
        BILLING.replace("    total = amount", "    # XXX: the gateway rejects totals over 10k\n    total = amount"),
    )
    repo.commit("Note the limit")
    ws, first = mined(repo, open_ws)
    [comment] = [m for m in ws.suggestions() if m.source == "comment"]
    assert comment.anchor is not None and comment.anchor.symbol == "charge"
    assert comment.text == "In `charge`: XXX: the gateway rejects totals over 10k"
    total = len(ws.suggestions())
    assert first.added == total
    again = mining.mine(ws, hold_back=False)  # nothing new since the last run
    assert again.commits_read == 0 and again.seconds < 1 and len(ws.suggestions()) == total
    ws.set_mining_state(mining.STATE_LAST_MINED, "")  # forget where we were: a full re-mine adds nothing
    full = mining.mine(ws, hold_back=False)
    assert full.added == 0 and full.known == total and len(ws.suggestions()) == total
    new = _fix_refund(repo, 99)
    step = mining.mine(ws, hold_back=False)
    assert step.commits_read == 1 and step.since is not None and new


def test_progress_is_reported_and_a_cancel_stores_nothing(repo: Repo, open_ws: list[Workspace]) -> None:
    for n in range(3):
        _fix_refund(repo, n)
    ws = Workspace.open(repo.root, embedder=None)
    open_ws.append(ws)
    cancel = threading.Event()
    seen: list[tuple[int, int]] = []

    def on_progress(done: int, total: int) -> None:
        seen.append((done, total))
        cancel.set()

    report = mining.mine(ws, hold_back=False, progress=on_progress, cancel=cancel)
    assert report.cancelled and seen == [(1, 4)] and ws.suggestions() == []
    assert ws.mining_state(mining.STATE_LAST_MINED) is None
    full = mining.mine(ws, hold_back=False, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (4, 4) and full.added == len(ws.suggestions()) > 0


def test_a_hot_spot_whose_fixes_span_several_runs_is_found(repo: Repo, open_ws: list[Workspace]) -> None:
    _quiet_fix(repo, 1, "Fix refund sign, take 1")
    repo.git("commit", "--amend", "-q", "--no-edit", "--date=2016-01-01T00:00:00Z")
    ws, _ = mined(repo, open_ws)
    for n in range(2, mine_fixes.HOTSPOT_MIN_FIXES + 1):  # years apart: a hot spot only once there are enough
        _quiet_fix(repo, n, f"Fix refund sign, take {n}")
        repo.git("commit", "--amend", "-q", "--no-edit", f"--date={2016 + 4 * n}-01-01T00:00:00Z")
        mining.mine(ws, hold_back=False)
    [hot] = kinds(ws, "hotspot")
    assert f"needed {mine_fixes.HOTSPOT_MIN_FIXES} fixes" in hot.text
    assert mining.mine(ws).commits_read == 0


def test_since_a_commit_or_a_date_and_limit(repo: Repo, open_ws: list[Workspace]) -> None:
    first = _fix_refund(repo, 1)
    _fix_refund(repo, 2)
    ws, report = mined(repo, open_ws, since=first)
    assert report.commits_read == 1
    assert mining.mine(ws, since="2024-01-03").commits_read == 1
    assert mining.mine(ws, limit=2).commits_read == 2
    with pytest.raises(GitError, match="neither a commit nor a date"):
        mining.mine(ws, since="no-such-thing")


def test_not_a_repository_and_an_empty_repository_are_clear_errors(tmp_path: Path, open_ws: list[Workspace]) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.py").write_text("x = 1\n")
    ws = Workspace.open(plain, embedder=None)
    open_ws.append(ws)
    with pytest.raises(GitError, match="not inside a git repository"):
        mining.mine(ws)
    empty = Repo(tmp_path / "empty")
    ws2 = Workspace.open(empty.root, embedder=None)
    open_ws.append(ws2)
    with pytest.raises(GitError, match="has no commits yet"):
        mining.mine(ws2)


def test_shallow_clone_detached_head_and_rewritten_history(
    repo: Repo, tmp_path: Path, open_ws: list[Workspace]
) -> None:
    for n in range(3):
        _fix_refund(repo, n)
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{repo.root}", str(clone)], env=ENV, check=True)
    ws = Workspace.open(clone, embedder=None)
    open_ws.append(ws)
    report = mining.mine(ws)
    assert report.commits_read == 2 and any("shallow clone" in note for note in report.notes)

    repo.git("checkout", "-q", "--detach", "HEAD~1")
    ws2, detached = mined(repo, open_ws)
    assert detached.commits_read == 3
    repo.git("checkout", "-q", "main")
    repo.git("reset", "-q", "--hard", "HEAD~2")
    _fix_refund(repo, 7)
    repo.git("reflog", "expire", "--expire=now", "--all")
    repo.git("gc", "-q", "--prune=now")
    rewritten = mining.mine(ws2)
    assert any("history was rewritten" in note for note in rewritten.notes)
    assert rewritten.commits_read == 3


def test_a_commit_git_cannot_read_is_skipped_said_and_the_rest_mined(repo: Repo, open_ws: list[Workspace]) -> None:
    """A partial clone whose remote is out of reach (or a damaged repository) lacks some blobs: mining goes on."""
    _fix_refund(repo, 1)
    repo.write("tools/gen.bin", b"\x00\x01 a built tool committed by mistake\n")
    broken = repo.commit("Add the generator binary")
    _fix_refund(repo, 2)
    oid = repo.git("rev-parse", "HEAD:tools/gen.bin")
    (repo.root / ".git" / "objects" / oid[:2] / oid[2:]).unlink()
    repo.write("tools/gen.bin", b"rebuilt here\n")  # else git's diff reads the work tree's copy
    ws = Workspace.open(repo.root, embedder=None)
    open_ws.append(ws)
    report = mining.mine(ws, hold_back=False)
    total = int(repo.git("rev-list", "--count", "HEAD"))
    assert report.unreadable_commits == 1 and report.commits_read == total - 1
    assert any(broken[:12] in note and "could not be read" in note for note in report.notes)
    assert report.to_dict()["unreadable_commits"] == 1
    assert any(s.file == "billing.py" for s in ws.suggestions())  # the fixes around it were mined
