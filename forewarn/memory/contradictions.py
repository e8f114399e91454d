"""Does a new memory contradict one already on the same place? Pure text judgement, no I/O.

Two lessons about one symbol conflict when they talk about the same thing and one says the opposite of
the other. "The same thing" is read two ways: the two texts share enough topic words (or their vectors
are close when the engine has them), or they fill one *slot* of the symbol, whatever their other words
(``forewarn.memory.predicates``: what each says the symbol does; quantities named alike). Each way of
saying the opposite is a general mechanism, a named cue:

- ``negation``: one side denies what the other asserts ("is not idempotent" / "is idempotent now",
  "never retries" / "retries up to twice"): the negated words (to the end of their clause) are words the
  other text says, or the two predicates of one slot differ in polarity ("save() commits the txn" /
  "UserRepo.save does not commit"; ``forewarn.memory.slots``). Two negations cancel, and so does a
  negation beside an opposite ("never call it outside a transaction" restates "it must run inside a
  transaction"); a caveat ("except …", "unless …", "only if …", "one exception: …") denies nothing, nor
  does a negation narrowed by its own "if"/"when" clause against a rule that names no case, an elided one
  that agrees with the other's ("caller has to follow it, we don't"), or a contrastive "…, not X" about an
  X the other text does not say, nor an older negation the newer says denied too ("does not include
  soft-deleted orders" / "soft-deleted rows never show up"). A denial beside an opposite or a date needs
  fewer shared words, and so does one of a verb and its object the other text both says ("doesn't verify
  the signature at all" / "verifies Stripe-Signature with …") or an order not to ("never run it during
  business hours") against what the other calls safe or allowed.
- ``antonym``: words that exclude each other (``forewarn.memory.opposites``: a lexicon of alternatives
  such as sync/async or raises/returns/converts, negating prefixes, compounds such as big-/little-endian),
  in one sentence frame, with enough shared words, or in one slot ("raises ValueError on empty string" /
  "returns None, no exception"); a precedence turned round ("env vars override the file" / "file beats
  env"); opposite poles of one behaviour said in other words ("follows redirects" / "won't chase 3xx";
  ``forewarn.memory.behaviours``); only another act, the older's left to someone else ("commits the
  transaction" / "only flushes; the caller owns the commit").
- ``value``: a quantity stated differently (``forewarn.memory.quantities``: "3 attempts" / "at least 6",
  "10 MB" / "10 MiB", "at most" / "at least", "pool size 20 conns" / "max 4 connections per worker"), a
  list of numbers, a ``key=value`` with another value, a unit named at another scale ("in millivolts" /
  "returns centivolts"; ``forewarn.memory.units``), or the same sentence with another literal or name
  in one place ("decodes as UTF-8" / "as latin-1").
- ``replacement``: the newer text says something took the place of what the older one describes
  ("instead of", "switched to", "no longer"), says a thing the older names is gone ("axios was ripped
  out"), or names another thing in one role of the symbol ("uses bcrypt" / "is argon2id"; ``roles``), or
  another tool of a kind the older uses one of, in any frame (``alternatives``).
- ``temporal``: the newer text dates a change ("used to …", "now", "as of v3", "since the migration")
  and says something else about the same thing, or in the same slot.

Elaborations, other aspects, restatements, other quantities and examples carry no cue, or one about
words the other text does not say. Team shorthand is read first (``forewarn.memory.shorthand``). The
rules were built on ``tests/memory/data/contradictions.tsv`` (bench/contradiction_bench.py measures them
on any set).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from enum import StrEnum

from forewarn.memory import alternatives, behaviours, opposites, quantities, roles, slots, units
from forewarn.memory.claims import (
    ALLOWED,
    NEGATORS,
    PUNCT,
    Claim,
    imperative,
    noun_only,
    read,
    stem,
    topic_of,
    topic_overlap,
)
from forewarn.memory.claims import anchor_words as anchor_words
from forewarn.memory.predicates import Predicate, caveats_at, is_caveat, predicates
from forewarn.memory.text import STOPWORDS

# how much two texts must share (overlap coefficient of their topic words, 0..1) for a cue to count
NEGATION_MIN_OVERLAP = 0.5  # a negated sentence about different words is another aspect, not a denial
REPLACEMENT_MIN_OVERLAP = 1 / 3  # "X now uses B instead of A" names A, so one shared word in three is enough
ANTONYM_MIN_OVERLAP = 0.5  # the opposites count as one shared word; the rest must meet as much as for negation
TEMPORAL_MIN_OVERLAP = 0.5  # "as of v3, X does B" against "X does A": half the words shared, the rest changed
# a denial and an opposite, or either with a date ("since March … async …, no nightly batch"): two signs that
# something changed, so a third of the words in common is as much as "instead of" needs
CORROBORATED_MIN_OVERLAP = 1 / 3
# a denial of a verb with its object, both the other text's words, is a second sign it is about the same act
WHOLE_DENIAL_WORDS = 2
PAST_MIN_SHARE = 0.5  # "X used to buffer the file": this much of the "used to" clause is what the older text says
NEGATED_SAID_SHARE = 0.5  # more than this much of a negation's scope is what the other text says: it denies it
# "the same sentence frame": token similarity (difflib ratio) of the two texts, and how long a differing
# stretch may be on each side for it still to be one value swapped for another
FRAME_MIN_RATIO = 0.7
FRAME_MIN_RATIO_WITH_VALUE = 0.5  # a differing number or literal is evidence enough at a looser frame
FRAME_MAX_CHANGE = 3
# "deduplication" is the noun of "dedupes": a verb stem this long (or longer) beginning a noun's stem
NOMINAL_STEM = 5
_NOMINAL_ENDINGS = ("at", "ion", "ment", "ing", "ic")  # stems of -ation, -ion, -ment, -ing, -ication nouns
_UNIVERSAL = frozenset(("anywhere", "whatsoever", "ever", "everywhere"))  # "no X anywhere": X denied outright
# with vectors: this close in meaning stands in for word overlap (MiniLM cosine; same-symbol
# lessons on other aspects sit around 0.4-0.7; contradicting ones around 0.8-0.9)
VECTOR_SIMILAR = 0.8

_FRAME_IGNORED = frozenset(("a", "an", "the", PUNCT))
# negations that are only that; the others ("ignores", "skips", "omits") are verbs with synonyms
_PLAIN_NEGATIONS = frozenset(("not", "never", "no", "cannot", "nothing", "nobody", "none", "neither", "nor", "without"))
# a clause they open names the case a statement holds in ("skips the extend if the last touch was recent")
_CONDITIONS = frozenset(("if", "when", "whenever", "once"))
# "not X until Y" within this many tokens: Y is X's precondition, as "X only after Y" / "X once Y" says
PRECONDITION_REACH = 8
_UNTIL = frozenset(("until", "till", "unless"))
_AFTER = frozenset(("after", "once"))
_UNIVERSAL_SUBJECTS = frozenset(("each", "every", "all"))  # a rule said of every case
_SOME = frozenset(
    ("those", "these")
)  # a part of the cases, pointed back to (not "some": "some are public" denies "all")
_JUST = frozenset(("just", "merely", "simply"))  # the older's one act and nothing more ("just clears the cookie")
_ENDING = frozenset(("stopped", "no"))  # the negations that open "stopped X", "no longer X"
_BETWEEN_NEGATION_AND_VERB = frozenset(("longer", "ever", "even", "really", "actually", "always", "be", "been", "get"))


class Cue(StrEnum):
    """Why a new memory seems to contradict an older one (the names travel in results and JSON)."""

    NEGATION = "negation"
    REPLACEMENT = "replacement"
    VALUE = "value"
    ANTONYM = "antonym"
    TEMPORAL = "temporal"


_DESCRIBED: dict[str, str] = {
    Cue.NEGATION: "negation",
    Cue.REPLACEMENT: "replacement",
    Cue.VALUE: "changed value",
    Cue.ANTONYM: "antonym",
    Cue.TEMPORAL: "said to have changed",
}


@dataclass(frozen=True, slots=True)
class Verdict:
    """Why two texts conflict: the cues that fired, how much their words overlap, their cosine if known."""

    cues: tuple[Cue, ...]
    overlap: float
    cosine: float | None = None


def judge(new: str, old: str, *, anchor: frozenset[str] = frozenset(), cosine: float | None = None) -> Verdict | None:
    """The reasons ``new`` contradicts ``old`` (both about the place whose words are ``anchor``), or None."""
    a, b = read(old, anchor), read(new, anchor)
    frame = _Frame(a, b)
    # an opposite inside an example ("e.g. rerunning it twice … truncate first") illustrates, it claims nothing
    found = [f for f in opposites.flips(a, b, frame.swapped()) if not _illustrates(b, f.at)]
    overlap = _overlap(a, b, found)
    similar = cosine is not None and cosine >= VECTOR_SIMILAR
    cues: list[Cue] = []
    denied, opposed = _polarity(a, b, found)
    # an opposite the newer text says is the only one ("only run it off-hours") excludes the older's outright
    restricted = any(_restricted(b, f.at) and not _restricted(a, _position(a, f.old)) for f in opposed)
    # "except Stripe 429s: those are retried once": a case of its own, not a denial; but "only in the window"
    # against the older's opposite case is no case of the older's rule
    caveat = (is_caveat(b) or _some_of_all(a, b)) and not restricted
    # two signs of a change (a denial with an opposite, either with a date) ask for less shared wording
    whole = denied and _wholly_denied(a, b)  # "doesn't verify the signature" / "verifies Stripe-Signature with …"
    # "never run X during business hours" forbids what "X is safe during business hours" allows
    forbidden = denied and (
        (bool(a.content & ALLOWED - b.content) and _forbids_what(b, a))
        or (bool(b.content & ALLOWED - a.content) and _forbids_what(a, b))
    )
    emphatic = denied and _emphatic(b, a)  # "there is no deduplication anywhere" / "it dedupes on message_id"
    stamped = bool(b.when) and not b.additive
    signs = (denied, bool(opposed), stamped, restricted, whole or forbidden)
    corroborated = sum(signs) >= 2
    enough = overlap >= CORROBORATED_MIN_OVERLAP if corroborated else False
    # a denial that says it ends ("don't … anymore", "no longer") and is dated: the older's word denied is enough
    enough = enough or (denied and stamped and b.negated_change and _denies_said(b, a))
    if denied and not caveat and (overlap >= NEGATION_MIN_OVERLAP or similar or enough or emphatic):
        cues.append(Cue.NEGATION)
    if (
        opposed
        and not caveat
        and (overlap >= ANTONYM_MIN_OVERLAP or similar or enough or all(f.in_place for f in opposed))
    ):
        cues.append(Cue.ANTONYM)
    named_replaced = b.replacement and bool(b.replaced & a.content)  # "rather than openpyxl": the older one's
    named_replaced = named_replaced or _ended(b, a)  # "we stopped calling tokeninfo": the older one's act, ended
    if _replaced(a, b, found) and (overlap >= REPLACEMENT_MIN_OVERLAP or similar or named_replaced):
        cues.append(Cue.REPLACEMENT)
    if _dated_change(a, b, overlap, similar):
        cues.append(Cue.TEMPORAL)
    changed = quantities.changed(a, b) or quantities.list_changed(a, b) or quantities.setting_changed(a, b)
    if changed or frame.literal_swapped() or units.rescaled(a, b):
        cues.append(Cue.VALUE)
    pa, pb = predicates(a, anchor), predicates(b, anchor)
    if Cue.NEGATION not in cues and not caveat and slots.denied(pa, _unnarrowed(b, pb, a)):
        cues.append(Cue.NEGATION)
    opposite = slots.opposed(pa, pb, _affirmed(a), _affirmed(b)) or roles.reversed_precedence(a, b, anchor)
    opposite = opposite or _any_against_only(a, b) or _any_against_only(b, a) or _only_another(pa, pb, b)
    if Cue.ANTONYM not in cues and not caveat and opposite:
        cues.append(Cue.ANTONYM)
    # "gives different output unless you pin a seed": what holds unless told otherwise is the default, opposed
    if Cue.ANTONYM not in cues and (not caveat or _by_default(b)) and behaviours.opposed(a, b, anchor):
        cues.append(Cue.ANTONYM)  # "follows redirects" / "won't chase 3xx": one behaviour's opposite poles
    if Cue.REPLACEMENT not in cues and (roles.removed(a, b, anchor) or roles.swapped(a, b, pa, pb)):
        cues.append(Cue.REPLACEMENT)
    if Cue.REPLACEMENT not in cues and not caveat and alternatives.swapped(a, b):
        cues.append(Cue.REPLACEMENT)  # "runs on Spark" / "executes on our Dask cluster": another tool of one kind
    dated = bool(b.when) or b.negated_change or b.replacement or bool(b.past)
    if not cues and dated and not b.additive and not caveat and slots.changed_in_slot(pa, pb):
        cues.append(Cue.TEMPORAL)  # "i18n runs on i18next now" against "i18n is react-intl"
    if not cues and _more_than_only(a, b) and (overlap > 0 or similar):
        cues.append(Cue.TEMPORAL)  # "logout just clears the cookie" / "logout now deletes the row as well"
    if not cues:
        return None
    return Verdict(tuple(cues), round(overlap, 3), cosine)


def _by_default(c: Claim) -> bool:
    """The text's one caveat is "unless …" after its claim: the claim is its default, the caveat a way out."""
    at = caveats_at(c)
    return bool(at) and all(c.tokens[i] == "unless" and i > 0 and c.tokens[i - 1] != PUNCT for i in at)


def _more_than_only(a: Claim, b: Claim) -> bool:
    """The older says the symbol does just one thing ("just clears the cookie"), the newer dates one more
    ("now deletes the row as well"): the older's "just" no longer holds."""
    return b.additive and bool(b.when) and any(t in _JUST for t in a.tokens) and not any(t in _JUST for t in b.tokens)


def conflicting(
    new: str, others: Iterable[tuple[str, str, float | None]], *, symbol: str | None = None
) -> list[tuple[str, Verdict]]:
    """``(key, verdict)`` per ``(key, text, cosine)`` in ``others`` that ``new`` contradicts, most similar first."""
    anchor = anchor_words(symbol)
    found = [(key, v) for key, text, cos in others if (v := judge(new, text, anchor=anchor, cosine=cos)) is not None]
    found.sort(key=lambda kv: -max(kv[1].overlap, kv[1].cosine or 0.0))
    return found


def describe(cues: Sequence[str]) -> str:
    """Cues in words, for messages: "negation, changed value"."""
    return ", ".join(_DESCRIBED.get(c, c) for c in cues)


# ---------------------------------------------------------------- the cues


def _any_against_only(x: Claim, y: Claim) -> bool:
    """ "call it from any thread" / "only ever from the dispatcher thread": one text allows any of a thing, the
    other only one of them (the same noun, in a clause that says "only"; "any" said by neither twice)."""
    if "only" in x.tokens or "any" in y.tokens:
        return False
    any_of = {stem(x.tokens[i + 1]) for i, t in enumerate(x.tokens[:-1]) if t == "any" and x.tokens[i + 1] != PUNCT}
    restricted = {y.clause[i] for i, t in enumerate(y.tokens) if t == "only"}
    return any(stem(t) in any_of and y.clause[j] in restricted for j, t in enumerate(y.tokens))


def _only_another(old: Sequence[Predicate], new: Sequence[Predicate], b: Claim) -> bool:
    """ "save() commits the transaction" / "save only flushes; the caller owns the commit": the newer says the
    symbol does only another act, and names the older's act elsewhere as a thing ("the commit"), someone else's
    or another step's. Both say it of the symbol itself (not "call it …", an order to the reader)."""
    things = noun_only(b)
    for q in new:
        if not q.exclusive or q.negated or q.objects or not q.named_subject:
            continue
        for p in old:
            if p.negated or p.passive or not p.named_subject or any(slots.same_word(p.head, w) for w in q.words):
                continue
            if any(slots.same_word(p.head, t) for t in things):
                return True
    return False


def _denies_said(b: Claim, a: Claim) -> bool:
    """A negation of ``b``'s is about a word ``a`` says (its head is ``a``'s)."""
    return any(head and head <= a.content for head in b.heads)


def _wholly_denied(a: Claim, b: Claim) -> bool:
    """A negation of ``b``'s denies a verb and its object that ``a`` both says: every word it denies, at least
    ``WHOLE_DENIAL_WORDS`` of them, is ``a``'s ("doesn't verify the signature at all" / "verifies the
    Stripe-Signature with the secret"), so the two speak of one act even where their other words differ."""
    return any(
        head and head <= a.content and len(scope) >= WHOLE_DENIAL_WORDS and scope <= a.content
        for head, scope in zip(b.heads, b.scopes, strict=True)
    )


def _some_of_all(a: Claim, b: Claim) -> bool:
    """The older text states a rule for every case ("each migration runs in a transaction") and the newer one
    speaks of some of them ("runs those files outside one"): a case of its own, as "except …" names."""
    return (
        any(t in _UNIVERSAL_SUBJECTS for t in a.tokens)
        and not any(t in _UNIVERSAL_SUBJECTS for t in b.tokens)
        and any(t in _SOME for t in b.tokens)
    )


def _ended(c: Claim, other: Claim) -> bool:
    """A change that ends an act ("we stopped calling tokeninfo", "no longer writes per-epoch checkpoints")
    and denies nothing but words the other text says: it names what it replaced, as "instead of X" does."""
    return c.negated_change and any(
        c.tokens[at] in _ENDING
        and (c.tokens[at] != "no" or c.tokens[at + 1 : at + 2] == ("longer",))
        and head
        and head <= other.content
        and scope <= other.content
        for at, head, scope in zip(c.negated, c.heads, c.scopes, strict=True)
    )


def _forbids_what(c: Claim, other: Claim) -> bool:
    """A prohibition of ``c``'s ("never run it during business hours", "can't edit invoices") is about something
    ``other`` says (the hours), not about another act ("safe to call concurrently" / "don't mutate the slice")."""
    return any(head >= ALLOWED and scope & other.content for head, scope in zip(c.heads, c.scopes, strict=True))


def _restricted(c: Claim, position: int | None) -> bool:
    """An "only" in the clause of the word at ``position``: it is the one case allowed."""
    if position is None:
        return False
    return any(t == "only" and c.clause[i] == c.clause[position] for i, t in enumerate(c.tokens))


def _position(c: Claim, word: str) -> int | None:
    """Where ``word`` (a token or its stem, as a flip names it) stands in ``c``, or None."""
    return next((i for i, t in enumerate(c.tokens) if word in (t, stem(t))), None)


def _illustrates(c: Claim, position: int) -> bool:
    return position < len(c.clause) and c.in_example(position)


def _overlap(a: Claim, b: Claim, found: Sequence[opposites.Flip]) -> float:
    """Topic overlap, opposite words read as one topic ("sync" and "async" are both about the mode)."""
    if not found:
        return topic_overlap(a.content, b.content)
    flipped = {w for f in found for w in (f.old, f.new)}
    return topic_overlap(_canonical(a.content, flipped), _canonical(b.content, flipped))


def _canonical(content: frozenset[str], flipped: set[str]) -> frozenset[str]:
    out = set()
    # the parts of a hyphenated opposite read as the opposite ("off-hours" is "off" and "hours" in the topic
    # words): one topic, not three
    parts = {stem(p): w for w in flipped if "-" in w for p in w.split("-")}
    for s in content:
        if s in flipped or any(stem(w) == s for w in flipped):
            out.add(opposites.canonical(s) or s)
        elif s in parts:
            out.add(opposites.canonical(parts[s]) or s)
        else:
            out.add(s)
    return frozenset(out)


def _polarity(a: Claim, b: Claim, found: Sequence[opposites.Flip]) -> tuple[bool, list[opposites.Flip]]:
    """Does the newer text say the opposite of the older one: (a denial, the opposites that say it)?

    Read per clause of the newer text, against the older text. A negation counts where it denies what the
    other text says. A negation and an opposite cancel where the opposite is what the negation denies
    ("never call it outside a transaction" restates "run it inside a transaction"); an opposite or a
    negation left over says the opposite. So "is asynchronous and never blocks" is two contradictions of
    "is synchronous and blocks", and so is "call close manually; nothing closes it at exit".
    """
    flipped = {w for f in found for w in (stem(f.old), stem(f.new), f.old, f.new)}
    flipped |= {stem(p) for w in list(flipped) if "-" in w for p in w.split("-")}  # "business-hours": its parts
    bounds_a, bounds_b = quantities.bound_negations(a), quantities.bound_negations(b)
    claimed = _claimed(b)  # an older denial meets what the newer claims, not its examples or cases
    old_denials = [
        reach
        for at, head, scope, reach in zip(a.negated, a.heads, a.scopes, a.reaches, strict=True)
        if at not in bounds_a
        # an opposite of the denied words meets the denial wherever the newer says it ("not thread safe" / "…
        # race; lock it if threads share it"): the pair cancels
        and (
            _denies(a, at, head, scope, b if scope & flipped else claimed, flipped)
            or any(scope & theirs for theirs in b.scopes)
        )
    ]
    agreeing = [
        reach
        for at, scope, reach in zip(a.negated, a.scopes, a.reaches, strict=True)
        if reach in old_denials and (_denied_too(scope, b, bounds_b) or scope & b.replaced)  # "instead of X"
    ]
    new_denials: dict[int, list[tuple[int, ...]]] = {}
    new_at: dict[tuple[int, ...], int] = {}  # where each of the newer's negations stands, by its reach
    for at, head, scope, reach in zip(b.negated, b.heads, b.scopes, b.reaches, strict=True):
        new_at[reach] = at
        if at in bounds_b:
            continue  # "never more than four": a bound, read as one
        if old_denials and not reach and not head:
            new_denials.setdefault(b.clause[at], []).append(reach)  # "caller has to follow it, we don't": agrees
            continue
        if _narrowed(b, at, a):
            continue  # "skips the extend if the last touch was recent": a case the older rule did not name
        if _precondition(b, at, a):
            continue  # "doesn't ack until the write is committed" says "acks only after the commit"
        if _denies(b, at, head, scope, a, flipped) or any(scope & theirs for theirs in a.scopes):
            new_denials.setdefault(b.clause[at], []).append(reach)
    if not new_denials:  # no negation of the newer one's meets the older's, yet it says those words denied
        old_denials = [reach for reach in old_denials if reach not in agreeing]
    by_clause: dict[int, list[opposites.Flip]] = {}
    for f in found:
        by_clause.setdefault(b.clause[f.at] if f.at < len(b.clause) else 0, []).append(f)
    denied, opposed = False, []
    for clause in set(new_denials) | set(by_clause) or {-1}:
        flips = list(by_clause.get(clause, []))
        unmatched = []  # negations no opposite cancels
        for reach in new_denials.get(clause, []):
            match = next((f for f in flips if f.at in reach), None)
            if match is None:
                unmatched.append(reach)
            else:
                flips.remove(match)
        # "no docker daemon and no buildx": denials side by side, neither inside the other's reach, say one thing
        left = 1 if len(unmatched) > 1 and _coordinated(unmatched, new_at) else len(unmatched)
        for reach in old_denials:
            said = {stem(a.tokens[j]) for j in reach} | {a.tokens[j] for j in reach}
            match = next((f for f in flips if f.old in said or stem(f.old) in said), None)
            if match is None:
                left += 1
            else:
                flips.remove(match)
        denied = denied or left % 2 == 1
        opposed.extend(flips)
    return denied, opposed


def _claimed(c: Claim) -> Claim:
    """``c`` without the words only its examples say ("e.g. a US user sees …" names the store it illustrates)."""
    cases = {c.clause[i] for i, t in enumerate(c.tokens) if t in _CONDITIONS}
    if not any(c.example_from) and not cases:
        return c
    said = {
        w
        for i, t in enumerate(c.tokens)
        if not c.in_example(i) and c.clause[i] not in cases
        for w in (stem(t), t, *topic_of(t))
    }
    return replace(c, content=c.content & said, words=c.words & said)


def _nominalised(words: frozenset[str], said: frozenset[str]) -> frozenset[str]:
    """Of ``words``, the nouns made from a verb ``said`` has ("deduplication" / "dedupes", "validation" /
    "validates"): the verb's stem begins the noun's, and is long enough to be no mere prefix."""
    return frozenset(
        w
        for w in words
        for v in said
        if len(v) >= NOMINAL_STEM and w != v and w.startswith(v) and w.endswith(_NOMINAL_ENDINGS)
    )


def _emphatic(c: Claim, other: Claim) -> bool:
    """A denial made universal ("there is no deduplication anywhere", "doesn't retry at all") of a word the
    other text says, or of the noun made from its verb: the other's claim denied outright, however the rest
    of the two texts is worded."""
    for at, head, scope in zip(c.negated, c.heads, c.scopes, strict=True):
        denied = head or scope
        if not denied or not (denied & other.content or _nominalised(denied, other.content)):
            continue
        rest = [t for j, t in enumerate(c.tokens) if j > at and c.clause[j] == c.clause[at]]
        if any(t in _UNIVERSAL for t in rest) or any(rest[k : k + 2] == ["at", "all"] for k in range(len(rest))):
            return True
        if _existential(c, at) and head and head <= other.content:
            return True  # "there are no exemptions" / "GET is exempt": what the other names does not exist
    return False


def _existential(c: Claim, at: int) -> bool:
    """ "there is no X", "there are no X", "there's no X": X denied to exist, not one act of it."""
    before = c.tokens[max(0, at - 2) : at]
    return c.tokens[at] == "no" and (before[-1:] == ("there's",) or (len(before) == 2 and before[0] == "there"))


def _coordinated(reaches: Sequence[tuple[int, ...]], where: dict[tuple[int, ...], int]) -> bool:
    """Negations in one clause none of which stands inside another's reach ("no X and no Y", "not X, not Y"):
    a list of denials, not a negation of a negation ("not without X")."""
    return all(where[r] not in other for r in reaches for other in reaches if other is not r)


def _denies(c: Claim, at: int, head: frozenset[str], scope: frozenset[str], other: Claim, flipped: set[str]) -> bool:
    """A negation denies something the other text says: the word it is about, or most of what follows it
    ("never updates an existing row" denies updating, which "inserts only, an existing id fails" never says).
    A verb denied is not said by the same word as a noun ("does not commit" / "the commit happens in the
    middleware")."""
    verb = c.tokens[at]
    if verb not in _PLAIN_NEGATIONS and any(opposites.same_group(verb, w) for w in other.words):
        return False  # "ignores unknown keys" / "unknown keys are silently dropped": one way of not using them
    said = other.content | flipped | _nominalised(head | scope, other.content)
    if _contrastive(c, at):
        return bool(scope) and scope <= said  # "ROUND_HALF_EVEN, not half-up": it denies half-up, and only that
    if _verbal(c, at, head):
        said = said - (noun_only(other) & head)
    if head & said - ALLOWED or (head & said and (scope & said or not imperative(c.tokens, at))):
        return True  # an order not to do a thing denies "safe"/"allowed" only about what the other says too
    return bool(scope) and len(scope & said) / len(scope) > NEGATED_SAID_SHARE


def _denied_too(scope: frozenset[str], c: Claim, bounds: frozenset[int]) -> bool:
    """The clause of ``c`` that says most of an older negation's ``scope`` has a negation of its own: it says
    them denied too ("does not include soft-deleted orders" / "…, so soft-deleted rows never show up")."""
    said: Counter[int] = Counter()
    for j, t in enumerate(c.tokens):
        said[c.clause[j]] += len(topic_of(t) & scope)
    most = max(said.values(), default=0)
    negated = {c.clause[at] for at in c.negated if at not in bounds}
    return most > 0 and all(k in negated for k, n in said.items() if n == most)


def _contrastive(c: Claim, at: int) -> bool:
    """ "…, not half-up": a "not" opening a clause after another sets an alternative aside."""
    return c.tokens[at] == "not" and at > 1 and c.tokens[at - 1] == PUNCT


def _precondition(c: Claim, at: int, other: Claim) -> bool:
    """ "not … until Y" states Y as a precondition ("doesn't ack until the write is committed"), which is what
    the other text's "after Y" / "once Y" says, not a denial of it."""
    ahead = c.tokens[at + 1 : at + 1 + PRECONDITION_REACH]
    return any(t in _UNTIL for t in ahead) and any(t in _AFTER for t in other.tokens)


def _narrowed(c: Claim, at: int, other: Claim) -> bool:
    """The negation at ``at`` holds in a case its own condition clause names ("skips X if …", "if …, X is not
    …") and the other text names no case: it narrows the other's rule, it does not deny it."""
    if any(t in _CONDITIONS for t in other.tokens):
        return False
    near = (c.clause[at] - 1, c.clause[at], c.clause[at] + 1)  # its own clause or a neighbour
    return any(
        t in _CONDITIONS and (i == 0 or c.clause[i] != c.clause[i - 1]) and c.clause[i] in near
        for i, t in enumerate(c.tokens)
    )


def _unnarrowed(c: Claim, preds: Sequence[Predicate], other: Claim) -> list[Predicate]:
    """``c``'s predicates less the negated ones its condition clauses narrow to a case (``_narrowed``)."""
    return [p for p in preds if not (p.negated and p.condition and _narrowed(c, p.positions[0], other))]


def _affirmed(c: Claim) -> frozenset[str]:
    """The words a text says outside its negations ("no lock held" does not say "held")."""
    denied = {j for reach in c.reaches for j in reach} | set(c.negated)
    return frozenset(t for i, t in enumerate(c.tokens) if i not in denied and t != PUNCT)


def _verbal(c: Claim, at: int, head: frozenset[str]) -> bool:
    """ "does not commit", "is never retried": the negation stands right before the word it denies (not "no")."""
    if c.tokens[at] == "no":
        return False
    j = at + 1
    while j < len(c.tokens) and c.tokens[j] in _BETWEEN_NEGATION_AND_VERB:
        j += 1
    return j < len(c.tokens) and stem(c.tokens[j]) in head


def _replaced(a: Claim, b: Claim, found: Sequence[opposites.Flip]) -> bool:
    """The newer text says something took the place of what the older one says."""
    if b.replacement:
        if any(b.replaced & scope for scope in a.scopes):
            return False  # "never waits" / "raises at once instead of waiting": both say it does not wait
        return not b.replaced or bool(b.replaced & a.content)  # "instead of X": X is what the older one says
    return b.negated_change and bool(_polarity(a, b, found)[0])


def _dated_change(a: Claim, b: Claim, overlap: float, similar: bool) -> bool:
    """The newer text puts the older state in the past (or says again what the older one put there), or
    dates something else about the same thing."""
    if b.past and not a.past and len(b.past & a.content) / len(b.past) >= PAST_MIN_SHARE:
        return True  # "X used to buffer the whole file" against "X buffers the whole file"
    if a.past and not b.past and len(a.past & b.content) / len(a.past) >= PAST_MIN_SHARE:
        return True  # and the other way round: "X used to stream rows", then "X streams rows"
    if not b.when or a.when or b.additive:
        return False
    if not (overlap >= TEMPORAL_MIN_OVERLAP or similar):
        return False
    return a.content != b.content  # dated, about the same thing, and saying something else about it


class _Frame:
    """The two texts as one sentence frame: which stretches of the older one the newer one replaces."""

    def __init__(self, a: Claim, b: Claim) -> None:
        self.a, self.b = a, b
        self.ia, self.ib = _frame_positions(a), _frame_positions(b)
        ta = [a.tokens[i] for i in self.ia]
        tb = [b.tokens[i] for i in self.ib]
        self.matcher = SequenceMatcher(None, ta, tb, autojunk=False)
        self.ratio = self.matcher.ratio()
        self.changes = [op for op in self.matcher.get_opcodes() if op[0] != "equal"]

    def swapped(self) -> list[tuple[range, range]]:
        """Token positions replaced one for another (older's, newer's), when the rest of the sentence is the same."""
        if self.ratio < FRAME_MIN_RATIO_WITH_VALUE:
            return []
        return [
            (range(self.ia[i1], self.ia[i2 - 1] + 1), range(self.ib[j1], self.ib[j2 - 1] + 1))
            for op, i1, i2, j1, j2 in self.changes
            if op == "replace"
        ]

    def literal_swapped(self) -> bool:
        """Same sentence, one short stretch different: a literal, a name, a word (numbers are quantities')."""
        if self.ratio < FRAME_MIN_RATIO_WITH_VALUE or len(self.changes) > 2:
            return False
        if any(i2 - i1 > FRAME_MAX_CHANGE or j2 - j1 > FRAME_MAX_CHANGE for _, i1, i2, j1, j2 in self.changes):
            return False
        if any(
            quantities.is_amount(t)
            for _, i1, i2, j1, j2 in self.changes
            for t in (*(self.a.tokens[i] for i in self.ia[i1:i2]), *(self.b.tokens[j] for j in self.ib[j1:j2]))
        ):
            return False  # a word swapped beside a changed number names another quantity ("read"/"connect timeout")
        for op, i1, i2, j1, j2 in self.changes:
            if op != "replace":
                continue
            x = [self.a.tokens[i] for i in self.ia[i1:i2]]
            y = [self.b.tokens[j] for j in self.ib[j1:j2]]
            if _said_another_way(x, y):
                continue
            valued = any(_is_literal(t) for t in x) and any(_is_literal(t) for t in y)  # a literal for a literal
            if self.ratio >= FRAME_MIN_RATIO or valued:
                return True
        return False


def _frame_positions(c: Claim) -> list[int]:
    dated = {i for s, e in c.when for i in range(s, e)}
    return [i for i, t in enumerate(c.tokens) if t not in _FRAME_IGNORED and i not in dated]


def _said_another_way(x: Sequence[str], y: Sequence[str]) -> bool:
    """Function words, negations and opposites are other cues' business; a swap of those is no new value."""
    words = (*x, *y)
    if all(t in STOPWORDS or t in _WEAK_WORDS or t in _UNTIL or t in _AFTER for t in words):
        return True  # "only after" / "until": an order said another way (opposites and preconditions are read apart)
    if any(t in NEGATORS or quantities.is_bound_word(t) for t in words):
        return True  # negations and bounds ("less than" / "at least") are the other cues' business
    if any(_is_literal(t) for t in words):
        return False
    # words of the lexicon on both sides: opposites are the antonym cue's, anything else words said otherwise
    return any(opposites.in_lexicon(t) for t in x) and any(opposites.in_lexicon(t) for t in y)


_WEAK_WORDS = frozenset(
    ("must", "may", "might", "can", "could", "should", "will", "would", "also", "only", "just", "always", "still")
)


def _is_literal(token: str) -> bool:
    return any(c in token for c in "._=-/:") or token in ("true", "false", "null")
