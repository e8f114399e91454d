"""The server and both clients speak one vocabulary: memory types, command ids and settings.

Python is the truth (``MEMORY_TYPES``, ``COMMANDS``, the ``Settings`` tree). Each client spells its
copy in one file (``src/protocol.ts``, ``lua/forewarn/protocol.lua``), read here as text: a plain
unit test, no editor needed. A type or command added on one side and not the others fails here,
and so does a client file that spells a shared name outside its protocol file.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from forewarn.config import CLI_ONLY_KEYS, USER_LEVEL_KEYS, Settings
from forewarn.lsp.commands import COMMANDS
from forewarn.lsp.convert import CLIENT_CAPABILITY, MEMORIES_CHANGED, PROMPTS_FOR_TEXT
from forewarn.memory.store import MEMORY_TYPES
from forewarn.memory.vocabulary import MemoryStatus
from forewarn.workspace.file_panel import PANEL_STATUSES
from tests.editors.conftest import REPO
from tests.editors.test_manifest import CLIENT_ONLY, MANIFEST, camel

VSCODE_SRC = REPO / "editor-clients" / "vscode" / "src"
NVIM = REPO / "editor-clients" / "nvim"
TS_PROTOCOL = VSCODE_SRC / "protocol.ts"
LUA_PROTOCOL = NVIM / "lua" / "forewarn" / "protocol.lua"

# a string literal or a comment; whichever starts first wins, so "//" inside a string stays a string
TS_TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|`(?:\\.|[^`\\])*`|//[^\n]*|/\*.*?\*/', re.S)
LUA_TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|--\[(=*)\[.*?\]\1\]|--[^\n]*', re.S)
CLOSING = {"[": "]", "{": "}"}


def masked(source: str, tokens: re.Pattern[str]) -> tuple[str, dict[int, str]]:
    """``source`` with strings and comments blanked (offsets kept), and each string's value by its offset."""
    text = list(source)
    strings = {}
    for match in tokens.finditer(source):
        token = match.group()
        if token[0] in "\"'`":
            strings[match.start()] = token[1:-1]  # the vocabulary is plain identifiers: no escapes to undo
        text[match.start() : match.end()] = " " * len(token)
    return "".join(text), strings


def block(path: Path, tokens: re.Pattern[str], opening: str) -> tuple[int, str, dict[int, str]]:
    """The bracketed literal after ``opening`` (a regex ending at its bracket): its offset, masked text and strings."""
    text, strings = masked(path.read_text(encoding="utf-8"), tokens)
    found = re.search(opening, text)
    assert found, f"{path.relative_to(REPO)}: no {opening!r}; the parity test reads the vocabulary from there"
    start = found.end() - 1
    assert text[start] in CLOSING, f"{opening!r} must end at an opening bracket"
    depth = 0
    for end in range(start, len(text)):
        if text[end] in CLOSING:
            depth += 1
        elif text[end] in CLOSING.values():
            depth -= 1
            if depth == 0:
                inside = {offset: value for offset, value in strings.items() if start < offset < end}
                return start, text[start : end + 1], inside
    raise AssertionError(f"{path.relative_to(REPO)}: the literal after {opening!r} is never closed")


def ts_strings(opening: str) -> list[str]:
    return list(block(TS_PROTOCOL, TS_TOKENS, opening)[2].values())


def lua_strings(opening: str) -> list[str]:
    return list(block(LUA_PROTOCOL, LUA_TOKENS, opening)[2].values())


def ts_memory_types() -> list[str]:
    """The `type:` value of each { type, icon, description } entry of MEMORY_TYPES, in order."""
    start, text, strings = block(TS_PROTOCOL, TS_TOKENS, r"export const MEMORY_TYPES\s*=\s*\[")
    entries = re.findall(r"\{[^{}]*\}", text)
    types = []
    for key in re.finditer(r"\btype\s*:", text):
        # the value is the next string literal, with nothing but blanks (masked) between
        value = min((offset for offset in strings if offset > start + key.end()), default=None)
        assert value is not None and not text[key.end() : value - start].strip(), "`type:` needs a string literal"
        types.append(strings[value])
    assert len(types) == len(entries) > 0, "every MEMORY_TYPES entry needs one `type:` key"
    return types


def python_settings(obj: Any, prefix: str = "") -> list[str]:
    paths = []
    for field in dataclasses.fields(obj):
        value = getattr(obj, field.name)
        if dataclasses.is_dataclass(value):
            paths += python_settings(value, f"{prefix}{field.name}.")
        else:
            paths.append(prefix + field.name)
    return paths


def camel_path(path: str) -> str:
    return ".".join(camel(part) for part in path.split("."))


PY_TYPES = [str(t) for t in MEMORY_TYPES]
PY_COMMANDS = sorted(command.name for command in COMMANDS)
PY_SETTINGS = sorted(p for p in python_settings(Settings()) if p not in CLI_ONLY_KEYS)  # no editor sends those


def no_duplicates(values: list[str], what: str) -> list[str]:
    duplicated = sorted({value for value in values if values.count(value) > 1})
    assert not duplicated, f"{what} lists these twice: {duplicated}"
    return values


@pytest.mark.parametrize(
    ("client", "read"),
    [
        ("src/protocol.ts MEMORY_TYPES", ts_memory_types),
        ("lua/forewarn/protocol.lua M.MEMORY_TYPES", lambda: lua_strings(r"M\.MEMORY_TYPES\s*=\s*\{")),
    ],
)
def test_memory_types_are_the_servers_in_its_order(client: str, read: Any) -> None:
    assert no_duplicates(read(), client) == PY_TYPES, f"{client} differs from forewarn.memory.store.MEMORY_TYPES"


@pytest.mark.parametrize(
    ("client", "read"),
    [
        ("src/protocol.ts ServerCommand", lambda: ts_strings(r"export const ServerCommand\s*=\s*\{")),
        ("lua/forewarn/protocol.lua M.COMMANDS", lambda: lua_strings(r"M\.COMMANDS\s*=\s*\{")),
    ],
)
def test_server_commands_are_the_servers(client: str, read: Any) -> None:
    commands = no_duplicates(read(), client)
    assert sorted(commands) == PY_COMMANDS, f"{client} differs from forewarn.lsp.commands.COMMANDS"


def test_user_level_settings_are_the_servers() -> None:
    ts = no_duplicates(ts_strings(r"export const USER_LEVEL_SETTINGS\s*=\s*\["), "USER_LEVEL_SETTINGS")
    assert sorted(ts) == sorted(camel_path(path) for path in USER_LEVEL_KEYS), "src/protocol.ts USER_LEVEL_SETTINGS"


def test_settings_are_the_servers_in_every_client() -> None:
    ts = no_duplicates(ts_strings(r"export const DAEMON_SETTINGS\s*=\s*\["), "DAEMON_SETTINGS")
    assert sorted(ts) == sorted(camel_path(path) for path in PY_SETTINGS), "src/protocol.ts DAEMON_SETTINGS"
    lua = no_duplicates(lua_strings(r"M\.SETTINGS\s*=\s*\{"), "M.SETTINGS")
    assert sorted(lua) == PY_SETTINGS, "lua/forewarn/protocol.lua M.SETTINGS differs from forewarn/config.py"
    properties = json.loads(MANIFEST.read_text())["contributes"]["configuration"]["properties"]
    contributed = {key.removeprefix("forewarn.") for key in set(properties) - CLIENT_ONLY}
    assert contributed == set(ts), "package.json contributes a daemon setting the extension does not send, or back"


def test_the_extensions_commands_are_its_contributed_commands() -> None:
    client = no_duplicates(ts_strings(r"export const ClientCommand\s*=\s*\{"), "ClientCommand")
    manifest = json.loads(MANIFEST.read_text())
    assert sorted(client) == sorted(c["command"] for c in manifest["contributes"]["commands"])
    registered = re.findall(r"registerCommand\(ClientCommand\.(\w+)", (VSCODE_SRC / "extension.ts").read_text())
    keys = re.findall(r"^\s*(\w+):", block(TS_PROTOCOL, TS_TOKENS, r"export const ClientCommand\s*=\s*\{")[1], re.M)
    assert sorted(registered) == sorted(keys), "extension.ts must register every ClientCommand once"


def test_both_clients_declare_that_they_prompt_for_text() -> None:
    """The server offers remember / supersede / edit-and-accept (``text: null``) only to a client that declares
    ``experimental.forewarn.promptsForText``: both clients prompt, so both must declare it, on every start path."""
    key, flag = CLIENT_CAPABILITY, PROMPTS_FOR_TEXT
    ts = re.compile(rf"EXPERIMENTAL_CAPABILITIES\s*=\s*\{{\s*{key}:\s*\{{\s*{flag}:\s*true\s*\}}\s*\}}")
    assert ts.search(TS_PROTOCOL.read_text()), "src/protocol.ts EXPERIMENTAL_CAPABILITIES"
    assert "client.registerFeature(declarePrompts)" in (VSCODE_SRC / "server.ts").read_text()
    lua = re.compile(rf"M\.EXPERIMENTAL_CAPABILITIES\s*=\s*\{{\s*{key}\s*=\s*\{{\s*{flag}\s*=\s*true\s*\}}\s*\}}")
    assert lua.search(LUA_PROTOCOL.read_text()), "lua/forewarn/protocol.lua M.EXPERIMENTAL_CAPABILITIES"
    for start in (NVIM / "lua" / "forewarn" / "init.lua", NVIM / "lsp" / "forewarn.lua"):  # setup() and lsp.enable
        assert 'require("forewarn.protocol").declare_prompts' in start.read_text(), start


def test_both_panels_know_every_status_and_list_a_files_in_the_servers_order() -> None:
    """The panels word every status and list a file's memories in ``PANEL_STATUSES`` order; they refresh on the
    server's ``MEMORIES_CHANGED`` notification, spelled once in each protocol file."""
    ts_text = block(TS_PROTOCOL, TS_TOKENS, r"export const MEMORY_STATUSES\s*=\s*\[")[1]
    ts_strings_ = block(TS_PROTOCOL, TS_TOKENS, r"export const MEMORY_STATUSES\s*=\s*\[")[2]
    lua_strings_ = block(LUA_PROTOCOL, LUA_TOKENS, r"M\.MEMORY_STATUSES\s*=\s*\{")[2]
    for name, text_strings, in_file in (
        ("src/protocol.ts", ts_strings_, re.findall(r"inFile:\s*(true|false)", ts_text)),
        (
            "lua/forewarn/protocol.lua",
            lua_strings_,
            re.findall(
                r"in_file\s*=\s*(true|false)", block(LUA_PROTOCOL, LUA_TOKENS, r"M\.MEMORY_STATUSES\s*=\s*\{")[1]
            ),
        ),
    ):
        statuses = list(text_strings.values())[0::2]  # each entry: the status, then its label
        assert sorted(statuses) == sorted(MemoryStatus), f"{name} MEMORY_STATUSES"
        listed = [s for s, flag in zip(statuses, in_file, strict=True) if flag == "true"]
        assert listed == [str(s) for s in PANEL_STATUSES], f"{name}: the This file statuses, in the server's order"
    ts = re.search(r'MEMORIES_CHANGED_NOTIFICATION\s*=\s*"([^"]+)"', TS_PROTOCOL.read_text())
    lua = re.search(r'M\.MEMORIES_CHANGED\s*=\s*"([^"]+)"', LUA_PROTOCOL.read_text())
    assert ts and lua and ts[1] == lua[1] == MEMORIES_CHANGED


def client_sources() -> list[Path]:
    ts = [p for p in VSCODE_SRC.rglob("*.ts") if "test" not in p.relative_to(VSCODE_SRC).parts]
    lua = [p for p in NVIM.rglob("*.lua")]
    return sorted(p for p in ts + lua if p not in (TS_PROTOCOL, LUA_PROTOCOL))


def test_no_client_file_spells_the_shared_vocabulary_outside_its_protocol_file() -> None:
    shared = set(PY_TYPES) | set(PY_COMMANDS) | set(ts_strings(r"export const ClientCommand\s*=\s*\{"))
    spelled = []
    for path in client_sources():
        tokens = TS_TOKENS if path.suffix == ".ts" else LUA_TOKENS
        _, strings = masked(path.read_text(encoding="utf-8"), tokens)
        spelled += [f"{path.relative_to(REPO)}: {value!r}" for value in strings.values() if value in shared]
    assert not spelled, f"use the protocol file's names instead: {spelled}"
    assert len(client_sources()) > 8, "the client sources moved: update client_sources()"
