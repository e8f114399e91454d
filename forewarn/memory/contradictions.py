"""Does a new memory contradict one already on the same place? Pure text judgement, no I/O.

Two lessons about one symbol conflict when they talk about the same thing (their words overlap, or
their vectors are close when the engine has them) and one says the opposite of the other. "The
opposite" is read from cues, each a named rule:

- ``negation``: one side is negated and the other is not ("not", "never", "no longer", "don't"…);
  two negations cancel, and so does a negation beside an antonym ("never call it outside a
  transaction" restates "it must run inside a transaction").
- ``replacement``: the newer text says something took the place of what the older one describes
  ("instead of", "rather than", "switched to", "replaced", "is gone").
- ``value``: the same sentence with a different number, unit, name or literal in it ("the timeout
  is 30 seconds" / "… 10 seconds"); equal quantities in other units ("5 minutes" / "300 seconds")
  are no change.
- ``antonym``: a word on one side whose opposite is on the other (sync/async, enabled/disabled,
  before/after, secure/insecure…).

Elaborations, other aspects of the same function and restatements carry no cue, or carry one
while sharing too few words: they never fire. The thresholds were set on
``tests/memory/data/contradictions.tsv``; ``contradictions_heldout.tsv`` was written after and never
tuned on (bench/contradiction_bench.py measures both).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from forewarn.memory.text import STOPWORDS, split_identifier

# how much two texts must share (overlap coefficient of their content words, 0..1) for a cue to count
NEGATION_MIN_OVERLAP = 0.5  # a negated sentence about different words is another aspect, not a denial
REPLACEMENT_MIN_OVERLAP = 0.34  # "X now uses B instead of A" names A, so one shared word in three is enough
ANTONYM_MIN_OVERLAP = 0.5  # the antonyms count as one shared word; the rest must meet as much as for negation
# "the same sentence frame": token similarity (difflib ratio) of the two texts, and how long a differing
# stretch may be on each side for it still to be one value swapped for another
FRAME_MIN_RATIO = 0.7
FRAME_MIN_RATIO_WITH_VALUE = 0.5  # a differing number or literal is evidence enough at a looser frame
FRAME_MAX_CHANGE = 3
# with vectors: this close in meaning stands in for word overlap (MiniLM cosine; same-symbol
# lessons on other aspects sit around 0.4-0.7; contradicting ones around 0.8-0.9)
VECTOR_SIMILAR = 0.8
# "now" alone says little ("now returns UTC"): it is a replacement cue only at this much overlap
WEAK_REPLACEMENT_MIN_OVERLAP = 0.6

CUE_NEGATION = "negation"
CUE_REPLACEMENT = "replacement"
CUE_VALUE = "value"
CUE_ANTONYM = "antonym"

_TOKEN_RE = re.compile(r"[0-9]+(?:[.:,][0-9]+)*[a-z%]*|[a-z_][a-z0-9_']*(?:[-.=/+][a-z0-9_']+)*")
_NEGATION_PHRASES = (
    "no longer", "rather not", "not any", "nothing", "neither", "nor",
)  # fmt: skip
_NEGATION_WORDS = frozenset(
    (
        "not", "never", "no", "cannot", "can't", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't",
        "weren't", "won't", "wouldn't", "shouldn't", "mustn't", "needn't", "hasn't", "haven't", "couldn't",
        "dont", "doesnt", "isnt", "cant", "wont", "shouldnt", "mustnt", "stopped", "nothing",
    )
)  # fmt: skip
_REPLACEMENT_PHRASES = (
    "instead of", "instead", "rather than", "switched to", "switch to", "switched from", "moved to", "migrated to",
    "was replaced", "were replaced", "replaced by", "replaced with", "replacing", "is gone", "are gone",
    "in favour of", "in favor of", "deprecated in favour",
)  # fmt: skip
# a change said by negating ("no longer needs"): a replacement only against a text that was not negated
_NEGATED_CHANGE_PHRASES = ("no longer", "stopped", "anymore", "any more")
_WEAK_REPLACEMENT_WORDS = frozenset(("now", "nowadays"))
# the replacement phrases' own words say nothing about what is replaced
_REPLACEMENT_WORDS = frozenset(
    w
    for p in (*_REPLACEMENT_PHRASES, *_NEGATED_CHANGE_PHRASES)
    for w in p.split()
    if w not in STOPWORDS and w not in ("favour", "favor")
)
# each family's words mean the same; a word of one family is the antonym of the other family's
_ANTONYMS: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(a.split()), frozenset(b.split()))
    for a, b in (
        ("sync synchronous synchronously", "async asynchronous asynchronously"),
        ("enable enabled enables", "disable disabled disables"),
        ("allow allowed allows permitted", "deny denied denies forbid forbidden forbids disallowed"),
        ("required mandatory must", "optional"),
        ("public", "private"),
        ("lazy lazily", "eager eagerly"),
        ("ascending", "descending"),
        ("deterministic", "random nondeterministic"),
        ("before", "after"),
        ("include includes included including", "exclude excludes excluded excluding"),
        ("exact exactly", "approximate approximately"),
        ("deprecated", "supported recommended"),
        ("parallel concurrently", "sequential sequentially serially"),
        ("true", "false"),
        ("accept accepts accepted", "reject rejects rejected"),
        ("inside within", "outside"),
        ("first", "last"),
        ("minimum min", "maximum max"),
        ("increase increases", "decrease decreases"),
        ("encrypted", "unencrypted plaintext"),
        ("strict", "lenient loose"),
        ("local", "remote"),
        ("uppercase upper", "lowercase lower"),
        ("more", "less fewer"),
        ("higher", "lower"),
        ("forever indefinitely unlimited infinite", "most limited capped"),
        ("on", "off"),
        ("read-only readonly", "read-write writable"),
    )
)
# words too common to say two texts are about the same thing (beyond the search stop words)
_SIMILARITY_STOPWORDS = frozenset(
    (
        "must", "may", "might", "need", "needs", "also", "only", "just", "every", "each", "any", "all", "always",
        "now", "still", "even", "one", "ones", "it's", "after", "before", "use", "uses", "used", "using", "call",
        "called", "calls", "get", "gets", "make", "makes", "let", "lets", "default", "by",
    )
)  # fmt: skip
_NEGATING_PREFIXES = ("non-", "non", "un", "in", "im", "ir", "il", "dis")
_UNITS: dict[str, tuple[str, float]] = {
    "ms": ("time", 0.001), "millisecond": ("time", 0.001), "milliseconds": ("time", 0.001),
    "s": ("time", 1.0), "sec": ("time", 1.0), "secs": ("time", 1.0), "second": ("time", 1.0),
    "seconds": ("time", 1.0), "min": ("time", 60.0), "mins": ("time", 60.0), "minute": ("time", 60.0),
    "minutes": ("time", 60.0), "h": ("time", 3600.0), "hr": ("time", 3600.0), "hour": ("time", 3600.0),
    "hours": ("time", 3600.0), "day": ("time", 86400.0), "days": ("time", 86400.0),
    "b": ("size", 1.0), "byte": ("size", 1.0), "bytes": ("size", 1.0), "kb": ("size", 1e3), "mb": ("size", 1e6),
    "gb": ("size", 1e9), "kib": ("size", 1024.0), "mib": ("size", 1024.0**2), "gib": ("size", 1024.0**3),
}  # fmt: skip
_NUMBER_RE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)([a-z%]*)$")
_FRAME_IGNORED = frozenset(("a", "an", "the"))


@dataclass(frozen=True, slots=True)
class Verdict:
    """Why two texts conflict: the cues that fired, how much their words overlap, their cosine if known."""

    cues: tuple[str, ...]
    overlap: float
    cosine: float | None = None


@dataclass(frozen=True, slots=True)
class _Text:
    raw: str
    tokens: tuple[str, ...]  # every token, lower case, in order
    words: frozenset[str]  # plain words (no identifiers), cue words included
    content: frozenset[str]  # stems of the words that say what it is about
    negations: int
    replacement: bool
    negated_change: bool
    weak_replacement: bool


def anchor_words(symbol: str | None) -> frozenset[str]:
    """The words of the anchored symbol: every memory on it names them, so they say nothing about topic."""
    if not symbol:
        return frozenset()
    out: set[str] = set()
    for part in re.split(r"[.:#]", symbol):
        if not part or part.isdigit():
            continue
        out.add(_stem(part.lower()))
        out.update(_stem(p) for p in split_identifier(part))
    return frozenset(out)


def judge(new: str, old: str, *, anchor: frozenset[str] = frozenset(), cosine: float | None = None) -> Verdict | None:
    """The reasons ``new`` contradicts ``old`` (both about the place whose words are ``anchor``), or None."""
    a = _read(old, anchor)
    b = _read(new, anchor)
    antonyms = _antonym_flips(a, b)
    overlap = _overlap(a, b, antonyms)
    similar = cosine is not None and cosine >= VECTOR_SIMILAR
    about_same = {
        CUE_NEGATION: overlap >= NEGATION_MIN_OVERLAP or similar,
        CUE_ANTONYM: overlap >= ANTONYM_MIN_OVERLAP or similar,
        CUE_REPLACEMENT: overlap >= REPLACEMENT_MIN_OVERLAP or similar,
    }
    polarity_differs = (a.negations + b.negations + antonyms) % 2 == 1
    negated_alone = (a.negations % 2) != (b.negations % 2)
    cues: list[str] = []
    if polarity_differs and negated_alone and about_same[CUE_NEGATION]:
        cues.append(CUE_NEGATION)
    if polarity_differs and antonyms and not negated_alone and about_same[CUE_ANTONYM]:
        cues.append(CUE_ANTONYM)
    weakly_replaced = b.weak_replacement and overlap >= WEAK_REPLACEMENT_MIN_OVERLAP and b.content != a.content
    replaced = b.replacement or (b.negated_change and polarity_differs)
    if (replaced and about_same[CUE_REPLACEMENT]) or weakly_replaced:
        cues.append(CUE_REPLACEMENT)
    if _value_changed(a, b):
        cues.append(CUE_VALUE)
    if not cues:
        return None
    return Verdict(tuple(dict.fromkeys(cues)), round(overlap, 3), cosine)


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
    names = {CUE_NEGATION: "negation", CUE_REPLACEMENT: "replacement", CUE_VALUE: "changed value"}
    return ", ".join(names.get(c, c) for c in cues)


# ---------------------------------------------------------------- reading a text


def _read(text: str, anchor: frozenset[str]) -> _Text:
    low = " " + " ".join(text.lower().replace("’", "'").split()) + " "
    tokens = tuple(_TOKEN_RE.findall(low))
    joined = " " + " ".join(tokens) + " "  # punctuation gone: "is gone;" ends a phrase like "is gone"
    plain = joined
    negations = 0
    for phrase in _NEGATION_PHRASES:
        if " " not in phrase:
            continue
        n = plain.count(f" {phrase} ")
        negations += n
        plain = plain.replace(f" {phrase} ", " ")
    words = [t for t in plain.split() if not _is_identifier(t)]
    words += [part for w in words if "-" in w for part in w.split("-")[1:] if len(part) > 3]  # case-insensitive
    negations += sum(1 for w in words if w in _NEGATION_WORDS and _stem(w) not in anchor)
    replacement = any(f" {p} " in joined for p in _REPLACEMENT_PHRASES)
    negated_change = any(f" {p} " in joined for p in _NEGATED_CHANGE_PHRASES)
    weak = any(w in _WEAK_REPLACEMENT_WORDS and _stem(w) not in anchor for w in words)
    cue_words = _NEGATION_WORDS | _WEAK_REPLACEMENT_WORDS | _REPLACEMENT_WORDS
    content: set[str] = set()
    for t in tokens:
        if t in STOPWORDS or t in _SIMILARITY_STOPWORDS or t in cue_words:
            continue
        stem = _stem(t)
        if stem in anchor or t in anchor:
            continue
        content.add(stem)
        if _is_identifier(t) or "-" in t:
            for part in re.split(r"[-.=/+_]", t):
                ps = _stem(part)
                if len(part) > 1 and part not in STOPWORDS and ps not in anchor:
                    content.add(ps)
    return _Text(text, tokens, frozenset(words), frozenset(content), negations, replacement, negated_change, weak)


def _is_identifier(token: str) -> bool:
    return "_" in token.strip("_") or ("." in token and not token[0].isdigit())


def _stem(word: str) -> str:
    """A crude stem: enough for "retries"/"retry", "releases"/"release", "streams"/"streaming"."""
    w = word.strip("'")
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    for suffix in ("ing", "ed", "es", "s", "e", "ly"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w


def _canonical(word: str) -> str | None:
    """The antonym family a word belongs to, as a shared token (both sides of a pair map to the same)."""
    for i, (left, right) in enumerate(_ANTONYMS):
        if word in left or word in right:
            return f"<antonym {i}>"
    return None


def _antonym_flips(a: _Text, b: _Text) -> int:
    """How many opposite pairs stand between the two texts (each flips their polarity once)."""
    flips = 0
    for left, right in _ANTONYMS:
        in_a_left, in_a_right = bool(a.words & left), bool(a.words & right)
        in_b_left, in_b_right = bool(b.words & left), bool(b.words & right)
        if (in_a_left and in_b_right and not in_a_right and not in_b_left) or (
            in_a_right and in_b_left and not in_a_left and not in_b_right
        ):
            if left == frozenset(("on",)) and not _frame_ratio(a, b) >= FRAME_MIN_RATIO:
                continue  # "on" is mostly a preposition: only a swapped word in one frame counts
            flips += 1
    for x, y in ((a, b), (b, a)):
        for w in y.words:
            root = _unprefixed(w)
            if root is not None and root in x.words and w not in x.words:
                flips += 1
    return flips


def _unprefixed(word: str) -> str | None:
    for prefix in _NEGATING_PREFIXES:
        if word.startswith(prefix) and len(word) - len(prefix) >= 4:
            return word[len(prefix) :].lstrip("-")
    return None


def _overlap(a: _Text, b: _Text, antonyms: int) -> float:
    ca, cb = set(a.content), set(b.content)
    if antonyms:  # opposite words are the same subject said two ways
        for words, content in ((a.words, ca), (b.words, cb)):
            for w in words:
                canon = _canonical(w)
                if canon is not None:
                    content.discard(_stem(w))
                    content.add(canon)
                root = _unprefixed(w)
                if root is not None:
                    content.discard(_stem(w))
                    content.add(_stem(root))
    if not ca or not cb:
        return 0.0
    return len(ca & cb) / min(len(ca), len(cb))


# ---------------------------------------------------------------- same frame, another value


def _frame_tokens(t: _Text) -> list[str]:
    return [x for x in t.tokens if x not in _FRAME_IGNORED and x not in _WEAK_REPLACEMENT_WORDS]


def _frame_ratio(a: _Text, b: _Text) -> float:
    return SequenceMatcher(None, _frame_tokens(a), _frame_tokens(b), autojunk=False).ratio()


def _value_changed(a: _Text, b: _Text) -> bool:
    """Same sentence, one short stretch different (a number, a unit, a name, a literal)."""
    ta, tb = _frame_tokens(a), _frame_tokens(b)
    matcher = SequenceMatcher(None, ta, tb, autojunk=False)
    ratio = matcher.ratio()
    if ratio < FRAME_MIN_RATIO_WITH_VALUE:
        return False
    changes = [(ta[i1:i2], tb[j1:j2]) for op, i1, i2, j1, j2 in matcher.get_opcodes() if op != "equal"]
    replaced = [(x, y) for x, y in changes if x and y]
    if not replaced or len(changes) > 2:
        return False
    if any(len(x) > FRAME_MAX_CHANGE or len(y) > FRAME_MAX_CHANGE for x, y in changes):
        return False
    for x, y in replaced:
        if _same_quantity(x, y) or all(t in STOPWORDS or t in _SIMILARITY_STOPWORDS for t in (*x, *y)):
            continue  # "5 minutes" for "300 seconds", "may" for "can": said another way
        valued = any(_is_value(t) for t in (*x, *y))
        if (ratio >= FRAME_MIN_RATIO or valued) and not set(x) & (_NEGATION_WORDS | _WEAK_REPLACEMENT_WORDS):
            return True
    return False


def _is_value(token: str) -> bool:
    return bool(_NUMBER_RE.match(token)) or any(c in token for c in "._=-/:") or token in ("true", "false")


def _quantity(tokens: Sequence[str]) -> tuple[str, float] | None:
    for i, t in enumerate(tokens):
        m = _NUMBER_RE.match(t)
        if m is None:
            continue
        unit = m.group(2) or (tokens[i + 1] if i + 1 < len(tokens) else "")
        if unit in _UNITS:
            dim, factor = _UNITS[unit]
            return dim, float(m.group(1)) * factor
    return None


def _same_quantity(x: Sequence[str], y: Sequence[str]) -> bool:
    qx, qy = _quantity(x), _quantity(y)
    return qx is not None and qy is not None and qx[0] == qy[0] and abs(qx[1] - qy[1]) <= 1e-9 * max(qx[1], 1.0)
