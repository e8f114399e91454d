"""Gitignore patterns, matched in time bounded by the pattern and the path: no regex backtracking.

``pathspec`` turns ``a*a*a*…b`` into ``a[^/]*a[^/]*…b``, and Python's backtracking ``re`` takes
exponential time on a long name of ``a``s (F5 of the hostile-input review: one ``.gitignore`` line
and one 200-character file name hung the indexer). Git's wildmatch does not, and neither does this:
a pattern is split on ``/`` into components, each ``*`` commits to the earliest place where the
fixed-length piece after it matches (an atomic group, so the regex engine can never go back and try
another), and ``**`` components match whole path components by the same rule one level up. For
globs, whose pieces between stars all have a fixed length, the earliest place is always a right
one, so this is exact, and a match costs at most (path length x pattern length) steps.

Semantics follow ``gitignore(5)``: blank lines and ``#`` comments are skipped; trailing spaces are
dropped unless escaped; ``!`` re-includes; a trailing ``/`` matches directories only; a ``/`` at
the start or in the middle anchors the pattern to the ignore file's directory, otherwise it matches
at any depth; ``**/``, ``/**/`` and a trailing ``/**`` cross directories, any other ``**`` is a
``*``; ``?``, ``[a-z]``, ``[!…]``/``[^…]``, ``[[:alpha:]]`` and ``\\`` escapes as in git. Which
directories are walked at all (git cannot re-include a file inside an excluded directory) is the
scanner's business: it never descends into an ignored directory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# ASCII, as git's wildmatch without a locale
_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "\\x21-\\x7e",
    "lower": "a-z",
    "print": "\\x20-\\x7e",
    "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    "space": " \\t\\n\\r\\f\\v",
    "upper": "A-Z",
    "xdigit": "0-9a-fA-F",
}
_NEVER = "(?!)"  # a class or piece that can match nothing (an empty range, as git treats it)


_ANY_COMPONENT = re.compile(r"(?s:.+)\Z")  # the one component a trailing "/**" needs at least
_Component = re.Pattern[str] | None  # None is a ``**`` component: any number of whole components


@dataclass(frozen=True, slots=True)
class IgnorePattern:
    line: str  # as written, for reports
    negated: bool  # "!pattern": a match re-includes
    dir_only: bool  # "pattern/": matches directories only
    head: tuple[re.Pattern[str], ...]  # components before the first "**"; they must start the path
    middles: tuple[tuple[re.Pattern[str], ...], ...]  # runs between "**"s, each found at its earliest place
    tail: tuple[re.Pattern[str], ...] | None  # components after the last "**" (None: no "**" at all)

    def matches(self, parts: Sequence[str], is_dir: bool) -> bool:
        """Whether this pattern matches the path with these components (relative to its ignore file)."""
        if self.dir_only and not is_dir:
            return False
        head, tail = self.head, self.tail
        if tail is None:
            return len(parts) == len(head) and _run_matches(head, parts, 0)
        end = len(parts) - len(tail)
        if end < len(head) or not _run_matches(head, parts, 0) or not _run_matches(tail, parts, end):
            return False
        pos = len(head)
        for run in self.middles:  # earliest place for each run leaves the most room for the next
            while pos + len(run) <= end and not _run_matches(run, parts, pos):
                pos += 1
            if pos + len(run) > end:
                return False
            pos += len(run)
        return True


class IgnoreRules:
    """The patterns of one ignore file (or of several read as one), last line first."""

    __slots__ = ("patterns",)

    def __init__(self, patterns: Sequence[IgnorePattern]) -> None:
        self.patterns = tuple(reversed(patterns))

    @classmethod
    def from_lines(cls, lines: Iterable[str]) -> IgnoreRules | None:
        """The rules in these lines, or None when no line holds a pattern."""
        patterns = [p for p in map(parse_pattern, lines) if p is not None]
        return cls(patterns) if patterns else None

    def verdict(self, rel: str, is_dir: bool) -> bool | None:
        """True: ignored, False: re-included by a ``!`` line, None: no line matches ``rel``."""
        parts = rel.split("/")
        for pattern in self.patterns:  # the last matching line wins
            if pattern.matches(parts, is_dir):
                return not pattern.negated
        return None


def parse_pattern(line: str) -> IgnorePattern | None:
    """One ``.gitignore`` line as a pattern; None for blank lines, comments and lines git never matches."""
    text = _strip_trailing_spaces(line)
    if not text or text.startswith("#"):
        return None
    negated = text.startswith("!")
    body = text[1:] if negated else text
    dir_only = body.endswith("/")
    body = body.rstrip("/") if dir_only else body
    if not body:
        return None
    anchored = "/" in body
    body = body.removeprefix("/")
    components: list[_Component] = []
    for glob in body.split("/"):
        if anchored and glob == "**":
            if not components or components[-1] is not None:  # "**/**" is one "**"
                components.append(None)
            continue
        compiled = _compile_component(glob)
        if compiled is None:  # "a//b", an unclosed "[" or a dangling "\": git matches nothing with it
            return None
        components.append(compiled)
    if not anchored:
        components.insert(0, None)  # no "/": the name matches at any depth
    if components[-1] is None:  # a trailing "/**" matches what is inside, not the directory itself
        components[-1:] = [_ANY_COMPONENT, None]
    runs: list[tuple[re.Pattern[str], ...]] = [()]
    for comp in components:
        if comp is None:
            runs.append(())
        else:
            runs[-1] += (comp,)
    if len(runs) == 1:
        return IgnorePattern(line, negated, dir_only, runs[0], (), None)
    return IgnorePattern(line, negated, dir_only, runs[0], tuple(runs[1:-1]), runs[-1])


def _run_matches(run: tuple[re.Pattern[str], ...], parts: Sequence[str], start: int) -> bool:
    return all(comp.match(parts[start + i]) for i, comp in enumerate(run))


def _strip_trailing_spaces(line: str) -> str:
    stripped = line.rstrip(" ")
    if len(stripped) < len(line) and stripped.endswith("\\") and not stripped.endswith("\\\\"):
        return stripped + " "  # "foo\ " keeps one escaped space
    return stripped


def _compile_component(glob: str) -> re.Pattern[str] | None:
    """A regex for one path component that cannot backtrack across stars; None if git would never match."""
    if not glob:
        return None
    pieces: list[list[str]] = [[]]  # fixed-length pieces between stars, as regex fragments
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "*":
            while i < n and glob[i] == "*":
                i += 1
            pieces.append([])
            continue
        if c == "?":
            pieces[-1].append(".")
        elif c == "[":
            parsed = _bracket(glob, i)
            if parsed is None:
                return None
            fragment, i = parsed
            pieces[-1].append(fragment)
            continue
        elif c == "\\":
            if i + 1 == n:
                return None
            i += 1
            pieces[-1].append(re.escape(glob[i]))
        else:
            pieces[-1].append(re.escape(c))
        i += 1
    fixed = ["".join(p) for p in pieces]
    if len(fixed) == 1:
        return re.compile(f"(?s:{fixed[0]})\\Z")
    first, *middle, last = fixed
    # each middle piece at its earliest place, committed (atomic); the last piece must end the name
    body = first + "".join(f"(?>.*?{piece})" for piece in middle) + f".*{last}\\Z"
    return re.compile(f"(?s:{body})")


def _bracket(glob: str, start: int) -> tuple[str, int] | None:
    """The ``[...]`` starting at ``start`` as a regex class and the index after it; None if unclosed."""
    i, n = start + 1, len(glob)
    negate = i < n and glob[i] in "!^"
    if negate:
        i += 1
    members: list[str] = []
    first = True
    while i < n and (glob[i] != "]" or first):
        first = False
        if glob.startswith("[:", i):
            close = glob.find(":]", i + 2)
            if close < 0:
                return None
            name = glob[i + 2 : close]
            if name not in _POSIX_CLASSES:
                return None
            members.append(_POSIX_CLASSES[name])
            i = close + 2
            continue
        lo, i = _bracket_char(glob, i)
        if lo is None:
            return None
        if i + 1 < n and glob[i] == "-" and glob[i + 1] != "]":
            hi, i = _bracket_char(glob, i + 1)
            if hi is None:
                return None
            if lo <= hi:  # a reversed range matches nothing, as in git
                members.append(f"{re.escape(lo)}-{re.escape(hi)}")
            continue
        members.append(re.escape(lo))
    if i >= n:
        return None
    if not members:
        return ("." if negate else _NEVER), i + 1
    return f"[{'^' if negate else ''}{''.join(members)}]", i + 1


def _bracket_char(glob: str, i: int) -> tuple[str | None, int]:
    if glob[i] == "\\":
        return (glob[i + 1], i + 2) if i + 1 < len(glob) else (None, i + 1)
    return glob[i], i + 1
