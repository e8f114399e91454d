"""A lesson read as a claim: its words in clauses, what it negates, and what it says changed. No I/O.

The contradiction detector (``forewarn.memory.contradictions``) compares two claims about the same code.
Reading is plain English mechanics, the same for every lesson:

- tokens: words, identifiers and numbers, lower case; number words are digits ("three" → 3, "twice" →
  2 times, "half an hour" → 0.5 hour), and a capitalised ``None``/``True``/``False`` is the literal;
- clauses: punctuation and the conjunctions that start another thought ("but", "because", "so"…)
  end one; a negation reaches to the end of its clause and no further;
- negation scopes: the topic words a "not", "never", "no longer", "without"… denies;
- change markers: "no longer", "used to", "instead of", "switched to", "now", "as of v3", "since the
  migration", "starting with 1.8": the text says what held before does not hold any more;
- examples: a clause after "e.g.", "for example", "such as" illustrates; its numbers are not claims.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from forewarn.memory import shorthand
from forewarn.memory.text import STOPWORDS, split_identifier

STEM_CACHE = 1 << 14  # distinct words seen; a few MB at most
READ_CACHE = 512  # texts: the new one and a place's memories, judged pairwise
_TOKEN_RE = re.compile(
    r"(?P<num>[0-9]+(?:[.:,][0-9]+)*[a-zµ%]*)"
    r"|(?P<word>[a-z_][a-z0-9_']*(?:[-.=/+&][a-z0-9_']+)*)"
    r"|(?P<punct>[;:,!?()\[\]]|\.(?=\s|$)|[—–]|\s--?\s)"
)
# a number in scientific notation ("3e-4", "1.5e6"), read as the decimal it is
_SCIENTIFIC_RE = re.compile(r"(?<![\w.])[0-9]+(?:\.[0-9]+)?e[-+]?[0-9]{1,2}(?![\w.])", re.IGNORECASE)
# a calendar date ("2024-03-10", "03/04/2025", "on 3/2") is a name of a day, not numbers: read as one word
_DATE_RE = re.compile(
    r"(?<![\w./-])([0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{1,2}/[0-9]{1,2}/(?:[0-9]{4}|[0-9]{2}))(?=[tT][0-9]|[^\w/-]|$)"
)
_DAY_RE = re.compile(r"\b((?:on|since|until|till|before|after|by) )([0-9]{1,2}/[0-9]{1,2})(?![\w/]|\.[0-9])", re.I)
_CURRENCIES = {"$": "usd", "€": "eur", "£": "gbp"}
_CURRENCY_RE = re.compile(r"([$€£])\s?([0-9]+(?:[.,][0-9]+)*)(?![0-9])")
PUNCT = "|"  # every clause-ending punctuation mark reads as this token
# words that start another thought: what comes after says something else (a negation stops here)
_CLAUSE_WORDS = frozenset(
    ("but", "because", "so", "while", "whereas", "although", "though", "unless", "which", "instead", "however", "then")
)
# a clause they start states a condition: a negation there says when, not what ("raises when nothing is queued")
_CONDITION_WORDS = frozenset(("when", "if", "whenever", "unless", "until"))
_NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "fifteen": "15", "twenty": "20",
    "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "ninety": "90", "hundred": "100",
    "thousand": "1000", "million": "1000000", "dozen": "12", "single": "1",
}  # fmt: skip
_BEFORE_PRONOUN_ONE = frozenset(
    ("each", "every", "the", "this", "that", "which", "any", "no", "another", "last", "first", "next", "only", "new")
)
_QUANTIFIERS = frozenset(("any", "every", "each", "no"))  # before "single" they say each one, not one
_AFTER_PRONOUN_ONE = frozenset(("that", "which", "who", "of", "another", PUNCT))
_MULTIPLES = {"twice": ("2", "times"), "thrice": ("3", "times")}
_FRACTIONS = {"half": "0.5", "quarter": "0.25"}
# a capitalised literal in running text is the code value, not the English word ("returns None")
_LITERALS = {"None": "null", "True": "true", "False": "false", "Null": "null", "NULL": "null"}

NEGATORS = frozenset(
    (
        "not", "never", "no", "cannot", "can't", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't",
        "weren't", "won't", "wouldn't", "shouldn't", "mustn't", "needn't", "hasn't", "haven't", "couldn't",
        "dont", "doesnt", "isnt", "cant", "wont", "shouldnt", "mustnt", "nothing", "nobody", "none", "neither",
        "nor", "without", "nowhere", "avoid", "stopped", "except", "skip", "skips", "skipped", "ignore", "ignores",
        "ignored", "omit", "omits", "omitted", "swallow", "swallows", "swallowed",
    )
)  # fmt: skip
SUBJECT_WORDS = 2  # "nested atomic blocks are not supported": the words before the copula it also denies
_COPULAS = frozenset(("is", "are", "was", "were", "be", "been", "being"))
_COPULAR_NEGATIONS = frozenset(("isn't", "aren't", "wasn't", "weren't", "isnt", "arent"))
_MODALS = frozenset(("can", "may", "must", "could"))
_IMPERATIVE_NEGATIONS = frozenset(("never", "don't", "dont"))  # opening a clause: an order not to do it
_NEGATED_MODALS = frozenset(("cannot", "can't", "cant", "mustn't", "mustnt", "couldn't"))
_NEGATING_PRONOUNS = frozenset(("nothing", "nobody", "none", "nowhere", "neither", "nor"))
# verbs a negation reaches through to what they govern: "doesn't guarantee order" denies the order
_TRANSPARENT = frozenset(
    (
        "guarantee", "guarantees", "ensure", "ensures", "promise", "promises", "try", "tries", "attempt", "attempts",
        "bother", "manage", "manages", "seem", "seems", "appear", "appears", "happen", "happens", "able", "going",
        "supposed", "allowed", "meant", "expected", "run", "runs", "ran", "happen", "happens", "occur", "occurs",
        "work", "works", "go", "goes", "longer", "more", "any", "touch", "touches", "involve", "involves", "perform",
        "performs",
    )
)  # fmt: skip
# "no more than 5" is a bound, not a denial (forewarn.memory.quantities reads it)
_BOUND_NEGATIONS = frozenset(("more", "less", "fewer", "longer", "shorter", "later", "earlier", "greater", "larger"))

# the newer text says something took the place of what the older one describes
_REPLACEMENT_PHRASES = (
    "instead of", "rather than", "switched to", "switch to", "switched from", "moved to", "migrated to",
    "was replaced", "were replaced", "replaced by", "replaced with", "replacing", "is gone", "are gone",
    "in favour of", "in favor of", "has been removed", "was removed", "were removed", "was dropped",
)  # fmt: skip
# these name what is replaced right after them ("instead of pickle"): it must be what the older text says
_REPLACED_AFTER = ("instead of", "rather than")
_SET_ASIDE = frozenset(tuple(p.split()) for p in _REPLACED_AFTER)
# the newer text puts the older state in the past
_DETERMINERS = frozenset(("the", "a", "an", "this", "that", "its", "their", "each", "every", "any", "our", "your"))
_PAST_PHRASES = ("used to", "previously", "formerly", "in the past", "until recently", "originally")
# a change said by negating ("no longer needs"): a replacement only against a text that was not negated
_NEGATED_CHANGE_PHRASES = ("no longer", "stopped", "anymore", "any more", "not any longer")
# when: "now", "as of v3", "since the migration", "starting with 1.8", "from 2.0 on"; with no other cue they
# say something changed only where the rest of the text says something else about the same thing
_NOW_WORDS = frozenset(("now", "nowadays", "currently", "today"))
_NOW_PHRASES = ("these days", "from now on", "going forward", "by now", "at this point")
MAX_DATING_WORDS = 6  # "as of the 2024 security review": a date runs this far at most, or to punctuation
# these date what follows whatever it names ("as of the security review")
_ALWAYS_DATING = ("as of", "starting with", "starting from", "beginning with")
_SINCE_WORDS = (
    "as of", "since", "starting with", "starting from", "starting in", "beginning with", "from", "after", "in",
)  # fmt: skip
# of them, the words that also place a thing: after them "route53" is a name, not a release like "v3"
_PLACE_OR_TIME = frozenset(("in", "from"))
# what "since …"/"after …" must name to be a point in time rather than a reason ("since it holds the lock")
_EVENT_WORDS = frozenset(
    (
        "migration", "upgrade", "rewrite", "refactor", "refactoring", "release", "switch", "move", "redesign",
        "cutover", "rollout", "update", "change", "fix", "patch", "version", "incident", "outage", "merge", "review",
        "audit", "deploy", "deployment", "launch", "rework", "overhaul", "cleanup",
    )
)  # fmt: skip
# "since March", "as of September": a month is a point in time ("may" is a modal verb far more often)
_MONTHS = frozenset(
    (
        "january", "february", "march", "april", "june", "july", "august", "september", "october", "november",
        "december", "jan", "feb", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    )
)  # fmt: skip
# "now also …": something added, not something reversed
# "in 0.5 s" is a duration, not a release
_AFTER_VERSION_UNITS = frozenset(
    ("s", "ms", "sec", "second", "seconds", "min", "minutes", "h", "hours", "mb", "kb", "%")
)
_ADDITIVE_WORDS = frozenset(
    ("also", "too", "additionally", "still", "both")
)  # not "again": "attaches it again now" reverts
_ADDITIVE_PHRASES = ("as well", "in addition")
# "only dev/test still run it inline": "still" after "only" (this many tokens back) says what is left, not more
REMAINDER_REACH = 3
_EXAMPLE_PHRASES = ("e.g", "eg", "for example", "for instance", "such as", "say")

# words too common to say two texts are about the same thing (beyond the search stop words)
TOPIC_STOPWORDS = frozenset(
    (
        "must", "may", "might", "need", "needs", "also", "only", "just", "every", "each", "any", "all", "always",
        "now", "still", "even", "one", "ones", "it's", "after", "before", "use", "uses", "used", "using", "call",
        "called", "calls", "calling", "get", "gets", "getting", "make", "makes", "making", "let", "lets", "default",
        "defaults", "by", "whole",
        "way", "thing", "things", "there's", "its", "itself", "own", "anything", "something", "everything",
        "again", "else", "otherwise", "very", "really", "actually", "about", "around", "up", "out", "per",
        "once", "does", "done", "did", "doing", "has", "have", "had", "being", "been", "same", "too", "itself",
        "them", "they're", "you're", "we're", "want", "wants", "fine", "ok", "okay", "during",
    )
)  # fmt: skip


_DISTRIBUTIVE = frozenset(("per", "each", "every", "any", "all"))  # "per-epoch", "all-or-nothing": no topic


@dataclass(frozen=True, slots=True)
class Claim:
    """One lesson, read (see the module docstring)."""

    raw: str
    tokens: tuple[str, ...]  # words, identifiers and numbers in order, punctuation as PUNCT
    clause: tuple[int, ...]  # the clause number of each token
    content: frozenset[str]  # stems of the words that say what it is about (not the anchor's, not cue words)
    words: frozenset[str]  # every plain word (no identifiers)
    negated: tuple[int, ...]  # token positions of the negations that count
    reaches: tuple[tuple[int, ...], ...]  # per negation: the token positions it denies
    scopes: tuple[frozenset[str], ...]  # per negation: the topic stems at those positions
    heads: tuple[frozenset[str], ...]  # per negation: the first topic word it denies (what it is about)
    replacement: bool
    replaced: frozenset[str]  # topic stems named after "instead of" / "rather than": what was replaced
    past: frozenset[str]  # topic stems of the clauses that say "used to …" / "previously …"
    negated_change: bool
    when: tuple[tuple[int, int], ...]  # token spans of "now", "as of v3", "since the migration"…
    additive: bool
    example_from: tuple[int, ...]  # per clause: is it an example (1) or a claim (0)

    def in_example(self, position: int) -> bool:
        return bool(self.example_from[self.clause[position]])


_IRREGULAR = {
    "sent": "send", "kept": "keep", "held": "hold", "made": "make", "written": "write", "wrote": "write",
    "ran": "run", "took": "take", "taken": "take", "gave": "give", "given": "give", "got": "get", "gotten": "get",
    "left": "leave", "lost": "lose", "built": "build", "found": "find", "threw": "throw", "thrown": "throw",
    "chose": "choose", "chosen": "choose", "broke": "break", "broken": "break", "began": "begin", "begun": "begin",
    "brought": "bring", "caught": "catch", "fed": "feed", "led": "lead", "meant": "mean", "paid": "pay",
    "said": "say", "sold": "sell", "spent": "spend", "stood": "stand", "told": "tell", "thought": "think",
    "bound": "bind", "drew": "draw", "drawn": "draw", "fell": "fall", "fallen": "fall", "forgot": "forget",
    "forgotten": "forget", "froze": "freeze", "frozen": "freeze", "hid": "hide", "hidden": "hide", "hung": "hang",
    "knew": "know", "known": "know", "rose": "rise", "risen": "rise", "saw": "see", "seen": "see",
    "shown": "show", "slept": "sleep", "spoke": "speak", "spoken": "speak", "stole": "steal", "stolen": "steal",
    "struck": "strike", "tore": "tear", "torn": "tear", "wore": "wear", "worn": "wear", "woke": "wake",
    "done": "do", "did": "do", "went": "go", "gone": "go", "won": "win", "dealt": "deal", "split": "split",
    "children": "child", "indices": "index", "indexes": "index", "data": "data", "caches": "cache",
}  # fmt: skip


def irregular_forms() -> frozenset[str]:
    """Irregular past forms and participles ("kept", "written", "sent"): a verb's, whatever its ending."""
    return frozenset(w for w, base in _IRREGULAR.items() if w != base)


@lru_cache(maxsize=STEM_CACHE)
def stem(word: str) -> str:
    """A crude stem: enough for "retries"/"retry", "releases"/"release", "streams"/"streaming", "sent"/"sends"."""
    w = word.strip("'")
    if w in _IRREGULAR:
        w = _IRREGULAR[w]
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("ically") and len(w) > 8:
        return w[:-4]  # "atomically" → "atomic"
    if w.endswith("ly") and len(w) > 5 and not w.endswith("ply"):  # "insensitively" → "insensitive" → …
        root = w[:-2]
        return stem(root[:-1] + "y" if root.endswith("i") else root)  # "lazily" → "lazy"
    if w.endswith("icity") and len(w) > 8:
        return w[:-3]  # "atomicity" → "atomic", "elasticity" → "elastic"
    if w.endswith("ency") and len(w) > 8:
        return w[:-2] + "t"  # "idempotency" → "idempotent", "consistency" → "consistent"
    for suffix in ("izations", "ization", "isations", "isation"):  # "virtualization"/"virtualizes"
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)] + suffix[:2]
    if w.endswith(("age", "ages")) and len(w.rstrip("s")) - 3 >= 4:
        return w.rstrip("s")[:-3]  # "leakage" → "leak", "coverage" → "cover", "storage" → "stor"
    for suffix in ("tions", "tion"):  # "concatenation"/"concatenating", "connection"/"connect"
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            return w[: -len(suffix) + 1]
    for suffix in ("ing", "ed", "es", "s", "e", "ly"):
        if suffix == "s" and w.endswith("ss"):
            continue  # "process", "access", "class" (their plurals lose "es")
        if w.endswith(suffix) and len(w) - len(suffix) >= (4 if suffix == "ing" else 3):
            root = w[: -len(suffix)]
            if suffix in ("ing", "ed") and len(root) > 3 and root[-1] == root[-2] and root[-1] not in "lsz":
                root = root[:-1]  # "logging" → "log", "committed" → "commit"
            return root
    return w


_EVENT_STEMS = frozenset(stem(w) for w in _EVENT_WORDS)
# what a prohibition denies besides its act: "X is safe during business hours" / "never run X during business hours"
ALLOWED = frozenset(stem(w) for w in ("allowed", "permitted", "ok", "fine", "safe"))


def is_identifier(token: str) -> bool:
    return "_" in token.strip("_") or ("." in token and not token[0].isdigit())


def is_number(token: str) -> bool:
    return token[:1].isdigit()


def anchor_words(symbol: str | None) -> frozenset[str]:
    """The words of the anchored symbol: every memory on it names them, so they say nothing about topic."""
    if not symbol:
        return frozenset()
    out: set[str] = set()
    for part in re.split(r"[.:#]", symbol):
        if not part or part.isdigit():
            continue
        out.add(stem(part.lower()))
        for p in split_identifier(part):
            out.add(stem(p))
            out.update(stem(w) for w in shorthand.ABBREVIATIONS.get(p, "").split())  # "UserRepo": repository
    return frozenset(out)


@lru_cache(maxsize=READ_CACHE)
def read(text: str, anchor: frozenset[str] = frozenset()) -> Claim:
    """``text`` read as a claim about the place whose words are ``anchor`` (cached: remember reads the new
    text once per memory it is judged against)."""
    tokens = _tokens(text)
    clause = _clauses(tokens)
    joined = " " + " ".join(tokens) + " "
    example = _examples(tokens, clause)
    # cue words in an example ("e.g. a file from Monday is gone by Saturday") illustrate; they claim nothing
    spans = {
        p: [i for i in _phrase_positions(tokens, p) if not example[clause[i]]]
        for p in (*_REPLACEMENT_PHRASES, *_PAST_PHRASES, *_NEGATED_CHANGE_PHRASES)
    }
    negations = tuple(i for i in _negations(tokens, anchor) if not example[clause[i]])
    # "they are not replaced by values" says nothing was replaced
    replacement = any(
        not any(n < i and clause[n] == clause[i] for n in negations) for p in _REPLACEMENT_PHRASES for i in spans[p]
    )
    negated_change = any(spans[p] for p in _NEGATED_CHANGE_PHRASES)
    when = tuple((i, e) for i, e in _when_spans(tokens) if not example[clause[i]])
    cue_positions = {i for p, found in spans.items() for s in found for i in range(s, s + len(p.split()))}
    cue_positions |= {i for s, e in when for i in range(s, e)}
    topic = [_topic(t, anchor) if i not in cue_positions else frozenset() for i, t in enumerate(tokens)]
    conditions = {clause[i] for i, t in enumerate(tokens) if t in _CONDITION_WORDS}
    negated = tuple(i for i in negations if clause[i] not in conditions)
    reaches = tuple(_reach(tokens, clause, topic, i) for i in negated)
    scopes = tuple(frozenset(x for j in r for x in topic[j]) for r in reaches)
    heads = tuple(_head(tokens, clause, topic, i) | _prohibition(tokens, i) for i in negated)
    replaced: set[str] = set()
    for p in _REPLACED_AFTER:
        for s in spans[p]:
            end = s + len(p.split())
            replaced.update(
                x for j in range(end, len(tokens)) if end < len(tokens) and clause[j] == clause[end] for x in topic[j]
            )
    past: set[str] = set()
    for p in _PAST_PHRASES:
        for s in spans[p]:
            past.update(x for j in range(s, len(tokens)) if clause[j] == clause[s] for x in topic[j])
    words = {t for t in tokens if t != PUNCT and not is_identifier(t)}
    return Claim(
        raw=text,
        tokens=tokens,
        clause=clause,
        content=frozenset(x for ts in topic for x in ts),
        words=frozenset(words),
        negated=negated,
        reaches=reaches,
        scopes=scopes,
        heads=heads,
        replacement=replacement,
        replaced=frozenset(replaced),
        past=frozenset(past),
        negated_change=negated_change,
        when=when,
        additive=any(w in _ADDITIVE_WORDS and not _remainder(tokens, i) for i, w in enumerate(tokens))
        or any(f" {p} " in joined for p in _ADDITIVE_PHRASES),
        example_from=example,
    )


def noun_only(claim: Claim) -> frozenset[str]:
    """Topic stems the text only says as nouns: each time after an article or a determiner ("the commit")."""
    noun: set[str] = set()
    other: set[str] = set()
    for i, t in enumerate(claim.tokens):
        s = stem(t)
        if s not in claim.content:
            continue
        (noun if i > 0 and claim.tokens[i - 1] in _DETERMINERS else other).add(s)
    return frozenset(noun - other)


def topic_overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """How much two topic sets share: the overlap coefficient (0..1), 0 when either is empty."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


# ---------------------------------------------------------------- tokens and clauses


def _tokens(text: str) -> tuple[str, ...]:
    raw = shorthand.rewrite(" ".join(text.replace("’", "'").replace("`", " ").split()))
    for literal, value in _LITERALS.items():
        raw = re.sub(rf"(?<![A-Za-z_.]){literal}(?![A-Za-z_])", value, raw)
    raw = _SCIENTIFIC_RE.sub(lambda m: f"{float(m.group(0)):.12f}".rstrip("0").rstrip("."), raw)  # "3e-4"
    raw = _DATE_RE.sub(lambda m: _day(m.group(1)), raw)  # a date names a day: no amount
    raw = _DAY_RE.sub(lambda m: m.group(1) + _day(m.group(2)), raw)
    raw = _CURRENCY_RE.sub(lambda m: m.group(2) + _CURRENCIES[m.group(1)], raw)  # "$5" reads as "5usd"
    words = shorthand.expand(
        [PUNCT if m.group("punct") else m.group(0) for m in _TOKEN_RE.finditer(" " + raw.lower() + " ")]
    )
    out: list[str] = []
    for i, w in enumerate(words):
        if w in _MULTIPLES:
            out.extend(_MULTIPLES[w])
        elif w == "single" and out and out[-1] in _QUANTIFIERS:
            out.append(w)  # "any single charge", "every single call": emphasis on each, not a count of one
        elif w == "zero" and words[i + 1 : i + 2] and words[i + 1].endswith("ing"):
            out.append("no")  # "zero shuffling", "zero copying": the act denied, not a count of it
        elif w in _NUMBER_WORDS and not _pronoun_one(w, out, words[i + 1 : i + 2]):
            out.append(_NUMBER_WORDS[w])
        else:
            out.append(w)
    return tuple(_fractions(out))


def _day(date: str) -> str:
    """A date as one word ("2024-03-10" → "d2024_03_10")."""
    return "d" + "_".join(re.findall(r"[0-9]+", date))


def _pronoun_one(word: str, before: Sequence[str], after: Sequence[str]) -> bool:
    """ "each one", "the last one", "no one", "one that…": a pronoun, not the number 1."""
    if word != "one":
        return False
    return (bool(before) and before[-1] in _BEFORE_PRONOUN_ONE) or (bool(after) and after[0] in _AFTER_PRONOUN_ONE)


# "a full day", "a whole week": the word only stresses the one unit it stands before
_INTENSIFIERS = frozenset(("full", "whole", "entire", "solid", "good"))
_WHOLE_UNITS = frozenset(("second", "minute", "hour", "day", "week", "month", "year"))


def _fractions(tokens: list[str]) -> list[str]:
    """ "half a second" → 0.5 second; "a quarter of an hour" → 0.25 hour; "a 12" (from "a dozen") → 12."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        nxt = tokens[i + 1 : i + 4]
        if t in _FRACTIONS and nxt[:1] and nxt[0] in ("a", "an"):
            out.append(_FRACTIONS[t])
            i += 2
            continue
        if t in ("a", "an") and nxt[:1] and nxt[0] in _FRACTIONS and nxt[1:3] in (["of", "a"], ["of", "an"]):
            out.append(_FRACTIONS[nxt[0]])
            i += 4
            continue
        if t in ("a", "an") and nxt[1:2] and nxt[0] in _INTENSIFIERS and nxt[1].rstrip("s") in _WHOLE_UNITS:
            out.append(t)
            i += 2  # "a full day", "an entire hour": a day, an hour
            continue
        if t in ("a", "an") and nxt[:1] and is_number(nxt[0]):
            i += 1  # "a 12 eggs" was "a dozen eggs"
            continue
        out.append(t)
        i += 1
    return out


def _clauses(tokens: Sequence[str]) -> tuple[int, ...]:
    out: list[int] = []
    n = 0
    for t in tokens:
        if t == PUNCT or t in _CLAUSE_WORDS or t in _CONDITION_WORDS:
            n += 1
        out.append(n)
    return tuple(out)


def _phrase_positions(tokens: Sequence[str], phrase: str) -> list[int]:
    words = tuple(phrase.split())
    if words[0] not in tokens:
        return []
    k = len(words)
    return [i for i, t in enumerate(tokens) if t == words[0] and tuple(tokens[i : i + k]) == words]


def topic_of(token: str) -> frozenset[str]:
    """The topic stems one token says, read without an anchor ("soft-deleted": soft, delet)."""
    return _topic(token, frozenset())


def _topic(token: str, anchor: frozenset[str]) -> frozenset[str]:
    """The topic stems one token contributes: none for stop words, cue words and the anchor's own words."""
    if token == PUNCT or token in STOPWORDS or token in TOPIC_STOPWORDS or token in NEGATORS:
        return frozenset()
    s = stem(token)
    if s in anchor or token in anchor:
        return frozenset()
    # an identifier is a name (kept whole) and words; a hyphenated word ("single-threaded") only its words
    out = {s} if is_identifier(token) or "-" not in token else set()
    if "=" in token and token[0].isalpha():  # "seed=42" is about the seed
        key = token.partition("=")[0]
        out.add(stem(key))
    if is_identifier(token) or "-" in token:
        for part in re.split(r"[-.=/+_]", token):
            ps = stem(part)
            # "per-epoch" is about epochs: a distributive part says how often, not what about
            if len(part) > 1 and part not in STOPWORDS and part not in _DISTRIBUTIVE and ps not in anchor:
                out.add(ps)
    return frozenset(out or {s})


def _negations(tokens: Sequence[str], anchor: frozenset[str]) -> tuple[int, ...]:
    out: list[int] = []
    for i, t in enumerate(tokens):
        if t not in NEGATORS or stem(t) in anchor:
            continue
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if t in ("no", "not") and after in _BOUND_NEGATIONS and tokens[i + 2 : i + 3] == ("than",):
            continue  # "no more than": a bound
        if t == "no" and after == "longer" and i > 0 and tokens[i - 1] == "not":
            continue  # "not … no longer": one negation said twice
        if t == "no" and is_number(after):
            continue  # "no two users share a salt": a count ("none of two"), not a denial
        out.append(i)
    return tuple(out)


def _reach(tokens: Sequence[str], clause: Sequence[int], topic: Sequence[frozenset[str]], at: int) -> tuple[int, ...]:
    """The token positions a negation denies: the rest of its clause up to an "and"; after a copula
    ("blocks are not supported") the clause's subject too; "except" turns its whole clause around."""
    same = [j for j in range(len(tokens)) if clause[j] == clause[at] and j != at]
    if tokens[at] == "except":
        return tuple(same)
    out: list[int] = []
    for j in same:
        if j < at:
            continue
        if tokens[j] == "and":
            break  # "swallows the error and returns None": the second predicate is not denied
        out.append(j)
    if (at > 0 and tokens[at - 1] in _COPULAS) or tokens[at] in _COPULAR_NEGATIONS:
        subject = [j for j in reversed(same) if j < at and topic[j]][:SUBJECT_WORDS]
        out.extend(subject)
    return tuple(sorted(out))


def _head(tokens: Sequence[str], clause: Sequence[int], topic: Sequence[frozenset[str]], at: int) -> frozenset[str]:
    """The first topic word after the negation at ``at`` in its clause (through "guarantee", "try"…);
    for a pronoun with nothing after it ("… is read by nobody"), the nearest one before."""
    for j in range(at + 1, len(tokens)):
        if clause[j] != clause[at] or tokens[j] == "and":
            break  # "swallows it and returns None" denies nothing about returning (as its reach ends there)
        if topic[j] and tokens[j] not in _TRANSPARENT and not is_number(tokens[j]):
            if tokens[at] == "no" and j == at + 1:  # "no table locks": the noun it denies is the whole compound's
                k = j + 1
                while k < len(tokens) and clause[k] == clause[at] and topic[k] and not is_number(tokens[k]):
                    k += 1
                return frozenset().union(*topic[j:k])
            return topic[j]  # "no longer runs on one thread" denies the thread, not the 1
    if tokens[at] not in _NEGATING_PRONOUNS:
        return frozenset()
    for j in range(at - 1, -1, -1):
        if clause[j] != clause[at]:
            break
        if topic[j]:
            return topic[j]
    return frozenset()


def _prohibition(tokens: Sequence[str], at: int) -> frozenset[str]:
    """ "cannot", "can no longer", "may not", "must not": a negated modal forbids, so it also denies "allowed"."""
    if tokens[at] in _NEGATED_MODALS or (at > 0 and tokens[at - 1] in _MODALS):
        return ALLOWED
    if imperative(tokens, at):
        return ALLOWED  # "never run it during business hours", "don't call it twice": an order not to
    return frozenset()


def imperative(tokens: Sequence[str], at: int) -> bool:
    """The negation at ``at`` opens its clause as an order ("never run it …", "don't share it", "do not …")."""
    if tokens[at] in _IMPERATIVE_NEGATIONS:
        return at == 0 or tokens[at - 1] == PUNCT
    return tokens[at] == "not" and at > 0 and tokens[at - 1] == "do" and (at == 1 or tokens[at - 2] == PUNCT)


def _when_spans(tokens: Sequence[str]) -> tuple[tuple[int, int], ...]:
    """Where the text dates what it says: "now", "as of v3", "since the migration", "starting with 1.8"."""
    spans: list[tuple[int, int]] = [(i, i + 1) for i, t in enumerate(tokens) if t in _NOW_WORDS]
    for phrase in _NOW_PHRASES:
        k = len(phrase.split())
        spans.extend((i, i + k) for i in _phrase_positions(tokens, phrase))
    for phrase in _ALWAYS_DATING:
        for i in _phrase_positions(tokens, phrase):
            spans.append((i, _dating_end(tokens, i + len(phrase.split()))))
    for phrase in _SINCE_WORDS:
        k = len(phrase.split())
        for i in _phrase_positions(tokens, phrase):
            j = i + k
            if tokens[j : j + 1] and tokens[j] in ("the", "a", "our", "this"):
                j += 1  # "since the 2.0 release", "after the migration"
                if not any(_is_event(t) for t in tokens[j : j + 2]):
                    continue
            elif phrase in _PLACE_OR_TIME and tokens[j : j + 1] and _is_product(tokens[j]):
                continue  # "managed in Route53", "stored in S3", "from EC2": a place named with a digit
            elif not (tokens[j : j + 1] and (_is_version(tokens[j]) or tokens[j] in _MONTHS)) or (
                tokens[j + 1 : j + 2] and tokens[j + 1] in _AFTER_VERSION_UNITS
            ):
                continue
            end = j
            while end < len(tokens) and (_is_version(tokens[end]) or _is_event(tokens[end])):
                end += 1
            if end < len(tokens) and tokens[end] in ("on", "onwards", "onward"):
                end += 1
            spans.append((i, max(end, j + 1)))
    return tuple(sorted(set(spans)))


def _dating_end(tokens: Sequence[str], start: int) -> int:
    """Where "as of …" ends: after its version or event word, else at punctuation, else after one word."""
    window = range(start, min(len(tokens), start + MAX_DATING_WORDS))
    for j in window:
        if _is_version(tokens[j]) or _is_event(tokens[j]):
            end = j + 1
            while end < len(tokens) and _is_event(tokens[end]):
                end += 1
            return end
        if tokens[j] == PUNCT:
            return j
    skip = 1 if start < len(tokens) and tokens[start] in ("the", "a", "this") else 0
    return min(len(tokens), start + 1 + skip)


def _is_event(token: str) -> bool:
    return stem(token) in _EVENT_STEMS


def _is_product(token: str) -> bool:
    """ "route53", "s3", "ec2", "k8s": letters around digits, not "v3" or "python3.11"."""
    return bool(re.fullmatch(r"[a-z]+[0-9]+[a-z0-9]*", token)) and not re.fullmatch(r"v[0-9]+", token)


def _is_version(token: str) -> bool:
    """ "v3", "3.0", "2.4.1", "1.8", "python3" (not a plain count: "since 5" is no version)."""
    return bool(re.fullmatch(r"v[0-9]+(?:\.[0-9]+)*|[0-9]+\.[0-9]+(?:\.[0-9]+)*|[a-z]+[0-9]+(?:\.[0-9]+)*", token))


def _examples(tokens: Sequence[str], clause: Sequence[int]) -> tuple[int, ...]:
    """Per clause, 1 where it illustrates ("e.g. …", "for example …", "such as …") rather than claims.

    An example runs from its marker to the end of the text: lessons put them last.
    """
    n = (clause[-1] + 1) if clause else 0
    first = n
    for phrase in _EXAMPLE_PHRASES:
        for i in _phrase_positions(tokens, phrase):
            if phrase == "say" and not (i > 0 and tokens[i - 1] == PUNCT):
                continue  # "say" only as ", say, 5 MB"
            first = min(first, clause[i])
    return tuple(int(c >= first) for c in range(n))


def set_aside(tokens: Sequence[str], at: int) -> bool:
    """The word at ``at`` comes right after "instead of" / "rather than": what the text says does not happen
    ("returns at once instead of waiting": it does not wait)."""
    return at >= 2 and (tokens[at - 2], tokens[at - 1]) in _SET_ASIDE


def _remainder(tokens: Sequence[str], at: int) -> bool:
    """ "only dev/test still run it": a "still" right after "only …" names the rest left behind, adding nothing."""
    before = tokens[max(0, at - REMAINDER_REACH) : at]
    return tokens[at] == "still" and "only" in before and PUNCT not in before[before.index("only") :]
