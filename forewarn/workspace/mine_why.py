"""Which explaining sentence of a commit message is the why: its grammar, not only its vocabulary.

A message's words say that it explains ("because", "fails", "instead"); which of its sentences is the cause is read
from how each is said. A sentence that tells what the old code did wrong ("The owning schema's map had no rung at
all, so … never consulted it", "Early returns … bypassed the metadata block") states the fault: it comes first. A
sentence that tells what the new code does ("Adds that rung …", "Extract … into a helper and call it …") is the change,
not its cause: with a fault stated beside it, it is no why. A sentence that opens on a connective or a pronoun for
something said before it ("And as a result, …", "But when it is, …", "A non-enumerable one …") cannot be read alone:
it comes with its antecedent or not at all (:func:`forewarn.workspace.mine_lessons.why`).
"""

from __future__ import annotations

import re

# what the old code did wrong, said in the past: a past auxiliary negated ("had no rung", "did not implement", "was
# never called"), "never" with a past verb ("never consulted it"), a verb of omission in the past ("bypassed the
# metadata block", "the v4 port dropped the deferral"; "is dropped" tells what the code does, old or new, and
# "Dropped frames …" opens on an adjective), or a past verb against what was meant ("keyed off def.partial rather
# than the key schema"; "`undefined` instead of" is no verb)
OMITTED = r"bypassed|skipped|ignored|dropped|missed|omitted|overlooked|swallowed|discarded|forgot|forgotten|clobbered"
NOT_AFTER_BE = r"(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bbeen )(?<!\bbeing )(?<!\bget )(?<!\bgets )"  # "is used instead"
NOT_PAST_ED = r"need|speed|feed|seed|indeed|embed|proceed|exceed|succeed|bleed|breed"  # words ending in "ed", no verb
FAULT = re.compile(
    r"\b(had|did|was|were)(n't|\s+not|\s+never|\s+no)\b"
    r"|\bnever\s+[a-z]+ed\b"
    rf"|(?<=[\w)`'] ){NOT_AFTER_BE}(?<!\bof )(?<!\ba )(?<!\ban )(?<!\bthe )({OMITTED})\b"  # "in case of missed `X`"
    rf"|{NOT_AFTER_BE}\b(?!({NOT_PAST_ED})\b)(?!un)[a-z]{{2,}}ed(?=\s)[^,;:.(]{{0,60}}\b(rather than|instead of)\b"
    # … a past verb and what it caused ("… that followed the io.Copy double-counted every byte, causing BytesWritten()
    # to return twice the actual value"), or an earlier fix that covered only part ("Previous fix … only covered
    # writing name as top level value, but not when …")
    rf"|{NOT_AFTER_BE}\b(?!({NOT_PAST_ED})\b)[a-z-]{{2,}}ed\b[^.;:]{{0,80}},\s*causing\b"
    r"|\bonly\s+[a-z]{2,}ed\b[^.;]{0,120}\bbut not\b",
    re.IGNORECASE,
)
# … but not when the sentence is about the new code ("now", "no longer"), the change ("Note that this change wasn't
# done …"; "Prior to this commit the functions … didn't vary" is the old code), the author ("We didn't want …", "I had
# not …"), or denies a failure ("This wasn't a problem in a previous release", "There weren't any documented
# guarantees"): those tell no fault of the code before
NOT_FAULT = re.compile(
    r"\b(now|no longer|from now on)\b|^(we|i)\b"
    r"|(?<!\bbefore )(?<!\bprior to )(?<!\buntil )(?<!\bwithout )\bthis (change|commit|patch|pr|pull request|fix)\b"
    r"|(n't|\bnot|\bnever|\bno)\s+(\S+\s+){0,3}?(problems?|issues?|bugs?|concerns?|guarantees?)\b"
    # … or says why the fault stayed hidden ("The only reason why this never caused an exception in the past is …")
    r"|(n't|\bnot|\bnever)\s+(caused|triggered|surfaced|manifested|showed up|happened|occurred)\b",
    re.IGNORECASE,
)
# a sentence that says what the new code does, opening on its verb: the imperative ("Extract …", "Guard on …") or
# a change log's third person or past ("Adds that rung …", "Guarded on …"; "Fixes a bug in …", "Fixed a crash when …"
# name the bug); a short opening condition may come first
CHANGE_VERBS = (
    r"add|allow|call|change|check|coerce|convert|copy|create|delete|drop|emit|escape|expose|fix|handle|ignore|"
    r"implement|keep|make|move|pass|raise|read|remove|rename|replace|reset|restore|return|reuse|send|set|skip|"
    r"split|store|strip|support|switch|throw|trim|try|update|use|wrap|write|follow|"
    r"extract|guard|introduce|let|apply|consolidate|delegate|defer|derive|validate|reject|treat|rewrite|simplify|"
    r"normali[sz]e|propagate|prefer|"
    r"annotate|clarify|comment|document|explain|mention"  # … or what it says in a comment
)
# … a plural noun is no third person ("Calls to `f` were never awaited", "Changes in the parser broke …")
NOUN_FOLLOWS = (
    r"to|in|of|on|for|from|with|by|at|and|or|are|were|was|is|have|had|has|do|did|can|could|would|will|may|might|"
    r"should|must"
)
DESCRIBES_CHANGE = re.compile(
    r"^((if|when|for|in)\b[^,;]{0,80},\s*)?(explicitly |now |also |just |simply |instead |then |so )?"
    rf"(?!fix(es|ed)\b)({CHANGE_VERBS})(\b|e?s\b(?!\s+({NOUN_FOLLOWS})\b)|e?d\b(?!\s+(are|were|was|is|have|had|has)\b))"
    r"(?!-)",
    re.IGNORECASE,
)
# a sentence that opens by pointing back at what came before it: a connective of consequence or addition ("And as a
# result, …", "Consequently, …") or a pronoun "one" for a noun said before ("A
# non-enumerable one (regex, refine) is …", "The other one …", "the latter")
POINTS_BACK_MORE = re.compile(
    r"^(and|or|nor)\b|^(so,?\s+)?(as a (result|consequence)|consequently|in turn|for (this|that) reason|"
    r"in (this|that|either|both|such) cases?|the (former|latter))\b"
    r"|^(an?|the|each|every|any|this|that) ([\w-]+ ){1,2}ones?\b(?! of\b)"
    # … or a contrast about what was just said ("However, it wasn't consistent in this behavior", "But this …")
    r"|^(however|but|yet|still|nevertheless|nonetheless),?\s+(it|this|that|these|those|they)\b"
    # … or one of a count of what a thing said before does ("First it breaks the old behavior …", "Second, it causes a
    # panic …"): "it" is that thing
    r"|^(first|second|third|firstly|secondly|thirdly|finally|lastly),?\s+(it|this|that|they)\b"
    # … or says how something reads what was just said ("OpenSSL reads that as \"use strlen\", but …"): "that" is it
    r"|^[\w.()-]+(\s+[\w.()-]+)?\s+(reads|treats|interprets|sees|takes|parses|considers|handles)\s+"
    r"(that|this|it|these|those|them)\s+as\b"
    # … or names a thing by what was said of it ("The remaining string (\"!str\") then failed …" after the sentence
    # that stripped one '!')
    r"|^(the|these|those)\s+(remaining|resulting|aforementioned|above)\b",
    re.IGNORECASE,
)
# a sentence about an example the message shows ("The first example shows that the document end marker is not
# emitted …", libyaml 3694a4a): a lesson does not show the example, so it cannot be read there
ABOUT_AN_EXAMPLE = re.compile(
    r"^(the|this|that|these|those)\s+((first|second|third|last|other|above|following)\s+)?"
    r"(examples?|snippets?|reproductions?|repro|output)\s+(shows?|demonstrates?|prints?|gives|illustrates?)\b",
    re.IGNORECASE,
)
# a connective inside a sentence that points at the one before it ("When X is called afterwards it therefore must not
# assume …"); joined to a clause of its own sentence ("… and thus crashed", ", hence …") it points at nothing before
INNER_POINTER = re.compile(r"(?<![,;])\s+(?<!\band\s)(?<!\bor\s)(?<!\bwhich\s)(therefore|thus|hence)\b", re.IGNORECASE)
# a sentence left open on the code it names, the code alone on an indented line, then the sentence going on in lower
# case ("… so the line" / "    f.bytes += int(n)" / "that followed … double-counted every byte"): the code is quoted
# in the sentence, not a block left out
INLINE_CODE = re.compile(
    r"^(?P<lead>(?! {4}|\t)[^\n]*\b(the|this|that)\s+(line|call|statement|expression|check|condition|assignment))"
    r"[ \t]*\n(?:[ \t]*\n)*(?P<code>(?: {4}|\t)[ \t]*[^\s`][^\n`]{0,79})\n(?:[ \t]*\n)*(?=[ \t]*[a-z])",
    re.MULTILINE,
)
SQUASH_ITEM = re.compile(r"^\* \S", re.MULTILINE)  # GitHub's squash-merge message: one "* subject" per commit
# an elided clause about "it" after a joining word ("But when it is, ripgrep will still …", "And if not, …"): the
# clause it completes was said before it
ELIDED_AFTER_JOIN = re.compile(
    r"^(and|but|or|so|however|though|although|yet),?\s+(if|when|unless|since|because|as|where) "
    r"(it|this|that|they|so|not)( (does|do|did|is|are|was|were|has|have|can|could|would|will)(n't| not)?)?\s*[,.;]",
    re.IGNORECASE,
)


# a why said in the present of the commit ("Currently, it will fix clashes that don't exist …", "Right now the parser
# …", "… logs will currently always be printed to stdout"): read beside the fixed code it tells the fault as if it
# were live; it told the code before the change ("For now" is a stopgap, "Today's …" a noun)
NOW_OPENING = re.compile(
    r"^(currently|right now|at the moment|as of (now|today)|at present|today)\b(?!['’-])\s*,?\s*", re.IGNORECASE
)
NOW_INSIDE = re.compile(r"(?<=\w)\s+(currently|right now|at the moment|at present)\b(?!['’-])(?=\s+\w)", re.IGNORECASE)
OPENING_WORD = re.compile(
    r"^(The|This|That|These|Those|It|Its|There|When|If|Whenever|A|An|We|Our|Some|Any|All|Every|Each|Since|Because|"
    r"Using|In|On|For|With|Without|After|Before|Only|Most|Many|Calling|Passing|Sending)\b"
)


def states_fault(sentence: str) -> bool:
    """The sentence tells what the code did wrong before the change (FAULT), not what the new code does, nor the
    author's or the change's doing (NOT_FAULT)."""
    return FAULT.search(sentence) is not None and NOT_FAULT.search(sentence) is None


def describes_change(sentence: str) -> bool:
    """The sentence says what the new code does, opening on the verb of the change (DESCRIBES_CHANGE), and tells no
    fault of the old code (:func:`states_fault`: "If realloc returns NULL, ensure didn't abort …" is about the
    function `ensure`)."""
    return DESCRIBES_CHANGE.match(sentence) is not None and not states_fault(sentence)


def inline_code(text: str) -> str:
    """``text`` with each line of code that a sentence names and goes on after (INLINE_CODE) quoted in it."""
    return INLINE_CODE.sub(lambda m: f"{m['lead']} `{m['code'].strip()}`\n", text)


def squash_items(body: str) -> list[str] | None:
    """A GitHub squash's items, each a commit's own text without its title ("* Fix …": a subject, what was done, no
    why), the text before the first item kept with it; None for a message that is no such squash: fewer than two
    "* " items, or none but the last followed by a paragraph of its own (a plain bullet list of changes, perhaps with
    prose after it). ``body``: without its trailers."""
    lines = body.splitlines()
    items = [i for i, line in enumerate(lines) if SQUASH_ITEM.match(line)]
    ends = [*items[1:], len(lines)]
    if len(items) < 2 or not any(_has_paragraph(lines[i + 1 : end]) for i, end in zip(items, ends[:-1], strict=False)):
        return None
    titles = set(items)
    starts = [0, *items[1:]]
    return [
        "\n".join(line for k, line in enumerate(lines[a:b], a) if k not in titles)
        for a, b in zip(starts, ends, strict=True)
    ]


def _has_paragraph(lines: list[str]) -> bool:
    """An item's lines after its title open on a blank line, then prose of their own (not indented, no bullet)."""
    rest = [line for line in lines if line.strip()]
    return bool(lines) and not lines[0].strip() and bool(rest) and re.match(r"[A-Za-z`(]", rest[0]) is not None


def as_before(sentence: str) -> str:
    """A why's sentence said in the present of its commit (NOW_OPENING, NOW_INSIDE), said of the code before the
    change: "Currently, it will fix …" is "Before this change, it will fix …"; any other sentence as it is."""
    if (m := NOW_OPENING.match(sentence)) is None and (m := NOW_INSIDE.search(sentence)) is None:
        return sentence
    rest = sentence[m.end() :] if m.start() == 0 else sentence[: m.start()] + sentence[m.end() :]
    if not rest:
        return sentence
    first = OPENING_WORD.match(rest)
    return "Before this change, " + (rest[0].lower() + rest[1:] if first else rest)
