"""Behaviour families: one behaviour of code said in many words, and its opposite. Pure text, no I/O.

Lessons about code describe a handful of behaviours over and over (does it follow redirects, block or
return at once, stream or load everything, keep the first or the latest duplicate, mask or leave data
alone, tolerate concurrent calls, tolerate a second call, run at least once or exactly once, rotate or
reuse a credential, run on a schedule or on an event, run on startup, run during or outside business
hours, fit on the training split or on everything, keep an order or promise none, page or answer
everything at once, keep state per process or share one, commit per item or all at once, change in place
or copy, error on a duplicate or overwrite it).
Each writer picks other words for them: "follows redirects" / "won't chase 3xx", "blocks until the lock is
free" / "returns straight away". A word lexicon (``opposites``) pairs single words; a family pairs
*phrasings*: each of its two poles is a set of short phrases (stems in order, a few words apart, no
punctuation between), and a phrase inside a negation ("never waits", "isn't on a schedule anymore", "no
mutex") stands on the other pole.

Two texts on one anchor conflict when one stands on a pole of a family and the other on the opposite
pole, and either each text stands on one pole only (an elaboration or a restatement stays on the pole
of the text it elaborates) or the two clauses that disagree share a topic word ("masks emails" /
"leaves email addresses alone — it only scrubs PANs": the scrubbing is about something else). Anchor
words are read as names, never as a pole ("redact()" does not say it masks).

The table is written from the vocabulary of code lessons at large, one family per behaviour with a why,
not from the sentences it is measured on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from forewarn.memory.claims import PUNCT, Claim, read, set_aside, stem, topic_of

# a phrase's words may stand this many tokens apart ("keeps the first event", "twice for the same charge is
# harmless"), never across a clause
PHRASE_GAP = 6
# a range of clock times starting and ending within these hours is the working day ("between 09:00-18:00")
WORKDAY_START = range(7, 11)
WORKDAY_END = range(16, 20)
_CLOCK = re.compile(r"^([01]?[0-9]|2[0-3])(?::[0-5][0-9])?$")
_WORKDAY = "business-hours"  # the token a working-day range of times reads as
# a verb of preventing this close before a phrase denies it: "avoids a data race", "guards against double charges"
PREVENT_REACH = 3
_PREVENTING = frozenset(
    stem(w) for w in ("avoid", "avoids", "prevent", "prevents", "guard", "guards", "protect", "protects", "fixes",
                      "fixed", "eliminates", "stops")
)  # fmt: skip
# a clause they are in names a case ("unless" does not: "X unless you pin a seed" says X is the default)
_CONDITIONS = frozenset(("if", "when", "whenever"))


@dataclass(frozen=True, slots=True)
class Family:
    """A behaviour and its two poles, each a tuple of phrases (a phrase: stems in order)."""

    name: str
    poles: tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]


def _family(name: str, spec: str) -> Family:
    left, right = spec.split("|")
    poles = tuple(tuple(_phrase(p) for p in side.split(";") if p.strip()) for side in (left, right))
    return Family(name, (poles[0], poles[1]))


def _phrase(words: str) -> tuple[str, ...]:
    """A phrase read as texts are (shorthand, "twice" as "2 times", "most recent" as "newest"), stemmed."""
    return tuple(stem(t) for t in read(words).tokens if t != PUNCT)


# name, "phrases of one pole | phrases of the other"; why each is a family is the comment beside it
FAMILIES: tuple[Family, ...] = (
    # HTTP clients: whether a 3xx is followed is a classic surprise, said with "follow", "chase", the status
    _family("redirects", "follow redirect; chase redirect; follow 3xx; chase 3xx; follow location "
            "| allow_redirects=false; follow_redirects=false; redirect=manual"),
    # locks, queues, sockets: waiting for a resource or giving up at once
    _family("waiting", "block until; wait until; wait for; wait; block forever; hang until "
            "| straight away; right away; immediately; fail fast; non-blocking; nonblocking; try_lock; trylock"),
    # readers: constant memory or everything loaded first (the out-of-memory lesson)
    _family("loading", "stream; lazy; lazily; generator; one row at a time; constant memory; chunk "
            "| read entire; load entire; entire file; whole file; entire body; whole body; into memory; "
            "into list; slurp; read everything; load everything"),
    # deduplication: which of the duplicates survives
    _family("survivor", "keep first; first win; keep earliest; keep oldest; oldest win; earliest win "
            "| keep last; last win; keep newest; newest win; keep latest; latest win; last write win"),
    # privacy: data masked or passed through as it is
    _family("masking", "mask; redact; scrub; obfuscate; anonymise; anonymize; pseudonymise; pseudonymize "
            "| leave alone; as-is; untouched; verbatim; unmasked; unredacted; in the clear"),
    # concurrency: safe from many threads or racing
    _family("concurrency", "thread-safe; threadsafe; goroutine-safe; concurrency-safe; mutex; synchronized; "
            "safe concurrent; any thread; any goroutine "
            "| race; racy; data race; thread-unsafe; concurrent map write; concurrent panic; concurrent corrupt; "
            "need mutex; need a lock; wrap in lock; wrap in mutex; hold lock yourself; hold yourself around; "
            "without taking lock; without locking; unsynchronized"),
    # retries and double clicks: a second call harmless or doing it again (or failing the second time)
    _family("idempotency", "idempotent; twice harmless; safe to retry; second call no-op; twice no-op; "
            "twice exactly one; twice only one; exactly one refund; exactly one charge; only one refund; "
            "only one charge "
            "| non-idempotent; double refund; double charge; charged twice; twice two; duplicate charge; "
            "2nd refund; second refund; 2nd charge; second charge; double-credit; double credit; double count; "
            "second time blow up; second time fail; second time error; second time raise; second time crash; "
            "second run fail; twice blow up; twice fail"),
    # computations: the same input gives the same output every run, or not
    _family("determinism", "deterministic; reproducible; same output every; same result every "
            "| nondeterministic; non-deterministic; different output; different result; different order; "
            "differ between run; vary between run; differ run to run"),
    # commands: a person confirms before it acts, or it acts at once
    _family("confirmation", "ask y/n; ask yes/no; ask for confirm; prompt for confirm; confirm prompt; "
            "ask before; prompt before "
            "| non-interactive; noninteractive; without prompt; without asking; no prompt; skip confirm; "
            "skip prompt; auto-confirm"),
    # delivery: a job or message may run more than once, or runs once and only once
    _family("delivery", "at-least-once; at least once; run twice; delivered twice; redelivered; duplicate delivery "
            "| exactly-once; exactly once; at-most-once; at most once; once and only once"),
    # credentials: a new one each time or the same one reused
    _family("rotation", "rotate; rotation; new token every; fresh token every "
            "| reuse; same token; same refresh token"),
    # jobs: started by a clock or by something happening
    _family("trigger", "cron; crontab; nightly; schedule; hourly; every night; every hour; periodic; periodically "
            "| event kick; on event; triggered by; event-driven; on-demand; on demand; webhook"),
    # start-up work: done when the process starts or apart from it
    _family("startup", "startup; start-up; on boot; at boot; on start; app start "
            "| separate job; own job; by hand"),
    # operations: the working day or outside it ("business hours" reads as one token, shorthand's)
    _family("hours", "business-hours; business hrs; daytime; working day "
            "| outside business-hours; outside business hrs; off-hours; off-peak; overnight; after-hours; "
            "maintenance-window; weekend"),
    # machine learning: statistics fitted on the training split or on everything (leakage)
    _family("fitting", "train split; training split; train set; training set; training data; train only "
            "| full dataset; whole dataset; entire dataset; all data; before split"),
    # collections: the order given back is the order put in, or none promised
    _family("ordering", "preserve order; keep order; insertion order; stable order; same order; ordered; sorted "
            "| arbitrary order; any order; random order; unordered; out of order; no order guarantee; "
            "order not guaranteed"),
    # listings: one page at a time or everything in one answer
    _family("paging", "paginate; paginated; cursor; page by page; per page; one page "
            "| all results; all rows at once; everything at once; in one response; unpaginated"),
    # state across workers: each its own or one shared
    _family("sharing", "per process; per worker; per-process; per-worker; own copy; each worker "
            "| one shared; shared across; single instance; singleton; across all workers; global instance"),
    # batches: each item committed apart or all in one transaction
    _family("transaction scope", "own transaction; separate transaction; per-item transaction; each in its own; "
            "one by one "
            "| single transaction; one transaction; all in one transaction; whole batch; all-or-nothing"),
    # arguments: changed where they lie or copied
    _family("mutation", "in place; in-place; mutate; modifies the input; modifies its argument "
            "| returns a copy; returns a new; copy of; leaves the input; does not modify"),
    # writes: a duplicate key an error or an overwrite
    _family("duplicates", "unique_violation; integrityerror; duplicate key error; insert only; inserts only "
            "| on conflict do update; do update; overwrite; replace existing; on duplicate key update"),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Stance:
    """Where a text stands on one family: the pole (0/1, negations applied), the clause, the positions."""

    family: str
    pole: int
    clause: int
    positions: tuple[int, ...]


def stances(c: Claim, anchor: frozenset[str] = frozenset()) -> list[Stance]:
    """Every phrase of every family ``c`` says (longest first, none twice over one word), pole per negation."""
    stems = _stems(c)
    named = {i for i, t in enumerate(c.tokens) if t in anchor or stem(t) in anchor}
    out: list[Stance] = []
    for family in FAMILIES:
        used: set[int] = set()
        phrases = sorted(((p, pole) for pole, side in enumerate(family.poles) for p in side), key=lambda x: -len(x[0]))
        for phrase, pole in phrases:
            for found in _occurrences(stems, c.tokens, phrase):
                if used & set(found) or c.in_example(found[0]) or (len(found) == 1 and found[0] in named):
                    continue
                used |= set(found)
                flip = _negated(c, found) ^ set_aside(c.tokens, found[0])  # the other pole
                out.append(Stance(family.name, pole ^ flip, c.clause[found[0]], found))
    return out


def opposed(a: Claim, b: Claim, anchor: frozenset[str] = frozenset()) -> list[str]:
    """The families on which ``a`` and ``b`` stand on opposite poles (see the module's docstring)."""
    if b.additive:
        return []  # "can also be triggered by hand": another way besides the older's, not instead of it
    sa, sb = _unconditional(a, stances(a, anchor), b), _unconditional(b, stances(b, anchor), a)
    out = []
    for family in FAMILIES:
        xa = [s for s in sa if s.family == family.name]
        xb = [s for s in sb if s.family == family.name]
        poles_a, poles_b = {s.pole for s in xa}, {s.pole for s in xb}
        if not poles_a or not poles_b or poles_a == poles_b:
            continue
        if len(poles_a) == 1 and len(poles_b) == 1:
            out.append(family.name)
            continue
        # a clause on both poles ("a mutex avoids the race") says neither; the clauses that disagree must each
        # stand on one pole
        one_a = {x.clause for x in xa if len({s.pole for s in xa if s.clause == x.clause}) == 1}
        one_b = {y.clause for y in xb if len({s.pole for s in xb if s.clause == y.clause}) == 1}
        if any(
            x.pole != y.pole and x.clause in one_a and y.clause in one_b and _clause_topic(a, x) & _clause_topic(b, y)
            for x in xa
            for y in xb
        ):
            out.append(family.name)
    return out


def _unconditional(c: Claim, found: list[Stance], other: Claim) -> list[Stance]:
    """``found`` less the stances in a clause that names its case ("fires immediately if you pass leading")
    when ``other`` names none: a case the other's rule did not cover, not its opposite."""
    if any(t in _CONDITIONS for t in other.tokens):
        return found
    conditioned = set()
    for i, t in enumerate(c.tokens):
        if t in _CONDITIONS:  # "X if Y" narrows the clause before; "if Y, X" (opening a sentence) the one after
            opens = i == 0 or c.tokens[i - 1] == PUNCT
            conditioned |= {c.clause[i], c.clause[i] + 1 if opens else c.clause[i] - 1}
    return [s for s in found if s.clause not in conditioned]


def _stems(c: Claim) -> list[str]:
    """Each token's stem; a working-day range of clock times reads as one ("business-hours")."""
    out = [stem(t) for t in c.tokens]
    for i in range(len(c.tokens) - 1):
        start, end = _CLOCK.match(c.tokens[i]), _CLOCK.match(c.tokens[i + 1])
        if start and end and int(start.group(1)) in WORKDAY_START and int(end.group(1)) in WORKDAY_END:
            out[i] = stem(_WORKDAY)
    return out


def _occurrences(stems: Sequence[str], tokens: Sequence[str], phrase: tuple[str, ...]) -> list[tuple[int, ...]]:
    """The positions of ``phrase``'s words in order, each within ``PHRASE_GAP`` of the last, no punctuation
    between ("blocks until" spans the clause "until" opens, "blocks. Until" does not)."""
    found = []
    for i, s in enumerate(stems):
        if s != phrase[0]:
            continue
        at = [i]
        for word in phrase[1:]:
            last = at[-1]
            nxt = next(
                (j for j in range(last + 1, min(len(stems), last + 1 + PHRASE_GAP)) if stems[j] == word),
                None,
            )
            if nxt is None or PUNCT in tokens[last + 1 : nxt]:
                break
            at.append(nxt)
        if len(at) == len(phrase):
            found.append(tuple(at))
    return found


def _negated(c: Claim, positions: tuple[int, ...]) -> int:
    """1 if a negation outside the phrase reaches its first word ("never waits", "no mutex"), or a verb of
    preventing stands just before it ("avoids the race", "prevents double charges"), else 0."""
    first = positions[0]
    if any(stem(t) in _PREVENTING for t in c.tokens[max(0, first - PREVENT_REACH) : first]):
        return 1
    return int(any(at not in positions and first in reach for at, reach in zip(c.negated, c.reaches, strict=True)))


def _clause_topic(c: Claim, s: Stance) -> frozenset[str]:
    """The topic stems of the stance's clause, less the phrase's own words."""
    return frozenset(
        x
        for j, t in enumerate(c.tokens)
        if c.clause[j] == s.clause and j not in s.positions and t != PUNCT
        for x in topic_of(t)
    )
