"""Which definition at HEAD is the one a commit changed, when its file defines several of the same name.

The index tells same-named definitions apart by position: zod's ``core/schemas.ts`` assigns ``inst._zod.parse = …``
in 46 schema constructors, named ``parse``, ``parse#2`` … ``parse#46`` in file order. A schema added above one shifts
every ordinal below it, so ``parse#29`` at an old commit (``$ZodRecord``'s parser) is another definition than HEAD's
``parse#29`` (``$ZodExactOptional``'s). A namesake is followed to HEAD by what it is written in (the top-level
statement holding it: ``export const $ZodRecord …``); among namesakes written in one place, by its position when
their number did not change, else by its code (by its code alone when its place is gone). One that none of these
places belongs to no symbol: its fix or lesson counts on its file, never on a guessed namesake.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple, Protocol

from forewarn.workspace import mine_code

ORDINAL = re.compile(r"#\d+$")  # ``parse#29``: the 29th definition of that name in its file
# the last ordinal in a symbol path, and what follows it (``parse#29.inner``: ``inner`` of the 29th ``parse``)
LAST_ORDINAL = re.compile(r"^(?P<prefix>.*#\d+)(?P<rest>(\.[^#]*)?)$")
# of its namesakes' telling lines, the share HEAD's must hold to be the same definition by its code alone
MIN_SAME_CODE = 0.5
# a line opening with a closer (``});``, ``} else {``) ends a statement: what encloses a definition opens above it
_CLOSER = re.compile(r"^[)}\]]")
_DECLARED = re.compile(r"[=(:{<\[]")  # what follows a statement's declared name: its type, value or arguments
_WORD = re.compile(r"[\w$]+")


class Defined(Protocol):
    """A definition as the parser (:class:`Chunk`) or the index (:class:`CodeChunk`) has it."""

    @property
    def symbol(self) -> str: ...

    @property
    def start_line(self) -> int: ...

    @property
    def text(self) -> str: ...


class Namesake(NamedTuple):
    """One of a file's definitions of one name: its symbol, where it is written, its code."""

    symbol: str
    context: str  # the first words of the top-level statement holding it ("" when it is top-level itself)
    sample: tuple[str, ...]  # its telling lines (mine_code.sample)
    code: str  # its code as one normalized line (mine_code.joined)


def base_of(symbol: str) -> str:
    """The symbol without its ordinal (``parse#29`` → ``parse``)."""
    return ORDINAL.sub("", symbol)


def split_ordinal(symbol: str) -> tuple[str, str]:
    """(the symbol up to its last ordinal, what follows it); (symbol, "") when it has no ordinal."""
    m = LAST_ORDINAL.match(symbol)
    return (m["prefix"], m["rest"]) if m else (symbol, "")


def context(lines: Sequence[str], start_line: int) -> str:
    """The first words of the top-level statement a definition starting at ``start_line`` is written in: the
    nearest code line above it at column 0, up to its declared name (``export const $ZodRecord``); "" when the
    definition itself starts at column 0."""
    own = lines[start_line - 1] if 0 < start_line <= len(lines) else ""
    if not own[:1].isspace():
        return ""
    for row in range(start_line - 2, -1, -1):
        line = lines[row]
        if not line or line[:1].isspace() or _CLOSER.match(line) or not mine_code.is_logic(line):
            continue
        return " ".join(_WORD.findall(_DECLARED.split(line, maxsplit=1)[0]))
    return ""


def namesakes(defined: Iterable[Defined], symbol: str, lines: Sequence[str], path: str) -> list[Namesake]:
    """The definitions named as ``symbol`` is, ordinals aside, in file order."""
    name = base_of(symbol)
    found = sorted((d for d in defined if base_of(d.symbol) == name), key=lambda d: d.start_line)
    return [
        Namesake(
            d.symbol,
            context(lines, d.start_line),
            mine_code.sample(d.text.splitlines(), path),
            mine_code.joined(d.text, path),
        )
        for d in found
    ]


def needs_telling_apart(symbol: str) -> bool:
    """``symbol`` is one of several definitions of its name at its commit (it carries an ordinal)."""
    return LAST_ORDINAL.match(symbol) is not None


def followed_symbol(
    symbol: str, then: Callable[[str], list[Namesake]], now: Callable[[str], list[Namesake]]
) -> str | None:
    """``symbol`` (at a commit) as HEAD names the same definition; None when it cannot be told which one it is.
    ``then`` and ``now`` give a symbol's namesakes at the commit and at HEAD."""
    prefix, rest = split_ordinal(symbol)
    before = then(prefix)
    mine = next((n for n in before if n.symbol == prefix), None)
    if mine is None:
        return symbol  # not a definition of the commit's blob: nothing to tell apart
    at_head = now(prefix)
    if len(before) == 1 and len(at_head) == 1:
        return at_head[0].symbol + rest
    found = same_definition(mine, before, at_head)
    return None if found is None else found + rest


def same_definition(mine: Namesake, before: list[Namesake], at_head: list[Namesake]) -> str | None:
    """The HEAD namesake that is ``mine``: the only one written where it was; among several there, the one at its
    position when their number is the same, else the one holding most of its code; when none is written there (its
    schema renamed), the one holding most of its code among all, or the one at its position when every place
    changed alike. None when none of these tells."""
    here = [n for n in at_head if n.context == mine.context]
    if len(here) == 1:
        return here[0].symbol
    there = [n for n in before if n.context == mine.context]
    if here and len(there) == len(here):
        return here[there.index(mine)].symbol
    if not here and len(before) == len(at_head) and not {n.context for n in before} & {n.context for n in at_head}:
        # every place written anew alike (cxxopts' namespace no longer indented, so each class is top-level): the
        # same number of namesakes in the same order
        return at_head[before.index(mine)].symbol
    return by_code(mine, here or at_head)


def by_code(mine: Namesake, candidates: list[Namesake]) -> str | None:
    """The candidate holding most of ``mine``'s telling lines, MIN_SAME_CODE of them at least and more than any
    other (identical parsers in two schemas tell nothing); None when none does."""
    scores = sorted(((mine_code.survival(mine.sample, n.code) or 0.0, n.symbol) for n in candidates), reverse=True)
    if not scores or scores[0][0] < MIN_SAME_CODE or (len(scores) > 1 and scores[1][0] == scores[0][0]):
        return None
    return scores[0][1]
