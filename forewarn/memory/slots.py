"""Two lessons that say opposite things in the symbol's predicate slot. No I/O.

``forewarn.memory.predicates`` reads what each lesson says the anchored symbol does. Two predicates
fill one slot when they have the same head ("commits" / "does not commit"; "exp is not checked" /
"checks expiry" through the passive), or when a negated contact verb's object is what the other does
something to ("never hits the DB" / "falls through to the db"). In one slot:

- ``denied``: one predicate is negated and the other not;
- ``opposed``: words that exclude each other (``forewarn.memory.opposites``), anywhere in the two
  predicates for the lexicon's exclusive alternatives (sync/async, lazy/eager), between their heads for
  everyday outcomes ("raises ValueError" / "returns None", "resolves" / "rejects", "keeps the first" /
  "keeps the last"), with the same polarity on both sides ("is not sync" restates "is async").

Each stays quiet where the two say it of different things: both name objects and share none ("must not
expose the internal id" / "exposes the public number"), both state conditions and share none ("raises
on an empty string" / "returns Decimal for every valid input"), a passive's subject is something the
other never mentions ("POST isn't retried"), or the newer one is a caveat ("only if", "except",
"unless"). Overall word overlap is not asked: the symbol and the slot are what the two share.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from forewarn.memory import opposites
from forewarn.memory.claims import stem
from forewarn.memory.opposites import Reach
from forewarn.memory.predicates import HEAD_WORDS, Predicate

# "never hits the DB", "doesn't touch disk": the verb says only that the symbol reaches the object
CONTACT_VERBS = frozenset(
    stem(w)
    for w in (
        "hit", "hits", "touch", "touches", "reach", "reaches", "query", "queries", "access", "accesses",
        "contact", "contacts", "call", "calls", "use", "uses", "need", "needs", "go", "goes", "talk", "talks",
        "make", "makes", "do", "does", "have", "has", "involve", "involves", "require", "requires", "guarantee",
        "guaranteed", "ensure", "ensured", "promise", "promised",
    )
)  # fmt: skip
MIN_ABBREVIATION = 3  # "exp" for "expiry", "conf" for "confirmation": a prefix this long names the word
MIN_ROOT = 5  # "verif(y)" / "verif(ication)": two words sharing this many first letters …
ROOT_SHARE = 0.8  # … and this much of the shorter one are one word


def denied(old: Sequence[Predicate], new: Sequence[Predicate]) -> bool:
    """A predicate of one text negated in the other, in one slot."""
    for p in old:
        for q in new:
            if q.restricted:
                continue
            if p.negated != q.negated and _one_slot(p, q) and conditions_meet(_cased(p), _cased(q)):
                return True
            if not p.negated and not q.negated and q.exclusive and _excludes(p, q):
                return True
    return False


def _cased(p: Predicate) -> Predicate:
    """``p`` with only the conditions that name a case: "skips fsync for speed" says why it skips, not when
    ("returns None for every unknown id" names a case: more than one word)."""
    return replace(p, condition=frozenset()) if p.purpose and len(p.condition) == 1 else p


def same_word(a: str, b: str) -> bool:
    """One word: one stem, one group of the lexicon ("keeps"/"retains"), one root ("acknowledges"/"acknowledgement")."""
    return _same(a, b)


def _excludes(p: Predicate, q: Predicate) -> bool:
    """ "only validates the signature" against "checks expiry", "only validates on submit" against "validates
    on blur": one slot, and what the newer allows leaves out what the older says."""
    if not _same(p.head, q.head):
        return False
    objects = bool(p.objects) and bool(q.objects) and not _share(p.objects, q.objects | q.condition)
    conditions = bool(p.condition) and bool(q.condition) and not _share(p.condition, q.condition | q.objects)
    return objects or conditions


def opposed(
    old: Sequence[Predicate], new: Sequence[Predicate], old_words: Iterable[str], new_words: Iterable[str]
) -> tuple[str, str] | None:
    """Words of one slot that exclude each other, said with the same polarity: (older's, newer's) or None.
    ``old_words``/``new_words``: every word of each text (an opposite the other also says is none)."""
    said = {"x_said": tuple(old_words), "y_said": tuple(new_words)}
    for p in old:
        for q in new:
            if p.negated != q.negated or q.restricted:
                continue
            if (p.passive or q.passive) and not _objects_meet(p, q):
                continue
            found = opposites.excluding(_parts(p.raw), _parts(q.raw), Reach.ANYWHERE, **said)
            if found is not None:  # "generated eagerly on create" / "rendered lazily on first download"
                return found
            if not conditions_meet(p, q):
                continue  # "raises on an empty string" / "returns Decimal for every valid input": two cases
            found = opposites.excluding(p.raw[:1], q.raw[:1], Reach.OUTCOMES, **said)  # "raises" / "returns"
            if found is None:
                found = _aligned(p, q, said)
            if found is not None:
                return found
    return None


def _aligned(p: Predicate, q: Predicate, said: dict[str, tuple[str, ...]]) -> tuple[str, str] | None:
    """Everyday opposites in the first two words, the other word the same: "keeps the first" / "keeps the
    last", "hard deletes" / "soft-deletes", "rounds up" / "rounds down"."""
    x, y = _split(p.raw)[:HEAD_WORDS], _split(q.raw)[:HEAD_WORDS]
    if len(x) < HEAD_WORDS or len(y) < HEAD_WORDS:
        return None
    for k in range(HEAD_WORDS):
        other = HEAD_WORDS - 1 - k
        if _same(stem(x[other]), stem(y[other])):
            found = opposites.excluding(x[k : k + 1], y[k : k + 1], Reach.EVERYDAY, **said)
            if found is not None:
                return found
    return None


def _split(words: Iterable[str]) -> list[str]:
    """Words with hyphenated ones in their parts ("soft-deletes" → "soft", "deletes")."""
    out: list[str] = []
    for w in words:
        parts = w.split("-")
        out.extend(parts if len(parts) == 2 and all(x.isalpha() for x in parts) else [w])
    return out


def _one_slot(p: Predicate, q: Predicate) -> bool:
    """Do ``p`` and ``q`` say something of the same thing: one head, or a contact verb's object?"""
    if _same(p.head, q.head) or p.phrasal == q.head or q.phrasal == p.head:  # "rolls back" / "no rollback"
        return _objects_meet(p, q)
    for x, y in ((p, q), (q, p)):
        if x.negated and x.head in CONTACT_VERBS and x.objects:
            first = next((w for w in x.words[1:] if w in x.objects), None) if not x.passive else None
            things = [first] if first is not None else sorted(x.objects) if x.passive else []
            if any(_same(t, w) for t in things for w in y.words):
                return True  # "never hits the DB" / "falls through to the db"; "order is not guaranteed"
    return False


def _objects_meet(p: Predicate, q: Predicate) -> bool:
    """Both name what they act on and share none of it: two things, not one. A passive's subject must be
    something the other says ("POST isn't retried" against "retries on 5xx" is about POST)."""
    if p.passive or q.passive:
        x, y = (p, q) if p.passive else (q, p)
        said = set(y.objects) | set(y.condition) | set(y.words)
        return _share(x.objects, said)
    if not p.objects or not q.objects:
        return True
    return _share(p.objects, q.objects | q.condition) or _share(q.objects, p.objects | p.condition)


def conditions_meet(p: Predicate, q: Predicate) -> bool:
    """Both say when and share none of it: two cases, not one."""
    if not p.condition or not q.condition:
        return True
    return _share(p.condition, q.condition | q.objects) or _share(q.condition, p.objects)


def _share(x: Iterable[str], y: Iterable[str]) -> bool:
    """A word in both, or one an abbreviation of the other ("exp" / "expiry")."""
    ys = list(y)
    return any(_same(a, b) or _abbreviates(a, b) for a in x for b in ys)


def _same(a: str, b: str) -> bool:
    """One word: one stem, or one group of the lexicon ("keeps"/"retains")."""
    return a == b or opposites.same_group(a, b) or _one_root(a, b)


def _one_root(a: str, b: str) -> bool:
    """ "verify" / "verificat(ion)", "validat(e)" / "validat(ion)": one root, most of the shorter word."""
    if not (a.isalpha() and b.isalpha()):
        return False  # "async" / "asyncio.run": a name, not a form of the word
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n >= MIN_ROOT and n >= ROOT_SHARE * min(len(a), len(b))


def _abbreviates(a: str, b: str) -> bool:
    short, long = sorted((a, b), key=len)
    return len(short) >= MIN_ABBREVIATION and len(long) > len(short) + 1 and long.startswith(short)


def _parts(words: Iterable[str]) -> list[str]:
    """Words and the parts of hyphenated ones ("case-insensitive" → also "insensitive")."""
    out: list[str] = []
    for w in words:
        out.append(w)
        if "-" in w:
            out.extend(p for p in w.split("-") if len(p) >= opposites.MIN_ROOT)
    return out


def changed_in_slot(old: Sequence[Predicate], new: Sequence[Predicate]) -> bool:
    """The newer text, dated ("now", "since v3", "no longer", "switched to"), says something else in a slot
    the older one fills: one head with other objects ("runs on i18next now" / "is react-intl" is one role),
    or one role of the symbol with another object."""
    for p in old:
        for q in new:
            if q.restricted:
                continue
            if _same(p.head, q.head) and p.objects and q.objects and not _share(p.objects, q.objects | q.condition):
                return True
            if _acted_otherwise(p, q):
                return True
            common = {r for r, _ in p.targets} & {r for r, _ in q.targets}
            if any(_target(p, r) != _target(q, r) and not _abbreviates(_target(p, r), _target(q, r)) for r in common):
                return True
    return False


def _acted_otherwise(p: Predicate, q: Predicate) -> bool:
    """Another verb on the same object ("drops the user_id label" / "attaches user_id again now"): both
    affirmed, the objects the same, the verbs different and neither a word the other predicate says."""
    if p.negated or q.negated or p.passive or q.passive or not (p.objects and q.objects):
        return False
    if _same(p.head, q.head) or p.head in q.words or q.head in p.words:
        return False
    return bool(p.objects & q.objects)


def _target(p: Predicate, role: object) -> str:
    return stem(next(t for r, t in p.targets if r == role))
