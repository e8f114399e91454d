"""Recorded hook sessions, one per agent host, in each host's documented event shape, and a repository to replay
them on (tests/mcp/test_hook_replay.py and bench/hook_bench.py drive the real ``forewarn hook`` with them).

A session reads every file of the repository (each once, the first one twice), runs a test command that fails
with a traceback through ``billing/money.py::parse_amount``, edits ``parse_amount`` and runs the command again,
which now passes. Each host does this the way its agent does: Claude Code's ``Read``/``Edit``/``Bash`` with
``PreToolUse``/``PostToolUse``/``PostToolUseFailure``; Codex reads through ``Bash`` (``sed -n``) and edits with
``apply_patch``; Gemini CLI's ``read_file``/``replace``/``run_shell_command`` with ``AfterTool``; Copilot CLI's
camelCase ``view``/``edit``/``bash`` with ``postToolUse``/``postToolUseFailure`` (``toolArgs`` a JSON string).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forewarn.memory.vocabulary import MemorySource, MemoryStatus, MemoryType

FOREWARN = str(Path(sys.executable).with_name("forewarn"))
HOOK_TIMEOUT_S = 120.0  # a first call starts the hook server on a loaded machine

MONEY = '''\
"""Money and amounts."""


class Money:
    def __init__(self, cents: int) -> None:
        self.cents = cents

    def __add__(self, other: "Money") -> "Money":
        return Money(self.cents + other.cents)


def parse_amount(text: str) -> int:
    """Cents from a typed amount."""
    return int(text)
'''
INVOICE = """\
from billing.money import Money


class Invoice:
    def total(self, lines: list[Money]) -> Money:
        out = Money(0)
        for line in lines:
            out = out + line
        return out


def finalize(invoice: Invoice) -> None:
    pass
"""
PAY = """\
from billing.money import Money


def charge_card(amount: Money, key: str) -> bool:
    return amount.cents > 0 and bool(key)


def refund(amount: Money) -> bool:
    return amount.cents > 0
"""
SHIP = """\
def ship(order: dict) -> str:
    return order["address"]


def label(order: dict) -> str:
    return ship(order).upper()
"""
REPORT = """\
def monthly_report() -> str:
    return "ok"
"""
APP = """\
function handler(req, res) {
  res.send(req.query.name);
}

module.exports = { handler };
"""
UNTOUCHED = "def never_read() -> None:\n    pass\n"

FILES = {
    "billing/__init__.py": "",
    "billing/money.py": MONEY,
    "billing/invoice.py": INVOICE,
    "billing/pay.py": PAY,
    "shipping/ship.py": SHIP,
    "reports/report.py": REPORT,
    "web/app.js": APP,
    "misc/untouched.py": UNTOUCHED,
}
# (file, symbol or None, type, text): what the team wrote down; every one is on a file the sessions read
SEEDED: tuple[tuple[str, str | None, MemoryType, str], ...] = (
    ("billing/money.py", "Money.__add__", MemoryType.GOTCHA, "Money.__add__ drops the currency: convert first"),
    ("billing/money.py", "parse_amount", MemoryType.ERROR_PATTERN,
     "parse_amount raises ValueError on a decimal comma (1,50): normalise the separator before int()"),
    ("billing/money.py", None, MemoryType.DECISION, "amounts are integer cents everywhere, never floats"),
    ("billing/invoice.py", "Invoice.total", MemoryType.GOTCHA, "Invoice.total must skip refunded lines"),
    ("billing/invoice.py", "finalize", MemoryType.NOTE, "finalize is called twice by the checkout page"),
    ("billing/pay.py", "charge_card", MemoryType.DECISION, "every charge carries an idempotency key"),
    ("billing/pay.py", "refund", MemoryType.DEAD_END, "refunds through the card API's reverse call failed: use refund"),
    ("shipping/ship.py", "ship", MemoryType.ERROR_PATTERN, "KeyError 'address' in ship means a legacy order"),
    ("shipping/ship.py", None, MemoryType.CONVENTION, "shipping functions take the order dict, never an id"),
    ("reports/report.py", "monthly_report", MemoryType.CONVENTION, "reports are generated at midnight UTC"),
    ("web/app.js", "handler", MemoryType.GOTCHA, "handler echoes the query into HTML: escape it (XSS)"),
    ("web/app.js", None, MemoryType.NOTE, "the web layer is being ported to TypeScript"),
)  # fmt: skip
SUGGESTED = ("billing/pay.py", "refund", "refund is idempotent (a mined suggestion nobody accepted)")
READ_ORDER = ("billing/money.py", "billing/invoice.py", "billing/pay.py", "shipping/ship.py", "reports/report.py",
              "web/app.js")  # fmt: skip
TEST_COMMAND = "python -m pytest tests/test_money.py -q"
FIX_OLD = "    return int(text)\n"
FIX_NEW = '    return int(text.replace(",", "."))\n'


def traceback(root: Path) -> str:
    return (
        "tests/test_money.py F\n\n=================================== FAILURES ===================================\n"
        "Traceback (most recent call last):\n"
        f'  File "{root}/tests/test_money.py", line 4, in test_parse\n    assert parse_amount("1,50") == 150\n'
        f'  File "{root}/billing/money.py", line 14, in parse_amount\n    return int(text)\n'
        "ValueError: invalid literal for int() with base 10: '1,50'\n"
        "FAILED tests/test_money.py::test_parse - ValueError: invalid literal for int() with base 10: '1,50'\n"
        "1 failed in 0.05s\n"
    )


def build(root: Path) -> dict[str, str]:
    """The repository (a git work tree, indexed, lexical) with the seeded memories; their ids by text."""
    from forewarn.workspace.engine import Workspace

    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / ".forewarn").mkdir(exist_ok=True)
    (root / ".forewarn" / "config.toml").write_text("[embedder]\nenabled = false\n")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["-c", "user.name=T", "-c", "user.email=t@x.org",
                                                                 "commit", "-qm", "start"]):  # fmt: skip
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    ids: dict[str, str] = {}
    with Workspace.open(root, embedder=None) as ws:
        ws.reindex()
        for rel, symbol, mtype, text in SEEDED:
            ids[text] = ws.remember(text, type=mtype, file=rel, symbol=symbol).memory.id
        rel, symbol, text = SUGGESTED
        ids[text] = ws.remember(text, type=MemoryType.NOTE, file=rel, symbol=symbol, source=MemorySource.COMMIT,
                                status=MemoryStatus.SUGGESTED).memory.id  # fmt: skip
    return ids


@dataclass
class Step:
    """One hook call: the event (``event_name`` for hosts whose payload does not name it) and what the tool did
    (``before``: applied to the work tree before the call, as the host runs the tool first for after-events)."""

    event: dict[str, Any]
    event_name: str | None = None
    touches: tuple[str, ...] = ()  # the files this call reads or edits (first touch counted here)
    before: Callable[[Path], None] | None = None
    kind: str = "file"  # file | session_start | shell_failed | shell_passed | edit


@dataclass
class Replay:
    host: str
    steps: list[Step] = field(default_factory=list)


def _fix(root: Path) -> None:
    path = root / "billing" / "money.py"
    path.write_text(path.read_text(encoding="utf-8").replace(FIX_OLD, FIX_NEW), encoding="utf-8")


def claude(root: Path, session: str) -> Replay:
    base = {"session_id": session, "transcript_path": f"/tmp/{session}.jsonl", "cwd": str(root),
            "permission_mode": "default"}  # fmt: skip
    steps = [Step({**base, "hook_event_name": "SessionStart", "source": "startup"}, kind="session_start")]
    for rel in (*READ_ORDER, READ_ORDER[0]):
        event = {**base, "hook_event_name": "PreToolUse", "tool_name": "Read", "tool_use_id": f"toolu_{rel}",
                 "tool_input": {"file_path": str(root / rel)}}  # fmt: skip
        steps.append(Step(event, touches=(rel,)))
    bash = {"command": TEST_COMMAND, "description": "Run the money tests"}
    steps.append(Step({**base, "hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_input": bash,
                       "tool_use_id": "toolu_t1", "error": traceback(root), "is_interrupt": False},
                      kind="shell_failed"))  # fmt: skip
    edit = {"file_path": str(root / "billing/money.py"), "old_string": FIX_OLD, "new_string": FIX_NEW}
    steps.append(Step({**base, "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": edit},
                      touches=("billing/money.py",)))  # fmt: skip
    done = {"filePath": edit["file_path"], "success": True}
    steps.append(Step({**base, "hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": edit,
                       "tool_response": done}, before=_fix, kind="edit"))  # fmt: skip
    steps.append(Step({**base, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": bash,
                       "tool_response": {"stdout": "1 passed in 0.04s", "stderr": "", "interrupted": False}},
                      kind="shell_passed"))  # fmt: skip
    return Replay("claude", steps)


def codex(root: Path, session: str) -> Replay:
    base = {"session_id": session, "transcript_path": None, "cwd": str(root), "model": "gpt-5-codex",
            "permission_mode": "default", "turn_id": "turn-1"}  # fmt: skip
    steps = [Step({**base, "hook_event_name": "SessionStart", "source": "startup"}, kind="session_start")]
    for n, rel in enumerate((*READ_ORDER, READ_ORDER[0])):
        event = {**base, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": f"call_{n}",
                 "tool_input": {"command": f"sed -n 1,200p {rel}"},
                 "tool_response": "Exit code: 0\nWall time: 0.01 seconds\nOutput:\n..."}  # fmt: skip
        steps.append(Step(event, touches=(rel,)))
    steps.append(Step({**base, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "call_t1",
                       "tool_input": {"command": TEST_COMMAND},
                       "tool_response": f"Exit code: 1\nWall time: 0.3 seconds\nOutput:\n{traceback(root)}"},
                      kind="shell_failed"))  # fmt: skip
    patch = (f"*** Begin Patch\n*** Update File: billing/money.py\n@@ def parse_amount(text: str) -> int:\n"
             f"-{FIX_OLD}+{FIX_NEW}*** End Patch\n")  # fmt: skip
    steps.append(Step({**base, "hook_event_name": "PostToolUse", "tool_name": "apply_patch", "tool_use_id": "call_p",
                       "tool_input": {"command": patch}, "tool_response": "Success. Updated the following files:\n"
                       "M billing/money.py"}, before=_fix, kind="edit"))  # fmt: skip
    steps.append(Step({**base, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "call_t2",
                       "tool_input": {"command": TEST_COMMAND},
                       "tool_response": "Exit code: 0\nWall time: 0.3 seconds\nOutput:\n1 passed"},
                      kind="shell_passed"))  # fmt: skip
    return Replay("codex", steps)


def gemini(root: Path, session: str) -> Replay:
    base = {"session_id": session, "transcript_path": f"/tmp/{session}.json", "cwd": str(root),
            "timestamp": "2026-11-26T10:00:00Z"}  # fmt: skip
    steps = [Step({**base, "hook_event_name": "SessionStart", "source": "startup"}, kind="session_start")]
    for rel in (*READ_ORDER, READ_ORDER[0]):
        event = {**base, "hook_event_name": "AfterTool", "tool_name": "read_file",
                 "tool_input": {"path": str(root / rel)},
                 "tool_response": {"llmContent": "…", "returnDisplay": "", "error": None}}  # fmt: skip
        steps.append(Step(event, touches=(rel,)))
    shell = {"command": TEST_COMMAND, "description": "run the money tests"}
    failed = (f"Command: {TEST_COMMAND}\nDirectory: (root)\nStdout: {traceback(root)}\nStderr: (empty)\n"
              "Error: (none)\nExit Code: 1\nSignal: (none)\n")  # fmt: skip
    steps.append(Step({**base, "hook_event_name": "AfterTool", "tool_name": "run_shell_command", "tool_input": shell,
                       "tool_response": {"llmContent": failed, "returnDisplay": "", "error": None}},
                      kind="shell_failed"))  # fmt: skip
    replace = {"file_path": str(root / "billing/money.py"), "old_string": FIX_OLD, "new_string": FIX_NEW}
    steps.append(Step({**base, "hook_event_name": "AfterTool", "tool_name": "replace", "tool_input": replace,
                       "tool_response": {"llmContent": "Successfully modified file", "error": None}},
                      before=_fix, kind="edit"))  # fmt: skip
    passed = f"Command: {TEST_COMMAND}\nStdout: 1 passed\nExit Code: 0\n"
    steps.append(Step({**base, "hook_event_name": "AfterTool", "tool_name": "run_shell_command", "tool_input": shell,
                       "tool_response": {"llmContent": passed, "returnDisplay": "", "error": None}},
                      kind="shell_passed"))  # fmt: skip
    return Replay("gemini", steps)


def copilot(root: Path, session: str) -> Replay:
    base = {"sessionId": session, "timestamp": 1764151200000, "cwd": str(root)}
    steps = [Step({**base, "source": "new", "initialPrompt": "fix the amounts"}, "sessionStart", kind="session_start")]
    for rel in (*READ_ORDER, READ_ORDER[0]):
        event = {**base, "toolName": "view", "toolArgs": json.dumps({"path": str(root / rel)}),
                 "toolResult": {"resultType": "success", "textResultForLlm": "…"}}  # fmt: skip
        steps.append(Step(event, "postToolUse", touches=(rel,)))
    args = json.dumps({"command": TEST_COMMAND, "description": "run the money tests"})
    steps.append(Step({**base, "toolName": "bash", "toolArgs": args, "error": traceback(root)}, "postToolUseFailure",
                      kind="shell_failed"))  # fmt: skip
    edit = json.dumps({"path": str(root / "billing/money.py"), "old_str": FIX_OLD, "new_str": FIX_NEW})
    steps.append(Step({**base, "toolName": "edit", "toolArgs": edit,
                       "toolResult": {"resultType": "success", "textResultForLlm": "File updated"}}, "postToolUse",
                      before=_fix, kind="edit"))  # fmt: skip
    steps.append(Step({**base, "toolName": "bash", "toolArgs": args,
                       "toolResult": {"resultType": "success", "textResultForLlm": "1 passed"}}, "postToolUse",
                      kind="shell_passed"))  # fmt: skip
    return Replay("copilot", steps)


REPLAYS: dict[str, Callable[[Path, str], Replay]] = {"claude": claude, "codex": codex, "gemini": gemini,
                                                     "copilot": copilot}  # fmt: skip
FILE_DELIVERING = ("claude", "codex", "gemini")  # Copilot CLI takes no text back from these events (hosts.py)


@dataclass(frozen=True)
class Call:
    step: Step
    stdout: str
    stderr: str
    code: int
    seconds: float

    def context(self, host: str) -> str:
        """The text the host adds to the agent's context for this call ('' when none)."""
        if host == "copilot":
            return self.stderr if self.code == 2 else ""
        if not self.stdout.strip():
            return ""
        return str(json.loads(self.stdout)["hookSpecificOutput"]["additionalContext"])


def hook(host: str, event: dict[str, Any] | bytes, event_name: str | None = None,
         env: dict[str, str] | None = None, cwd: Path | None = None) -> tuple[str, str, int, float]:  # fmt: skip
    """One real ``forewarn hook HOST`` call: (stdout, stderr, exit status, seconds)."""
    import time

    data = event if isinstance(event, bytes) else json.dumps(event).encode("utf-8")
    cmd = [FOREWARN, "hook", host, *(["--event", event_name] if event_name else [])]
    started = time.perf_counter()
    env = {**os.environ, **(env or {})}
    done = subprocess.run(cmd, input=data, capture_output=True, timeout=HOOK_TIMEOUT_S, env=env, cwd=cwd)
    return done.stdout.decode(), done.stderr.decode(), done.returncode, time.perf_counter() - started


def play(replay: Replay, root: Path) -> Iterator[Call]:
    for step in replay.steps:
        if step.before is not None:
            step.before(root)
        out, err, code, seconds = hook(replay.host, step.event, step.event_name, cwd=root)
        yield Call(step, out, err, code, seconds)


def settle(root: Path) -> None:
    """Wait until the hook server has done the work its last answers left (it serves one call at a time, and
    runs that work before it takes the next call)."""
    hook("claude", {"session_id": "settle", "cwd": str(root), "hook_event_name": "Stop"}, cwd=root)


def stop_server(root: Path) -> None:
    subprocess.run([FOREWARN, "hook", "--stop", "-w", str(root)], capture_output=True, timeout=HOOK_TIMEOUT_S)
