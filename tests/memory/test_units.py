"""A unit named without a number, at another scale of one base (forewarn.memory.units)."""

from __future__ import annotations

from forewarn.memory.claims import anchor_words, read
from forewarn.memory.contradictions import Cue, judge
from forewarn.memory.units import rescaled


def cues(old: str, new: str, symbol: str) -> tuple[str, ...]:
    v = judge(new, old, anchor=anchor_words(symbol))
    return v.cues if v is not None else ()


def test_the_same_value_in_another_unit_scale_is_a_changed_value() -> None:
    assert Cue.VALUE in cues(
        "event_time returns the timestamp in seconds", "event_time returns milliseconds", "event_time"
    )
    assert Cue.VALUE in cues("read_current gives the current in milliamps", "read_current gives amps", "read_current")


def test_another_quantity_or_the_same_unit_stays_quiet() -> None:
    anchor = anchor_words("Poller")
    # the poll interval is another quantity than the timeout: few words in common beside the units
    assert not rescaled(read("the request timeout is in seconds", anchor), read("the poll interval is in ms", anchor))
    # one unit named on both sides, and an amount beside a unit, are the quantities' business
    assert not rescaled(read("returns kilobytes", anchor), read("returns kilobytes, rounded up", anchor))
    assert not rescaled(read("returns the size in bytes", anchor), read("returns the size, 10 kilobytes max", anchor))
    # the newer text names the older unit too: a conversion explained, not a change
    assert not rescaled(
        read("returns the delay in seconds", anchor), read("returns the delay in seconds, not milliseconds", anchor)
    )


def test_one_verb_giving_another_scale() -> None:
    a = read("distance_to returns km, rounded to 2 places", frozenset({"distance", "to"}))
    b = read("watch out: distance_to returns metres since the geo lib bump", frozenset({"distance", "to"}))
    assert rescaled(a, b)
    # a unit after a word both say, but a function word, is no frame
    assert not rescaled(
        read("the poll interval is in seconds", frozenset()), read("log the latency in ms", frozenset())
    )


def test_the_abbreviations_of_the_second_are_those_amounts_are_read_in() -> None:
    assert Cue.VALUE in cues("clock_now returns the time in msecs", "clock_now returns usec", "clock_now")
    assert Cue.VALUE in cues("clock_now returns the time in secs", "clock_now returns ns", "clock_now")
    # a lone "s" is a unit only after a number: without one it is a flag or a name
    flags = frozenset({"parse", "flags"})
    assert not rescaled(read("parse_flags reads s for silent", flags), read("parse_flags reads ms for timing", flags))
