"""QA pass 8 #1: zod's "Do not bring back “reject whitespace in z.base64() to close atob bypass”" — a security fix
reverted only because it "landed on main accidentally … will be re-applied via PR", and landed again (584b108) under
the same subject: the dead end told people to avoid the check ``isValidBase64`` runs today. A revert that says its
change comes back another way, or whose change a later commit lands again, is no dead end (``revert-to-reland``)."""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace import mining
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_headlines import said
from forewarn.workspace.mine_reverts import landed_key, undone_thing
from forewarn.workspace.mine_rules import Noise, VerdictKind, classify, revert_target
from tests.gitrepo import Repo
from tests.workspace.billing_history import billing_repo, kinds, mined, record, revert, round_charge

ACCIDENT = (
    "That commit landed on main accidentally — it was meant to be pushed to a\nnew branch but the worktree's "
    "upstream tracking pointed at main, so the\npush went there. Reverting so the change can go through a normal "
    "PR.\nThe work is preserved on the `base64-whitespace` branch and will be\nre-applied via PR.\n"
)


def test_a_revert_that_says_the_change_comes_back_another_way_is_no_dead_end() -> None:
    body = f"This reverts commit 91a7d0d1e0d3c8338e9fd92cf819cded87e8973f.\n\n{ACCIDENT}"
    verdict = classify(record('Revert "fix(v4): reject whitespace in z.base64() to close atob bypass"', body))
    assert verdict.kind == VerdictKind.NOISE and verdict.reason == Noise.REVERT_TO_RELAND
    kept = classify(record('Revert "Stream uploads"', "This reverts commit 1234567.\n\nIt broke uploads on Windows."))
    assert kept.kind == VerdictKind.REVERT  # a reason to give it up: still a dead end


def test_a_reverted_change_landed_again_under_its_subject_is_no_dead_end(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo: Repo = billing_repo(tmp_path / "repo")
    _reverted_rounding(repo)
    _re_land(repo, "Round totals in charge (#12)")  # landed again, the pull request's number added
    ws, report = mined(repo, open_ws)
    assert not [m for m in ws.suggestions() if "bring back" in m.text]
    assert report.noise[Noise.REVERT_TO_RELAND] == 1


def test_a_conventional_revert_and_a_reference_with_its_word_leave_the_headline() -> None:
    """zod's "revert(core): drop the exactOptional parse prototype from #6432 (#6438)" said "(core): drop the
    exactOptional parse prototype from": the scope stayed, and so did the "from" that pointed at #6432."""
    subject = "revert(core): drop the exactOptional parse prototype from #6432 (#6438)"
    assert revert_target(record(subject, "It broke optional keys in records.")) == (
        "drop the exactOptional parse prototype from #6432 (#6438)"
    )
    assert said("drop the exactOptional parse prototype from #6432 (#6438)") == "drop the exactOptional parse prototype"
    assert said("Fix crash introduced in #123") == "Fix crash introduced"
    assert said("Sign in with the key") == "Sign in with the key" and said("Fix #12 in parser") == "Fix #12 in parser"


def _reverted_rounding(repo: Repo) -> None:
    """A check added, then reverted (its line removed, as zod's 23edf48 removed the base64 whitespace check)."""
    repo.edit("billing.py", "    total = amount\n", "    total = amount\n    total = round(total, 2)\n")
    bad = repo.commit("Round totals in charge\n\nWe round here because the gateway rejects fractions otherwise.")
    revert(repo, bad, f'Revert "Round totals in charge"\n\nThis reverts commit {bad}.\n\n'
           "Rounding each charge lost cents on long invoices.")  # fmt: skip


def _re_land(repo: Repo, message: str) -> None:
    repo.edit("billing.py", "    total = amount\n", "    total = amount\n    total = round(total, 2)\n")
    repo.commit(message)


def test_a_re_land_after_a_run_withdraws_that_runs_dead_end(tmp_path: Path, open_ws: list[Workspace]) -> None:
    """zod mined before 584b108 landed the base64 fix again: the next run takes the dead end back."""
    repo: Repo = billing_repo(tmp_path / "repo")
    _reverted_rounding(repo)
    ws, _ = mined(repo, open_ws)
    assert [m for m in ws.suggestions() if "bring back" in m.text]  # a dead end, as far as this run can tell
    _re_land(repo, "Round totals in charge (#12)")
    report = mining.mine(ws, hold_back=False)  # incremental: it reads the re-land only
    assert report.withdrawn == 1
    assert not [m for m in ws.suggestions() if "bring back" in m.text]


def test_a_reapply_commit_withdraws_the_dead_end_in_a_first_run(tmp_path: Path, open_ws: list[Workspace]) -> None:
    """git names a revert of a revert 'Reapply "…"' (2.43 on); it carries no "Revert" to recognise it by."""
    repo: Repo = billing_repo(tmp_path / "repo")
    _reverted_rounding(repo)
    _re_land(repo, 'Reapply "Round totals in charge"\n\nThe gateway takes two decimals now.')
    ws, report = mined(repo, open_ws)
    assert not [m for m in ws.suggestions() if "bring back" in m.text]
    assert report.noise[Noise.REVERT_TO_RELAND] == 1


def test_what_a_commit_lands() -> None:
    assert landed_key("Round totals in charge (#12)") == "round totals in charge"
    assert landed_key('Reapply "Round totals in charge"') == "round totals in charge"
    assert landed_key("Re-land: Round totals in charge") == "round totals in charge"
    assert landed_key('Revert "Revert "Round totals in charge""') == "round totals in charge"
    assert landed_key('Revert "Round totals in charge"') is None  # a revert lands nothing
    assert landed_key('Revert "Reapply "Round totals in charge""') is None


def test_the_same_vague_subject_again_is_no_re_land(tmp_path: Path, open_ws: list[Workspace]) -> None:
    """tqdm reverted one "minor optimisation" (c89cfc1: it stopped update(0) from refreshing) and later committed
    others under the same words: those are other changes, and the dead end stands."""
    repo: Repo = billing_repo(tmp_path / "repo")
    repo.edit("billing.py", "    total = amount\n", "    total = amount\n    total = round(total, 2)\n")
    bad = repo.commit("Minor optimisation")
    revert(repo, bad, f'Revert "Minor optimisation"\n\nThis reverts commit {bad}.\n\n'
           "Rounding each charge lost cents on long invoices.")  # fmt: skip
    repo.edit("billing.py", "    return -amount\n", "    return 0 - amount\n")
    repo.commit("Minor optimisation")
    ws, report = mined(repo, open_ws)
    assert [m for m in ws.suggestions() if "bring back" in m.text]
    assert Noise.REVERT_TO_RELAND not in report.noise


def test_a_fix_carrying_gits_revert_line_is_a_revert_of_what_it_names(tmp_path: Path, open_ws: list[Workspace]) -> None:
    """Second QA pass 8, finding 1: ripgrep d47663b "searcher: fix regression with `--line-buffered` flag" carries
    git's "This reverts commit 8c6595c" line; the undone fix was proposed as a lesson, with the revert as its second
    "fix". The undone commit proposes nothing and counts as no fix; the revert is its dead end, with its reason."""
    repo: Repo = billing_repo(tmp_path / "repo")
    repo.edit("billing.py", "    total = amount\n", "    total = amount\n    total = round(total, 2)\n")
    bad = repo.commit(
        "Fix fractional totals in charge\n\nThe gateway rejected fractions, because totals were never rounded."
    )
    revert(repo, bad, "billing: fix regression with partial refunds\n\n"
           "In retrospect, rounding each charge is contrary to how partial refunds are settled: they lost cents on "
           f"long invoices. So this takes the first fix back out.\n\nThis reverts commit {bad}.")  # fmt: skip
    ws, report = mined(repo, open_ws)
    texts = [m.text for m in ws.suggestions()]
    assert not [t for t in texts if "Avoid reintroducing" in t or "fractional totals in charge:" in t], texts
    [dead_end] = kinds(ws, "revert")
    assert "Fix fractional totals in charge" in dead_end.text and "partial refunds are settled" in dead_end.text
    assert report.noise[Noise.REVERTED] == 1


def test_a_revert_line_naming_a_commit_outside_the_history_reverts_nothing(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    """zod's squash merges (ae3b39c) carry the revert lines of their pull request's own commits, which the main
    history never had: such a commit is read as what it says it is, and withdraws nothing."""
    repo: Repo = billing_repo(tmp_path / "repo")
    round_charge(repo)
    repo.edit("billing.py", "    return -amount\n", "    return -abs(amount)\n")
    repo.commit("Fix refunds of negative amounts (#31)\n\n* Negate refunds\n\nThis reverts commit "
                "0123456789abcdef0123456789abcdef01234567.\n\n* Refunds of negative amounts were paid out, because "
                "the sign was flipped twice.")  # fmt: skip
    ws, report = mined(repo, open_ws)
    assert not kinds(ws, "revert") and Noise.REVERTED not in report.noise
    assert [m for m in ws.suggestions() if "round totals in charge" in m.text.lower()]  # nothing withdrawn


def test_a_conventional_revert_in_its_own_words_names_what_it_undid() -> None:
    """Second QA pass 8, finding 2: zod's "revert(core): drop the exactOptional parse prototype" became "Do not bring
    back “drop the exactOptional parse prototype”", the opposite of what it meant. A quoted subject stays whole."""
    subject = "revert(core): drop the exactOptional parse prototype from #6432 (#6438)"
    what = revert_target(record(subject, "It rejected every inner that accepts undefined."))
    assert what is not None
    assert said(undone_thing(subject, what)) == "the exactOptional parse prototype"
    assert undone_thing('Revert "Remove the cache"', "Remove the cache") == "Remove the cache"
    assert undone_thing('revert: "remove the cache"', "remove the cache") == "remove the cache"
    assert undone_thing("revert: fix the crash on empty input", "fix the crash on empty input") == (
        "fix the crash on empty input"
    )


def test_a_squash_holding_a_revert_among_its_items_undoes_it_and_is_no_dead_end(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    """starlette cc20c86 "Deprecate `on_startup` and `on_shutdown` events (#2070)": a squash whose first item
    reverts "Support lifespan state" (git's line naming it) before a new implementation. The reverted commit's
    lessons go; the squash is read as what its subject says, not as a dead end against what it re-implemented."""
    repo: Repo = billing_repo(tmp_path / "repo")
    bad = round_charge(repo)
    repo.edit("billing.py", "total = round(amount)", "total = round(amount, 2)")
    repo.commit(f'Settle charges in cents (#12)\n\n* Revert "Round totals in charge"\n\nThis reverts commit {bad}.'
                "\n\n* new implementation\n\n* Settle charges in cents")  # fmt: skip
    ws, report = mined(repo, open_ws)
    assert not kinds(ws, "revert")
    assert not [m for m in ws.suggestions() if "round totals in charge" in m.text.lower()]
    assert report.noise[Noise.REVERTED] == 1


def test_a_reverts_reason_is_what_went_wrong_and_a_link_alone_is_none() -> None:
    """ripgrep d47663b's dead end said the story ("In my fix for #3184, I actually had two fixes …") and not that the
    fix "ended up regressing `--line-buffered`"; cobra 40b5bc1's why was only "Ref: https://…"."""
    story = (
        "We tried two things at once when streaming uploads. The first read the whole body up front. "
        "It ended up regressing uploads of large files on Windows."
    )
    verdict = classify(record('Revert "Stream uploads"', f"This reverts commit 1234567.\n\n{story}"))
    assert verdict.kind == VerdictKind.REVERT and "regressing uploads" in verdict.why
    assert not verdict.why.startswith("We tried two things")
    linked = classify(record('Revert "Stream uploads"', "Ref: https://github.com/a/b/pull/2173#issuecomment-26615"))
    assert linked.reason == Noise.REVERT_NO_REASON
