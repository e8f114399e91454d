"""The words ``forewarn.memory.quantities`` reads numbers by: units, bounds, and the words around a number that
say what it measures or that it is no amount. No I/O."""

from __future__ import annotations

import re
from enum import Enum

from forewarn.memory.claims import stem
from forewarn.memory.text import STOPWORDS

# unit words on or after a number: what it measures and the factor to that dimension's base unit (also the source of
# units._ABBREVIATED's scales of the second, the unit named without a number)
UNITS: dict[str, tuple[str, float]] = {
    "ns": ("time", 1e-9), "nanosecond": ("time", 1e-9), "nanoseconds": ("time", 1e-9),
    "us": ("time", 1e-6), "µs": ("time", 1e-6), "microsecond": ("time", 1e-6), "microseconds": ("time", 1e-6),
    "ms": ("time", 1e-3), "msec": ("time", 1e-3), "msecs": ("time", 1e-3), "usec": ("time", 1e-6),
    "millisecond": ("time", 1e-3), "milliseconds": ("time", 1e-3),
    "s": ("time", 1.0), "sec": ("time", 1.0), "secs": ("time", 1.0), "second": ("time", 1.0),
    "seconds": ("time", 1.0), "m": ("time", 60.0), "min": ("time", 60.0), "mins": ("time", 60.0),
    "minute": ("time", 60.0), "minutes": ("time", 60.0), "h": ("time", 3600.0), "hr": ("time", 3600.0),
    "hrs": ("time", 3600.0), "hour": ("time", 3600.0), "hours": ("time", 3600.0), "d": ("time", 86400.0),
    "day": ("time", 86400.0), "days": ("time", 86400.0), "week": ("time", 604800.0), "weeks": ("time", 604800.0),
    "month": ("time", 2592000.0), "months": ("time", 2592000.0), "year": ("time", 31536000.0),
    "years": ("time", 31536000.0),
    "b": ("size", 1.0), "byte": ("size", 1.0), "bytes": ("size", 1.0), "kb": ("size", 1e3), "kilobytes": ("size", 1e3),
    "kilobyte": ("size", 1e3), "mb": ("size", 1e6), "megabyte": ("size", 1e6), "megabytes": ("size", 1e6),
    "gb": ("size", 1e9), "gigabyte": ("size", 1e9), "gigabytes": ("size", 1e9), "tb": ("size", 1e12),
    "kib": ("size", 1024.0), "mib": ("size", 1024.0**2), "gib": ("size", 1024.0**3), "tib": ("size", 1024.0**4),
    "ki": ("size", 1024.0), "mi": ("size", 1024.0**2), "gi": ("size", 1024.0**3), "ti": ("size", 1024.0**4),
    "k": ("size", 1e3), "%": ("percent", 1.0), "percent": ("percent", 1.0), "x": ("factor", 1.0),
    "×": ("factor", 1.0),
    "c": ("money", 0.01), "¢": ("money", 0.01), "cent": ("money", 0.01), "cents": ("money", 0.01),
    "usd": ("money", 1.0), "eur": ("money", 1.0), "gbp": ("money", 1.0), "dollar": ("money", 1.0),
    "dollars": ("money", 1.0), "euro": ("money", 1.0), "euros": ("money", 1.0),
}  # fmt: skip
# a key's last word that says the unit of its value ("max.poll.interval.ms=300000", "ttl_seconds: 60")
KEY_UNITS = frozenset(("ms", "msec", "millis", "s", "sec", "secs", "seconds", "mins", "minutes", "hours", "bytes",
                        "kb", "mb", "gb", "kib", "mib", "gib", "pct", "percent", "cents", "usd"))  # fmt: skip
# the same glued to a camelCase key, lowercased ("idleTimeoutMillis: 30000"): only suffixes no plain word ends in
GLUED_KEY_UNITS = ("millis", "msec", "seconds", "secs", "minutes", "bytes", "cents")
KEY_UNIT_WORDS = {"millis": "ms", "pct": "%"}  # the key word as a unit of UNITS
# no bound at all: "retried forever" against "at most 3 times" is a changed amount
UNBOUNDED = frozenset(("forever", "indefinitely", "unlimited", "unbounded", "infinite", "infinitely", "endlessly"))
PERIODS = {"hourly": 3600.0, "daily": 86400.0, "nightly": 86400.0, "weekly": 604800.0, "monthly": 2592000.0}
# "every 15 minutes", "once an hour", "10 calls per minute": the number is a rate, not a duration
RATE_WORDS = frozenset(("every", "per", "each", "a", "an"))
# counts of one thing said several ways: "3 attempts" / "three tries" / "retries 3 times"
COUNT_FAMILIES = tuple(
    frozenset(stem(w) for w in family.split()) for family in ("time times attempt attempts try tries retry retries",)
)
# ordinals are positions, not amounts ("the 101st call")
ORDINAL_RE = re.compile(r"^[0-9]+(st|nd|rd|th)$")
NUMBER_RE = re.compile(r"^([0-9]+(?:[.,][0-9]+)*)([a-zµ%×]*)$")


class Bound(Enum):
    EXACTLY = "="
    AT_MOST = "<="
    AT_LEAST = ">="
    NOT = "!"  # negated "exactly": says what it is not, so a changed value only against that very amount


TURNED = {Bound.AT_MOST: Bound.AT_LEAST, Bound.AT_LEAST: Bound.AT_MOST, Bound.EXACTLY: Bound.NOT, Bound.NOT: Bound.NOT}
BOUND_PHRASES: tuple[tuple[tuple[str, ...], Bound], ...] = tuple(
    (tuple(p.split()), b)
    for b, phrases in (
        (Bound.AT_MOST, "at most|up to|no more than|not more than|no longer than|not longer than|maximum|max|less than"
         "|fewer than|under|below|within|shorter than|smaller than|lower than|capped at|cap of|caps|cap|limit of"
         "|limited to|at the most|no later than|no larger than|no bigger than|not exceed|never exceeds|below"),
        (Bound.AT_LEAST, "at least|no less than|not less than|no fewer than|no shorter than|minimum|min|more than"
         "|over|above|longer than|larger than|bigger than|greater than|higher than|exceeding|exceeds|beyond"
         "|upwards of|no sooner than|not before"),
    )
    for p in phrases.split("|")
)  # fmt: skip
BOUND_WORDS = frozenset(w for phrase, _ in BOUND_PHRASES for w in phrase if w not in STOPWORDS)
TRAILING_BOUNDS = {
    ("or", "more"): Bound.AT_LEAST, ("or", "newer"): Bound.AT_LEAST, ("or", "later"): Bound.AT_LEAST,
    ("or", "higher"): Bound.AT_LEAST, ("or", "above"): Bound.AT_LEAST, ("or", "greater"): Bound.AT_LEAST,
    ("or", "longer"): Bound.AT_LEAST, ("or", "less"): Bound.AT_MOST, ("or", "fewer"): Bound.AT_MOST,
    ("or", "lower"): Bound.AT_MOST, ("or", "below"): Bound.AT_MOST, ("or", "shorter"): Bound.AT_MOST,
    ("at", "most"): Bound.AT_MOST, ("at", "least"): Bound.AT_LEAST, ("tops",): Bound.AT_MOST,
    ("max",): Bound.AT_MOST, ("maximum",): Bound.AT_MOST, ("minimum",): Bound.AT_LEAST, ("min",): Bound.AT_LEAST,
}  # fmt: skip
# a bound said under a refusal is the other side allowed: "rejects files over 10 MB" allows at most 10 MB
REFUSALS = frozenset(
    stem(w)
    for w in (
        "reject", "rejects", "rejected", "refuse", "refuses", "refused", "deny", "denies", "denied", "forbid",
        "forbids", "forbidden", "disallow", "disallows", "disallowed", "raise", "raises", "block", "blocks", "drop",
        "drops", "truncate", "truncates", "truncated", "evict", "evicts", "evicted",
    )
)  # fmt: skip


PASSIVE = frozenset(("is", "are", "be", "been", "get", "gets", "got", "was", "were"))
PAST_COPULAS = frozenset(("was", "were"))
# the dimension of each kind of amount measured in a unit (a period and a duration are both seconds)
# right before an amount with a unit, these deny it ("no 5GB cap"); before a bare count they are a count of none
# ("no two users share a salt"), which the claims reader already leaves out of its negations
DENIED_AMOUNT_WORDS = frozenset(("no",))
MEASURED = {"time": "seconds", "period": "seconds", "size": "bytes", "percent": "percent", "money": "money"}
UNITLESS = frozenset(("bare", "count", "label"))
PERIOD_NOUNS = frozenset(("interval", "intervals", "period", "cadence", "cycle", "schedule", "frequency"))
ORDINAL_COUNTS = (("after", "the"), ("at", "the"), ("on", "the"))
CLOCK_RE = re.compile(r"^([01]?[0-9]|2[0-3]):[0-5][0-9]$")
# words that name an amount, so the number after them is one ("page size 50", "ttl 3600"), not a label
MEASURES = frozenset(
    stem(w)
    for w in (
        "size", "limit", "count", "capacity", "length", "ttl", "timeout", "delay", "cap", "budget", "depth", "width",
        "height", "batch", "quota", "threshold", "rate", "interval", "period", "window", "retention", "pool",
        "concurrency", "workers", "threads", "buffer", "retries", "attempts", "backoff", "deadline", "expiry",
    )
)  # fmt: skip
# a number after these is a divisor or an alignment, not an amount ("a multiple of 4 KiB")
NOT_AMOUNT_AFTER = (("multiple", "of"), ("divisible", "by"), ("aligned", "to"), ("power", "of"), ("multiples", "of"))
MAX_UNIT_LETTERS = 3  # "256px", "64bit"… a number with this many letters on it counts that unit
NOT_UNITS = frozenset(("xx", "fa", "st", "nd", "rd", "th", "d"))
# a three-digit number after these is an HTTP status ("returns 404", "answers 410", "HTTP 503")
STATUS_WORDS = frozenset(
    stem(w)
    for w in ("return", "returns", "answer", "answers", "respond", "responds", "reply", "replies", "send", "sends",
              "give", "gives", "http", "status", "code", "with", "get", "gets", "throw", "throws", "raise", "raises")
)  # fmt: skip
DELTA_WORDS = frozenset(("extra", "more", "additional", "further", "fewer", "less"))
# right before a number, a part of some total the text names elsewhere ("over the remaining 49.5k steps",
# "another 3 retries"): the rest of an amount, not the amount
REMAINDER_WORDS = frozenset(("remaining", "another", "additional", "further", "extra"))
GROWTH_VERBS = frozenset(stem(w) for w in ("overflow", "grow", "exceed", "shift", "offset", "off", "lag", "differ"))
# a time right after these, a few words after a count, is the window the count is over ("5 attempts per 15 min")
FREQUENCY = frozenset(("once", "twice", "times"))  # "once per 30 min": a period, not a duration
QUALIFIED_RE = re.compile(r"[a-z_][\w]*(?:\.[a-z_][\w]*)+")  # "imagecache.prune": a qualified name
# "anything over 500": the excess a verb acts on (splits, rejects, warns about) — the limit is its other side
EXCESS_WORDS = frozenset(("anything", "everything", "whatever"))
PERMISSIVE = frozenset(stem(w) for w in ("accepts", "allows", "permits", "supports", "takes", "handles"))
# "exits 2 when the remote is unreachable": the case a number is stated for, this many tokens after it
CASE_REACH = 6
CASE_WORDS = frozenset(("when", "if", "whenever"))  # not "unless": "unless told otherwise" is the default
# a "when" of these is the ordinary run, no case of its own ("opens 20 connections when it starts")
ORDINARY_CASES = frozenset(
    stem(w) for w in ("starts", "start", "startup", "boots", "init", "called", "runs", "used", "created", "opened",
                      "loaded", "imported", "begins", "launched", "deployed")
)  # fmt: skip
ACCOMPANYING = frozenset(("with", "plus", "alongside"))  # words after a number that add something else
WINDOW_WORDS = frozenset(("per", "in", "within", "over", "every"))
WINDOW_REACH = 4  # "10 failed logins in 24h": the count, its noun or two, the window word, the time

# verbs that state a new value: "raised to 1000", "bumped to 6"
CHANGE_VERBS = frozenset(
    stem(w)
    for w in (
        "raised", "bumped", "lowered", "increased", "decreased", "reduced", "dropped", "cut", "upped", "changed",
        "moved", "doubled", "halved", "tightened", "loosened", "extended", "shortened",
    )
)  # fmt: skip
