"""One hook event, whatever host sent it: what happened (``EventKind``), to which tool kind, on which files.

Every field is bounded here, once: the event comes from the agent's host but carries what the agent and the
repository put in it (file names, commands, a test run's whole output).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

MAX_PATHS = 20  # files one tool call touches that are looked at; a glob's thousand matches are a listing
MAX_PATH_CHARS = 4_096
MAX_COMMAND_CHARS = 2_000
MAX_OUTPUT_CHARS = 64_000  # a failure's cause is at the end of its output (error_text keeps the tail too)
MAX_EDIT_CHARS = 20_000  # the replaced and replacing text of one edit, for the change's summary
MAX_SESSION_CHARS = 200
MAX_EDITS = 20


class Host(StrEnum):
    """The agent hosts whose hook documentation was checked (README, "Use with coding agents")."""

    CLAUDE = "claude"
    COPILOT = "copilot"
    CODEX = "codex"
    GEMINI = "gemini"


HOST_LABELS = {
    Host.CLAUDE: "Claude Code",
    Host.COPILOT: "GitHub Copilot CLI",
    Host.CODEX: "Codex",
    Host.GEMINI: "Gemini CLI",
}


class EventKind(StrEnum):
    SESSION_START = "session_start"
    BEFORE_TOOL = "before_tool"
    AFTER_TOOL = "after_tool"  # the tool ran (a shell command may still have failed: see ``failed``)
    TOOL_FAILED = "tool_failed"  # the host reports the tool call as failed (Claude Code, Copilot CLI)
    OTHER = "other"


class ToolKind(StrEnum):
    READ = "read"
    EDIT = "edit"
    SHELL = "shell"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class Edit:
    """One change an edit tool made to a file (``old``/``new`` None: the whole file was written)."""

    path: str
    old: str | None = None
    new: str | None = None


@dataclass(frozen=True, slots=True)
class HookEvent:
    host: Host
    kind: EventKind
    event_name: str  # the host's own name for it, echoed in the answer (PostToolUse, AfterTool, …)
    session: str = ""  # the host's session id ('' when it gives none)
    cwd: str | None = None
    tool: ToolKind = ToolKind.OTHER
    tool_name: str = ""
    paths: tuple[str, ...] = ()  # files the tool reads or changes (a shell command's, when it plainly reads one)
    edits: tuple[Edit, ...] = ()
    command: str | None = None
    exit_code: int | None = None
    failed: bool = False
    output: str = ""


_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def text_field(value: object, limit: int, *, tail: bool = False) -> str:
    """``value`` as text of at most ``limit`` characters ('' for anything but a string)."""
    if not isinstance(value, str):
        return ""
    if len(value) > limit:
        return value[-limit:] if tail else value[:limit]
    return value


def path_field(value: object) -> str | None:
    """A file path from an event, or None when it is not one (empty, too long, control characters, NUL)."""
    if not isinstance(value, str) or not value or len(value) > MAX_PATH_CHARS or _CONTROL_RE.search(value):
        return None
    return value


def session_field(value: object) -> str:
    """The host's session id, bounded; control characters dropped (it names a state file through a hash only)."""
    return _CONTROL_RE.sub("", text_field(value, MAX_SESSION_CHARS))
