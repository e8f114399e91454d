"""Which hooks each host gets, and turning them on or off in the user's own settings (``forewarn init --agent``).

One definition per host (``HOOKS``): the events, the tool-name matchers and the command. The files shipped in
``editor-clients/`` (the Claude Code plugin's ``hooks/hooks.json``, Copilot CLI's ``hooks/forewarn.json``,
Codex's ``hooks.json``, Gemini CLI's settings) are this definition with the command ``forewarn`` from PATH; a
test keeps them equal. ``enable`` merges it into the host's user settings (``~/.claude/settings.json``,
``~/.copilot/hooks/forewarn.json``, ``~/.codex/hooks.json``, ``~/.gemini/settings.json``) with the absolute
path of the running ``forewarn``, replacing Forewarn's earlier entries and leaving everything else as it was;
``disable`` takes them out again. A repository's own settings are written only when asked (``project``), with
the plain ``forewarn`` command, and never through a symbolic link.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forewarn.errors import ForewarnError
from forewarn.mcp.hooks.events import Host

TIMEOUT_S = 30  # a first call may wait for the hook server to open a large workspace; calls after it take ms
MAX_SETTINGS_BYTES = 1 << 20  # a host's settings file is a few KB; a larger one is not what we think it is
MARK = " hook "  # a command holding "forewarn" and this is ours (``/opt/x/bin/forewarn hook claude``)
CLAUDE_FILE_TOOLS = "Read|Edit|MultiEdit|Write|NotebookEdit"
CLAUDE_EDIT_TOOLS = "Edit|MultiEdit|Write|NotebookEdit"
GEMINI_TOOLS = "read_file|read_many_files|write_file|replace|run_shell_command"


@dataclass(frozen=True, slots=True)
class HookSpec:
    event: str  # the host's name for the event
    matcher: str | None  # tool names it fires for (None: every one)
    what: str  # why this hook is there (README and the shipped files' description)


HOOKS: dict[Host, tuple[HookSpec, ...]] = {
    Host.CLAUDE: (
        HookSpec("SessionStart", None, "a briefing: the branch's changed files' memories, the main gotchas"),
        HookSpec("PreToolUse", CLAUDE_FILE_TOOLS, "a file's memories before it is first read or edited"),
        HookSpec("PostToolUse", f"{CLAUDE_EDIT_TOOLS}|Bash", "edits and passing commands noted, for capture"),
        HookSpec("PostToolUseFailure", "Bash", "what the team knows about a failed command's error"),
    ),
    Host.CODEX: (
        HookSpec("SessionStart", None, "a briefing: the branch's changed files' memories, the main gotchas"),
        HookSpec("PostToolUse", "Bash|apply_patch", "memories of patched or read files; a failure explained"),
    ),
    Host.GEMINI: (
        HookSpec("SessionStart", None, "a briefing: the branch's changed files' memories, the main gotchas"),
        HookSpec("AfterTool", GEMINI_TOOLS, "memories of files read or edited; a failed command explained"),
    ),
    Host.COPILOT: (
        HookSpec("postToolUse", None, "edits and passing commands noted, for capture"),
        HookSpec("postToolUseFailure", None, "what the team knows about a failed command's error"),
    ),
}


class InstallError(ForewarnError):
    """A host's settings file that cannot be changed safely (unreadable, not JSON, a link in a repository)."""


@dataclass(frozen=True, slots=True)
class InstallReport:
    host: Host
    path: Path
    changed: bool
    enabled: bool


def hook_command(host: Host, spec: HookSpec, program: str = "forewarn") -> str:
    """The command the host runs; Copilot CLI's camelCase payloads do not name their event, so it is told."""
    return f"{program} hook {host.value}" + (f" --event {spec.event}" if host == Host.COPILOT else "")


def hooks_block(host: Host, program: str = "forewarn") -> dict[str, list[dict[str, Any]]]:
    """The ``hooks`` object ``host`` reads, running ``program`` (``forewarn``, or its absolute path)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for spec in HOOKS[host]:
        command = hook_command(host, spec, program)
        if host == Host.COPILOT:  # a flat list of command hooks, no matchers
            out.setdefault(spec.event, []).append({"type": "command", "bash": command, "timeoutSec": TIMEOUT_S})
            continue
        hook: dict[str, Any] = {"type": "command", "command": command}
        hook["timeout"] = TIMEOUT_S * 1000 if host == Host.GEMINI else TIMEOUT_S  # Gemini counts milliseconds
        if host == Host.GEMINI:
            hook["name"] = "forewarn"
        group: dict[str, Any] = {"hooks": [hook]}
        if spec.matcher is not None:
            group = {"matcher": spec.matcher, **group}
        out.setdefault(spec.event, []).append(group)
    return out


def shipped_file(host: Host) -> dict[str, Any]:
    """The file ``editor-clients/`` carries for ``host`` (the plugin's or the user's settings to merge)."""
    block = hooks_block(host)
    if host == Host.COPILOT:
        return {"version": 1, "hooks": block}
    if host == Host.CLAUDE:
        return {"description": "Forewarn: the team's memories as the agent works (see the README)", "hooks": block}
    return {"hooks": block}


def user_settings(host: Host, home: Path | None = None) -> Path:
    """Where ``host`` reads the user's own hooks (the host's config dir variable first)."""
    home = home or Path.home()
    if host == Host.CLAUDE:
        return Path(os.environ.get("CLAUDE_CONFIG_DIR") or home / ".claude") / "settings.json"
    if host == Host.CODEX:
        return Path(os.environ.get("CODEX_HOME") or home / ".codex") / "hooks.json"
    if host == Host.GEMINI:
        return home / ".gemini" / "settings.json"
    return Path(os.environ.get("COPILOT_HOME") or home / ".copilot") / "hooks" / "forewarn.json"


def project_settings(host: Host, root: Path) -> Path:
    """Where a repository carries ``host``'s hooks for everyone who works in it."""
    return (
        root
        / {
            Host.CLAUDE: ".claude/settings.json",
            Host.CODEX: ".codex/hooks.json",
            Host.GEMINI: ".gemini/settings.json",
            Host.COPILOT: ".github/hooks/forewarn.json",
        }[host]
    )


def enable(host: Host, program: str, *, project: Path | None = None, home: Path | None = None) -> InstallReport:
    """Turn Forewarn's hooks on for ``host`` (the user's settings, or ``project``'s when given); idempotent."""
    return _change(host, program, True, project, home)


def disable(host: Host, *, project: Path | None = None, home: Path | None = None) -> InstallReport:
    """Take Forewarn's hooks out of ``host``'s settings, leaving every other hook and setting as it was."""
    return _change(host, "forewarn", False, project, home)


def _change(host: Host, program: str, on: bool, project: Path | None, home: Path | None) -> InstallReport:
    path = project_settings(host, project) if project is not None else user_settings(host, home)
    if project is not None:
        program = "forewarn"  # teammates' installs differ: the repository names the command, PATH finds it
        _refuse_links(path, project)
    data = _read(path)
    if host == Host.COPILOT:  # a file of our own
        new: dict[str, Any] | None = {"version": 1, "hooks": hooks_block(host, program)} if on else None
        if new == data or (new is None and not path.exists()):
            return InstallReport(host, path, False, on)
        if new is None:
            path.unlink()
        else:
            _write(path, new)
        return InstallReport(host, path, True, on)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f'{path}: its "hooks" is not an object; fix it or add Forewarn\'s hooks by hand')
    kept = {event: _without_ours(groups) for event, groups in hooks.items()}
    kept = {event: groups for event, groups in kept.items() if groups}
    if on:
        for event, groups in hooks_block(host, program).items():
            kept[event] = [*kept.get(event, []), *groups]
    new_data = dict(data)
    if kept:
        new_data["hooks"] = kept
    elif hooks:  # only Forewarn's were there: the key goes with them
        new_data.pop("hooks", None)
    if new_data == data:
        return InstallReport(host, path, False, on)
    _write(path, new_data)
    return InstallReport(host, path, True, on)


def _ours(hook: object) -> bool:
    if not isinstance(hook, dict):
        return False
    command = hook.get("command", hook.get("bash"))
    return isinstance(command, str) and "forewarn" in command and MARK in command


def _without_ours(groups: object) -> list[Any]:
    if not isinstance(groups, list):
        return [groups]
    out: list[Any] = []
    for group in groups:
        if _ours(group):  # Copilot's flat list of hooks
            continue
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            rest = [h for h in group["hooks"] if not _ours(h)]
            if not rest:
                continue
            group = {**group, "hooks": rest}
        out.append(group)
    return out


def _read(path: Path) -> dict[str, Any]:
    """The settings at ``path`` ({} when there are none); refused when unreadable or not a JSON object."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_SETTINGS_BYTES + 1)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise InstallError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_SETTINGS_BYTES:
        raise InstallError(f"{path} is larger than {MAX_SETTINGS_BYTES:,} bytes; add Forewarn's hooks by hand")
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise InstallError(
            f"{path} is not plain JSON ({exc}); nothing was changed: add the hooks from editor-clients/ by hand"
        ) from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object; nothing was changed")
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    """Replace the settings file atomically (its target, when the user keeps it as a link to a dotfiles copy)."""
    target = path.resolve() if path.is_symlink() else path
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = 0o600
    with contextlib.suppress(OSError):
        mode = target.stat().st_mode & 0o777
    tmp = target.with_name(f".{target.name}.forewarn-{os.getpid()}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _refuse_links(path: Path, root: Path) -> None:
    """In a repository every folder on the way, and the file, must be what it seems: no links out of it."""
    root = root.resolve()
    probe = root
    for part in path.relative_to(root).parts:
        probe = probe / part
        if probe.is_symlink():
            raise InstallError(f"{probe} is a symbolic link; Forewarn does not write through links in a repository")


def describe(hosts: Sequence[Host]) -> list[str]:
    """One line per host and hook: when it runs and what it does (``forewarn init --agent`` prints these)."""
    return [f"{h.value}: {s.event}{f' ({s.matcher})' if s.matcher else ''} — {s.what}" for h in hosts for s in HOOKS[h]]
