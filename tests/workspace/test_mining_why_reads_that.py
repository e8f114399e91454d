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


REMAINING = """When a node's tag started with "!!" (the YAML secondary tag handle, as in "!!str"), EmitFromEvents
stripped a single '!' and emitted the rest as a LocalTag. The remaining string ("!str") then
failed the LocalTag character regex on the inner '!' and the emitter bailed out with INVALID_TAG,
truncating output after "!".

Recognize the "!!" prefix in EmitProps and route it through SecondaryTag."""
EXAMPLE = """open_ended can have three states now.

================== BROKEN ==============================

The first example shows that the document end marker is not emitted before
the next document. This would be valid in YAML 1.1 if the scalar was quoted,
but not if it is plain."""


def test_a_thing_named_by_its_place_in_what_was_said_brings_that() -> None:
    """Blind labels, set 6: yaml-cpp 29a6f43's why began "The remaining string (\\"!str\\") then failed …" ("starts
    mid-story"), libyaml 3694a4a's "The first example shows …" (an example the lesson never shows)."""
    said = why(
        REMAINING, "emit secondary tag handles (e.g. !!str) on Node::SetTag", CAUSE_WORDS, STRONG_WORDS, faults=True
    )
    assert said.startswith("When a node's tag started with"), said
    assert "The remaining string" in said
    example = why(EXAMPLE, "Fix logic for document end before directive", CAUSE_WORDS, STRONG_WORDS, faults=True)
    assert not example.startswith("The first example"), example
