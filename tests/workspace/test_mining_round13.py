"""Mining round 13 (issue 23): what round 12's blind judges rejected.

A comment that names a contract instead of stating it ("The caller must uphold the safety contract for `erase`
method") says nothing at the call site it is repeated on (``comment-contract-reference``); a comment that argues with
a linter or type checker on its own line or the line below ("ruff:ignore[blind-except]  # errors must surface",
``#[allow(...)]``, ``eslint-disable-next-line``) warns no one (``comment-lint-suppression``). Code under ``tasks/``,
``scripts/``, ``tools/`` or in a noxfile is the maintainers' tooling, not the product (``tooling-code``). A subject cut
where a tool wrapped it, whose body carries on with the sentence, has no headline to say (``headline-cut-off``); a
pull-request template's HTML comment is no why, however many lines it spans; and a "." inside code no longer ends the
sentence a deduction "must" is looked for in.
"""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace import mine_comments
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_rules import Noise, classify, strip_template
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined, record

TABLE = """\
impl RawTable {
    unsafe fn erase(&mut self, index: usize) {
        // SAFETY: The caller must uphold the safety contract for `erase` method.
        self.inner.erase(index);
    }

    unsafe fn iter(&self) -> RawIter {
        // SAFETY: the caller must uphold the safety rules for the [`RawIterRange::new`]
        RawIterRange::new(self.ctrl, self.buckets())
    }

    unsafe fn bucket(&self, index: usize) -> Bucket {
        // SAFETY: the caller must ensure index is below the bucket count, or the pointer walks off the table.
        Bucket::from_base_index(self.data_end(), index)
    }
}
"""


def test_a_contract_named_but_not_stated_is_no_warning() -> None:
    scan = mine_comments.warning_comments("src/raw.rs", TABLE.encode())
    assert scan.skipped[Noise.COMMENT_CONTRACT] == 2
    assert [c.text for c, _ in scan.found] == [
        "SAFETY: the caller must ensure index is below the bucket count, or the pointer walks off the table."
    ]


def test_a_contract_whose_terms_follow_is_kept() -> None:
    assert not mine_comments.CONTRACT_REFERENCE.search(
        "The caller must uphold these requirements: the pointer is aligned and the table is not empty."
    )


LOCKS = """\
def release(lock):
    try:
        lock.backend.release()
    except Exception:  # ruff:ignore[blind-except]  # both errors must surface, or the caller never learns why
        raise


def acquire(lock):
    # The backend must never be awaited twice here, or the cancellation is lost and the lock leaks.
    return lock.backend.acquire()  # type: ignore[attr-defined]


def poll(lock):
    # Never poll faster than once a second: the filesystem throttles us and every waiter then times out.
    waited = 0
    while not lock.backend.ready():
        waited += lock.interval
        sleep(lock.interval)
    return waited
"""


def test_a_note_beside_a_lint_suppression_is_no_warning() -> None:
    scan = mine_comments.warning_comments("src/locks.py", LOCKS.encode())
    assert scan.skipped[Noise.LINT_SUPPRESSION] == 2  # on the suppression's line, and right above one
    assert [c.text for c, _ in scan.found] == [
        "Never poll faster than once a second: the filesystem throttles us and every waiter then times out."
    ]


def test_a_rust_allow_attribute_or_eslint_directive_below_a_note_suppresses_it() -> None:
    for directive in ("#[allow(clippy::needless_range_loop)]", "// eslint-disable-next-line no-await-in-loop"):
        assert mine_comments.LINT_SUPPRESSION.search(directive)
    assert not mine_comments.LINT_SUPPRESSION.search("// allow the caller to retry, the socket must stay open")


def test_a_warning_comment_in_tooling_is_no_lesson() -> None:
    source = (
        "def attempt(probe):\n"
        "    # Never let one probe's failure stop the run: the harness must classify it and carry on with the rest.\n"
        "    return probe()\n"
    )
    for path in ("tasks/verify_filesystem.py", "scripts/release.py", "website/scripts/sync.py", "noxfile.py"):
        scan = mine_comments.warning_comments(path, source.encode())
        assert scan.skipped[Noise.TOOLING_CODE] == 1 and not scan.found, path
    assert len(mine_comments.warning_comments("src/attempt.py", source.encode()).found) == 1


WHY = "The release tagged the wrong commit because git picked up the autocrlf setting, which rewrote the line endings."


def test_a_commit_to_tooling_alone_proposes_nothing(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("src/app.py", "def run(x):\n    return x + 1\n")
    repo.write("scripts/release.py", "import subprocess\n\n\ndef tag(v):\n    subprocess.run(['git', 'tag', v])\n")
    repo.commit("Add the app and its release script")
    repo.write(
        "scripts/release.py",
        "import subprocess\n\n\ndef tag(v):\n    subprocess.run(['git', '-c', 'core.autocrlf=false', 'tag', v])\n",
    )
    repo.commit(f"Fix the release script tagging the wrong commit\n\n{WHY}")
    ws, report = mined(repo, open_ws)
    assert [m for m in ws.suggestions() if m.source == "commit"] == []
    assert report.noise.get(Noise.TOOLING_CODE, 0) == 1
    assert classify(record("Fix the release tagging the wrong commit", WHY, ("src/app.py",))).reason is None


def test_a_subject_cut_mid_sentence_is_no_headline() -> None:
    cut = record(
        "repaired support for the :meth:`.BatchOperations.create_index`",
        "directive, which was mis-named internally such that the operation failed with an error when run.",
    )
    assert classify(cut).reason == Noise.HEADLINE_CUT
    later = record(
        "repaired batch migration support for schema types which generate",
        "constraints, such as Enum.\n\nPreviously, an alter column failed because the constraint was dropped twice.",
    )
    assert classify(later).reason is None  # its why is a later whole sentence: the lesson stays
    whole = record(
        "Fix the retry loop when the server closes the stream early",
        "the loop spun forever because the server closed the stream early, and the worker hung until killed.",
    )
    assert classify(whole).reason is None  # a lower-case body after a whole headline starts its own sentence
    code = record(
        "Fix the retry loop when the server closes the stream early in tests",
        "read_frame() raised because the server closed the stream early, and the worker hung until it was killed.",
    )
    assert classify(code).reason != Noise.HEADLINE_CUT  # a name of code opens a sentence of its own


def test_a_pull_request_template_comment_is_no_why() -> None:
    body = (
        "<!-- go over following points. check them with an `x`.\n"
        "if the PR is not yet ready, because it would crash, mark it as a draft -->\n"
        "- [x] I have rebased"
    )
    assert strip_template(body) == ""
    assert classify(record("Fix postgres serial columns detected as plain integers in autogenerate", body)).reason in {
        Noise.PR_TEMPLATE,
        Noise.EMPTY,
    }


def test_a_dot_inside_code_does_not_end_a_deduction() -> None:
    assert mine_comments.is_deduction("Since `len` was checked above, `ptr.add(len)` must be valid for reads.")
    assert not mine_comments.is_deduction("Since the pool is shared. Callers must hold the lock while reading it.")


def test_a_quoted_number_s_dot_ends_no_sentence_and_as_a_case_is_no_cause() -> None:
    comment = "As a special case, numbers like '123.' are valid for strconv but must be rejected, TOML says so."
    assert not mine_comments.is_deduction(comment)


def test_a_package_named_for_what_it_tests_is_test_support() -> None:
    source = (
        "package ztest\n\n"
        "func (c *MockClock) Add(d time.Duration) {\n"
        "\t// The waiter may schedule more work, so we must release the lock before we wake it, or it deadlocks.\n"
        "\tc.mu.Unlock()\n"
        "}\n"
    )
    scan = mine_comments.warning_comments("internal/ztest/clock.go", source.encode())
    assert scan.skipped[Noise.TEST_COMMENT] == 1 and not scan.found
    assert mine_comments.is_product_path("internal/latest/clock.go")
