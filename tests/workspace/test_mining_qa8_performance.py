"""QA pass 8b, finding 5: performance-only commits proposed as lessons. ripgrep be9e308 "globset: use a Pool from
regex-automata" (its why: "That allocated unconditionally …"), 139f186 "switch to depth first traversal" ("… tends to
use less memory"), 020687a "increase pool capacity" ("This improves scaling …"): leaner or faster code, no bug."""

from __future__ import annotations

from forewarn.workspace.mine_rules import Noise, VerdictKind, classify
from tests.workspace.billing_history import record


def test_work_that_only_saves_memory_or_scales_better_is_no_lesson() -> None:
    for subject, body in (
        ("globset: use a Pool from regex-automata", "Previously we used a thread local cache. That allocated "
         "unconditionally, so there was nothing we could do, because it did not expose any way to reuse it."),
        ("ignore: switch to depth first traversal", "A depth first traversal generally tends to use less memory, "
         "because the queue of directories to visit no longer holds every sibling at once."),
        ("ignore: increase pool capacity", "This improves scaling because threads wait less often for a cache."),
    ):  # fmt: skip
        verdict = classify(record(subject, body))
        assert verdict.reason == Noise.PERFORMANCE, subject


def test_a_memory_fix_that_names_a_failure_is_still_a_lesson() -> None:
    verdict = classify(record(
        "Fix peak memory usage when reading stdin",
        "Reading stdin kept every line in memory, so large inputs crashed with an out-of-memory error, because "
        "the buffer was never released.",
    ))  # fmt: skip
    assert verdict.kind != VerdictKind.NOISE or verdict.reason != Noise.PERFORMANCE
