"""The VS Code extension exposes every daemon setting (forewarn/config.py), with its default and a description.

A plain unit test (no editor): a field added to the settings tree without a matching
``contributes.configuration`` entry fails here, before anyone misses it in the Settings UI.
"""

from __future__ import annotations

import dataclasses
import json
import re
import struct
from collections.abc import Iterator
from typing import Any

from forewarn.config import CLI_ONLY_KEYS, USER_LEVEL_KEYS, Settings
from tests.editors.conftest import REPO

MANIFEST = REPO / "editor-clients" / "vscode" / "package.json"
CLIENT_ONLY = {
    "forewarn.server.command",
    "forewarn.server.pythonPath",
    "forewarn.server.env",
    "forewarn.trace.server",
}


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def daemon_settings(obj: Any, prefix: str = "forewarn", path: str = "") -> Iterator[tuple[str, Any]]:
    """Every setting an editor contributes and sends (what only the command line reads is left out)."""
    for field in dataclasses.fields(obj):
        value = getattr(obj, field.name)
        key = f"{prefix}.{camel(field.name)}"
        if dataclasses.is_dataclass(value):
            yield from daemon_settings(value, key, f"{path}{field.name}.")
        elif f"{path}{field.name}" not in CLI_ONLY_KEYS:
            yield key, value


def contributed() -> dict[str, dict[str, Any]]:
    manifest = json.loads(MANIFEST.read_text())
    return manifest["contributes"]["configuration"]["properties"]


def test_every_daemon_setting_is_contributed_with_its_default_and_a_description() -> None:
    properties = contributed()
    expected = dict(daemon_settings(Settings()))
    missing = sorted(set(expected) - set(properties))
    assert not missing, f"settings of forewarn/config.py missing from {MANIFEST}: {missing}"
    for key, default in expected.items():
        assert properties[key]["default"] == default, f"{key}: default differs from forewarn/config.py"
        assert len(properties[key].get("markdownDescription", "")) > 20, f"{key} needs a description"


def test_nothing_is_contributed_that_the_daemon_or_the_client_does_not_read() -> None:
    extra = set(contributed()) - set(dict(daemon_settings(Settings()))) - CLIENT_ONLY
    assert not extra, f"settings nobody reads: {sorted(extra)}"


def test_what_loads_code_or_says_whom_to_trust_is_the_users_own_setting_and_trust_is_honoured() -> None:
    """R11: a repository's .vscode/settings.json cannot set them (scope machine), and Restricted Mode is declared."""
    properties = contributed()
    user_level = {f"forewarn.{camel_path(key)}" for key in USER_LEVEL_KEYS} | {
        "forewarn.server.command", "forewarn.server.pythonPath", "forewarn.server.env",
    }  # fmt: skip
    wrong = sorted(key for key in user_level if properties[key].get("scope") not in ("machine", "application"))
    assert not wrong, f"settings a workspace could set: {wrong}"
    trust = manifest()["capabilities"]["untrustedWorkspaces"]
    assert trust["supported"] == "limited" and "Restricted Mode" in trust["description"]
    assert set(trust["restrictedConfigurations"]) == user_level


def camel_path(path: str) -> str:
    return ".".join(camel(part) for part in path.split("."))


def manifest() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(MANIFEST.read_text())
    return loaded


def test_the_manifest_carries_what_the_marketplace_and_open_vsx_need() -> None:
    fields = manifest()
    for key in ("publisher", "repository", "license", "icon", "categories", "keywords", "homepage", "bugs", "engines"):
        assert fields.get(key), f"package.json needs '{key}' to be published"
    assert not fields.get("private"), "a private package cannot be published"
    assert (MANIFEST.parent / "LICENSE").is_file()
    icon = (MANIFEST.parent / fields["icon"]).read_bytes()
    assert icon[:8] == b"\x89PNG\r\n\x1a\n" and icon[12:16] == b"IHDR", "the icon must be a PNG"
    assert struct.unpack(">II", icon[16:24]) == (128, 128), "the Marketplace shows a 128x128 icon"
    assert len(fields["keywords"]) <= 30, "the Marketplace takes at most 30 keywords"


def test_the_walkthrough_steps_run_contributed_commands_and_their_media_is_packaged() -> None:
    fields = manifest()
    commands = {command["command"] for command in fields["contributes"]["commands"]}
    [walkthrough] = fields["contributes"]["walkthroughs"]
    steps = {step["id"]: step for step in walkthrough["steps"]}
    assert list(steps) == ["installModel", "indexWorkspace", "rememberGotcha"]
    packaged = (MANIFEST.parent / ".vscodeignore").read_text().splitlines()
    for step in steps.values():
        events = step["completionEvents"]
        assert events and all(event.startswith("onCommand:") for event in events), step["id"]
        assert {event.removeprefix("onCommand:") for event in events} <= commands, f"{step['id']}: unknown command"
        linked = re.findall(r"\(command:([\w.]+)\)", step["description"])
        assert linked and set(linked) <= commands, f"{step['id']}: its button must run a contributed command"
        media = MANIFEST.parent / step["media"]["markdown"]
        assert media.is_file() and media.read_text().startswith("# "), f"{step['id']}: {media} is missing"
    assert "!media/**" in packaged, ".vscodeignore must let the icon and the walkthrough's media into the .vsix"


def test_menus_name_contributed_commands() -> None:
    fields = manifest()
    commands = {command["command"] for command in fields["contributes"]["commands"]}
    for where, entries in fields["contributes"]["menus"].items():
        assert {entry["command"] for entry in entries} <= commands, where
