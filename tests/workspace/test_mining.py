"""Mining history and warning comments, on small repositories each test builds with real git."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.memory.vocabulary import MemoryStatus, MemoryType
from forewarn.workspace import history, mining
from forewarn.workspace.engine import Workspace
from forewarn.workspace.history import CommitRecord, FileChange, GitError
from tests.gitrepo import ENV, Repo

BILLING = """\
def charge(card, amount):
    total = amount
    return total


def refund(card, amount):
    return -amount
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "repo")
    r.write("billing.py", BILLING)
    r.commit("Add billing")
    return r


@pytest.fixture
def open_ws() -> Iterator[list[Workspace]]:
    opened: list[Workspace] = []
    yield opened
    for ws in opened:
        ws.close()


def mined(repo: Repo, opened: list[Workspace], **kwargs: object) -> tuple[Workspace, mining.MineReport]:
    ws = Workspace.open(repo.root, embedder=None)
    opened.append(ws)
    return ws, mining.mine(ws, **kwargs)  # type: ignore[arg-type]


def record(
    subject: str, body: str = "", *, parents: int = 1, author: str = "Ann", paths: tuple[str, ...] = ("a.py",)
) -> CommitRecord:
    return CommitRecord(
        sha="0" * 40,
        parents=["1" * 40] * parents,
        author=author,
        date="2024-01-01T00:00:00+00:00",
        subject=subject,
        body=body,
        files=[FileChange(path=p, old_path=p, hunks=[(1, 1)]) for p in paths],
    )


EXPLAINED = "The pool was shared across threads, so a second request would reuse a closed socket and hang."


# --- classification: each noise rule and each lesson ---------------------------------------------------


@pytest.mark.parametrize(
    ("rec", "reason"),
    [
        (record("Merge branch 'x'", EXPLAINED, parents=2), mining.NOISE_MERGE),
        (record("Bump urllib3 from 1.2 to 1.3", EXPLAINED, author="dependabot[bot]"), mining.NOISE_BOT),
        (record("v2.31.0"), mining.NOISE_VERSION),
        (record("Release 2.31.0", EXPLAINED), mining.NOISE_VERSION),
        (record("Fix typo in charge"), mining.NOISE_COSMETIC),
        (record("Run black over the tree"), mining.NOISE_COSMETIC),
        (record("Update changelog", EXPLAINED, paths=("HISTORY.md",)), mining.NOISE_CHANGELOG),
        (record("Fix the pool", "Fixes #12.\n\nSigned-off-by: Ann <a@x.org>"), mining.NOISE_EMPTY),
        (record('Revert "Revert "Stream uploads""', "This reverts commit 1234567."), mining.NOISE_REAPPLIED),
        (record("Fix the pool docs", EXPLAINED, paths=("docs/pool.rst", "README.md")), mining.NOISE_DOCS),
        (
            record("Add a retry helper", "This adds the helper and its tests to the module here."),
            mining.NOISE_NO_LESSON,
        ),
    ],
)
def test_each_noise_rule_names_its_reason(rec: CommitRecord, reason: str) -> None:
    verdict = mining.classify(rec)
    assert (verdict.kind, verdict.reason) == ("noise", reason)


def test_a_fix_with_an_empty_body_is_noise_but_still_counts_toward_hot_spots() -> None:
    assert mining.classify(record("Fix the pool")).fix


def test_revert_is_a_dead_end_with_the_reason_from_the_body() -> None:
    body = "This reverts commit 1234567890abcdef.\n\nIt broke uploads on Windows.\n\nSigned-off-by: Ann <a@x.org>"
    verdict = mining.classify(record('Revert "Stream uploads in chunks"', body))
    assert verdict.type is MemoryType.DEAD_END
    assert verdict.text == "Tried Stream uploads in chunks, reverted: It broke uploads on Windows."


def test_fix_with_an_explained_cause_is_an_error_pattern_or_a_gotcha() -> None:
    err = mining.classify(record("Fix hang in pool", EXPLAINED + " It raised ConnectionError on retry."))
    assert (err.kind, err.type) == ("fix", MemoryType.ERROR_PATTERN)
    trap = mining.classify(
        record("Fix rounding in charge", "Amounts are cents; dividing by 100 would lose the remainder.")
    )
    assert (trap.kind, trap.type) == ("fix", MemoryType.GOTCHA)
    assert trap.text.startswith("Fix rounding in charge\n\nAmounts are cents")


def test_rationale_is_a_decision_and_trailers_are_stripped() -> None:
    body = (
        "We chose sqlite instead of a server because installs must stay one step.\n\n"
        "Co-authored-by: Bo <b@x.org>\nChange-Id: I123"
    )
    verdict = mining.classify(record("Store sessions in sqlite", body))
    assert verdict.type is MemoryType.DECISION
    assert "Co-authored-by" not in verdict.text and "Change-Id" not in verdict.text


# --- history: the streamed log ------------------------------------------------------------------------------


def test_log_records_hunks_renames_binary_and_non_utf8_messages(repo: Repo) -> None:
    repo.write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00binary")
    repo.commit("Add logo")
    repo.git("mv", "billing.py", "payments.py")
    repo.commit("Rename billing to payments")
    repo.write("payments.py", BILLING.replace("return -amount", "return -abs(amount)"))
    repo.commit(b"Fix refund sign \xe9t\xe9\n\nlatin-1 body \xff")
    commits = list(history.iter_commits(repo.root, ["HEAD"]))
    fix, rename, logo, _add = commits
    # git may re-encode it as Latin-1; whatever comes back is decoded, never raised on
    assert fix.subject.startswith("Fix refund sign ") and fix.body.startswith("latin-1 body ")
    assert fix.files[0].path == "payments.py" and fix.files[0].hunks == [(7, 7)] and len(fix.files[0].blob) == 40
    assert rename.files[0].renamed and rename.files[0].old_path == "billing.py"
    assert logo.binary_files == 1 and logo.files == []


def test_giant_commits_are_counted_not_parsed(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history, "GIANT_COMMIT_FILES", 3)
    for i in range(5):
        repo.write(f"gen/f{i}.py", f"x = {i}\n")
    repo.commit("Regenerate everything because the generator changed and must be rerun")
    giant = next(history.iter_commits(repo.root, ["HEAD"]))
    assert giant.giant and giant.file_count == 5 and giant.files == []
    assert mining.classify(giant).reason == mining.NOISE_GIANT


def test_vendored_files_are_skipped_and_counted(repo: Repo) -> None:
    repo.write("vendor/lib.py", "x = 1\n")
    repo.write("billing.py", BILLING + "\n")
    repo.commit("Vendor lib")
    top = next(history.iter_commits(repo.root, ["HEAD"]))
    assert top.vendored_files == 1 and [f.path for f in top.files] == ["billing.py"]


# --- warning comments --------------------------------------------------------------------------------------


def test_warning_comments_are_found_by_tree_sitter_and_anchored_to_their_symbol() -> None:
    source = b"""\
def charge(card, amount):
    # HACK: the gateway rounds half-down,
    # so we add a cent before sending.
    s = "# never shows: this is a string"
    t = s  # type: ignore[assignment]  # stubs don't know
    u = t  # must not merge with the line above
    return amount


# do not call this before login, it must wait
def refund(card):
    return 0
"""
    found = mining.warning_comments("billing.py", source)
    assert [(c.kind, c.line, symbol) for c, symbol in found] == [
        ("HACK", 2, "charge"),
        ("must not", 6, "charge"),
        ("do not", 10, "refund"),
    ]
    assert found[0][0].text == "HACK: the gateway rounds half-down, so we add a cent before sending."


def test_sphinx_attribute_comments_lose_their_marker() -> None:
    source = b"class Session:\n    #: must be set before use, never None\n    #: second line here\n    verify = True\n"
    [(comment, _symbol)] = mining.warning_comments("sessions.py", source)
    assert comment.text == "must be set before use, never None second line here"


# --- mine(): anchoring, incremental, bad input -------------------------------------------------------------


def _fix_refund(repo: Repo, n: int) -> str:
    repo.write("billing.py", BILLING.replace("return -amount", f"return -abs(amount) * {n}"))
    return repo.commit(
        f"Fix refund sign, take {n}\n\nA negative amount would refund a charge twice because the sign flips."
    )


def test_mine_anchors_a_fix_to_its_symbol_followed_through_a_rename(repo: Repo, open_ws: list[Workspace]) -> None:
    sha = _fix_refund(repo, 1)
    repo.git("mv", "billing.py", "payments.py")
    repo.commit("Rename billing to payments")
    ws, report = mined(repo, open_ws)
    [memory] = [m for m in ws.suggestions() if m.provenance and m.provenance.get("kind") == "fix"]
    assert memory.status == MemoryStatus.SUGGESTED and memory.type == MemoryType.GOTCHA
    assert memory.anchor is not None and (memory.anchor.file, memory.anchor.symbol) == ("payments.py", "refund")
    assert memory.provenance is not None and memory.provenance["anchor"] == "symbol"
    assert memory.provenance["then"] == "billing.py::refund"
    assert memory.provenance["commits"][0]["sha"] == sha
    assert memory.created_at.startswith("2024-01-02T10:00:00")
    assert report.anchors["symbol"] >= 1


def test_release_notes_beside_code_are_no_anchor(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.write("HISTORY.md", "- refund fixed\n")
    _fix_refund(repo, 1)
    ws, _ = mined(repo, open_ws)
    fixes = [m for m in ws.suggestions() if m.provenance and m.provenance.get("kind") == "fix"]
    assert [(m.anchor.file, m.anchor.symbol) for m in fixes if m.anchor] == [("billing.py", "refund")]


def test_a_symbol_gone_at_head_falls_back_to_its_file(repo: Repo, open_ws: list[Workspace]) -> None:
    _fix_refund(repo, 1)
    repo.write("billing.py", BILLING.replace("def refund", "def give_back"))
    repo.commit("Rename refund")
    ws, _ = mined(repo, open_ws)
    [memory] = [m for m in ws.suggestions() if m.provenance and m.provenance.get("kind") == "fix"]
    assert memory.anchor is not None and (memory.anchor.file, memory.anchor.symbol) == ("billing.py", None)
    assert memory.provenance is not None and memory.provenance["anchor"] == "file"


def test_revert_hot_spot_comment_and_idempotent_incremental_re_mine(repo: Repo, open_ws: list[Workspace]) -> None:
    for n in range(mining.HOTSPOT_MIN_FIXES):
        _fix_refund(repo, n)
    repo.write("billing.py", BILLING.replace("total = amount", "total = round(amount)"))
    bad = repo.commit("Round totals")
    repo.git("revert", "--no-edit", bad)
    repo.git(
        "commit", "--amend", "-q", "-m", f'Revert "Round totals"\n\nThis reverts commit {bad}.\n\nRounding lost cents.'
    )
    repo.write(
        "billing.py",
        BILLING.replace("    total = amount", "    # XXX: the gateway rejects totals over 10k\n    total = amount"),
    )
    repo.commit("Note the limit")
    ws, first = mined(repo, open_ws)
    by_kind = {str(m.provenance.get("kind")): m for m in ws.suggestions() if m.provenance}
    assert by_kind["revert"].type == MemoryType.DEAD_END
    assert by_kind["revert"].text == "Tried Round totals, reverted: Rounding lost cents."
    assert by_kind["hotspot"].anchor is not None and by_kind["hotspot"].anchor.symbol == "refund"
    assert f"fixed {mining.HOTSPOT_MIN_FIXES} times" in by_kind["hotspot"].text
    assert by_kind["XXX"].source == "comment" and by_kind["XXX"].anchor is not None
    assert by_kind["XXX"].anchor.symbol == "charge"
    total = len(ws.suggestions())
    assert first.added == total and first.noise[mining.NOISE_EMPTY] >= 1
    again = mining.mine(ws)  # nothing new since the last run
    assert again.commits_read == 0 and again.seconds < 1 and len(ws.suggestions()) == total
    ws.set_mining_state(mining.STATE_LAST_MINED, "")  # forget where we were: a full re-mine adds nothing
    full = mining.mine(ws)
    assert full.added == 0 and full.known == total and len(ws.suggestions()) == total
    new = _fix_refund(repo, 99)
    step = mining.mine(ws)
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

    report = mining.mine(ws, progress=on_progress, cancel=cancel)
    assert report.cancelled and seen == [(1, 4)] and ws.suggestions() == []
    assert ws.mining_state(mining.STATE_LAST_MINED) is None
    full = mining.mine(ws, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (4, 4) and full.added == len(ws.suggestions()) > 0


def test_a_hot_spot_whose_fixes_span_several_runs_is_found(repo: Repo, open_ws: list[Workspace]) -> None:
    _fix_refund(repo, 1)
    ws, _ = mined(repo, open_ws)
    for n in range(2, mining.HOTSPOT_MIN_FIXES + 1):
        _fix_refund(repo, n)
        mining.mine(ws)
    [hot] = [m for m in ws.suggestions() if m.provenance and m.provenance.get("kind") == "hotspot"]
    assert f"fixed {mining.HOTSPOT_MIN_FIXES} times" in hot.text
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
