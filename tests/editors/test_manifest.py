"""The VS Code extension exposes every daemon setting (forewarn/config.py), with its default and a description.

A plain unit test (no editor): a field added to the settings tree without a matching
``contributes.configuration`` entry fails here, before anyone misses it in the Settings UI.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

from forewarn.config import Settings
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


def daemon_settings(obj: Any, prefix: str = "forewarn") -> Iterator[tuple[str, Any]]:
    for field in dataclasses.fields(obj):
        value = getattr(obj, field.name)
        key = f"{prefix}.{camel(field.name)}"
        if dataclasses.is_dataclass(value):
            yield from daemon_settings(value, key)
        else:
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
