"""Settings as the language server sees them: one ``Settings`` tree per workspace folder.

Layers, later wins: defaults < user ``config.toml`` < the folder's ``.forewarn/config.toml`` <
``initializationOptions`` < its ``user`` section < ``workspace/configuration`` (section ``forewarn``).
Every layer is parsed by ``forewarn.config``, so a bad value becomes a problem message and the default
stays. Pure functions: unit-tested without a server.

An editor's settings may come from the repository (VS Code reads ``.vscode/settings.json``), so the keys
that load code, spend the machine or say whom to trust (``config.USER_LEVEL_KEYS``) are taken only from
the ``user`` section, which a client fills from the user's own settings alone (VS Code's extension: each
key's user-level value; Neovim's plugin: ``setup()``). Elsewhere they are refused, each with a problem.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forewarn.config import USER_LEVEL_KEYS, Settings, all_keys, load_settings, parse_settings

SECTION = "forewarn"  # the section clients store our settings under (VS Code: "forewarn.*")
USER_SECTION = "user"  # inside it: the user's own settings, the only editor source of USER_LEVEL_KEYS
EDITOR_KEYS = all_keys() - USER_LEVEL_KEYS  # what the rest of an editor's settings may set
EDITOR_REFUSED = "may be set only in your user-level settings (a workspace's editor settings cannot)"
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
    for name, layer in (("initializationOptions", init), ("workspace/configuration", unwrap_section(client_config))):
        if layer is None:
            continue
        rest, user = split_user(layer)
        settings, found = parse_settings(rest, settings, EDITOR_KEYS, refused=EDITOR_REFUSED)
        problems += [f"{name}: {p}" for p in found]
        if user is not None:
            settings, found = parse_settings(user, settings)
            problems += [f"{name}.{USER_SECTION}: {p}" for p in found]
    return settings, problems


def split_user(layer: Any) -> tuple[Any, Any]:
    """An editor's settings object as (the rest, its ``user`` section or None)."""
    if not isinstance(layer, dict) or USER_SECTION not in layer:
        return layer, None
    rest = {k: v for k, v in layer.items() if k != USER_SECTION}
    return rest, layer[USER_SECTION]


def problems_message(problems: list[str]) -> str:
    """One readable notification listing what was wrong with the settings."""
    shown = problems[:MAX_PROBLEMS_SHOWN]
    more = len(problems) - len(shown)
    text = "Forewarn: some settings are invalid, defaults are used for them: " + "; ".join(shown)
    if more > 0:
        text += f"; and {more} more (see the server log)"
    return text
