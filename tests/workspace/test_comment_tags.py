"""A warning tag marks a comment where it opens one of its lines or is followed by a colon; in a sentence or a table
it is a word. A documentation comment's warning is the tag's paragraph, not the whole block. A "must" that concludes
what happened is no warning."""

from __future__ import annotations

from forewarn.workspace.mine_comments import is_deduction, warning_comments

# date-fns's format table: "XXX" is a token of the format, in an API docblock that says "must" nowhere near it
FORMAT_DOC = b"""\
/**
 * @name format
 * @summary Format the date.
 *
 * The result may vary by locale, because each locale names the months and
 * the days of the week in its own words.
 *
 * | Unit     | Pattern | Result examples      |
 * |----------|---------|----------------------|
 * | Timezone | XXX     | -08:00, +05:30, Z    |
 *
 * @param date - The original date
 * @returns The formatted date string
 */
export function format(date: Date, formatStr: string): string {
  return formatStr.replace(/X+/g, () => offset(date))
}
"""

HACK_IN_DOC = b"""\
/**
 * Formats the date with the given pattern.
 *
 * HACK: the offset is read from the first date of the range, because
 * the runtime's zone data is missing for dates before 1970 on Windows.
 *
 * @param date - The original date
 */
export function format(date: Date, formatStr: string): string {
  return formatStr.replace(/X+/g, () => offset(date))
}
"""


def test_a_tag_word_in_a_documentation_table_is_no_warning() -> None:
    scan = warning_comments("src/format/index.ts", FORMAT_DOC)
    assert scan.found == []


def test_a_tag_in_a_documentation_comment_is_its_paragraph_on_its_line() -> None:
    scan = warning_comments("src/format/index.ts", HACK_IN_DOC)
    assert [(c.line, c.kind, c.text, symbol) for c, symbol in scan.found] == [
        (
            4,
            "HACK",
            "HACK: the offset is read from the first date of the range, because the runtime's zone data is missing"
            " for dates before 1970 on Windows.",
            "format",
        )
    ]


def test_so_it_must_have_is_a_deduction_not_a_warning() -> None:
    """date-fns: "so it must have happened yesterday" concludes what was; it orders nothing."""
    assert is_deduction("transition was not at the start of the day, so it must have happened yesterday")
    assert not is_deduction("it is shared, so we must have the lock before reading it")
    assert not is_deduction("the caller must have called init first")
