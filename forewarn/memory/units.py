"""The unit a value is given in, named without a number: "returns the voltage in millivolts" / "returns
centivolts". No I/O.

A lesson often says what unit a result, a field or a setting is in without stating an amount, and a later
one corrects it: millivolts became centivolts, an epoch in seconds became milliseconds. Two texts name one
unit at another scale when each names a unit word of one base (volts, seconds, bytes…) with another
decimal prefix ("milli", "centi", "kilo"… or none), neither text names the other's, and, the two unit
words read as one, they say much the same about it (another quantity's unit is another aspect). Units
beside a number are amounts, ``forewarn.memory.quantities``' business.
"""

from __future__ import annotations

from forewarn.memory.claims import PUNCT, Claim, is_number, stem, topic_overlap
from forewarn.memory.quantity_words import UNITS
from forewarn.memory.text import STOPWORDS

# the two texts, the units read as one word, share this much of their topic words (overlap coefficient):
# as much as a negation needs, so "the timeout is in seconds" / "the poll interval is in ms" stays quiet
UNIT_MIN_OVERLAP = 0.5

_PREFIXES = ("nano", "micro", "milli", "centi", "deci", "kilo", "mega", "giga", "tera")
_BASES = ("volt", "second", "meter", "metre", "amp", "ampere", "watt", "byte", "hertz", "gram", "liter", "litre", "ohm")
# a scale of the second in quantity_words.UNITS as its prefix here: minutes, hours and days are no decimal scale
_PREFIX_OF_SECONDS = {1e-9: "nano", 1e-6: "micro", 1e-3: "milli", 1.0: ""}
# a lone "s" is a unit after a number ("30 s") and a possessive or plural split off a word without one ("it's")
_NOT_UNIT_ALONE = frozenset(("s",))
# abbreviations written as words: (prefix, base); the second's (its full words too, read as _unit reads them) come
# from the amounts' units, one vocabulary
_ABBREVIATED = {
    **{
        word: (_PREFIX_OF_SECONDS[factor], "second")
        for word, (dimension, factor) in UNITS.items()
        if dimension == "time" and factor in _PREFIX_OF_SECONDS and word not in _NOT_UNIT_ALONE
    },
    "mv": ("milli", "volt"), "mw": ("milli", "watt"), "ma": ("milli", "amp"), "mhz": ("mega", "hertz"),
    "khz": ("kilo", "hertz"), "ghz": ("giga", "hertz"), "km": ("kilo", "meter"), "cm": ("centi", "meter"),
    "mm": ("milli", "meter"), "kb": ("kilo", "byte"), "mb": ("mega", "byte"), "gb": ("giga", "byte"),
}  # fmt: skip
_CANONICAL = "unit"  # the word both units are read as when the overlap is measured


def _unit(token: str) -> tuple[str, str] | None:
    """``token`` as (prefix, base) when it is a unit word: "millivolts" → ("milli", "volt")."""
    if token in _ABBREVIATED:
        return _ABBREVIATED[token]
    word = token[:-1] if token.endswith("s") else token
    for base in _BASES:
        if word.endswith(base):
            prefix = word[: -len(base)]
            if prefix == "" or prefix in _PREFIXES:
                return prefix, ("amp" if base == "ampere" else "meter" if base == "metre" else base)
    return None


def _named(c: Claim) -> dict[str, tuple[str, str]]:
    """The unit words ``c`` names with no number before them, by token."""
    return {
        t: u
        for i, t in enumerate(c.tokens)
        if (u := _unit(t)) is not None and not (i > 0 and is_number(c.tokens[i - 1])) and not c.in_example(i)
    }


def rescaled(a: Claim, b: Claim) -> bool:
    """Does ``b`` name, where ``a`` named a unit, the same base at another scale (see the module docstring)?"""
    old, new = _named(a), _named(b)
    for x, (px, base) in old.items():
        for y, (py, other) in new.items():
            if base != other or px == py or x in new or y in old:
                continue
            if _same_verb_before(a, x, b, y):
                return True  # "returns km" / "returns metres": one verb's object at another scale
            units = {stem(x), stem(y), x, y}
            ca = frozenset(_CANONICAL if w in units else w for w in a.content)
            cb = frozenset(_CANONICAL if w in units else w for w in b.content)
            if topic_overlap(ca, cb) >= UNIT_MIN_OVERLAP:
                return True
    return False


def _same_verb_before(a: Claim, x: str, b: Claim, y: str) -> bool:
    """The unit words stand right after one content word both texts say ("returns km" / "returns metres",
    "stored as ms" is no such frame: "as" says nothing): what that verb yields, in two scales."""
    before_a = {a.tokens[i - 1] for i, t in enumerate(a.tokens) if t == x and i > 0}
    before_b = {b.tokens[i - 1] for i, t in enumerate(b.tokens) if t == y and i > 0}
    return any(
        stem(u) == stem(v) and u not in STOPWORDS and u != PUNCT and not is_number(u)
        for u in before_a
        for v in before_b
    )
