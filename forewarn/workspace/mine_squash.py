"""GitHub's squashed messages: one "* subject" item per commit of a pull request, the first saying the subject
again. A lesson's why is in the squash's own text (:func:`squash_own_text`); a why from a later item, or one sharing
no word with the headline, is about another commit (:func:`off_topic`)."""

from __future__ import annotations

import re

from forewarn.workspace.mine_lessons import POINTS_BACK, clean_subject, restates, split_sentences

SQUASH_ITEM = re.compile(r"^\* \S", re.MULTILINE)  # GitHub's squash-merge message: one "* subject" per commit
CONTENT_STEM = 5  # words compared by their first letters: "paths" and "path", "unsupported" and "unsupported"
MIN_CONTENT_WORD = 4  # shorter words ("the", "for", "fix") say nothing about the topic


def content_stems(text: str) -> set[str]:
    """The content words of ``text`` by their first letters, a plural's "s" aside ("names" and "name"): what two texts
    share is their common topic."""
    words = (w.lower() for w in re.findall(r"[A-Za-z]\w*", text) if len(w) >= MIN_CONTENT_WORD)
    return {(w[:-1] if w.endswith("s") and len(w) > MIN_CONTENT_WORD else w)[:CONTENT_STEM] for w in words}


_FIX_TALK = content_stems("fix fixed fixes should would could because")  # words any why shares with any fix headline


def off_topic(body: str, subject: str, reason: str) -> bool:
    """A squashed message (several "* subject" items) whose why shares no content word with the headline (the
    sentence came from another commit squashed in: "Modify multiple return statements …" under a wildcard fix), or
    whose why comes from a later item's body (:func:`from_later_item`)."""
    return (
        bool(reason)
        and len(SQUASH_ITEM.findall(body)) >= 2
        and (
            not (content_stems(reason) - _FIX_TALK) & content_stems(clean_subject(subject))
            or from_later_item(body, subject, reason)
        )
    )


def squash_own_text(body: str, subject: str) -> str | None:
    """A GitHub squash's own text, where its why is: the first item (its title says the subject again) to the
    second, and any later item whose title says the subject again; None for a message that is no such squash (a
    plain bullet list of changes keeps its whole body). The later items are the follow-up commits of the pull
    request ("* Use allow_explicit_origin() …: We now construct a `MutableHeaders` …"): their reasons are theirs."""
    lines = body.splitlines()
    items = [i for i, line in enumerate(lines) if SQUASH_ITEM.match(line)]
    if len(items) < 2 or not restates(lines[items[0]][2:], clean_subject(subject)):
        return None
    return "\n".join(line for section in _own_sections(lines, items, subject) for line in section)


def _own_sections(lines: list[str], items: list[int], subject: str) -> list[list[str]]:
    """A squashed message's sections about its subject: all before the second item, and each later item whose
    title says the subject again (to the next item)."""
    ends = [*items[1:], len(lines)]  # each item's section runs to the next item
    headline = clean_subject(subject)
    return [lines[: items[1]]] + [
        lines[i : ends[k + 1]] for k, i in enumerate(items[1:]) if restates(lines[i][2:], headline)
    ]


def from_later_item(body: str, subject: str, reason: str) -> bool:
    """The why is in a later item of a squashed message, not the first nor one whose title says the subject again,
    and opens on that item's title or points back at it ("Otherwise we'd end up with an explicit setattr …" under
    "* Add optimization …"): about that commit, not the subject's, whatever words it shares with it."""
    lines = body.splitlines()
    items = [i for i, line in enumerate(lines) if SQUASH_ITEM.match(line)]
    first = " ".join(split_sentences(reason)[0].split()) if reason else ""
    if len(items) < 2:
        return False
    if any(first in " ".join(" ".join(section).split()) for section in _own_sections(lines, items, subject)):
        return False
    titles = {" ".join(lines[i][2:].split()).rstrip(".") for i in items[1:]}
    return first.rstrip(".") in titles or POINTS_BACK.match(first) is not None
