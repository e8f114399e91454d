"""A commit lesson's why, as the blind labels of QA pass 10 found them.

- A why said in the present of its commit ("Currently, it will fix clashes that don't exist …", "… logs will currently
  always be printed to stdout") tells the code before the fix, not the code as it is: it is said so ("Before this
  change, …"). A stopgap ("For now …") or a noun ("Today's …") is no such sentence, and a decision's why is left as is.
- A sentence that counts what a thing said before does ("First it breaks …", "Second, it causes a panic …") comes with
  the sentence that names the thing, never with a dangling "it".
"""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_lessons import error_signature, why
from forewarn.workspace.mine_rules import CAUSE_WORDS, RATIONALE_WORDS, STRONG_WORDS
from forewarn.workspace.mine_why import as_before
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined

CLASHES = (
    "Currently, it will fix clashes that don't exist and miss clashes that\n"
    "do exist due to field remapping.\n\nFixes #708\n"
)


def test_a_why_said_in_the_present_of_its_commit_tells_the_code_before() -> None:
    found = why(CLASHES, "Have prefixClashes respect the field map", CAUSE_WORDS, STRONG_WORDS, faults=True)
    assert found == (
        "Before this change, it will fix clashes that don't exist and miss clashes that do exist due to field "
        "remapping."
    )
    assert (
        as_before("Right now The parser drops the last line.") == "Before this change, the parser drops the last line."
    )
    assert as_before("At the moment, `Parse` returns nil.") == "Before this change, `Parse` returns nil."
    assert as_before("When redirected, logs will currently always be printed to stdout, not stderr.") == (
        "Before this change, when redirected, logs will always be printed to stdout, not stderr."
    )
    for same in ("For now we skip the cache.", "Today's parser is fine.", "The currently-open file is kept."):
        assert as_before(same) == same


def test_a_decisions_why_keeps_its_present() -> None:
    body = "Currently only Linux is supported because the API needs epoll, which avoids a busy loop.\n"
    assert why(body, "Add an event loop", RATIONALE_WORDS, STRONG_WORDS).startswith("Currently only Linux")


def test_error_signature_is_still_read_from_mine_lessons() -> None:
    assert error_signature("Fix KeyError: 'x' in parse", "") == "KeyError: 'x' in parse"


SCANNER = """\
Commit 1a2b3c4 introduced this bug by defining an incorrect split
function. First it breaks the old behavior because it never splits at
newlines now. Second, it causes a panic because it never tells the
scanner to stop.

This commit fixes it by restoring the old behavior and calling
bufio.ScanLines.
"""


def test_a_counted_sentence_comes_with_the_thing_it_counts() -> None:
    found = why(SCANNER, "fix panic in Writer", CAUSE_WORDS, STRONG_WORDS, faults=True)
    assert found.startswith("Commit 1a2b3c4 introduced this bug by defining an incorrect split function. First it ")
    assert "the scanner to stop." in found
    assert "This commit fixes it" not in found


GO_BEFORE = 'package log\n\nfunc prefixClashes(data map[string]any) {\n\tif _, ok := data["time"]; ok {\n\t}\n}\n'
GO_AFTER = (
    "package log\n\nfunc prefixClashes(data map[string]any, m FieldMap) {\n"
    '\tif _, ok := data[m.resolve("time")]; ok {\n\t}\n}\n'
)


def test_a_mined_lesson_tells_its_fault_as_before_the_fix(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("formatter.go", GO_BEFORE)
    repo.commit("Add formatter")
    repo.write("formatter.go", GO_AFTER)
    repo.commit(f"Fix prefixClashes ignoring the field map\n\n{CLASHES}")
    ws, _ = mined(repo, open_ws)
    [lesson] = [m for m in ws.suggestions() if m.source == "commit"]
    assert "Why: Before this change, it will fix clashes that don't exist" in lesson.text
    assert "Currently" not in lesson.text
