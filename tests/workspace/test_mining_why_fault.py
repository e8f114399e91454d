"""Which sentence of an explaining message is the why (QA pass 8, finding 11 and the whys of finding 5).

- The sentence that tells what the old code did wrong ("… had no rung at all, so … never consulted it", "Early returns
  … bypassed the metadata application block") is the why first, whatever words it has; beside it, a sentence that
  only says what the new code does ("Adds that rung …", "Extract … and call it …", "Guard on … instead") is none.
- A sentence that opens on a connective or a pronoun for what came before ("And as a result, …", "But when it is,
  …", "A non-enumerable one …") comes with the sentence before it, or is not the why at all.
"""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_lessons import why
from forewarn.workspace.mine_rules import CAUSE_WORDS, STRONG_WORDS, VerdictKind, classify
from forewarn.workspace.mine_why import describes_change, states_fault
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined, record

# zod f300476d, its first item
ERROR_MAP = """\
finalizeIssue walks the error maps in decreasing specificity and stops at the
first message. `inst` is whatever raised the issue, so for a check the first
rung is the check's own map -- and the next rung was the parse call. The
owning schema's map had no rung at all, so z.string({ error }).min(5) never
consulted it.

Adds that rung between the two, which is where specificity puts it: less
specific than the check that failed, more specific than the parse call.
"""

# zod 28c156e2, its first item
EARLY_RETURNS = """\
Early returns for enum, const, and not: {} (never) schemas in
convertBaseSchema() bypassed the metadata application block at the end
of the function.

Extract metadata application into a helper function applyBaseMetadata()
and call it from each of the affected early-return paths so that
description and default are consistently honored across all schema types.
"""


def fixed(body: str, subject: str = "fix: apply the metadata") -> str:
    return why(body, subject, CAUSE_WORDS, STRONG_WORDS, faults=True)


def test_the_sentence_that_tells_what_went_wrong_is_the_why_not_its_neighbours() -> None:
    assert fixed(ERROR_MAP, "fix(v4): let a schema's error map cover its own checks' issues") == (
        "`inst` is whatever raised the issue, so for a check the first rung is the check's own map -- and the next "
        "rung was the parse call. The owning schema's map had no rung at all, so z.string({ error }).min(5) never "
        "consulted it."
    )
    assert fixed(EARLY_RETURNS) == (
        "Early returns for enum, const, and not: {} (never) schemas in convertBaseSchema() bypassed the metadata "
        "application block at the end of the function."
    )


def test_a_fault_is_told_by_its_grammar_not_by_the_commit() -> None:
    """Past negations and omissions about the old code are faults; the new code's doing, the author's and a
    present description are not."""
    for sentence in (
        "The cache had no entry for the root, so lookups never reached it.",
        "The parser silently dropped the trailing comment.",
        "The handler wasn't registered for HEAD requests.",
        "The loop keyed the map by name rather than by id, so two fields collided.",
        "Retries were never scheduled after a timeout.",
    ):
        assert states_fault(sentence), sentence
    for sentence in (
        "The handler now registers itself for HEAD requests too.",
        "We didn't want to change the public signature.",
        "Dropped frames are counted in the stats.",
        "The option is dropped when the value is empty.",
        "The map is keyed by name.",
    ):
        assert not states_fault(sentence), sentence
    for sentence in ("Adds that rung between the two.", "Guarded on schema !== inst.", "Extract the helper."):
        assert describes_change(sentence), sentence
    for sentence in (
        "Additional headers were lost.",
        "Calls to `flush` were never awaited.",
        "Changes in X broke Y.",
        "Fixes a bug in the scope search, which started in the middle.",  # names the bug
        "If realloc returns NULL, ensure didn't abort but returned the offset instead.",  # `ensure`, a function
    ):
        assert not describes_change(sentence), sentence


def test_what_the_new_code_does_is_no_why_beside_the_fault() -> None:
    """zod 830ba314's shape: "Guard on … instead" said what the new code does; the fault beside it is the why."""
    body = (
        "Guard on the address alphabet instead, and let the CIDR check delegate to the address check.\n\n"
        "The URL parser separately deletes tabs and newlines from its input rather than failing, so the url\n"
        "check validated one string and returned another.\n"
    )
    assert fixed(body, "fix: validate the address") == (
        "The URL parser separately deletes tabs and newlines from its input rather than failing, so the url check "
        "validated one string and returned another."
    )


def test_without_a_fault_the_choice_is_as_before() -> None:
    """A body that tells no fault keeps its explaining sentences in order: the ranking only moves a fault first."""
    body = "Keep the lock while flushing, otherwise a second writer can interleave its records.\n"
    assert fixed(body, "fix: interleaved records") == (
        "Keep the lock while flushing, otherwise a second writer can interleave its records."
    )


def test_a_sentence_opening_on_a_connective_brings_the_one_before_it() -> None:
    """ripgrep 4df12981: "And as a result, …" went alone, its antecedent left out."""
    body = (
        "But the status quo clearly did not implement this. And as a result, if\n"
        "you have a glob that ends in a `.`, it was instead treated as the empty\n"
        "string (which only matches the empty string).\n\n"
        "We fix this by implementing the semantic from the standard library\ncorrectly.\n"
    )
    assert fixed(body, "globset: fix bug where trailing `.` in file name was incorrectly handled") == (
        "But the status quo clearly did not implement this. And as a result, if you have a glob that ends in a `.`, "
        "it was instead treated as the empty string (which only matches the empty string)."
    )


def test_an_elided_clause_after_a_contrast_is_no_why_alone() -> None:
    """ripgrep 91641585: "But when it is, …" points back at the clause before it, a hedge left out."""
    body = (
        "It would probably be better to change the reader to do lazy resolution only when\n"
        "the binary is needed. But this will at least avoid doing anything when the\n"
        "`-z/--search-zip` flag isn't used. But when it is, ripgrep will still eagerly\n"
        "resolve all possible binaries.\n"
    )
    assert fixed(body, "core: don't build decompression reader unless we intend to use it") == ""


def test_a_pronoun_one_for_a_noun_before_it_is_not_chosen_alone() -> None:
    """zod 4e1720c8: "A non-enumerable one" is the key schema the sentence before names; with room for both they
    come together, else neither."""
    body = (
        "An enumerable key schema declares which keys the record owns, so a key outside\n"
        "that set is unrecognized. A non-enumerable one (regex, refine) is a constraint every\n"
        "key must satisfy, so a failing key is invalid.\n"
    )
    assert fixed(body, "fix(record): classify an out-of-set key") == (
        "An enumerable key schema declares which keys the record owns, so a key outside that set is unrecognized. "
        "A non-enumerable one (regex, refine) is a constraint every key must satisfy, so a failing key is invalid."
    )
    chain = "The retry logic is hard to follow. Because of that, it is easy to miss. This means that the lock can leak."
    assert fixed(chain, "fix: lock leak") == ""  # "This means" points at a sentence that itself cannot stand


def test_a_pronoun_for_the_change_still_goes_alone() -> None:
    """sinatra 3b756578: "It" is the reverted change, not the sentence about the tests before it; only a sentence
    before it that itself points back and cannot stand takes it down."""
    body = (
        "This wasn't needed for anything more than making the tests fail faster\n"
        "when I was developing. It could be seen as a breaking change, so it would break callers.\n"
    )
    assert (
        fixed(body, "Revert shorter runner timeout")
        == "It could be seen as a breaking change, so it would break callers."
    )


def test_a_fault_said_twice_is_the_why_once() -> None:
    body = (
        "The branch that emitted the issue keyed off the partial flag rather than the key schema, so its keys were\n"
        "never reconciled and the parse failed.\n\n"
        "- The branch keyed off the partial flag rather than off the key schema, so the parse failed.\n"
    )
    assert fixed(body, "fix(record): reconcile keys") == (
        "The branch that emitted the issue keyed off the partial flag rather than the key schema, so its keys were "
        "never reconciled and the parse failed."
    )


def test_the_lesson_mined_from_a_repository_tells_the_fault(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write(
        "convert.py",
        "def convert_base(schema):\n    if 'enum' in schema:\n        return list(schema['enum'])\n"
        "    out = dict(schema)\n    return out\n",
    )
    repo.commit("Add convert")
    repo.edit("convert.py", "        return list(schema['enum'])", "        return apply_meta(list(schema['enum']))")
    repo.commit(f"fix: apply description and default metadata to enum schemas in convert_base\n\n{EARLY_RETURNS}")
    verdict = classify(record("fix: apply description and default metadata to enum schemas", EARLY_RETURNS))
    assert verdict.kind == VerdictKind.FIX
    ws, _ = mined(repo, open_ws)
    texts = [m.text for m in ws.suggestions() if m.source != "comment"]
    assert any("bypassed the metadata application block" in t for t in texts), texts
    assert not any("Extract metadata application" in t for t in texts), texts
