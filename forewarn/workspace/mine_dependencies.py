"""Dependency work, by a commit's subject and the package manifests its diff touched: no behaviour of the project's
own code was fixed ("Bump serde to 1.0.190", "Use nu-ansi-term instead of ansi-term" with Cargo.toml changed).

A subject's "dependency" can name the program's own structure ("type with cyclic dependency", "dependency
injection"): that is no dependency work; a cycle of imports between two of its files is plumbing, no fix. A swap
of one library for another is dependency work when a manifest's changed lines name a library the subject names; the
call sites it rewired teach nothing of their own.
"""

from __future__ import annotations

import re

from forewarn.workspace.history import CommitRecord

DEPENDENCY_SUBJECT = re.compile(
    r"\b(?<!cyclic )(?<!circular )(?<!cyclical )(?<!mutual )(?<!recursive )(?<!self-)"
    r"dependenc(y|ies)(?! (injection|graph|cycles?|order(ing)?|resolution|tracking|analysis|tree)\b)"
    # … but a cycle between the project's own files ("avoid circular dependency between body.ts and request.ts")
    # is import plumbing, as little a fix of behaviour as a version bump
    r"|\b(cyclic|circular|cyclical|mutual) (dependenc(y|ies)|imports?) between\b"
    r"|\b(deps|upgrade[sd]?|downgrade[sd]?|bump(ed|s)?|vendor(ed|ing)?|pin(ned|s)? \w+ to)\b"
    # "update to Tokio 0.3", "port to Foo v2": a named library's version taken
    r"|^\s*(update[sd]?|updating|port(s|ed|ing)?|migrat(e|es|ed|ing)) to [A-Za-z][\w.-]* v?\d+(\.\d+)+\b",
    re.IGNORECASE,
)
# a subject that swaps one thing for another: "Use X instead of Y", "Replace Y with X", "Switch from Y to X",
# "Migrate to X", "Drop Y in favour of X"
SWAP_SUBJECT = re.compile(
    r"^\s*(\w+(\([^()]{0,40}\))?!?:\s*)?"
    r"(use[sd]?\b.+\b(instead of|over|rather than)\b|replac(e|es|ed|ing)\b.+\b(with|by)\b"
    r"|switch(es|ed|ing)? (from|to)\b|migrat(e|es|ed|ing) (from|to)\b|mov(e|es|ed|ing) (from|to)\b"
    r"|drop(s|ped)?\b.+\bin fav(ou)?r of\b)",
    re.IGNORECASE,
)
# the files that declare a project's libraries, in the languages Forewarn reads
MANIFEST_PATH = re.compile(
    r"(^|/)(Cargo\.toml|package\.json|go\.mod|pom\.xml|build\.gradle(\.kts)?|pyproject\.toml|setup\.py|setup\.cfg|"
    r"requirements[\w.-]*\.txt|Pipfile|Gemfile|[\w.-]+\.gemspec|composer\.json|CMakeLists\.txt|vcpkg\.json|"
    r"conanfile\.(txt|py)|[\w.-]+\.csproj|Package\.swift|mix\.exs)$"
)
NAME = re.compile(r"[A-Za-z][\w.-]*[\w]")
MIN_NAME_CHARS = 3  # a shorter word names no library worth matching ("to", "of")
SUBJECT_WORDS = frozenset({"use", "uses", "used", "instead", "replace", "with", "switch", "from", "migrate", "move"})


def dependency_subject(subject: str) -> bool:
    """The subject names dependency work ("Bump …", "Update dependencies"), not the code's own dependencies."""
    return DEPENDENCY_SUBJECT.search(subject) is not None


def swaps_dependency(commit: CommitRecord) -> bool:
    """The subject swaps one thing for another and a manifest's changed lines name one of the subject's names: a
    library replaced by another, its call sites rewired."""
    if not SWAP_SUBJECT.search(commit.subject):
        return False
    names = {
        n.lower() for n in NAME.findall(commit.subject) if len(n) >= MIN_NAME_CHARS and n.lower() not in SUBJECT_WORDS
    }
    if not names:
        return False
    named = re.compile(rf"(?<![\w-])({'|'.join(map(re.escape, sorted(names)))})(?![\w-])")  # once per commit
    return any(
        named.search(" ".join((*hunk.removed, *hunk.added)).lower())
        for f in commit.files
        if MANIFEST_PATH.search(f.path or f.old_path)
        for hunk in f.hunks
    )
