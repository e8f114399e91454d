"""QA pass 8 #9: zod's "fix(v4): clarify infinite number errors" changed what an error says, not what the code does
(`message-wording`, as "Clarify error message for …" already was); "clarify error handling" is behaviour."""

from __future__ import annotations

from forewarn.workspace.mine_rules import message_wording


def test_rewording_what_an_error_says_is_message_wording() -> None:
    assert message_wording("fix(v4): clarify infinite number errors (#5906)")
    assert message_wording("reword the warning about stale locks")
    assert not message_wording("Clarify error handling in the parser")  # how errors are handled: behaviour
    assert not message_wording("clarify retry codes for errors types")
    assert not message_wording("Fix crash when a lock is stale")
