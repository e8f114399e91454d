"""Two tools of one kind, one named by each text: which names a text says it uses."""

from __future__ import annotations

from forewarn.memory.contradictions import Cue, anchor_words, judge


def cues(old: str, new: str, symbol: str) -> tuple[str, ...]:
    v = judge(new, old, anchor=anchor_words(symbol))
    return v.cues if v is not None else ()


def test_transactional_email_senders_are_one_kind() -> None:
    old = "password reset mails are sent with SendGrid"
    assert Cue.REPLACEMENT in cues(old, "send_reset calls the Mailgun messages API", "send_reset")
    # both named as used: a fallback, not a replacement
    assert cues(old, "send_reset uses SendGrid and falls back to Mailgun on 5xx", "send_reset") == ()


def test_a_name_only_used_for_the_rest_is_a_remainder() -> None:
    old = "store_blob writes to S3"
    new = "store_blob writes to GCS now; S3 is only read for blobs from before the move"
    assert Cue.REPLACEMENT in cues(old, new, "store_blob")
