"""The review queue's order (expected value) and the track record's words and weight, as pure functions."""

from __future__ import annotations

import dataclasses
from typing import Any

from forewarn.memory.records import Anchor, Memory
from forewarn.memory.suggestions import (
    OTHER_VALUE,
    QUIET_FLOOR,
    WORTH_A_LOOK,
    rank_suggestions,
    suggestion_quality,
    suggestion_score,
    track_confidence,
    track_factor,
    track_line,
    worth_a_look,
)
from forewarn.memory.text import from_iso

NOW = from_iso("2024-06-01T00:00:00Z")
COMMIT = {"sha": "abc1234ff", "author": "Ann", "date": "2024-03-02T10:00:00Z", "subject": "Fix hang"}


def suggestion(
    mid: str,
    *,
    kind: str = "fix",
    symbol: str | None = "fetch",
    why: bool = True,
    track: dict[str, Any] | None = None,
    source: str = "commit",
    date: str = "2024-03-02T10:00:00Z",
    score: float | None = None,
) -> Memory:
    provenance: dict[str, Any] = {"commits": [COMMIT], "kind": kind, "why": why}
    if score is not None:
        provenance["score"] = score
    if track is not None:
        provenance["track"] = track
    return Memory(mid, "gotcha", f"lesson {mid}", Anchor("net.py", symbol), source, 0.8, date, date, "suggested",
                  provenance=provenance)  # fmt: skip


def test_the_queue_leads_with_explained_lessons_on_symbols_whose_code_kept_breaking() -> None:
    fixed_since = suggestion("a", track={"fixes": 4, "since": COMMIT["date"], "through": "2024-06-01T00:00:00Z"})
    explained = suggestion("b")
    unexplained = suggestion("c", why=False)
    on_a_file = suggestion("d", symbol=None)
    decision = suggestion("e", kind="decision")
    phrase_comment = suggestion("f", kind="must", source="comment")
    ranked = rank_suggestions([on_a_file, phrase_comment, unexplained, decision, explained, fixed_since], NOW)
    assert [m.id for m in ranked] == ["a", "b", "e", "f", "c", "d"]
    assert [m.id for m in ranked if worth_a_look(m)] == ["a", "b"]
    assert suggestion_quality(on_a_file) < suggestion_quality(decision) < WORTH_A_LOOK <= suggestion_quality(explained)
    fixed_decision = dataclasses.replace(decision, provenance={**(decision.provenance or {}), "track": {"fixes": 2}})
    assert worth_a_look(fixed_decision)  # its code was fixed again since: the decision mattered
    old = dataclasses.replace(explained, id="o", created_at="2014-01-01T00:00:00Z")
    assert worth_a_look(old) and suggestion_score(old, NOW) < suggestion_score(explained, NOW)


def test_a_scored_lesson_is_worth_its_score_and_a_hot_spot_ranks_below_explained_lessons() -> None:
    """Mining's score (workspace/mine_score) is the lesson's modelled chance of being useful: it orders the queue,
    and a lesson under the bar a default run holds back (proposed by ``mine --all``) is not worth a look. A hot spot
    (a count of fixes, no why) ranks below explained lessons, and is worth a look only once fixed over and over."""
    strong, weak = suggestion("s", score=0.9), suggestion("w", score=0.5)
    hotspot, decision = suggestion("h", kind="hotspot"), suggestion("d", kind="decision", score=0.75)
    ranked = rank_suggestions([weak, decision, strong, hotspot], NOW)
    assert [m.id for m in ranked] == ["s", "d", "w", "h"]
    assert suggestion_quality(strong) == suggestion_quality(suggestion("t", score=0.95))  # past the scale: no more
    assert not worth_a_look(hotspot)
    fixes = [{**COMMIT, "sha": f"{n:040x}"} for n in range(1, 9)]
    often = dataclasses.replace(hotspot, provenance={**(hotspot.provenance or {}), "commits": fixes})
    assert worth_a_look(often) and not worth_a_look(dataclasses.replace(often, provenance={
        **(often.provenance or {}), "commits": fixes[:4]}))  # fmt: skip
    assert worth_a_look(strong) and worth_a_look(decision) and not worth_a_look(weak)
    assert not worth_a_look(suggestion("b", score=0.69)) and worth_a_look(suggestion("c", score=0.7))
    unscored = suggestion("u")  # proposed before mining scored lessons: its kind's value, as before
    assert suggestion_quality(unscored) == suggestion_quality(suggestion("n", score=None))
    comment = suggestion("m", kind="must", source="comment", score=0.99)  # only mined commits carry a score
    assert suggestion_quality(comment) == suggestion_quality(suggestion("k", kind="must", source="comment"))


def test_code_quiet_for_years_weighs_less_and_fixes_since_weigh_more() -> None:
    quiet = {"fixes": 0, "since": "2015-01-01T00:00:00Z", "last_change": "2016-01-01T00:00:00Z",
             "through": "2024-06-01T00:00:00Z"}  # fmt: skip
    lively = {**quiet, "last_change": "2024-05-01T00:00:00Z"}
    fixed = {**lively, "fixes": 3, "last_fix": "2024-05-01T00:00:00Z"}
    assert track_factor(quiet) == QUIET_FLOOR  # 8 quiet years: down to the floor
    assert track_factor(lively) == 1.0 < track_factor(fixed)
    assert track_factor({**fixed, "scope": "file"}) < track_factor(fixed)  # fixes elsewhere in its file say less
    assert track_confidence(0.8, quiet) < track_confidence(0.8, lively) < track_confidence(0.8, fixed) <= 1.0
    # an accepted memory's confidence moves by the change of factor, whatever people did to it meanwhile
    assert round(track_confidence(0.9, fixed, previous=track_factor(fixed)), 6) == 0.9
    old = suggestion("q", track=quiet, date="2015-01-01T00:00:00Z")
    new = dataclasses.replace(old, id="n", provenance={**(old.provenance or {}), "track": lively})
    assert [m.id for m in rank_suggestions([old, new], NOW)] == ["n", "q"]


def test_the_track_record_in_words() -> None:
    since = "2023-01-02T10:00:00Z"
    assert track_line({"track": {"fixes": 3, "last_fix": "2024-05-01T10:00:00Z", "since": since}}) == (
        "its code was fixed 3 times since (last on 2024-05-01)"
    )
    assert track_line({"track": {"fixes": 1, "last_fix": "2024-05-01T10:00:00Z", "since": None, "scope": "file"}}) == (
        "its file was fixed once in its history (last on 2024-05-01)"
    )
    assert track_line({"track": {"fixes": 0, "since": since, "through": "2023-06-01T00:00:00Z"}}) is None
    assert track_line({"track": {"fixes": 0, "since": "2015-01-01T00:00:00Z", "through": "2024-06-01T00:00:00Z"}}) == (
        "its code has been quiet for 9 years: no fix since"
    )
    assert track_line({"commits": [COMMIT]}) is None and track_line(None) is None
    assert track_line({"track": {"fixes": "many", "since": since, "through": "x"}}) is None  # bad input: no claim


def test_an_imported_suggestions_mining_evidence_is_its_claim() -> None:
    """Kind, score, commits and track record that came in a shared file rank nothing and read as the file's."""
    bold = suggestion("i", kind="hotspot", score=1.0, track={"fixes": 999, "since": COMMIT["date"]})
    imported = dataclasses.replace(bold, provenance={**(bold.provenance or {}), "imported": {"from": "x.jsonl"}})
    plain = suggestion("p")  # a local explained fix
    assert suggestion_quality(imported) == OTHER_VALUE < suggestion_quality(plain)
    assert suggestion_quality(imported) < suggestion_quality(bold)  # measured here, the same claims would rank it
    assert not worth_a_look(imported) and [m.id for m in rank_suggestions([imported, plain], NOW)] == ["p", "i"]
    assert track_line(imported.provenance) == "it says its code was fixed 999 times since"
    on_a_file = dataclasses.replace(imported, anchor=Anchor("net.py", None))
    assert suggestion_quality(on_a_file) < OTHER_VALUE  # where it sits here still counts
    assert track_line({"track": {"fixes": 2, "since": COMMIT["date"]}, "imported": "forged"}) == (
        "its code was fixed 2 times since"  # the mark is this machine's own dict: a string is none
    )
