"""What a revert says it undid: the commits it names, whether it undid them whole, and a subject as both quote it.
No I/O."""

from __future__ import annotations

import re

from forewarn.workspace.history import CommitRecord
from forewarn.workspace.mine_rules import reverted_shas

ABBREVIATED_SHA = 7  # a revert may name its commit by this many hex digits or more
# a revert's body naming what it undid in words of its own: "This reverts 96e8d89.", "Reverts commit 96e8d89 …" (jq);
# an id holds a digit ("reverts defaced" is a word)
REVERTS_NAMED = re.compile(r"\breverts\s+(?:commit\s+)?(?P<sha>(?=[0-9a-f]*[0-9])[0-9a-f]{7,64})\b", re.IGNORECASE)
PARTIAL_REVERT = re.compile(r"\bpart(?:ial)?ly\s+revert", re.IGNORECASE)  # jq's abde27d: some of it still stands
# the pull-request number a squash merge adds to a subject ("… (#3205)"): the revert's copy carries its own number
PR_SUFFIX = re.compile(r"(\s*\(#\d+\))+\s*$")


def undone(commit: CommitRecord) -> tuple[list[str], bool]:
    """(the ids ``commit`` says it reverts, whether it reverts them whole). git's own "This reverts commit" line
    counts always; a partial revert's own words name what still partly stands, so they add nothing."""
    named = reverted_shas(commit)
    whole = not PARTIAL_REVERT.search(commit.body)
    named += [m.group("sha").lower() for m in REVERTS_NAMED.finditer(commit.body)] if whole else []
    return list(dict.fromkeys(s for s in named if len(s) >= ABBREVIATED_SHA)), whole


def subject_key(subject: str) -> str:
    """A subject as a revert quotes it and as its commit has it: quotes, case and pull-request numbers aside
    ('Revert "Fix x" (#3349)' undid "Fix x (#3205)")."""
    return PR_SUFFIX.sub("", PR_SUFFIX.sub("", subject.strip()).strip().strip('"').strip()).lower()
