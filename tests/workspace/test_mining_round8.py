"""Mining round 8 (issue 23): whys the blind judges found were no reason — each rule on messages and a repository
the test builds.

A why must say why the code is as it is now: a sentence about the tests or the build ("… and cover the bodyless
request case"), a note for later ("when Python 2 support is dropped, we can likely refactor this") or a sentence
that starts mid-way ("is preserved in all cases *except* …") is none. A commit left with no other why proposes
nothing, counted by the name of what its only why was; a headline that announces a capability ("X now accepts an
optional Y") is a feature, not a lesson.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_lessons import why
from forewarn.workspace.mine_rules import CAUSE_WORDS, STRONG_WORDS, Noise, VerdictKind, classify
from tests.gitrepo import Repo
from tests.workspace.billing_history import billing_repo, mined, record


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return billing_repo(tmp_path / "repo")


def verdict_of(subject: str, body: str) -> tuple[Noise | None, str]:
    verdict = classify(record(subject, body, ("cache.py",)))
    return (verdict.reason if verdict.kind == VerdictKind.NOISE else None), verdict.why


def test_a_note_for_later_is_no_why() -> None:
    todo = "When Python 2 support is dropped, we can likely refactor this to avoid locking entirely."
    start = "There are other File implementations that could also benefit from the above, but this is a start."
    assert verdict_of("Lock around strong cache updates", todo) == (Noise.WHY_TODO, "")
    assert verdict_of("Make ReadDir check for ReadDirFile", start)[0] == Noise.WHY_TODO
    # beside a real reason, the note is left out and the reason stays
    cause = "Two threads updating the cache at once lost entries, because the dict was resized under them."
    reason, said = verdict_of("Lock around strong cache updates", f"{cause} {todo}")
    assert reason is None and said == cause
    # "drop" as the code's own behaviour is no note for later
    dropped = "The queue was dropping messages because the consumer closed the channel before the last read."
    assert verdict_of("Fix lost messages on shutdown", dropped)[0] is None


def test_a_why_about_the_tests_or_the_build_is_no_why() -> None:
    covered = (
        "Drive ContentLength from a real request body instead, and cover the bodyless request with no "
        "Content-Type header, which is the scenario reported in the issue."
    )
    build = "Rewrite Vitest prod build config to ensure the prod build is used, otherwise the bug did not show."
    assert verdict_of("Fix ContentCharset for requests without a body", covered)[0] == Noise.WHY_TESTS
    assert verdict_of("Fix broken array patching in draft Maps", build)[0] == Noise.WHY_TESTS
    # a product sentence that only mentions "cover" keeps its place
    cover = "The cover image was cropped because the width was read before the image had loaded."
    assert verdict_of("Fix cropped cover image on slow networks", cover)[0] is None


def test_a_why_that_starts_mid_sentence_is_no_why() -> None:
    fragment = (
        "is preserved in all cases except when something on the underlying system changes, because the cache "
        "keeps a reference to the first result."
    )
    assert verdict_of("Stop storing None in the weakref cache", fragment) == (Noise.WHY_FRAGMENT, "")
    # the lenient reading finds it: that is how the run names what the message was left without
    assert why(fragment, "Stop storing None in the weakref cache", CAUSE_WORDS, STRONG_WORDS, lenient=True)
    # nor is a sentence that points back at the fragment ("This could happen if …")
    back = f"{fragment} This could happen if the zone is added to the zoneinfo data between the two calls."
    assert verdict_of("Stop storing None in the weakref cache", back) == (Noise.WHY_FRAGMENT, "")
    # a capitalised sentence, or one with its subject, is whole
    whole = "It is preserved in all cases except when the system changes, because the cache keeps the first result."
    assert verdict_of("Stop storing None in the weakref cache", whole)[0] is None


def test_a_capability_announced_after_the_name_is_a_feature() -> None:
    why_text = "With this change a background task can run after a redirect, because forms usually redirect."
    assert verdict_of("RedirectResponse now accepts optional background parameter", why_text)[0] == Noise.FEATURE
    assert verdict_of("Cookie parser can now take a decoder", why_text)[0] == Noise.FEATURE
    assert verdict_of("Redirect accepts an optional status", why_text)[0] == Noise.FEATURE
    # a fix that says what the code now does is still a fix
    crash = "Parsing crashed because the header was read as bytes, so now it is decoded first."
    assert verdict_of("Fix crash: parser now accepts bytes headers", crash)[0] is None


def test_a_run_counts_each_why_left_out_by_name(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.edit("billing.py", "    total = amount", "    card.lock()\n    total = amount")
    repo.commit(
        "Lock the card before charging it\n\n"
        "When the old gateway is removed, we can likely refactor this to avoid the extra lock."
    )
    repo.edit("billing.py", "    return -amount", "    if not card.valid:\n        return 0\n    return -amount")
    repo.commit(
        "Refund only valid cards\n\n"
        "Cover the expired card case in the test table, because that is the scenario the report was about."
    )
    repo.edit("billing.py", "    card.lock()", "    if card.locked:\n        return 0\n    card.lock()")
    repo.commit(
        "Fix double charge when a card is charged twice at once\n\n"
        "A second charge went through because the lock was taken after the gateway call had started."
    )
    ws, report = mined(repo, open_ws)
    assert report.noise[Noise.WHY_TODO] == 1
    assert report.noise[Noise.WHY_TESTS] == 1
    texts = [m.text for m in ws.suggestions() if m.source == "commit"]
    assert any("gateway call had started" in t for t in texts)
    assert not any("refactor" in t or "test table" in t for t in texts)
