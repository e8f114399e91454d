"""A lesson's why and headline, as QA pass 6 found them on rack and jsoup (findings 5, 7, 8 and 14's stray quote).

- 5: the why is the author's reason, never an option not taken ("An alternative … would be …", "it wouldn't be much
  effort to …"), an opinion of the old code that names no failure ("… was already questionable because of …") nor
  what a revert also did ("Annotate `super()` call that …").
- 7: a sentence left with no stop right before a block left out ("Previously, we would see errors like" / an
  indented error) and one that points at that block ("The following code snippet …") are fragments.
- 8: a headline is a sentence: a fix subject that names the bug as a noun phrase ("fix: malformed charset param"),
  "Fix X to <verb> …" as a rule, no branch name ("Fix/safelist …"), no place said twice ("In Cleaner, …"), never
  "…." after a cut subject.
- 14: the error a subject quotes ends at the quote that holds it.
"""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_lessons import (
    clean_subject,
    decision_headline,
    error_signature,
    fix_headline,
    sentences,
    why,
)
from forewarn.workspace.mine_rules import CAUSE_WORDS, RATIONALE_WORDS, STRONG_WORDS, Noise, VerdictKind, classify
from tests.gitrepo import Repo
from tests.workspace.billing_history import BILLING, mined, record

# rack ed25abc (the lists and the author's guess left out)
ALTERNATIVE_REVERT = """\
This code was added in 64610db2d2e7e910c4d3e17874dc316ed3eb227a.
Previously, set_encoding was always called.
64610db2d2e7e910c4d3e17874dc316ed3eb227a actually broke encoding
setting to binary for IO objects, but because there were no tests
for the case, it wasn't caught.

An alternative to this code would be reverting
64610db2d2e7e910c4d3e17874dc316ed3eb227a, but that is no longer
backwards compatible with 3.1.0, which allows objects that do
not respond to set_encoding.

Found by coverage testing.
"""

# rack b172805
ALTERNATIVE_APPROACH = """\
An alternative approach would be using a single string inside an array
and appending to that.  This approach is more backwards compatible,
but results in more memory usage.

Fixes #1957
"""

# rack 8a4475a (the link and the first paragraph left out)
EFFORT_NOT_SPENT = """\
During construction of the object rack already does conversions as necessary and setters don't make much sense, \
and aren't documented/tested for.

Although, for improved backwards compatibility, it wouldn't be much effort to make them `attr_accesor` instead.
"""

# rack 2d40ccd
OPINION = """\
This regexp was already questionable because of the use of ^ and $.
It turns out this was no longer needed, since the parser earlier
in the same method handles the quotes, so the result is that this
was removing escaped quotes that were part of the filename.
"""

# rack 1e73a86
REVERT_ACTION = """\
This reverts commit b050e742ca7c8cd26987e1d3d975671e2b221b88.

Annotate `super()` call that started this whole adventure.
"""

# rack 6e483c4
ERRORS_LIKE = """\
Previously, we would see errors like

    NoMethodError: undefined method 'each' for an instance of Proc

in Rails integration tests when using streaming response bodies.
"""

# rack 68e086d (the snippet shortened)
SNIPPET = """\
case/when dispatches already optimize away allocation of constant
string literals in all C Ruby 1.9.x/2.x releases
(ref: opt_case_dispatch in Ruby insns.def)

The following code snippet does not cause GC.count to increase
during the two loops, regardless of what `nr' is.
Tested on Ruby 1.9.3, 2.1.3, and trunk r47786:

    GET = "GET"
    nr.times do |i|
      case env[REQUEST_METHOD]
      when GET, HEAD
        :foo
      end
    end
"""


def test_an_option_not_taken_is_no_why() -> None:
    found = why(ALTERNATIVE_REVERT, "Fix encoding setting for non-binary IO-like objects", CAUSE_WORDS, STRONG_WORDS)
    assert "alternative" not in found
    # the cause the message gives, without its clause about the tests
    assert found.endswith("actually broke encoding setting to binary for IO objects.")
    # "This approach …" points back at the option not taken: it is lost with it, and nothing is left
    subject = "Handle string reuse by body.each when buffering bodies in Rack::Response (#2044)"
    assert why(ALTERNATIVE_APPROACH, subject, CAUSE_WORDS, STRONG_WORDS) == ""
    assert why(ALTERNATIVE_APPROACH, subject, RATIONALE_WORDS, STRONG_WORDS) == ""
    assert "effort" not in why(EFFORT_NOT_SPENT, "Replace usage of `CGI::Cookie`", RATIONALE_WORDS, STRONG_WORDS)
    assert "effort" not in why(EFFORT_NOT_SPENT, "Replace usage of `CGI::Cookie`", CAUSE_WORDS, STRONG_WORDS)


def test_an_opinion_of_the_old_code_is_no_why() -> None:
    subject = "Do not remove escaped opening/closing quotes for content-disposition filenames"
    assert "questionable" not in why(OPINION, subject, CAUSE_WORDS, STRONG_WORDS)
    assert "questionable" not in why(OPINION, subject, RATIONALE_WORDS, STRONG_WORDS)
    # an opinion that names the failure is a cause
    failed = "The old regexp was questionable and failed on quoted filenames."
    assert why(failed, subject, CAUSE_WORDS, STRONG_WORDS) == failed


def test_what_a_revert_also_did_is_not_its_reason() -> None:
    verdict = classify(record('Revert "Remove unnecessary call to `super()`"', REVERT_ACTION))
    assert verdict.reason == Noise.REVERT_NO_REASON
    # an imperative sentence that gives its cause is the revert's reason
    because = REVERT_ACTION.replace(
        "Annotate `super()` call that started this whole adventure.",
        "Keep the call to `super()` because mixed-in initializers are never called without it.",
    )
    verdict = classify(record('Revert "Remove unnecessary call to `super()`"', because))
    assert verdict.kind == VerdictKind.REVERT
    assert verdict.why.startswith("Keep the call to `super()` because")


def test_a_sentence_leading_into_a_left_out_block_is_a_fragment() -> None:
    assert sentences(ERRORS_LIKE) == []
    assert why(ERRORS_LIKE, "Fix MockResponse#body when the body is a Proc (#2420)", CAUSE_WORDS, STRONG_WORDS) == ""
    assert why(SNIPPET, "conditionalget: avoid const lookup in case/when", CAUSE_WORDS, STRONG_WORDS) == ""
    # "the following" that names no block (jq 5bbd02f) or holds it after a colon (cobra 6644d46) is no fragment
    leak = (
        'jv_setpath() was not freeing the value it "got" from indexing that key, in case the following "set" on that '
        "key failed, resulting in a leak."
    )
    assert why(leak, "jv_setpath: fix leak when indexing an array with an array", CAUSE_WORDS, STRONG_WORDS) == leak
    message = "The completion failed with the following message: __create_handle_flag: command not found."
    assert why(message, "Prefix bash functions with root command name", CAUSE_WORDS, STRONG_WORDS) == message
    # a sentence with its stop before a block stays, and so does a paragraph with no block after it
    stopped = "The parser crashed on an empty part.\n\n    NoMethodError: undefined method 'each'\n"
    assert sentences(stopped) == ["The parser crashed on an empty part."]
    assert sentences("The parser crashed on an empty part\n\nIt now skips it.") == [
        "The parser crashed on an empty part",
        "It now skips it.",
    ]


def test_a_headline_is_a_sentence() -> None:
    place = "`Rack.MediaType.strip_doublequotes`"
    assert fix_headline("fix: malformed charset param (#2263)", place) == (
        f"Avoid reintroducing a bug in {place}: malformed charset param."
    )
    place = "`Rack.Utils.build_nested_query`"
    assert fix_headline("Fix Utils.build_nested_query to URL-encode all query string fields (#1989)", place) == (
        f"{place} must URL-encode all query string fields."
    )
    assert fix_headline("Fix/safelist deep copy constructor (#1763)", "`Safelist.Safelist`") == (
        "Avoid reintroducing a bug in `Safelist.Safelist` that affected the safelist deep copy constructor."
    )
    place = "`Cleaner.CleaningVisitor.tail`"
    subject = "In Cleaner, use the normalized tag name in the tail hit"
    assert fix_headline(subject, place) == f"In {place}: use the normalized tag name in the tail hit."
    assert decision_headline(subject, place) == f"In {place}: use the normalized tag name in the tail hit."
    # a place the headline does not name stays in the subject
    assert fix_headline("In Python 3, use the bytes API", place) == f"In {place}: in Python 3, use the bytes API."


def test_a_long_subject_drops_its_examples_and_is_never_cut_with_a_stop() -> None:
    """jsoup a14fb16."""
    subject = (
        'Fixed issue with selector parser where some boolean AND + OR combined queries (e.g. "meta[http-equiv], '
        'meta[content]") were being parsed incorrectly as OR only queries (e.g. former as "meta, [http-equiv], '
        'meta[content]")'
    )
    assert fix_headline(subject, "`CombiningEvaluator.Or`") == (
        "Avoid reintroducing a bug in `CombiningEvaluator.Or`: selector parser where some boolean AND + OR combined "
        "queries were being parsed incorrectly as OR only queries."
    )
    long = "Fix " + "the parser that reads every header " * 8
    assert clean_subject(long).endswith(" …")
    assert fix_headline(long, "`p`").endswith(" …")


def test_a_quoted_error_ends_at_its_closing_quote() -> None:
    """rack 5db439f."""
    subject = 'Fixes an issue where `Rack::Static` can raise "TypeError: no implicit conversion of nil into String"'
    assert error_signature(subject, "") == "TypeError: no implicit conversion of nil into String"
    assert error_signature("KeyError: 'x' when the key is missing", "") == "KeyError: 'x' when the key is missing"


FIXED = """\
def charge(card, amount):
    total = int(amount)
    return total


def refund(card, amount):
    return -amount
"""


def test_a_mined_lesson_reads_as_a_sentence_with_the_authors_reason(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("billing.py", BILLING)
    repo.commit("Add billing")
    repo.write("billing.py", FIXED)
    repo.commit(
        'fix: malformed amount param raising "TypeError: unsupported operand type(s) for +"\n\n'
        "The form sends the amount as a string, so adding it to the total fails.\n\n"
        "Previously, we would see errors like\n\n"
        "    TypeError: unsupported operand type(s) for +: 'int' and 'str'\n\n"
        "An alternative approach would be converting the amount in the form, but every caller would need it.\n"
    )
    ws, _ = mined(repo, open_ws)
    [lesson] = [m for m in ws.suggestions() if m.source == "commit"]
    assert lesson.text == (
        'Avoid reintroducing a bug in `charge`: malformed amount param raising "TypeError: unsupported operand '
        'type(s) for +".\n\nWhy: The form sends the amount as a string, so adding it to the total fails.'
    )
    assert lesson.provenance is not None
    assert lesson.provenance["error"] == "TypeError: unsupported operand type(s) for +"
