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
from collections.abc import Sequence

from forewarn.memory import opposites
from forewarn.memory.claims import PUNCT, Claim, is_number, stem
from forewarn.memory.quantity_reading import CONTEXT_WORDS, case_of, in_list, joined_names
from forewarn.memory.quantity_reading import Quantity as Quantity
from forewarn.memory.quantity_reading import bound_negations as bound_negations
from forewarn.memory.quantity_reading import is_amount as is_amount
from forewarn.memory.quantity_reading import is_bound_word as is_bound_word
from forewarn.memory.quantity_reading import quantities as quantities
from forewarn.memory.quantity_words import (
    MEASURED,
    MEASURES,
    UNITLESS,
    UNITS,
    WINDOW_REACH,
    WINDOW_WORDS,
    Bound,
)
from forewarn.memory.text import STOPWORDS

# an abbreviation of this many letters may name a number by the initials of as many words ("lr", "ttl", "qps")
ACRONYM_LETTERS = (2, 4)
# equal within this relative tolerance: "0.5 s" and "500 ms" are one amount
SAME_AMOUNT = 1e-6


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
        if not (is_number(t) and in_list(c.tokens, i)) or c.in_example(i):
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
    if "label" in (q.kind, r.kind) and _other_cases(case_of(me, q), case_of(them, r), me, them):
        return False  # "exits 0" / "exits 2 when the remote is unreachable": the code of another outcome
    if _unnamed_against_count(q, r, me) or _unnamed_against_count(r, q, them):
        return False  # "…, then 429" / "one person locked out all of Support": a count of what it never names
    if _abbreviated(q, them, r) or _abbreviated(r, me, q):
        return True  # "lr 3e-4" / "learning rate is 1e-3": one name, once by its initials
    if joined_names(me, q) & (r.context | r.after) or joined_names(them, r) & (q.context | q.after):
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
    # a measure right after an amount with its unit names it too ("with 200ms backoff")
    measures_q, measures_r = _measures(q), _measures(r)
    apart = bool(measures_q - _synonyms(them.content)) and bool(measures_r - _synonyms(me.content))
    if (novel_q and novel_r) or (novel_q and not cr) or (novel_r and not cq) or apart:
        return _named_alike(q, r) or bool(q.nouns & r.nouns) or _same_amount(q, r) or q.changed_to or r.changed_to
    return True


def _measures(q: Quantity) -> frozenset[str]:
    """The measures naming ``q``: before it, or right after an amount in a unit ("200ms backoff")."""
    after = _synonyms(q.after) if q.kind not in UNITLESS else frozenset()
    return (_synonyms(q.context) | after) & MEASURES


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
