"""A why sentence saying how something reads what the sentence before it said ("OpenSSL reads that as \\"use
strlen\\", but BoringSSL rejects …") brings that sentence: alone it started mid-thought (hiredis 84659af, blind
labels: "the why starts mid-sentence")."""

from __future__ import annotations

from forewarn.workspace.mine_lessons import why
from forewarn.workspace.mine_rules import CAUSE_WORDS, STRONG_WORDS

BODY = """X509_VERIFY_PARAM_set1_host() was called with a namelen of 0. OpenSSL
reads that as "use strlen", but BoringSSL rejects a zero length
outright, so every non-IP verify_name failed context creation with
REDIS_SSL_CTX_VERIFY_NAME_FAILED. Pass the length explicitly."""


def test_reading_that_as_brings_what_that_is() -> None:
    said = why(BODY, "Fix verify_name DNS names on BoringSSL", CAUSE_WORDS, STRONG_WORDS, faults=True)
    assert said.startswith("X509_VERIFY_PARAM_set1_host() was called with a namelen of 0. OpenSSL reads that as")
