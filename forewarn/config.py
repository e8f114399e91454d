"""Forewarn's settings: one tree of dataclasses, parsed from plain dicts.

The same tree is filled from the user config file (``<data dir>/config.toml``), a workspace's
``.forewarn/config.toml``, CLI flags and the editor's ``initializationOptions`` /
``workspace/configuration``. Parsing never raises on bad values: each problem becomes a readable
message and the default is kept, so a typo in a setting cannot stop the daemon.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import tomllib
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forewarn import paths

log = logging.getLogger(__name__)


def _at_least(low: int, default: int) -> int:
    """An int setting with a lower bound: a value below it is a problem, and the default is kept."""
    return field(default=default, metadata={"min": low})


@dataclass
class IndexSettings:
    max_file_bytes: int = _at_least(1, 1_000_000)  # larger files are generated or data more often than code
    max_line_length: int = _at_least(1, 1_000)  # a longer average line marks a minified bundle
    exclude: list[str] = field(default_factory=list)  # extra gitignore-style patterns
    workers: int = _at_least(0, 0)  # parser processes; 0 = one per core


@dataclass
class EmbedderSettings:
    enabled: bool = True
    model: str = "all-MiniLM-L6-v2"  # an installed model name or a path to any GGUF embedding model
    n_ctx: int = _at_least(0, 0)  # 0 = the model's own context length
    pooling: str = "model"  # model | mean | cls | last
    dimensions: int = _at_least(0, 0)  # 0 = the model's; smaller truncates (Matryoshka models)
    n_gpu_layers: int = _at_least(-1, 0)  # -1 = offload everything when llama.cpp is built with CUDA
    n_threads: int = _at_least(0, 0)  # 0 = half the cores, at least one (leaves room for the editor; see embedder.py)
    n_batch: int = _at_least(0, 0)  # tokens per llama.cpp batch; 0 = tuned default (never below the context)
    query_prefix: str = ""  # e.g. "search_query: " for nomic-embed-text
    document_prefix: str = ""


@dataclass
class DiagnosticsSettings:
    enabled: bool = True
    max_warnings: int = _at_least(0, 3)  # more than a handful of warnings on open becomes noise people ignore
    include_neighbours: bool = True


@dataclass
class Settings:
    index: IndexSettings = field(default_factory=IndexSettings)
    embedder: EmbedderSettings = field(default_factory=EmbedderSettings)
    diagnostics: DiagnosticsSettings = field(default_factory=DiagnosticsSettings)
    log_level: str = "INFO"


def parse_settings(data: dict[str, Any] | None, base: Settings | None = None) -> tuple[Settings, list[str]]:
    """Overlay ``data`` on ``base`` (defaults if None). Returns the settings and the problems found."""
    settings = _copy(base) if base is not None else Settings()
    problems: list[str] = []
    if data is None:
        return settings, problems
    if not isinstance(data, dict):
        return settings, [f"settings must be an object, got {type(data).__name__}; using defaults"]
    _overlay(settings, data, "", problems)
    return settings, problems


def load_settings(workspace: Path | None = None, overrides: dict[str, Any] | None = None) -> tuple[Settings, list[str]]:
    """Defaults < user config file < workspace config file < ``overrides``."""
    settings = Settings()
    problems: list[str] = []
    files = [paths.data_dir() / "config.toml"]
    if workspace is not None:
        files.append(Path(workspace) / ".forewarn" / "config.toml")
    for file in files:
        if not file.is_file():
            continue
        try:
            data = tomllib.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            problems.append(f"{file}: cannot read settings ({exc}); ignoring this file")
            continue
        settings, found = parse_settings(data, settings)
        problems += [f"{file}: {p}" for p in found]
    if overrides:
        settings, found = parse_settings(overrides, settings)
        problems += found
    env_level = os.environ.get("FOREWARN_LOG_LEVEL")
    if env_level:
        settings.log_level = env_level.upper()
    return settings, problems


def settings_to_dict(settings: Settings) -> dict[str, Any]:
    return dataclasses.asdict(settings)


def _copy(obj: Any) -> Any:
    return type(obj)(**{f.name: _copy_value(getattr(obj, f.name)) for f in dataclasses.fields(obj)})


def _copy_value(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _copy(value)
    if isinstance(value, list):
        return list(value)
    return value


def _overlay(target: Any, data: dict[str, Any], prefix: str, problems: list[str]) -> None:
    hints = typing.get_type_hints(type(target))
    fields = {f.name: f for f in dataclasses.fields(target)}
    for key, value in data.items():
        name = key.replace("-", "_")
        # editors send camelCase; accept it so one tree serves every source
        name = "".join("_" + c.lower() if c.isupper() else c for c in name)
        path = f"{prefix}{key}"
        if name not in fields:
            problems.append(f"unknown setting '{path}' ignored")
            continue
        hint = hints[name]
        current = getattr(target, name)
        if dataclasses.is_dataclass(current):
            if isinstance(value, dict):
                _overlay(current, value, path + ".", problems)
            else:
                problems.append(f"setting '{path}' must be a table/object; kept defaults")
            continue
        ok, converted = _convert(value, hint)
        low = fields[name].metadata.get("min")
        if not ok:
            problems.append(f"setting '{path}' = {value!r} is not a valid {_type_name(hint)}; kept {current!r}")
        elif low is not None and converted < low:
            problems.append(f"setting '{path}' = {value!r} must be at least {low}; kept {current!r}")
        else:
            setattr(target, name, converted)


def _convert(value: Any, hint: Any) -> tuple[bool, Any]:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(hint):
            ok, converted = _convert(value, arg)
            if ok:
                return True, converted
        return False, None
    if hint is type(None):
        return value is None, None
    if origin is list:
        (item_type,) = typing.get_args(hint) or (Any,)
        if not isinstance(value, list):
            return False, None
        out = []
        for item in value:
            ok, converted = _convert(item, item_type)
            if not ok:
                return False, None
            out.append(converted)
        return True, out
    if hint is bool:
        return (True, value) if isinstance(value, bool) else (False, None)
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            return False, None
        return True, value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False, None
        return True, float(value)
    if hint is str:
        return (True, value) if isinstance(value, str) else (False, None)
    if hint is Any:
        return True, value
    return False, None


def _type_name(hint: Any) -> str:
    return getattr(hint, "__name__", str(hint))
