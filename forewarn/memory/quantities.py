"""Numbers in a lesson as quantities, and whether two lessons state the same quantity differently. No I/O.

A quantity is a number with what it measures and the bound on it:

- what: a duration ("5 seconds", "an hour", "500ms"), a size ("10 MB", "64 KiB"), a period ("every 15
  minutes", "hourly", "once a day"), a percentage, money ("30c", "$5"), a count of something ("3
  attempts", "twice", "500 rows"), a label ("port 5432", "HTTP 404", "Python 3.10"), or a bare number
  ("the limit is 50"); a key's unit word gives its value's ("max.poll.interval.ms=300000",
  "idleTimeoutMillis: 30000" are times);
- the bound: exactly, at most ("up to", "no more than", "under", "within"), at least ("more than",
  "over", "or newer"); a bound said under a refusal ("rejects files over 10 MB") or a negation ("never
  more than 3") is turned around: the text allows the other side.

Two lessons state one quantity when the kinds agree (a duration with a duration, a count of attempts with
a count of tries or with a bare number…) and the words next to each number are not each foreign to the
other lesson (``connect timeout 5 s`` and ``read timeout 30 s`` are two quantities); a code stated for a
case only the newer lesson names ("exits 2 when the remote is unreachable") is another outcome's. Equal amounts in
other units are the same ("5 minutes" / "300 seconds"); "10 MB" and "10 MiB" are not. A number in an
example ("e.g. a 12 MB PDF") is no claim.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from forewarn.memory import opposites
from forewarn.memory.claims import PUNCT, TOPIC_STOPWORDS, Claim, is_number, stem
from forewarn.memory.quantity_words import (
    ACCOMPANYING,
    BOUND_PHRASES,
    BOUND_WORDS,
    CASE_REACH,
    CASE_WORDS,
    CHANGE_VERBS,
    CLOCK_RE,
    COUNT_FAMILIES,
    DELTA_WORDS,
    DENIED_AMOUNT_WORDS,
    EXCESS_WORDS,
    FREQUENCY,
    GLUED_KEY_UNITS,
    GROWTH_VERBS,
    KEY_UNIT_WORDS,
    KEY_UNITS,
    MAX_UNIT_LETTERS,
    MEASURED,
    MEASURES,
    NOT_AMOUNT_AFTER,
    NOT_UNITS,
    NUMBER_RE,
    ORDINAL_COUNTS,
    ORDINAL_RE,
    ORDINARY_CASES,
    PASSIVE,
    PAST_COPULAS,
    PERIOD_NOUNS,
    PERIODS,
    PERMISSIVE,
    QUALIFIED_RE,
    RATE_WORDS,
    REFUSALS,
    STATUS_WORDS,
    TRAILING_BOUNDS,
    TURNED,
    UNBOUNDED,
    UNITLESS,
    UNITS,
    WINDOW_REACH,
    WINDOW_WORDS,
    Bound,
)
from forewarn.memory.text import STOPWORDS

# how many tokens before a number a bound may end ("at least Python 3.10": one word between)
BOUND_REACH = 2
# how many topic words before a number say what it measures ("the access token lives 15 min": live, token, access)
CONTEXT_WORDS = 3
# an abbreviation of this many letters may name a number by the initials of as many words ("lr", "ttl", "qps")
ACRONYM_LETTERS = (2, 4)
QUANTITY_CACHE = 512  # claims (cached like forewarn.memory.claims.read)
# equal within this relative tolerance: "0.5 s" and "500 ms" are one amount
SAME_AMOUNT = 1e-6


@dataclass(frozen=True, slots=True)
class Quantity:
    kind: str  # time, size, period, percent, factor, count, label, bare
    amount: float  # in base units (seconds, bytes; a period in seconds between runs)
    text: str  # the number as written: a label ("3.10", "5432") compares by it
    bound: Bound
    nouns: frozenset[str]  # what a count counts (stems; a family's members all given), a label's noun
    context: frozenset[str]  # the topic stems just before the number: what it is a number of
    position: int
    after: frozenset[str] = frozenset()  # the topic stems just after it (and its unit): what it is said about
    past: bool = False  # what it was ("3 was too few", "from 5 to 10"): states nothing now
    changed_to: bool = False  # said as the new value ("raised to 1000", "bumped to 6")
    delta: bool = False  # a difference, not an amount: "overflow by 5", "5 extra connections"


@lru_cache(maxsize=QUANTITY_CACHE)
def quantities(claim: Claim) -> tuple[Quantity, ...]:
    """Every quantity the lesson claims (numbers in examples and in "since v2.4" left out), in order."""
    dated = {i for s, e in claim.when for i in range(s, e)}
    out: list[Quantity] = []
    i = 0
    while i < len(claim.tokens):
        if claim.in_example(i) or i in dated:
            i += 1
            continue
        found, i = _read_at(claim, i)
        if found is not None:
            out.append(found)
    return tuple(out)


def changed(a: Claim, b: Claim) -> bool:
    """Does ``b`` state a quantity ``a`` states with another amount or the opposite bound?

    Read from the older text: each quantity it states must be stated the same way wherever the newer
    text states it; an amount only the newer text gives (an example, another quantity) changes nothing.
    Where the newer text states it several times, the statements that name it most closely (the same
    counted noun, a shared name) are the ones compared ("at least 6 attempts; 3 was too few").
    """
    theirs = [r for r in quantities(b) if not r.past]
    for q in quantities(a):
        if q.past:
            continue
        matches = [r for r in theirs if _one_quantity(q, r, a, b)]
        named = _named_closely(q, matches)
        if not named and _restated(q, theirs):
            continue  # "kick at least every 500 ms" / "reload 500 -> ~500ms timeout, main loop kicks every 100ms"
        closest = named or matches
        if closest and not any(_agree(q, r) for r in closest):
            return True
    return False


def _restated(q: Quantity, theirs: Sequence[Quantity]) -> bool:
    """The newer text gives the older one's amount in its unit again (where no amount of it is named alike):
    its other amounts are other quantities."""
    if q.kind not in MEASURED:
        return False
    return any(MEASURED.get(r.kind) == MEASURED[q.kind] and _same_amount(q, r) and _agree(q, r) for r in theirs)


def list_changed(a: Claim, b: Claim) -> bool:
    """ "covers 502 and 503" / "covers 502, 503 and 504": a list of numbers both give, with other members."""
    old, new = _lists(a), _lists(b)
    return any(x != y and x & y for x in old for y in new)


def _lists(c: Claim) -> list[frozenset[str]]:
    """Each run of listed numbers ("502, 503 and 504"), as the set of its members."""
    runs: list[set[str]] = []
    last = -10
    for i, t in enumerate(c.tokens):
        if not (is_number(t) and _listed(c.tokens, i)) or c.in_example(i):
            continue
        if runs and i - last <= 2:
            runs[-1].add(t)
        else:
            runs.append({t})
        last = i
    return [frozenset(r) for r in runs if len(r) > 1]


def setting_changed(a: Claim, b: Claim) -> bool:
    """ "SameSite=None" / "SameSite=Lax", "sslmode=require" / "sslmode=disable": one key, another value (and
    the newer does not also give the older value)."""
    old, new = _settings(a), _settings(b)
    return any(key in new and value not in new[key] for key, values in old.items() for value in values)


def _settings(c: Claim) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for i, t in enumerate(c.tokens):
        key, sep, value = t.partition("=")
        if sep and key and value and not c.in_example(i) and "=" not in value:
            out.setdefault(key, set()).add(value)
    return out


def bound_negations(claim: Claim) -> frozenset[int]:
    """The negations that are part of a bound ("never more than four"): a quantity, not a denial."""
    out: set[int] = set()
    for q in quantities(claim):
        if _bound(claim.tokens, q.position, q.position + 1) == Bound.EXACTLY:
            continue
        out.update(n for n in claim.negated if claim.clause[n] == claim.clause[q.position] and n < q.position)
    return frozenset(out)


def is_amount(token: str) -> bool:
    """A number this module reads as an amount ("30", "5,000", "500ms"), not a version or an address."""
    return is_number(token) and _parse_number(token) is not None


# ---------------------------------------------------------------- reading one number


def _read_at(claim: Claim, i: int) -> tuple[Quantity | None, int]:
    """The quantity that starts at token ``i``, if any, and where to read on."""
    tokens = claim.tokens
    t = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    if t in PERIODS:
        return _make(claim, i, "period", PERIODS[t], t, Bound.EXACTLY, frozenset()), i + 1
    if t in UNBOUNDED:
        return _make(claim, i, "unbounded", math.inf, t, _turned(claim, i, Bound.EXACTLY), frozenset()), i + 1
    if t in ("once", "every", "each") and nxt in ("a", "an", "per", "every") and _time_unit(tokens, i + 2):
        return _make(claim, i, "period", UNITS[tokens[i + 2]][1], "1", Bound.EXACTLY, frozenset()), i + 3
    if t in ("every", "each") and _time_unit(tokens, i + 1):
        return _make(claim, i, "period", UNITS[nxt][1], "1", Bound.EXACTLY, frozenset()), i + 2
    if t in ("a", "an") and nxt in UNITS and len(nxt) > 2:
        if any(is_number(x) for x in tokens[max(0, i - 3) : i]):
            return None, i + 2  # "100 requests a minute": the minute belongs to the rate
        number, suffix, unit_at = 1.0, "", i + 1
    elif is_number(t) and tuple(tokens[max(0, i - 2) : i]) in NOT_AMOUNT_AFTER:
        return None, i + 1
    elif ORDINAL_RE.match(t) and tokens[max(0, i - 2) : i] in ORDINAL_COUNTS and i + 1 < len(tokens):
        # "gives up after the 2nd retry", "locks at the 10th failed attempt": that many of them
        return _make(claim, i, "count", float(t[:-2]), t, Bound.EXACTLY, _family(_nouns(tokens, i + 1))), i + 2
    elif (setting := _setting_amount(claim, i)) is not None:
        return setting, i + 1
    elif CLOCK_RE.match(t):  # "at 08:00": a time of day, in minutes
        hours, minutes = t.split(":")[:2]
        return _make(claim, i, "clock", int(hours) * 60 + int(minutes), t, Bound.EXACTLY, frozenset()), i + 1
    elif is_number(t) and _listed(tokens, i):
        return None, i + 1  # "on days 1, 3 and 7": members of a list, not an amount
    elif (
        is_number(t) and is_number(nxt) and re.search(rf"(?<![\w.]){re.escape(t)}\s*[-–]\s*{re.escape(nxt)}", claim.raw)
    ):
        return None, i + 1  # "~8-9 partitions per pod": a range, read as its upper end with what it counts
    elif is_number(t) and not ORDINAL_RE.match(t):
        parsed = _parse_number(t)
        if parsed is None:
            return (_label(claim, i, t) if re.fullmatch(r"[0-9.]+", t) else None), i + 1
        number, suffix = parsed
        if suffix and suffix not in UNITS:
            if suffix in NOT_UNITS or len(suffix) > MAX_UNIT_LETTERS or not suffix.isalpha():
                return None, i + 1  # "4xx", "2fa": not an amount
            # "256px": a count of the unit written on it ("512 px wide" counts px too)
            return _make(
                claim, i, "count", number, t, _turned(claim, i, _bound(tokens, i, i + 1)), frozenset({suffix})
            ), i + 1
        unit_at = i if suffix else i + 1
        keyed = "" if suffix else _keyed(tokens, i)
        if keyed and not (i + 1 < len(tokens) and tokens[i + 1] in UNITS):
            kind, factor = UNITS[keyed]
            return _make(
                claim, i, kind, number * factor, t, _turned(claim, i, _bound(tokens, i, i + 1)), frozenset()
            ), i + 1
    else:
        return None, i + 1
    unit = suffix if unit_at == i else (tokens[unit_at] if unit_at < len(tokens) else "")
    after = unit_at + 1 if unit in UNITS else i + 1
    bound = _turned(claim, i, _bound(tokens, i, after))
    if unit in UNITS:
        kind, factor = UNITS[unit]
        if bound == Bound.EXACTLY and i > 0 and tokens[i - 1] in DENIED_AMOUNT_WORDS:
            bound = Bound.NOT  # "no 5GB cap anymore", "no 30s timeout": that amount is denied, not stated
        if kind == "time" and _how_often(tokens, i):
            kind = "period"  # "every 500 ms", "once per 30 min": how often, not how long
        if kind == "time" and after < len(tokens) and tokens[after] in PERIOD_NOUNS:
            kind = "period"  # "a 30 minute interval"
        return _make(claim, i, kind, number * factor, t, bound, frozenset()), after
    nouns = _nouns(tokens, after)
    per, end = _rate_after(tokens, after, len(nouns))
    if per is not None and nouns & COUNT_FAMILIES[0]:
        return _make(claim, i, "period", per / max(number, 1e-9), t, bound, frozenset()), end
    if per is not None:  # "60 per minute", "100 requests per second": a rate, per second
        return _make(claim, i, "rate", number / per, t, bound, _family(nouns)), end
    status = _status(claim, i, number)
    if status is not None:
        return status, after
    if nouns:
        return _make(claim, i, "count", number, t, bound, _family(nouns)), after
    label = _label(claim, i, t)
    if label is not None:
        return Quantity(label.kind, number, t, bound, label.nouns, label.context, i, label.after), after
    return _make(claim, i, "bare", number, t, bound, frozenset()), after


def _setting_amount(claim: Claim, i: int) -> Quantity | None:
    """ "prefetch_count=100", "timeout=30s": a setting's number, named by the setting's words."""
    key, sep, value = claim.tokens[i].partition("=")
    parsed = _parse_number(value) if sep and key and key[0].isalpha() else None
    if parsed is None:
        return None
    number, suffix = parsed
    if suffix and suffix not in UNITS:
        return None
    kind, factor = UNITS[suffix or _key_unit(key)] if suffix or _key_unit(key) else ("bare", 1.0)
    named = frozenset(stem(w) for w in re.split(r"[_.\-]+", key) if w) | {stem(key)}
    return Quantity(kind, number * factor, value, Bound.EXACTLY, named, named, i, _after(claim, i, named))


def _key_unit(key: str) -> str:
    """The unit a setting's key says its value is in ("interval.ms", "ttl_seconds", "idletimeoutmillis"), or ""."""
    parts = [w for w in re.split(r"[_.\-]+", key) if w]
    last = parts[-1] if len(parts) > 1 else ""
    if last not in KEY_UNITS:
        last = next((u for u in GLUED_KEY_UNITS if key.endswith(u) and len(key) > len(u) + 2), "")
    unit = KEY_UNIT_WORDS.get(last, last)
    return unit if unit in UNITS else ""


def _keyed(tokens: Sequence[str], i: int) -> str:
    """The unit of a bare number given as a key's value ("idleTimeoutMillis: 30000", "timeout_ms 500"), or ""."""
    j = i - 1
    if j >= 1 and tokens[j] == PUNCT:
        j -= 1
    return _key_unit(tokens[j]) if j >= 0 and not is_number(tokens[j]) else ""


def _label(claim: Claim, i: int, text: str) -> Quantity | None:
    """ "port 5432", "HTTP 404", "Python 3.10": a number named by the word just before it."""
    before = claim.tokens[i - 1] if i > 0 else ""
    if not before or before == PUNCT or before in STOPWORDS or before in TOPIC_STOPWORDS or is_bound_word(before):
        return None
    if is_number(before) or stem(before) in MEASURES:
        return None  # "page size 50" is an amount; "port 5432" names a port
    parsed = _parse_number(text)
    return _make(claim, i, "label", parsed[0] if parsed else 0.0, text, Bound.EXACTLY, frozenset({stem(before)}))


def _how_often(tokens: Sequence[str], at: int) -> bool:
    """The time at ``at`` is how often something happens: "every 5 min", "once per 30 min", "twice an hour"."""
    before = tokens[max(0, at - 2) : at]
    return bool(before) and (
        before[-1] in ("every", "each")
        or (len(before) == 2 and before[0] in FREQUENCY and before[1] in ("per", "every", "a", "an"))
    )


def _time_unit(tokens: Sequence[str], at: int) -> bool:
    return at < len(tokens) and tokens[at] in UNITS and UNITS[tokens[at]][0] == "time"


def _parse_number(token: str) -> tuple[float, str] | None:
    """ "5,000" → (5000, ""); "500ms" → (500, "ms"); "2.4.1" and "1,2" → None (a version, a list)."""
    m = NUMBER_RE.match(token)
    if m is None:
        return None
    digits = m.group(1)
    if re.fullmatch(r"[0-9]{1,3}(,[0-9]{3})+(\.[0-9]+)?", digits):
        digits = digits.replace(",", "")
    if "," in digits or digits.count(".") > 1:
        return None
    return float(digits), m.group(2)


def _make(claim: Claim, at: int, kind: str, amount: float, text: str, bound: Bound, nouns: frozenset[str]) -> Quantity:
    return Quantity(
        kind,
        amount,
        text,
        bound,
        nouns,
        _context(claim, at),
        at,
        _after(claim, at, nouns),
        _is_past(claim.tokens, at),
        _is_changed_to(claim.tokens, at),
        _is_delta(claim.tokens, at),
    )


def _is_delta(tokens: Sequence[str], at: int) -> bool:
    """ "grows by 5", "5 extra connections", "2 more retries": a difference from some amount, not the amount."""
    if at > 0 and tokens[at - 1] == "by":  # "debounces by 300ms" is the amount; "overflows by 5" a difference
        return any(stem(t) in CHANGE_VERBS or stem(t) in GROWTH_VERBS for t in tokens[max(0, at - 4) : at - 1])
    return any(t in DELTA_WORDS for t in tokens[at + 1 : at + 3])


# "<number> is impossible": the number is named to be ruled out ("batch size is 10, 50 is impossible")
_RULED_OUT = frozenset((c, w) for c in ("is", "are") for w in ("impossible", "wrong", "incorrect", "outdated"))


def _is_past(tokens: Sequence[str], at: int) -> bool:
    """ "3 was too few", "it was 30s", "from 5 to 10" (the 5): the number says what held before."""
    nxt = tokens[at + 1 : at + 3]
    if nxt[:1] and nxt[0] in UNITS:
        nxt = tokens[at + 2 : at + 4]
    if nxt[:1] and nxt[0] in PAST_COPULAS:
        return True
    if tuple(nxt[:2]) in _RULED_OUT:
        return True  # "50 is impossible", "10 is wrong": a value set aside, stated by nothing now
    before = tokens[max(0, at - 2) : at]
    if any(t in PAST_COPULAS or t in ("previously", "formerly", "originally") for t in before):
        return True
    if "from" in before:  # "from 5 to 10": the first is the old value when a second follows
        rest = tokens[at + 1 : at + 5]
        return "to" in rest and any(is_number(t) for t in rest[rest.index("to") :])
    return False


def _is_changed_to(tokens: Sequence[str], at: int) -> bool:
    """ "raised to 1000", "bumped it to 6", "lowered to 2 s": the number is stated as the new value."""
    before = tokens[max(0, at - 4) : at]
    return "to" in before and any(stem(t) in CHANGE_VERBS for t in before[: before.index("to")])


def _bound(tokens: Sequence[str], start: int, after: int) -> Bound:
    for reach in range(0, BOUND_REACH + 1):
        end = start - reach
        for phrase, bound in BOUND_PHRASES:
            k = len(phrase)
            if end - k >= 0 and tuple(tokens[end - k : end]) == phrase and PUNCT not in tokens[end - k : start]:
                return bound
    for phrase, bound in TRAILING_BOUNDS.items():
        if tuple(tokens[after : after + len(phrase)]) == phrase:
            return bound
    return Bound.EXACTLY


def is_bound_word(word: str) -> bool:
    """A word of a bound ("at most", "more than", "up to"…), not a topic word."""
    return word in BOUND_WORDS


def _turned(claim: Claim, at: int, bound: Bound) -> Bound:
    """The bound as allowed: turned under a refusal or a negation in its clause ("rejects files over 10 MB"
    allows at most 10 MB; "never more than 3" is at most 3). An exact amount under a refusal stays exact
    ("expires after 5 minutes"); under a negation it says only what the amount is not."""
    clause = claim.clause[at]
    tokens = claim.tokens
    same = [j for j in range(len(tokens)) if claim.clause[j] == clause]
    refusals = sum(
        1
        for j in same
        if stem(tokens[j]) in REFUSALS
        and (j < at or (j > 0 and tokens[j - 1] in PASSIVE))  # "… are refused"
        and not (j + 1 < len(tokens) and is_bound_word(tokens[j + 1]))  # "drops below 4" falls, refuses nothing
    )
    negations = sum(1 for j in claim.negated if claim.clause[j] == clause and j < at)
    if bound != Bound.EXACTLY and _excess(tokens, at):
        refusals += 1  # "splits anything over 500 into two files": what is done to the excess, so at most 500
    if bound == Bound.EXACTLY:
        return Bound.NOT if negations % 2 else bound
    return TURNED[bound] if (refusals + negations) % 2 else bound


def _excess(tokens: Sequence[str], at: int) -> bool:
    """The bound before ``at`` names what a verb acts on: "anything over 500", "everything above 1 MB" (not
    "accepts anything over 500")."""
    for j in range(max(0, at - BOUND_REACH - 1), at):
        if tokens[j] in EXCESS_WORDS:
            return not (j > 0 and stem(tokens[j - 1]) in PERMISSIVE)
    return False


def _case(c: Claim, q: Quantity) -> frozenset[str]:
    """The case a number is stated for: the topic stems of the "when …"/"if …" that follows it in its sentence
    ("exits 2 (not 1) when the remote is unreachable")."""
    tokens = c.tokens
    for j in range(q.position + 1, min(len(tokens), q.position + 1 + CASE_REACH)):
        if tokens[j] in CASE_WORDS:
            out = []
            for t in tokens[j + 1 : j + 1 + CASE_REACH]:
                if t == PUNCT:
                    break
                if stem(t) in c.content and stem(t) not in ORDINARY_CASES:
                    out.append(stem(t))
            return frozenset(out)
    return frozenset()


def _rate_after(tokens: Sequence[str], after: int, nouns: int) -> tuple[float | None, int]:
    """ "3 times a day", "60 per minute", "100 requests per second": the seconds in the span the number is
    per, and where to read on (None when it is no rate)."""
    for j in (after + nouns, after + 1, after):
        if j + 1 < len(tokens) and tokens[j] in RATE_WORDS and _time_unit(tokens, j + 1):
            return UNITS[tokens[j + 1]][1], j + 2
    return None, after


def _listed(tokens: Sequence[str], i: int) -> bool:
    """ "1, 3 and 7": a number with another number a comma, "and" or "or" away. Across a comma, numbers
    written in other units are two statements, not one list ("default is 2500ms, 10s was masking hangs")."""
    for step in (-2, 2):
        j = i + step
        if not (0 <= j < len(tokens) and is_number(tokens[j])):
            continue
        between = tokens[(i + j) // 2]
        if between in ("and", "or") or (between == PUNCT and _suffix(tokens[i]) == _suffix(tokens[j])):
            return True
    return False


def _suffix(token: str) -> str:
    m = NUMBER_RE.match(token)
    return m.group(2) if m else ""


def _status(claim: Claim, i: int, number: float) -> Quantity | None:
    """ "returns 404", "answers 410 Gone", "HTTP 503": a status code, one per outcome whatever verb says it."""
    if not (100 <= number <= 599 and claim.tokens[i].isdigit() and len(claim.tokens[i]) == 3):
        return None
    before = [stem(t) for t in claim.tokens[max(0, i - 2) : i]]
    if not any(b in STATUS_WORDS for b in before):
        return None
    return _make(claim, i, "label", number, claim.tokens[i], Bound.EXACTLY, frozenset({"<status>"}))


def _nouns(tokens: Sequence[str], after: int) -> frozenset[str]:
    """What a bare count counts: the next word or two, if they are topic words ("3 failed attempts")."""
    out: set[str] = set()
    for t in tokens[after : after + 2]:
        if t == PUNCT or t in STOPWORDS or t in TOPIC_STOPWORDS or is_number(t) or is_bound_word(t):
            break
        if t in ("or", "and"):
            break
        out.add(stem(t))
    return frozenset(out)


def _family(nouns: frozenset[str]) -> frozenset[str]:
    out = set(nouns)
    for family in COUNT_FAMILIES:
        if nouns & family:
            out |= family
    return frozenset(out)


def _context(claim: Claim, at: int) -> frozenset[str]:
    """The topic stems just before position ``at`` in its clause: what the number is a number of."""
    out: list[str] = []
    j = at - 1
    while j >= 0 and len(out) < CONTEXT_WORDS and claim.clause[j] == claim.clause[at]:
        t = claim.tokens[j]
        if (
            t not in STOPWORDS
            and t not in TOPIC_STOPWORDS
            and t not in UNITS
            and not is_number(t)
            and not is_bound_word(t)
            and not QUALIFIED_RE.fullmatch(t)  # "ImageCache.prune caps disk at 50MB": who states it, not what
        ):
            s = stem(t)
            if s in claim.content:
                out.append(s)
                if "_" in t:  # "chunk_size": also its words
                    out.extend(stem(p) for p in t.split("_") if p and stem(p) in claim.content)
            elif "-" in t:  # "max-age 60s": a hyphenated name says its words (the topic keeps only those)
                out.extend(stem(p) for p in t.split("-") if p and stem(p) in claim.content)
        j -= 1
    return frozenset(out)


def _joined(claim: Claim, q: Quantity) -> frozenset[str]:
    """Two words side by side naming ``q``, before or after it, written as one ("visibility timeout":
    "visibilitytimeout"; "a 90s visibility timeout")."""
    tokens = claim.tokens
    start = max(0, q.position - CONTEXT_WORDS)
    end = min(len(tokens) - 1, q.position + 2 * CONTEXT_WORDS)  # past its unit and what it counts
    naming = q.context | q.after
    return frozenset(
        stem(tokens[k] + tokens[k + 1])
        for k in range(start, end)
        if k != q.position
        and claim.clause[k] == claim.clause[k + 1] == claim.clause[q.position]
        and stem(tokens[k]) in naming
        and stem(tokens[k + 1]) in naming
    )


def _after(claim: Claim, at: int, nouns: frozenset[str]) -> frozenset[str]:
    """The topic stems just after position ``at`` in its clause (past its unit and what it counts)."""
    out: list[str] = []
    for j in range(at + 1, len(claim.tokens)):
        if claim.clause[j] != claim.clause[at] or len(out) >= CONTEXT_WORDS:
            break
        t = claim.tokens[j]
        if t == "to" and not (j + 1 < len(claim.tokens) and is_number(claim.tokens[j + 1])):
            break  # "2 KB to sniff the file type": a purpose, not what the number measures
        if t in ACCOMPANYING:
            break  # "lr 3e-4 w/ cosine decay": what comes with the number, not what it measures
        s = stem(t)
        if t in UNITS or s in nouns or is_number(t) or is_bound_word(t) or s not in claim.content:
            continue
        out.append(s)
    return frozenset(out)


# ---------------------------------------------------------------- comparing


def _one_quantity(q: Quantity, r: Quantity, me: Claim, them: Claim) -> bool:
    """Do ``q`` (in ``me``) and ``r`` (in ``them``) state one quantity?

    Words just before each number name it. Each side naming it with a word the other text never says,
    around a word both share, is two quantities ("connect timeout" / "read timeout"). Named by nothing in
    common (or by nothing on one side), they are one where what follows them is shared ("sleeps 500 ms
    between polls" / "waits 2 s between two polls") or where both give one threshold ("never goes below
    zero" / "can go below zero").
    """
    if not _kinds_meet(q, r) or _aside(q, me) or _aside(r, them):
        return False
    key_q, key_r = _setting_key(me, q), _setting_key(them, r)
    if key_q and key_r and key_q != key_r:
        return False  # "pool_size=10" / "pool_recycle=1800": two settings, whatever words their keys share
    counted_q, counted_r = _windowed(q, me), _windowed(r, them)
    if counted_q is not None and counted_r is not None and not _kinds_meet(counted_q, counted_r):
        return False  # "5 attempts per 15 min" / "10 failed logins in 24h": the window of another count
    if "label" in (q.kind, r.kind) and _other_cases(_case(me, q), _case(them, r), me, them):
        return False  # "exits 0" / "exits 2 when the remote is unreachable": the code of another outcome
    if _unnamed_against_count(q, r, me) or _unnamed_against_count(r, q, them):
        return False  # "…, then 429" / "one person locked out all of Support": a count of what it never names
    if _abbreviated(q, them, r) or _abbreviated(r, me, q):
        return True  # "lr 3e-4" / "learning rate is 1e-3": one name, once by its initials
    if _joined(me, q) & (r.context | r.after) or _joined(them, r) & (q.context | q.after):
        return True  # "visibility timeout 30 sec" / "VisibilityTimeout is 300": one name, once written as one word
    if q.kind == r.kind and q.kind in ("label", "period", "clock", "rate"):
        return True  # "port 8080" / "binds port 9000", "every 15 minutes" / "once an hour", "60/min": one per place
    cq, cr = _synonyms(q.context), _synonyms(r.context)
    if not cq and not cr:
        return True  # "MAX_BODY is 50 MB" / "MAX_BODY is 50 MiB": named by the anchor alone
    # words foreign to the other text; beside a unit, a word that only says "a limit" ("limit is 50MB") is none
    generic = MEASURES if q.kind not in UNITLESS else frozenset()
    novel_q = bool(cq - _synonyms(them.content) - generic)
    novel_r = bool(cr - _synonyms(me.content) - generic)
    if novel_q and novel_r and cq & cr and _modified_apart(q, r, me, them):
        return False  # "read timeout" / "connect timeout", "access tokens" / "refresh tokens"
    if (not cq or not cr) and q.kind == r.kind and q.kind not in UNITLESS and not (q.after or r.after):
        return True  # "ttl 10 min" (named by TTLCache alone) / "expires entries after 1 hour": a unit says what
    # each named by another measure, the older's one the newer never says ("timeout is 10s" / "backoff starting
    # at 250ms"): two quantities unless something else ties them
    measures_q, measures_r = cq & MEASURES, cr & MEASURES
    apart = bool(measures_q - _synonyms(them.content)) and bool(measures_r - _synonyms(me.content))
    if (novel_q and novel_r) or (novel_q and not cr) or (novel_r and not cq) or apart:
        return _named_alike(q, r) or bool(q.nouns & r.nouns) or _same_amount(q, r) or q.changed_to or r.changed_to
    return True


def _aside(q: Quantity, c: Claim) -> bool:
    """A bare number standing alone between punctuation ("hard bounces (550)"): a code or label of what comes
    before it, not an amount of anything."""
    if q.kind != "bare" or q.context or q.after or q.nouns:
        return False
    at, tokens = q.position, c.tokens
    return 0 < at < len(tokens) - 1 and tokens[at - 1] == PUNCT and tokens[at + 1] == PUNCT


def _other_cases(case_q: frozenset[str], case_r: frozenset[str], me: Claim, them: Claim) -> bool:
    """The newer text states its number for a case the older never mentions (and they name no case in common):
    the older's number for the plain case ("returns 404 when deleted" / "answers 410") is still compared."""
    if case_q & case_r:
        return False
    return bool(case_r and not case_r & me.content)


def _unnamed_against_count(q: Quantity, r: Quantity, me: Claim) -> bool:
    """``q`` is a number nothing names, ``r`` a count of things ``q``'s text never mentions, or mentions only
    to name its other numbers ("5 failed logins / 15 min / IP, then 429" / "one NAT IP")."""
    if q.kind != "bare" or r.kind != "count" or q.context or q.after or q.nouns:
        return False
    naming_others = {w for o in quantities(me) if o.position != q.position for w in o.context | o.after | o.nouns}
    return not any((n in me.content or n in me.words) and n not in naming_others for n in _synonyms(r.nouns) | r.nouns)


def _abbreviated(q: Quantity, other: Claim, r: Quantity) -> bool:
    """A word naming ``q`` is the initials of the words naming ``r`` in the other text ("lr" / "learning rate",
    "ttl" / "time to live")."""
    tokens = other.tokens
    for word in q.context:
        if not (ACRONYM_LETTERS[0] <= len(word) <= ACRONYM_LETTERS[1] and word.isalpha()) or word in other.content:
            continue
        n = len(word)
        for i in range(max(0, r.position - CONTEXT_WORDS - n), r.position - n + 1):
            run = tokens[i : i + n]
            if "".join(t[:1] for t in run) == word and all(stem(t) in r.context or t in STOPWORDS for t in run):
                return True
    return False


def _setting_key(c: Claim, q: Quantity) -> str:
    """The key of the ``key=value`` setting ``q`` is the value of ("pool_size" in "pool_size=10"), or ""."""
    key, sep, _ = c.tokens[q.position].partition("=")
    return key if sep else ""


def _windowed(q: Quantity, c: Claim) -> Quantity | None:
    """The count a time is the window of ("5 attempts per 15 min", "10 failures in 24h"), if it is one."""
    if q.kind != "time" or q.position < 1 or c.tokens[q.position - 1] not in WINDOW_WORDS:
        return None
    return next(
        (r for r in quantities(c) if r.kind == "count" and q.position - WINDOW_REACH <= r.position < q.position),
        None,
    )


def _modified_apart(q: Quantity, r: Quantity, me: Claim, them: Claim) -> bool:
    """A word naming both numbers is modified differently on each side, by words foreign to the other text:
    right before it ("read timeout" / "connect timeout") or right after it ("page size" / "page numbers").
    "OTP codes are valid for 30 s" / "accepts a code for 5 min" name one thing."""
    unitless = q.kind in UNITLESS and r.kind in UNITLESS  # a unit already says much of what is measured
    for word in _synonyms(q.context) & _synonyms(r.context):
        (bq, aq), (br, ar) = _modifiers(me, q.position, word), _modifiers(them, r.position, word)
        if bq and br and not _alike(bq, br) and bq not in them.content and br not in me.content:
            return True
        if unitless and (aq or ar) and not _alike(aq, ar) and aq not in them.content and ar not in me.content:
            return True
    return False


def _alike(a: str, b: str) -> bool:
    return a == b or (bool(a) and bool(b) and opposites.same_group(a, b))


def _modifiers(c: Claim, position: int, word: str) -> tuple[str, str]:
    """The topic stems right before and right after the nearest ``word`` ahead of ``position`` in its clause."""
    for j in range(position - 1, 0, -1):
        if c.clause[j] != c.clause[position]:
            break
        if (opposites.synonym(stem(c.tokens[j])) or stem(c.tokens[j])) == word:
            return _modifier_at(c, j - 1, j), (_modifier_at(c, j + 1, j) if j + 1 < position else "")
    return "", ""


def _modifier_at(c: Claim, k: int, j: int) -> str:
    if k < 0 or c.clause[k] != c.clause[j] or is_number(c.tokens[k]) or c.tokens[k] in UNITS:
        return ""
    if k < j and c.tokens[k].endswith("s") and not c.tokens[k].endswith("ss"):
        return ""  # "rejects bodies": a verb before the noun, not a modifier of it
    s = stem(c.tokens[k])
    return s if s in c.content else ""


def _named_alike(q: Quantity, r: Quantity) -> bool:
    """The two numbers share a word that names them, before or after either ("the gRPC deadline is 2s" / "a
    10s deadline", "pages through the results 500 rows at a time" / "5,000 rows per page"), or words of one
    group ("ttl" / "live", "delay" / "waits")."""
    x, y = q.context | q.after, r.context | r.after
    return bool(x & y) or any(opposites.same_group(a, b) for a in x for b in y)


def _named_closely(q: Quantity, matches: list[Quantity]) -> list[Quantity]:
    """Of the newer text's statements of ``q``, those that name it most closely (one counted noun, a name)."""
    return [r for r in matches if q.nouns & r.nouns or _named_alike(q, r)]


def _synonyms(words: frozenset[str]) -> frozenset[str]:
    return frozenset(opposites.synonym(w) or w for w in words)


def _kinds_meet(q: Quantity, r: Quantity) -> bool:
    if q.delta != r.delta:
        return False  # "opens 10 connections" / "overflows by 5 extra connections"
    kinds = {q.kind, r.kind}
    if "unbounded" in kinds:
        return "label" not in kinds
    if len(kinds) == 1:
        kind = q.kind
        if kind in ("count", "label"):
            return bool(q.nouns & r.nouns) or any(opposites.same_group(x, y) for x in q.nouns for y in r.nouns)
        if kind == "rate" and q.nouns and r.nouns:
            return bool(q.nouns & r.nouns)
        return True
    if kinds == {"count", "label"}:  # "max_connections = 20" / "caps at 50 conns": a setting named for the count
        label, count = (q, r) if q.kind == "label" else (r, q)
        return any(set(n.split("_")) & count.nouns for n in label.nouns if "_" in n)
    if kinds == {"count", "bare"}:  # a setting's number is named by its key: "max.poll.records=500" / "1 batch"
        bare, count = (q, r) if q.kind == "bare" else (r, q)
        return (
            not bare.nouns
            or bool(bare.nouns & count.nouns)
            or any(opposites.same_group(x, y) for x in bare.nouns for y in count.nouns)
        )
    return kinds == {"label", "bare"}


def _same_amount(q: Quantity, r: Quantity) -> bool:
    if q.kind == r.kind == "label":
        return q.text == r.text
    if math.inf in (q.amount, r.amount):
        return q.amount == r.amount  # "forever" is no amount near 10s (a relative tolerance of infinity is infinite)
    return abs(q.amount - r.amount) <= SAME_AMOUNT * max(abs(q.amount), abs(r.amount), 1e-12)


def _agree(q: Quantity, r: Quantity) -> bool:
    if {q.bound, r.bound} == {Bound.NOT, Bound.EXACTLY}:
        return not _same_amount(q, r)  # "NOT 15 minutes" denies the "15 min" the other states
    if Bound.NOT in (q.bound, r.bound):
        return True
    if {q.bound, r.bound} == {Bound.AT_MOST, Bound.AT_LEAST}:
        return False
    if math.inf in (q.amount, r.amount) and q.amount != r.amount:
        finite = r if q.amount == math.inf else q
        return finite.bound == Bound.AT_LEAST  # "at least 3" allows forever
    return _same_amount(q, r)
