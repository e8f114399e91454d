"""Mining round 4 (issue 23): precision that holds on histories nobody read — each rule on a repository the test builds.

A warning comment needs a reason and a symbol, and says one thing once; a TODO is a task; a lesson lands where the
behaviour is decided (not a one-call wrapper, not a symbol a squashed message names only in passing) and its why
gives a cause, not an expectation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.workspace import mine_comments
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_anchors import about_other_symbol, names_in, squash_lead
from forewarn.workspace.mine_code import is_wrapper
from forewarn.workspace.mine_rules import Noise, VerdictKind, classify
from tests.gitrepo import Repo
from tests.workspace.billing_history import billing_repo, mined, record


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return billing_repo(tmp_path / "repo")


# --- comments --------------------------------------------------------------------------------------------------------


def test_a_warning_comment_needs_a_reason_and_a_task_is_no_warning() -> None:
    source = b"""\
def commands(self):
    # do not sort the commands if they are already sorted or sorting was disabled
    if self.enabled and not self.sorted:
        self.items.sort()
    # never sort while a completion runs: the shell would read a half-sorted list
    return self.items


def gt(a, b):
    # FIXME gt is unused by the package and should be removed in a version 2 of it
    return a > b


def path_rule(path, authority):
    # If a URI has an authority component, then the path must be empty or begin with a slash.
    if authority and path and not path.startswith("/"):
        raise ValueError(path)
"""
    scan = mine_comments.warning_comments("cmd.py", source)
    assert [(c.kind, symbol) for c, symbol in scan.found] == [("never", "commands")]
    assert scan.skipped[Noise.COMMENT_NO_REASON] == 2 and scan.skipped[Noise.COMMENT_TASK] == 1
    assert mine_comments.gives_reason("HACK: the gateway rounds half-down, so we add a cent before sending.")
    assert mine_comments.gives_reason("Must print to stderr for this not to be read by the completion script")


def test_comments_on_no_symbol_or_differing_by_one_name_are_one_lesson_at_most(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    helpers = "".join(
        f"def {name}(a, b):\n    # never call {name} from a signal handler: the lock would deadlock\n"
        f"    return lock_and_compare(a, b, '{name}')\n\n\n"
        for name in ("gt", "lt", "eq")
    )
    repo.write("compat.py", "# never import this module at load time: its lock would be held too early\nX = 1\n\n\n"
               + helpers)  # fmt: skip
    repo.commit("Add compat")
    ws, report = mined(repo, open_ws)
    [only] = ws.suggestions()
    assert only.anchor is not None and only.anchor.symbol == "gt"
    assert report.noise[Noise.COMMENT_NEAR_DUPLICATE] == 2 and report.noise[Noise.COMMENT_FILE_ANCHOR] == 1
    assert mine_comments.near_keys("FIXME Gt is unused by us") & mine_comments.near_keys("FIXME Eq is unused by us")
    assert not mine_comments.near_keys("FIXME Gt is unused") & mine_comments.near_keys("never call gt twice in a row")


# --- commits ---------------------------------------------------------------------------------------------------------


def test_a_lesson_on_a_one_call_wrapper_whose_callers_the_fix_changed_proposes_nothing(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    before = (
        "def print_err(msg):\n    return out(msg)\n\n\n"
        "def execute(cmd):\n    if cmd.failed:\n        out('Error: ' + cmd.error)\n        return 1\n    return 0\n"
    )
    repo.write("cli.py", before)
    repo.commit("Add cli")
    after = before.replace("return out(msg)", "return err(msg)").replace("out('Error: '", "print_err('Error: '")
    repo.write("cli.py", after)
    repo.commit("Fix print_err writing to stdout\n\nScripts that parse our output would read the errors as data.")
    ws, report = mined(repo, open_ws)
    assert ws.suggestions() == [] and report.noise[Noise.WRAPPER_ANCHOR] == 1
    assert is_wrapper("def f(self, x):\n    '''Doc.'''\n    return self._g(x)\n", "a.py")
    assert not is_wrapper("func isFlag(a string) bool {\n\treturn len(a) >= 2 && a[0] == '-'\n}", "a.go")


def test_a_symbol_named_only_in_a_side_item_of_a_squashed_message_gets_no_lesson(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    repo.edit("billing.py", "    total = amount\n", "    total = amount * 100\n    total = total // 100\n")
    repo.edit("billing.py", "    return -amount\n", "    value = -amount\n    return value\n")
    message = (
        "Fix totals for plugin gateways\n\n"
        "* Fix totals for plugin gateways\n\nThe gateway would reject fractional cents because it expects integers.\n\n"
        "* Tidy the refund() helper\n\n* Add a test\n"
    )
    repo.commit(message)
    ws, report = mined(repo, open_ws)
    assert ws.suggestions() == [] and report.noise[Noise.NAMED_IN_PASSING] == 1
    assert squash_lead(message) is not None and "refund" not in names_in(squash_lead(message) or "")
    assert squash_lead("Fix x\n\nOne paragraph.\n\n* one item\n") is None


def test_a_why_that_only_says_what_should_be_is_no_cause() -> None:
    verdict = classify(record("Fix elapsed for streamed responses", "A response built from content should have "
                              "elapsed zero. Adjusted the tests."))  # fmt: skip
    assert (verdict.kind, verdict.reason) == (VerdictKind.NOISE, Noise.WHY_ONLY_SHOULD)
    kept = classify(record("Fix flag completion lookups", "The completion functions should not be stored on the root "
                           "command, because the root may differ at registration time."))  # fmt: skip
    assert kept.lesson


def test_a_plain_word_names_a_symbol_from_the_subject_or_written_as_code_only() -> None:
    names = names_in("Fix send when closed\n\nFlags:\n  -h  help. Call `close` or reset() on Session.mount.")
    assert {"send", "close", "reset", "Session", "mount", "Session.mount"} <= names
    assert "Flags" not in names and "help" not in names


def test_a_why_that_argues_for_what_the_headline_removes_is_the_wrong_sentence() -> None:
    body = (
        "When a program has no sub-commands its root accepts arguments. We want to have the completion command for "
        "such programs because it completes their flags."
    )
    verdict = classify(record("Remove the default completion command if it is alone", body))
    assert (verdict.kind, verdict.reason) == (VerdictKind.NOISE, Noise.WHY_CONTRADICTS)
    assert classify(
        record("Remove the retry loop from refund", "It would charge twice because the gateway retries.")
    ).lesson


def test_a_why_that_explains_another_symbol_the_commit_changed_proposes_nothing(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    repo.edit("billing.py", "    total = amount\n", "    total = _in_cents(amount)\n    total = total + 1\n")
    repo.edit("billing.py", "    return -amount\n", "    return -_in_cents(amount)\n")
    helper = "def _in_cents(amount):\n    return round(amount * 100)\n\n\n"
    repo.write("billing.py", helper + (repo.root / "billing.py").read_text())
    repo.commit("Fix charge totals for gateways\n\nThe gateway would reject fractions: _in_cents rounds them because "
                "refunds must match.")  # fmt: skip
    ws, report = mined(repo, open_ws)
    assert ws.suggestions() == [] and report.noise[Noise.WHY_OTHER_SYMBOL] == 1
    assert not about_other_symbol("charge rounds via _in_cents", "charge", ["charge", "_in_cents"])
