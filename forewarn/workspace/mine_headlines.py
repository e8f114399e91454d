"""A mined lesson's headline: a commit subject turned into advice on the anchored symbol ("Avoid reintroducing a
bug in `send`: crash when body is None.", "`f` must handle …", "In `g`: use …"), said without its bookkeeping (tags,
references, credits, a branch name), then the lesson's text with its why (pure text, no model).

Split from :mod:`forewarn.workspace.mine_lessons`, which re-exports every name here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from forewarn.memory.validation import MAX_TEXT_CHARS
from forewarn.workspace.symbols import spoken_symbol

WORD = re.compile(r"[A-Za-z_][\w']*")
MIN_HEADLINE_WORDS = 3  # "bugfix", "Merge fixes", "potentially": a cleaned subject this short says nothing alone
HEADLINE_SUBJECT_CHARS = 160  # a subject longer than this is a paragraph written on one line: cut
# the subject's decoration: "[sessions] ", "sessions: ", "NG: " (a short all-caps tag, as a conventional type),
# "(#1234)", "Fixes #12", "GH-12"
SUBJECT_TAG = re.compile(r"^\s*(\[[^\]]{1,30}\]\s*|[a-z][\w./-]{0,24}:\s+|[A-Z]{2,6}:\s+)")
# a reference at a subject's end with the word pointing at it ("drop the prototype from #6432 (#6438)"): both go
DANGLING_REF = re.compile(
    r"\s+(?:from|in|of|for|to|by|with|on|at|since|after|before|per|see|via)\s+(?:#|gh-)\d+"
    r"(?=(?:\s*\((?:#|gh-)\d+\))*\s*[.,;:]?\s*$)",
    re.I,
)
SUBJECT_LEADING_REF = re.compile(r"^(fix(es|ed)?|close[sd]?|issue|gh)?\s*#\d+\s*[:,-]\s*", re.I)
SUBJECT_REFS = re.compile(
    r"\s*(\((fix(es|ed)?\s*|close[sd]?\s*|see\s*|refs?\s*)?(#|gh-|[\w.-]+/[\w.-]+#)\d+\)"
    r"|\b(fix(es|ed)?|close[sd]?|resolve[sd]?)\s*:?\s*#\d+(\s+close[sd]?)?|\bgh-\d+|([\w.-]+/[\w.-]+)?#\d+)"
    r"\s*[.,;:]?\s*$",
    re.I,
)
# a last sentence telling that tests came with the change ("Fix bug 114. Added test case."): no part of the fix
TESTS_SENTENCE = re.compile(
    r"(?<=[\w)])[.;]\s+(also\s+)?(add(ed|s)?|includ(es|ing)|with|plus|updated?)\s+((a|an|some|new|more|the|unit|"
    r"regression)\s+)*(unit\s+)?tests?(\s+cases?)?\.?$",
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
    r"infinite loop|exceptions?|segfaults?|vulnerabilit(y|ies))\b"
    # … or opens on a word that says what is wrong with the thing it names ("malformed charset param", "missing
    # header", "unescaped quotes", "mismatched braces"): a noun phrase naming the bug
    r"|^((a|an|the)\s+)?(malformed|broken|wrong|incorrect|invalid|missing|bad|faulty|buggy|erroneous|corrupt(ed)?|"
    r"truncated|garbled|stale|inconsistent|improper|unexpected|un[a-z]{2,}ed|mis[a-z]{2,}ed)\s+[\w`]",
    re.IGNORECASE,
)
MIN_SAID_CHARS = 8
# a branch name kept as a subject's first word ("Fix/safelist deep copy constructor", "feature/…"): its type only
BRANCH_PREFIX = re.compile(rf"^(?P<type>fix|bugfix|hotfix|{NO_FIX_TYPES}|issue)/(?=\w)", re.IGNORECASE)
# a subject that opens on the place the headline names already ("In Cleaner, use …" under `Cleaner.…tail`)
LEADING_PLACE = re.compile(r"^(in|for|on|inside|within)\s+`?(?P<name>[\w.#:]+?)(\(\))?`?\s*[,:]\s+(?=\S)", re.I)
MIN_PLACE_NAME_CHARS = 3  # "In C, …", "On OS X, …": too short to tell a place's name from a word
# an example in parentheses in a subject too long for a headline ("… queries (e.g. "meta[http-equiv], …") …"): left
# out before the subject is cut
EXAMPLE_ASIDE = re.compile(r"\s*\((e\.g\.|i\.e\.|eg\b|ie\b|for example|for instance|such as|like)[^()]*\)", re.I)
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
    r"(?:[A-Za-z]+-)?"  # "to URL-encode", "to re-raise": the verb with its prefix
    r"(?:accept|account|add|adjust|allow|avoid|call|check|close|compare|compute|convert|copy|decode|detect|display|"
    r"emit|encode|escape|exclude|fall|flush|follow|handle|honou?r|ignore|include|keep|match|normali[sz]e|parse|pass|"
    r"preserve|print|quote|raise|read|recogni[sz]e|reject|release|remove|render|report|require|resolve|respect|"
    r"retry|return|reuse|run|send|show|skip|sort|strip|support|throw|treat|trim|use|validate|wait|work|write)"
    r"\b.+))$"
)
# what follows a symbol's name when it names the symbol's bug: a gerund ("double-counting bytes") or "not …"
OWN_NAME_FOLLOWED = re.compile(r"^(not\s+\w|[a-z][\w-]*ing\b)")
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
# how a subject starts says what kind of advice it is
_FIX_VERBS = {"fix", "fixed", "fixes", "fixing", "bugfix", "hotfix", "correct", "corrected", "corrects", "repair"}
_MUST_VERBS = {"handle": "handle", "handles": "handle", "handled": "handle", "prevent": "prevent",
               "prevents": "prevent", "prevented": "prevent", "support": "support", "supports": "support"}  # fmt: skip
# a fix's subject that names only a part of the code ("fix source file location"): no failure, no clause, no verb; its
# headline says the bug affected that part, not that the part is the bug
NAMES_A_PART = re.compile(
    r"^(?!.*\b(when|whenever|if|unless|while|where|after|before|during|not|no|never|without|on|for|with|in|from|to|of|"
    r"by|at|is|are|was|were|be|being|can|cannot|could|does|did|won't|would|has|have|had|\w+n't|\w+ing|\w+ed)\b)"
    r"(?P<part>([\w`./-]+ ){0,4}[\w`./-]+)$",
    re.IGNORECASE,
)
ARTICLE = re.compile(r"^(the|a|an)\s+", re.IGNORECASE)
# a subject that opens on a gerund ("Properly handling SPDLOG_PREVENT_CHILD_FD"): said as the rule it is, the verb's
# plain form with its adverb after the object ("handle SPDLOG_PREVENT_CHILD_FD properly"); only the verbs known here
GERUND_OPENING = re.compile(r"^(?P<adverb>[a-z]+ly\s+)?(?P<verb>[a-z]+ing)\b\s*(?P<rest>.*)$", re.IGNORECASE)
_GERUNDS = {
    "adding": "add", "allowing": "allow", "avoiding": "avoid", "calling": "call", "catching": "catch",
    "checking": "check", "clearing": "clear", "closing": "close", "converting": "convert", "ensuring": "ensure",
    "escaping": "escape", "fixing": "fix", "handling": "handle", "ignoring": "ignore", "keeping": "keep",
    "making": "make", "moving": "move", "passing": "pass", "preserving": "preserve", "preventing": "prevent",
    "raising": "raise", "reading": "read", "removing": "remove", "resetting": "reset", "respecting": "respect",
    "returning": "return", "setting": "set", "skipping": "skip", "supporting": "support", "throwing": "throw",
    "treating": "treat", "using": "use", "validating": "validate", "writing": "write",
}  # fmt: skip
# a decision that took a warning away ("Remove warning if eq is customized & order is not"): said as how the code is
WARNING_REMOVED = re.compile(
    r"^(remove[sd]?|drop(s|ped)?|delete[sd]?)\s+(the |a |an |this |that )?(?P<what>([\w`.-]+ ){0,2}warnings?\b.*)$",
    re.IGNORECASE,
)
_FILLER = re.compile(
    r"^(the |a |an )?(bug|issue|problem|regression|error)s?\s+(where|when|with|in|that|of|which (happens|occurs)|"
    r"(related|due) to)\s+",
    re.I,
)


def clean_subject(subject: str) -> str:
    """A subject without its tag prefix, issue references and final period."""
    s = SUBJECT_LEADING_REF.sub("", " ".join(subject.split()).lstrip("-*•+ "))
    s = SUBJECT_TAG.sub("", s, count=1) if SUBJECT_TAG.match(s) and len(SUBJECT_TAG.sub("", s)) > 8 else s
    s = SUBJECT_REFS.sub("", s).strip()
    s = s.rstrip(" .")
    if len(s) > HEADLINE_SUBJECT_CHARS:
        s = EXAMPLE_ASIDE.sub("", s).rstrip(" .")
    if len(s) > HEADLINE_SUBJECT_CHARS:
        space = s.rfind(" ", 0, HEADLINE_SUBJECT_CHARS)
        s = (s[:space] if space > 0 else s[: HEADLINE_SUBJECT_CHARS - 1]).rstrip(" ,;:-(") + " …"
    return s


def said(subject: str) -> str:
    """A subject as a headline quotes it: :func:`clean_subject` (which the noise rules read) without what is left
    of its bookkeeping: a conventional type and scope ("fix(tree): panic in …" says "fix panic in …"; a fix that
    names its change, or another type, says the rest), a capitalised tag before a fix ("StaticFiles: Fix …"),
    a leading gitmoji ("🐛 fix(api): …"), a branch name's type ("Fix/safelist …" says "Fix safelist …", "feature/…"
    says the rest), every trailing reference and credit ("… (#12), closes #3", "… @bob closes
    #9", "… thanks to @bob"), a dangling quote and the punctuation they leave (";", ","). A subject with nothing
    more is said as clean_subject says it."""
    s = LEADING_EMOJI.sub("", " ".join(subject.split()))
    s = BRANCH_PREFIX.sub(lambda m: "Fix " if m["type"].lower() in _FIX_VERBS else "", s, count=1)
    typed = CONVENTIONAL.match(s)
    if typed and len(s) - typed.end() > MIN_SAID_CHARS:
        rest = ISSUE_FIRST.sub("", s[typed.end() :])
        named = rest.split(" ", 1)[0].lower().rstrip(":") not in _FIX_VERBS and BUG_FIRST.match(rest)
        s = f"fix {rest}" if typed.group(1).lower() in _FIX_VERBS and named else rest
    s = FIX_TAG.sub("", s, count=1)
    s = HANDLE_BEFORE_REF.sub("", s)
    while True:
        t = CREDIT.sub("", SUBJECT_REFS.sub("", REF_LIST.sub("", DANGLING_REF.sub("", s)))).strip().rstrip(" ,;:")
        t = TESTS_SENTENCE.sub("", t)
        if t.endswith('"') and t.count('"') % 2:
            t = t[:-1].rstrip()
        if t == s or len(t) < MIN_SAID_CHARS:
            break
        s = t
    cleaned = clean_subject(s)
    return cleaned if len(cleaned) >= MIN_SAID_CHARS else clean_subject(subject)


def vague(subject: str) -> bool:
    """A (cleaned) subject that says nothing alone: "fix issue", "PR review fixes", "bugfix", "Fixed last broken
    commit", or fewer than MIN_HEADLINE_WORDS words."""
    return (
        bool(VAGUE_SUBJECT.match(subject) or VAGUE_REFERENCE.search(subject))
        or len(WORD.findall(subject)) < MIN_HEADLINE_WORDS
    )


def where(file: str | None, symbol: str | None) -> str:
    """The anchor as the text names it: the symbol as its language writes it (``edit``, not the index's ``edit#3``;
    ``logger::flush`` in C++), else the file, else the repository."""
    if symbol:
        return f"`{spoken_symbol(symbol, file)}`"
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
    s = _without_place(said(subject), place)
    words = s.split(" ", 1)
    verb = words[0].lower().rstrip(":")
    rest = words[1].strip() if len(words) > 1 else ""
    if verb in _FIX_VERBS and rest:
        rest = _FILLER.sub("", rest.lstrip(": "))
        how = FIXED_BY.match(rest)  # "… for symlinked files by resolving …": the how is no part of the bug
        what, fixed = (how["what"], f" (fixed by {how['how']})") if how else (rest, "")
        if not BUG_FIRST.match(what) and (to := FIXED_TO.match(what)) is not None:  # "-n flag to show …": a rule
            rule = f"not {to['never']}" if to["never"] else to["rule"]
            if _names_place(to["what"], place):  # "Fix Utils.build_nested_query to …" on that very symbol
                return _stop(f"{_upper_first(place)} must {rule}{fixed}")
            return _stop(f"In {place}: {_lower_first(to['what'])} must {rule}{fixed}")
        part = NAMES_A_PART.match(what) if not fixed and not BUG_FIRST.match(what) else None
        if part is not None:  # "fix source file location": the bug is not named, only what it affected
            return _stop(f"Avoid reintroducing a bug in {place} that affected the {ARTICLE.sub('', part['part'])}")
        return _stop(f"Avoid reintroducing a bug in {place}: {_lower_first(_without_own_name(what, place))}{fixed}")
    if verb in _MUST_VERBS and rest:
        return _stop(f"{_upper_first(place)} must {_MUST_VERBS[verb]} {rest}")
    return _stop(f"In {place}: {_lower_first(_as_rule(s))}")


def decision_headline(subject: str, place: str) -> str:
    s = _without_place(said(subject), place)
    removed = WARNING_REMOVED.match(s)
    if removed is not None:  # "remove warning if …" read as an order: say how the code is
        return _stop(f"In {place}: no {removed['what']} (removed on purpose)")
    return _stop(f"In {place}: {_lower_first(_as_rule(s))}")


def _as_rule(subject: str) -> str:
    """A subject that opens on a known gerund said as a rule ("Properly handling X" → "handle X properly"); any
    other subject as it is."""
    m = GERUND_OPENING.match(subject)
    verb = _GERUNDS.get(m["verb"].lower()) if m else None
    if m is None or verb is None or not m["rest"]:
        return subject
    adverb = f" {m['adverb'].strip().lower()}" if m["adverb"] else ""
    return f"{verb} {m['rest']}{adverb}"


def _stop(headline: str) -> str:
    """The headline with a full stop, unless it ends on one already or on "…" (a subject cut: "…." reads as a typo)."""
    return headline if headline[-1:] in ".!?…" else headline + "."


def _place_names(place: str) -> set[str]:
    """The names a place is made of: `Cleaner.CleaningVisitor.tail` → cleaner, cleaningvisitor, tail."""
    return {n.lower() for n in re.split(r"[./:#`\s]+", place) if len(n) >= MIN_PLACE_NAME_CHARS}


def _names_place(what: str, place: str) -> bool:
    """``what`` ("Utils.build_nested_query", "`send()`") ends on the name of the symbol ``place`` names."""
    last = re.split(r"[./:#]+", what.strip("`").removesuffix("()"))[-1].lower()
    return bool(last) and last == re.split(r"[./:#]+", place.strip("`"))[-1].lower()


def _without_place(subject: str, place: str) -> str:
    """The subject without an opening phrase naming a part of ``place`` ("In Cleaner, use …" says "use …" under
    `Cleaner.CleaningVisitor.tail`); a phrase naming anything else ("In Python 3, …") stays."""
    m = LEADING_PLACE.match(subject)
    if m is None:
        return subject
    name = re.split(r"[./:#]+", m["name"])[-1].lower()
    rest = subject[m.end() :]
    return rest if name in _place_names(place) and len(rest) >= MIN_SAID_CHARS else subject


def _without_own_name(bug: str, place: str) -> str:
    """The bug without an opening name of ``place`` ("httpFancyWriter.ReadFrom double-counting bytes" under
    `httpFancyWriter.ReadFrom` says "double-counting bytes"), when what follows names the bug: a gerund, "not …" or
    a bug noun (BUG_FIRST). A name of something else, or one the rest needs ("`send` when …"), stays."""
    first, _, rest = bug.partition(" ")
    if not rest or not _same_name(first, place):
        return bug
    return rest if OWN_NAME_FOLLOWED.match(rest) or BUG_FIRST.match(rest) else bug


def _same_name(name: str, place: str) -> bool:
    """``name`` ("ReadFrom", "`httpFancyWriter.ReadFrom()`") and ``place`` name one symbol: the parts of one end the
    other's."""
    mine = [p.lower() for p in re.split(r"[./:#]+", name.strip("`").removesuffix("()")) if p]
    theirs = [p.lower() for p in re.split(r"[./:#]+", place.strip("`")) if p]
    shorter, longer = sorted((mine, theirs), key=len)
    return bool(shorter) and longer[len(longer) - len(shorter) :] == shorter


def dead_end_headline(what: str, place: str) -> str:
    what = said(what) or "that change"
    return f"Do not bring back “{what}” in {place}: it was tried and reverted."


HOTSPOT_SHOWN = 3  # the newest fixes a hot spot's headline says; its count and evidence hold the rest
HOTSPOT_SAID_CHARS = 320  # … fewer when saying them all would pass this: a headline, not a changelog
# a name an error or a bug goes by ("TypeError", "StringIndexOutOfBoundsException"): the bug itself, said as it is
ERROR_NAME = re.compile(r"^`?[A-Z]\w*(Error|Exception|Panic|Fault|Leak)\b")
# … or a bug phrase that says what went wrong anywhere ("hooks being skipped when …", "body not closed on retry")
WENT_WRONG = re.compile(
    r"\b(being|not|never|no longer|fail(s|ed|ing)?|ignored|skipped|lost|dropped|swallowed|leak(s|ed|ing)?|"
    r"hang(s|ing)?|crash(es|ed|ing)?|throw(s|n|ing)?|thrown|break(s|ing)?|broken|overflow(s|ed|ing)?)\b",
    re.IGNORECASE,
)
_AVOID_BUG = "Avoid reintroducing a bug in "
NOT_TO = re.compile(r"^(?P<what>.+?) not to (?P<rule>[a-z]+\b.*)$")
CHANGE_FIRST = re.compile(
    r"^(improve|update|refactor|add|use|make|ensure|keep|allow|remove|set|return|check|handle|prevent|support|skip|"
    r"refine|reset|clear|close|pass|call|copy|move|respect|preserve|treat)\b"
)
BUG_AFTER = re.compile(r"^(for|in|on|with|when|while|after|before|during|if|at)\b", re.IGNORECASE)
BUG_CLAUSE = re.compile(r"^((?!(which|that|who)\b)\S+\s+){1,2}(is|are|was|were|does|do|did|gets?|got|has|have)\b")
# an error named as a part of the code ("error handling", "error message for @tsv"): where the bug was
NOUN_ERROR = re.compile(r"^(\S+\s+)?(errors?|exceptions?|panics?)\s+(handling|handlers?|messages?|reporting|paths?|"
                        r"codes?|types?|cases?|checks?|output)\b", re.IGNORECASE)  # fmt: skip
# a subject that is the body's first sentence ("This commit fixes a potential denial of service …"): said from "fixes"
SENTENCE_END = re.compile(r"(?<=[a-z0-9)\]`])\.\s+(?=[A-Z])")  # "… without newlines. Previously, …"
THIS_COMMIT = re.compile(r"^(this|the) (commit|change|patch|pr|pull request)\s+(?=fix)", re.IGNORECASE)


def hotspot_fix(subject: str, place: str) -> str:
    """What one fix of ``place`` made it do, said as a clause of the hot spot's headline (no place, no full stop):
    the rule it added ("add Content-Length only if …", "handle nil body") or the failure not to bring back ("avoid
    double-calling res.end for HEAD requests", "avoid breaking the SlowBuffer support"), as :func:`fix_headline`
    words it; "" for a vague subject ("fix issue")."""
    subject = SENTENCE_END.split(THIS_COMMIT.sub("", subject.strip(), count=1), maxsplit=1)[0]  # its first sentence
    cleaned = said(subject)
    if not cleaned or vague(cleaned):
        return ""
    headline = fix_headline(subject, place).rstrip(".")
    if headline.startswith(f"{_AVOID_BUG}{place} that affected the "):
        return f"avoid breaking the {headline.removeprefix(f'{_AVOID_BUG}{place} that affected the ')}"
    if headline.startswith(f"{_AVOID_BUG}{place}: "):
        return _bug_clause(headline.removeprefix(f"{_AVOID_BUG}{place}: "))
    if headline.startswith(f"{_upper_first(place)} must "):
        return headline.removeprefix(f"{_upper_first(place)} must ")
    if headline.startswith(f"In {place}: "):
        return headline.removeprefix(f"In {place}: ")
    return _lower_first(headline)


def _bug_clause(bug: str) -> str:
    """The failure a fix took away as a clause: "avoid <the bug>" when it names one, else where it was."""
    if (rule := NOT_TO.match(bug)) is not None:  # "'--color nth:regular' not to reset …": a rule after all
        return f"{rule['what']} must not {rule['rule']}"
    if not bug[:1].isalnum() and bug[:1] not in "`'\"$-.":  # "& optimize …": no bug said alone
        return f"fix {bug}"
    if CHANGE_FIRST.match(bug):  # "improve body null check": a change, said as the rule it is
        return bug
    if BUG_AFTER.match(bug):  # "for the FullPath feature"
        return f"avoid the bug {bug}"
    gerund = re.match(r"^[a-z]+-[a-z]+ing\b", bug)  # "double-calling res.end": the misdeed ("scrolling …" names a part)
    if (BUG_FIRST.match(bug) and not NOUN_ERROR.match(bug)) or ERROR_NAME.match(bug) or gerund:
        return f"avoid {bug}"  # "CVE-2025-49014 which was introduced in 1.8.0", "memory leak caused by …"
    if BUG_CLAUSE.match(bug):  # "onAbort() is called even if …"
        return f"avoid the bug where {bug}"
    # "handling of …", "refund of negative amounts", "error handling": where the bug was, not what it did
    return f"avoid {bug}" if WENT_WRONG.search(bug) else f"avoid the bug in {bug}"


def hotspot_fixes(place: str, subjects: Sequence[str], shown: int = HOTSPOT_SHOWN) -> list[str]:
    """The newest ``shown`` fixes of ``subjects`` (newest first) as :func:`hotspot_fix` says them, each once: two
    said in the same words, whatever their case and punctuation ("fix crop" and "Fix crop."), are one."""
    said_once: dict[tuple[str, ...], str] = {}
    for said_as in (hotspot_fix(s, place) for s in subjects):
        if said_as:
            said_once.setdefault(tuple(WORD.findall(said_as.lower())), said_as)
    return list(said_once.values())[:shown]


def fix_span(count: int, first_date: str, last_date: str) -> str:
    """ "5 fixes from 2011 to 2026-06-16", "2 fixes in 2024": a hot spot's evidence."""
    span = f"from {first_date[:4]} to {last_date[:10]}" if first_date[:4] != last_date[:4] else f"in {last_date[:4]}"
    return f"{count} fixes {span}"


def hotspot_headline(place: str, subjects: Sequence[str], count: int, first_date: str, last_date: str) -> str:
    """What ``place``'s fixes (``subjects``, newest first) made it do, the newest HOTSPOT_SHOWN (fewer past
    HOTSPOT_SAID_CHARS) each as the rule to keep or the failure not to bring back (:func:`hotspot_fix`), then the
    evidence: ``count`` fixes between two dates. A hot spot whose every fix is vague says only its count."""
    kept = hotspot_fixes(place, subjects)
    while len(kept) > 1 and len("; ".join(kept)) > HOTSPOT_SAID_CHARS:
        kept.pop()  # the oldest shown goes first
    evidence = fix_span(count, first_date, last_date)
    if not kept:
        return f"{_upper_first(place)} has needed {evidence}. Read its history before changing it."
    return f"Keep the fixes of {place}: {_stop('; '.join(kept))} It has needed {evidence}."


def comment_headline(comment: str, place: str) -> str:
    """``In `place`: <the comment>``, without a note marker it opens on ("NB: Avoid …" says "Avoid …")."""
    return f"In {place}: {NOTE_MARK.sub('', comment, count=1) or comment}"


WHY_MARK = "Why:"  # a lesson's text: its headline, then the why after this (mine_score reads it back)


def lesson_text(headline: str, reason: str = "", kept: str = "") -> str:
    """The headline, then the why on its own paragraph, then what the change put in the code (``kept``: a line of it
    still there, :mod:`mine_kept`); clipped to the memory text limit, the kept line first to go."""
    text = f"{headline}\n\n{WHY_MARK} {reason}" if reason else headline
    if kept and len(text) + len(kept) + 2 <= MAX_TEXT_CHARS:
        text = f"{text}\n\n{kept}"
    return text if len(text) <= MAX_TEXT_CHARS else text[: MAX_TEXT_CHARS - 1].rstrip() + "…"
