"""A GitHub squash's why is in its own text: the first item (its title says the subject again) and any later item
that says the subject again. starlette 995d70c: its why was "We now construct a `MutableHeaders` …" from the
third item ("* Use allow_explicit_origin() for preflight request_headers"), a follow-up's trade-off, while the
first item says why the change was made. A plain bullet list of changes keeps its whole body."""

from __future__ import annotations

from forewarn.workspace.mine_rules import Noise, classify
from forewarn.workspace.mine_squash import squash_own_text
from tests.workspace.billing_history import record

SUBJECT = "Set explicit Origin in CORS preflight response if allow_credentials is True (#1113)"
FIRST = (
    "* Set explicit Origin in CORS preflight response if allow_credentials is True\n\n"
    "When making a preflight request, the browser does not say whether the follow-up request will carry\n"
    "credentials. Unless the preflight response allows the request's Origin explicitly, the browser fails the\n"
    "CORS check, because a wildcard is not enough for credentialed requests.\n\n"
)
LATER = (
    "* Use allow_explicit_origin() for preflight request_headers\n\n"
    "It has some trade-offs, though. We now construct a `MutableHeaders` instead of a `dict` in order to reuse\n"
    "the method, because it makes the code more maintainable.\n\n"
    "* Clean up comments\n"
)


def test_a_squashs_why_comes_from_its_own_first_item_not_a_follow_up_commits() -> None:
    verdict = classify(record(SUBJECT, FIRST + LATER))
    assert verdict.lesson and "browser" in verdict.why and "MutableHeaders" not in verdict.why
    own = squash_own_text(FIRST + LATER, SUBJECT)
    assert own is not None and "browser" in own and "MutableHeaders" not in own


def test_a_why_only_in_a_follow_up_item_is_counted_as_from_a_squashed_item() -> None:
    bare_first = "* Set explicit Origin in CORS preflight response if allow_credentials is True\n\n"
    verdict = classify(record(SUBJECT, bare_first + LATER))
    assert not verdict.lesson and verdict.reason == Noise.WHY_OFF_TOPIC


def test_a_plain_bullet_list_of_changes_is_no_squash() -> None:
    body = (
        "This changes:\n* the parser\n* the writer\n\nThe writer dropped the last line because the buffer was not\n"
        "flushed when the stream closed early.\n"
    )
    assert squash_own_text(body, "Fix the writer losing its last line") is None
    verdict = classify(record("Fix the writer losing its last line", body))
    assert verdict.lesson and "flushed" in verdict.why
