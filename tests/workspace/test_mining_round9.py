"""Mining round 9 (issue 23): what an eighth and ninth blind judge rejected on eleven fresh histories — each rule on a
repository or source the test builds.

git's own message for a reverted merge ("This reverts commit …, reversing changes made to …") is no reason; a why
that does not know the cause ("not entirely sure why this fails") or says nothing was wrong ("not really an issue
here, but it doesn't hurt") is none; and a warning comment whose only "reason" is an error word it is about ("don't
override error message from content expressions") gives none.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.memory.vocabulary import MemoryStatus, MemoryType
from forewarn.workspace import mine_comments, mining
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_rules import Noise, VerdictKind, classify, reverted_shas
from tests.gitrepo import Repo
from tests.workspace.billing_history import billing_repo, kinds, mined, record, round_charge


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return billing_repo(tmp_path / "repo")


MERGE_REVERT = (
    "This reverts commit c8785e7d6acc94464b3d54c866b3f5a08d3df74e, reversing\n"
    "changes made to b4e0676927f8acae8a3e8fea45fe47a8f1ddc62f.\n"
)


def test_git_s_message_for_a_reverted_merge_is_no_reason() -> None:
    commit = record('Revert "Merge pull request #5599 from someone:issue_4985"', MERGE_REVERT)
    assert reverted_shas(commit) == ["c8785e7d6acc94464b3d54c866b3f5a08d3df74e"]
    verdict = classify(commit)
    assert verdict.kind == VerdictKind.NOISE and verdict.reason == Noise.REVERT_NO_REASON
    # a reason written beside it still makes a dead end, without git's line
    reasoned = classify(
        record('Revert "Merge pull request #12 from a:b"', f"{MERGE_REVERT}\nIt broke parsing of ISO weeks.")
    )
    assert reasoned.kind == VerdictKind.REVERT and reasoned.why == "It broke parsing of ISO weeks."


def test_a_reverted_merge_proposes_no_dead_end(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.git("checkout", "-q", "-b", "feature")
    repo.edit("billing.py", "    total = amount", "    total = amount * 2")
    repo.commit("Double the charge for premium cards")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge pull request #7 from ann:feature", "feature")
    merge = repo.git("rev-parse", "HEAD")
    repo.git("revert", "--no-edit", "-m", "1", merge)
    assert "reversing" in repo.git("log", "-1", "--format=%B")
    ws, report = mined(repo, open_ws)
    assert kinds(ws, "revert") == []
    assert report.noise[Noise.REVERT_NO_REASON] == 1


def verdict_of(subject: str, body: str) -> tuple[Noise | None, str]:
    verdict = classify(record(subject, body, ("encode.go",)))
    return (verdict.reason if verdict.kind == VerdictKind.NOISE else None), verdict.why


def test_a_why_unsure_of_its_cause_or_of_any_bug_is_no_why() -> None:
    unsure = "Not entirely sure why this fails, but this fixes it in the meanwhile."
    assert verdict_of("Fix nested structs on 32bit archs", unsure) == (Noise.WHY_UNSURE, "")
    assert verdict_of("Fix nested structs on 32bit archs", "Not sure why this fails, but this change fixes it.")[0] == (
        Noise.WHY_UNSURE
    )
    harmless = (
        "This is actually not really an issue here, because U+FFFD isn't valid in TOML, but it doesn't hurt to "
        "properly check."
    )
    assert verdict_of("Fix the utf8.RuneError check in the lexer", harmless)[0] == Noise.WHY_UNSURE
    # a cause the author states stays, and the unsure sentence is left out of it
    cause = "Nested structs on 32bit archs were encoded twice because the index slice was shared between fields."
    reason, said = verdict_of("Fix nested structs on 32bit archs", f"{cause} {unsure}")
    assert reason is None and said == cause


def scan(source: str) -> mine_comments.CommentScan:
    return mine_comments.warning_comments("helpers.py", source.encode())


def test_an_error_word_alone_is_no_reason_in_a_comment() -> None:
    topic = """\
def nested_expr(content):
    # don't override error message from content expressions
    ret = build(content)
    return ret


def retry(hooks):
    # Errors thrown by beforeRetry hooks must propagate unchanged
    return run(hooks)
"""
    found = scan(topic)
    assert found.found == []
    assert found.skipped[Noise.COMMENT_NO_REASON] == 2
    framed = """\
def destroy(stream):
    # Don't destroy immediately, as the error may be emitted on an unsuccessful retry
    return later(stream)


def apply(state):
    # XXX if an error happens we must make sure no state has been changed at the point of return
    return commit(state)


def parse(text):
    # Numbers like '123.' must be rejected because TOML does not allow a trailing dot
    return number(text)
"""
    assert [symbol for _, symbol in scan(framed).found] == ["destroy", "apply", "parse"]
    # a tag marks a warning on purpose: an external constraint it states is its reason
    assert mine_comments.gives_reason("XXX: the gateway rejects totals over 10k")
    assert not mine_comments.gives_reason("Errors thrown by beforeRetry hooks must propagate unchanged")


def merge_rounding(repo: Repo) -> str:
    """A branch whose one commit argues a choice in ``charge``, merged with a merge commit; the merge's sha."""
    repo.git("checkout", "-q", "-b", "rounding")
    round_charge(repo)
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge pull request #9 from ann:rounding", "rounding")
    return repo.git("rev-parse", "HEAD")


def test_a_reverted_merge_withdraws_what_it_brought_in(repo: Repo, open_ws: list[Workspace]) -> None:
    merge = merge_rounding(repo)
    repo.git("revert", "--no-edit", "-m", "1", merge)
    ws, report = mined(repo, open_ws)
    assert ws.suggestions() == []  # the branch's decision was undone with the merge; the revert gave no reason
    assert report.noise[Noise.REVERTED] == 2  # the merge and the commit it brought in
    assert mining.merged_commits(repo.root, merge) == [repo.git("rev-parse", "rounding")]
    assert mining.merged_commits(repo.root, repo.git("rev-parse", "rounding")) == []  # one parent: no merge
    assert mining.merged_commits(repo.root, repo.git("rev-list", "--max-parents=0", "HEAD")) == []  # the root
    assert report.noise[Noise.REVERT_NO_REASON] == 1


def test_a_merge_reverted_after_a_run_withdraws_its_commits_lessons(repo: Repo, open_ws: list[Workspace]) -> None:
    merge = merge_rounding(repo)
    ws, _ = mined(repo, open_ws)
    [decision] = ws.suggestions()
    assert decision.type == MemoryType.DECISION
    repo.git("revert", "--no-edit", "-m", "1", merge)
    report = mining.mine(ws)  # incremental: the revert names the merge, which an earlier run read
    assert report.withdrawn == 1 and ws.suggestions() == []
    assert ws.get(decision.id).status == MemoryStatus.DISMISSED
