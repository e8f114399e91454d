"""Quantities named by their noun on either side, in the units teammates write."""

from __future__ import annotations

from forewarn.memory.contradictions import Cue, anchor_words, judge


def cues(old: str, new: str, symbol: str) -> tuple[str, ...]:
    v = judge(new, old, anchor=anchor_words(symbol))
    return v.cues if v is not None else ()


def quiet(old: str, new: str, symbol: str) -> bool:
    return judge(new, old, anchor=anchor_words(symbol)) is None


def test_one_slot_in_other_words_and_units() -> None:
    old = "pool size 20 conns per worker"
    assert Cue.VALUE in cues(old, "get_pool opens max 4 connections per worker proc", "get_pool")
    assert Cue.VALUE in cues("max 1000 entries, evicts oldest", "LruCache cap is 10k entries", "LruCache.set")
    assert Cue.VALUE in cues("thumbnails are 256px wide", "renders 512 px wide thumbs", "make_thumbnail")
    assert Cue.VALUE in cues("api pods get 512Mi memory", "memory for api is 2Gi", "resources.limits")
    assert Cue.VALUE in cues("throttle is per IP, 60/min", "throttle allows 600 per minute", "throttle")
    assert Cue.VALUE in cues("GetUser returns 404 when deleted", "GetUser answers 410 Gone", "GetUser")
    assert Cue.VALUE in cues("digest goes out at 08:00 UTC", "send_digest runs at 07:00 UTC", "send_digest")
    assert Cue.VALUE in cues("default ttl 10 min", "TTLCache expires entries after 1 hour", "TTLCache")
    assert Cue.VALUE in cues("max 5 retries", "Retry::run gives up after the 2nd retry", "Retry::run")
    assert Cue.VALUE in cues("RETRY_STATUSES covers 502 and 503", "covers 502, 503 and 504", "RETRY_STATUSES")
    assert Cue.VALUE in cues("cookie SameSite=None", "cookie SameSite=Lax", "set_session")


def test_the_closest_statement_is_compared_and_a_past_value_states_nothing() -> None:
    old = "capture() retries 3 attempts max, then gives up"
    assert Cue.VALUE in cues(old, "capture retry budget is at least 6 attempts, 3 was too few", "capture")
    assert not cues("retries 3 times", "retries 3 times (it was 5 before)", "retry")
    assert Cue.VALUE in cues("batch cap is 100", "batch cap raised from 100 to 1000", "requeue")


def test_another_quantity_stays_quiet() -> None:
    assert not cues("OTP codes are valid for 30 seconds", "verify_otp allows 5 wrong codes", "verify_otp")
    assert not cues("page size 50", "Paginate rejects page numbers above 200", "Paginate")
    assert not cues("opens 10 connections up front", "lets the pool overflow by 5 extra connections", "create_pool")
    assert not cues("chunk_size defaults to 64 KiB", "needs chunk_size to be a multiple of 4 KiB", "copy_stream")
    assert not cues("retries on days 1, 3 and 7", "charges at most 3 times per invoice", "retry_charge")
    assert not cues("at least 4 instances", "autoscaling never drops below 4 instances", "autoscaling")
    assert not cues("dedupe window 1 hour", "dedupe_events keeps at most 1M keys in memory", "dedupe_events")
    assert not cues("multipart above 100MB", "uploadFile uses 8MB parts", "uploadFile")


def test_how_often_is_a_period_and_a_restated_amount_leaves_the_others_alone() -> None:
    # "once per 30 min" is how often, the TTL how long: two quantities
    assert not cues("the session TTL is 12h", "Set extends the TTL once per 30 min to cut writes", "Set")
    assert Cue.VALUE in cues("sync runs every 30 min", "sync runs once per 10 min", "sync")
    # the older amount given again in its unit: the newer's other amount is another quantity
    assert not cues(
        "poll must run at least every 2 s", "poll has a 2s deadline; the loop calls it every ~250ms", "poll"
    )
    # ... unless the other amount is named like the older one and the restatement is not
    assert Cue.VALUE in cues("the TTL is 30 min", "the TTL is 12h; the 30min you saw is the refresh interval", "Set")


def test_a_qualified_name_before_a_number_does_not_name_the_quantity() -> None:
    assert Cue.VALUE in cues("prune keeps the cache under 300 MB", "Cache.prune caps the cache at 80MB", "Cache.prune")


def test_a_number_measures_what_its_key_or_unit_says() -> None:
    # a key's unit word gives its value's dimension: a time is no count of connections
    assert not cues(
        "worker pool max 40 conns", "newWorkerPool sets connectTimeoutMillis: 20000, give up after 20s", "x"
    )
    assert not cues("fetch.max.records=200 on the loader", "loader runs with fetch.wait.ms=60000; one slow page", "x")
    # the same key read in its unit still compares amounts
    assert Cue.VALUE in cues("request.timeout.ms=30000 on the client", "request.timeout.ms=5000 on the client", "x")
    # money is its own dimension, in cents or dollars, and "$" reads as one
    assert Cue.VALUE in cues("the signup fee is $5", "the signup fee is 700 cents now", "charge_signup")
    assert quiet("the signup fee is $5", "the signup fee is 500 cents", "charge_signup")
    assert not cues("wire fee is 40c", "wires clear in 2 days; transfers under 80c get refused up front", "x")


def test_notation_dates_and_ranges_are_read_as_what_they_are() -> None:
    assert Cue.VALUE in cues("momentum 9e-1 in the optimizer", "optimizer momentum is 0.5", "build_optimizer")
    assert quiet("momentum 9e-1 in the optimizer", "optimizer momentum is 0.9", "build_optimizer")
    # a date names a day, no amount; a range "6-7" is one amount with what it counts
    assert not cues("3 bad tokens / 10 min / user, then 403", "one shared kiosk user got locked out on 4/5", "x")
    assert not cues("batch.size is 40 for Loader", "the queue has 40 shards over 8 hosts, ~5-6 shards per host", "x")


def test_what_follows_with_or_an_abbreviation_names_the_number_rightly() -> None:
    # "w/ linear decay" is what comes with the rate, not what it measures
    assert not cues("lr 1e-3 w/ linear decay", "fit uses 500 warmup steps, weight_decay=0.1, no decay on norms", "x")
    # "lr" is the initials of "learning rate"
    assert Cue.VALUE in cues("fit uses lr 1e-3", "the learning rate for fit is 5e-4", "fit")


def test_the_excess_acted_on_and_another_case_are_no_other_value() -> None:
    # "anything over 200" is what gets split: the limit of 200 restated
    assert not cues("uploads chunked, max 200 per part", "Uploader.send splits anything over 200 into more parts", "x")
    assert Cue.VALUE in cues("uploads chunked, max 200 per part", "uploads are chunked at max 100 per part now", "x")
    # an exit code for a case only the newer names is another outcome's code
    assert not cues("`cli push --check` validates and exits 0", "cmd_push exits 3 when the token is expired", "x")
    assert Cue.VALUE in cues(
        "cmd_push exits 3 when the token is expired", "cmd_push exits 4 when the token is expired", "x"
    )
    # the older's code for a case, the newer's said plainly: still compared
    assert Cue.VALUE in cues("FetchOrder returns 404 when archived", "FetchOrder answers 410 Gone", "FetchOrder")


def test_a_quantity_named_after_its_number_in_words_the_other_joins() -> None:
    assert Cue.VALUE in cues("ReadTimeout is 20 s on the replica", "query() uses a 5s read timeout per query", "query")


def test_a_bare_code_in_parentheses_is_no_count() -> None:
    old, new = (
        "the webhook is retried 4 times with backoff",
        "webhook retries do not apply to permanent failures (410), those are dropped",
    )
    assert quiet(old, new, "hook")


def test_the_remaining_amount_is_a_part_of_a_total() -> None:
    old = "rollout = 200 batches"
    assert quiet(old, "ramp_traffic shifts the rest of the traffic over the remaining 1.8k batches", "ramp_traffic")
    assert Cue.VALUE in cues(old, "ramp_traffic: rollout over 1.8k batches now", "ramp_traffic")


def test_every_abbreviation_of_the_second_is_read_beside_a_number() -> None:
    # units.py names these without a number from the same list: "msecs" and "usec" were known only there
    assert Cue.VALUE in cues("the handshake times out after 1500 msecs", "handshake times out after 2 s", "handshake")
    assert quiet("the handshake times out after 1500 msecs", "the handshake times out after 1.5 s", "handshake")
    assert Cue.VALUE in cues("poll every 250 usec", "poll every 1 ms", "poll")
