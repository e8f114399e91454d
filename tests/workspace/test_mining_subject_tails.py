"""A headline quotes what a subject says of the fix, not its bookkeeping: a last sentence telling that tests came with
it ("bug 114. Added test case.", blind labels: "says nothing"), a reference to another repository's issue
("(redis/hiredis#1234)") and one glued to its keyword ("close#262")."""

from __future__ import annotations

import pytest

from forewarn.workspace.mine_headlines import clean_subject, said


@pytest.mark.parametrize(
    ("subject", "headline"),
    [
        ("Fix the LoggerWrapper caller for bug 114. Added test case.", "Fix the LoggerWrapper caller for bug 114"),
        ("Fix race in the pool; add regression tests", "Fix race in the pool"),
        ("improve SSL leak fix (redis/hiredis#1234)", "improve SSL leak fix"),
        ("fix(add): fix daylight saving time close#262 close", "fix daylight saving time"),
        ("Fix the tests of the pool on Windows", "Fix the tests of the pool on Windows"),  # the tests are the subject
    ],
)
def test_a_headline_leaves_out_bookkeeping(subject: str, headline: str) -> None:
    assert said(subject) == headline


def test_another_repositorys_issue_is_a_reference() -> None:
    assert clean_subject("Free the SSL object on failure (redis/hiredis#1234)") == "Free the SSL object on failure"
