"""Team shorthand read as the words it stands for, before a lesson is read as a claim."""

from __future__ import annotations

from forewarn.memory.claims import anchor_words, read
from forewarn.memory.contradictions import Cue, judge
from forewarn.memory.shorthand import expand, rewrite


def test_call_syntax_paths_ports_and_rates_said_plainly() -> None:
    assert rewrite("save() commits; parse_amount('') returns None") == "save commits; parse_amount returns None"
    assert rewrite("Parser::parse rejects it") == "Parser.parse rejects it"
    assert rewrite("server listens on :8080") == "server listens on port 8080"
    assert rewrite("the job runs at 02:00") == "the job runs at 02:00"  # a time of day is no port
    assert rewrite("60/min per IP") == "60 per min per IP"
    assert rewrite("Get is O(1)") == "Get is O(1)"  # complexity keeps its parentheses
    assert rewrite("keeps at most 1M keys") == "keeps at most 1000000 keys"
    assert rewrite("rolled back by hand") == "rolled back manually"


def test_abbreviations_numbers_and_possessives() -> None:
    assert expand(["pool", "size", "20", "conns"]) == ["pool", "size", "20", "connections"]
    assert expand(["commits", "the", "txn"]) == ["commits", "the", "transaction"]
    assert expand(["cap", "is", "10k"]) == ["cap", "is", "10000"]
    assert expand(["retries", "3x"]) == ["retries", "3", "times"]
    assert expand(["3x", "faster"]) == ["3x", "faster"]  # a factor, not a count
    assert expand(["btw", "uses", "postmark's", "api"]) == ["uses", "postmark", "api"]
    assert expand(["it's", "fine"]) == ["it's", "fine"]  # a contraction, not a possessive


def test_tx_before_a_signal_path_part_is_transmit() -> None:
    assert expand(["flushes", "the", "tx", "fifo"]) == ["flushes", "the", "transmit", "fifo"]
    assert expand(["the", "rx", "ring", "holds", "256"]) == ["the", "receive", "ring", "holds", "256"]
    assert expand(["commits", "the", "tx"]) == ["commits", "the", "transaction"]  # elsewhere a transaction
    assert expand(["rx"]) == ["rx"]


def test_claims_and_anchors_read_in_one_vocabulary() -> None:
    anchor = anchor_words("UserRepo.save")
    assert "repository" in anchor  # "repo" in the name reads as the word a memory would write
    claim = read("get_pool opens max 4 conns per worker proc", anchor_words("get_pool"))
    assert "connections" in claim.tokens and "process" in claim.tokens


def test_arrow_results_and_units_in_parentheses() -> None:
    assert rewrite("parse_amount('') -> None, callers handle it") == "parse_amount returns None, callers handle it"
    assert rewrite("to_cents(x) → int") == "to_cents returns int"
    assert rewrite("backup_retention = 7 (days)") == "backup_retention = 7 days"
    assert rewrite("reload 500 -> ~500ms timeout") == "reload 500 -> ~500ms timeout"  # no call: left as written


def test_a_duration_written_as_code_is_its_amount() -> None:
    assert rewrite("Timeout: 250 * time.Millisecond") == "Timeout: 250 ms"
    assert rewrite("ttl = time.Minute * 5") == "ttl = 5 min"
    assert rewrite("wait 3 * retries") == "wait 3 * retries"  # not a unit constant


def test_which_one_wins_is_which_one_is_kept() -> None:
    assert rewrite("on duplicate keys, last write wins") == "on duplicate keys, keeps the last write"
    old = "dedupe_rows keeps the first row per key"
    verdict = judge("duplicates: last one wins in dedupe_rows", old, anchor=anchor_words("dedupe_rows"))
    assert verdict is not None and Cue.ANTONYM in verdict.cues
    assert judge("dedupe_rows: first one wins, later rows are logged", old, anchor=anchor_words("dedupe_rows")) is None
