"""What a mined headline quotes of a commit's subject: the lesson, not the subject's bookkeeping.

Conventional commits ("fix(fetch): …", "feat!: …"), references stacked by squash merges ("… (#5890) (#5892)"),
credits ("… @likegun closes #1059", "thanks to @bob :bow:"), a scoped tag before a fix ("StaticFiles: Fix …") and a
revert's dangling quote used to reach the headline as they were: "In `bindData`: fix(binder): include field name …
(#2629)." ``said`` is what the headlines quote; ``clean_subject``, which the noise rules read, is unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_lessons import (
    clean_subject,
    comment_headline,
    dead_end_headline,
    fix_headline,
    hotspot_headline,
    said,
)
from tests.gitrepo import Repo
from tests.workspace.billing_history import BILLING, kinds, mined


@pytest.mark.parametrize(
    ("subject", "quoted"),
    [
        # a fix's type and scope: "fix …" when the rest names the bug, the rest alone when it names the change
        ("fix(tree): panic in findRoute with RedirectFixedPath", "fix panic in findRoute with RedirectFixedPath"),
        ("fix: goroutine leak in proxy raw mode", "fix goroutine leak in proxy raw mode"),
        ("fix(middleware): reset ContentLength after decompressing", "reset ContentLength after decompressing"),
        ("fix(tree): Keep panic infos consistent", "Keep panic infos consistent"),  # a verb first: the change
        ("fix(fetch): fix content length for FormData;", "fix content length for FormData"),
        ("feat(x)!: support @import in sheets", "support @import in sheets"),  # a handle-like word stays
        ("Fix:(issue_2292) Empty args no longer break parsing", "Empty args no longer break parsing"),
        ("StaticFiles: Fix cache validation for deleted files", "Fix cache validation for deleted files"),
        ("🐛 fix(api): lock leak on native OS locks", "fix lock leak on native OS locks"),  # a gitmoji first
        (":bug: fix: crash on empty input", "fix crash on empty input"),
        # references and credits, however many
        ("Allow case-insensitive content-encoding (#5890) (#5892)", "Allow case-insensitive content-encoding"),
        ("Set the length on an empty body @ognjen closes #1528 #1525", "Set the length on an empty body"),
        ("Round refunds to cents (fixes #3, #4)", "Round refunds to cents"),
        ("Spelling fixes in the refund path thanks to @asmaloney :bow:", "Spelling fixes in the refund path"),
        ("Updated the refund docs, fixed #225.", "Updated the refund docs"),
        ('Make detection for test binaries more universal (#2173)"', "Make detection for test binaries more universal"),
        # nothing left but a reference: as clean_subject says it
        ("Fix #1207 (#1228)", "Fix #1207"),
    ],
)
def test_a_headline_quotes_the_subject_without_its_bookkeeping(subject: str, quoted: str) -> None:
    assert said(subject) == quoted


def test_the_noise_rules_still_read_the_subject_as_before() -> None:
    assert clean_subject("fix(binder): include field name (#2629) (#4100)") == "fix(binder): include field name (#2629)"


def test_headlines_of_each_kind_quote_what_was_said() -> None:
    assert fix_headline("fix(pool): deadlock when the pool is empty (#12) (#15)", "`get`") == (
        "Avoid reintroducing a bug in `get`: deadlock when the pool is empty."
    )
    assert fix_headline("fix(context): Copy() copies Errors and Accepted fields", "`Context.Copy`") == (
        "In `Context.Copy`: Copy() copies Errors and Accepted fields."  # a call keeps its case
    )
    assert dead_end_headline('Cache tokens per request (#2173)"', "`auth`") == (
        "Do not bring back “Cache tokens per request” in `auth`: it was tried and reverted."
    )
    assert hotspot_headline(
        "`parse`", ["fix(lexer): match gzip case-insensitively (#9)", "fix(lexer): off-by-one in offsets"], 2,
        "2024-01-01", "2024-06-01",
    ) == (
        "Keep the fixes of `parse`: match gzip case-insensitively; avoid off-by-one in offsets. It has needed 2 fixes"
        " in 2024."
    )  # fmt: skip


@pytest.mark.parametrize(
    ("subject", "headline"),
    [
        # what the fixed thing must now do is a rule of the code, not a bug (bat, date-fns)
        (
            "Fix -n flag to show line numbers in loop-through mode",
            "In `P`: -n flag must show line numbers in loop-through mode.",
        ),
        (
            "Fix `get_name()` not to assume all routines have `__name__` (#2648)",
            "In `P`: `get_name()` must not assume all routines have `__name__`.",
        ),
        # how it was fixed is no part of the bug
        (
            "Fix syntax highlighting for symlinked files by resolving target path",
            "Avoid reintroducing a bug in `P`: syntax highlighting for symlinked files"
            " (fixed by resolving target path).",
        ),
        (
            "fix(types): fixed AxiosHeaders to handle spread syntax by making all methods non-enumerable; (#5499)",
            "In `P`: AxiosHeaders must handle spread syntax (fixed by making all methods non-enumerable).",
        ),
        # "to" before a target, "by" after a participle, a bug named first: as before
        ("Fix link to the rack reference", "Avoid reintroducing a bug in `P`: link to the rack reference."),
        (
            "Fix access to arbitrary .png files on ruby 1.8",
            "Avoid reintroducing a bug in `P`: access to arbitrary .png files on ruby 1.8.",
        ),
        (
            "Fix bugs caused by flooring negative numbers",
            "Avoid reintroducing a bug in `P`: bugs caused by flooring negative numbers.",
        ),
        ("Fix deadlock to allow shutdown", "Avoid reintroducing a bug in `P`: deadlock to allow shutdown."),
    ],
)
def test_a_fix_subject_s_rule_and_method_are_not_read_as_its_bug(subject: str, headline: str) -> None:
    assert fix_headline(subject, "`P`") == headline


def test_a_comment_s_note_marker_is_not_its_headline() -> None:
    place = "`tqdm.__init__`"
    assert comment_headline("NB: Avoid races by setting start_t last", place) == (
        "In `tqdm.__init__`: Avoid races by setting start_t last"
    )
    assert comment_headline("N.B. don't close a shared bar", place) == "In `tqdm.__init__`: don't close a shared bar"
    assert comment_headline("Notes on the cache must stay in sync", place).endswith(
        ": Notes on the cache must stay in sync"
    )


def test_a_mined_conventional_fix_reads_as_a_lesson(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("billing.py", BILLING)
    repo.commit("Add billing")
    repo.edit("billing.py", "total = amount", "total = abs(amount)")
    repo.commit(
        "fix(billing): sign error in charge for credit notes (#41) (#44)\n\n"
        "Credit notes arrive with a negative amount, so the card was refunded instead of charged."
    )
    repo.edit("billing.py", "return -amount", "return -abs(amount)")
    repo.commit("fix(billing): off-by-one in refund for split payments (#47)")
    repo.edit("billing.py", "return -abs(amount)", "return -abs(round(amount, 2))")
    repo.commit("fix(billing): round refunds to cents @ann closes #50")
    repo.edit("billing.py", "total = abs(amount)", "total = abs(amount) if amount else 0")
    repo.commit(
        "fix(billing): crash in charge on a missing amount (#60)\n\n"
        "Imports leave the amount empty, so abs(None) raised TypeError and stopped the whole batch."
    )
    ws, _ = mined(repo, open_ws)
    [lesson] = kinds(ws, "fix")  # the two lessons on charge, folded into one
    assert lesson.anchor is not None and lesson.anchor.symbol == "charge"
    assert lesson.text.startswith("Avoid reintroducing a bug in `charge`: crash in charge on a missing amount.\n")
    folded = "sign error in charge for credit notes"  # in its evidence, not quoted (blind judges: bundled)
    assert folded not in lesson.text and "(#" not in lesson.text and "fix(billing)" not in lesson.text
    assert lesson.provenance is not None and any(folded in c["subject"].lower() for c in lesson.provenance["commits"])
    [hot] = kinds(ws, "hotspot")
    assert "round refunds to cents; avoid off-by-one in refund for split payments." in hot.text
    assert hot.provenance is not None and hot.provenance["commits"][0]["subject"] == (
        "fix(billing): round refunds to cents @ann closes #50"
    )  # the evidence keeps the subject as it was written
