"""Behaviour families, named alternatives and the round-11 readings of amounts, in sentences of our own."""

from __future__ import annotations

import pytest

from forewarn.memory import alternatives, behaviours
from forewarn.memory.claims import read
from forewarn.memory.contradictions import Cue, anchor_words, judge


def cues(old: str, new: str, symbol: str) -> tuple[str, ...]:
    v = judge(new, old, anchor=anchor_words(symbol))
    return v.cues if v is not None else ()


def opposed(old: str, new: str, symbol: str) -> list[str]:
    anchor = anchor_words(symbol)
    return behaviours.opposed(read(old, anchor), read(new, anchor), anchor)


@pytest.mark.parametrize(
    ("symbol", "old", "new", "family"),
    [
        (
            "download",
            "download() follows redirects",
            "download passes allow_redirects=False, so the 302 comes back",
            "redirects",
        ),
        (
            "Queue.pop",
            "Queue.pop waits until an item arrives",
            "pop returns None immediately; it never waits",
            "waiting",
        ),
        (
            "parse_log",
            "parse_log is a generator, memory stays flat",
            "parse_log reads the whole file into memory first",
            "loading",
        ),
        (
            "merge_rows",
            "merge_rows keeps the earliest record per id",
            "merge_rows: last write wins for each id",
            "survivor",
        ),
        (
            "Cache.put",
            "Cache.put is thread-safe",
            "Cache.put mutates a dict with no lock; parallel callers race",
            "concurrency",
        ),
        (
            "charge",
            "charge() is idempotent per request key",
            "calling charge twice bills the card two times",
            "idempotency",
        ),
        (
            "renew",
            "renew() issues a fresh token every call",
            "renew keeps handing out the same token until expiry",
            "rotation",
        ),
        (
            "rebuild_index",
            "rebuild_index runs hourly from cron",
            "rebuild_index is no longer scheduled; a webhook starts it",
            "trigger",
        ),
        ("load_seeds", "seeds load on startup", "we stopped loading seeds on boot", "startup"),
        (
            "backfill",
            "backfill is safe to run during business hours",
            "run backfill overnight, it locks the ledger",
            "hours",
        ),
        ("vacuum", "vacuum is fine during business hours", "never run vacuum between 8:00-17:00", "hours"),
        (
            "Scaler.fit",
            "the scaler is fit on the training set only",
            "the scaler is fit on the full dataset",
            "fitting",
        ),
        ("create_user", "create_user inserts only", "create_user overwrites an existing row on conflict", "duplicates"),
        (
            "list_tags",
            "list_tags returns tags in insertion order",
            "list_tags hands tags back in arbitrary order",
            "ordering",
        ),
        ("search", "search() is paginated with a cursor", "search returns all results in one response", "paging"),
        ("RateCache", "RateCache is per process", "RateCache is a singleton across all workers", "sharing"),
        (
            "import_rows",
            "import_rows commits each row in its own transaction",
            "import_rows is all-or-nothing",
            "transaction scope",
        ),
        (
            "normalize",
            "normalize() edits the frame in place",
            "normalize returns a copy and leaves the input alone",
            "mutation",
        ),
    ],
)
def test_opposite_poles_of_one_behaviour_said_in_other_words(symbol: str, old: str, new: str, family: str) -> None:
    assert family in opposed(old, new, symbol)
    assert Cue.ANTONYM in cues(old, new, symbol)


@pytest.mark.parametrize(
    ("symbol", "old", "new"),
    [
        # a restatement on the same pole, the denial of the other pole included
        ("read_rows", "read_rows streams the file", "read_rows never loads the whole file into memory"),
        # a case of its own ("if"), against a rule that names none
        ("debounce", "debounce() waits 200ms", "debounce fires immediately if leading is set"),
        # another way besides the older's
        ("sync_job", "sync_job runs nightly from cron", "sync_job can also be triggered by hand from the admin page"),
        # a preventing verb denies the pole it stands before
        ("Cache.put", "Cache.put is thread-safe", "Cache.put takes a mutex, which prevents a data race"),
        # the anchor's own name is no pole ("redact" does not say it masks)
        ("redact", "redact() masks phone numbers", "redact() masks phone numbers and card numbers"),
    ],
)
def test_one_pole_restated_or_a_case_of_its_own_is_no_conflict(symbol: str, old: str, new: str) -> None:
    assert opposed(old, new, symbol) == []


def test_a_text_on_both_poles_disagrees_only_where_its_clause_shares_a_topic() -> None:
    old = "sanitize_event redacts phone numbers"
    assert "masking" in opposed(old, "sanitize_event leaves phone numbers alone; it scrubs only IP addresses", "x")
    assert opposed(old, "sanitize_event redacts phone numbers; user agents are left untouched", "x") == []


@pytest.mark.parametrize(
    ("old", "new", "swapped"),
    [
        ("store_session writes to Redis", "store_session keeps sessions in memcached", True),
        ("sign() uses HS256", "sign() uses RS256; old HS256 tokens keep working until June", True),
        ("export_model saves a pickle", "export_model writes safetensors; pickle files are rejected on load", True),
        ("search() queries Elasticsearch", "search() queries Solr first and falls back to Elasticsearch", False),
        ("metrics go to kafka", "metrics also go to SQS", False),
        ("search() queries Elasticsearch", "search() caches results in Redis", False),  # tools of two kinds
    ],
)
def test_another_tool_of_one_kind_replaces_the_older(old: str, new: str, swapped: bool) -> None:
    assert alternatives.swapped(read(old), read(new)) is swapped


def test_the_words_after_another_count_are_that_counts() -> None:
    old = "reset codes are valid for 10 minutes"
    new = "reset_password blocks the user for 1 hour after 3 failed codes"  # the codes are the count's
    assert cues(old, new, "reset_password") == ()
    assert Cue.VALUE in cues("reset links are valid for 10 minutes", "reset links are valid for 1 hour", "x")


def test_a_full_day_is_a_day() -> None:
    assert Cue.VALUE in cues("cache entries live 1 day", "cache entries stay a full week", "cache")
    assert judge("cache entries stay a whole day", "cache entries live 24 hours") is None
