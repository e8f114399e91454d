"""One named thing in place of another, a thing said to be gone, and a precedence turned around. No I/O.

Three ways a newer lesson says the older one's thing no longer holds, each read without asking how many
words the two share (the symbol is what they share):

- ``removed``: the newer says something the older names is gone ("axios was ripped out", "minilm
  removed", "the webpack config is dead", "redis db 2 is unused now", "no more rsync", "SAML is
  deprecated"): past or perfect removal verbs and states, not a present-tense behaviour ("later rows are
  dropped", "purge removes them" describe what the code does);
- ``swapped``: both say what the symbol uses, runs on, goes through, writes to, comes from or *is*, and
  name different things there ("pushes to the RabbitMQ exchange" / "writes to kafka topic orders-v2",
  "uses bcrypt" / "is argon2id"): a role verb or a copula with its object, where at least one of the two
  objects is a name (code-like, capitalised, with a digit) unless the newer dates the change; not when
  the newer still says the old thing in a predicate, adds ("also", "too", "as well"), or qualifies its
  own with a purpose the older lacks ("uses SHA-256 for the cache key");
- ``reversed_precedence``: "env vars override the file" / "file beats env": one thing over another,
  then the other way round.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from forewarn.memory.claims import NEGATORS, PUNCT, TOPIC_STOPWORDS, Claim, stem
from forewarn.memory.predicates import PREPOSITIONS, Predicate, Role, mention
from forewarn.memory.slots import conditions_meet as _conditions_meet
from forewarn.memory.text import STOPWORDS

# removal said as an event or a state: "X was removed", "X is gone", "X removed" (telegraphic)
_REMOVED_EVENTS = frozenset(
    ("removed", "dropped", "deleted", "ripped", "killed", "retired", "replaced", "scrapped", "reverted", "disabled",
     "deprecated", "yanked", "nuked", "axed", "sunset", "decommissioned", "ended", "discontinued", "shut")
)  # fmt: skip
_REMOVED_STATES = frozenset(
    ("gone", "dead", "unused", "obsolete", "deprecated", "retired", "disabled", "leftover", "orphaned", "vestigial",
     "defunct", "abandoned")
)  # fmt: skip
# "X is no longer used / needed / a dependency / installed": X is not part of it any more
_NO_LONGER_STATES = frozenset(
    ("used", "needed", "dependency", "installed", "required", "shipped", "bundled", "involved")
)
_PAST_AUXILIARIES = frozenset(("was", "were", "got", "been"))
_PRESENT_COPULAS = frozenset(("is", "are", "'s"))
_ARTICLES = frozenset(("a", "an", "the", "any"))
_UNDER_THE_HOOD = ("under", "the", "hood")
# what a symbol is built on, said before the thing ("a wrapper around logrus", "on top of sqlite")
_BUILT_ON = tuple(
    tuple(p.split())
    for p in ("wrapper around", "wrapper over", "wrapper for", "wraps", "on top of", "built on", "backed by")
)
# "no more rsync", "got rid of X", "ripped out X": removal with the thing after it
_REMOVED_BEFORE = tuple(
    tuple(p.split())
    for p in (
        "no more", "got rid of", "ripped out", "removed", "dropped", "ditched", "replaced", "moved off",
        "moved away from", "migrated off", "migrated away from", "switched from", "switched away from",
    )
)  # fmt: skip
# words too general to say which thing is gone ("the old code path is gone")
_GENERIC = frozenset(
    stem(w)
    for w in (
        "code", "path", "config", "setting", "settings", "option", "flag", "step", "logic", "support", "feature",
        "module", "function", "method", "class", "version", "old", "legacy", "layer", "wrapper", "part", "bit",
        "stuff", "handling", "check", "value", "field", "branch", "case", "hack", "workaround", "thing", "call",
    )
)  # fmt: skip
# the newer adds rather than replaces
_ADDITIVE = frozenset(("also", "too", "additionally", "still", "both", "alongside", "besides"))
_ADDITIVE_PHRASES = (("as", "well"), ("in", "addition"))
# "A overrides B", "B beats A", "A takes precedence over B", "B is overridden by A"
_DOMINANCE = frozenset(
    stem(w)
    for w in (
        "override", "overrides", "overrode", "overridden", "beat", "beats", "trump", "trumps", "shadow", "shadows",
        "supersede", "supersedes", "outrank", "outranks", "precedence", "priority", "win", "wins", "overrule",
        "overrules",
    )
)  # fmt: skip
_DOMINANCE_FILLER = frozenset(("over", "the", "a", "precedence", "priority", "against", "takes", "take", "has"))
_NAME_PARTS_RE = re.compile(r"[./]")  # "webpack.config.js", "config/webpack": a name's parts
SIDE_WORDS = 2  # "env vars override the file": this many words on each side name what wins and what loses
_CAPITALISED_RE = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z][\w.\-]*[A-Z][\w.\-]*|[A-Z][\w.\-]+)")


def removed(a: Claim, b: Claim, anchor: frozenset[str]) -> bool:
    """Does ``b`` say something ``a`` names is gone?"""
    return any(any(w in a.content and w not in _GENERIC for w in words) for words in _removals(b, anchor))


def swapped(a: Claim, b: Claim, old: Sequence[Predicate], new: Sequence[Predicate]) -> bool:
    """Do ``a`` and ``b`` name different things in one role of the symbol (see the module docstring)?"""
    if _additive(b):
        return False
    dated = bool(b.when) or b.replacement
    named_a, named_b = _names(a), _names(b)
    said_new = {w for q in new if not q.negated for w in q.words}
    for p in old:
        if p.negated:
            continue
        for q in new:
            if q.negated or (q.purpose and not p.purpose) or not _conditions_meet(p, q):
                continue  # "uses SHA-256 for the cache key": another purpose, another thing
            for role in {r for r, _ in p.targets} & {r for r, _ in q.targets}:
                if _denied_target(a, p, role) or _denied_target(b, q, role):
                    continue  # "runs without gradients" names what it does not use
                np_, nq = _objects(p, role, named_a, dated), _objects(q, role, named_b, dated)
                if not np_ or not nq or stem(_target(p, role)) in said_new:
                    continue  # the newer still says the older thing in what the symbol does
                if any(stem(w) in said_new for w in np_ & named_a):
                    continue  # "the ElastiCache (redis engine) cluster": the older's name, said again beside another
                if any(stem(w) in a.content or w in a.tokens for w in nq):
                    continue
                if dated or (np_ & named_a) or (nq & named_b):
                    return True
    return False


def reversed_precedence(a: Claim, b: Claim, anchor: frozenset[str]) -> bool:
    """ "env vars override the file" / "file beats env": one side over the other, then the other way round."""
    for win_a, lose_a in _precedences(a, anchor):
        for win_b, lose_b in _precedences(b, anchor):
            if win_b & lose_a and lose_b & win_a:
                return True
    return False


# ---------------------------------------------------------------- reading


def _removals(c: Claim, anchor: frozenset[str]) -> list[set[str]]:
    """The topic stems of each thing ``c`` says is gone."""
    tokens = c.tokens
    out: list[set[str]] = []
    for i, t in enumerate(tokens):
        if c.in_example(i):
            continue
        before = [j for j in range(i - 1, -1, -1) if c.clause[j] == c.clause[i] and tokens[j] != PUNCT]
        after = [j for j in range(i + 1, len(tokens)) if c.clause[j] == c.clause[i] and tokens[j] != PUNCT]
        # past an article: "X is a leftover", "no longer a dependency"
        lead = before[1:] if before and tokens[before[0]] in ("a", "an") else before
        state = t in _REMOVED_STATES and bool(lead) and tokens[lead[0]] in _PRESENT_COPULAS | _PAST_AUXILIARIES
        event = t in _REMOVED_EVENTS and bool(before) and tokens[before[0]] in _PAST_AUXILIARIES
        no_longer = (
            t in _NO_LONGER_STATES
            and bool(lead)
            and (
                tokens[lead[0]] in ("not", "isn't", "aren't", "never")
                or [tokens[j] for j in lead[:2]] == ["longer", "no"]
            )
        )  # "localStorage is not used", "X is no longer used", "requests is no longer a dependency"
        telegraphic = (
            t in _REMOVED_EVENTS
            and bool(before)
            and _topic_word(tokens[before[0]])
            and (not after or tokens[after[0]] in ("out", "in", "since", "after", "as", "with", "now", "entirely"))
        )
        if state or event or no_longer or telegraphic:
            out.append({x for j in before for x in _things(c, anchor, j)})
            continue
        for phrase in _REMOVED_BEFORE:
            k = len(phrase)
            subject = not before or tokens[before[0]] in ("and", "so", "we") or mention(tokens[before[0]], anchor)[0]
            if tuple(tokens[i : i + k]) == phrase and subject:  # "Mailer moved off Sendgrid to Postmark"
                rest = after[k - 1 :]
                out.append({x for j in rest[: SIDE_WORDS + 1] for x in _things(c, anchor, j)})
    return [w for w in out if w]


def _thing(c: Claim, anchor: frozenset[str], j: int) -> str:
    t = c.tokens[j]
    if not _topic_word(t) or mention(t, anchor)[0]:
        return ""
    s = stem(t)
    return s if s in c.content else ""


def _things(c: Claim, anchor: frozenset[str], j: int) -> set[str]:
    """What a word names as gone: its stem, and for a file or dotted name the tool or thing it is named
    after ("webpack.config.js is unused": webpack's config, so webpack)."""
    out = {x} if (x := _thing(c, anchor, j)) else set()
    parts = _NAME_PARTS_RE.split(c.tokens[j])
    if len(parts) > 1 and not mention(c.tokens[j], anchor)[0]:
        out.update(s for p in parts if _topic_word(p) and (s := stem(p)) in c.content and s not in _GENERIC)
    return out


def _topic_word(token: str) -> bool:
    return token != PUNCT and token not in STOPWORDS and token not in TOPIC_STOPWORDS and token not in PREPOSITIONS


def _target(p: Predicate, role: Role) -> str:
    return next(t for r, t in p.targets if r == role)


def _objects(p: Predicate, role: Role, named: frozenset[str], dated: bool) -> frozenset[str]:
    """What a predicate names in one role: the role's object ("uses bcrypt", "writes to kafka") and the
    names among its objects; a copula's complement only if it is a name ("is argon2id", not "is lazy"), or
    a thing in a change said as one ("is a pydantic model now")."""
    target = _target(p, role)
    if "=" in target:
        return frozenset()  # "uses pool_size=10": a setting's value (quantities' business), not a thing used
    out = {w for w in p.raw if (stem(w) in p.objects or w == p.raw[0]) and w in named and "=" not in w}
    if p.located:
        return frozenset({*out, p.raw[0]})  # "has been on elasticsearch", "lives in Redis"
    if p.identity:
        return frozenset({*out, target}) if dated and p.noun_phrase else frozenset(out)
    return frozenset({*out, target})


def _denied_target(c: Claim, p: Predicate, role: Role) -> bool:
    """The role's object comes right after a negation ("runs without gradients", "uses no pool")."""
    target = _target(p, role)
    at = next((i for i, w in zip(p.positions, p.raw, strict=True) if w == target), -1)
    while at > 0 and c.tokens[at - 1] in _ARTICLES:
        at -= 1  # "without a cache"
    return at > 0 and c.tokens[at - 1] in NEGATORS


def _names(c: Claim) -> frozenset[str]:
    """Tokens that name a thing: code-like (a digit, ``.``, ``_``, ``/``, ``=``) or capitalised where written."""
    capitalised = {m.group(1).lower() for m in _CAPITALISED_RE.finditer(_without_sentence_starts(c.raw))}
    out = set()
    for i, t in enumerate(c.tokens):
        if t == PUNCT:
            continue
        if any(ch.isdigit() for ch in t) or any(ch in t for ch in "._/=+:") or t in capitalised:
            out.add(t)
        elif c.tokens[i + 1 : i + 4] == _UNDER_THE_HOOD:
            out.add(t)  # "is zap under the hood": what it is built on, lowercase or not
        elif any(tuple(c.tokens[max(0, i - len(p)) : i]) == p for p in _BUILT_ON):
            out.add(t)  # "a thin wrapper around logrus", "built on top of sqlite": the same, said before it
    return frozenset(out)


def _without_sentence_starts(raw: str) -> str:
    """The text with each sentence's first word lower-cased ("Redis is …" says nothing by its capital)."""
    return re.sub(r"(^|[.!?:;]\s+)([A-Z])([a-z])", lambda m: m.group(1) + m.group(2).lower() + m.group(3), raw)


def _additive(c: Claim) -> bool:
    if any(t in _ADDITIVE for t in c.tokens):
        return True
    return any(tuple(c.tokens[i : i + 2]) in _ADDITIVE_PHRASES for i in range(len(c.tokens) - 1))


def _precedences(c: Claim, anchor: frozenset[str]) -> list[tuple[set[str], set[str]]]:
    """(what wins, what loses) per precedence ``c`` states ("A overrides B", "B is overridden by A")."""
    tokens = c.tokens
    out: list[tuple[set[str], set[str]]] = []
    for i, t in enumerate(tokens):
        if stem(t) not in _DOMINANCE or c.in_example(i):
            continue
        same = c.clause[i]
        left = [j for j in range(i - 1, -1, -1) if c.clause[j] == same and tokens[j] not in _DOMINANCE_FILLER]
        right = [j for j in range(i + 1, len(tokens)) if c.clause[j] == same and tokens[j] not in _DOMINANCE_FILLER]
        passive = bool(left) and tokens[left[0]] in _PRESENT_COPULAS | _PAST_AUXILIARIES and "by" in tokens[i : i + 3]
        lw = {x for j in left[: SIDE_WORDS + (1 if passive else 0)] if (x := _thing(c, anchor, j))}
        rw = {x for j in right[: SIDE_WORDS + 1] if (x := _thing(c, anchor, j))}
        if lw and rw:
            out.append((rw, lw) if passive else (lw, rw))
    return out
