"""Rules of the warning-comment scan (``mine_comments``) that read a comment's shape rather than its words: a code
span is code, a section banner is a title, a label before a colon is no reason, a type declaration holds no lesson.
"""

from __future__ import annotations

import re

from forewarn.indexing.records import Chunk

# a code span (`expected: never`): the words inside are code — TypeScript's type `never`, a flag `--never` — no
# warning words of the comment's own
CODE_SPAN = re.compile(r"`[^`\n]+`")
# a section banner: a title between runs of dashes, equals signs or stars ("--- parsing: input data must not be
# retained ---", "===== Helpers ====="): it names the code below, it warns of nothing
BANNER = re.compile(r"^([-=*~#+_])\1{2,}\s*\S.*?\s*([-=*~#+_])\2{2,}$")
# where a clause after a label or a warning starts ("never share a Bar: its cursor is not locked")
CLAUSE_SEPARATOR = re.compile(r"(?<=\w)\s*(?::|—|–| - )\s+")
CLAUSE_WORDS = re.compile(r"^\w+(\W+\w+){2,}")  # a clause says something: three words at least
SENTENCE_END = re.compile(r"[.!?;](\s|$)")
# a label names what the clause after it is about ("No rest: input must be in [start, len]", "Windows: …", "See:
# https://…"): a few words, no sentence
MAX_LABEL_WORDS = 3
# declarations of types only, in the languages where they never run: TypeScript's interfaces and type aliases, like
# the lessons mining places (README: "TypeScript interfaces and type aliases … hold no lesson")
TYPE_ONLY_KINDS = frozenset({"interface", "type"})
TYPE_ONLY_LANGUAGES = frozenset({"typescript", "tsx"})


def without_code_spans(text: str) -> str:
    """``text`` with its code spans (CODE_SPAN) blanked out, each character a space: what the comment says in words,
    at the same places."""
    return CODE_SPAN.sub(lambda m: " " * len(m.group()), text)


def banner(text: str) -> bool:
    """The comment is a section banner (BANNER): a title framed in a run of dashes, equals signs or stars."""
    return BANNER.match(text.strip()) is not None


def reason_clause(said: str, warning_at: int | None) -> bool:
    """A clause after a colon or dash that says why ("never share a Bar: its cursor is not locked"; "Windows: paths
    are case-insensitive - never …"), except the warning itself after a label: "No rest: input must be in [start,
    len]" restates the bounds check below it. ``warning_at``: where the warning word is (None: a tagged comment)."""
    cuts = list(CLAUSE_SEPARATOR.finditer(said))
    for i, cut in enumerate(cuts):
        if not CLAUSE_WORDS.match(said[cut.end() :]):
            continue
        if warning_at is None or not _labels_warning(said, cuts, i, warning_at):
            return True
    return False


def _labels_warning(said: str, cuts: list[re.Match[str]], i: int, warning_at: int) -> bool:
    """The clause after ``cuts[i]`` is the warning (it holds ``warning_at`` before its sentence or clause ends) and
    what stands before the separator is a label (MAX_LABEL_WORDS, from the previous separator or sentence)."""
    cut = cuts[i]
    next_cut = cuts[i + 1].start() if i + 1 < len(cuts) else len(said)
    sentence_end = SENTENCE_END.search(said, cut.end())
    end = min(next_cut, sentence_end.start() if sentence_end else len(said))
    if not cut.end() <= warning_at < end:
        return False
    start = cuts[i - 1].end() if i > 0 else 0
    sentences = list(SENTENCE_END.finditer(said, start, cut.start()))
    head = said[sentences[-1].end() if sentences else start : cut.start()]
    return len(head.split()) <= MAX_LABEL_WORDS


def type_only(holder: Chunk, language: str) -> bool:
    """``holder`` declares a type and nothing that runs (TYPE_ONLY_KINDS in TYPE_ONLY_LANGUAGES)."""
    return language in TYPE_ONLY_LANGUAGES and holder.kind in TYPE_ONLY_KINDS
