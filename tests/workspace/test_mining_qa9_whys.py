"""A lesson's why and headline, as QA pass 9 found them (finding 9, and the why of finding 1).

- A sentence left open on the code it names ("… so the line" / an indented line of code / "that followed …") goes on
  after the code: the code is quoted in it, and the cause it states ("… double-counted every byte, causing …") is the
  why, not the side sentences around it. A fix subject that names its symbol first says its bug without the name.
- "This fixes <the subject again>" is the headline said again; a change that complies with a standard ("… to generate
  RFC 3986 compliant file URLs") gives a constraint.
- An earlier fix that covered only part ("… only covered X, but not Y") is the fault; "Removed … because …" beside it
  is no why. A sentence pointing back from inside ("… afterwards it therefore must not …") comes with the one before
  it, and one saying why a fault stayed hidden ("this never caused …") tells no fault.
- A contrast about what was just said ("However, it wasn't consistent …") is never read alone.
- In a GitHub squash the why is one item's, never an item's title nor two items joined.
- A comment's line that ends a sentence without punctuation ends it: its sentences never run together.
"""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace import mine_comments
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_headlines import fix_headline
from forewarn.workspace.mine_lessons import lines_as_text, sentences, why
from forewarn.workspace.mine_rules import CAUSE_WORDS, STRONG_WORDS, classify
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined, record

COUNTED_TWICE = """\
When a mirror is attached, the copy goes through counter.Write,
which routes each chunk through the counting writer. Write already
adds to counter.total, so the line

    c.total += int(n)

that followed the stream double-counted every byte, causing Total()
to report twice the real size.

Remove the extra addition. The plain path is unaffected because
it hands the reader to the socket directly and must still add n itself.
"""


def test_a_line_of_code_a_sentence_names_is_quoted_in_it() -> None:
    found = sentences(COUNTED_TWICE)
    assert (
        "Write already adds to counter.total, so the line `c.total += int(n)` that followed the stream double-counted "
        "every byte, causing Total() to report twice the real size."
    ) in found
    # a sentence leading into an example that it does not name as code still leads into a block left out
    assert sentences("Previously, we would see errors like\n\n    NoMethodError: x\n\nin the tests of streams.\n") == []


def test_the_cause_stated_past_the_code_is_the_why() -> None:
    found = why(COUNTED_TWICE, "fix Copy double-counting bytes with a mirror", CAUSE_WORDS, STRONG_WORDS, faults=True)
    assert "double-counted every byte, causing Total() to report twice the real size." in found
    assert "The plain path is unaffected" not in found


def test_a_fix_headline_says_its_bug_without_the_symbols_name_again() -> None:
    place = "`fancyWriter.ReadFrom`"
    assert fix_headline("middleware: fix fancyWriter.ReadFrom double-counting bytes (#12)", place) == (
        "Avoid reintroducing a bug in `fancyWriter.ReadFrom`: double-counting bytes."
    )
    assert fix_headline("Fix ReadFrom not flushing", place).endswith(": not flushing.")
    # the name the rest needs, or another symbol's name, stays
    assert fix_headline("Fix ReadFrom when the body is empty", place).endswith(": ReadFrom when the body is empty.")
    assert fix_headline("Fix Reader.Close hanging", place).endswith(": Reader.Close hanging.")


HOST_SLASH = """\
Fixes #18

Changed the host() function for Windows to return '/' instead of ''
to generate RFC 3986 compliant file URLs with three slashes.

Before: file://C:/a%20b.txt (broken)
After:  file:///C:/a%20b.txt (works)

This fixes links failing on Windows when file paths contain
spaces or other characters that require percent-encoding.
"""


def test_the_subject_said_again_is_no_why_and_a_standard_is_a_constraint() -> None:
    verdict = classify(record("Fix Windows links for paths with spaces", HOST_SLASH, ("src/links.rs",)))
    assert verdict.why == (
        "Changed the host() function for Windows to return '/' instead of '' to generate RFC 3986 compliant file URLs "
        "with three slashes."
    )


def test_an_earlier_fix_that_covered_only_part_is_the_fault() -> None:
    body = (
        "The earlier fix only covered writing a name as top level value, but not when\n"
        "trying to write a name inside an array.\n\n"
        "Removed the `depth == 0` check from `Writer.name` because that is done\n"
        "already by the `peek()` call.\n"
    )
    found = why(
        body, "Throw exception when calling `Writer.name` outside an object", CAUSE_WORDS, STRONG_WORDS, faults=True
    )
    assert found == (
        "The earlier fix only covered writing a name as top level value, but not when trying to write a name inside "
        "an array."
    )


BOUNDS = """\
There are situations where the stack of the tree reader holds an array
or object without a following iterator, for example after calling peek().
When the path is asked for afterwards it therefore must not
assume that an array or object is always followed by an iterator.

The only reason why this never caused an IndexOutOfBoundsException in
the past is because the stack has an even default size so it would just
have read the next `null`.
"""


def test_a_sentence_pointing_back_from_inside_comes_with_the_one_before() -> None:
    found = why(BOUNDS, "Fix missing bounds checks for the tree reader's path", CAUSE_WORDS, STRONG_WORDS, faults=True)
    assert found.startswith("There are situations where the stack of the tree reader holds")
    assert "it therefore must not assume" in found
    # the pointing sentence is never read without it
    alone = "A leading note.\n\nWhen the path is asked for afterwards it therefore must not assume that it is there."
    assert why(alone, "Fix the path of the tree reader", CAUSE_WORDS, STRONG_WORDS) == ""


def test_a_contrast_about_what_was_just_said_is_never_read_alone() -> None:
    body = (
        "This is probably a break from the past: earlier versions allowed truncating a float into an int. "
        "However, it wasn't consistent in this behavior. Refusing such values is aligned with a fail-fast approach "
        "of uncovering bugs.\n"
    )
    found = why(
        body, "Refuse to read floating point numbers into integer types", CAUSE_WORDS, STRONG_WORDS, faults=True
    )
    assert not found.startswith("However")
    assert found == "Refusing such values is aligned with a fail-fast approach of uncovering bugs."


SQUASH = """\
* Fix Reader.skip() at end of document

The reader wrongly reset its peeked state; the tree reader threw IndexOutOfBoundsException.

* Fix Reader.skip() at end of array and object

For the reader this caused an IllegalStateException; the tree reader only popped the iterator, which
caused peek() to report the end again.

* Only have Reader.skip() overwrite the path name when a name was skipped

This improves the path when the value of a property was skipped.
"""


def test_a_squash_why_is_one_items_never_a_title() -> None:
    found = why(SQUASH, "Improve `Reader.skip()` (#20)", CAUSE_WORDS, STRONG_WORDS, faults=True)
    assert found == "The reader wrongly reset its peeked state; the tree reader threw IndexOutOfBoundsException."
    # a plain bullet list followed by prose is no squash: its items are sentences
    listed = "* The cache was never cleared because the key changed\n* Tidy names\n\nMore prose follows here.\n"
    assert "never cleared" in why(listed, "Clear the cache on reload", CAUSE_WORDS, STRONG_WORDS, faults=True)


TWO_FIXES = """\
* fix(edge): improve domain name detection

Previously, only the distribution name was used. Now, the Host header value is used.

* fix(edge): set Vary on identity responses too

Move the Vary handling ahead of the negotiation, because a cache can reuse the response otherwise.
"""


def test_a_squash_why_is_the_first_explaining_items_and_a_plural_shares_its_topic() -> None:
    subject = "fix(edge): Support Alternate Domain Names and Vary (#38)"
    found = why(TWO_FIXES, subject, CAUSE_WORDS, STRONG_WORDS, faults=True)
    assert found == "Previously, only the distribution name was used."
    verdict = classify(record(subject, TWO_FIXES, ("src/edge.ts",)))
    assert verdict.why == found  # "name" is "Names"' topic: no why from another commit


def test_a_comment_line_that_ends_a_sentence_without_punctuation_ends_it() -> None:
    lines = [
        "We've read a complete number. Decide if it's a long or a number.",
        "Don't store -0 as long; user might want to read it as double -0.0",
        "Don't try to convert the minimum to a positive long; it would overflow the maximum",
    ]
    assert lines_as_text(lines) == (
        "We've read a complete number. Decide if it's a long or a number. Don't store -0 as long; user might want to "
        "read it as double -0.0. Don't try to convert the minimum to a positive long; it would overflow the maximum"
    )
    # a line wrapped before a name that would not have fit goes on
    wrapped = ["Never read the value before the lock is taken, because the", "Writer may hold it."]
    assert lines_as_text(wrapped) == "Never read the value before the lock is taken, because the Writer may hold it."


NUMBERS = b"""\
class Reader {
  int peekNumber(long value, boolean negative) {
    // We've read a complete number. Decide if it's a long or a number.
    // Don't store -0 as long; callers might want to read it as double -0.0
    // Don't try to convert the minimum to positive long; it would overflow the maximum
    if (value != 0 || !negative) {
      return 1;
    }
    return 2;
  }
}
"""


def test_a_folded_comment_keeps_its_sentences_apart(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("src/Reader.java", NUMBERS.decode())
    repo.commit("Add reader")
    ws, _ = mined(repo, open_ws)
    texts = [m.text for m in ws.suggestions() if m.source == "comment"]
    assert texts == [
        "In `Reader.peekNumber`: We've read a complete number. Decide if it's a long or a number. Don't store -0 as "
        "long; callers might want to read it as double -0.0. Don't try to convert the minimum to positive long; it "
        "would overflow the maximum"
    ]
    scan = mine_comments.warning_comments("src/Reader.java", NUMBERS)
    assert "-0.0. Don't" in scan.found[0][0].text


GO_BEFORE = (
    "package mw\n\nfunc (f *Writer) ReadFrom(r Reader) int {\n\tn := copyTo(f, r)\n\tf.total += n\n\treturn n\n}\n"
)
GO_AFTER = "package mw\n\nfunc (f *Writer) ReadFrom(r Reader) int {\n\tn := copyTo(f, r)\n\treturn n\n}\n"


def test_a_mined_lesson_quotes_the_code_its_cause_names(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("mw/writer.go", GO_BEFORE)
    repo.commit("Add writer")
    repo.write("mw/writer.go", GO_AFTER)
    repo.commit(
        "mw: fix Writer.ReadFrom double-counting bytes (#7)\n\n"
        "When a mirror is set, ReadFrom copies through f.Write, which counts each chunk. Write already\n"
        "adds to f.total, so the line\n\n    f.total += n\n\n"
        "that followed the copy double-counted every byte, causing Total() to\nreport twice the real size.\n"
    )
    ws, _ = mined(repo, open_ws)
    [lesson] = [m for m in ws.suggestions() if m.source == "commit"]
    assert lesson.text.startswith("Avoid reintroducing a bug in `Writer.ReadFrom`: double-counting bytes.\n\nWhy: ")
    assert "so the line `f.total += n` that followed the copy double-counted every byte" in lesson.text
