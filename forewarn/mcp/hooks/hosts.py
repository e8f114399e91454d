"""Each agent host's hook event shape, read into a ``HookEvent``, and its way of adding text to the agent's context.

What each host documents (checked against the hosts' own documentation; the README lists the pages):

* **Claude Code** — stdin: ``session_id``, ``cwd``, ``hook_event_name`` (``SessionStart``, ``PreToolUse``,
  ``PostToolUse``, ``PostToolUseFailure``), ``tool_name`` (``Read``, ``Edit``, ``MultiEdit``, ``Write``,
  ``NotebookEdit``, ``Bash``), ``tool_input`` (``file_path``, ``old_string``/``new_string``, ``edits``,
  ``content``, ``command``), ``tool_response``, ``error`` (failures). Answer: ``{"hookSpecificOutput":
  {"hookEventName": …, "additionalContext": …}}`` on stdout, exit 0.
* **Codex** — the same field names (``tool_name`` ``Bash`` or ``apply_patch``, whose patch is
  ``tool_input.command``) and the same answer.
* **Gemini CLI** — ``session_id``, ``cwd``, ``hook_event_name`` (``SessionStart``, ``BeforeTool``,
  ``AfterTool``), ``tool_name`` (``read_file``, ``read_many_files``, ``write_file``, ``replace``,
  ``run_shell_command``), ``tool_input``, ``tool_response`` (``llmContent``, ``error``). Answer:
  ``hookSpecificOutput.additionalContext`` (``AfterTool``, ``SessionStart``).
* **GitHub Copilot CLI** — camelCase (``sessionId``, ``toolName``: ``view``, ``edit``, ``create``, ``bash``;
  ``toolArgs``, sometimes a JSON string; ``toolResult``; ``error``) or, configured with PascalCase event names,
  the snake_case fields above. Only ``postToolUseFailure`` takes text back from a command hook: stderr with exit
  code 2 is given to the agent as recovery guidance; the other events' output is ignored (they are observed
  for capture only; the language server delivers files' memories there).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from forewarn.mcp.hooks.events import (
    MAX_COMMAND_CHARS,
    MAX_EDIT_CHARS,
    MAX_EDITS,
    MAX_OUTPUT_CHARS,
    MAX_PATHS,
    Edit,
    EventKind,
    HookEvent,
    Host,
    ToolKind,
    path_field,
    session_field,
    text_field,
)

MAX_ARGS_JSON_CHARS = 1_000_000  # Copilot's toolArgs as a JSON string: an edit's text, bounded like the event
MAX_SHELL_READS = 5  # files a plain reading command (cat, sed -n, head) names that count as read

EVENT_KINDS: dict[str, EventKind] = {
    "sessionstart": EventKind.SESSION_START,
    "pretooluse": EventKind.BEFORE_TOOL,
    "beforetool": EventKind.BEFORE_TOOL,
    "posttooluse": EventKind.AFTER_TOOL,
    "aftertool": EventKind.AFTER_TOOL,
    "posttoolusefailure": EventKind.TOOL_FAILED,
}
TOOL_KINDS: dict[Host, dict[str, ToolKind]] = {
    Host.CLAUDE: {
        "Read": ToolKind.READ, "Edit": ToolKind.EDIT, "MultiEdit": ToolKind.EDIT, "Write": ToolKind.EDIT,
        "NotebookEdit": ToolKind.EDIT, "Bash": ToolKind.SHELL,
    },
    Host.CODEX: {"apply_patch": ToolKind.EDIT, "Bash": ToolKind.SHELL},
    Host.GEMINI: {
        "read_file": ToolKind.READ, "read_many_files": ToolKind.READ, "write_file": ToolKind.EDIT,
        "replace": ToolKind.EDIT, "run_shell_command": ToolKind.SHELL,
    },
    Host.COPILOT: {"view": ToolKind.READ, "edit": ToolKind.EDIT, "create": ToolKind.EDIT, "bash": ToolKind.SHELL},
}  # fmt: skip
# where each host's answer reaches the agent: (host, event kind) pairs whose output is added to its context
DELIVERS: frozenset[tuple[Host, EventKind]] = frozenset({
    (Host.CLAUDE, EventKind.SESSION_START), (Host.CLAUDE, EventKind.BEFORE_TOOL),
    (Host.CLAUDE, EventKind.AFTER_TOOL), (Host.CLAUDE, EventKind.TOOL_FAILED),
    (Host.CODEX, EventKind.SESSION_START), (Host.CODEX, EventKind.AFTER_TOOL),
    (Host.GEMINI, EventKind.SESSION_START), (Host.GEMINI, EventKind.AFTER_TOOL),
    (Host.COPILOT, EventKind.TOOL_FAILED),
})  # fmt: skip
COPILOT_GUIDANCE_EXIT = 2  # Copilot CLI gives a postToolUseFailure hook's stderr to the agent on this exit code

PATH_KEYS = ("file_path", "path", "absolute_path", "notebook_path", "filePath")
_EXIT_TEXT_RE = re.compile(
    r"(?:exit(?:ed)?(?: with)? (?:code|status)|exit code|process exited with code|returned non-zero exit status)"
    r"\s*:?\s*(-?\d{1,4})\b",
    re.IGNORECASE,
)
# a test runner, compiler or sanitizer reporting failures (used when the host gives no exit code): pytest, jest,
# mocha, go test (``--- FAIL: TestX``, ``FAIL\tpkg``), cargo, a traceback, a Go panic, an AddressSanitizer/LeakSanitizer
# report (``==42==ERROR: AddressSanitizer: …``, ``SUMMARY: …Sanitizer:``) and UBSan's ``x.c:10:5: runtime error:``
_FAILING_RUN_RE = re.compile(
    r"^(?:FAILED|ERROR) \S|^=+ .*\b\d+ (?:failed|errors?)\b|^FAIL\b|^\s*--- FAIL: |^Tests?:\s+\d+ failed"
    r"|^\s*\d+ failing\b|^error(?:\[E\d+\])?: |^Traceback \(most recent call last\):|^panic: "
    r"|^==\d+==ERROR: \w+Sanitizer: |^SUMMARY: \w+Sanitizer: |^\S+:\d+:\d+: runtime error: "
    # a Rust panic (1.91 names the thread's id); a program a debugger ran (``gdb -batch`` exits 0) stopped by a signal
    r"|^thread '[^']*'(?: \(\d+\))? panicked at |^(?:Program|Thread \d+.*) (?:received|terminated with) signal SIG"
    # Catch2's failed assertion, GoogleTest's failed test, CTest's summary; a linker's error and the driver's line
    r"|^\S.*?(?::\d+|\(\d+\)): FAILED:$|^\[  FAILED  \] |^The following tests FAILED:"
    r"|: undefined reference to |^\S*ld(?:\.lld)?: error: |^collect2: error: |: error LNK\d+: ",
    re.MULTILINE,
)
_PATCH_FILE_RE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", re.MULTILINE)
READ_COMMANDS = frozenset({"cat", "head", "tail", "sed", "nl", "less", "more", "bat", "view"})


@dataclass(frozen=True, slots=True)
class HookReply:
    """What the hook command writes and how it exits."""

    stdout: str = ""
    stderr: str = ""
    code: int = 0


NOTHING = HookReply()


def delivers(event: HookEvent) -> bool:
    """Whether the host adds what the hook prints for this event to the agent's context."""
    return (event.host, event.kind) in DELIVERS


def reply(event: HookEvent, text: str) -> HookReply:
    """``text`` in the host's answer format for ``event`` (nothing where the host would not show it)."""
    if not text or not delivers(event):
        return NOTHING
    if event.host == Host.COPILOT:
        return HookReply(stderr=text, code=COPILOT_GUIDANCE_EXIT)
    answer = {"hookSpecificOutput": {"hookEventName": event.event_name, "additionalContext": text}}
    return HookReply(stdout=json.dumps(answer, ensure_ascii=False) + "\n")


# the fields a hook reads, each with the JSON types it may have when present (None: null); the others are ignored
FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "session_id": (str,), "sessionId": (str,), "cwd": (str,), "hook_event_name": (str,), "hookEventName": (str,),
    "tool_name": (str,), "toolName": (str,), "tool_input": (dict,), "toolArgs": (dict, str),
    "error": (str, dict, type(None)),
}  # fmt: skip


def mistyped(data: Mapping[str, Any]) -> str | None:
    """The first field of the event that is there with a type its host never sends (``"session_id": 123``,
    ``"cwd": null``), as ``name (type)``; None when every field it reads is well typed. Such an event is
    answered with nothing: a number for a session id or a missing working directory would be guessed at (the
    hook's own directory), and a guess names the wrong files."""
    for name, types in FIELD_TYPES.items():
        if name in data and not isinstance(data[name], types):
            value = data[name]
            return f"{name} ({'null' if value is None else type(value).__name__})"
    return None


def parse(host: Host, data: Mapping[str, Any], event_name: str | None = None) -> HookEvent | None:
    """The event in ``data`` as ``host`` sends it; None when it is not one we act on. ``event_name``: the name
    the hook was configured for, when the payload does not carry it (Copilot CLI's camelCase payloads)."""
    camel = "sessionId" in data or "toolName" in data
    name = text_field(data.get("hook_event_name") or data.get("hookEventName") or event_name or "", 64)
    if not name and host == Host.COPILOT:
        name = _copilot_event(data)
    kind = EVENT_KINDS.get(name.lower(), EventKind.OTHER)
    session = session_field(data.get("sessionId") if camel else data.get("session_id"))
    cwd = path_field(data.get("cwd"))
    if kind in (EventKind.SESSION_START, EventKind.OTHER):
        return HookEvent(host, kind, name, session, cwd)
    tool_name = text_field(data.get("toolName") if camel else data.get("tool_name"), 200)
    tool = TOOL_KINDS[host].get(tool_name, ToolKind.OTHER)
    args = _arguments(data.get("toolArgs") if camel else data.get("tool_input"))
    response = data.get("toolResult") if camel else data.get("tool_response", data.get("tool_result"))
    paths: tuple[str, ...] = ()
    edits: tuple[Edit, ...] = ()
    command: str | None = None
    if tool == ToolKind.SHELL:
        command = text_field(args.get("command"), MAX_COMMAND_CHARS) or None
        paths = _shell_reads(command or "")
    elif host == Host.CODEX and tool_name == "apply_patch":
        edits = _patch_edits(text_field(args.get("command") or args.get("input"), MAX_EDIT_CHARS * MAX_EDITS))
        paths = tuple(dict.fromkeys(e.path for e in edits))
    else:
        paths = _paths(args)
        if tool == ToolKind.EDIT:
            edits = _edits(args, paths)
    output, exit_code, failed = "", None, False
    if kind == EventKind.TOOL_FAILED:
        failed = True
        output = _joined(data.get("error"), response)
        exit_code = _exit_code(response, output)
    elif kind == EventKind.AFTER_TOOL and tool == ToolKind.SHELL:
        output = _joined(response, data.get("error"))
        exit_code = _exit_code(response, output)
        failed = _failed(response, exit_code, output)
    return HookEvent(
        host, kind, name, session, cwd, tool, tool_name, paths[:MAX_PATHS], edits[:MAX_EDITS], command, exit_code,
        failed, output,
    )  # fmt: skip


def _copilot_event(data: Mapping[str, Any]) -> str:
    """Which camelCase Copilot CLI event a payload is, from its fields (when the hook was not told)."""
    if "toolName" not in data:
        return "sessionStart" if "source" in data else ""
    if "error" in data:
        return "postToolUseFailure"
    return "postToolUse" if "toolResult" in data else "preToolUse"


def _arguments(value: object) -> dict[str, Any]:
    if isinstance(value, str) and len(value) <= MAX_ARGS_JSON_CHARS:
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def _paths(args: Mapping[str, Any]) -> tuple[str, ...]:
    found: list[str] = []
    for key in PATH_KEYS:
        p = path_field(args.get(key))
        if p is not None:
            found.append(p)
    many = args.get("paths")
    if isinstance(many, list):
        found += [p for p in (path_field(v) for v in many[:MAX_PATHS]) if p is not None]
    return tuple(dict.fromkeys(found))


def _edits(args: Mapping[str, Any], paths: tuple[str, ...]) -> tuple[Edit, ...]:
    if not paths:
        return ()
    path = paths[0]
    many = args.get("edits")
    if isinstance(many, list):  # Claude Code's MultiEdit
        pairs = [e for e in many[:MAX_EDITS] if isinstance(e, dict)]
        return tuple(
            Edit(path, text_field(e.get("old_string"), MAX_EDIT_CHARS), text_field(e.get("new_string"), MAX_EDIT_CHARS))
            for e in pairs
        )
    old = args.get("old_string", args.get("old_str"))
    new = args.get("new_string", args.get("new_str"))
    if isinstance(old, str) or isinstance(new, str):
        return (Edit(path, text_field(old, MAX_EDIT_CHARS), text_field(new, MAX_EDIT_CHARS)),)
    return (Edit(path),)  # a whole file written (Write, write_file, create)


def _patch_edits(patch: str) -> tuple[Edit, ...]:
    """The files an ``apply_patch`` body changes, each with its removed and added lines."""
    edits: list[Edit] = []
    for block in re.split(r"^(?=\*\*\* (?:Add|Update|Delete) File: )", patch, flags=re.MULTILINE):
        m = _PATCH_FILE_RE.search(block)
        if not m:
            continue
        path = path_field((m.group(1) or m.group(2) or "").strip())
        if path is None:
            continue
        body = block.splitlines()[1:]
        old = "\n".join(line[1:] for line in body if line.startswith("-"))[:MAX_EDIT_CHARS]
        new = "\n".join(line[1:] for line in body if line.startswith("+"))[:MAX_EDIT_CHARS]
        edits.append(Edit(path, old, new))
        if len(edits) >= MAX_EDITS:
            break
    return tuple(edits)


def _shell_reads(command: str) -> tuple[str, ...]:
    """The files a plain reading command names (``cat a.py``, ``sed -n 1,80p a.py``, ``head -50 a.py``)."""
    if not command or any(c in command for c in "|>;&`$"):
        return ()
    try:
        words = shlex.split(command)
    except ValueError:
        return ()
    if not words or words[0].rsplit("/", 1)[-1] not in READ_COMMANDS:
        return ()
    args = [w for w in words[1:] if not w.startswith("-")]
    if words[0].endswith("sed"):
        if any(w.startswith("-i") or w == "--in-place" for w in words[1:]):
            return ()
        args = args[1:]  # sed's first operand is its script
    return tuple(p for p in (path_field(a) for a in args[:MAX_SHELL_READS]) if p is not None)


def _joined(*parts: object) -> str:
    """The text of a tool's response or error (strings, and string fields of objects), its tail kept."""
    texts: list[str] = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict):
            for key in ("stdout", "stderr", "output", "llmContent", "textResultForLlm", "text_result_for_llm",
                        "error", "message", "content"):  # fmt: skip
                value = part.get(key)
                if isinstance(value, str):
                    texts.append(value)
                elif isinstance(value, dict) and isinstance(value.get("message"), str):
                    texts.append(value["message"])
    text = "\n".join(t for t in texts if t)
    return text[-MAX_OUTPUT_CHARS:] if len(text) > MAX_OUTPUT_CHARS else text


def _exit_code(response: object, output: str) -> int | None:
    if isinstance(response, dict):
        for key in ("exit_code", "exitCode", "returncode", "return_code", "code"):
            value = response.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
    found = _EXIT_TEXT_RE.findall(output[-4_000:])
    return int(found[-1]) if found else None


def _failed(response: object, exit_code: int | None, output: str) -> bool:
    if exit_code is not None:
        return exit_code != 0
    if isinstance(response, dict):
        if response.get("error") or response.get("resultType") in ("failure", "error"):
            return True
        if response.get("result_type") in ("failure", "error") or response.get("success") is False:
            return True
    return bool(_FAILING_RUN_RE.search(output[-MAX_OUTPUT_CHARS:]))
