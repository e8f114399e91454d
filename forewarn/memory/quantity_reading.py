"""Reading the numbers of one lesson as quantities (what each measures, its bound). No I/O.

The reading half of ``forewarn.memory.quantities`` (which compares them; its docstring says what a
quantity is). Moved here as it was, to keep each file to one concern.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

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
    REMAINDER_WORDS,
    STATUS_WORDS,
    TRAILING_BOUNDS,
    TURNED,
    UNBOUNDED,
    UNITS,
    Bound,
)
from forewarn.memory.text import STOPWORDS

# how many tokens before a number a bound may end ("at least Python 3.10": one word between)
BOUND_REACH = 2
# how many topic words before a number say what it measures ("the access token lives 15 min": live, token, access)
CONTEXT_WORDS = 3
_RANGE_JOINS = frozenset(("to", "and", "or", "-"))  # "from 5 to 10": the second number is the same quantity's
QUANTITY_CACHE = 512  # claims (cached like forewarn.memory.claims.read)


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
    elif is_number(t) and in_list(tokens, i):
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
    named = frozenset(stem(w) for w in re.split(r"[_.\-]+", key) if w) | {stem(key)} | _unit_dropped(key)
    return Quantity(kind, number * factor, value, Bound.EXACTLY, named, named, i, _after(claim, i, named))


def _unit_dropped(key: str) -> frozenset[str]:
    """ "idletimeoutmillis" names the idle timeout ("idletimeout") in a unit: the name without the unit."""
    glued = next((u for u in GLUED_KEY_UNITS if key.endswith(u) and len(key) > len(u) + 2), "")
    return frozenset({stem(key[: -len(glued)])}) if glued else frozenset()


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
    if at > 0 and tokens[at - 1] in REMAINDER_WORDS:
        return True  # "the remaining 49.5k steps": what is left of a total
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
    if bound == Bound.AT_LEAST and _excess(tokens, at):
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


def case_of(c: Claim, q: Quantity) -> frozenset[str]:
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


def in_list(tokens: Sequence[str], i: int) -> bool:
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


def joined_names(claim: Claim, q: Quantity) -> frozenset[str]:
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
        if t.isdigit() and claim.tokens[j - 1] not in _RANGE_JOINS:
            break  # "15 min after 5 wrong codes": the words after another count are that count's
        s = stem(t)
        if t in UNITS or s in nouns or is_number(t) or is_bound_word(t) or s not in claim.content:
            continue
        out.append(s)
    return frozenset(out)
