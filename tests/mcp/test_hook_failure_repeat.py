"""A failing command is explained whatever reading a file told the session; the same failure again is a one-line
reminder; every silence the hook chooses is logged; a mistyped event is answered with nothing (QA pass 9b, #3 and
"the hook answers mistyped events").

The hook service is driven in this process (the real ``forewarn hook`` route is test_hook_replay's) over
tests/mcp/hook_replay's repository, whose ``parse_amount`` carries an error pattern about the ``ValueError`` its
traceback shows.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from forewarn.locations import workspace_data
from forewarn.mcp.hooks import session
from forewarn.mcp.hooks.events import Host
from forewarn.mcp.hooks.service import HookService
from forewarn.workspace.engine import Workspace
from tests.mcp import hook_replay as hr

ID_RE = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")
PATTERN = hr.SEEDED[1][3]  # parse_amount's error pattern: the traceback's ValueError
SHIP_PATTERN = hr.SEEDED[7][3]  # ship's KeyError 'address'


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[tuple[HookService, Path, dict[str, str]]]:
    root = tmp_path / "shop"
    ids = hr.build(root)
    service = HookService(root, workspace_data(root))
    try:
        yield service, root, ids
    finally:
        service.close()


def ask(service: HookService, event: dict[str, Any], host: str = "claude") -> str:
    """What the agent is told for ``event`` ('' for nothing)."""
    reply = service.answer(host, json.dumps(event).encode("utf-8"))
    service.after()
    if host == Host.COPILOT:
        return reply.stderr
    return str(json.loads(reply.stdout)["hookSpecificOutput"]["additionalContext"]) if reply.stdout else ""


def read(root: Path, rel: str, sid: str = "s") -> dict[str, Any]:
    return {"session_id": sid, "cwd": str(root), "hook_event_name": "PreToolUse", "tool_name": "Read",
            "tool_input": {"file_path": str(root / rel)}}  # fmt: skip


def failed(root: Path, output: str, sid: str = "s", command: str = hr.TEST_COMMAND) -> dict[str, Any]:
    return {"session_id": sid, "cwd": str(root), "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
            "tool_input": {"command": command}, "error": output}  # fmt: skip


def ship_failure(root: Path) -> str:
    return (
        "Traceback (most recent call last):\n"
        f'  File "{root}/shipping/ship.py", line 2, in ship\n    return order["address"]\n'
        "KeyError: 'address'\n"
    )


def test_a_failure_is_explained_though_reading_its_file_told_the_note(
    shop: tuple[HookService, Path, dict[str, str]],
) -> None:
    service, root, ids = shop
    assert ids[PATTERN] in ask(service, read(root, "billing/money.py"))
    told = ask(service, failed(root, hr.traceback(root)))
    assert "what the team knows about this failure" in told and "```forewarn-notes" in told
    assert ids[PATTERN] in told and "normalise the separator" in told  # in full, not a pointer
    assert ask(service, read(root, "billing/money.py")) == ""  # reads keep the once-a-session rule


def test_the_same_failure_again_is_a_one_line_reminder_and_another_failure_is_told_in_full(
    shop: tuple[HookService, Path, dict[str, str]],
) -> None:
    service, root, ids = shop
    first = ask(service, failed(root, hr.traceback(root)))
    assert ids[PATTERN] in first and "normalise the separator" in first
    # the same failure, with another path and from a longer command line: the same failure still
    moved = hr.traceback(root).replace(str(root), "/elsewhere")
    again = ask(service, failed(root, moved, command=hr.TEST_COMMAND + " -x"))
    assert len(again.splitlines()) == 1 and "this failure again" in again
    assert ID_RE.findall(again) == [ids[PATTERN]] and "`parse_amount`" in again
    assert "normalise the separator" not in again and "forewarn-notes" not in again
    other = ask(service, failed(root, ship_failure(root)))
    assert ids[SHIP_PATTERN] in other and "legacy order" in other
    assert "this failure again" in ask(service, failed(root, hr.traceback(root)))
    # another session is told in full again
    assert "normalise the separator" in ask(service, failed(root, hr.traceback(root), sid="t"))


def test_a_memory_changed_since_is_told_again_in_full(shop: tuple[HookService, Path, dict[str, str]]) -> None:
    service, root, ids = shop
    assert ids[PATTERN] in ask(service, failed(root, hr.traceback(root)))
    with Workspace.open(root, embedder=None) as ws:
        ws.store.set_text(ids[PATTERN], "parse_amount raises ValueError on 1,50: call normalise_amount first",
                          at="2026-11-28T00:00:00.000000Z")  # fmt: skip
    service.close()  # the server would follow the store; this test opens it afresh
    told = ask(service, failed(root, hr.traceback(root)))
    assert "normalise_amount" in told and "this failure again" not in told


def test_copilot_gets_the_reminder_on_its_failure_channel(shop: tuple[HookService, Path, dict[str, str]]) -> None:
    service, root, ids = shop
    event = {"sessionId": "c", "cwd": str(root), "toolName": "bash", "toolArgs": json.dumps({"command": "pytest"}),
             "error": hr.traceback(root)}  # fmt: skip
    first = service.answer("copilot", json.dumps(event).encode(), "postToolUseFailure")
    again = service.answer("copilot", json.dumps(event).encode(), "postToolUseFailure")
    assert first.code == again.code == 2
    assert "normalise the separator" in first.stderr
    assert "this failure again" in again.stderr and ids[PATTERN] in again.stderr


def test_each_silence_says_why_in_the_log(
    shop: tuple[HookService, Path, dict[str, str]], caplog: pytest.LogCaptureFixture
) -> None:
    service, root, _ = shop
    caplog.set_level(logging.INFO)
    assert ask(service, failed(root, "Exit code 1\nsomething went wrong somewhere")) == ""
    assert ask(service, failed(root, "Exit code 1\nZeroDivisionError: division by zero")) == ""
    ask(service, read(root, "billing/money.py"))
    assert ask(service, read(root, "billing/money.py")) == ""
    said = caplog.text
    assert "said nothing" in said and "no memory passes the floor" in said
    assert "note(s) were told earlier in this session" in said


MISTYPED: list[dict[str, Any]] = [
    {"session_id": 123, "cwd": None},
    {"session_id": "m", "cwd": None},
    {"session_id": "m", "cwd": 7},
    {"session_id": ["m"]},
    {"session_id": "m", "tool_name": 1},
    {"session_id": "m", "hook_event_name": {"x": 1}},
]


@pytest.mark.parametrize("wrong", MISTYPED)
def test_a_mistyped_event_is_answered_with_nothing_and_logged(
    shop: tuple[HookService, Path, dict[str, str]], wrong: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    service, root, _ = shop
    event = {"session_id": "m", "cwd": str(root), "hook_event_name": "PreToolUse", "tool_name": "Read",
             "tool_input": {"file_path": "billing/money.py"}}  # fmt: skip
    assert ask(service, event)  # well typed, it is told
    caplog.set_level(logging.WARNING)
    reply = service.answer("claude", json.dumps({**event, "session_id": "other", **wrong}).encode())
    assert (reply.stdout, reply.stderr, reply.code) == ("", "", 0)
    assert "mistyped was answered with nothing" in caplog.text


def test_mistyped_tool_input_and_error_are_answered_with_nothing(
    shop: tuple[HookService, Path, dict[str, str]],
) -> None:
    service, root, _ = shop
    base = {"session_id": "m", "cwd": str(root), "tool_name": "Bash"}
    assert ask(service, {**base, "hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": "x"}) == ""
    bad_error = {**base, "hook_event_name": "PostToolUseFailure", "tool_input": {"command": "pytest"},
                 "error": [hr.traceback(root)]}  # fmt: skip
    assert ask(service, bad_error) == ""


def test_a_relative_path_without_a_working_directory_is_not_guessed(
    shop: tuple[HookService, Path, dict[str, str]], caplog: pytest.LogCaptureFixture
) -> None:
    service, root, ids = shop
    caplog.set_level(logging.INFO)
    event = {"session_id": "n", "hook_event_name": "PreToolUse", "tool_name": "Read",
             "tool_input": {"file_path": "billing/money.py"}}  # fmt: skip
    assert ask(service, event) == ""
    assert "without a working directory" in caplog.text
    absolute = {**event, "tool_input": {"file_path": str(root / "billing/money.py")}}
    assert ids[PATTERN] in ask(service, absolute)  # an absolute path needs no working directory


def test_a_session_file_from_before_the_reminders_keeps_what_it_was_shown(tmp_path: Path) -> None:
    path = session.state_path(tmp_path, "claude", "old")
    old = {"format": session.FORMAT, "shown": {"M1": "current:abc"}, "failures": [], "edits": [], "edited": [],
           "edit_count": 0, "captured": 0, "started": 1.0}  # fmt: skip
    path.write_text(json.dumps(old), encoding="utf-8")
    with session.session_state(tmp_path, "claude", "old") as state:
        assert state.shown == {"M1": "current:abc"} and state.explained == {}
        for n in range(session.MAX_EXPLAINED + 5):
            state.explained[f"k{n}"] = {"M1": "v"}
    with session.session_state(tmp_path, "claude", "old") as state:
        assert len(state.explained) == session.MAX_EXPLAINED and "k0" not in state.explained
