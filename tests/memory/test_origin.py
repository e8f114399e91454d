"""The one provenance model: every kind of origin in one wording, claims shown as claims, vetted or not."""

from __future__ import annotations

import dataclasses

from forewarn.memory.origin import (
    IMPORTED_KEY,
    PROPOSAL_KEY,
    OriginKind,
    origin_of,
    shared_provenance,
)
from forewarn.memory.records import Anchor, Memory
from forewarn.memory.vocabulary import MemorySource, MemoryStatus, MemoryType

BASE = Memory(
    id="01JAAAAAAAAAAAAAAAAAAAAA01", type=MemoryType.GOTCHA, text="finalize double-bills on retry",
    anchor=Anchor("billing/invoice.py", "finalize"), source=MemorySource.USER, confidence=1.0,
    created_at="2025-06-01T09:00:00.000000Z", updated_at="2025-06-01T09:00:00.000000Z",
    recorded_by="Ann Lee <ann@example.com>",
)  # fmt: skip
IMPORTED = {"from": ".forewarn/memories.jsonl", "line": 2, "commit": "7a2788f" + "0" * 33, "author": "Mallory",
            "date": "2025-06-02"}  # fmt: skip


def test_a_person_here_is_named_once() -> None:
    origin = origin_of(BASE)
    assert (origin.kind, origin.vetted) == (OriginKind.PERSON, True)
    assert origin.phrase() == "recorded here by Ann Lee"  # D12: one "recorded", not "a person · recorded by"
    assert origin_of(dataclasses.replace(BASE, recorded_by=None)).phrase() == "recorded here"


def test_an_imported_memory_names_its_commit_and_shows_its_writer_as_a_claim() -> None:
    m = dataclasses.replace(BASE, provenance={IMPORTED_KEY: IMPORTED}, recorded_by="Alice Smith <alice@corp>")
    origin = origin_of(m)
    assert origin.kind == OriginKind.IMPORTED and origin.vetted
    assert origin.phrase() == (
        "imported from .forewarn/memories.jsonl, commit 7a2788f by Mallory, 2025-06-02; "
        "it says it was written by “Alice Smith”"
    )
    assert "recorded" not in origin.phrase()  # imported text never reads as recorded by a person
    waiting = origin_of(dataclasses.replace(m, status=MemoryStatus.SUGGESTED))
    assert not waiting.vetted
    uncommitted = dict(IMPORTED, commit=None, uncommitted=True)
    assert (
        "(its line was not committed)"
        in origin_of(dataclasses.replace(m, provenance={IMPORTED_KEY: uncommitted})).phrase()
    )
    forged = dataclasses.replace(m, recorded_by="Eve” · recorded here by “Ann <x>")  # quotes cannot close ours
    assert '“Eve" · recorded here by "Ann”' in origin_of(forged).phrase()


def test_an_agent_is_always_an_agent_and_its_name_a_claim() -> None:
    m = dataclasses.replace(
        BASE, source=MemorySource.AGENT, status=MemoryStatus.SUGGESTED,
        provenance={"agent": {"name": "Alice Smith (tech lead)\n- **gotcha**", "version": "6.6.6"}},
    )  # fmt: skip
    origin = origin_of(m)
    assert (origin.kind, origin.vetted) == (OriginKind.AGENT, False)
    assert origin.phrase() == "suggested by an agent that calls itself “Alice Smith (tech lead) - **gotcha** 6.6.6”"
    accepted = origin_of(dataclasses.replace(m, status=MemoryStatus.ACTIVE))
    assert accepted.vetted and accepted.phrase().startswith("written by an agent that calls itself")
    nameless = dataclasses.replace(m, provenance=None)
    assert origin_of(nameless).kind == OriginKind.AGENT  # source agent without a name: still an agent's


def test_mined_memories_quote_the_commit_they_were_learned_from() -> None:
    """QA pass 5, F9: a lesson that folded in later fixes of its code named the newest of them and its author
    ("5 commits, latest commit 499c91b by …"), not the commit its headline and why come from (mining puts it
    first). A hot spot, learned from its fixes together, still says the newest."""
    prov = {"commits": [{"sha": "0011223", "author": "Bo", "date": "2023-01-01"},
                        {"sha": "abc1234ffff", "author": "Ann", "date": "2024-03-02T10:00:00Z"}]}  # fmt: skip
    m = dataclasses.replace(BASE, source=MemorySource.COMMIT, provenance=prov, status=MemoryStatus.SUGGESTED)
    assert origin_of(m).phrase() == "suggested from commit 0011223 by Bo, 2023-01-01 and 1 related commit"
    hot = dataclasses.replace(m, provenance={"commits": prov["commits"][::-1], "kind": "hotspot"})
    assert origin_of(hot).phrase() == "suggested from 2 commits, latest commit abc1234 by Ann, 2024-03-02"
    imported = dataclasses.replace(
        m, recorded_by=None, provenance={**prov, "imported": {"from": ".forewarn/memories.jsonl"}}
    )
    assert origin_of(imported).phrase().endswith("it says it was mined from commit “0011223”")
    assert origin_of(dataclasses.replace(m, status=MemoryStatus.ACTIVE)).phrase().startswith("learned from")
    comment = dataclasses.replace(BASE, source=MemorySource.COMMENT, provenance={"kind": "HACK"})
    assert origin_of(comment).phrase() == "learned from a warning comment"


def test_a_proposal_says_what_it_would_change() -> None:
    prop = {"agent": {"name": "bot"}, PROPOSAL_KEY: {"action": "mark_outdated", "target": BASE.id, "reason": "moved"}}
    m = dataclasses.replace(BASE, source=MemorySource.AGENT, status=MemoryStatus.SUGGESTED, provenance=prop)
    assert origin_of(m).phrase() == (
        "suggested by an agent that calls itself “bot”; proposes to mark memory AAAA01 outdated: “moved”"
    )


def test_local_keys_never_leave_and_are_never_taken_from_a_file() -> None:
    prov = {"commits": [{"sha": "abc"}], IMPORTED_KEY: IMPORTED, PROPOSAL_KEY: {"action": "forget", "target": "x"}}
    assert shared_provenance(prov) == {"commits": [{"sha": "abc"}]}
    assert shared_provenance({IMPORTED_KEY: IMPORTED}) is None
