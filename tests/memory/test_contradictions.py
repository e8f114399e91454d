"""The contradiction detector: each cue, what must not fire, and the targets on the labelled pairs."""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.memory.contradictions import (
    CUE_ANTONYM,
    CUE_NEGATION,
    CUE_REPLACEMENT,
    CUE_VALUE,
    anchor_words,
    conflicting,
    judge,
)

DATA = Path(__file__).parent / "data"
DETECTION_TARGET = 0.80
FALSE_ALARM_TARGET = 0.10


def cues(old: str, new: str, symbol: str | None = None) -> tuple[str, ...]:
    v = judge(new, old, anchor=anchor_words(symbol))
    return v.cues if v is not None else ()


def test_negation() -> None:
    old = "every charge carries an idempotency key"
    assert CUE_NEGATION in cues(old, "charge_card no longer needs an idempotency key", "charge_card")
    assert CUE_NEGATION in cues("request retries on connection reset", "request doesn't retry on connection reset")
    assert CUE_NEGATION in cues("the cache is thread-safe", "the cache is never thread-safe")


def test_replacement() -> None:
    old = "request uses requests.Session for connection pooling"
    assert CUE_REPLACEMENT in cues(old, "request now uses httpx.Client instead of requests.Session", "request")
    new = "Session switched to explicit transactions rather than autocommit mode"
    assert CUE_REPLACEMENT in cues("Session uses autocommit mode", new, "Session")
    # naming nothing of what the old one says: another subject, not a replacement
    assert judge("Session switched to explicit transactions", "Session uses autocommit mode") is None


def test_changed_value_number_name_literal() -> None:
    assert cues("the default timeout is 30 seconds", "the default timeout is 10 seconds") == (CUE_VALUE,)
    assert CUE_VALUE in cues("read_text decodes files as UTF-8", "read_text decodes files as latin-1", "read_text")
    assert CUE_VALUE in cues("DEBUG defaults to True", "DEBUG defaults to False", "DEBUG")


def test_antonyms() -> None:
    assert CUE_ANTONYM in cues("fetch_user is synchronous", "fetch_user is async now", "fetch_user")
    assert CUE_ANTONYM in cues("the new checkout flag is enabled", "the new checkout flag is disabled")
    assert CUE_ANTONYM in cues("the socket is opened in blocking mode", "the socket is opened in non-blocking mode")
    assert CUE_ANTONYM in cues("make_key is case-sensitive", "make_key is case-insensitive", "make_key")


def test_compatible_pairs_do_not_fire() -> None:
    old = "every charge carries an idempotency key"
    assert judge("the idempotency key is derived from the order id", old) is None  # an elaboration
    assert judge("charge_card converts the amount to cents", old, anchor=anchor_words("charge_card")) is None
    assert judge("charge_card always sends an idempotency key with each charge", old) is None  # a restatement
    # another aspect, negated: about different words, so no denial
    rounded = "Invoice.total is rounded per line item, not on the sum"
    assert judge(rounded, "Invoice.total includes tax", anchor=anchor_words("Invoice.total")) is None


def test_two_negations_or_a_negation_and_an_antonym_cancel() -> None:
    assert judge("never call execute outside a transaction", "execute must run inside a transaction") is None
    assert judge("symlinks are not followed by safe_join", "safe_join does not follow symlinks") is None


def test_a_swapped_function_word_is_no_change() -> None:
    old = "post retries on 502 and can send the body twice"
    assert judge("post() retries on HTTP 502 and may send the body twice", old) is None


def test_equal_quantities_in_other_units_are_no_change() -> None:
    assert judge("entries expire after 300 seconds", "entries expire after 5 minutes") is None
    assert judge("entries expire after 10 minutes", "entries expire after 5 minutes") is not None


def test_vectors_stand_in_for_word_overlap() -> None:
    old, new = "run is blocking", "run does not return until the job is done"
    assert judge(new, old, anchor=anchor_words("run")) is None
    assert judge(new, old, anchor=anchor_words("run"), cosine=0.9) is not None  # close in meaning and negated
    assert judge("run returns the exit code", old, anchor=anchor_words("run"), cosine=0.95) is None  # no cue


def test_conflicting_ranks_and_keys() -> None:
    found = conflicting(
        "the timeout is 10 seconds",
        [("a", "the timeout is 30 seconds", None), ("b", "the timeout covers connect and read", None)],
    )
    assert [k for k, _ in found] == ["a"]


def load(name: str) -> list[tuple[str, str, str, str]]:
    rows = []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            label, _kind, anchor, old, new = line.split("\t")
            rows.append((label, anchor.partition("::")[2], old, new))
    return rows


@pytest.mark.parametrize("name", ["contradictions.tsv", "contradictions_heldout.tsv"])
def test_targets_on_the_labelled_pairs(name: str) -> None:
    rows = load(name)
    conflicts = [r for r in rows if r[0] == "conflict"]
    compatible = [r for r in rows if r[0] == "compatible"]
    if name == "contradictions.tsv":
        assert len(conflicts) >= 100 and len(compatible) >= 100
    flagged = {id(r): judge(r[3], r[2], anchor=anchor_words(r[1])) is not None for r in rows}
    detection = sum(flagged[id(r)] for r in conflicts) / len(conflicts)
    false_alarms = sum(flagged[id(r)] for r in compatible) / len(compatible)
    assert detection >= DETECTION_TARGET, detection
    assert false_alarms <= FALSE_ALARM_TARGET, false_alarms
