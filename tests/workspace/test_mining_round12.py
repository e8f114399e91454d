"""Mining round 12 (issue 23): what round 10's blind judges still rejected.

A comment that proves the code right is no warning: Rust's ``SAFETY:`` notes, "OK because …", "This unwrap is okay
since …", and a "must" that is a deduction ("so it must therefore be valid UTF-8") rather than an order to whoever
edits the code (``comment-justification``); a comment that only points at where the reason is written ("See
`is_word` for why we need this") holds no lesson of its own (``comment-cross-reference``). A why that opens on what it
points back to ("If it doesn't, then …", "Because of this, …", "(it would need …") cannot be read alone
(``why-anaphor``). A headline about what a failure says ("Clarify error message for …", "Print more details in …") is
no trap (``message-wording``). A type's header (``class MaxConnectionsError(ConnectionError):``, ``type Rows struct
{``) declares, so a lesson on a type the commit only declared goes to the code that raises or uses it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.workspace import mine_comments
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_code import behaviour, is_type_header
from forewarn.workspace.mine_rules import Noise, classify
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined, record

SLICES = """\
pub fn window(data: &[u8], start: usize, end: usize) -> &[u8] {
    // SAFETY: Since `end` is valid for `data`, `start` must be valid too: the caller checked start <= end.
    let first = unsafe { data.get_unchecked(start..end) };
    // We just verified that the range is valid ASCII, so it must therefore be valid UTF-8 when decoded later.
    let text = first;
    // OK because the length of a slice must fit into an isize on every platform we build for.
    let n = text.len() as isize;
    // See `is_word_unicode_negate` for why we need to do this; the end must be checked the same way too.
    let last = if n > 0 { &text[..] } else { text };
    // Never hold the returned slice across a call to `refill`: the buffer is reused and its bytes would change.
    last
}
"""


def test_justification_notes_and_cross_references_are_no_warnings() -> None:
    scan = mine_comments.warning_comments("src/window.rs", SLICES.encode())
    assert scan.skipped[Noise.COMMENT_JUSTIFICATION] == 3  # SAFETY:, a deduction "must", "OK because"
    assert scan.skipped[Noise.COMMENT_CROSS_REFERENCE] == 1
    assert [c.text for c, _ in scan.found] == [
        "Never hold the returned slice across a call to `refill`: the buffer is reused and its bytes would change."
    ]


def test_a_safety_note_that_states_a_contract_is_still_a_warning() -> None:
    contract = (
        "unsafe fn insert_tail(v: &mut [u32]) {\n"
        "    // SAFETY: the caller must ensure v is at least len 2, or the read below walks off the slice.\n"
        "    let last = v.as_ptr().add(v.len() - 1);\n"
        "}\n"
    )
    scan = mine_comments.warning_comments("src/sort.rs", contract.encode())
    assert len(scan.found) == 1 and not scan.skipped[Noise.COMMENT_JUSTIFICATION]


def test_a_must_that_orders_is_still_a_warning() -> None:
    ordered = (
        "def flush(buf):\n"
        "    # The lock must be held while flushing, otherwise a writer can interleave half a record.\n"
        "    buf.write_all()\n"
    )
    scan = mine_comments.warning_comments("buffer.py", ordered.encode())
    assert len(scan.found) == 1 and not scan.skipped[Noise.COMMENT_JUSTIFICATION]
    assert mine_comments.DEDUCTION_MUST.search("Since start <= end, if end is valid then start must be too.")
    assert mine_comments.DEDUCTION_MUST.search("which implies we must be the only thread here")
    assert not mine_comments.DEDUCTION_MUST.search("Callers must hold the lock, since the cursor is shared.")
    assert mine_comments.is_deduction("which implies we must be the only thread here")
    # an agent told to act: an order, though it opens with "since"
    assert not mine_comments.is_deduction("Since there is a file stream, we must forward pause and resume to it.")
    assert not mine_comments.is_deduction("As the socket is shared, you must drain every reply before reusing it.")


SUBJECT = "Fix the retry loop when the server closes the stream early"


@pytest.mark.parametrize(
    "why",
    [
        "If it doesn't, then the loop spins forever and the worker hangs until it is killed.",
        "Because of this, the loop spins forever and the worker hangs until it is killed.",
        "(it would need to be closed by the caller instead, which hangs the worker forever).",
        "This was done to future proof it from possible issues when the stream fails.",
    ],
)
def test_a_why_that_points_back_is_no_why(why: str) -> None:
    assert classify(record(SUBJECT, why)).reason == Noise.WHY_ANAPHOR


def test_a_why_with_a_label_in_parentheses_stays() -> None:
    why = "(unstable) the Task now requires Send and Sync, because the pool moves it across threads and it crashed."
    assert classify(record(SUBJECT, why)).reason is None


def test_a_why_that_names_its_subject_stays() -> None:
    why = "The loop spun forever because the server closed the stream early, and the worker hung until killed."
    verdict = classify(record(SUBJECT, why))
    assert verdict.reason is None and verdict.why is not None and verdict.why.startswith("The loop spun")


def test_a_headline_about_a_message_s_wording_is_no_lesson() -> None:
    why = "The old message confused users because maps are collections but they are not ordered."
    assert classify(record("Clarify error message for incorrect use of IsIncreasing", why)).reason == (
        Noise.MESSAGE_WORDING
    )
    assert classify(record("Print more details in ElementsMatch", why)).reason == Noise.MESSAGE_WORDING
    fixed = classify(
        record("Fix the proxy fallback and improve error messages", "It crashed because the list was empty.")
    )
    assert fixed.reason is None  # a fix of behaviour joined to the wording keeps its lesson


def test_a_new_type_s_header_only_declares_but_new_bases_are_behaviour() -> None:
    for header in (
        "class MaxConnectionsError(ConnectionError):",
        "export class Timeout extends Error {",
        "type Rows struct {",
        "pub struct Rows<'a> {",
        "#[derive(Debug, Clone)]",
    ):
        assert is_type_header(header), header
    for logic in ("def connect(self):", "func (r *Rows) Next() bool {", "raise MaxConnectionsError()"):
        assert not is_type_header(logic), logic
    created = ["class MaxConnectionsError(ConnectionError):", '    """No free connection."""', "    pass"]
    assert behaviour([], created, "pool.py").lines == 0
    rebased = ["class NoMoreData(ParseException):"]  # what catches it changed
    assert behaviour(["class NoMoreData(IOError):"], rebased, "http.py").lines == 2


POOL = """\
class ConnectionError(Exception):
    pass


class Pool:
    def __init__(self, limit):
        self.limit = limit
        self.used = 0

    def get_connection(self):
        if self.used >= self.limit:
            raise ConnectionError("Too many connections")
        self.used += 1
        return object()
"""


def test_a_lesson_on_a_new_exception_class_goes_to_the_code_that_raises_it(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("pool.py", POOL)
    repo.commit("Add the connection pool")
    added = 'class MaxConnectionsError(ConnectionError):\n    """The pool has no free connection."""\n\n\n'
    source = POOL.replace("class Pool:", added + "class Pool:").replace(
        'raise ConnectionError("Too many connections")', 'raise MaxConnectionsError("Too many connections")'
    )
    repo.write("pool.py", source)
    repo.commit(
        "Fix MaxConnectionsError raised as a plain ConnectionError\n\n"
        "Callers retried a full pool forever because they could not tell it from a broken connection."
    )
    ws, _ = mined(repo, open_ws)
    lessons = [m for m in ws.suggestions() if m.source == "commit"]
    assert lessons and all(m.anchor is not None and m.anchor.symbol == "Pool.get_connection" for m in lessons)
