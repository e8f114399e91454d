"""Round 14's mechanisms, each in sentences of our own (not the labelled sets')."""

from __future__ import annotations

from forewarn.memory.contradictions import Cue, anchor_words, judge


def cues(old: str, new: str, symbol: str | None = None) -> tuple[str, ...]:
    v = judge(new, old, anchor=anchor_words(symbol))
    return v.cues if v is not None else ()


def test_a_measure_right_after_an_amount_names_it() -> None:
    # a deadline and a backoff are two quantities, whichever side of the number the measure stands
    old = "default timeout 20s for the whole call"
    assert not cues(old, "fetch_page retries reset errors 4 times with 500ms backoff", "fetch_page")
    # the same measure on both sides is still one quantity
    assert Cue.VALUE in cues(
        "fetch_page waits with 500ms backoff", "fetch_page retries with a 2s backoff", "fetch_page"
    )


def test_the_older_name_said_again_beside_another_is_no_swap() -> None:
    old = "sessions are cached in Memcache"
    assert not cues(old, "load_session reads through the Momento (memcache protocol) cluster", "load_session")
    assert Cue.REPLACEMENT in cues(old, "load_session reads through the Momento cluster", "load_session")


def test_an_older_denial_is_not_met_by_an_example() -> None:
    old = "render_date uses the viewer's timezone, not the server's"
    new = "e.g. a viewer in Tokyo on the Frankfurt server sees 09:00 JST, which is intended"
    assert not cues(old, new, "render_date")


def test_an_older_denial_is_not_met_by_a_case_the_newer_names() -> None:
    old = "build_step is sandboxed, don't open network sockets in it"
    new = "build_step runs offline, so calls out fail fast. If a step truly needs a network socket, declare it."
    assert not cues(old, new, "build_step")


def test_a_property_against_its_symptom() -> None:
    # thread safety against "needs a lock", a second run failing, runs that differ, a prompt turned off
    assert cues("Registry is thread-safe", "Registry needs a lock around it before threads share it", "Registry")
    assert cues("seed_db can be rerun, running it twice is a no-op", "seed_db fails the second time with a key error")
    assert cues("shuffle_split is reproducible", "shuffle_split returns a different order on every run")
    assert cues("purge asks y/n before deleting", "purge no longer asks y/n, it deletes at once", "purge")
    assert cues("charge is not idempotent", "charge sends a request key, so a retry gives exactly one charge", "charge")
    assert cues("Pool.Put is safe for concurrent use", "Put appends to the free list without taking the lock", "Put")
    # the same pole said again stays quiet
    assert not cues("Registry is thread-safe", "Registry takes its mutex on every call; share it freely", "Registry")


def test_shut_down_is_gone_and_experiment_trackers_are_one_kind() -> None:
    old = "discover_peers asks Consul for the peer list"
    assert Cue.REPLACEMENT in cues(old, "the consul cluster was shut down last week", "discover_peers")
    # a name written with "&" is one word ("W&B"), and a tracker of experiments is swapped for another
    old = "train_loop logs metrics to Neptune"
    assert Cue.REPLACEMENT in cues(old, "metrics go to W&B from train_loop", "train_loop")
    assert not cues(old, "train_loop logs metrics to Neptune and mirrors them to W&B as well", "train_loop")


def test_a_dated_ending_of_the_older_word_is_enough() -> None:
    old = "export_report writes XML records to the shared drive"
    new = "we don't do XML anymore, plain CSV in every region since the Q3 move"
    assert Cue.NEGATION in cues(old, new, "export_report")
    # undated, the same few shared words are not enough
    assert not cues(old, "we don't do XML in any region for the Q3 move, plain CSV there", "export_report")


def test_there_is_no_thing_the_older_names() -> None:
    old = "the health endpoint bypasses auth_guard"
    assert Cue.NEGATION in cues(
        old, "auth_guard runs on every request of every route. there is no bypass.", "auth_guard"
    )
    # a denial without "there is" and with little shared stays quiet
    assert not cues(old, "auth_guard runs on every request of every route, no bypass of the audit log", "auth_guard")


def test_just_one_act_against_a_dated_one_more() -> None:
    old = "cancel_order just flags the row, the payment stays captured"
    assert Cue.TEMPORAL in cues(old, "cancel_order now refunds the payment as well", "cancel_order")
    # undated, the addition may be another aspect
    assert not cues(old, "cancel_order emails the buyer as well", "cancel_order")


def test_anything_up_to_an_amount_is_what_is_handled() -> None:
    from forewarn.memory.claims import read
    from forewarn.memory.quantities import Bound, quantities

    # "anything over N" is the excess a verb acts on (at most N kept); "anything up to N" is what it takes
    (handled,) = quantities(read("ingest streams anything up to 20 MB to the bucket"))
    assert handled.bound == Bound.AT_MOST
    (split,) = quantities(read("ingest splits anything over 20 MB into parts"))
    assert split.bound == Bound.AT_MOST


def test_what_holds_unless_told_otherwise_is_the_default() -> None:
    old = "list_thumbs keeps insertion order"
    assert Cue.ANTONYM in cues(old, "list_thumbs gives them back in arbitrary order unless you pass stable=True")
    # "if" names a case the older did not cover
    assert not cues(old, "list_thumbs gives them back in arbitrary order if you pass shuffle=True")


def test_only_some_still_is_a_remainder_not_an_addition() -> None:
    from forewarn.memory.claims import read

    assert not read("as of 2.0 thumbnails render on the GPU; only the CLI still renders on the CPU").additive
    assert read("thumbnails still render on the CPU").additive
    old = "render_thumbs renders on the CPU in every mode"
    new = "as of 2.0 render_thumbs goes through the GPU queue; only the CLI still renders on the CPU"
    assert cues(old, new, "render_thumbs")
