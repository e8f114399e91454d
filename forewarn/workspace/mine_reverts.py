"""What a revert says it undid: the commits it names, whether it undid them whole, a subject as both quote it, and
whether what it undid is back at HEAD. No I/O but :func:`file_lines`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from forewarn.workspace import mine_code
from forewarn.workspace.history import CommitRecord
from forewarn.workspace.mine_rules import REVERT_SUBJECT, revert_target, reverted_shas

ABBREVIATED_SHA = 7  # a revert may name its commit by this many hex digits or more
# a revert's body naming what it undid in words of its own: "This reverts 96e8d89.", "Reverts commit 96e8d89 …" (jq);
# an id holds a digit ("reverts defaced" is a word)
REVERTS_NAMED = re.compile(r"\breverts\s+(?:commit\s+)?(?P<sha>(?=[0-9a-f]*[0-9])[0-9a-f]{7,64})\b", re.IGNORECASE)
PARTIAL_REVERT = re.compile(r"\bpart(?:ial)?ly\s+revert", re.IGNORECASE)  # jq's abde27d: some of it still stands
# a revert's subject naming its commit by id before its own words: "Reverts 09a1f78ca and instead ensures …" (peewee)
LEADING_SHA = re.compile(r"^(?:commit\s+)?(?P<sha>(?=[0-9a-f]*[0-9])[0-9a-f]{7,64})\b", re.IGNORECASE)
# the pull-request number a squash merge adds to a subject ("… (#3205)"): the revert's copy carries its own number
PR_SUFFIX = re.compile(r"(\s*\(#\d+\))+\s*$")
# a commit landing a reverted change again by saying so: 'Reapply "X"' (git's own since 2.43), "Re-land X", "Reland: X"
RELAND_SUBJECT = re.compile(
    r'^\s*re-?(?:appl(?:y|ies|ied)|land(?:s|ed)?|commit(?:s|ted)?)\b[:\s]*"?(?P<what>.*?)"?\s*$', re.IGNORECASE
)

# a conventional revert's subject in its author's words ("revert(core): drop …"), not git's quoted 'Revert "…"'
CONVENTIONAL_REVERT = re.compile(r"^\s*revert(?:\([^()]{0,40}\))?!?:(?!\s*\")", re.IGNORECASE)
# … opening on the undoing itself: what follows is what was undone
UNDOING_VERB = re.compile(r"^(?:drop|remove|back out|undo|roll back|take out|revert)s?\s+(?P<what>\S.*)$", re.I)


def undone(commit: CommitRecord) -> tuple[list[str], bool]:
    """(the ids ``commit`` says it reverts, whether it reverts them whole). git's own "This reverts commit" line
    counts always; a partial revert's own words name what still partly stands, so they add nothing."""
    named = reverted_shas(commit)
    whole = not PARTIAL_REVERT.search(commit.body)
    lead = LEADING_SHA.match(revert_target(commit) or "")
    named += [lead.group("sha").lower()] if lead and whole else []
    named += [m.group("sha").lower() for m in REVERTS_NAMED.finditer(commit.body)] if whole else []
    return list(dict.fromkeys(s for s in named if len(s) >= ABBREVIATED_SHA)), whole


def partly_undone(commit: CommitRecord) -> list[str]:
    """The ids a partial revert names ("This partially reverts commit ee1aff9…"): what it took back is not withdrawn
    (some of it still stands), but its subject says what the dead end was (nanopb's "Revert old fix for #617")."""
    if not PARTIAL_REVERT.search(commit.body):
        return []
    return [m.group("sha").lower() for m in REVERTS_NAMED.finditer(commit.body)]


def subject_key(subject: str) -> str:
    """A subject as a revert quotes it and as its commit has it: quotes, case and pull-request numbers aside
    ('Revert "Fix x" (#3349)' undid "Fix x (#3205)")."""
    return PR_SUFFIX.sub("", PR_SUFFIX.sub("", subject.strip()).strip().strip('"').strip()).lower()


def undone_key(subject: str) -> str | None:
    """What a revert's subject says it undid, as :func:`subject_key` has it; None for a subject that is no revert."""
    m = REVERT_SUBJECT.match(subject.strip())
    return subject_key(m.group("what").strip().rstrip(".")) if m else None


def landed_key(subject: str) -> str | None:
    """The change a commit lands, as :func:`subject_key` has it: a re-land's ('Reapply "X"', 'Re-land X',
    'Revert "Revert "X""') is X, any other commit's its own subject; None for a revert, which lands nothing."""
    again = RELAND_SUBJECT.match(subject.strip())
    if again:
        return subject_key(again.group("what"))
    what = undone_key(subject)
    if what is None:
        return subject_key(subject)
    return undone_key(what)  # a revert of a revert lands what the inner one undid


def undone_thing(subject: str, what: str) -> str:
    """What a dead end says not to bring back. A conventional revert in its own words names the undoing, not what
    was undone: zod's "revert(core): drop the exactOptional parse prototype" undid the prototype, and "Do not bring
    back “drop the … prototype”" said the opposite. A quoted subject ('Revert "Remove the cache"') is the reverted
    commit's own, kept whole."""
    if CONVENTIONAL_REVERT.match(subject):
        m = UNDOING_VERB.match(what)
        if m:
            return m.group("what")
    return what


# a reverted change is back at HEAD (viper's recursive insensitiviseMap, re-done through a helper; hono's stringify of
# an object in createHash, re-done the next day behind a check for binary data) when most of the telling lines the
# revert took out are in HEAD's code of the file again: each as it was, or each one's words (names and literals) within
# BACK_WINDOW_LINES lines of each other, one of them at least a name that the code left after the revert lacks (the
# revert of "timeout = 5" to "timeout = 10" took out no name, only the 5)
BACK_WINDOW_LINES = 3
BACK_SHARE = 0.5  # mine_fixes.MIN_SURVIVAL: as a fix's lines stand at HEAD
NAME = re.compile(r"[A-Za-z_]")
CODE_WORD = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\"[^\"]*\"")  # a name, a number or a string (normalized: one quote)


def _words(line: str) -> set[str]:
    return set(CODE_WORD.findall(line))


def back_at_head(taken_out: Sequence[str], left: Sequence[str], head_lines: Sequence[str], path: str) -> bool:
    """The change a revert undid is back at HEAD: at least BACK_SHARE of ``taken_out`` (mine_code.sample of the lines
    the revert removed from its code, normalized) is in HEAD's code of the file (``head_lines``), as it was or its
    words near one another (see BACK_WINDOW_LINES). ``left``: the lines the revert left there (what it put back, else
    the code as it left it), whose words say nothing of the undone change."""
    if not taken_out:
        return False
    python = mine_code.is_python(path)
    lines = mine_code.code_lines(list(head_lines), path)
    code = [mine_code.normalize(line, python=python) for line in lines if mine_code.is_logic(line.strip())]
    joined = "".join(code)
    windows = [set().union(*map(_words, code[i : i + BACK_WINDOW_LINES])) for i in range(len(code))]
    common = set().union(*map(_words, left)) if left else set()

    def back(line: str) -> bool:
        if line in joined:
            return True
        words = _words(line)
        new = {w for w in words - common if NAME.match(w)}  # a name the left code lacks, not a literal
        return bool(new) and any(words <= window for window in windows)

    return sum(1 for line in taken_out if back(line)) >= BACK_SHARE * len(taken_out)


def file_lines(root: Path, path: str) -> list[str]:
    """A file's lines in the work tree ([] when it cannot be read)."""
    try:
        return (root / path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
