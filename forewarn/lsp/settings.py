"""Settings as the language server sees them: one ``Settings`` tree per workspace folder.

Layers, later wins: defaults < user ``config.toml`` < the folder's ``.forewarn/config.toml`` <
``initializationOptions`` < ``workspace/configuration`` (section ``forewarn``). Every layer is
parsed by ``forewarn.config``, so a bad value becomes a problem message and the default stays.
Pure functions: unit-tested without a server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forewarn.config import Settings, load_settings, parse_settings

SECTION = "forewarn"  # the section clients store our settings under (VS Code: "forewarn.*")
MAX_PROBLEMS_SHOWN = 8  # a message longer than this is unreadable in a notification toast


def unwrap_section(options: Any) -> Any:
    """Accept both ``{...settings}`` and ``{"forewarn": {...settings}}`` from a client."""
    if isinstance(options, dict) and set(options) == {SECTION} and isinstance(options[SECTION], dict):
        return options[SECTION]
    return options


def folder_settings(
    root: Path | None, init_options: Any = None, client_config: Any = None
) -> tuple[Settings, list[str]]:
    """The settings for one workspace folder, with every problem found on the way."""
    problems: list[str] = []
    init = unwrap_section(init_options)
    if init is not None and not isinstance(init, dict):
        problems.append(f"initializationOptions must be an object, got {type(init).__name__}; ignored")
        init = None
    settings, found = load_settings(root, overrides=None)
    problems += found
    if init:
        settings, found = parse_settings(init, settings)
        problems += [f"initializationOptions: {p}" for p in found]
    config = unwrap_section(client_config)
    if config is not None:
        settings, found = parse_settings(config, settings)
        problems += [f"workspace/configuration: {p}" for p in found]
    return settings, problems


def problems_message(problems: list[str]) -> str:
    """One readable notification listing what was wrong with the settings."""
    shown = problems[:MAX_PROBLEMS_SHOWN]
    more = len(problems) - len(shown)
    text = "Forewarn: some settings are invalid, defaults are used for them: " + "; ".join(shown)
    if more > 0:
        text += f"; and {more} more (see the server log)"
    return text
