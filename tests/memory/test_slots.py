"""Two memories that fill one slot of their symbol: denied or opposed there, without shared words."""

from __future__ import annotations

from forewarn.memory.contradictions import Cue, anchor_words, judge


def cues(old: str, new: str, symbol: str) -> tuple[str, ...]:
    v = judge(new, old, anchor=anchor_words(symbol))
    return v.cues if v is not None else ()


def test_a_predicate_negated_in_the_other_words() -> None:
    save = "UserRepo.save"
    old = "save() commits the txn itself, don't call session.commit() after"
    assert Cue.NEGATION in cues(old, "UserRepo.save does not commit, the caller owns the transaction", save)
    get = "RedisCache.get"
    old = "get() never hits the DB on a miss, just returns None"
    assert Cue.NEGATION in cues(old, "on cache miss RedisCache.get falls through to the db and backfills", get)
    assert Cue.NEGATION in cues("Run processes messages in order", "order is not guaranteed", "Consumer.Run")
    verify = "handle_webhook verifies the Stripe signature"
    assert Cue.NEGATION in cues(verify, "handle_webhook skips signature verification", "handle_webhook")


def test_a_negation_of_another_thing_or_another_case_stays_quiet() -> None:
    old = "OrderSerializer must not expose the internal order id"
    assert not cues(old, "OrderSerializer exposes the public order number", "OrderSerializer")
    assert not cues("with_retry retries on 5xx", "POST isn't retried unless a key is set", "with_retry")
    assert not cues("save() does not commit", "UserRepo.save only flushes; the commit happens later", "UserRepo.save")
    assert not cues("Charge is not retried", "except Stripe 429s: those are retried once", "Charge")


def test_exclusive_words_in_one_slot() -> None:
    assert Cue.ANTONYM in cues("emit() is sync, listeners have run", "emit is async, handlers are queued", "emit")
    old = "parse_amount raises ValueError on empty string"
    assert Cue.ANTONYM in cues(old, "parse_amount('') returns None, no exception", "parse_amount")
    old = "parse_date returns None on garbage input"
    assert Cue.ANTONYM in cues(old, "parse_date raises ValueError for unparseable strings", "parse_date")
    assert Cue.ANTONYM in cues("DeleteUser hard deletes the row", "DeleteUser soft-deletes", "DeleteUser")
    assert Cue.ANTONYM in cues("Refresh is thread safe", "Session.Refresh races if called twice", "Session.Refresh")


def test_outcomes_of_different_cases_or_beside_each_other_stay_quiet() -> None:
    old = "parse_amount raises ValueError on an empty string"
    assert not cues(old, "parse_amount returns Decimal for every valid input", "parse_amount")
    old = "read_config accepts a missing file and returns defaults"
    assert not cues(old, "read_config logs a warning naming the path", "read_config")  # logging is beside
    assert not cues("load_json returns None on invalid JSON", "load_json swallows it and returns None", "load_json")


def test_only_excludes_the_older_case() -> None:
    assert Cue.NEGATION in cues("Signup validates on blur", "Signup only validates on submit", "Signup")
    assert not cues("Signup validates on blur", "Signup validates on submit too", "Signup")


def test_a_dated_change_in_one_slot() -> None:
    assert Cue.TEMPORAL in cues("i18n is react-intl", "i18n runs on i18next now", "i18n")
    assert not cues("export writes CSV", "export now also writes a manifest next to the CSV", "export")


def test_another_verb_on_the_same_object_dated() -> None:
    old = "Exporter strips the tenant_id tag to keep series down"
    assert Cue.TEMPORAL in cues(old, "Exporter keeps tenant_id again now that storage is per tenant", "Exporter")
    # undated, another verb on the object is another aspect
    assert not cues(old, "Exporter hashes tenant_id before export", "Exporter")


def test_a_purpose_names_no_case_for_a_denial() -> None:
    # "for durability" says why it skips, not when: the older's act is denied in its slot
    old = "flush_log fsyncs after every batch so the log survives a crash"
    assert Cue.NEGATION in cues(old, "flush_log skips fsync for throughput; a crash can lose the tail", "flush_log")
    # a case of more than one word ("for large uploads") is a case the older did not name
    old = "upload_part checksums each chunk before the commit"
    assert cues(old, "upload_part skips checksums for large multipart uploads", "upload_part") == ()


def test_only_another_act_with_the_older_act_left_to_someone_else() -> None:
    old = "publish() acknowledges the message"
    new = "Consumer.publish only enqueues. The dispatcher sends the acknowledgement after processing."
    assert Cue.ANTONYM in cues(old, new, "Consumer.publish")
    # the older's act not named as a thing elsewhere: only another aspect
    assert cues(old, "Consumer.publish only enqueues; delivery is at-least-once", "Consumer.publish") == ()
