"""Round 6 of the miner's noise rules: what the fourth and fifth blind judges rejected (issue 23) — label subjects,
warnings whose referent or named helper is not there, and hot spots made a pattern only by cleanups."""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.workspace import mine_comments
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_rules import Noise, VerdictKind, classify, cleanup_fix, fragment_subject
from tests.gitrepo import Repo
from tests.workspace.billing_history import billing_repo, mined, record


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return billing_repo(tmp_path / "repo")


def noise_of(subject: str, body: str) -> Noise | None:
    verdict = classify(record(subject, body))
    return verdict.reason if verdict.kind == VerdictKind.NOISE else None


BODY = "Otherwise the value is converted twice because the setter runs again, which fails on frozen instances."


def test_a_subject_that_is_a_label_is_no_headline() -> None:
    assert noise_of("NG: convert on setattr by default", BODY) == Noise.FRAGMENT_SUBJECT
    assert noise_of("WatchConfig and Kubernetes", BODY) == Noise.FRAGMENT_SUBJECT
    # a known kind of change, a conventional type or a sentence still heads a lesson
    assert classify(record("BUG: convert on setattr only once", BODY)).lesson
    assert classify(record("fix: convert on setattr only once", BODY)).lesson
    assert classify(record("Fix WatchConfig on Kubernetes symlinks", BODY)).lesson
    assert not fragment_subject("Recoverer and http.ErrAbortHandler handling")
    assert not fragment_subject("CORS: reject requests with 401 for a non-matching origin")  # a component's tag
    assert not fragment_subject("Use Writer in Context.Status")  # a title-case sentence: it starts with its verb


SOURCE = b"""\
def resolve_types(cls):
    fields = cls.__attrs_attrs__
    # Since fields have been frozen, we must not assign to them directly or the change is lost; work around it.
    for f in fields:
        object.__setattr__(f, "type", None)
    return cls


def getstate(obj):
    # Don't use _add_pickle here, since fields(Attribute) fails and the state would be lost on unpickling.
    return tuple(getattr(obj, name) for name in obj.__slots__)


def setstate(obj, state):
    # Never call _restore_slots before the lock is held, otherwise two threads can see a half-built object.
    # See test_restore_races for details.
    _restore_slots(obj, state)


def _restore_slots(obj, state):
    for name, value in zip(obj.__slots__, state):
        object.__setattr__(obj, name, value)
"""


def test_a_warning_needs_its_referent_and_the_code_it_names() -> None:
    scan = mine_comments.warning_comments("attrs.py", SOURCE)
    assert [symbol for _, symbol in scan.found] == ["setstate"]  # it names a helper the file still defines
    assert scan.skipped[Noise.COMMENT_DANGLING] == 1  # "… work around it": what "it" is, the comment does not say
    assert scan.skipped[Noise.COMMENT_NAME_GONE] == 1  # _add_pickle is nowhere in the file but in the comment


def test_a_warning_on_a_removed_helper_is_not_proposed_in_a_mined_repository(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    repo.write("state.py", SOURCE.decode())
    repo.commit("Add the state helpers")
    ws, report = mined(repo, open_ws)
    assert [m.anchor.symbol for m in ws.suggestions() if m.anchor and m.file == "state.py"] == ["setstate"]
    assert report.noise[Noise.COMMENT_NAME_GONE] == 1 and report.noise[Noise.COMMENT_DANGLING] == 1


SERVICE = """\
def read_body(request, limit):
    size = 0
    chunks = []
    for chunk in request.stream():
        size += len(chunk)
        chunks.append(chunk)
    return b"".join(chunks)
"""


def test_a_cleanup_makes_no_hot_spot(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.write("body.py", SERVICE)
    repo.commit("Add the body reader")
    # two real fixes years apart make no pattern; a cleanup typed a fix must not make them one
    fixes = (("Fix body reader with empty chunks", "2021-01-05T12:00:00Z"),
             ("Fix body reader past the size limit", "2022-06-05T12:00:00Z"),
             ("fix: remove unnecessary body length check in the body reader", "2024-01-05T12:00:00Z"))  # fmt: skip
    for n, (subject, date) in enumerate(fixes):
        guard = f"        if size > limit + {n}:\n            raise ValueError({n})\n"
        repo.edit("body.py", "        size += len(chunk)\n", "        size += len(chunk)\n" + guard)
        repo.commit(subject, date=date)
    ws, report = mined(repo, open_ws)
    assert not [m for m in ws.suggestions() if "needed" in m.text]
    assert report.noise[Noise.CLEANUP_HOTSPOT] == 1
    assert cleanup_fix("remove unnecessary body length check in contentTypeParser")
    assert cleanup_fix("fix: clean up the retry loop")
    assert not cleanup_fix("Fix cache not being used with HTTP/2")


CONFIG = """\
def lower_keys(m):
    for key in list(m):
        val = m.pop(key)
        m[key.lower()] = val
    return m
"""
NESTED = "        val = m.pop(key)\n        if isinstance(val, dict):\n            val = lower_keys(dict(val))\n"


def reverted_nesting(repo: Repo) -> None:
    repo.write("config.py", CONFIG)
    repo.commit("Add lower_keys")
    repo.edit("config.py", "        val = m.pop(key)\n", NESTED)
    added = repo.commit("Recursively lower the keys of nested maps")
    repo.edit("config.py", NESTED, "        val = m.pop(key)\n")
    reason = "The commit breaks callers that keep references to the nested maps, which are copied and so go stale."
    repo.commit(f'Revert "Recursively lower the keys of nested maps"\n\nThis reverts commit {added}.\n\n{reason}\n')


def dead_ends(ws: Workspace) -> list[str]:
    return [m.text for m in ws.suggestions() if m.file == "config.py" and m.type == "dead_end"]


def test_a_revert_stands_while_what_it_took_out_stays_out(repo: Repo, open_ws: list[Workspace]) -> None:
    reverted_nesting(repo)
    ws, report = mined(repo, open_ws)
    assert len(dead_ends(ws)) == 1 and report.noise.get(Noise.REVERT_REDONE, 0) == 0


def test_a_revert_whose_change_was_made_again_is_no_dead_end(repo: Repo, open_ws: list[Workspace]) -> None:
    reverted_nesting(repo)
    repo.edit("config.py", "        val = m.pop(key)\n", NESTED)
    repo.commit("Lower nested keys now that callers copy the maps themselves")
    ws, report = mined(repo, open_ws)
    assert dead_ends(ws) == []
    assert report.noise[Noise.REVERT_REDONE] == 1
