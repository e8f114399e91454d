"""New behaviour and reworked code, by a commit's subject and its why: a feature, an offer or a rewrite teaches no trap.

A subject's first word may say the change is new behaviour ("Add …", "Support …"): such a commit is a feature, what
its body says. Other subjects offer something or rework code in words that also head fixes ("Fallback to JSON
highlighting if …", "Batch reporter output for …", "rewrite `buffer` to use …"): those are a feature or a refactor
only when their why names no fault, and a why that only argues a benefit ("somewhat cleaner", "these are useful
over …", "it would be good to …") is no lesson either, whatever the subject.
"""

from __future__ import annotations

import re

# new behaviour, by the subject's first word: a feature teaches no trap, even when it closes an issue ("fixes #86")
FEATURE_SUBJECT = re.compile(
    r"^\s*(add(s|ed|ing)?|allow(s|ed|ing)?|support(s|ed|ing)?|implement(s|ed|ing)?|introduc(e|es|ed|ing)|"
    r"expose[sd]?|enable[sd]?|new|initial|provide[sd]?|create[sd]?)\b",
    re.IGNORECASE,
)
# new behaviour said after the name: "RedirectResponse now accepts optional background parameter", "X can now take …"
NEW_CAPABILITY = re.compile(
    r"\b(now|can now) (accepts?|supports?|allows?|takes?|exposes?|provides?|handles? optional)\b"
    r"|\baccepts? (an )?optional\b",
    re.IGNORECASE,
)
# an issue tracker's key before the subject ("LANG-1225: Add …", "[JENKINS-12] Support …"): no part of what it says
ISSUE_KEY = re.compile(r"^\s*\[?[A-Z][A-Z0-9]+-\d+\]?\s*[:-]?\s*")
# a subject that offers something new in words a fix may use too ("Fallback to JSON highlighting if the subtype …",
# "Batch reporter output for …", "Custom file upload MIME type", "`URL` overload for `baseUrl`", "Improve …
# conversion"): new behaviour only when the why names no fault
OFFER_SUBJECT = re.compile(
    r"^\s*(fall ?back(s|ed)?|batch(es|ed)?|custom(i[sz]\w+)?|configurable|optional(ly)?|improve[sd]?|enhance[sd]?)\b"
    r"|^\s*(`[^`]+`|[\w.#]+) overloads? (for|of|to)\b|\bnew overloads?\b",
    re.IGNORECASE,
)
# a subject that reworks code ("rewrite `buffer` to use bounded MPSC", "unify and rename combinators"): a refactor when
# its why names no fault
REWORK_SUBJECT = re.compile(
    r"^\s*(rewr(i|o)te[sn]?|rewriting|rework(s|ed|ing)?|unif(y|ies|ied|ying)|consolidat\w+|re-?implement\w*)\b",
    re.IGNORECASE,
)
# a why that argues only a benefit: nicer to use or read, useful, good to have. "In order to allow …" is no benefit
# alone: zlib's "deflateParams() will not change any parameters if … in order to allow switching the compression
# function" states a contract
BENEFIT_WHY = re.compile(
    r"\b(cleaner|nicer|neater|(more )?convenien(t|ce)|(is|are|be|more) useful|readab(le|ility)|"
    r"(more|less) (readable|verbose|flexible|idiomatic|consistent)|"
    r"it would be (good|nice|better|useful)|would be (nice|good) to|(easier|simpler) to (use|read|write))\b",
    re.IGNORECASE,
)
# what went wrong, in a why: a failure, a bug, an error, a limit silently passed ("the JDK HttpClient does not support
# per-request SOCKS proxies … instead of silently bypassing the proxy") — a change whose why names one is a fix
FAULT_WHY = re.compile(
    r"\b(fail(s|ed|ing|ures?)?|rais(e|es|ed|ing)|throw(s|n|ing)?|threw|crash(es|ed|ing)?|panic(s|ked|king)?|hang(s)?|"
    r"hung|leak(s|ed)?|lose[sn]?|lost|corrupt(s|ed|ion)?|broke(n)?|breaks|wrong(ly)?|incorrect(ly)?|timeouts?|"
    r"deadlocks?|races?|bugs?|buggy|regress\w*|errors?|exceptions?|\w+(Error|Exception)|misbehav\w*|"
    r"(does|did|do)(n't| not) (work|support|honou?r|respect)|no longer works?|unexpected(ly)?|overflows?|invalid|"
    r"unsafe|vulnerab\w+|unsupported|not supported|silently|bypass(es|ed|ing)?)\b",
)
_FAULT_CASELESS = re.compile(FAULT_WHY.pattern, re.IGNORECASE)


def without_issue_key(cleaned_subject: str) -> str:
    """A cleaned subject without its issue tracker's key ("LANG-1225: Add …" says "Add …")."""
    rest = ISSUE_KEY.sub("", cleaned_subject, count=1)
    return rest if rest.strip() else cleaned_subject


def feature(cleaned_subject: str) -> bool:
    """New behaviour, by the subject: its first word ("Add …", "Support …") or a capability said after the name."""
    subject = without_issue_key(cleaned_subject)
    return bool(FEATURE_SUBJECT.search(subject) or NEW_CAPABILITY.search(subject))


def names_fault(reason: str) -> bool:
    """The why says something went wrong (FAULT_WHY): a failure, a bug, an error."""
    return bool(_FAULT_CASELESS.search(reason))


def offered(cleaned_subject: str, reason: str) -> bool:
    """A subject that offers something (OFFER_SUBJECT), or any subject whose why argues only a benefit (BENEFIT_WHY),
    and a why that names no fault: new behaviour or a nicer way, no trap someone fell into. No why at all is left to
    the rules that weigh a body without one."""
    if not reason or names_fault(reason):
        return False
    subject = without_issue_key(cleaned_subject)
    return bool(OFFER_SUBJECT.search(subject) or BENEFIT_WHY.search(reason))


def reworked(cleaned_subject: str, reason: str) -> bool:
    """A subject that reworks code (REWORK_SUBJECT) and a why that names no fault: a refactor (no why at all is left
    to the rules that weigh a body without one)."""
    return bool(reason) and bool(REWORK_SUBJECT.search(without_issue_key(cleaned_subject))) and not names_fault(reason)
