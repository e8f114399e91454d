"""What a lesson says its anchored symbol does: the predicates of its clauses about the symbol. No I/O.

The detector is only ever asked about two memories on one place, so the place is what both talk about;
where both say what the symbol *does*, the predicate is the slot they share, however differently the
rest is worded ("save() commits the txn itself" / "UserRepo.save does not commit, the caller owns the
transaction"). A predicate is read from one clause (``forewarn.memory.claims`` splits them):

- its subject is the symbol: a mention of it ("UserRepo.save", "the pool", "User#email match", "CI test
  job": the symbol's words and at most two others before the verb), "it"/"this", or nothing where the
  text starts with what the symbol does ("inserts only; …", "max 1000 entries, evicts oldest") or a
  bare mention came first ("LoadConfig: file beats env"); an imperative ("don't call …") is advice to
  the reader, and "those are retried" is about something else;
- a passive clause about something else is the symbol acting on that thing ("unknown fields are
  ignored", "order NOT preserved", "exp is not checked"), and "shuffle is off" says it does not shuffle;
- the predicate: its polarity (a "not", "never", "no longer" before its first content word, or
  "nothing … is"), its head (that word; "skips signature verification" and "refuses to overwrite" are
  negated predicates of what they skip), its objects (the content words after it) and its condition
  ("on empty string", "for every valid input", an adjacent "when …"/"if …" clause), whether it is a
  caveat ("only if", "except", "unless", "only for") or exclusive ("only validates on submit");
- its roles: what a role verb or a copula names and in which role (``Role``): "uses bcrypt", "is
  argon2id" (means), "reads ~/.toolrc" (source), "pushes to the RabbitMQ exchange" (destination: a
  place after "to"), "returns UUIDv7" (output), several where prepositions add them ("copies to S3
  with aws cli").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache

from forewarn.memory import opposites
from forewarn.memory.claims import (
    NEGATORS,
    PUNCT,
    TOPIC_STOPWORDS,
    Claim,
    irregular_forms,
    is_number,
    set_aside,
    stem,
)
from forewarn.memory.text import STOPWORDS


class Role(StrEnum):
    """What a role verb's object is to the symbol ("uses bcrypt", "reads ~/.toolrc", "pushes to RabbitMQ")."""

    MEANS = "means"  # what it uses, runs on, goes through, is
    SOURCE = "source"  # where it reads from
    DESTINATION = "destination"  # where it writes, sends, stores
    OUTPUT = "output"  # what it hands back


_ROLE_VERBS: dict[str, Role] = {
    stem(w): role
    for role, words in (
        (Role.MEANS, "use uses using run runs go goes call calls talk talks hit hits wrap wraps depend depends rely "
                     "relies connect connects back backed build builds built bundle bundles hash hashes sign signs "
                     "encrypt encrypts compress compresses serialize serializes render renders power powered host "
                     "hosted sit sits switch switches switched move moves moved migrate migrates migrated"),
        (Role.OUTPUT, "return returns hand hands yield yields give gives generate generates"),
        (Role.SOURCE, "read reads load loads come comes pull pulls fetch fetches"),
        (Role.DESTINATION, "write writes push pushes send sends publish publishes post posts produce produces log "
                           "logs queue queues deploy deploys ship ships persist persists store stores stored live "
                           "lives point points put puts copy copies copied deliver delivers delivered upload uploads "
                           "route routes routed forward forwards"),
    )
    for w in words.split()
}  # fmt: skip
ROLE_VERBS = frozenset(_ROLE_VERBS)
# a destination verb names a place only with one of these after it ("writes to kafka"; "writes json logs" names
# what it writes)
_TO_PLACES = frozenset(("to", "into", "in", "onto", "on"))
_MEANS_PREPOSITIONS = frozenset(("via", "through", "with", "using"))
# after a role verb, these name another role of the same predicate: "copies to S3 with aws cli"
_PREPOSITION_ROLES = {
    "to": Role.DESTINATION, "into": Role.DESTINATION, "onto": Role.DESTINATION, "via": Role.MEANS,
    "through": Role.MEANS, "with": Role.MEANS, "using": Role.MEANS, "from": Role.SOURCE,
}  # fmt: skip
# "switched to X", "moved to X" (replacement phrases, so not topic words): X is what it uses now
_CHANGED_TO = frozenset(("switched", "switch", "switches", "moved", "moves", "migrated", "migrates"))
_SOURCE_FILES = (".py", ".ts", ".js", ".go", ".rs", ".rb", ".java", ".tsx", ".jsx", ".c", ".h", ".cpp")
# a copula before one of these makes a role: "has been on elasticsearch", "lives in Redis", "is behind nginx"
_LOCATIVE = frozenset(("on", "in", "behind", "via", "through"))
# verbs the search stop words drop that are predicates here: "uses bcrypt", "calls the OpenAI endpoint"
_VERBS_KEPT = frozenset(("use", "uses", "using", "call", "calls"))

PREDICATE_CACHE = 512  # (claim, anchor) pairs, cached like forewarn.memory.claims.read
CONDITION_PREFIX_REACH = 5  # "on cache miss RedisCache.get falls through": the mention this far into the clause
MIN_MENTION_ROOT = 4  # "rout(es)" names Router: the shorter word at least this long
SUBJECT_EXTRA_WORDS = 2  # "User#email match", "jwt claims": the symbol's words and this many others
SHORT_CLAUSE = 3  # "…, read-only": a clause this short after one about the symbol says more of it
HEAD_WORDS = 2  # "is thread safe", "does a hard delete": the first this many content words are its head

# polarity: these before the head deny the predicate ("skips", "ignores" are heads of their own here)
POLARITY = frozenset(
    (
        "not", "never", "no", "cannot", "can't", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't",
        "weren't", "won't", "wouldn't", "shouldn't", "mustn't", "needn't", "hasn't", "haven't", "couldn't",
    )
)  # fmt: skip
# a subject ends where one of these starts the predicate ("orders queue visibility timeout is 30s")
_MARKERS = (POLARITY - {"no"}) | frozenset(
    (
        "is", "are", "was", "were", "be", "been", "being", "does", "do", "did", "has", "have", "had", "will",
        "would", "can", "could", "should", "must", "may", "might", "shall", "gets", "got",
    )
)  # fmt: skip
_COPULAS = frozenset(("is", "are", "was", "were", "be", "been", "being", "gets", "get", "got"))
# a clause that starts with these is advice to the reader ("don't call …", "never pass …", "avoid …")
_IMPERATIVE = frozenset(("don't", "do", "never", "avoid", "please", "make"))
# "skips X", "bypasses X": the symbol does not do X
_SKIPPING = frozenset(
    ("skip", "skips", "skipped", "bypass", "bypasses", "bypassed", "omit", "omits", "omitted", "avoid", "avoids",
     "refuse", "refuses", "refused", "decline", "declines", "declined", "neglect", "neglects", "forget", "forgets")
)  # fmt: skip
# "ignores", "skips", "swallows" are verbs with a head of their own in a predicate, not its polarity
_NEGATING_VERBS = NEGATORS - POLARITY - frozenset(
    ("nothing", "nobody", "none", "neither", "nor", "without", "nowhere", "except", "dont", "doesnt", "isnt", "cant",
     "wont", "shouldnt", "mustnt")
)  # fmt: skip
# words between the subject and the head that say how, not what
_SKIPPED = frozenset(
    (
        "also", "just", "only", "still", "always", "now", "already", "really", "actually", "even", "itself",
        "longer", "more", "simply", "happily", "silently", "quietly", "then", "currently", "basically", "all",
        "a", "an", "the", "its", "their", "to", "by", "default", "usually", "normally", "typically", "ever",
        "anymore", "either", "both", "too",
    )
)  # fmt: skip
_PRONOUNS = frozenset(("it", "this"))
_OF = frozenset(("of", "in", "inside", "from", "for", "within", "by", "on"))
_NEGATING_SUBJECTS = frozenset(("nothing", "none", "nobody", "neither"))
# "<feature> is off": the symbol does not do it (True: negated)
_SWITCHES = {"off": True, "disabled": True, "on": False, "enabled": False}
_OTHERS = frozenset(("those", "these", "they", "them", "we", "you", "he", "she", "i"))
# "rolls back" / "no rollback", "sets up" / "setup": a verb and its particle are one word
_PARTICLES = frozenset(("up", "down", "back", "out", "off", "over", "in"))
_DETERMINERS = frozenset(
    ("the", "a", "an", "its", "their", "our", "your", "his", "her", "each", "every", "any", "some", "these", "those")
)
_LEADING = frozenset(("and", "so", "but", "then", "also", "plus", "however", "though", "instead", "now", "note"))
# a clause they start is a relative clause or a reason: about something else
_NOT_SUBJECTS = frozenset(("which", "that", "who", "because", "whereas", "while", "although", "they", "we", "you"))
# a clause they start states when, for the neighbouring predicate (forewarn.memory.claims splits there)
_CONDITION_CLAUSES = frozenset(("when", "if", "whenever", "until", "once"))
# they start a condition inside a clause: "raises ValueError on an empty string", "returns None for every id"
_CONDITION_PREPOSITIONS = frozenset(
    ("on", "for", "when", "if", "whenever", "during", "under", "upon", "after", "before", "once", "while", "until")
)
# caveats: the predicate holds only in a case ("only if", "except when …", "unless …", "only for GET")
_CAVEATS = frozenset(("except", "unless", "provided", "caveat"))
_ONLY_CASES = frozenset(("if", "when", "for", "on", "in", "with", "applies", "within"))
# "one exception: /logout accepts …", "the only exception is …": words before "exception" that announce a
# case the rule leaves out (an exception raised is none: "raises an exception", "no exception")
_EXCEPTION_ANNOUNCED = frozenset(("1", "one", "only", "single", "sole", "notable", "known", "small"))
# prepositions and function words that are not what a predicate is about
PREPOSITIONS = frozenset(
    (
        "through", "via", "across", "over", "between", "within", "without", "about", "after", "before", "per",
        "against", "along", "around", "onto", "towards", "toward", "upon", "among", "behind", "beside", "up",
        "down", "out", "off", "back", "away", "here", "there", "again", "right", "then",
    )
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Predicate:
    """What one clause says the anchored symbol does (see the module docstring)."""

    clause: int
    positions: tuple[int, ...]  # token positions of its content words, head first
    words: tuple[str, ...]  # their stems, in order
    raw: tuple[str, ...]  # the same words as written
    negated: bool
    passive: bool  # "X is not checked" about something other than the symbol
    objects: frozenset[str]  # stems after the head, before any condition (a passive's: its subject)
    condition: frozenset[str]  # stems of its condition ("on empty string", an adjacent "when …" clause)
    restricted: bool  # a caveat: "only if", "except", "unless", "only for"
    named_subject: bool  # the symbol is named or pointed at ("it"), not implied
    copular: bool = False  # "is argon2id": the head is what the symbol is
    located: bool = False  # "has been on elasticsearch", "is in Redis": a copula and a preposition of place
    phrasal: str = ""  # the head with its particle, as one word: "rolls back" → "rollback", "sets up" → "setup"
    role: Role | None = None  # a role verb's ("uses", "reads", "writes to") or a copula's: what its object is
    target: str = ""  # the role's object as written ("bcrypt", "stdout")
    identity: bool = False  # the target is a copula's complement: a name ("is argon2id") or a property ("is lazy")
    targets: tuple[tuple[Role, str], ...] = ()  # every role it names: "copies to S3 with aws cli"
    purpose: bool = False  # its condition says what for ("uses SHA-256 for the cache key")
    noun_phrase: bool = False  # a copula's complement after an article: a thing ("is a pydantic model")
    exclusive: bool = False  # "only validates the signature", "only validates on submit": that and nothing else

    @property
    def head(self) -> str:
        return self.words[0]

    @property
    def heads(self) -> tuple[str, ...]:
        return self.words[:HEAD_WORDS]


def mention(token: str, anchor: frozenset[str]) -> tuple[bool, int]:
    """Does ``token`` name the anchored symbol (any of its words), and how many other words it carries."""
    if not anchor or token == PUNCT:
        return False, 0
    if stem(token) in anchor or token in anchor:
        return True, 0
    if token.isalpha() and any(_same_root(stem(token), a) for a in anchor):
        return True, 0  # "routes" for Router, "embeddings" for load_embeddings
    parts = [p for p in re.split(r"[-._/#+]", token) if p]
    if len(parts) < 2:
        return False, 0
    hits = sum(1 for p in parts if stem(p) in anchor or p in anchor)
    if not any(ch in token for ch in "._/#"):  # "soft-deletes" is a word with a part of DeleteUser in it
        return hits == len(parts), 0
    last = parts[-1]  # "UserRepo.save", "cfg.Load" name the member; "chart.js", "s.mu" name something else
    return stem(last) in anchor or last in anchor, len(parts) - hits


def _same_root(a: str, b: str) -> bool:
    """ "rout(e)" / "router": one is the other and a short ending (the anchor's words are its own names)."""
    short, long = sorted((a, b), key=len)
    return len(short) >= MIN_MENTION_ROOT and long.startswith(short) and len(long) - len(short) <= 2


@lru_cache(maxsize=PREDICATE_CACHE)
def predicates(claim: Claim, anchor: frozenset[str]) -> tuple[Predicate, ...]:
    """The predicates ``claim`` states about the symbol whose words are ``anchor`` (examples left out)."""
    tokens = claim.tokens
    n_clauses = (claim.clause[-1] + 1) if claim.clause else 0
    spans: list[list[int]] = [[] for _ in range(n_clauses)]
    for i, t in enumerate(tokens):
        if t != PUNCT:
            spans[claim.clause[i]].append(i)
    kinds = [_clause_kind(tokens, span) for span in spans]
    for c, span in enumerate(spans):  # "if (!session) return …": a bare "if" whose condition is the next clause
        if kinds[c] == "condition" and len(span) == 1:
            after = next((k for k in range(c + 1, n_clauses) if spans[k]), None)
            if after is not None:
                kinds[after] = "condition"
    out: list[Predicate] = []
    about_anchor_before = False  # the previous clause with words was about the symbol
    bare_mention_before = False  # … and was nothing but its name ("LoadConfig: …")
    first = True
    for c, span in enumerate(spans):
        if not span:
            continue
        if kinds[c] != "main" or claim.example_from[c]:
            first = first and kinds[c] == "condition"
            about_anchor_before = bare_mention_before = False
            continue
        found = _read_clause(claim, anchor, c, span, implied=first or about_anchor_before or bare_mention_before)
        first = False
        if found is None:
            about_anchor_before = bare_mention_before = False
            continue
        read, bare = found
        bare_mention_before = bare
        about_anchor_before = any(not p.passive for p in read)
        out.extend(_with_neighbours(claim, p, spans, kinds, c) for p in read)
    return tuple(replace(p, negated=not p.negated) if set_aside(tokens, p.positions[0]) else p for p in out)


def _coordinated(tokens: Sequence[str], span: Sequence[int]) -> list[Sequence[int]]:
    """ "falls through to the db and backfills the key", "renames first and never fsyncs": one subject, two
    predicates (split where "and" is followed by a negation or a verb in -s)."""
    parts: list[Sequence[int]] = []
    start = 0
    for k in range(1, len(span) - 1):
        if tokens[span[k]] != "and":
            continue
        nxt = tokens[span[k + 1]]
        verb = nxt.endswith("s") and not nxt.endswith("ss") and len(nxt) > 3
        if nxt in POLARITY or nxt in _MARKERS or nxt in _PRONOUNS or verb:
            parts.append(span[start:k])
            start = k + 1
    parts.append(span[start:])
    return [p for p in parts if p]


def is_caveat(claim: Claim) -> bool:
    """Does the text state a case the rule does not cover ("except …", "unless …", "only if …", "caveat: …")?"""
    return bool(caveats_at(claim))


def caveats_at(claim: Claim) -> list[int]:
    """Where the text's caveats open: each "except", "unless", "provided", "caveat", an announced "exception" ("one
    exception:") and an "only" that names a case ("only if", "only for")."""
    tokens = claim.tokens
    return [
        i
        for i, t in enumerate(tokens)
        if t in _CAVEATS
        or (t == "exception" and i and tokens[i - 1] in _EXCEPTION_ANNOUNCED)
        or (t == "only" and tokens[i + 1 : i + 2] and tokens[i + 1] in _ONLY_CASES)
    ]


def _clause_kind(tokens: Sequence[str], span: Sequence[int]) -> str:
    if not span:
        return "empty"
    first = tokens[span[0]]
    if first in _CONDITION_CLAUSES or first == "unless":
        return "condition"
    if first in _NOT_SUBJECTS:
        return "other"
    return "main"


def _read_clause(
    claim: Claim, anchor: frozenset[str], c: int, span: Sequence[int], *, implied: bool
) -> tuple[list[Predicate], bool] | None:
    """The predicates of one clause and whether the clause is only the symbol's name; None if not about it."""
    tokens = claim.tokens
    dated = {i for start, end in claim.when for i in range(start, end)}
    k = 0
    while k < len(span) and (tokens[span[k]] in _LEADING or span[k] in dated):  # "as of the migration backup …"
        k += 1
    condition: set[str] = set()
    if k < len(span) and tokens[span[k]] in _CONDITION_PREPOSITIONS:
        window = range(k + 1, min(len(span), k + 1 + CONDITION_PREFIX_REACH))
        at = max((j for j in window if _names(tokens[span[j]], anchor)), default=None)  # its last mention
        if at is not None:  # "on cache miss RedisCache.get falls through …": the prefix says when
            condition.update(_content(claim, anchor, span[k + 1 : at]))
            k = at
    if k >= len(span):
        return None
    rest = span[k:]
    run = 0
    while run < len(rest) and (tokens[rest[run]] in _DETERMINERS or _names(tokens[rest[run]], anchor)):
        run += 1
    if not any(_names(tokens[i], anchor) for i in rest[:run]):
        run = 0  # "the orders queue …": an article alone names nothing
    if not run and tokens[rest[0]] in _PRONOUNS:
        run = 1
    marker = next((j for j, i in enumerate(rest) if _is_marker(tokens[i], anchor, tokens, i)), None)
    # "User#email match is …", "the orders queue visibility timeout is …"; "AtomicWrite renames first and never …"
    near = marker is not None and (not run or marker <= run + SUBJECT_EXTRA_WORDS)
    between = (
        run + 1 < len(rest)
        and not _verb_like(tokens[rest[run]])
        and not opposites.in_lexicon(tokens[rest[run]])  # "DeleteUser hard deletes": "hard" says how, not who
        and not _skipped(tokens[rest[run]])  # "Signup only validates"
        and _verb_like(tokens[rest[run + 1]])
    )
    if not near and run and between:
        run += 1  # "db fixture rolls back": the symbol's words and one more, then the verb
    elif not near and not run:  # "CI test job runs on Travis": a few words naming the symbol, then the verb
        verb = next((k for k in range(1, min(len(rest), SUBJECT_EXTRA_WORDS + 2)) if _verb_like(tokens[rest[k]])), 0)
        if verb and any(_names(tokens[i], anchor) for i in rest[:verb]):
            run = verb
    subject = rest[:marker] if near else rest[:run]
    predicate = rest[len(subject) :]
    if any(tokens[i] in _OTHERS for i in subject):
        return None  # "those are retried once …": about something named before, not the symbol
    words = [tokens[i] for i in subject if tokens[i] not in _DETERMINERS]
    named = bool(words) and _is_the_symbol(words, anchor)
    if not predicate:
        return ([], named) if named else None
    if not words:
        first = next((tokens[i] for i in predicate if not _skipped(tokens[i])), "")
        if first in _IMPERATIVE:
            return None  # "don't call session.commit() after", "never call it twice": advice to the reader
        short = len(predicate) <= SHORT_CLAUSE  # "…, read-only", "…, constant memory"
        if not implied or not (first in _MARKERS or first == "no" or _verb_like(first) or short):
            return None  # "environment override only applies …": a subject of its own, not the symbol's verb
    elif not named:
        switched = _switched(claim, anchor, c, predicate, subject)
        if switched is not None:
            return [switched], False
        passive = _passive(claim, anchor, c, predicate, subject, condition)
        return ([passive], False) if passive is not None else None
    parts = _coordinated(tokens, predicate)
    found = [_predicate(claim, anchor, c, part, condition, named=bool(words)) for part in parts]
    out = [p for p in found if p is not None]
    if any(tokens[i] in _NEGATING_SUBJECTS for i in subject):  # "nothing from the store is persisted"
        out = [replace(p, negated=not p.negated) for p in out]
    return out + [s for p in out if (s := _skipping(p)) is not None], False


def _skipping(p: Predicate) -> Predicate | None:
    """ "skips signature verification", "ignores the cache": the symbol does not do what it skips."""
    if p.raw[0] not in _SKIPPING or len(p.words) < 2 or p.words[1] not in p.objects:
        return None
    run = 1  # the noun phrase right after it; its last word is what is skipped ("signature verification")
    while run + 1 < len(p.positions) and p.positions[run + 1] == p.positions[run] + 1:
        run += 1
    order = [run, *range(1, run), *range(run + 1, len(p.words))]
    return replace(
        p,
        positions=tuple(p.positions[k] for k in order),
        words=tuple(p.words[k] for k in order),
        raw=tuple(p.raw[k] for k in order),
        negated=not p.negated,
        objects=frozenset(p.objects - {p.words[run]}),
        phrasal="",
        role=None,
    )


def _is_the_symbol(words: Sequence[str], anchor: frozenset[str]) -> bool:
    """A subject is the symbol: "it", or its words with at most ``SUBJECT_EXTRA_WORDS`` others."""
    if len(words) == 1 and words[0] in _PRONOUNS:
        return True
    hit, extra = False, 0
    for k, w in enumerate(words):
        named, others = mention(w, anchor)
        if named and k > 0 and words[k - 1] in _OF and words[0] not in _NEGATING_SUBJECTS:
            return False  # "the cursor in paginate" is about the cursor ("nothing from the store": the store)
        if named:
            hit = True
            extra += others
        elif w not in STOPWORDS and w not in TOPIC_STOPWORDS:
            extra += 1
    return hit and extra <= SUBJECT_EXTRA_WORDS


def _verb_like(token: str) -> bool:
    """A verb in the third person or a participle, as far as its ending tells ("evicts", "upserts", "moved")."""
    return (
        token in _MARKERS or (token.endswith("s") and not token.endswith("ss") and len(token) > 3) or _participle(token)
    )


def _names(token: str, anchor: frozenset[str]) -> bool:
    return mention(token, anchor)[0]


def _is_marker(token: str, anchor: frozenset[str], tokens: Sequence[str], i: int) -> bool:
    if token in _MARKERS and not _names(token, anchor):
        return True
    return token == "no" and i + 1 < len(tokens) and tokens[i + 1] == "longer"


def _predicate(
    claim: Claim, anchor: frozenset[str], c: int, span: Sequence[int], condition: set[str], *, named: bool
) -> Predicate | None:
    tokens = claim.tokens
    negations = 0
    j = 0
    skippable = POLARITY | _MARKERS | _PRONOUNS
    while j < len(span) and (tokens[span[j]] in skippable or _skipped(tokens[span[j]])):
        if tokens[span[j]] in POLARITY and not (tokens[span[j]] == "no" and _bound_after(tokens, span[j])):
            negations += 1
        j += 1
    found = _build(claim, anchor, c, span[j:], negations % 2 == 1, False, None, condition, named)
    if found is not None and "only" in (tokens[i] for i in span[:j]):
        found = replace(found, exclusive=True)  # "only validates the signature": nothing else
    if found is not None and any(tokens[i] in _COPULAS for i in span[:j]):
        located = j < len(span) and tokens[span[j]] in _LOCATIVE
        if found.role is not None:  # "is stored in Redis", "was moved to a celery task": the verb's role
            return replace(found, copular=True, located=located)
        target = found.raw[0]
        if _is_path(target):
            return replace(found, copular=True)  # "was moved to utils/time.py": where it lives, not what it is
        noun = found.positions[0] > 0 and tokens[found.positions[0] - 1] in ("a", "an", "the")  # "is a pydantic model"
        return replace(
            found, copular=True, located=located, role=Role.MEANS, target=target, identity=True,
            targets=((Role.MEANS, target),), noun_phrase=noun,
        )  # fmt: skip
    return found


def _switched(
    claim: Claim, anchor: frozenset[str], c: int, span: Sequence[int], subject: Sequence[int]
) -> Predicate | None:
    """ "shuffle is off", "caching is disabled", "retries are on": the symbol does (or not) what is switched."""
    tokens = claim.tokens
    words = [tokens[i] for i in span if tokens[i] not in _SKIPPED]
    if len(words) != 2 or words[0] not in _COPULAS or words[1] not in _SWITCHES:
        return None
    thing = [i for i in subject if _is_content(claim, anchor, i)]
    if not thing:
        return None
    return _build(claim, anchor, c, thing[-1:], _SWITCHES[words[1]], False, None, set(), False)


def _passive(
    claim: Claim, anchor: frozenset[str], c: int, span: Sequence[int], subject: Sequence[int], condition: set[str]
) -> Predicate | None:
    """ "unknown fields are ignored", "order NOT preserved": the symbol acting on the subject."""
    tokens = claim.tokens
    negations = 0
    j = 0
    while j < len(span) and (tokens[span[j]] in _MARKERS or _skipped(tokens[span[j]])):
        negations += tokens[span[j]] in POLARITY
        j += 1
    body = span[j:]
    if not body or not _participle(tokens[body[0]]):
        return None
    objects = frozenset(_content(claim, anchor, subject))
    if not objects:
        return None
    return _build(claim, anchor, c, body, negations % 2 == 1, True, objects, condition, False)


def _build(
    claim: Claim,
    anchor: frozenset[str],
    c: int,
    body: Sequence[int],
    negated: bool,
    passive: bool,
    objects: frozenset[str] | None,
    condition: set[str],
    named: bool,
) -> Predicate | None:
    tokens = claim.tokens
    positions = [i for i in body if _is_content(claim, anchor, i)]
    if not positions:
        return None
    head_role = _ROLE_VERBS.get(stem(tokens[positions[0]]))

    def place(i: int) -> bool:  # "runs on i18next", "puts jobs on RQ": its object, not a condition
        return head_role is not None and (
            i == positions[0] + 1 or (head_role == Role.DESTINATION and tokens[i] == "on")
        )

    cut = next(
        (k for k, i in enumerate(body) if tokens[i] in _CONDITION_PREPOSITIONS and i > positions[0] and not place(i)),
        None,
    )
    main = body if cut is None else body[:cut]
    # the symbol's own words say nothing about which thing it acts on: every memory on it has them
    found_objects = {stem(tokens[i]) for i in main[1:] if i in positions and i != positions[0]} - anchor
    if cut is not None:
        condition = condition | (set(_content(claim, anchor, body[cut + 1 :])) - anchor)
    restricted = any(tokens[i] in _CAVEATS for i in body) or any(
        tokens[i] == "only" and k + 1 < len(body) and tokens[body[k + 1]] in _ONLY_CASES for k, i in enumerate(body)
    )
    after = positions[0] + 1
    particle = tokens[after] if after < len(tokens) and claim.clause[after] == c else ""
    targets = _role(claim, anchor, positions[0], main)
    moved = tokens[positions[0]]
    if any(tokens[i] in _CHANGED_TO for i in body if i < positions[0]) and not _is_path(moved):
        targets = ((Role.MEANS, moved),)  # "switched to RS256", "was moved to a celery task" (not "to utils/x.py")
    purpose = cut is not None and tokens[body[cut]] == "for"
    return Predicate(
        clause=c,
        positions=tuple(positions),
        words=tuple(stem(tokens[i]) for i in positions),
        raw=tuple(tokens[i] for i in positions),
        negated=negated,
        passive=passive,
        objects=objects if objects is not None else frozenset(found_objects),
        condition=frozenset(condition),
        restricted=restricted,
        named_subject=named,
        phrasal=stem(tokens[positions[0]]) + particle if particle in _PARTICLES else "",
        role=targets[0][0] if targets else None,
        target=targets[0][1] if targets else "",
        targets=targets,
        purpose=purpose,
    )


def _role(claim: Claim, anchor: frozenset[str], head: int, main: Sequence[int]) -> tuple[tuple[Role, str], ...]:
    """What roles the predicate gives what it names, each with its object, the verb's own first: "uses
    bcrypt", "reads ~/.toolrc", "returns UUIDv7"; "writes json logs to stdout" → stdout (a destination verb
    names a place after "to"); "copies to S3 with aws cli" → S3, and aws as its means; "delivers through
    SES" → SES as its means."""
    tokens = claim.tokens
    role = _ROLE_VERBS.get(stem(tokens[head]))
    after = [i for i in main if i > head]
    out: list[tuple[Role, str]] = []
    if role is not None:
        if role == Role.DESTINATION:
            place = next((k for k, i in enumerate(after) if tokens[i] in _TO_PLACES), None)
            means = next((k for k, i in enumerate(after) if tokens[i] in _MEANS_PREPOSITIONS), None)
            role = Role.DESTINATION if place is not None else Role.MEANS if means is not None else None
            start = place if place is not None else means
            rest = after[start + 1 :] if start is not None else []
        else:
            rest = after
        target = next((tokens[i] for i in rest if _is_content(claim, anchor, i)), "")
        if role == Role.MEANS and "/" in target:
            role = None  # "moved to utils/time.py": where the code lives, not what it uses
        if role is not None and target:
            out.append((role, target))
    if not out:
        return ()
    for k, i in enumerate(after):  # "… to S3 with aws cli": each preposition of place or means adds its role
        found = _PREPOSITION_ROLES.get(tokens[i])
        if found is None or any(r == found for r, _ in out):
            continue
        target = next((tokens[j] for j in after[k + 1 :] if _is_content(claim, anchor, j)), "")
        if target:
            out.append((found, target))
    return tuple(out)


def _is_path(token: str) -> bool:
    return "/" in token or token.endswith(_SOURCE_FILES)


def _with_neighbours(
    claim: Claim, p: Predicate, spans: Sequence[Sequence[int]], kinds: Sequence[str], c: int
) -> Predicate:
    """An adjacent "when …"/"if …"/"unless …" clause is the predicate's condition (a caveat for "unless")."""
    condition = set(p.condition)
    restricted = p.restricted
    for n in (c - 1, c + 1):
        while 0 <= n < len(spans) and not spans[n]:
            n += -1 if n < c else 1
        if not (0 <= n < len(spans)) or kinds[n] != "condition":
            continue
        span = spans[n]
        condition.update(stem(claim.tokens[i]) for i in span[1:] if stem(claim.tokens[i]) in claim.content)
        restricted = restricted or claim.tokens[span[0]] == "unless" or _caveat_before(claim, span[0])
    return replace(p, condition=frozenset(condition), restricted=restricted)


def _caveat_before(claim: Claim, at: int) -> bool:
    """ "except when …", "only if …": the word before a condition clause makes it a caveat."""
    before = [t for t in claim.tokens[max(0, at - 2) : at] if t != PUNCT]
    return bool(before) and before[-1] in ("except", "only", "but")


def _content(claim: Claim, anchor: frozenset[str], span: Sequence[int]) -> list[str]:
    return [stem(claim.tokens[i]) for i in span if _is_content(claim, anchor, i)]


def _is_content(claim: Claim, anchor: frozenset[str], i: int) -> bool:
    t = claim.tokens[i]
    if t in _VERBS_KEPT:
        return not _names(t, anchor)
    if t == PUNCT or t in STOPWORDS or t in TOPIC_STOPWORDS or t in PREPOSITIONS or t in POLARITY:
        return False
    if is_number(t) or t in _SKIPPED or t in _CAVEATS:
        return False
    if _names(t, anchor):  # the symbol's own words say what it does after its subject: "with_retry retries"
        return t.replace("-", "").isalpha() and i > 0 and not _names(claim.tokens[i - 1], anchor)
    if "-" in t and any(stem(part) in claim.content for part in t.split("-")):
        return True  # "case-insensitive": the claim's topic holds its parts
    return stem(t) in claim.content or t in _NEGATING_VERBS  # "ignores", "skips": verbs here


def _skipped(token: str) -> bool:
    return token in _SKIPPED


def _bound_after(tokens: Sequence[str], at: int) -> bool:
    """ "no more than": a bound, not a denial."""
    return tokens[at + 1 : at + 3] in (("more", "than"), ("less", "than"), ("fewer", "than"))


_PARTICIPLES = irregular_forms()


def _participle(token: str) -> bool:
    return (token.endswith("ed") and len(token) > 4) or token in _PARTICIPLES
