"""Which lines of a blob are prose (comments, docstrings), found by one query per language on the tree the chunks
came from: a blob is parsed once, and the lines are those the walk over every node found."""

from __future__ import annotations

import pytest

from forewarn.indexing.languages import language_for_path
from forewarn.indexing.parse import parse_file
from forewarn.workspace.mine_anchors import doc_lines
from forewarn.workspace.mine_comments import warning_comments

PYTHON = '''\
def charge(card, amount):
    """Charge the card.

    Never twice for one order.
    """
    total = amount  # a comment after code leaves its line code
    # a comment on its own line
    "a bare string statement"
    return total, "not prose: a string in an expression"
'''

RUST = """\
/// Charges the card.
/// Never twice.
fn charge(card: &Card) -> u32 {
    let total = 1; /* after code */
    /* a block
       comment */
    total
}
"""

JAVASCRIPT = """\
"use strict";
// a line comment
function charge(card) {
  const total = 1; // after code
  /* block */
  return total;
}
"""


@pytest.mark.parametrize(
    ("path", "source", "prose"),
    [
        ("billing.py", PYTHON, {2, 3, 4, 5, 7, 8}),
        ("billing.rs", RUST, {1, 2, 5, 6}),  # a /// comment ends on the fn's line, at column 0: that line is code
        ("billing.js", JAVASCRIPT, {1, 2, 5}),
    ],
)
def test_comments_and_docstrings_are_prose_and_code_beside_a_comment_is_not(
    path: str, source: str, prose: set[int]
) -> None:
    spec = language_for_path(path)
    assert spec is not None
    found = parse_file(source.encode(), spec)
    assert found.root is not None
    assert doc_lines(found.root, spec) == frozenset(prose)


RUST_HACK = b"""\
impl Pool {
    /// HACK: this is called from the signal handler, so it
    /// must not allocate: the allocator's lock may be held
    /// by the thread the signal interrupted.
    pub fn reset(&mut self) {
        self.slots.clear();
    }
}
"""


def test_a_rust_doc_comment_is_one_block_on_the_function_below_it() -> None:
    """Rust's ``///`` takes its newline with it, so each line's node ends on the next line: read as ending there,
    each line was a block of its own, and the warning was its first line, on the ``impl`` around it."""
    scan = warning_comments("pool.rs", RUST_HACK)
    assert [(c.line, c.text, symbol) for c, symbol in scan.found] == [
        (
            2,
            "HACK: this is called from the signal handler, so it must not allocate: the allocator's lock may be held"
            " by the thread the signal interrupted.",
            "Pool.reset",
        )
    ]
