"""Writing a mined lesson: a headline that says what to do or avoid and where, then the why, in the
commit's or comment's own words (pure text, no model).

A commit message is raw material: a subject ("Fix crash when body is None"), a body that may explain
the cause, trailers, issue numbers, bullet logs of a squash. :func:`why` keeps only the sentences that
explain (cause or rationale words) and never the subject again; the headline turns the subject into
advice on the anchored symbol ("Avoid reintroducing a bug in `send`: crash when body is None."). The
evidence (commit, date, author) is not repeated in the text: it travels in the provenance and every
front end prints it beside the text.

The headline half (subjects said as advice, the lesson's text) lives in :mod:`forewarn.workspace.mine_headlines` and
is re-exported here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from forewarn.workspace.mine_error_text import error_signature
from forewarn.workspace.mine_headlines import (
    CONVENTIONAL_TAIL,
    NO_FIX_TYPES,
    SUBJECT_REFS,
    WHY_MARK,
    WORD,
    clean_subject,
    comment_headline,
    dead_end_headline,
    decision_headline,
    fix_headline,
    hotspot_headline,
    lesson_text,
    said,
    vague,
    where,
)
from forewarn.workspace.mine_why import (
    ABOUT_AN_EXAMPLE,
    ELIDED_AFTER_JOIN,
    INNER_POINTER,
    POINTS_BACK_MORE,
    as_before,
    describes_change,
    inline_code,
    squash_items,
    states_fault,
)

WHY_SENTENCES = 2  # the explaining sentences kept: the cause and its consequence, rarely more
WHY_MAX_CHARS = 420  # a hover shows ~6 lines of text: the why must leave room for the headline
# one explaining sentence longer than WHY_MAX_CHARS is still kept whole up to this (never cut mid-sentence: a cut
# why drops its point); a longer one is an essay, and the lesson says nothing beyond its headline
WHY_LONG_SENTENCE_CHARS = 600
ANTECEDENT_SENTENCES = 2  # a why pointing back brings at most this many sentences before it: a chain longer is a story
MIN_WHY_WORDS = 5  # "because of #12" explains nothing
# a why sentence this similar to the subject (shared words / all words) restates it: "never a subject copied twice"
RESTATES_SUBJECT = 0.7

TRAILER = re.compile(
    r"^(Signed-off-by|Co-authored-by|Co-Authored-By|Change-Id|Reviewed-by|Reviewed-on|Acked-by|Tested-by|"
    r"Reported-by|Suggested-by|Cc|Helped-by|Cherry-picked-from|Bug|Fixes|Closes|Refs|See-also|"
    r"Differential Revision|git-svn-id)\s*:.*$",
    re.IGNORECASE,
)
# git's list of conflicted files, left in merge and cherry-pick messages: bookkeeping, not a reason
CONFLICTS_HEADER = re.compile(r"^#?\s*Conflicts:\s*$")
# git's own line in a revert: "This reverts commit <sha>." and, for a merge, "…, reversing\nchanges made to <sha>."
REVERT_BODY_LINE = re.compile(
    r"^This reverts commit (?P<sha>[0-9a-f]{7,64})(,\s+reversing\s+changes\s+made\s+to\s+[0-9a-f]{7,64})?\.?[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
CHERRY_PICK_LINE = re.compile(r"^\(cherry picked from commit [0-9a-f]{7,64}\)\s*$", re.IGNORECASE | re.MULTILINE)
# lines that carry no sentence: issue references, bare links, quoted replies, horizontal rules
NOT_PROSE = re.compile(
    r"^\s*((fix(es|ed)?|close[sd]?|resolve[sd]?|see|refs?)\s*:?\s*#?\d+\.?|https?://\S+|>.*|[-=*_]{3,})\s*$", re.I
)
FENCE = re.compile(r"^\s*(```|~~~)")
# a line of a command example, not prose: a shell prompt or a shell comment ("$ make", "  # The first line …"), an
# interpreter prompt (">>> f()"); indented, also a command with options or a pipe ("  printf '%s' 0 | fzf --wrap")
PROMPT_LINE = re.compile(r"^\s*(\$|%|>>>)\s+\S")
INDENTED_CODE_LINE = re.compile(
    r"^(  |\t)\s*(#\s|[a-z][\w.-]*\s+(?=\S)(?:[^.!?]*\s)?(-{1,2}[a-zA-Z][\w-]*|\|\s*[a-z][\w.-]*)(\s|=|$))"
)
MARKDOWN_HEADING = re.compile(r"^#{1,6}\s+\S")  # "## Summary": a pull request template's heading, not a sentence
# the author's story told at the end of a reason ("…, which is how I spotted this issue"): no part of the reason
AUTHOR_STORY = re.compile(
    r",\s*(which|that) (is|was) how (i|we) (first )?(spotted|found|noticed|discovered|caught|hit|ran into|came across)"
    r"\b[^.!?]*(?=[.!?]?$)",
    re.IGNORECASE,
)
# a clause at the end of a reason that only tells about the tests (", but because there were no tests for the case, it
# wasn't caught"): the reason before it stands alone, the clause is left out (ABOUT_TESTS: a sentence that is about
# the tests from its start is left out whole)
TESTS_TAIL = re.compile(r",\s*(but|and|so|though|although|which)\b(?P<clause>[^.!?]*)[.!?]?$", re.IGNORECASE)
BULLET = re.compile(r"^\s*([-*+•]|\d+[.)])\s+")
# a sentence ends at ".", "!" or "?" before a capital, code or a quote; not after "e.g." or "i.e." ("could produce
# e.g. `/1Type/:id`"), "cf.", "vs." or "viz.", which go on
SENTENCE_END = re.compile(
    r"(?<![ (]e\.g\.)(?<![ (]i\.e\.)(?<![ (]E\.g\.)(?<![ (]I\.e\.)(?<![ (]cf\.)(?<![ (]vs\.)(?<![ (]viz\.)"
    r"(?<=[.!?])\s+(?=[A-Z`\"'(\[])"
)
# a list written as lines with no full stops ("Error on nan codepoint, would assert before" / "Replace negative
# codepoint …"): a line that ends in no punctuation, broken where the next line's first word would still have fit
# (the paragraph's longest line shows how wide its author wrapped), before a capitalised word, ends its sentence
LINE_CAPITALISED = re.compile(r"^[A-Z][a-z]+\b")
MIN_LIST_LINE_WORDS = 3

# words that join what comes before them to what follows: no sentence opens on one (FRAGMENT) nor ends on one
# (OPEN_END); mine_rules' JOINING_WORDS adds the prepositions a wrapped subject stops on
CONNECTIVES = r"and|or|nor|but|of|than|which|whose"
LOWER_WORD = re.compile(
    r"^[a-z]+(\s|[,;:]|\.(\s|$)|$)"
)  # a plain word in lower case, no name (`f()`, `x.y`): mid-sentence
# a sentence that stops mid-clause: its rest was a block left out (code, an indented list) or never written ("result
# in the", "_without_ an isolation level,"); ended there with a period it reads as a cut-off fragment
OPEN_END = re.compile(
    rf"([,;(\[-]|\b(the|a|an|{CONNECTIVES}|if|because|since|while|its|their|our))\s*$",
    re.IGNORECASE,
)
# sentences that explain nothing about the code: side notes about other changes, hedges, questions
SIDE_NOTE = re.compile(
    r"^((we |i )?also|additionally|plus|in addition|unrelated(ly)?|while (i was|i'm|at it)|p\.?s\.?)\b"
    r"|^i\b"  # "I realized …", "I wasn't sure …": the author's story, not the code's
    r"|^(this|the|that) (commit|change|patch|pr|pull request|fix) (also|additionally)\b|^it also\b",  # jq 83f375c
    re.IGNORECASE,
)
# an option the author did not take ("An alternative to this code would be reverting …", "Another approach would
# be …", "Alternatively, …", "it wouldn't be much effort to make them …"): no cause of the code as it is. A sentence
# that points back at one ("This approach is more backwards compatible, …") is lost with it
ALTERNATIVE = re.compile(
    r"^alternatively\b|^(an?|one|another) (other |possible |simpler |different )?(alternative|option|approach|"
    r"solution|way|fix)\b[^.;]{0,80}?\b(would|could|might)\b"
    r"|\b(would|could|might)(n't| not)? (also |just |easily )?(be|take|require|cost) (not )?"
    r"((much|any|little|a lot of|too much|more|less|some|extra) )?(effort|work|trouble)\b",
    re.IGNORECASE,
)
# an opinion of the old code that names no failure ("This regexp was already questionable because of the use of ^
# and $"): an aside, not the reason for the change (one that names a failure, NAMES_FAILURE, is kept)
OPINION = re.compile(
    r"\b(questionable|dubious|hacky|ugly|smelly|icky|gross|inelegant|not (very |particularly )?(pretty|elegant))\b",
    re.IGNORECASE,
)
# a sentence whose point is a block that follows ("The following code snippet does not cause …", "… as follows", "the
# output below"): the block was left out, the sentence alone points at nothing. "The following "set" on that key"
# names no block, and "… with the following message: <it>" holds what it points at (:func:`points_ahead`)
BLOCK_NOUNS = (
    r"code|snippet|example|output|error|message|log|command|program|script|trace|backtrace|traceback|lines?|text|"
    r"config(uration)?|patch|diff|input|query|request|test ?case|reproduction|repro"
)
POINTS_AHEAD = re.compile(
    rf"\bthe following ([\w-]+ ){{0,2}}?({BLOCK_NOUNS})s?\b|\bas follows\b|\b({BLOCK_NOUNS})s? (below|beneath)\b"
    # … or precedes it ("In the above examples, the first failure mode …"): a block is never a sentence
    rf"|\bthe (above|preceding) ([\w-]+ ){{0,2}}?({BLOCK_NOUNS})s?\b|\b({BLOCK_NOUNS})s? above\b",
    re.IGNORECASE,
)
HEDGE = re.compile(
    # "… nor could I think of anything" is no hedge: a question's word order, "think of" (a way, a reason)
    r"\b((?<!could )(?<!can )(?<!would )(?<!did )i think(?! of\b)|i believe|maybe|probably|perhaps|i guess|hopefully|"
    r"should (work|be fine)|"  # "not sure": UNSURE
    r"(might|may|would) be nice|seems to work|for now)\b",
    re.IGNORECASE,
)
# a why that says the author does not know the cause, or that nothing was wrong ("Not entirely sure why this fails,
# but this fixes it in the meanwhile", "This is actually not really an issue here … but it doesn't hurt to check")
UNSURE = re.compile(
    r"\b(not (entirely |really |quite |totally |completely |100% )?sure|no idea|(don't|do not|didn't|did not) "
    r"(really |fully )?(know|understand) why|in the mean ?(time|while)|not (really |actually )?an? (issue|problem|bug)|"
    r"(doesn't|does not|won't|will not|can't|cannot) hurt|just in case|to be (on the )?safe( side)?|defensive(ly)?)\b",
    re.IGNORECASE,
)
# a sentence that tells the code what to do ("Coerce the values …", "If X, throw …", "Explicitly delete …") describes
# the change, not why it was needed
IMPERATIVE = re.compile(
    r"^((if|when|for|in)\b[^,;]{0,80},\s*)?(explicitly |now |also |just |simply |instead |then |so )?"
    r"(add|allow|call|change|check|coerce|convert|copy|create|delete|drop|emit|escape|expose|fix|handle|ignore|"
    r"implement|keep|make|move|pass|raise|read|remove|rename|replace|reset|restore|return|reuse|send|set|skip|"
    r"split|store|strip|support|switch|throw|trim|try|update|use|wrap|write|follow|"
    r"annotate|clarify|comment|document|explain|mention)\b(?!-)",  # … or what it says in a comment
    re.IGNORECASE,
)
# what makes an imperative sentence a reason when no stronger words are asked for: a cause given with it ("Keep the
# lock, otherwise …", "Use X because …") or a failure named (WENT_WRONG_BEFORE)
NAMES_FAILURE = (
    r"caus(e|es|ed|ing)|broke|breaks|broken|fail(s|ed|ing|ure)?|crash\w*|bugs?|regress\w*|errors?|exceptions?|"
    r"hangs?|leak\w*|corrupt\w*|wrong(ly)?|incorrect(ly)?|races?"
)
FAILS = re.compile(rf"\b({NAMES_FAILURE})\b", re.IGNORECASE)
# … or a standard the change complies with ("… to generate RFC 3986 compliant file URLs"): a constraint
COMPLIES = r"compliant|compliance|conform(s|ing|ant|ance)?|compl(y|ies|ied) with|rfc ?\d{3,}"
GIVES_CAUSE = re.compile(
    rf"\b(because|since|otherwise|so that|in order to|due to|{NAMES_FAILURE}|{COMPLIES})\b", re.IGNORECASE
)
# a sentence that says the change fixes what the subject names ("This fixes hyperlinks failing on Windows when file
# paths contain spaces …" under "Fix Windows hyperlinks for paths with spaces"): the headline again, longer
FIXES_OPENING = re.compile(
    r"^(this|it|that)( (change|commit|patch|pr|pull request|fix))?( should| will)? "
    r"(fix(es)?|resolves?|solves?|address(es)?|corrects?)\b",
    re.IGNORECASE,
)
SUBJECT_STEM = 5  # subject words compared by their first letters: "paths" and "path", "hyperlink" and "hyperlinks"
FUNCTION_WORDS = frozenset(("with", "from", "when", "that", "this", "into", "onto", "over", "than", "then", "they"))
MIN_SUBJECT_STEMS = 2  # a subject of fewer content words is too short to tell it said again
# a footnote or a quotation ('[1] "If Content-Length is set, …"'): someone else's words, not the reason
QUOTED = re.compile(r"^\s*(\[\d+\]|[\"'“‘>])")
# a sentence that opens by pointing back ("This broke …", "As such …") needs the one before it to be understood
# ("In Drop, this causes a double panic": a short opening phrase before the pronoun changes nothing; "In order to …,
# this …" is the change saying what it is for)
POINTS_BACK = re.compile(
    r"^((?!in order\b)(in|on|at|for|with|during|after|before|without|under)\b[^,.;:]{1,40},\s*"
    r"(?=(this|that|these|those|it)\b))?"
    r"(this|that|these|those|it|as such|so|thus|therefore|hence|which|otherwise)\b"
    rf"|{POINTS_BACK_MORE.pattern}",  # "And as a result, …", "A non-enumerable one …" (mine_why)
    re.IGNORECASE,
)
# a paragraph that opens on a side note ("Also, `sd_journal_send` can add …. That's typically not what we want, …"):
# every sentence of it is about the other change, none is the why
SIDE_PARAGRAPH = re.compile(
    r"^((we |i )?also|additionally|in addition|plus|unrelated(ly)?|while (i was|i'm|at it)|p\.?s\.?)\b"
    r"|^(this|the|that) (commit|change|patch|pr|pull request|fix) (also|additionally)\b|^it also\b",
    re.IGNORECASE,
)
# a sentence that opens on a contrast ("However, we only do this for …", "But the temp files … will not be removed")
# states an exception to the change, not its reason: it stands for the sentence it contrasts with, or for nothing …
CONTRAST = re.compile(
    r"^(however|but|yet(?=,)|(al)?though(?=,)|nevertheless|nonetheless|that said|on the other hand|even so|"
    r"having said that)\b",
    re.IGNORECASE,
)
# … unless it tells what went wrong ("However, there was a race condition …", "But it caused the problem where …",
# "However, this broke `npm install`"): then it is the cause, the sentence before it what was meant to happen
WENT_WRONG_BEFORE = re.compile(
    r"\b(was|were|wasn't|weren't|had|hadn't|did|didn't|would(n't| not)|could(n't| not)|caus(e|es|ed|ing)|broke|"
    r"broken|(?-i:breaks?)|race|problems?|bugs?|issues?|wrong(ly)?|incorrect(ly)?|inaccurate|fail(s|ed|ing|ure)?|"
    r"crash\w*|hangs?|leak\w*|lost|los(e|es|ing)|corrupt\w*|errors?|exceptions?|duplicat\w*|unwanted|side[- ]effects?|"
    r"not work(ing)?|result(s|ed)? in|lead(s|ing)? to|leading to|noticeable)\b",
    re.IGNORECASE,
)
# … or what would happen otherwise ("However, if we calculate it on the matched part only, the result is confusing")
CONTRAST_IF = re.compile(r"^(however|but),?\s+(if|when|without)\b", re.IGNORECASE)
# a sentence about the tests ("Add a failing test …", "Test that …") explains the test, not the code; so does one
# about the test runner's or the build's set-up ("Rewrite Vitest prod build config …") or about which case the tests
# now cover ("… and cover the bodyless request with no Content-Type header")
ABOUT_TESTS = re.compile(
    r"\b(tests?|test ?cases?|unit ?tests?|test suite|testing|vitest|jest|mocha|jasmine|karma|pytest|tox|"
    r"jmh|junit|testng|minitest|rspec|benchmarks?|"
    r"build config(uration)?|ci (jobs?|config(uration)?|pipelines?|workflows?))\b"
    r"|\bcover(s|ed|ing)? (the|a|an|this|that) [^.;]{0,80}\b(cases?|scenarios?)\b"
    # what a test or harness does now ("The supplied JMH always failed previously, and always passes now.")
    r"|\b(now|always) pass(es)?\s*[.,;]|\bpass(es)? now\b",
    re.IGNORECASE,
)
# a note for later given where a reason belongs: what might be done one day ("When Python 2 support is dropped, we
# can likely refactor this …", "… but this is a start", "TODO: …") says nothing about why the code is as it is now
TODO_NOTE = re.compile(
    r"\b(todo|fixme|in (the|a) future|(a |as a )?follow[- ]?ups?|this is (just )?a (start|first step)|"
    r"(we|you|one|someone) (can|could|might|may|will|should) (likely |probably |eventually |later |then |also )?"
    r"(refactor|remove|drop|simplify|revisit|improve|clean|get rid|rework|replace)|"
    r"(when|once|after) [^.;]{0,60}\b(is|are|gets?) (dropped|removed|gone|released|deprecated)|"
    r"could also benefit)\b",
    re.IGNORECASE,
)
# a sentence that starts mid-way, its subject lost with a block left out before it ("is preserved in all cases
# *except* …"): lower-case, opening on a verb or a joining word, it cannot be read alone
FRAGMENT = re.compile(rf"^(is|are|was|were|has|have|had|{CONNECTIVES})\b")
# a sentence that opens on what it cannot name alone: an elided clause about "it" ("If it doesn't, then …"), a
# connective pointing back ("Because of this, …", "To be fair, …") or the change as "this" ("This was done to …", "No
# change is required if …"); out of the message its antecedent is lost
ANAPHOR = re.compile(
    r"^((if|when|unless|since|because|as) (it|this|that|they|so|not)"
    r"( (does|do|did|is|are|was|were|has|have|can|could|would|will)(n't| not)?)?\s*[,.;]|"
    r"(because of|due to|as a result of|thanks to|despite) (this|that|it)\b|to be fair\b|"
    r"(this|that|it) (was|is) (done|added|needed|required|changed|made)\b|no change is (required|needed)\b)",
    re.IGNORECASE,
)


def excepts(sentence: str) -> bool:
    """The sentence opens on a contrast (CONTRAST) that states an exception to the change, not what went wrong
    (WENT_WRONG_BEFORE)."""
    return (
        CONTRAST.match(sentence) is not None
        and WENT_WRONG_BEFORE.search(sentence) is None
        and CONTRAST_IF.match(sentence) is None
    )


def aside(sentence: str) -> bool:
    """The sentence is no cause of the code as it is: an option the author did not take (ALTERNATIVE) or an opinion
    of the old code that names no failure (OPINION)."""
    return ALTERNATIVE.search(sentence) is not None or (
        OPINION.search(sentence) is not None and FAILS.search(sentence) is None
    )


def points_ahead(sentence: str) -> bool:
    """The sentence points at a block that follows it (POINTS_AHEAD) and does not hold it after a colon."""
    m = POINTS_AHEAD.search(sentence)
    return m is not None and re.search(r":\s*\S", sentence[m.end() :]) is None


def points_back(sentence: str) -> bool:
    """The sentence opens on what it points back to (ANAPHOR) or on an exception to it (:func:`excepts`: "However,
    we only do this for …"), or is one aside in parentheses from end to end ("(it would need to be /home/…
    instead)."): an aside to text left out. "(unstable) `Task` now requires …" is not."""
    if ANAPHOR.match(sentence) or ELIDED_AFTER_JOIN.match(sentence) or excepts(sentence):
        return True
    text = sentence.rstrip(" .!?…")
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0:
            return i == len(text) - 1  # the first parenthesis closes only at the end
    return False


def strip_trailers(body: str) -> str:
    """The body without trailer lines (Signed-off-by, Co-authored-by, Change-Id, …) and conflict lists."""
    lines: list[str] = []
    in_conflicts = False
    for line in body.splitlines():
        if CONFLICTS_HEADER.match(line):
            in_conflicts = True
            continue
        if in_conflicts and (line.startswith(("\t", "#\t", "  ")) or not line.strip()):
            continue
        in_conflicts = False
        if not TRAILER.match(line.strip()):
            lines.append(line)
    return "\n".join(lines).strip()


def sentences(body: str) -> list[str]:
    """The body's prose as sentences (:func:`paragraph_sentences`, one list)."""
    return [s for para in paragraph_sentences(body) for s in para]


def side_sentences(body: str) -> tuple[list[str], set[int]]:
    """The body's sentences (:func:`sentences`) and the indices of those about another change: every sentence of a
    side paragraph (SIDE_PARAGRAPH: "Also, …"), and one that points back (POINTS_BACK) at a side note (SIDE_NOTE)
    before it in its paragraph ("That's typically not what we want, …" after "Also, `f` can add …")."""
    found: list[str] = []
    side: set[int] = set()
    for para in paragraph_sentences(body):
        start = len(found)
        if para and SIDE_PARAGRAPH.match(para[0]):
            side.update(range(start, start + len(para)))
        side.update(
            start + k for k in range(1, len(para)) if POINTS_BACK.match(para[k]) and SIDE_NOTE.match(para[k - 1])
        )
        found.extend(para)
    return found, side


def paragraph_sentences(body: str) -> list[list[str]]:
    """The body's prose as sentences, paragraph by paragraph: trailers, revert lines, code blocks, command examples,
    headings, quotes and bare links left out, wrapped lines joined, a bullet's text kept as its own sentence, a line
    of a list written without full stops its own sentence (:func:`_list_lines`), the author's story at a sentence's
    end left out.

    An indented line that carries on a sentence left open on the line before ("… result in the" / "    stream being
    closed") is that sentence's wrapped text, not code: a block cannot open mid-sentence. A sentence still open at
    the end of its paragraph (its rest was a block left out), one that opens in lower case right after a block
    left out ("then using …", its start was the block) and a paragraph's last sentence left with no stop right
    before a block left out ("Previously, we would see errors like" / an indented error: it leads into the block)
    are fragments: none is kept."""
    text = inline_code(CHERRY_PICK_LINE.sub("", REVERT_BODY_LINE.sub("", strip_trailers(body))))
    paragraphs: list[list[str]] = [[]]
    cut: set[int] = set()  # paragraphs whose first sentence began in a block left out
    leads: set[int] = set()  # paragraphs whose last sentence, left open, led into a block left out
    fenced = left_out = kept = in_example = False  # kept: the line before was prose, added to the paragraph
    open_para: int | None = None  # the paragraph whose last line ended with no stop, blank lines after it only
    for line in text.splitlines():
        block = FENCE.match(line) or (line.strip() and (fenced or _block_line(line, kept, paragraphs[-1], in_example)))
        if block and open_para is not None:
            leads.add(open_para)
        if line.strip():
            open_para = None
        if FENCE.match(line):
            fenced, left_out = not fenced, True
            continue
        current = paragraphs[-1]
        carries_on = kept and current[-1][-1:] not in ".!?:" and LOWER_WORD.match(line.strip()) is not None
        kept = False
        if _example_line(line, carries_on, in_example) and not fenced:
            # a command example or a heading: what follows it starts anew, never glued to the text before it
            in_example = left_out = True
            if current:
                paragraphs.append([])
            continue
        in_example = False
        if fenced or (line.startswith(("    ", "\t")) and not (carries_on and not BULLET.match(line))):
            left_out = True
            continue
        if NOT_PROSE.match(line):
            left_out = True
            continue
        if not line.strip():
            paragraphs.append([])
            continue
        if BULLET.match(line):
            paragraphs.append([BULLET.sub("", line).strip()])
            left_out, kept = False, True
            continue
        if not current and left_out and LOWER_WORD.match(line.strip()):
            cut.add(len(paragraphs) - 1)
        current.append(line.strip())
        left_out, kept = False, True
        open_para = None if line.rstrip()[-1:] in ".!?:" else len(paragraphs) - 1
    out: list[list[str]] = []
    for n, para in enumerate(paragraphs):
        found = [s for part in _list_lines(para) for s in split_sentences(" ".join(part))]
        if n in cut:
            found = found[1:]
        if n in leads:
            found = found[:-1]
        # a sentence ending in ":" introduced a block left out (code, a list, a log): alone it says nothing
        out.append(
            [
                _without_tests_tail(AUTHOR_STORY.sub("", s))
                for s in found
                if not s.endswith(":") and OPEN_END.search(s) is None
            ]
        )
    return out


def _without_tests_tail(sentence: str) -> str:
    """The sentence without a last clause that only tells about the tests (TESTS_TAIL), when what comes before it
    names a failure (NAMES_FAILURE) and says nothing about the tests: a cause stated whole before the clause."""
    m = TESTS_TAIL.search(sentence)
    head = sentence[: m.start()] if m else ""
    if m is None or not ABOUT_TESTS.search(m["clause"]) or ABOUT_TESTS.search(head) or not FAILS.search(head):
        return sentence
    return sentence[: m.start()].rstrip() + "."


def _block_line(line: str, kept: bool, current: list[str], in_example: bool) -> bool:
    """The line opens or goes on with a block that :func:`sentences` leaves out: a command example, a heading, or an
    indented line that does not carry on the sentence before it."""
    carries_on = kept and current[-1][-1:] not in ".!?:" and LOWER_WORD.match(line.strip()) is not None
    if _example_line(line, carries_on, in_example):
        return True
    return line.startswith(("    ", "\t")) and not (carries_on and not BULLET.match(line))


def _example_line(line: str, carries_on: bool, in_example: bool) -> bool:
    """A line of a command example (a prompt, a shell comment, an indented command with options or a pipe, or an
    indented line right after one) or a markdown heading: no prose. An indented line that carries on the sentence
    before it is prose."""
    if not line.strip():
        return False
    if MARKDOWN_HEADING.match(line) or PROMPT_LINE.match(line):
        return True
    indented = line.startswith(("  ", "\t"))
    return indented and (in_example or (not carries_on and INDENTED_CODE_LINE.match(line) is not None))


def _list_lines(para: list[str]) -> list[list[str]]:
    """The paragraph's lines, split where a line ends a list item written without a full stop: it ends in no
    punctuation (a closing parenthesis aside) and no joining word, its item has MIN_LIST_LINE_WORDS words at
    least, the next line opens on a capitalised
    word, and that word would still have fit on the line (the paragraph's longest line shows how wide its author
    wrapped): the author broke the line, no editor did."""
    width = max((len(line) for line in para), default=0)
    parts: list[list[str]] = [[]]
    for i, line in enumerate(para):
        parts[-1].append(line)
        after = para[i + 1] if i + 1 < len(para) else ""
        if (
            after
            and (line[-1:].isalnum() or line[-1:] == ")")
            and OPEN_END.search(line) is None
            and len(" ".join(parts[-1]).split()) >= MIN_LIST_LINE_WORDS
            and LINE_CAPITALISED.match(after)
            and len(line) + 1 + len(after.split()[0]) <= width
        ):
            parts.append([])
    return [part for part in parts if part]


def lines_as_text(lines: Sequence[str]) -> str:
    """Lines of prose (a comment's, its markers gone) as one text: joined, a line that ends a sentence with no
    punctuation (:func:`_list_lines`: "… read it as double -0.0" / "Don't try to convert …") ended with a full stop,
    so that its sentences never run together."""
    parts = [" ".join(part) for part in _list_lines([line for line in lines if line])]
    return " ".join(part if k == len(parts) - 1 else _ended(part) for k, part in enumerate(parts)).strip()


def split_sentences(text: str) -> list[str]:
    """``text`` split at sentence ends (SENTENCE_END), never inside a code span: "`FORK ... BACKTRACK`" is one."""
    out: list[str] = []
    start = 0
    for m in SENTENCE_END.finditer(text):
        if text.count("`", 0, m.start()) % 2 and "`" in text[m.end() :]:
            continue  # inside an open code span that closes later
        out.append(text[start : m.start()])
        start = m.end()
    out.append(text[start:])
    return [s.strip() for s in out if s.strip()]


def clip_sentences(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, never cut inside a sentence when a whole one fits, never inside a word
    or a link: its first whole sentences, or (one sentence longer than ``limit``) its first whole words, then " …"
    to say the rest is left in the source."""
    if len(text) <= limit:
        return text
    room = limit - 2  # " …"
    kept = ""
    for sentence in split_sentences(text):
        joined = f"{kept} {sentence}".strip()
        if len(joined) > room:
            break
        kept = joined
    if not kept:
        space = text.rfind(" ", 0, room + 1)  # the last word that ends within the room
        kept = (text[:space] if space > 0 else text[:room]).rstrip(" ,;:-–—(")
    return f"{kept} …"


def _words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text)}


def restates(sentence: str, subject: str) -> bool:
    """The sentence says what the subject already says (most of its words are the subject's)."""
    own, subj = _words(sentence), _words(subject)
    return bool(own) and len(own & subj) / len(own) >= RESTATES_SUBJECT


def _stems(text: str) -> set[str]:
    words = (w.lower() for w in WORD.findall(text) if len(w) > SUBJECT_STEM - 2)
    return {w[:SUBJECT_STEM] for w in words if w not in FUNCTION_WORDS}


def fixes_the_subject(sentence: str, subject: str) -> bool:
    """The sentence says that the change fixes (FIXES_OPENING) what the subject names: every content word of the
    subject (MIN_SUBJECT_STEMS at least, the fix vocabulary aside) is in it."""
    named = _stems(subject) - _stems("fix fixed fixes fixing bug issue")
    return FIXES_OPENING.match(sentence) is not None and len(named) >= MIN_SUBJECT_STEMS and named <= _stems(sentence)


def _usable(sentence: str, subject: str, lenient: bool = False) -> bool:
    """A sentence that can stand in a lesson: long enough, no question, hedge or side note, not the subject again,
    not about the tests, no note for later, no fragment, no admission that the cause is unknown or that nothing was
    wrong (``lenient``: those allowed, to name what a why was left without)."""
    return not (
        len(WORD.findall(sentence)) < MIN_WHY_WORDS
        or sentence.rstrip().endswith("?")
        or QUOTED.match(sentence)
        or SIDE_NOTE.match(sentence)
        or aside(sentence)
        or HEDGE.search(sentence)
        or restates(sentence, subject)
        or fixes_the_subject(sentence, subject)
        or (
            not lenient
            and (
                ABOUT_TESTS.search(sentence)
                or TODO_NOTE.search(sentence)
                or FRAGMENT.match(sentence)
                or points_ahead(sentence)
                or points_back(sentence)
                or UNSURE.search(sentence)
            )
        )
    )


def _ended(sentence: str) -> str:
    return sentence if sentence[-1] in ".!?…" else sentence + "."


def why(
    body: str,
    subject: str,
    explains: re.Pattern[str],
    strong: re.Pattern[str] | None = None,
    lenient: bool = False,
    faults: bool = False,
) -> str:
    """The body's sentences that explain (match ``explains``; an imperative one, which says what the code now does,
    must match ``strong``), whole, the subject never repeated; "" when none does. ``lenient``: sentences about the
    tests, notes for later, fragments and unsure ones count too (only to say why a message was left without a why).
    ``faults``: when the body explains, a sentence that tells what the old code did wrong is its why first
    (:func:`_ranked`).

    At most WHY_SENTENCES of them, within WHY_MAX_CHARS (one alone up to WHY_LONG_SENTENCE_CHARS), in the body's
    order; a sentence that points back comes with the sentence before it when it can (:func:`_readings`). Never cut
    mid-sentence; the same fault said twice is said once. In a GitHub squash (:func:`squash_items`) the why is the
    first explaining item's, never two items' joined, never an item's title."""
    found, side, item_of = _item_sentences(body)
    starts = {k for k in range(1, len(found)) if item_of[k] != item_of[k - 1]}  # no antecedent across items
    picked = list(
        dict.fromkeys(i for i in _explaining(found, side, subject, explains, strong, lenient) if i is not None)
    )
    if faults and not lenient:
        picked = _ranked(found, side, subject, strong, picked)
    if picked:  # a squash's why is in the first item that explains
        picked = [i for i in picked if item_of[i] == min(item_of[k] for k in picked)]
    chosen: set[int] = set()
    for i in picked:
        if len(chosen.intersection(picked)) >= WHY_SENTENCES:
            break  # an antecedent brought along counts when it explains itself
        if i in chosen:
            continue
        readings = _readings(found, side, subject, lenient, i, i in starts)
        if not readings or (states_fault(found[i]) and restates(found[i], _joined(found, chosen))):
            continue  # no antecedent, or a fault said again ("The branch keyed off …" in a squash's later item)
        fitted = next((r for r in readings if len(_joined(found, chosen | set(r))) <= WHY_MAX_CHARS), None)
        if fitted is None:
            if not chosen and len(_joined(found, set(readings[-1]))) <= WHY_LONG_SENTENCE_CHARS:
                chosen = set(readings[-1])
            break
        chosen |= set(fitted)
    return _joined([as_before(s) for s in found] if faults else found, chosen)  # a fault told as if live: before


def _item_sentences(body: str) -> tuple[list[str], set[int], list[int]]:
    """:func:`side_sentences` of the body, and for each sentence the squash item it is in (:func:`squash_items`: an
    item's title is none of them); all in one item for a message that is no squash."""
    items = squash_items(strip_trailers(body))
    if items is None:
        found, side = side_sentences(body)
        return found, side, [0] * len(found)
    found, side, item_of = [], set(), []
    for n, item in enumerate(items):
        own, own_side = side_sentences(item)
        side.update(len(found) + k for k in own_side)
        found.extend(own)
        item_of.extend([n] * len(own))
    return found, side, item_of


def _joined(found: Sequence[str], indices: set[int]) -> str:
    return " ".join(_ended(found[k]) for k in sorted(indices))


def _readings(
    found: Sequence[str], side: set[int], subject: str, lenient: bool, i: int, first: bool = False
) -> list[list[int]]:
    """The ways sentence ``i`` can be read, best first. One that points back with a pronoun ("This broke …", "It
    …"): with the sentence before it when that can stand in a lesson, else alone (its "this" is often the change);
    not at all when the sentence before it points back itself and cannot stand ("Because of that, …" before "This
    means that …"). One that opens on a connective or a pronoun "one" (POINTS_BACK_MORE: "And as a result, …", "A
    non-enumerable one …") cannot be read alone: only with the sentences before it, while each points back (at most
    ANTECEDENT_SENTENCES), up to one that does not and can stand; alone only when what it points back to says
    nothing of its own (:func:`_says_nothing`)."""
    if ABOUT_AN_EXAMPLE.match(found[i]):  # the example is not in the lesson
        return []
    if i == 0 or first:  # the body's or a squash item's first sentence: nothing before it to point back at
        return [] if INNER_POINTER.search(found[i]) and not POINTS_BACK.match(found[i]) else [[i]]
    if not POINTS_BACK.match(found[i]) and INNER_POINTER.search(found[i]):  # "… it therefore must …"
        before = i - 1
        return [[before, i]] if before not in side and _usable(found[before], subject, lenient) else []
    if not POINTS_BACK.match(found[i]):
        return [[i]]
    before = i - 1
    if ABOUT_AN_EXAMPLE.match(found[before]):  # "This would be valid …" after "The first example shows …"
        return []
    if POINTS_BACK_MORE.match(found[i]) is None:
        if before not in side and _usable(found[before], subject, lenient):
            return [[before, i], [i]]
        return [] if before not in side and points_back(found[before]) else [[i]]
    group = [i]
    while group[0] > 0 and POINTS_BACK.match(found[group[0]]):
        before = group[0] - 1
        if before in side or not _usable(found[before], subject, lenient):
            return [group] if before not in side and _says_nothing(found[before], subject) else []
        if len(group) > ANTECEDENT_SENTENCES:
            return []
        group.insert(0, before)
    return [group]


def _says_nothing(sentence: str, subject: str) -> bool:
    """The sentence is too short to say anything ("Fixes #30.") or is the subject said again."""
    return len(WORD.findall(sentence)) < MIN_WHY_WORDS or restates(sentence, subject)


def _ranked(
    found: Sequence[str], side: set[int], subject: str, strong: re.Pattern[str] | None, picked: list[int]
) -> list[int]:
    """The explaining sentences ``picked`` and those that tell what the old code did wrong (:func:`states_fault`:
    "… had no rung at all, so … never consulted it", "… bypassed the metadata block"), whatever their words, when the
    body explains at all: the first fault first, then the others in the body's order; beside a fault, a sentence that
    only says what the new code does ("Adds that rung …", "Extract … and call it …") is no why."""
    stated = [
        i
        for i, s in enumerate(found)
        if picked and i not in side and states_fault(s) and _explains_alone(found, i, subject, strong)
    ]
    if not stated:
        return picked
    rest = sorted(set(picked) | set(stated[1:]))
    return stated[:1] + [i for i in rest if i != stated[0] and not describes_change(found[i])]


def _explaining(
    found: Sequence[str],
    side: set[int],
    subject: str,
    explains: re.Pattern[str],
    strong: re.Pattern[str] | None,
    lenient: bool,
) -> Iterator[int | None]:
    """The indices of the sentences that explain, in order. A sentence that opens on an exception to the change
    (:func:`excepts`: "However, we only do this for …") is no reason: it stands for the sentence before it, the rule
    it is an exception to, when that one can stand in a lesson (else for nothing); a sentence that points back at
    such an exception ("However, X is treated differently. It is set to …") or at an option not taken ("An
    alternative would be … This approach is …") is lost with it. A sentence about another change (``side``:
    :func:`side_sentences`) is none."""
    for i, s in enumerate(found):
        if not explains.search(s) or i in side:
            continue
        if not lenient and excepts(s):
            yield i - 1 if i > 0 and _explains_alone(found, i - 1, subject, strong) else None
        elif _explains_alone(found, i, subject, strong, lenient) and (
            lenient or i == 0 or not (POINTS_BACK.match(s) and _exception_or_option(found[i - 1]))
        ):
            yield i


def _explains_alone(
    found: Sequence[str], i: int, subject: str, strong: re.Pattern[str] | None, lenient: bool = False
) -> bool:
    """Sentence ``i`` can stand in a lesson: usable, not only what the code now does (an imperative sentence must
    match ``strong``; without ``strong``, as for a revert, it must give a cause: "Annotate the call that …" is what
    the revert also did; one in a change log's words, :func:`describes_change`, must give a cause or name a failure:
    "Guard on the address alphabet instead" gives none), not after a fragment."""
    s = found[i]
    return (
        _usable(s, subject, lenient)
        and (not IMPERATIVE.match(s) or (strong or GIVES_CAUSE).search(s) is not None or states_fault(s))
        and (not describes_change(s) or GIVES_CAUSE.search(s) is not None or bool(strong and strong.search(s)))
        and (lenient or not _after_fragment(found, i))
    )


def _exception_or_option(sentence: str) -> bool:
    return excepts(sentence) or ALTERNATIVE.search(sentence) is not None


def _after_fragment(found: Sequence[str], i: int) -> bool:
    """The sentence points back ("This could happen if …") at one that starts mid-way: neither can be read."""
    return i > 0 and bool(POINTS_BACK.match(found[i])) and bool(FRAGMENT.match(found[i - 1]))


# the headline half of writing a lesson (mine_headlines) and the error a message quotes (mine_error_text), moved out:
# their callers still import them from here
__all__ = [
    "CONVENTIONAL_TAIL",
    "NO_FIX_TYPES",
    "SUBJECT_REFS",
    "WHY_MARK",
    "clean_subject",
    "comment_headline",
    "dead_end_headline",
    "decision_headline",
    "error_signature",
    "fix_headline",
    "hotspot_headline",
    "lesson_text",
    "said",
    "vague",
    "where",
]
