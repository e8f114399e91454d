"""The contradiction detector: each mechanism, what must stay quiet, and the targets on the labelled pairs."""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.memory.contradictions import Cue, anchor_words, conflicting, describe, judge

DATA = Path(__file__).parent / "data"
FALSE_ALARM_TARGET = 0.05  # issue 23, on a set written by someone else


def cues(old: str, new: str, symbol: str | None = None, cosine: float | None = None) -> tuple[str, ...]:
    v = judge(new, old, anchor=anchor_words(symbol), cosine=cosine)
    return v.cues if v is not None else ()


def quiet(old: str, new: str, symbol: str | None = None, cosine: float | None = None) -> bool:
    return judge(new, old, anchor=anchor_words(symbol), cosine=cosine) is None


# ---------------------------------------------------------------- a number, a unit or a bound changed


def test_a_changed_amount_of_one_quantity() -> None:
    assert Cue.VALUE in cues("the default timeout is 30 seconds", "the default timeout is 10 seconds")
    old = "retry_payment gives up after 3 attempts"
    assert Cue.VALUE in cues(
        old, "retry_payment keeps trying for at least 6 attempts before it gives up", "retry_payment"
    )
    assert Cue.VALUE in cues("create_pool opens 10 connections", "create_pool opens twenty connections", "create_pool")
    assert Cue.VALUE in cues("sync runs every 15 minutes", "sync runs once an hour", "sync")  # a period


def test_a_changed_unit_is_a_changed_amount_and_an_equal_amount_is_not() -> None:
    assert Cue.VALUE in cues(
        "check_size rejects files over 10 MB", "check_size rejects files over 10 MiB", "check_size"
    )
    assert quiet("entries expire after 5 minutes", "entries expire after 300 seconds")
    assert quiet("a session cookie lives 24 hours", "a session cookie lives one day")
    assert quiet("poll sleeps 500 ms between tries", "poll sleeps 0.5 s between tries", "poll")
    old = "adjust never goes below zero"
    assert Cue.VALUE in cues(old, "adjust can take stock below zero when backorders are on", "adjust")  # one threshold
    assert Cue.VALUE in cues("poll sleeps 500 ms between polls", "poll waits 2 s between two polls", "poll_status")


def test_a_bound_turned_around() -> None:
    old = "validate_password accepts passwords of at most 12 characters"
    assert Cue.VALUE in cues(old, "validate_password wants passwords of at least 12 characters", "validate_password")
    assert Cue.VALUE in cues("the lock is held for less than a second", "the lock can be held for more than a second")
    assert Cue.VALUE in cues("failed jobs are retried forever", "failed jobs are retried at most 3 times")


def test_a_bound_said_under_a_refusal_or_a_negation_is_the_same_bound() -> None:
    old = "validate_password wants passwords of at least 12 characters"
    assert quiet(old, "validate_password rejects passwords shorter than 12 characters", "validate_password")
    assert quiet("check_size rejects files over 10 MB", "files larger than ten megabytes are refused by check_size")
    assert quiet("SmtpPool keeps at most 4 connections open", "never open more than four connections from SmtpPool")


def test_another_quantity_or_an_example_is_no_change() -> None:
    assert quiet("Client.connect uses port 5432", "Client.connect times out after 30 seconds", "Client.connect")
    assert quiet("the read timeout in Pool is 30 seconds", "the connect timeout in Pool is 5 seconds", "Pool")
    assert quiet("access tokens expire after 15 minutes", "refresh tokens expire after 30 days")
    assert quiet("sync_orders runs every 15 minutes", "a sync_orders run takes about 2 minutes", "sync_orders")
    old = "check_size rejects files over 10 MB"
    assert quiet(old, "check_size rejects files over 10 MB, e.g. a 12 MB PDF fails with 413", "check_size")
    assert quiet(old, "check_size rejects files over 10 MB; a 24 MB RAW file gets a 413", "check_size")
    assert quiet("backup keeps 7 snapshots", "backup keeps 7 snapshots and uploads each one to cold storage", "backup")


def test_a_literal_swapped_in_one_sentence() -> None:
    assert Cue.VALUE in cues("read_text decodes files as UTF-8", "read_text decodes files as latin-1", "read_text")
    assert quiet("SignupForm.phone is required", "SignupForm.phone is normalised to E.164", "SignupForm.phone")
    assert Cue.VALUE in cues("serve binds to 0.0.0.0", "serve binds to 127.0.0.1", "serve")
    assert Cue.VALUE in cues(
        "to_epoch returns seconds since the epoch", "to_epoch returns milliseconds since the epoch"
    )
    assert quiet(
        "post retries on 502 and can send the body twice", "post() retries on HTTP 502 and may send the body twice"
    )


# ---------------------------------------------------------------- opposites


def test_opposites_from_the_lexicon() -> None:
    assert Cue.ANTONYM in cues("fetch_user is synchronous", "fetch_user is async now", "fetch_user")
    assert Cue.ANTONYM in cues("the checkout flag is enabled", "the checkout flag is disabled")
    assert Cue.ANTONYM in cues("import_rows inserts only", "import_rows upserts existing ids", "import_rows")
    assert Cue.ANTONYM in cues("Order.total is computed on write", "Order.total is computed on read", "Order.total")


def test_everyday_alternatives_count_only_swapped_in_place() -> None:
    old = "parse_amount raises ValueError on an empty string"
    assert Cue.ANTONYM in cues(old, "parse_amount returns None on an empty string", "parse_amount")
    assert Cue.ANTONYM in cues(
        "pop_task takes the first task in the queue", "pop_task takes the last task in the queue"
    )
    # "returns" elsewhere in another sentence is no opposite of "raises"
    assert quiet(old, "parse_amount returns Decimal for every valid input", "parse_amount")


def test_a_negating_prefix_or_suffix() -> None:
    assert Cue.ANTONYM in cues("the socket is opened in blocking mode", "the socket is opened in non-blocking mode")
    assert Cue.ANTONYM in cues("make_key is case-sensitive", "make_key is case-insensitive", "make_key")
    assert Cue.ANTONYM in cues("the migration is reversible", "the migration is irreversible")
    assert Cue.ANTONYM in cues("the handler is stateless", "the handler is stateful")
    assert Cue.ANTONYM in cues("memoize is per-process", "memoize is shared across processes through Redis", "memoize")


def test_compounds_with_an_opposite_part() -> None:
    assert Cue.ANTONYM in cues("encode writes integers big-endian", "encode writes integers little-endian", "encode")
    assert Cue.ANTONYM in cues("purge does a soft delete", "purge hard-deletes the rows", "purge")
    assert Cue.ANTONYM in cues("apply_discount rounds up to the cent", "apply_discount rounds down to the cent")


def test_the_converse_relation_says_the_same() -> None:
    assert quiet("pre_save runs before validation", "validation happens after pre_save", "pre_save")
    assert Cue.ANTONYM in cues("pre_save runs before validation", "pre_save runs after validation", "pre_save")


def test_a_negation_beside_an_opposite_cancels() -> None:
    assert quiet("execute must run inside a transaction", "never call execute outside a transaction", "execute")
    assert quiet("publish is called after the commit", "publish never runs before the commit", "publish")
    assert quiet("dedupe keeps the oldest record", "dedupe drops every duplicate except the oldest", "dedupe")


# ---------------------------------------------------------------- negation


def test_polarity_flipped_in_other_words() -> None:
    assert Cue.NEGATION in cues("charge() is not idempotent", "charge() is idempotent now: it keys on the order id")
    assert Cue.NEGATION in cues("sync_inventory never retries", "sync_inventory retries up to twice", "sync_inventory")
    assert Cue.NEGATION in cues("get_user may return None", "get_user always returns a User, never None", "get_user")
    assert Cue.NEGATION in cues("publish delivers events in order", "publish doesn't guarantee order", "publish")
    assert Cue.NEGATION in cues("healthz checks the database", "healthz does not touch the database at all", "healthz")


def test_a_negation_of_something_the_other_does_not_say_is_no_denial() -> None:
    assert quiet("request retries on 503", "request retries on 503 but not on 504", "request")
    assert quiet(
        "import_rows inserts only; an existing id fails", "import_rows never updates an existing row", "import_rows"
    )
    assert quiet("send_email is synchronous", "send_email does not return until SMTP answers", "send_email")
    assert quiet("pop_task takes the first task", "pop_task raises Empty when there is nothing queued", "pop_task")


def test_a_negated_modal_forbids() -> None:
    old = "impersonate is allowed for support staff"
    assert Cue.NEGATION in cues(old, "support staff can no longer impersonate users", "impersonate")
    assert Cue.NEGATION in cues("uploads to /public are allowed", "you cannot upload to /public", "upload")


def test_each_clause_of_the_newer_text_is_read_on_its_own() -> None:
    old = "Handle.close is called automatically at exit"
    new = "You must call Handle.close manually; nothing closes it at exit"
    assert cues(old, new, "Handle.close")  # two contradictions, not two that cancel
    assert Cue.NEGATION in cues("refund can be called twice without harm", "refund cannot be called twice", "refund")


def test_what_a_negation_does_not_reach() -> None:
    old = "load_json returns None on invalid JSON"
    assert quiet(old, "load_json swallows JSONDecodeError and returns None", "load_json")  # its scope ends at "and"
    assert quiet("hash uses a random salt per user", "no two users share a salt in hash", "hash")  # a count
    assert quiet("export keeps formulas", "formulas survive export; they are not replaced by values", "export")
    old = "cleanup deletes files older than 5 days"
    assert quiet(old, "cleanup deletes files older than 5 days, e.g. a file from Monday is gone by Saturday", "cleanup")
    assert quiet("the job runs at 02:00", "the job skips itself when the previous run is still going", "job")


def test_two_negations_of_one_thing_agree() -> None:
    assert quiet("symlinks are not followed by safe_join", "safe_join does not follow symlinks", "safe_join")
    assert quiet("nested atomic blocks are not supported", "do not nest atomic blocks", "atomic")


# ---------------------------------------------------------------- said to have changed


def test_temporal_reversal() -> None:
    old = "upload buffers the whole file in memory"
    assert Cue.TEMPORAL in cues(old, "upload used to buffer the whole file; it streams it to disk now", "upload")
    assert Cue.TEMPORAL in cues("get_config reads config.ini", "Starting with 1.8, get_config reads config.toml")
    assert Cue.TEMPORAL in cues("check compares hashes with ==", "check uses hmac.compare_digest these days", "check")
    assert Cue.TEMPORAL in cues("export_csv used to stream rows", "export_csv streams rows", "export_csv")
    old = "refresh sends the secret in the query string"
    assert cues(old, "As of the security review, refresh sends the secret in the Authorization header", "refresh")
    assert cues("Client requires an API key", "As of v3, Client no longer requires an API key", "Client")


def test_something_added_or_a_reason_is_no_reversal() -> None:
    assert quiet("export writes CSV", "export now also writes a manifest next to the CSV", "export")
    assert quiet("lookup holds the lock", "since it holds the lock, lookup must stay short", "lookup")


def test_replacement_names_what_it_replaces() -> None:
    old = "request uses requests.Session for connection pooling"
    assert Cue.REPLACEMENT in cues(old, "request now uses httpx.Client instead of requests.Session", "request")
    # "rather than" about something the older text never says: a preference, not a replacement
    new = "Client requires an API key; read it from FOREWARN_API_KEY rather than hard-coding it"
    assert quiet("Client requires an API key", new, "Client")


def test_the_changes_qa_and_the_red_team_saw_swallowed() -> None:
    # functional-pass-3 D1 and red-team-2 R9: a changed value or an antonym, never a restatement
    send = "HTTPAdapter.send"
    old = "HTTPAdapter.send: the default connect timeout is 5 seconds"
    assert Cue.VALUE in cues(old, "HTTPAdapter.send: the default connect timeout is 30 seconds", send)
    assert Cue.ANTONYM in cues(
        "HTTPAdapter.send retries are synchronous", "HTTPAdapter.send retries are asynchronous", send
    )
    assert Cue.VALUE in cues("keeps at most 30 redirects", "keeps at most 10 redirects", "rebuild_auth")
    old = "the payment API allows at most 3 retries per charge"
    assert Cue.VALUE in cues(old, "the payment API allows at most 5 retries per charge", "charge")


# ---------------------------------------------------------------- kept quiet, vectors, API


def test_compatible_pairs_do_not_fire() -> None:
    old = "every charge carries an idempotency key"
    assert quiet(old, "the idempotency key is derived from the order id")  # an elaboration
    assert quiet(old, "charge_card converts the amount to cents", "charge_card")  # another aspect
    assert quiet(old, "charge_card always sends an idempotency key with each charge")  # a restatement
    assert quiet(
        "Invoice.total includes tax", "Invoice.total is rounded per line item, not on the sum", "Invoice.total"
    )


def test_vectors_stand_in_for_word_overlap_but_add_no_cue() -> None:
    old, new = "run is blocking", "run never blocks the caller or its event loop"
    assert quiet(old, "run returns the exit code", "run", cosine=0.95)  # close in meaning, nothing opposite
    assert Cue.NEGATION in cues("resolve caches answers", "resolve never keeps any of its answers cached", "resolve")
    assert Cue.NEGATION in cues(old, new, "run", cosine=0.9)


def test_conflicting_ranks_and_keys() -> None:
    found = conflicting(
        "the timeout is 10 seconds",
        [("a", "the timeout is 30 seconds", None), ("b", "the timeout covers connect and read", None)],
    )
    assert [k for k, _ in found] == ["a"]


def test_describe_names_each_cue() -> None:
    assert describe([Cue.VALUE, Cue.TEMPORAL]) == "changed value, said to have changed"
    assert describe(["negation"]) == "negation"  # plain strings, as they come back from JSON


# ---------------------------------------------------------------- round 3: general readings


def test_work_handed_to_the_caller_is_work_the_symbol_does_not_do() -> None:
    assert Cue.NEGATION in cues(
        "flush_queue retries failed sends", "flush_queue sends once; retrying is up to the caller", "flush_queue"
    )
    assert Cue.NEGATION in cues("import_rows validates each row", "validation is the caller's job", "import_rows")
    # said twice: "does not X" and "X is the caller's job" agree
    assert quiet("import_rows does not close the file", "closing is on the caller", "import_rows")


def test_left_off_is_the_property_denied() -> None:
    assert Cue.NEGATION in cues(
        "the auth cookie is Secure", "set_auth_cookie leaves Secure off for local dev hosts", "set_auth_cookie"
    )


def test_now_in_a_formula_is_the_clock_not_a_date() -> None:
    old = "is_stale returns true for entries older than the ttl"
    assert quiet(old, "is_stale returns true for entries older than the ttl, i.e. created_at < now - ttl", "is_stale")
    assert Cue.TEMPORAL in cues("sync runs in the request", "sync runs in a worker now", "sync")


def test_an_amount_denied_is_a_changed_value() -> None:
    old = "the lease timeout is 30 seconds"
    assert Cue.VALUE in cues(old, "the lease timeout is in minutes, so 30 means half an hour, not 30 seconds")
    assert quiet("the lease timeout is 30 seconds", "the lease timeout is 30 seconds, not 30 minutes")


def test_a_glob_names_what_it_matches_and_a_file_the_tool_it_configures() -> None:
    assert Cue.REPLACEMENT in cues(
        "SessionStore keeps sessions in Redis", "SessionStore moved to Postgres; the redis sess:* keys are dead"
    )
    assert Cue.REPLACEMENT in cues(
        "lint() runs eslint over src", "linting is done by biome, eslint.config.js is unused", "lint"
    )
    # a file of something the older text does not name changes nothing
    assert quiet("lint() runs eslint over src", "lint() runs eslint over src; tsconfig.json is unused", "lint")


def load(name: str) -> list[tuple[str, str, str, str]]:
    rows = []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            label, _kind, anchor, old, new = line.split("\t")
            rows.append((label, anchor.partition("::")[2], old, new))
    return rows


# ---------------------------------------------------------------- narrower, agreeing or other statements (round 4)


def test_an_elided_negation_that_agrees_with_the_older_one_denies_nothing() -> None:
    old = "fetch() doesn't decompress gzip bodies"
    assert quiet(old, "Client.fetch returns the raw gzip bytes, the caller has to decompress them, we don't", "fetch")
    # and an elided negation against an affirmation is no agreement: it is read as before (no new cue)
    assert quiet("fetch decompresses gzip bodies", "the docs say fetch decompresses gzip bodies; it doesn't", "fetch")


def test_a_contrastive_not_about_a_third_alternative_denies_nothing() -> None:
    old = "compare orders strings by code point (binary order)"
    assert quiet(old, "compare sorts in code point order, uppercase first, not by locale", "compare")
    # "…, not X" where X is what the older text says still denies it
    assert Cue.NEGATION in cues(
        "parse_size reads 1 KB as 1000 bytes", "parse_size reads KB as 1024 bytes, not 1000 bytes", "parse_size"
    )


def test_a_negation_narrowed_by_its_own_condition_clause_denies_no_unconditional_rule() -> None:
    old = "flush() writes the buffer to disk"
    assert quiet(old, "Writer.flush skips the write if the buffer is empty", "flush")
    assert quiet("save commits the transaction", "when autocommit is off, save does not commit", "save")
    # both naming a case, a denial in it is still one
    assert Cue.NEGATION in cues(
        "save commits the transaction when autocommit is off", "when autocommit is off, save does not commit", "save"
    )


def test_an_announced_exception_is_a_caveat_and_an_exception_raised_is_not() -> None:
    assert quiet(
        "the API rejects unsigned requests", "one exception: the health check accepts unsigned requests", "api"
    )
    assert Cue.ANTONYM in cues("parse raises an exception on empty input", "parse returns None on empty input", "parse")


def test_the_window_of_another_count_is_another_quantity() -> None:
    old = "uploads limited to 20 files per 10 min per user"
    assert quiet(old, "after 3 rejected uploads in 1h the key itself is revoked", "uploads")
    # the window of the same count changed is a changed value
    assert Cue.VALUE in cues(old, "uploads limited to 20 files per 1h per user", "uploads")


def test_numbers_in_other_units_across_a_comma_are_two_statements() -> None:
    assert Cue.VALUE in cues(
        "read timeout is 30s", "read_timeout default is 1500ms, 30s was hiding stuck peers", "read_timeout"
    )


def test_a_setting_written_key_value_states_its_number() -> None:
    assert Cue.VALUE in cues("the worker pool has 4 threads", "Pool.start uses max_threads=16", "Pool.start")
    assert Cue.VALUE in cues("window is 5", "Sender.open sets window_size=64", "Sender.open")
    assert quiet("window is 5", "Sender.open sets window_size=5", "Sender.open")


def test_a_number_ruled_out_states_no_current_value() -> None:
    assert quiet("chunks are 4 MB", "chunk size is 4 MB, 8 MB is wrong", "chunks")


def test_most_and_least_recent_are_newest_and_oldest() -> None:
    assert Cue.ANTONYM in cues("pop() returns the oldest job", "Queue.pop returns the most recently added job", "pop")


def test_two_signs_of_a_change_need_fewer_shared_words() -> None:
    old = "reports are rendered synchronously in the request, cached for a day"
    new = "since June render_report enqueues async jobs to the worker fleet, no caching"
    assert cues(old, new, "render_report")
    # one sign alone at that overlap stays quiet
    assert quiet(old, "render_report hands jobs to the worker fleet, results land in S3", "render_report")


# (set, detection floor, false-alarm ceiling), words only: regression guards just under what each set measured
# (bench/contradiction_bench.py) when the round-8 rules were frozen: the tuning set (batches A-K, built with the
# rules) 94.6% / 0.4%, the older held-out set 96.7% / 2.9%, blind1 (a development set since its one blind run at
# 41.7% / 2.8%) 100.0% / 0.0%, blind2 (one blind run at 72.2% / 5.6%, a development set since) 88.9% / 0.0%;
# blind3 (one blind run at 72.2% / 13.9% with round 3's rules, a development set since) 91.7% / 0.0%; blind4
# (one blind run at 58.3% / 16.7%, the cross-validation set of round 5) 80.6% / 2.8%; blind5 (one blind run at
# 75.0% / 8.3%, the cross-validation set of round 6) 94.4% / 0.0%; blind6 (one blind run at 75.0% / 5.6% after
# round 6 was frozen, the cross-validation set of round 7) 91.7% / 0.0%; blind7 (one blind run at 80.6% / 22.2%
# after round 7 was frozen, the cross-validation set of round 8) 91.7% / 0.0%; blind8 (one blind run at 77.8% / 8.3%
# after round 8 was frozen, the cross-validation set of round 9) 94.4% / 2.8%; blind9 (one blind run at 55.6% / 5.6%
# after round 9 was frozen, the cross-validation set of round 10) 72.2% / 2.8%; blind10 (one blind run at 69.4% / 2.8%
# after round 10 was frozen, the cross-validation set of round 11) 100.0% / 0.0%; blind11 (written after round 11
# was frozen, measured once) 75.0% / 8.3% words only, 77.8% / 8.3% with the model, the cross-validation set of round
# 12; blind12 (one blind run at 55.6% / 2.8% after round 12 was frozen, the cross-validation set of round 13)
# 69.4% / 0.0%; blind13 (one blind run at 69.4% / 11.1% after round 13 was frozen, the cross-validation set of
# round 14) 91.7% / 0.0%; blind14 (written after round 14 was frozen, measured once) 69.4% / 11.1%: not tuned on.
# The honest figures are each set's first run, in the files' comments.
FLOORS = [
    ("contradictions.tsv", 0.95, 0.01),
    ("contradictions_heldout.tsv", 0.97, FALSE_ALARM_TARGET),
    ("contradictions_blind1.tsv", 0.97, 0.01),
    ("contradictions_blind2.tsv", 0.86, 0.01),
    ("contradictions_blind3.tsv", 0.9, 0.01),
    ("contradictions_blind4.tsv", 0.94, 0.03),
    ("contradictions_blind5.tsv", 0.94, 0.01),
    ("contradictions_blind6.tsv", 0.94, 0.01),
    ("contradictions_blind7.tsv", 0.94, 0.01),
    ("contradictions_blind8.tsv", 0.94, 0.03),
    ("contradictions_blind9.tsv", 0.97, 0.03),
    ("contradictions_blind10.tsv", 0.97, 0.01),
    ("contradictions_blind11.tsv", 0.88, 0.01),
    ("contradictions_blind12.tsv", 0.83, 0.01),
    ("contradictions_blind13.tsv", 0.91, 0.01),
    ("contradictions_blind14.tsv", 0.69, 0.12),
]


@pytest.mark.parametrize(("name", "detection_floor", "false_alarm_ceiling"), FLOORS)
def test_rates_on_the_labelled_pairs(name: str, detection_floor: float, false_alarm_ceiling: float) -> None:
    rows = load(name)
    conflicts = [r for r in rows if r[0] == "conflict"]
    compatible = [r for r in rows if r[0] == "compatible"]
    if name == "contradictions.tsv":
        assert len(conflicts) >= 490 and len(compatible) >= 520
    flagged = {id(r): judge(r[3], r[2], anchor=anchor_words(r[1])) is not None for r in rows}
    detection = sum(flagged[id(r)] for r in conflicts) / len(conflicts)
    false_alarms = sum(flagged[id(r)] for r in compatible) / len(compatible)
    assert detection >= detection_floor, detection
    assert false_alarms <= false_alarm_ceiling, false_alarms


def test_rejecting_is_a_failing_outcome_and_an_example_claims_nothing() -> None:
    # rejecting is done by raising: an elaboration naming the exception is no opposite
    old = "check_scope rejects tokens with a missing scope"
    new = "the scope must match exactly; check_scope raises ScopeError and the handler maps it to 403"
    assert quiet(old, new, "check_scope")
    assert Cue.ANTONYM in cues(
        "check_scope rejects unknown scopes", "check_scope returns unknown scopes unchanged", "check_scope"
    )
    # an opposite inside an example ("e.g. …") illustrates
    old = "load_day appends, reruns double count"
    new = "eg rerunning March 3rd twice tripled the totals. truncate the partition before a rerun"
    assert quiet(old, new, "load_day")


def test_one_shared_word_in_three_is_enough_for_a_dated_denial() -> None:
    old = "get_client builds a fresh client, close it after use"
    assert Cue.NEGATION in cues(old, "since 3.0 get_client hands out shared clients, do not close them", "get_client")


def test_a_place_named_with_a_digit_is_no_date() -> None:
    from forewarn.memory.claims import read

    assert not read("the zone is managed in Route53").when
    assert not read("artifacts are kept in S3").when
    assert read("retries were removed in v3").when


# ---------------------------------------------------------------- round 6 (blind5 read as classes of writing)


def test_two_settings_with_different_keys_are_two_quantities() -> None:
    old = "client uses connect_timeout=5, read_retries=3 per host"
    assert quiet(old, "connect_backoff=250 so retries spread out before the proxy's 30 s cut", "client")
    assert Cue.VALUE in cues(old, "client uses connect_timeout=15, read_retries=3 per host", "client")


def test_a_role_object_after_a_negation_names_nothing_used() -> None:
    old = "render() runs without a bytecode cache."
    new = "render wraps each call in jinja2.Environment(), calls env.get_template and returns the string"
    assert quiet(old, new, "render")
    assert Cue.REPLACEMENT in cues("render() runs on jinja2", "render() runs on mako templates now", "render")


def test_an_older_negation_said_denied_again_is_agreed_with() -> None:
    old = "list_users does not return archived accounts."
    new = "list_users adds archived_at IS NULL to the query, so archived accounts never appear; an index covers it"
    assert quiet(old, new, "list_users")
    # said without a negation, the older denial is contradicted
    assert cues(old, "list_users returns archived accounts too, flagged as archived", "list_users")


def test_a_synonym_denied_denies_the_word_it_stands_for() -> None:
    old = "build_index is deterministic for one input corpus."
    new = "build_index is not reproducible: it shuffles shards with no fixed seed."
    assert Cue.NEGATION in cues(old, new, "build_index")


def test_a_key_value_setting_is_about_its_key() -> None:
    old = "sampler draws once per batch, seed=7"
    new = "FIXME: sampler only draws once at startup, not per batch, and the seed comes from os.urandom"
    assert cues(old, new, "sampler")


def test_no_longer_a_dependency_says_the_thing_is_gone() -> None:
    old = "Exporter is built on openpyxl.Workbook."
    new = "Exporter writes with xlsxwriter now (faster on big sheets); openpyxl is no longer a dependency."
    assert Cue.REPLACEMENT in cues(old, new, "Exporter")
    assert quiet(old, "Exporter is built on openpyxl.Workbook; pandas is no longer a dependency of it.", "Exporter")


def test_an_opposite_after_the_same_word_is_swapped_in_place() -> None:
    old = "commits BEFORE publishing, so a crash drops the event"
    new = "Outbox.flush commits only after the broker confirms; a crash mid-publish means a resend"
    assert Cue.ANTONYM in cues(old, new, "Outbox.flush")
    # "A before B" / "B after A" is one order said twice
    assert quiet("flush commits before publishing", "publishing happens after flush commits", "flush")


def test_prepend_append_and_dedicated_shared_are_opposites() -> None:
    old = "log_event prepends the entry so the latest reads first."
    assert Cue.ANTONYM in cues(old, "log_event pushes onto the end of self.entries; the viewer sorts them.")
    old = "run_job executes on a dedicated pool of 8 threads, sleeping is fine there."
    new = "run_job goes onto the shared asyncio loop. Never sleep inside it; use run_in_executor."
    assert cues(old, new, "run_job")


def test_a_lowercase_name_under_the_hood_fills_the_role() -> None:
    assert Cue.REPLACEMENT in cues("Mailer wraps smtplib (TLS on)", "Mailer is sendgrid under the hood", "Mailer")
    assert Cue.REPLACEMENT in cues("Search uses whoosh", "Search is tantivy under the hood", "Search")
    assert quiet("Search uses tantivy", "Search is tantivy under the hood", "Search")
    assert quiet("Search uses whoosh", "Search is fast under load", "Search")


# ---------------------------------------------------------------- round 7 (blind6 read as classes of writing)


def test_when_an_operation_may_run_is_a_set_of_alternatives() -> None:
    old = "purge_sessions is safe to run in working hours, it only touches expired rows"
    new = "run purge_sessions only in the maintenance window: it rewrites expired rows under a table lock"
    assert Cue.ANTONYM in cues(old, new, "purge_sessions")
    # a denial of the one window restates the other
    assert quiet("don't run purge_sessions during office hours", "purge_sessions is off-hours only", "purge_sessions")


def test_a_denied_noun_is_the_adjective_it_names() -> None:
    old = "save_blob is atomic on S3 (single PUT)"
    new = "save_blob gives no atomicity guarantee on S3 multipart uploads, readers can see parts"
    assert Cue.NEGATION in cues(old, new, "save_blob")


def test_safe_to_retry_is_idempotent() -> None:
    old = "charge() is not idempotent, a second call bills twice"
    assert Cue.NEGATION in cues(old, "charge is safe to retry now: it sends an idempotency key per order", "charge")
    assert quiet("charge() is idempotent", "charge is safe to retry, the key dedupes it", "charge")


def test_what_a_symbol_wraps_is_named_in_its_role() -> None:
    old = "db.Open is a thin wrapper around sqlx"
    assert Cue.REPLACEMENT in cues(old, "db.Open is pgx under the hood", "db.Open")
    assert quiet(old, "db.Open is sqlx under the hood", "db.Open")


def test_asking_for_confirmation_is_prompting() -> None:
    old = "purge asks for confirmation unless you pass --force"
    assert cues(old, "since 3.0 purge never prompts; --force does nothing now", "purge")


def test_escaping_against_leaving_text_untouched() -> None:
    old = "render_cell escapes HTML in cell values"
    assert Cue.ANTONYM in cues(old, "render_cell leaves HTML in cell values untouched, so tags render", "render_cell")


def test_any_of_a_thing_against_only_one_of_it() -> None:
    old = "emit() can be called from any goroutine"
    assert Cue.ANTONYM in cues(old, "emit must only be called from the main goroutine, it is not locked", "emit")
    assert quiet(old, "emit can be called from any goroutine; it takes the bus lock", "emit")


def test_two_numbers_named_by_two_measures_are_two_quantities() -> None:
    old = "timeout is 30s per call"
    assert quiet(old, "client: max 5 retries, backoff starting at 500ms", "client")
    assert Cue.VALUE in cues(old, "client timeout is 5s per call", "client")


def test_forever_denied_agrees_with_a_finite_amount() -> None:
    old = "a session isn't kept forever"
    assert quiet(old, "Store.save sets a 30 min expiry on each session and refreshes it on use", "Store.save")
    assert Cue.VALUE in cues("a session is kept forever", "Store.save sets a 30 min expiry on each session")


def test_not_until_states_a_precondition() -> None:
    old = "publish the event only after the outbox row is saved"
    assert quiet(old, "The relay doesn't publish the event until the outbox row is saved.", "publish_event")
    # without an order in the older text it is still a denial
    assert cues("publish_event publishes the event right away", "publish_event doesn't publish the event")


def test_thread_safety_and_background_work_are_opposites() -> None:
    assert Cue.ANTONYM in cues(
        "Enqueue is thread-safe, share it freely", "Enqueue races on q.items under load", "Enqueue"
    )
    old = "Flush is blocking, it waits for the disk"
    assert Cue.ANTONYM in cues(old, "Flush starts a goroutine that writes to the disk", "Flush")


def test_a_noun_in_age_meets_its_verb() -> None:
    from forewarn.memory.claims import stem

    assert stem("leakage") == stem("leak") and stem("breakage") == stem("break")
    assert stem("page") == stem("pages") != "p"  # too short to lose the suffix


def test_no_before_an_amount_with_a_unit_denies_it() -> None:
    old = "put_object caps each upload at 2 GB"
    assert Cue.VALUE in cues(old, "put_object streams in parts now, no 2GB cap", "put_object")
    assert quiet(old, "put_object caps each upload at 2 GB; bigger files are refused", "put_object")
    # before a bare count "no" is still a count of none, not a denial
    assert quiet("two workers may hold the lease", "no two workers hold the lease at once, it is fenced")


def test_zero_before_an_act_denies_it() -> None:
    old = "export_csv buffers every row in memory"
    assert Cue.NEGATION in cues(old, "export_csv writes rows as they come, zero buffering", "export_csv")
    assert quiet(old, "export_csv buffers rows in memory and writes them at the end", "export_csv")


def test_any_single_is_no_count_of_one() -> None:
    old = "allow at most 3 refunds per order per day"
    assert quiet(old, "refund_guard also stops any single refund above $500 on a new account", "refund_guard")
    assert Cue.VALUE in cues(old, "allow at most 5 refunds per order per day", "refund_guard")


def test_two_words_written_as_one_name_one_number() -> None:
    old = "read timeout 20 sec; slow backends get cut off"
    assert Cue.VALUE in cues(old, "ReadTimeout on the HTTP client is 120 (seconds)", "proxy")
    assert quiet(old, "ReadTimeout on the HTTP client is 20 seconds", "proxy")
    # two other words beside one number still name another quantity
    assert quiet("the bcrypt cost factor is 12", "hashing takes about 250 ms per password")


def test_a_denied_act_the_other_text_states_whole_needs_fewer_shared_words() -> None:
    old = "checks X-Api-Key against API_KEYS, rate 10/s"
    new = "authorize doesn't check the key at all (the gateway does), no rate limit here either"
    assert Cue.NEGATION in cues(old, new, "authorize")
    # a denial of something the older text does not say stays another aspect
    assert quiet(old, "authorize never logs the key, the logs leave the cluster", "authorize")


def test_an_order_not_to_against_safe_to() -> None:
    safe = "FYI reindex is safe during peak hours, every build we ship is online"
    never = "NB: never run reindex during peak hours, it takes a table lock"
    assert Cue.NEGATION in cues(safe, never, "reindex")
    assert Cue.NEGATION in cues(never, safe, "reindex")
    # an order about another act leaves the permission alone
    assert quiet(safe, "reindex is safe during peak hours, but don't run two of them at once", "reindex")
    assert quiet(safe, "reindex is safe at peak; don't edit the shadow table by hand", "reindex")


def test_passing_is_accepting() -> None:
    old = "check_origin rejects requests from unknown origins"
    new = "check_origin is a no-op in dev, requests from unknown origins pass"
    assert Cue.ANTONYM in cues(old, new, "check_origin")


def test_a_hyphenated_name_names_its_number() -> None:
    old = "keep-alive 5s on the upstream pool"
    assert quiet(old, "connect-timeout window is 30s, after that the dial fails", "pool")
    assert Cue.VALUE in cues(old, "keep-alive 75s on the upstream pool", "pool")


def test_coordinated_denials_are_one_denial_not_a_double_negation() -> None:
    old = "package_app uses webpack with the terser plugin"
    new = "Bundles come from esbuild on the build box. There's no webpack config and no terser there."
    assert Cue.NEGATION in cues(old, new, "package_app")
    # a negation of a negation still cancels: "not without" says it does
    assert Cue.NEGATION not in cues(
        "sync_users runs inside a transaction", "sync_users never runs without a transaction"
    )


def test_a_universal_denial_of_the_noun_of_the_older_verb() -> None:
    old = "Importer.load validates every row against the schema"
    assert Cue.NEGATION in cues(
        old, "Heads-up: there is no validation anywhere on that path, the schema is decorative", "load"
    )
    # a denial of something else, however emphatic, is another aspect
    assert quiet(old, "Importer.load keeps no cache anywhere; rows are read once", "load")


def test_a_contract_that_ended_says_the_thing_is_gone() -> None:
    old = "send_sms goes through the Twilio API"
    assert Cue.REPLACEMENT in cues(
        old, "SmsGateway.send_sms posts to Vonage for delivery. Twilio contract ended in May.", "send_sms"
    )


# ---------------------------------------------------------------- round 12


def test_an_ended_act_names_what_it_replaced() -> None:
    old = "sync_prices fetches the vendor catalogue from their SOAP service on each run"
    assert Cue.REPLACEMENT in cues(
        old, "we stopped fetching the catalogue, sync_prices reads a nightly CSV dump", "sync_prices"
    )
    # an act the older text never names, ended, is another aspect
    assert quiet(old, "we stopped logging the payloads, sync_prices was too noisy in Kibana", "sync_prices")


def test_a_distributive_part_of_a_compound_is_no_topic() -> None:
    old = "export_report writes a summary row for each region"
    assert Cue.REPLACEMENT in cues(
        old, "export_report no longer writes per-region summary rows, only the grand total", "export_report"
    )


def test_what_happens_instead_of_an_act_denies_the_act() -> None:
    old = "Queue.put never waits for room"
    # "raises Full at once instead of waiting" says again that it does not wait
    assert quiet(old, "If the buffer is full, Queue.put raises Full at once instead of waiting.", "Queue.put")
    assert Cue.NEGATION in cues("Queue.put waits for room", "Queue.put raises Full instead of waiting", "Queue.put")


def test_the_readers_code_after_a_bare_if_is_no_behaviour_of_the_symbol() -> None:
    old = "useCart returns undefined until the cart loads"
    new = "So any component reading cart.items on mount crashes. Guard it with if (!cart) return <Loading/>."
    assert quiet(old, new, "useCart")


def test_those_of_every_case_are_a_case_of_their_own() -> None:
    old = "every upload is scanned by the antivirus worker"
    new = "uploads over 2 GB time the scanner out -- the worker tags those files and skips scanning them"
    assert quiet(old, new, "scan_upload")
    # "some" of every case is no case set apart: it denies the rule
    assert Cue.NEGATION in cues(
        "all endpoints require an API key", "some endpoints no longer require an API key", "router"
    )


def test_a_setting_key_with_a_glued_unit_names_the_setting() -> None:
    old = "http client: connect timeout 5s"
    assert Cue.VALUE in cues(old, "makeClient: connectTimeoutMillis=2000 after the LB change", "makeClient")
    assert quiet(old, "makeClient: connectTimeoutMillis=5000, set from the env", "makeClient")


def test_during_the_day_is_business_hours() -> None:
    old = "rebuild_index is safe to run during business hours"
    assert Cue.NEGATION in cues(
        old, "never run rebuild_index during the day, it locks the search table", "rebuild_index"
    )


def test_delivery_at_least_once_against_exactly_once() -> None:
    old = "handle_event may run twice for one event (the broker is at-least-once), so make it idempotent"
    assert Cue.ANTONYM in cues(
        old, "the outbox dedupe table makes handle_event process each event exactly once", "handle_event"
    )
    assert quiet(old, "handle_event may see an event twice; the dedupe key is event_id", "handle_event")
