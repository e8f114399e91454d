"""Writing a mined lesson: a headline that says what to do or avoid and where, then the why, in the
commit's or comment's own words (pure text, no model).

A commit message is raw material: a subject ("Fix crash when body is None"), a body that may explain
the cause, trailers, issue numbers, bullet logs of a squash. :func:`why` keeps only the sentences that
explain (cause or rationale words) and never the subject again; the headline turns the subject into
advice on the anchored symbol ("Avoid reintroducing a bug in `send`: crash when body is None."). The
evidence (commit, date, author) is not repeated in the text: it travels in the provenance and every
front end prints it beside the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from forewarn.memory.validation import MAX_TEXT_CHARS
from forewarn.workspace.symbols import base_symbol

WHY_SENTENCES = 2  # the explaining sentences kept: the cause and its consequence, rarely more
WHY_MAX_CHARS = 420  # a hover shows ~6 lines of text: the why must leave room for the headline
# one explaining sentence longer than WHY_MAX_CHARS is still kept whole up to this (never cut mid-sentence: a cut
# why drops its point); a longer one is an essay, and the lesson says nothing beyond its headline
WHY_LONG_SENTENCE_CHARS = 600
MIN_HEADLINE_WORDS = 3  # "bugfix", "Merge fixes", "potentially": a cleaned subject this short says nothing alone
HEADLINE_SUBJECT_CHARS = 160  # a subject longer than this is a paragraph written on one line: cut
MIN_WHY_WORDS = 5  # "because of #12" explains nothing
# a why sentence this similar to the subject (shared words / all words) restates it: "never a subject copied twice"
RESTATES_SUBJECT = 0.7
ERROR_TEXT_CHARS = 200  # the error text kept beside its name: enough to match a log line, not a traceback

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
# the subject's decoration: "[sessions] ", "sessions: ", "(#1234)", "Fixes #12", "GH-12"
SUBJECT_TAG = re.compile(r"^\s*(\[[^\]]{1,30}\]\s*|[a-z][\w./-]{0,24}:\s+)")
SUBJECT_LEADING_REF = re.compile(r"^(fix(es|ed)?|close[sd]?|issue|gh)?\s*#\d+\s*[:,-]\s*", re.I)
SUBJECT_REFS = re.compile(
    r"\s*(\((fix(es|ed)?\s*|close[sd]?\s*|see\s*|refs?\s*)?(#|gh-)\d+\)"
    r"|\b(fix(es|ed)?|close[sd]?|resolve[sd]?)\s*:?\s+#\d+|\bgh-\d+|#\d+)\s*[.,;:]?\s*$",
    re.I,
)
# what a headline quotes of a subject (said): a conventional commit's type and scope ("fix(fetch)!: "), a capitalised
# tag before a fix verb ("StaticFiles: Fix …", "Fix:(issue_2292) …"'s reference), handles credited with a reference
# ("… @likegun closes #1059"), a credit at the end ("thanks to @bob :bow:", "(by @bob)"); at least this much is kept
# a conventional commit's header: its type, an optional "(scope)" and "!", then ":" ("fix(fetch)!: …"); the types
# that say it is no fix (mine_rules.NOT_FIX_TYPE) and the rest a headline drops too
CONVENTIONAL_TAIL = r"(\([^)]{0,40}\))?!?:"
NO_FIX_TYPES = r"chore|feat|feature|perf|refactor|style|docs?|build|ci|tests?|release|deps"
CONVENTIONAL = re.compile(
    rf"^(fix|bugfix|hotfix|revert|security|sec|{NO_FIX_TYPES}){CONVENTIONAL_TAIL}\s*", re.IGNORECASE
)
LEADING_EMOJI = re.compile(r"^(\s*(:[a-z0-9_+-]+:|[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F\u200D]+))+\s*")  # gitmoji
FIX_TAG = re.compile(r"^[A-Z][\w./-]{0,24}:\s+(?=(fix(es|ed)?|bugfix|hotfix|correct|repair)\b)", re.IGNORECASE)
ISSUE_FIRST = re.compile(r"^\((issue|gh)[_ -]?#?\d+\)\s*", re.IGNORECASE)
HANDLE_BEFORE_REF = re.compile(r"(\s+@[\w-]+)+(?=\s+(fix(es|ed)?|close[sd]?|resolve[sd]?)\s*:?\s+#\d+)", re.IGNORECASE)
CREDIT = re.compile(
    r"\s*\(?\b(thanks( to)?|thx|by|via|cc|h/t|props to)\s+@[\w-]+((\s*,\s*|\s+and\s+|\s+)@[\w-]+)*\)?"
    r"(\s*:[a-z0-9_+-]+:)*$",
    re.IGNORECASE,
)
REF_LIST = re.compile(
    r"\s*\((fix(es|ed)?|close[sd]?|see|refs?)?\s*((#|gh-)\d+(\s*,\s*|\s+and\s+)?){2,}\)\s*[.,;:]?\s*$", re.IGNORECASE
)
# what a "fix(scope): …" subject names when it names the bug ("panic in …", "goroutine leak in …", "CVE-…"), not the
# change that fixed it ("reset ContentLength after …": said as it is, a rule of the code)
BUG_FIRST = re.compile(
    r"^(?!(keep|make|add|use|allow|avoid|handle|return|set|ensure|remove|skip|check|prevent|throw|raise|log|catch|"
    r"report|print|show|ignore|propagate|wrap|treat|reset|clear|close|stop|do|don't|let|move|pass)\b)"
    r"((a|an|the|possible|potential|rare|occasional)\s+)*([\w`.-]+\s+){0,2}?(panics?|races?|data races?|crash(es)?|"
    r"leaks?|deadlocks?|bugs?|errors?|overflows?|regressions?|typos?|cve-[\d-]+|nil|null|off-by-one|hangs?|"
    r"infinite loop|exceptions?|segfaults?|vulnerabilit(y|ies))\b",
    re.IGNORECASE,
)
MIN_SAID_CHARS = 8
# a fix's subject that says how ("Fix highlighting for symlinked files by resolving the target path"): what was broken,
# then the how, which is no part of the bug ("caused by flooring …" names the cause: a participle takes "by" itself)
FIXED_BY = re.compile(
    r"^(?P<what>.{3,}?)(?<!ed)(?<!\bmade)(?<!\bbroken)(?<!\bthrown)(?<!\bdone) by (?P<how>\w+ing\b.*)$"
)
# … or what the thing fixed must now do ("Fix --ignored-suffix to fall back to first-line detection", "Fix `f` not to
# assume …"): a rule of the code, not a bug. The thing is named in at most six words, without a "by", a leading
# preposition or a word that takes "to" itself ("leading to", "due to"), and "to" opens a verb of behaviour ("not to"
# any verb): "Fix the link to the docs" and "Fix access to .png files" name a target, not a rule
FIXED_TO = re.compile(
    r"^(?!(?:for|in|of|on|with|how|not)\s)"
    r"(?P<what>(?:(?!by\s)[^\s,;:]+\s+){0,5}?(?!(?:due|related|according|up|back|prior|next|close|similar|equal)\s)"
    r"[^\s,;:]+(?<!ing)) (?:not to (?P<never>[a-z]+\b.+)|"
    r"to (?P<rule>(?:(?:always|never|only|correctly|properly|also|still)\s+)?"
    r"(?:accept|account|add|adjust|allow|avoid|call|check|close|compare|detect|display|emit|escape|exclude|fall|"
    r"follow|handle|honou?r|ignore|include|keep|match|parse|pass|preserve|print|raise|read|recogni[sz]e|reject|"
    r"render|report|require|resolve|respect|retry|return|run|send|show|skip|sort|strip|support|throw|treat|trim|"
    r"use|wait|work|write)\b.+))$"
)
NOTE_MARK = re.compile(r"^(NB\s*[:,-]|N\.B\.\s*[:,-]?|nota bene\s*[:,-]|note\s*:)\s*", re.IGNORECASE)  # "NB: …"
# a subject that says nothing by itself: the headline would be empty ("PR review fixes", "fix issue", "wip")
VAGUE_SUBJECT = re.compile(
    r"^\W*((fix(es|ed)?|address(ed)?|apply|applied|minor|small|more|some|misc\w*|various|review|pr|code review|"
    r"feedback|tweaks?|changes?|updates?|cleanups?|issues?|comments?|the|a|an|to|for|of|and|from|per|after)\W*)+"
    r"(fix(es|ed)?|issues?|changes?|comments?|feedback|tweaks?|updates?)?\W*(#?\d+)?\W*$"
    r"|^\W*(wip|oops|typo|temp|tmp|test|tests|stuff|misc|more work|work in progress|partially addresses \w+)\W*$",
    re.IGNORECASE,
)
# what a subject says when it points at other work instead of saying what it fixed
VAGUE_REFERENCE = re.compile(
    r"\b((last|previous|earlier|prior)( \w+)? (commit|change|fix|merge|patch)|possible fix|attempt(s|ed)? (to|at) fix|"
    r"fix(es|ed|ing)? (some|a few|several|various|more|minor|small) \w+|(based on|after|per|from) (the )?"
    r"(code )?review|review (comments|feedback|fixes)|pull request|\bpr\b)\b"
    r"|\b(for|of|to|in|on|with|from|by|the|a|an|and|see|issue)$"  # its object was an issue number, now cut
    r"|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b",  # a commit id: it points at the lesson, says none
    re.IGNORECASE,
)
# sentences that explain nothing about the code: side notes about other changes, hedges, questions
SIDE_NOTE = re.compile(
    r"^((we |i )?also|additionally|plus|in addition|unrelated(ly)?|while (i was|i'm|at it)|p\.?s\.?)\b"
    r"|^i\b"  # "I realized …", "I wasn't sure …": the author's story, not the code's
    r"|^(this|the|that) (commit|change|patch|pr|pull request|fix) (also|additionally)\b|^it also\b",  # jq 83f375c
    re.IGNORECASE,
)
HEDGE = re.compile(
    r"\b(i think|i believe|maybe|probably|perhaps|i guess|hopefully|should (work|be fine)|"  # "not sure": UNSURE
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
    r"split|store|strip|support|switch|throw|trim|try|update|use|wrap|write)\b(?!-)",
    re.IGNORECASE,
)
# a footnote or a quotation ('[1] "If Content-Length is set, …"'): someone else's words, not the reason
QUOTED = re.compile(r"^\s*(\[\d+\]|[\"'“‘>])")
# a sentence that opens by pointing back ("This broke …", "As such …") needs the one before it to be understood
# ("In Drop, this causes a double panic": a short opening phrase before the pronoun changes nothing; "In order to …,
# this …" is the change saying what it is for)
POINTS_BACK = re.compile(
    r"^((?!in order\b)(in|on|at|for|with|during|after|before|without|under)\b[^,.;:]{1,40},\s*"
    r"(?=(this|that|these|those|it)\b))?"
    r"(this|that|these|those|it|as such|so|thus|therefore|hence|which)\b",
    re.IGNORECASE,
)
# a sentence that opens on a contrast ("However, we only do this for …", "But the temp files … will not be removed")
# states an exception to the change, not its reason: it stands for the sentence it contrasts with, or for nothing …
CONTRAST = re.compile(
    r"^(however|but|yet(?=,)|nevertheless|nonetheless|that said|on the other hand|even so|having said that)\b",
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
WORD = re.compile(r"[A-Za-z_][\w']*")
# a sentence about the tests ("Add a failing test …", "Test that …") explains the test, not the code; so does one
# about the test runner's or the build's set-up ("Rewrite Vitest prod build config …") or about which case the tests
# now cover ("… and cover the bodyless request with no Content-Type header")
ABOUT_TESTS = re.compile(
    r"\b(tests?|test ?cases?|unit ?tests?|test suite|testing|vitest|jest|mocha|jasmine|karma|pytest|tox|"
    r"build config(uration)?|ci (jobs?|config(uration)?|pipelines?|workflows?))\b"
    r"|\bcover(s|ed|ing)? (the|a|an|this|that) [^.;]{0,80}\b(cases?|scenarios?)\b",
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


def points_back(sentence: str) -> bool:
    """The sentence opens on what it points back to (ANAPHOR) or on an exception to it (:func:`excepts`: "However,
    we only do this for …"), or is one aside in parentheses from end to end ("(it would need to be /home/…
    instead)."): an aside to text left out. "(unstable) `Task` now requires …" is not."""
    if ANAPHOR.match(sentence) or excepts(sentence):
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


# an error the message quotes: ``KeyError: 'x'``, ``requests.exceptions.SSLError``, a traceback's last line
ERROR_SIGNATURE = re.compile(r"\b((?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Warning|Exit))\b(?::\s*([^\n]+))?")

# how a subject starts says what kind of advice it is
_FIX_VERBS = {"fix", "fixed", "fixes", "fixing", "bugfix", "hotfix", "correct", "corrected", "corrects", "repair"}
_MUST_VERBS = {"handle": "handle", "handles": "handle", "handled": "handle", "prevent": "prevent",
               "prevents": "prevent", "prevented": "prevent", "support": "support", "supports": "support"}  # fmt: skip
_FILLER = re.compile(
    r"^(the |a |an )?(bug|issue|problem|regression|error)s?\s+(where|when|with|in|that|of|which (happens|occurs)|"
    r"(related|due) to)\s+",
    re.I,
)


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


def clean_subject(subject: str) -> str:
    """A subject without its tag prefix, issue references and final period."""
    s = SUBJECT_LEADING_REF.sub("", " ".join(subject.split()).lstrip("-*•+ "))
    s = SUBJECT_TAG.sub("", s, count=1) if SUBJECT_TAG.match(s) and len(SUBJECT_TAG.sub("", s)) > 8 else s
    s = SUBJECT_REFS.sub("", s).strip()
    s = s.rstrip(" .")
    if len(s) > HEADLINE_SUBJECT_CHARS:
        s = s[: HEADLINE_SUBJECT_CHARS - 1].rstrip() + "…"
    return s


def said(subject: str) -> str:
    """A subject as a headline quotes it: :func:`clean_subject` (which the noise rules read) without what is left
    of its bookkeeping: a conventional type and scope ("fix(tree): panic in …" says "fix panic in …"; a fix that
    names its change, or another type, says the rest), a capitalised tag before a fix ("StaticFiles: Fix …"),
    a leading gitmoji ("🐛 fix(api): …"), every trailing reference and credit ("… (#12), closes #3", "… @bob closes
    #9", "… thanks to @bob"), a dangling quote and the punctuation they leave (";", ","). A subject with nothing
    more is said as clean_subject says it."""
    s = LEADING_EMOJI.sub("", " ".join(subject.split()))
    typed = CONVENTIONAL.match(s)
    if typed and len(s) - typed.end() > MIN_SAID_CHARS:
        rest = ISSUE_FIRST.sub("", s[typed.end() :])
        named = rest.split(" ", 1)[0].lower().rstrip(":") not in _FIX_VERBS and BUG_FIRST.match(rest)
        s = f"fix {rest}" if typed.group(1).lower() in _FIX_VERBS and named else rest
    s = FIX_TAG.sub("", s, count=1)
    s = HANDLE_BEFORE_REF.sub("", s)
    while True:
        t = CREDIT.sub("", SUBJECT_REFS.sub("", REF_LIST.sub("", s))).strip().rstrip(" ,;:")
        if t.endswith('"') and t.count('"') % 2:
            t = t[:-1].rstrip()
        if t == s or len(t) < MIN_SAID_CHARS:
            break
        s = t
    cleaned = clean_subject(s)
    return cleaned if len(cleaned) >= MIN_SAID_CHARS else clean_subject(subject)


def sentences(body: str) -> list[str]:
    """The body's prose as sentences: trailers, revert lines, code blocks, command examples, headings, quotes and
    bare links left out, wrapped lines joined, a bullet's text kept as its own sentence, a line of a list written
    without full stops its own sentence (:func:`_list_lines`), the author's story at a sentence's end left out.

    An indented line that carries on a sentence left open on the line before ("… result in the" / "    stream being
    closed") is that sentence's wrapped text, not code: a block cannot open mid-sentence. A sentence still open at
    the end of its paragraph (its rest was a block left out) and one that opens in lower case right after a block
    left out ("then using …", its start was the block) are fragments: neither is kept."""
    text = CHERRY_PICK_LINE.sub("", REVERT_BODY_LINE.sub("", strip_trailers(body)))
    paragraphs: list[list[str]] = [[]]
    cut: set[int] = set()  # paragraphs whose first sentence began in a block left out
    fenced = left_out = kept = in_example = False  # kept: the line before was prose, added to the paragraph
    for line in text.splitlines():
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
    out: list[str] = []
    for n, para in enumerate(paragraphs):
        found = [s for part in _list_lines(para) for s in split_sentences(" ".join(part))]
        if n in cut:
            found = found[1:]
        # a sentence ending in ":" introduced a block left out (code, a list, a log): alone it says nothing
        out.extend(AUTHOR_STORY.sub("", s) for s in found if not s.endswith(":") and OPEN_END.search(s) is None)
    return out


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


def _usable(sentence: str, subject: str, lenient: bool = False) -> bool:
    """A sentence that can stand in a lesson: long enough, no question, hedge or side note, not the subject again,
    not about the tests, no note for later, no fragment, no admission that the cause is unknown or that nothing was
    wrong (``lenient``: those allowed, to name what a why was left without)."""
    return not (
        len(WORD.findall(sentence)) < MIN_WHY_WORDS
        or sentence.rstrip().endswith("?")
        or QUOTED.match(sentence)
        or SIDE_NOTE.match(sentence)
        or HEDGE.search(sentence)
        or restates(sentence, subject)
        or (
            not lenient
            and (
                ABOUT_TESTS.search(sentence)
                or TODO_NOTE.search(sentence)
                or FRAGMENT.match(sentence)
                or points_back(sentence)
                or UNSURE.search(sentence)
            )
        )
    )


def _ended(sentence: str) -> str:
    return sentence if sentence[-1] in ".!?…" else sentence + "."


def why(
    body: str, subject: str, explains: re.Pattern[str], strong: re.Pattern[str] | None = None, lenient: bool = False
) -> str:
    """The body's sentences that explain (match ``explains``; an imperative one, which says what the code now does,
    must match ``strong``), whole, the subject never repeated; "" when none does. ``lenient``: sentences about the
    tests, notes for later, fragments and unsure ones count too (only to say why a message was left without a why).

    At most WHY_SENTENCES of them, within WHY_MAX_CHARS (one alone up to WHY_LONG_SENTENCE_CHARS); a sentence
    that points back ("This broke …") brings the sentence before it when that fits. Never cut mid-sentence."""
    found = sentences(body)
    picked = list(dict.fromkeys(i for i in _explaining(found, subject, explains, strong, lenient) if i is not None))
    picked = picked[:WHY_SENTENCES]
    text = ""
    for i in picked:
        sentence = _ended(found[i])
        points_back = i > 0 and POINTS_BACK.match(found[i]) and _usable(found[i - 1], subject, lenient)
        before = _ended(found[i - 1]) if points_back else ""
        options = ([f"{before} {sentence}"] if before and before not in text else []) + [sentence]
        fitted = next((o for o in options if len(f"{text} {o}".strip()) <= WHY_MAX_CHARS), None)
        if fitted is None:
            if not text and len(sentence) <= WHY_LONG_SENTENCE_CHARS:
                text = sentence
            break
        text = f"{text} {fitted}".strip()
    return text


def _explaining(
    found: Sequence[str], subject: str, explains: re.Pattern[str], strong: re.Pattern[str] | None, lenient: bool
) -> Iterator[int | None]:
    """The indices of the sentences that explain, in order. A sentence that opens on an exception to the change
    (:func:`excepts`: "However, we only do this for …") is no reason: it stands for the sentence before it, the rule
    it is an exception to, when that one can stand in a lesson (else for nothing); a sentence that points back at
    such an exception ("However, X is treated differently. It is set to …") is lost with it."""
    for i, s in enumerate(found):
        if not explains.search(s):
            continue
        if not lenient and excepts(s):
            yield i - 1 if i > 0 and _explains_alone(found, i - 1, subject, strong) else None
        elif _explains_alone(found, i, subject, strong, lenient) and (
            lenient or i == 0 or not (POINTS_BACK.match(s) and excepts(found[i - 1]))
        ):
            yield i


def _explains_alone(
    found: Sequence[str], i: int, subject: str, strong: re.Pattern[str] | None, lenient: bool = False
) -> bool:
    """Sentence ``i`` can stand in a lesson: usable, not only what the code now does, not after a fragment."""
    s = found[i]
    return (
        _usable(s, subject, lenient)
        and (strong is None or not IMPERATIVE.match(s) or strong.search(s) is not None)
        and (lenient or not _after_fragment(found, i))
    )


def _after_fragment(found: Sequence[str], i: int) -> bool:
    """The sentence points back ("This could happen if …") at one that starts mid-way: neither can be read."""
    return i > 0 and bool(POINTS_BACK.match(found[i])) and bool(FRAGMENT.match(found[i - 1]))


def error_signature(subject: str, body: str) -> str | None:
    """The error a message quotes, as a matcher would look for it: ``Name: text`` (text cut), or the name alone."""
    for text in (subject, body):
        for m in ERROR_SIGNATURE.finditer(text):
            name = m.group(1)
            if name.lower() in ("error", "exception", "warning"):
                continue
            detail = (m.group(2) or "").strip()
            if detail and len(detail) > ERROR_TEXT_CHARS:
                detail = detail[: ERROR_TEXT_CHARS - 1] + "…"
            return f"{name}: {detail}" if detail else name
    return None


def vague(subject: str) -> bool:
    """A (cleaned) subject that says nothing alone: "fix issue", "PR review fixes", "bugfix", "Fixed last broken
    commit", or fewer than MIN_HEADLINE_WORDS words."""
    return (
        bool(VAGUE_SUBJECT.match(subject) or VAGUE_REFERENCE.search(subject))
        or len(WORD.findall(subject)) < MIN_HEADLINE_WORDS
    )


def where(file: str | None, symbol: str | None) -> str:
    """The anchor as the text names it: the symbol (``edit``, not the index's ``edit#3``), else the file, else the
    repository."""
    if symbol:
        return f"`{base_symbol(symbol)}`"
    if file:
        return f"`{file}`"
    return "this repository"


def _lower_first(text: str) -> str:
    """ "Crash when…" → "crash when…", but identifiers, calls and acronyms keep their case ("SSLError", "Copy()",
    "URLs")."""
    first = text.split(" ", 1)[0]
    if len(first) > 1 and (first[1:].lower() != first[1:] or any(c in first for c in "_`(")):
        return text
    return text[:1].lower() + text[1:]


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def fix_headline(subject: str, place: str) -> str:
    """What a fix teaches, as advice on ``place``: the bug not to bring back, or the rule the fix added."""
    s = said(subject)
    words = s.split(" ", 1)
    verb = words[0].lower().rstrip(":")
    rest = words[1].strip() if len(words) > 1 else ""
    if verb in _FIX_VERBS and rest:
        rest = _FILLER.sub("", rest.lstrip(": "))
        how = FIXED_BY.match(rest)  # "… for symlinked files by resolving …": the how is no part of the bug
        what, fixed = (how["what"], f" (fixed by {how['how']})") if how else (rest, "")
        if not BUG_FIRST.match(what) and (to := FIXED_TO.match(what)) is not None:  # "-n flag to show …": a rule
            rule = f"not {to['never']}" if to["never"] else to["rule"]
            return f"In {place}: {_lower_first(to['what'])} must {rule}{fixed}."
        return f"Avoid reintroducing a bug in {place}: {_lower_first(what)}{fixed}."
    if verb in _MUST_VERBS and rest:
        return f"{_upper_first(place)} must {_MUST_VERBS[verb]} {rest}."
    return f"In {place}: {_lower_first(s)}."


def decision_headline(subject: str, place: str) -> str:
    return f"In {place}: {_lower_first(said(subject))}."


def dead_end_headline(what: str, place: str) -> str:
    what = said(what) or "that change"
    return f"Do not bring back “{what}” in {place}: it was tried and reverted."


def hotspot_headline(place: str, subjects: Sequence[str], count: int, first_date: str, last_date: str) -> str:
    """``place`` needed ``count`` fixes between two dates; the latest two fixes named, never listed one per line."""
    named = [said(s) for s in subjects]
    quoted = list(dict.fromkeys(s for s in named if s and not vague(s)))  # the same subject twice is one fix named
    latest = "; ".join(f"“{s}”" for s in quoted[:2])
    span = f"from {first_date[:4]} to {last_date[:10]}" if first_date[:4] != last_date[:4] else f"in {last_date[:4]}"
    tail = f" — most recently {latest}" if latest else ""
    return f"{_upper_first(place)} has needed {count} fixes {span}{tail}. Read its history before changing it."


def comment_headline(comment: str, place: str) -> str:
    """``In `place`: <the comment>``, without a note marker it opens on ("NB: Avoid …" says "Avoid …")."""
    return f"In {place}: {NOTE_MARK.sub('', comment, count=1) or comment}"


WHY_MARK = "Why:"  # a lesson's text: its headline, then the why after this (mine_score reads it back)


def lesson_text(headline: str, reason: str = "") -> str:
    """The headline, then the why on its own paragraph; clipped to the memory text limit."""
    text = f"{headline}\n\n{WHY_MARK} {reason}" if reason else headline
    return text if len(text) <= MAX_TEXT_CHARS else text[: MAX_TEXT_CHARS - 1].rstrip() + "…"
