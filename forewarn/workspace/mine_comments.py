"""Warning comments at HEAD (``HACK``, ``XXX``, "do not …"): the code's own warnings, as suggestions.

A comment is a warning when it carries a tag (``HACK``, ``XXX``, ``FIXME``, ``WARNING``, ``DANGER``,
``CAUTION``) or warns in words ("do not", "must not", "never" …). Documentation comments — Sphinx
``#:``, JSDoc/Javadoc ``/** */``, Rust ``///`` and ``//!``, RDoc's and Doxygen's ``##`` — describe what code
does: "the key must match the module's name" is a docstring, not a warning, so words alone do not make one a warning
there (a tag still does). A ``FIXME`` is a defect left for later, a task like a ``TODO``: no warning to whoever
edits the code now (blind judges called 6 of 35 useful over rounds 1-14). Comments in tests guard the tests, not the
product: left out. Each rule that
leaves a comment out is counted by name (:class:`~forewarn.workspace.mine_rules.Noise`).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tree_sitter import Node

from forewarn import untrusted
from forewarn.indexing.languages import language_for_path
from forewarn.indexing.parse import parse_file
from forewarn.indexing.prose import comment_nodes, last_line
from forewarn.indexing.records import Chunk
from forewarn.memory.suggestions import ANCHOR_FILE, ANCHOR_SYMBOL, Suggestion
from forewarn.memory.vocabulary import MemorySource, MemoryType
from forewarn.workspace import mine_code
from forewarn.workspace.mine_anchors import MODULE_SYMBOL
from forewarn.workspace.mine_comment_rules import (
    argues_with_tool,
    banner,
    defensive_failure,
    describes_value,
    fragment_read_alone,
    header_comment,
    listed_or,
    narrates_shortcut,
    reason_clause,
    stamped_note,
    states_default,
    type_only,
    url_last,
    without_code_spans,
    without_markup,
)
from forewarn.workspace.mine_fixes import broad
from forewarn.workspace.mine_head import HeadIndex
from forewarn.workspace.mine_lessons import CONNECTIVES, clip_sentences, comment_headline, lesson_text, lines_as_text
from forewarn.workspace.mine_product import in_test_item
from forewarn.workspace.mine_rules import TOOLING_PATH, Noise, in_test_module, is_product_path

if TYPE_CHECKING:
    from forewarn.workspace.engine import Workspace

TAG_WORDS = "HACK|XXX|FIXME|WARNING|DANGER|CAUTION"
WARNING_TAG = re.compile(rf"\b({TAG_WORDS})\b")
# a tag marks a warning where it opens a line of the comment or is followed by a colon ("XXX(bob): …"); inside a
# sentence or a table it is a word ("logs at WARNING level", a date format's "| XXX | -08:00 |")
TAG_MARK = re.compile(
    r"^(HACK|XXX|FIXME|WARNING|DANGER|CAUTION)\b|\b(HACK|XXX|FIXME|WARNING|DANGER|CAUTION)(\([^)]*\))?:"
)
# where a documentation comment's paragraph ends: a blank line or the next block tag ("@param", "# Panics")
DOC_PARAGRAPH_END = re.compile(r"^\s*($|@\w|#+\s)")
# warning words: a sentence that starts with them warns ("Never call this twice."); "must" warns anywhere in a short
# comment ("the lock must be held"); mid-sentence "never"/"do not" is as often narrative ("we do not need to…")
WARNING_OPENING = re.compile(
    r"(?:^|[.!?;:]\s+)(do not|don't|never|must not|must never|avoid|beware|careful|important)\b", re.IGNORECASE
)
WARNING_MUST = re.compile(r"\b(must( not| never)?|mustn't|should never)\b", re.IGNORECASE)
MAX_MUST_WORDS = 40  # "must" in a longer block is a paragraph of documentation, not a warning
COMMENT_PREFILTER = re.compile(rb"HACK|XXX|FIXME|WARNING|DANGER|CAUTION|[Dd]o not|[Dd]on't|[Mm]ust|[Nn]ever")
COMMENT_MARKERS = re.compile(r"^\s*(/\*+|\*+/|\*|//+!?|#+:?|--|;+|<!--|-->)\s?|\s*\*+/\s*$")
# documentation comments: they describe (Sphinx "#:", JSDoc/Javadoc "/**", Rust "///" and "//!", RDoc's and
# Doxygen's "##": Rack::Lint's SPEC is written in "##" lines)
DOC_COMMENT = re.compile(r"^\s*(#:|##(?![#!])|/\*\*(?!/)|///(?!/)|//!)")
# a declaration's first line, in the languages parsed: what a documentation comment right above it documents
DECLARATION = re.compile(
    r"^\s*((export|default|pub(\([\w ]+\))?|public|private|protected|internal|static|async|abstract|final|"
    r"override|unsafe|inline|extern|virtual|const)\s+)*"
    r"(func|type|var|const|let|class|def|function|fn|interface|struct|enum|trait|impl|module|"
    r"[\w.<>\[\]]+\s+\w+\s*\()",
)
# tags that, inside a documentation comment, advise the caller ("WARNING: use only in development"); HACK, XXX and
# FIXME there still speak to whoever edits the code
CALLER_TAGS = frozenset({"WARNING", "DANGER", "CAUTION"})
# comments that talk to tools, not people ("# type: ignore[…]  # urllib3 stubs don't …")
DIRECTIVE = re.compile(
    r"^(type:\s*ignore|noqa|pragma|pylint:|mypy:|fmt:|isort:|eslint-|prettier-ignore|nolint|NOLINT|clang-format|"
    r"istanbul|ts-(ignore|expect-error|nocheck)|@ts-|rubocop:|go:|nosec)",
    re.IGNORECASE,
)
MIN_COMMENT_WORDS = 3  # "XXX" alone, or "# must", says nothing
# a comment on a line of its own that opens mid-sentence, on a lower-case joining word ("such that each String must
# not contain NUL …", "and must not …"): the tail of a sentence begun above, a fragment read alone
CONTINUATION = re.compile(rf"^({CONNECTIVES}|such that|so that|that(?!')|whereas|is|are|was|were|has|have|had)\b")
# a warning in words alone (no tag) shorter than this is a label ("Standard case: root URI must match"), not a
# warning that says what to keep and why
MIN_PHRASE_COMMENT_WORDS = 7
# a tagged comment needs this many words besides its tag: "XXX handle auth-int." and "XXX not implemented yet"
# are notes to self, not warnings to the next reader
MIN_TAGGED_COMMENT_WORDS = 6
MAX_COMMENT_BYTES = 1 << 20  # files larger than this are not scanned for comments (generated)
# a comment restates the code it sits on when at least this share of its content words are the code's own words
# (identifiers split at "_" and case changes): "# must return the cached value" over ``return self._cached_value``
RESTATES_CODE_SHARE = 1.0
# … and a comment in a short symbol (PLAIN_SIGHT_LINES at most) sharing PLAIN_SIGHT_SHARE of its content words, and at
# least PLAIN_SIGHT_WORDS, with the code it sits on is in plain sight: of the warning comments judged on 55 histories,
# 5 of 19 judgements of such comments said useful, against 53 of 87 for the others
PLAIN_SIGHT_SHARE = 0.2
PLAIN_SIGHT_WORDS = 2
PLAIN_SIGHT_LINES = 40
# the languages' own words: a comment saying "return" or "null" does not repeat code that returns or tests for null
# fmt: off
CODE_KEYWORDS = frozenset((
    "return", "if", "else", "elif", "for", "while", "def", "func", "function", "fn", "let", "var", "const", "class",
    "self", "this", "true", "false", "none", "null", "nil", "new", "async", "await", "import", "from", "raise",
    "throw", "try", "catch", "except", "finally", "switch", "case", "default", "break", "continue", "yield", "pass",
    "static", "public", "private", "protected", "void",
))
# fmt: on
COMMENT_CONTEXT_LINES = 3  # the code a comment sits on: its own line and this many code lines after it
MIN_CONTENT_CHARS = 3  # shorter words ("a", "is", "to") carry no content
# words every warning uses whatever the code: they neither restate nor add (the warning's own verbs and glue)
FUNCTION_WORDS = frozenset(
    [
        "the",
        "and",
        "but",
        "for",
        "not",
        "nor",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "this",
        "that",
        "these",
        "those",
        "with",
        "from",
        "into",
        "onto",
        "than",
        "then",
        "there",
        "here",
        "when",
        "where",
        "which",
        "while",
        "will",
        "would",
        "can",
        "could",
        "should",
        "must",
        "never",
        "don't",
        "do",
        "does",
        "did",
        "doesn't",
        "isn't",
        "it's",
        "its",
        "you",
        "your",
        "our",
        "they",
        "them",
        "their",
        "been",
        "being",
        "also",
        "only",
        "just",
        "very",
        "more",
        "most",
        "such",
        "any",
        "all",
        "each",
        "other",
        "some",
        "use",
        "used",
        "using",
        "make",
        "sure",
        "need",
        "needs",
        "needed",
        "note",
        "hack",
        "xxx",
        "fixme",
        "warning",
        "danger",
        "caution",
        "careful",
        "important",
        "avoid",
        "beware",
        "because",
        "since",
        "else",
        "otherwise",
    ]
)
IDENTIFIER_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
MAX_COMMENT_CHARS = 600  # a warning is a few lines; a longer block is an essay the hover cannot hold
# what makes a warning comment a lesson: a reason or a consequence ("because", "otherwise", "so that", "to avoid",
# "would", "else", "breaks", "expects" …). Without one it narrates the line below ("do not sort if already sorted")
# or quotes the rule the next line enforces: the code says as much.
COMMENT_REASON = re.compile(
    r"(?:[,;:(]\s*or\b)|\b(because|since|otherwise|else|so that|so (we|it|they|the|that|this)|in order to|"
    r"to (avoid|prevent|ensure|guarantee|keep|make sure|stop|protect|work ?around)|"
    r"for (this|it|them|that|the \w+) (not )?to|would(n't| not)?|could(n't| not)?|might|may (cause|break|fail|lose)|"
    r"lest|unless|due to|caus(e|es|ed|ing)|result(s|ed)? in|leads? to|break(s|ing)?|broke(n)?|expects?|expected|"
    r"requires?|relies on|depends on|assumes?|fail(s|ed|ing|ure)?|crash(es|ed)?|hang(s)?|deadlock\w*|race|"
    r"leak(s|ed)?|corrupt\w*|lose[sn]?|lost|overflow\w*|panic(s|ked)?|raises?|throws?|errors?|exceptions?|bugs?|"
    r"workaround|work around|wrong(ly)?|incorrect(ly)?|invalid|unsafe|not (thread-?)?safe|security|vulnerab\w+|"
    r"reject(s|ed)?|refuse[sd]?|ignore[sd]?|misread|misinterpret\w*|stale|twice|stuck|infinite|blocks?|blocked|"
    r"(can|will) be (confused|fooled|tricked)|confuses)\b",
    re.IGNORECASE,
)
# a note about work for later: a TODO, a FIXME (a defect filed for later, the tag in capitals), a removal planned
# for a future version, code kept only for compatibility
COMMENT_TASK = re.compile(
    r"\b(TODO|(?-i:FIXME)|(should|could|can|will|must|needs? to) be (removed|deleted|dropped|cleaned( up)?|refactored|"
    r"replaced|renamed|moved|simplified|rewritten|deprecated)|in a (future|later|next|new|major) (version|release)|"
    r"(in|for|until) (a )?(version|v) ?\d|is (unused|not used|no longer used|deprecated)|"
    r"only for (backwards?[- ])?compat\w*|clean ?up|refactor\w*)\b",
    re.IGNORECASE,
)
# a guard for what the author believes cannot happen ("we should never need to flush … so lets defensively do it
# anyway", "should never hit this"): it warns of no trap a reader could fall into
COMMENT_DEFENSIVE = re.compile(
    r"\b(should never (happen|hit|occur|be (reached|hit|needed)|need\w*|get here)|can(not|'t) (happen|occur)|"
    r"never (happens|occurs|be reached)|defensive(ly)?|just in case|to be (safe|paranoid)|paranoi\w*|"
    r"(should|must|ought to) be (dead|unreachable)( code)?|should( never)? be unreachable)\b",
    re.IGNORECASE,
)
# a tag followed by what the author means to do ("XXX We should fail permanently here", "HACK: I need to …"): a note
# to self, a task like a TODO; "XXX we should not …" still warns
TAGGED_TASK = re.compile(
    r"(?-i:\b(HACK|XXX|FIXME))(\([^)]*\))?\s*:?\s*(we|i|you|one)\s+(really\s+|probably\s+|eventually\s+)?"
    r"(should|could|ought to|need to|needs to|might want to|want to|have to)\b(?!\s+(not|never)\b)",
    re.IGNORECASE,
)
# a trailing comment that opens on its verb ("jv_free(a); // must come after `*end` because …"): its subject is the
# code on its line, which the lesson quotes
SUBJECTLESS = re.compile(
    r"^(must|mustn't|should|shouldn't|needs? to|has to|have to|is|are|was|can|can't|cannot|will|won't|may|might|"
    r"only|always)\b"
)
MAX_QUOTED_CODE_CHARS = 60  # a longer line of code quoted as a headline's subject would bury the warning
# a note that proves the code right rather than warning about a trap: "OK because …", "This unwrap is okay since …",
# "This assert is *not* necessary for safety". Rust's ``SAFETY:`` marker alone is not one: it heads proofs ("SAFETY:
# Since `ptr` is valid …, it must be valid") and callers' contracts ("SAFETY: caller must ensure v is at least len 2")
# alike, so only what follows it decides
SAFETY_MARKER = re.compile(r"^safety\s*:\s*", re.IGNORECASE)
JUSTIFICATION_OPENING = re.compile(
    r"^(ok(ay)?\b|(this|that|it)\b(\s+[\w`'.()]+){0,3}\s+is\s+(ok|okay|fine|safe|sound|correct|valid|allowed)\b)|"
    r"\bis \*?not\*? (necessary|needed|required) for (safety|soundness|correctness)\b",
    re.IGNORECASE,
)
# "must" as a deduction, not an order to whoever edits the code: "it must therefore be valid UTF-8", "Since start <=
# end, … start must be too", "which implies we must be the only thread"
_IN_SENTENCE = r"([^.;]|\.(?=[\w(]))*"  # to the sentence's end: a "." inside code (`ptr.add(len)`) ends none
DEDUCTION_MUST = re.compile(
    r"\bmust (therefore|also|always|necessarily|surely|have been|have (had|come|already)|be too)\b|"
    rf"\b(therefore|thus|hence|implies|we know|it follows|guarantees?|guaranteed)\b{_IN_SENTENCE}\bmust\b|"
    rf"^(since|as)\b{_IN_SENTENCE}\bmust\b|\bmust\b{_IN_SENTENCE}\b(therefore|thus)\b|"
    r"\bso,? (it|this|that|there|they)\s+must have\b",  # "…, so it must have happened yesterday": what was
    re.IGNORECASE,
)
# ... unless someone is told to act: "Since there is a file stream in query, we must transmit pause/resume event to
# the current sequence" orders whoever edits it (an agent with an action verb), where "we must be the only thread"
# deduces (a state); so does a "must" with no subject after the clause of its reason ("Since name-offset requires it
# too, must offset this increase …")
AGENT_ORDER = re.compile(
    r"(\b(we|you|callers?|users?|one)\s+|(^|[,;:])\s*)must\s+"
    r"(?!(be|have|already|also|therefore|thus|hence|necessarily|surely|always|still)\b)\w+",
    re.IGNORECASE,
)
# "Since fields have been frozen we must work around it." above ``_OBJ_SETATTR(field, "type", …)``: the reason for
# the next line's workaround, said by the author who wrote it, not an order to whoever edits the code (attrs _funcs.py)
WORKAROUND_JUSTIFICATION = re.compile(
    rf"^(since|as|because)\b{_IN_SENTENCE}\b(we|i)\s+(must|have to|need to)\s+work ?around (it|this|that|them)\b",
    re.IGNORECASE,
)
# a pointer to where the reason is written ("See `is_word_unicode_negate` for why we need to do this"): the lesson
# lives there, and this comment alone says nothing a hover could hold
CROSS_REFERENCE = re.compile(
    r"^((see|cf\.?|refer to)\b[^.;:]*\b(for|about|on)\b[^.;:]*\b(why|details?|reasons?|explanations?|more|context|"
    r"discussion|rationale)\b|as (noted|explained|described|mentioned|discussed) (above|below|in|at))",
    re.IGNORECASE,
)
# nouns of COMMENT_REASON that as often name what the code deals with as what goes wrong ("don't override error
# message from content expressions", "Errors thrown by hooks must propagate", "don't output failure message more than
# once"): alone they give a reason only in a frame of consequence ("if an error happens", "the error may be emitted").
# A verb says what happens ("the server rejects partial ones", "it raises"): that is a consequence.
TOPIC_REASON = re.compile(r"(errors?|exceptions?|failures?|bugs?)", re.IGNORECASE)
CONSEQUENCE_FRAME = re.compile(
    rf"\b(if|when|whenever|unless|may|might|could|would|will|can|avoid|prevent|else|or)\b[^.;:]{{0,40}}\b"
    rf"{TOPIC_REASON.pattern}\b|\b{TOPIC_REASON.pattern}\b[^.;:]{{0,20}}\b(may|might|could|would|will|can|if|when|"
    r"unless)\b",
    re.IGNORECASE,
)
# a name of a contract in place of its terms: "The caller must uphold the safety contract for `erase` method", "must
# satisfy the safety rules for [`RawIterRange::new`]" — the terms are written at the callee; repeated at every call
# site, this says nothing there ("the caller must ensure v is at least len 2" states the terms and is kept)
CONTRACT_REFERENCE = re.compile(
    r"\bmust (uphold|satisfy|follow|respect|meet|honou?r|observe)\b[^.;]{0,40}?\b(contract|rules|requirements|"
    r"invariants|preconditions|conditions)\b(?!\s*(:|that|—|–))",
    re.IGNORECASE,
)
# a linter's or type checker's suppression: a comment on its line (or on the line above it) argues with the tool
# ("ruff:ignore[blind-except]  # both backend errors must surface"), it warns no one editing the code
LINT_SUPPRESSION = re.compile(
    r"\b(noqa|type:\s*ignore|(ruff|pyright|pylint|mypy|flake8)\s*:\s*(ignore|disable)|eslint-disable|"
    r"nolint|nosec|ts-ignore|ts-expect-error|ts-nocheck|istanbul ignore|c8 ignore|biome-ignore)\b|"
    r"#!?\[(allow|expect)\(",
    re.IGNORECASE,
)
NEAR_DUPLICATE_MIN_WORDS = 5  # comments this long that differ by one word (a name) say one thing: one lesson


@dataclass(frozen=True, slots=True)
class WarningComment:
    line: int  # first line, 1-based
    text: str  # without comment markers
    kind: str  # the tag (HACK, XXX, …) or the phrase ("do not", "must", "never")


@dataclass(slots=True)
class CommentScan:
    """Warning comments found in one file, each with its enclosing symbol, and what was left out, by rule."""

    found: list[tuple[WarningComment, str | None]]
    skipped: Counter[str]


def is_deduction(text: str) -> bool:
    """A "must" that concludes ("it must therefore be valid"), not one that orders ("we must transmit …")."""
    return DEDUCTION_MUST.search(text) is not None and AGENT_ORDER.search(text) is None


def warning_comments(path: str, source: bytes) -> CommentScan:
    """Warning comments in one file with the innermost symbol enclosing each (None: module level)."""
    skipped: Counter[str] = Counter()
    spec = language_for_path(path, source)
    if spec is None or len(source) > MAX_COMMENT_BYTES or not COMMENT_PREFILTER.search(source):
        return CommentScan([], skipped)
    parsed = parse_file(source, spec)  # nearly every file the prefilter lets through holds a comment block
    blocks = _comment_blocks(comment_nodes(parsed.root, spec), source) if parsed.root is not None else []
    if not blocks:
        return CommentScan([], skipped)
    chunks = parsed.chunks
    lines = source.decode("utf-8", "replace").splitlines()
    out: list[tuple[WarningComment, str | None]] = []
    for first, last, raw in blocks:
        said_lines = [COMMENT_MARKERS.sub("", line).strip() for line in raw.splitlines()]
        tag, at = _tag_mark(said_lines)
        doc = DOC_COMMENT.match(raw) is not None
        line = first
        if tag is not None and doc:  # a documentation comment's warning is the tag's paragraph, not the whole block
            said_lines, line = _paragraph(said_lines, at), first + at
        elif tag is not None and (run := _tagged_run(said_lines, at, tag)) is not None:
            said_lines, line = run, first + at  # the lines that repeat its tag are its paragraph
        said_lines, note_at = stamped_note(said_lines, _warns)  # "26-Nov-2015, tatu: …": the stamped note, unstamped
        line += note_at
        text = url_last(lines_as_text(without_markup(said_lines)))  # "https://… There must be …": the link last
        phrase = _warning_phrase(text)
        if (tag is None and phrase is None) or len(text.split()) < MIN_COMMENT_WORDS:
            continue
        if tag is None and (doc or header_comment(text)):  # "/* ====== …": a function's header box
            skipped[Noise.DOCSTRING] += 1
            continue
        if (tag is None or tag in CALLER_TAGS) and (doc or documents_declaration(text, lines, last)):
            skipped[Noise.DOC_COMMENT] += 1
            continue
        if not is_product_path(path):
            skipped[Noise.TOOLING_CODE if TOOLING_PATH.search(path) else Noise.TEST_COMMENT] += 1
            continue
        if banner(text):  # "--- parsing: input data must not be retained ---": a section's title
            skipped[Noise.COMMENT_FRAGMENT] += 1
            continue
        if text.rstrip().endswith("?"):
            skipped[Noise.OPEN_QUESTION] += 1
            continue
        if COMMENT_TASK.search(text) or TAGGED_TASK.search(text):
            skipped[Noise.COMMENT_TASK] += 1
            continue
        if COMMENT_DEFENSIVE.search(text) or defensive_failure(text):
            skipped[Noise.COMMENT_DEFENSIVE] += 1
            continue
        untagged = WARNING_TAG.sub("", text)
        said_text = SAFETY_MARKER.sub("", untagged.lstrip(" :-–—"))
        must_only = tag is None and WARNING_OPENING.search(without_code_spans(text)) is None
        if must_only and describes_value(said_text):  # "set if current block must be flushed"
            skipped[Noise.DOCSTRING] += 1
            continue
        if CONTRACT_REFERENCE.search(said_text):
            skipped[Noise.COMMENT_CONTRACT] += 1
            continue
        if _suppresses_lint(lines, first, last) or argues_with_tool(said_text):
            skipped[Noise.LINT_SUPPRESSION] += 1
            continue
        if CROSS_REFERENCE.match(said_text):
            skipped[Noise.COMMENT_CROSS_REFERENCE] += 1
            continue
        if (
            JUSTIFICATION_OPENING.search(said_text)
            or (must_only and is_deduction(said_text))
            or WORKAROUND_JUSTIFICATION.search(said_text)
        ):
            skipped[Noise.COMMENT_JUSTIFICATION] += 1
            continue
        words = len(text.split()) - (1 if tag else 0)
        short = words < (MIN_TAGGED_COMMENT_WORDS if tag else MIN_PHRASE_COMMENT_WORDS)
        if short or _continues(said_text, lines, first) or fragment_read_alone(said_text):
            skipped[Noise.COMMENT_FRAGMENT] += 1
            continue
        if _about_import(lines, first, last):
            skipped[Noise.IMPORT_COMMENT] += 1
            continue
        said, code = content_words(untagged), content_words(_code_after(lines, first, last))
        if _restates(said, code):
            skipped[Noise.RESTATES_CODE] += 1
            continue
        if states_default(said_text) or narrates_shortcut(said_text) or not gives_reason(text, tagged=tag is not None):
            skipped[Noise.COMMENT_NO_REASON] += 1
            continue
        holder = _enclosing(chunks, first, last, lines)
        if (holder is not None and in_test_module(holder.symbol)) or in_test_item(chunks, first, last, lines):
            skipped[Noise.TEST_COMMENT] += 1  # in a `mod tests`, or a `#[test] fn` beside the product's code
            continue
        if holder is not None and type_only(holder, spec.name):
            skipped[Noise.TYPING_CODE] += 1  # a TypeScript type alias or interface: nothing there runs
            continue
        if holder is not None and _in_plain_sight(said, code, holder):
            skipped[Noise.IN_PLAIN_SIGHT] += 1
            continue
        kind = tag or (phrase.group(1).lower() if phrase else "")
        text = clip_sentences(_with_subject(text, lines, first, raw), MAX_COMMENT_CHARS)
        out.append((WarningComment(line, text, kind), holder.symbol if holder else None))
    return CommentScan(out, skipped)


def _warning_phrase(text: str) -> re.Match[str] | None:
    """Where the comment warns in words (WARNING_OPENING, else "must" in a short one), outside its code spans: the
    type `never` is code."""
    words = without_code_spans(text)
    phrase = WARNING_OPENING.search(words)
    if phrase is None and len(words.split()) <= MAX_MUST_WORDS:
        phrase = WARNING_MUST.search(words)
    return phrase


def _warns(lines: list[str]) -> bool:
    """Lines of a comment that carry a warning: a tag that marks one, or warning words."""
    return _tag_mark(lines)[0] is not None or _warning_phrase(lines_as_text(lines)) is not None


def _continues(said: str, lines: list[str], first: int) -> bool:
    """The comment carries on a sentence begun above it (CONTINUATION) on a line of its own; a trailing comment's
    subject is the code on its line (``_with_subject``)."""
    own = lines[first - 1].strip() if 0 < first <= len(lines) else ""
    return COMMENT_MARKERS.match(own) is not None and CONTINUATION.match(said) is not None


def _with_subject(text: str, lines: list[str], first: int, raw: str) -> str:
    """A trailing comment that opens on its verb (SUBJECTLESS) said with its subject, the code on its line
    ("`jv_free(a)` must come after …"); any other comment as it is."""
    if not SUBJECTLESS.match(text) or "\n" in raw:
        return text
    own = lines[first - 1] if 0 < first <= len(lines) else ""
    at = own.find(raw.strip())
    code = own[:at].strip().rstrip(";{").strip().lstrip("}").strip() if at > 0 else ""
    if not code or not re.search(r"\w", code) or "`" in code or len(code) > MAX_QUOTED_CODE_CHARS:
        return text
    return f"`{code}` {text}"


def documents_declaration(text: str, lines: list[str], last: int) -> bool:
    """A comment block right above a declaration whose first word is the declared name ("SetCookie adds a …" over
    ``func (c *Context) SetCookie``): Go's doc comment convention, caller documentation in any language."""
    first = re.match(r"(?:(?:A|An|The)\s+)?`?([A-Za-z_]\w*)", text)
    below = next((line for line in lines[last:] if not line.strip().startswith("@")), "")  # past annotations
    return (
        first is not None
        and bool(DECLARATION.match(below))
        and re.search(rf"\b{re.escape(first.group(1))}\b", below) is not None
    )


def gives_reason(comment: str, *, tagged: bool | None = None) -> bool:
    """The warning says why or what goes wrong otherwise (COMMENT_REASON, or a clause of its own after a colon or
    dash: ``mine_comment_rules.reason_clause``), not only what to do. In a comment with no tag, an error word alone
    (TOPIC_REASON) counts only in a frame of consequence (CONSEQUENCE_FRAME): a tag marks a warning on purpose
    ("XXX: the gateway rejects totals over 10k"), a bare "don't"/"must" often only names what the next line
    handles."""
    if tagged is None:
        tagged = _tag_mark([comment])[0] is not None
    said = WARNING_TAG.sub("", comment).lstrip(" :-–—")
    warning = _warning_phrase(said)
    if reason_clause(said, warning.start(1) if warning else None):
        return True
    found = [m.group(0).strip(" ,;:(") for m in COMMENT_REASON.finditer(said) if not _listed(said, m)]
    if tagged:
        return bool(found)
    return any(not TOPIC_REASON.fullmatch(w) for w in found) or bool(found and CONSEQUENCE_FRAME.search(said))


def _listed(said: str, found: re.Match[str]) -> bool:
    """A reason word that is only an alternative in a list (", or" in "Must be Func, Map, or Slice")."""
    return found.group(0)[:1] in ",;:(" and listed_or(said, found.start())


def near_keys(text: str) -> set[str]:
    """The comment's words with one of them masked, each way: two comments share a key when they differ by at most
    one word ("FIXME Gt is unused …" and "FIXME Eq is unused …"); none for a comment shorter than
    NEAR_DUPLICATE_MIN_WORDS."""
    words = re.findall(r"\w+", text.lower())
    if len(words) < NEAR_DUPLICATE_MIN_WORDS:
        return set()
    return {" ".join([*words[:i], "*", *words[i + 1 :]]) for i in range(len(words))}


def content_words(text: str) -> set[str]:
    """Lowercased words of ``text``, identifiers split into their parts, plural "s" dropped, function words out."""
    out: set[str] = set()
    for word in re.findall(r"[A-Za-z][A-Za-z0-9_']*", text):
        for part in [word, *word.split("_"), *IDENTIFIER_PART.findall(word)]:
            w = part.lower().strip("_'")
            if len(w) >= MIN_CONTENT_CHARS and w not in FUNCTION_WORDS:
                out.add(w[:-1] if w.endswith("s") and len(w) > MIN_CONTENT_CHARS else w)
    return out


def restates_code(comment: str, code: str) -> bool:
    """Every content word of the comment (RESTATES_CODE_SHARE of them) is in the code it sits on: it says nothing
    the code does not."""
    return _restates(content_words(WARNING_TAG.sub("", comment)), content_words(code))


def _restates(said: set[str], code: set[str]) -> bool:
    return bool(said) and len(said & code) >= RESTATES_CODE_SHARE * len(said)


def _in_plain_sight(said: set[str], code: set[str], holder: Chunk) -> bool:
    """A short symbol (PLAIN_SIGHT_LINES or fewer) whose next lines already say a good part of what the comment says
    (PLAIN_SIGHT_SHARE of its content words ``said``, PLAIN_SIGHT_WORDS at least, keywords aside): whoever opens it
    reads the comment and the code it describes at once, and a diagnostic repeating it adds nothing ("RFC 6455: the
    method of the request MUST be GET" over ``if request.method != "GET"``)."""
    if holder.end_line - holder.start_line + 1 > PLAIN_SIGHT_LINES:
        return False
    shared = len(said & (code - CODE_KEYWORDS))
    return shared >= PLAIN_SIGHT_WORDS and shared >= PLAIN_SIGHT_SHARE * len(said)


def _code_after(lines: list[str], first: int, last: int) -> str:
    """The code a comment sits on: the code before it on its first line (a trailing comment) and the next
    COMMENT_CONTEXT_LINES lines that are code."""
    own = lines[first - 1] if 0 < first <= len(lines) else ""
    marker = own.find("#") if "#" in own else own.find("//")
    code = [own[:marker]] if marker > 0 and own[:marker].strip() else []
    for line in lines[last:]:
        stripped = line.strip()
        if stripped and not COMMENT_MARKERS.match(stripped):
            code.append(stripped)
            if len(code) > COMMENT_CONTEXT_LINES:
                break
    return "\n".join(code)


def _suppresses_lint(lines: list[str], first: int, last: int) -> bool:
    """A suppression directive on the comment's own lines or on the line right after it (LINT_SUPPRESSION)."""
    return any(LINT_SUPPRESSION.search(line) for line in lines[max(first - 1, 0) : last + 1])


def _about_import(lines: list[str], first: int, last: int) -> bool:
    """The comment sits on an import, or right above one (the next line that is neither blank nor comment)."""
    if first - 1 < len(lines) and mine_code.is_import(lines[first - 1]):
        return True
    for line in lines[last:]:
        stripped = line.strip()
        if stripped and not COMMENT_MARKERS.match(stripped):
            return mine_code.is_import(stripped)
    return False


def _tag_mark(lines: list[str]) -> tuple[str | None, int]:
    """The warning tag that marks the comment (TAG_MARK) and the line it is on; (None, 0) when none does."""
    for i, line in enumerate(lines):
        if found := TAG_MARK.search(line):
            return found.group(1) or found.group(2), i
    return None, 0


def _paragraph(lines: list[str], at: int) -> list[str]:
    """The documentation comment's paragraph that starts at line ``at``: up to a blank line or the next block tag."""
    end = next((i for i in range(at + 1, len(lines)) if DOC_PARAGRAPH_END.match(lines[i])), len(lines))
    return lines[at:end]


def _tagged_run(lines: list[str], at: int, tag: str) -> list[str] | None:
    """A comment whose tag opens its continuation lines too (``# XXX: This can be confused by … with`` /
    ``# XXX: a non-attrs class …``): the run of lines that repeat the tag, the repeats dropped; None when the next
    line does not repeat it. Those lines are the tag's paragraph: untagged lines above it narrate the code."""
    opens = re.compile(rf"^{tag}\b(\([^)]*\))?:?\s*")
    if not opens.match(lines[at]) or at + 1 >= len(lines) or not opens.match(lines[at + 1]):
        return None
    end = next((i for i in range(at + 1, len(lines)) if not opens.match(lines[i])), len(lines))
    return [lines[at], *(opens.sub("", line, count=1) for line in lines[at + 1 : end])]


def _comment_blocks(nodes: Iterable[Node], source: bytes) -> list[tuple[int, int, str]]:
    """Comments as (first line, last line, text): adjacent comments on lines of their own joined into one
    block; tool directives (``# type: ignore``, ``# noqa`` …) left out."""
    blocks: list[list[Any]] = []
    alone_before = False
    for node in nodes:
        first, last = node.start_point.row + 1, last_line(node)  # a Rust `//` ends on the next line, at column 0
        text = source[node.start_byte : node.end_byte].decode("utf-8", "replace").rstrip("\r\n")
        if DIRECTIVE.match(COMMENT_MARKERS.sub("", text).strip()):
            alone_before = False
            continue
        line_start = source.rfind(b"\n", 0, node.start_byte) + 1
        alone = not source[line_start : node.start_byte].strip()  # not trailing code on its line
        if blocks and alone and alone_before and blocks[-1][1] == first - 1:
            blocks[-1][1] = last
            blocks[-1][2] += "\n" + text
        else:
            blocks.append([first, last, text])
        alone_before = alone
    return [(int(b[0]), int(b[1]), str(b[2])) for b in blocks]


def _decorators(lines: list[str], last: int) -> int:
    """Decorator lines right below line ``last`` (a definition's chunk may start after them)."""
    n = 0
    while last + n < len(lines) and lines[last + n].lstrip().startswith("@"):
        n += 1
    return n


def _enclosing(chunks: list[Chunk], first: int, last: int, lines: list[str]) -> Chunk | None:
    """The symbol right below the comment (a comment on a def, even among a class's methods), else the innermost
    named symbol holding it: a warning above a method is about that method, never its whole class."""
    named = [c for c in chunks if not c.symbol.startswith(MODULE_SYMBOL)]
    inside = [c for c in named if c.start_line <= first and last <= c.end_line]
    holder = min(inside, key=lambda c: c.end_line - c.start_line) if inside else None
    below = [
        c for c in named
        if c.start_line == last + 1 + _decorators(lines, last)
        and (holder is None or (holder.start_line <= c.start_line and c.end_line <= holder.end_line))
    ]  # fmt: skip
    if below:
        return min(below, key=lambda c: c.start_line)
    return holder


def _read_regular(root: Path, inside: str, path: str) -> bytes | None:
    """A work-tree file's bytes when it is a regular file (never a link, device or FIFO, never reached through a
    folder leading out of ``inside``, the tree's real path) under the size cap."""
    try:
        return untrusted.read_head(root / path, MAX_COMMENT_BYTES, inside, whole=True)
    except (untrusted.RefusedFile, OSError, ValueError):
        return None


def comment_fingerprint(path: str, symbol: str | None, text: str) -> str:
    """What names one warning comment's suggestion for good: its place and its words (``comment:<file>::<symbol>:
    <sha1 of the text>``)."""
    place = f"{path}::{symbol}" if symbol else path
    return f"comment:{place}:{hashlib.sha1(text.encode('utf-8')).hexdigest()}"


def fingerprints_in(ws: Workspace, path: str) -> set[str]:
    """The fingerprints of every warning comment in a work-tree file as it is now, before any rule of
    :func:`comment_suggestions` leaves one out (empty when the file is gone or not readable)."""
    source = _read_regular(ws.root, os.path.realpath(ws.root), path)
    if source is None:
        return set()
    return {comment_fingerprint(path, symbol, comment.text) for comment, symbol in warning_comments(path, source).found}


@dataclass(slots=True)
class CommentSuggestions:
    suggestions: list[Suggestion]
    skipped: Counter[str]


def comment_suggestions(
    ws: Workspace, paths: Iterable[str], head: HeadIndex, created_at: str, sha: str
) -> CommentSuggestions:
    """One gotcha per warning comment on a symbol (the same words twice, or but for one name, are one lesson)."""
    out: list[Suggestion] = []
    skipped: Counter[str] = Counter()
    seen: set[str] = set()
    near: set[str] = set()
    inside = os.path.realpath(ws.root)
    for path in paths:
        source = _read_regular(ws.root, inside, path)
        if source is None:
            continue
        scan = warning_comments(path, source)
        skipped.update(scan.skipped)
        for comment, symbol in scan.found:
            anchor = ANCHOR_SYMBOL if symbol and head.has_symbol(path, symbol) else ANCHOR_FILE
            chunk = head.chunk(path, symbol) if symbol and anchor == ANCHOR_SYMBOL else None
            if chunk is not None and broad(chunk):  # a warning on a whole class: "this" has no referent there
                skipped[Noise.BROAD_ANCHOR] += 1
                continue
            if anchor != ANCHOR_SYMBOL:  # a warning on no symbol would be shown on every edit of its file
                skipped[Noise.COMMENT_FILE_ANCHOR] += 1
                continue
            same = " ".join(comment.text.lower().split())
            if same in seen:
                skipped[Noise.DUPLICATE] += 1
                continue
            seen.add(same)
            variants = near_keys(comment.text)
            if variants & near:
                skipped[Noise.COMMENT_NEAR_DUPLICATE] += 1
                continue
            near.update(variants)
            out.append(
                Suggestion(
                    fingerprint=comment_fingerprint(path, symbol, comment.text),
                    type=MemoryType.GOTCHA,
                    text=lesson_text(comment_headline(comment.text, head.where(path, symbol))),
                    source=MemorySource.COMMENT,
                    created_at=created_at,
                    file=path,
                    symbol=symbol,
                    provenance={"anchor": anchor, "kind": comment.kind, "line": comment.line, "head": sha},
                )
            )
    return CommentSuggestions(out, skipped)
