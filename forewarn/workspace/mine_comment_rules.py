"""Rules of the warning-comment scan (``mine_comments``) that read a comment's shape rather than its words: a code
span is code, a section banner is a title, a label before a colon is no reason, a type declaration holds no lesson.
"""

from __future__ import annotations

import re
from collections.abc import Callable

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


# a comment that argues with a tool rather than warning a reader ("FindBugs doesn't know about it and complains... so
# let's add dummy break here", "to keep the compiler happy", "to silence clippy"): like a suppression directive
# (``mine_comments.LINT_SUPPRESSION``), it warns no one editing the code
_TOOL = (
    r"(find ?bugs|spot ?bugs|compilers?|linters?|lint|javac|rustc|gcc|clang|msvc|checkstyle|pmd|sonar\w*|error ?prone|"
    r"clippy|type ?checkers?|borrow ?checker|type system|mypy|pyright|tsc|typescript|ts|eslint|go vet|vet|ide)"
)
TOOL_ARGUMENT = re.compile(
    rf"\b{_TOOL}\b[^.;]{{0,60}}?\b(complain\w*|whin(e|es|ing)|moan\w*|nag(s|ging)?|(does|do)(n't| not) "
    r"(know|understand|realize|realise)|(is|are)(n't| not) (smart|clever) enough)\b|"
    rf"\b(keep|make|keeps|makes|keeping|making)\s+(the\s+)?{_TOOL}\s+(happy|quiet|silent)\b|"
    rf"\b(to|will)\s+(silence|shut up|quiet|appease|placate|pacify|please|satisfy)\s+(the\s+)?{_TOOL}\b|"
    r"\bdummy (return|break|throw|statement)s?\b",
    re.IGNORECASE,
)
# a comment that opens on a word pointing back at the code or comment above it ("Otherwise not included", "Except one
# special case: …", "Plus we can scan …", "Else ch must be RS"): read alone, a fragment. "Except for …"/"Except on
# Windows, …" open a condition of their own; "Also, never …" and "However, …" read alone
BACK_REFERENCE = re.compile(
    r"^(otherwise|else|plus|and|but|or|nor|similarly|likewise|"
    r"except(?!\s+(for|on|in|when|if|where|while|with|under|during|after|before|inside|outside)\b))\b",
    re.IGNORECASE,
)
# a comment that trails off in an ellipsis ("Careful, since this may alternatively be leading char of unquoted
# name...", "otherwise caller must handle using some other mechanism, so..."): an unfinished thought. "etc..." ends
# a list, "[...]" stands for code
TRAILING_OFF = re.compile(r"(?<!\betc)(?<![\[({])(\.\.\.|…)\s*$", re.IGNORECASE)
# an author's stamp opening a note ("26-Nov-2015, tatu:", "2019-08-12 bob:"): who wrote it and when, no part of the
# lesson. Where a block holds several notes ("And there we have it! 26-Jun-2022, tatu: Careful here, …"), each stamp
# opens a note of its own. An issue tag ("[core#133]:") says where the reason is and stays
STAMP = re.compile(
    r"(?:^|(?<=[.!?:;])\s+)(\d{1,2}[- ](?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*[- ]\d{4}|"
    r"\d{4}-\d{2}-\d{2})(,?\s*\(?[A-Za-z][\w.-]*\)?)?\s*:\s*"
)
# a guard for what the author believes cannot happen, failing if it does ("Should never return 0, so let's fail"):
# ``mine_comments.COMMENT_DEFENSIVE`` in other words; "must never return null: callers dereference it" is a contract
DEFENSIVE_FAILURE = re.compile(
    r"\bshould (never|not ever)\b[^.;:]{0,60}?\bso,?\s+(let's|lets|let us|we('ll| will)?|just)\s+"
    r"(fail|throw|error|bail|abort|panic|assert|raise|complain)\b",
    re.IGNORECASE,
)
# a comment that states what the code does by default ("By default, require padding on input if written on output;
# do not accept if padding not written") describes behaviour, unless it says why (EXPLICIT_CAUSE)
DEFAULT_STATEMENT = re.compile(r"^by default\b", re.IGNORECASE)
EXPLICIT_CAUSE = re.compile(
    r"\b(because|since|otherwise|else|so that|in order to|to (avoid|prevent|ensure|keep)|would|could|might|lest|"
    r"due to|or (else|we|it|the|this))\b",
    re.IGNORECASE,
)


def argues_with_tool(text: str) -> bool:
    """The comment argues with a compiler, linter or checker (TOOL_ARGUMENT) rather than warning a reader."""
    return TOOL_ARGUMENT.search(text) is not None


def fragment_read_alone(text: str) -> bool:
    """The comment needs what stands above it (BACK_REFERENCE) or trails off unfinished (TRAILING_OFF)."""
    return BACK_REFERENCE.match(text) is not None or TRAILING_OFF.search(text) is not None


def defensive_failure(text: str) -> bool:
    """A guard that fails on what "should never" happen (DEFENSIVE_FAILURE)."""
    return DEFENSIVE_FAILURE.search(text) is not None


def states_default(text: str) -> bool:
    """The comment says what the code does by default and gives no cause (DEFAULT_STATEMENT, EXPLICIT_CAUSE)."""
    return DEFAULT_STATEMENT.match(text) is not None and EXPLICIT_CAUSE.search(text) is None


def stamped_note(lines: list[str], warns: Callable[[list[str]], bool]) -> tuple[list[str], int]:
    """A comment's lines without its authors' stamps (STAMP), and the index of the line its warning starts on: where
    stamps open several notes, the first note that ``warns``; the whole comment, stamps dropped, when none does."""
    notes: list[tuple[int, list[str]]] = []
    for i, line in enumerate(lines):
        pos = 0
        for stamp in STAMP.finditer(line):
            if head := line[pos : stamp.start()].strip():
                _append(notes, i, head)
            notes.append((i, []))
            pos = stamp.end()
        if pos == 0 or line[pos:].strip():
            _append(notes, i, line[pos:].strip() if pos else line)
    if len(notes) <= 1:
        return (notes[0][1], notes[0][0]) if notes else (lines, 0)
    for at, note in notes:
        if note and warns(note):
            return note, at
    return [line for _, note in notes for line in note], 0


def _append(notes: list[tuple[int, list[str]]], i: int, text: str) -> None:
    if notes:
        notes[-1][1].append(text)
    else:
        notes.append((i, [text]))


# a header comment opened by a rule line ("/* ======…\n * Save the match info and tally the frequency counts. Return
# true if the current block must be flushed."): C's box over a function, documentation of what it does
HEADER_RULE = re.compile(r"^([-=])\1{9,}(\s|$)")
# a sentence saying what a variable holds or what a function returns, its "must" inside the condition ("set if current
# block must be flushed", "Return true if the block must be flushed"): a description of the value, no order
VALUE_DESCRIPTION = re.compile(
    r"(?:^|[.!?;]\s+)(returns?\s+)?(set|true|false|non-?zero|zero|-?1|null|nil|none|flag)\s+"
    r"(if|iff|when|whenever|whether)\b[^.;]*?\bmust\b",
    re.IGNORECASE,
)
MUST = re.compile(r"\bmust\b", re.IGNORECASE)
# an early return narrated ("don't bother if there's only one (or none) type"): a shortcut the next line takes
SHORTCUT = re.compile(r"^(don't|do not|no need to|needn't)\s+bother\b", re.IGNORECASE)
# a link opening a comment ("https://issues.apache.org/…/LANG-1698 There must be a better way …"): where the reason is
# discussed, said after the comment's words rather than before them
LEADING_URL = re.compile(r"^<?(https?://[^\s>]+)>?\s+(?=\S)")
# where an alternative ", or …" belongs to a list rather than a consequence ("must either be absent, within the
# bounds, or be an exact match"; "Must be Func, Map, or Slice"; "(or none)"; "until a delimiter, or end of string")
EITHER = re.compile(r"\beither\b", re.IGNORECASE)
CLAUSE_AFTER = re.compile(
    r"\b(else|otherwise|it|it's|we|they|you|this|that|there|he|she|will|would|may|might|can|could|must|is|are)\b",
    re.IGNORECASE,
)
MAX_LISTED_WORDS = 4  # "or end of string": a short noun phrase closing the sentence is one more item


def header_comment(text: str) -> bool:
    """The comment opens on a rule line of dashes or equals signs (HEADER_RULE): a function's header box."""
    return HEADER_RULE.match(text.strip()) is not None


def describes_value(text: str) -> bool:
    """Every "must" of the comment sits in a description of a value (VALUE_DESCRIPTION): "set if … must be …"."""
    spans = [m.span() for m in VALUE_DESCRIPTION.finditer(text)]
    musts = [m.start() for m in MUST.finditer(text)]
    return bool(musts) and all(any(start <= at < end for start, end in spans) for at in musts)


def narrates_shortcut(text: str) -> bool:
    """The comment narrates an early return ("don't bother if …", SHORTCUT)."""
    return SHORTCUT.match(text) is not None


def url_last(text: str) -> str:
    """``text`` with a link that opens it (LEADING_URL) moved to its end, in parentheses."""
    found = LEADING_URL.match(text)
    return f"{text[found.end() :].rstrip()} ({found.group(1)})" if found else text


def listed_or(said: str, at: int) -> bool:
    """The ", or" at ``at`` joins items of a list ("either … or", "(or none)", a short noun phrase to the sentence's
    end: "A, B, or C"), not a consequence ("…, or the cache goes stale")."""
    if said[at] == "(":
        return True
    starts = list(SENTENCE_END.finditer(said, 0, at))
    if EITHER.search(said[starts[-1].end() if starts else 0 : at]):
        return True
    end = SENTENCE_END.search(said, at)
    after = said[at : end.start() if end else len(said)].lstrip(" ,;:(")[2:]
    return len(after.split()) <= MAX_LISTED_WORDS and CLAUSE_AFTER.search(after) is None


# a documentation comment's markup, which a reader of the warning does not need: a rule line ("-------"), a block
# tag's line ("@since 2.4", "@author …"), HTML paragraph marks ("<p>") and inline tags ("{@code x}" says "x")
RULE_LINE = re.compile(r"^([-=*~#_+])\1{2,}$")
BOOK_TAG_LINE = re.compile(r"^@(since|author|version|serial|deprecated\s*$)\b")
HTML_MARK = re.compile(r"</?(p|br|b|i|em|strong|ul|ol|li)\s*/?>", re.IGNORECASE)
INLINE_TAG = re.compile(r"\{@(code|link|linkplain|literal)\s+([^{}]+)\}")


def without_markup(lines: list[str]) -> list[str]:
    """A comment's lines less its documentation markup (DateTimeParserBucket.reset's "------ … <p> … @since 2.4")."""
    kept = [line for line in lines if not RULE_LINE.match(line) and not BOOK_TAG_LINE.match(line)]
    return [INLINE_TAG.sub(r"\2", HTML_MARK.sub("", line)).strip() for line in kept]
