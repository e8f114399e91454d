"""Forewarn's settings: one tree of dataclasses, parsed from plain dicts.

The same tree is filled from the user config file (``<data dir>/config.toml``), a workspace's
``.forewarn/config.toml``, CLI flags and the editor's ``initializationOptions`` /
``workspace/configuration``. Parsing never raises on bad values: each problem becomes a readable
message and the default is kept, so a typo in a setting cannot stop the daemon. Every number has a
lower and an upper bound and every text and list a length limit, so no source can ask for 100,000
workers or a megabyte query prefix.

A workspace's own ``.forewarn/config.toml`` arrives with the repository, so it is untrusted input
(F9 of the hostile-input review): it may set only ``REPOSITORY_KEYS``, the settings that say what
the team's code is and how loud the warnings on it are. They cost nothing and load nothing:

- ``index.exclude``, ``index.max_file_bytes``, ``index.max_line_length``: which files are code;
- ``embedder.enabled``: turning semantic search off (on uses the user's own model);
- ``diagnostics.enabled``, ``diagnostics.max_warnings``, ``diagnostics.max_diagnostics``,
  ``diagnostics.include_neighbours``;
- ``mining.enabled``: whether the editor's server mines the history in the background (a team may turn
  it off for a repository whose history is huge or private; mining only proposes, so on is harmless).

Everything else comes only from the user's config file, CLI flags or the editor: the model (a path
there makes llama.cpp's native parser read that file) and its ``n_ctx``, ``pooling``, ``dimensions``
and query/document prefixes (they change every vector), ``n_gpu_layers``, ``n_threads``,
``n_batch`` and ``index.workers`` (CPU and memory), ``agents.trust``, ``mining.on_open`` and
``log_level``. A repository file that sets one of them keeps the value from the layers below and
reports a problem naming the key. The file itself is read only when it is a regular file inside the
workspace, at most ``MAX_CONFIG_FILE_BYTES`` long.

An editor's settings can come from the repository too (VS Code's ``.vscode/settings.json``: R11 of the
second red-team review), so ``USER_LEVEL_KEYS`` — what loads code, spends the machine or says whom to
trust — are taken from an editor only from its user-level settings: VS Code's extension sends them apart,
as ``initializationOptions.user`` (forewarn.lsp.settings), and an editor's other settings may not set them.
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

from forewarn import paths, untrusted

log = logging.getLogger(__name__)

SHOWN_VALUE_CHARS = 80  # a value quoted in a problem message is cut here

# settings a repository's own .forewarn/config.toml may set (see the module docstring for why these)
REPOSITORY_KEYS = frozenset(
    {
        "index.exclude",
        "index.max_file_bytes",
        "index.max_line_length",
        "embedder.enabled",
        "diagnostics.enabled",
        "diagnostics.max_warnings",
        "diagnostics.max_diagnostics",
        "diagnostics.include_neighbours",
        "mining.enabled",
    }
)
# settings that load code (a model path: llama.cpp parses that file), spend the machine (threads, workers,
# batches, context, GPU layers, vector widths) or say what to trust (agents, mining on open): only from the
# user's own settings — config.toml, CLI flags, an editor's user-level settings — never a workspace's
USER_LEVEL_KEYS = frozenset(
    {
        "index.workers",
        "embedder.model",
        "embedder.n_ctx",
        "embedder.pooling",
        "embedder.dimensions",
        "embedder.n_gpu_layers",
        "embedder.n_threads",
        "embedder.n_batch",
        "embedder.query_prefix",
        "embedder.document_prefix",
        "agents.trust",
        "mining.on_open",
    }
)
MAX_CONFIG_FILE_BYTES = 64 * 1024  # a settings file is a few hundred bytes; tomllib parses it all in memory
MAX_TEXT_SETTING_CHARS = 4096  # PATH_MAX on Linux: the longest model path the system could open
MAX_PREFIX_CHARS = 256  # model prefixes are a few words ("search_query: "); each is embedded with every text
MAX_EXCLUDE_PATTERNS = 1000  # as many lines as a large .gitignore; each is tried against every path
MAX_WORKERS = 64  # parser processes: past the cores each only adds a process's memory
MAX_THREADS = 256  # llama.cpp threads: past the cores they spin at barriers (see embedder.py)
MAX_CONTEXT_TOKENS = 131_072  # the longest context any embedding model is trained on today, with room
MAX_GPU_LAYERS = 1024  # more layers than any embedding model has; -1 already means "all of them"
MAX_DIMENSIONS = 16_384  # wider than any embedding model's vectors
MAX_FILE_BYTES = 16 * 1024 * 1024  # tree-sitter holds the file and its tree in memory; larger is data, not code
MAX_LINE_LENGTH = 1_000_000  # the minified threshold; past max_file_bytes it means "never"
MAX_WARNINGS = 100  # the diagnostics on one file; past a screenful they are noise


def _bounded(low: int, high: int, default: int) -> int:
    """An int setting with bounds: a value outside them is a problem, and the default is kept."""
    return field(default=default, metadata={"min": low, "max": high})


def _text(default: str, max_chars: int = MAX_TEXT_SETTING_CHARS) -> str:
    """A text setting with a length limit: a longer value is a problem, and the default is kept."""
    return field(default=default, metadata={"max_len": max_chars})


@dataclass
class IndexSettings:
    # larger files are generated or data more often than code
    max_file_bytes: int = _bounded(1, MAX_FILE_BYTES, 1_000_000)
    max_line_length: int = _bounded(1, MAX_LINE_LENGTH, 1_000)  # a longer average line marks a minified bundle
    exclude: list[str] = field(default_factory=list, metadata={"max_len": MAX_EXCLUDE_PATTERNS})  # gitignore lines
    workers: int = _bounded(0, MAX_WORKERS, 0)  # parser processes; 0 = one per core


@dataclass
class EmbedderSettings:
    enabled: bool = True
    model: str = _text("all-MiniLM-L6-v2")  # an installed model name or a path to any GGUF embedding model
    n_ctx: int = _bounded(0, MAX_CONTEXT_TOKENS, 0)  # 0 = the model's own context length
    pooling: str = _text("model", 16)  # model | mean | cls | last
    dimensions: int = _bounded(0, MAX_DIMENSIONS, 0)  # 0 = the model's; smaller truncates (Matryoshka models)
    n_gpu_layers: int = _bounded(-1, MAX_GPU_LAYERS, 0)  # -1 = offload everything when llama.cpp is built with CUDA
    # CPU threads, each running a single-threaded llama.cpp context (llama_contexts.py); 0 = every core, up to 8
    n_threads: int = _bounded(0, MAX_THREADS, 0)
    # tokens per llama.cpp batch; 0 = tuned default (never below the context)
    n_batch: int = _bounded(0, MAX_CONTEXT_TOKENS, 0)
    query_prefix: str = _text("", MAX_PREFIX_CHARS)  # e.g. "search_query: " for nomic-embed-text
    document_prefix: str = _text("", MAX_PREFIX_CHARS)


@dataclass
class DiagnosticsSettings:
    enabled: bool = True
    # more than a handful of warnings on open becomes noise people ignore
    max_warnings: int = _bounded(0, MAX_WARNINGS, 3)
    # everything one open shows, hints and the "N more" entry included: a reader takes in about five lines
    max_diagnostics: int = _bounded(1, MAX_WARNINGS, 5)
    include_neighbours: bool = True


@dataclass
class MiningSettings:
    # the language server may mine the git history after the first index (suggestions only; `forewarn mine` is
    # manual); a team turns it off for a repository whose history is huge or private
    enabled: bool = True
    # ... and does, in every workspace, only when the user says so here; otherwise only in the workspaces the user
    # allowed one by one (`forewarn mine --on-open`): a cloned repository's history is someone else's text
    on_open: bool = False
    # propose only what blind judges found reliable: dead ends and the commit lessons mine_score rates at least
    # MIN_LESSON_SCORE (hot spots on their symbols folded in); the other lessons, warning comments (already beside
    # their code) and hot spots that join no lesson (no why) are counted and held back, and `forewarn mine --all`
    # proposes them (false: always propose everything)
    hold_back: bool = True


@dataclass
class AgentSettings:
    # what coding agents write through MCP becomes active at once instead of waiting as a suggestion for a
    # person's accept. Never from a repository's own config: a checked-out repository (or an agent it steers)
    # must not be able to make agents' words speak as fact in its reader's editor.
    trust: bool = False


# settings only the command line reads (the language server never imports a shared file): no editor contributes,
# sends or overrides them; each is yours alone, in your own config.toml
CLI_ONLY_KEYS = frozenset({"team.accept_imports"})


@dataclass
class TeamSettings:
    # `forewarn memory import` stores what a shared file adds or changes as active at once, instead of as
    # suggestions waiting for a person's review. Never from a repository's own config: a cloned repository must
    # not be able to make its own file speak as the reader's team.
    accept_imports: bool = False


@dataclass
class Settings:
    index: IndexSettings = field(default_factory=IndexSettings)
    embedder: EmbedderSettings = field(default_factory=EmbedderSettings)
    diagnostics: DiagnosticsSettings = field(default_factory=DiagnosticsSettings)
    mining: MiningSettings = field(default_factory=MiningSettings)
    agents: AgentSettings = field(default_factory=AgentSettings)
    team: TeamSettings = field(default_factory=TeamSettings)
    log_level: str = _text("INFO", 16)


def parse_settings(
    data: dict[str, Any] | None,
    base: Settings | None = None,
    allowed: frozenset[str] | None = None,
    *,
    refused: str = "may not be set by a repository",
) -> tuple[Settings, list[str]]:
    """Overlay ``data`` on ``base`` (defaults if None). Returns the settings and the problems found.

    With ``allowed`` (dotted snake_case keys, like ``REPOSITORY_KEYS``), any other key is refused, the problem
    saying it ``refused``.
    """
    settings = _copy(base) if base is not None else Settings()
    problems: list[str] = []
    if data is None:
        return settings, problems
    if not isinstance(data, dict):
        return settings, [f"settings must be an object, got {type(data).__name__}; using defaults"]
    _overlay(settings, data, "", "", problems, allowed, refused)
    return settings, problems


def all_keys(obj: Any = None, prefix: str = "") -> frozenset[str]:
    """Every setting's dotted snake_case key."""
    obj = Settings() if obj is None else obj
    keys: set[str] = set()
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        keys |= all_keys(value, f"{prefix}{f.name}.") if dataclasses.is_dataclass(value) else {prefix + f.name}
    return frozenset(keys)


def load_settings(workspace: Path | None = None, overrides: dict[str, Any] | None = None) -> tuple[Settings, list[str]]:
    """Defaults < user config file < workspace config file (``REPOSITORY_KEYS`` only) < ``overrides``."""
    settings = Settings()
    problems: list[str] = []
    user_file = paths.data_dir() / "config.toml"
    files: list[tuple[Path, str | None, frozenset[str] | None]] = [(user_file, None, None)]
    if workspace is not None:
        real_root = os.path.realpath(workspace)
        files.append((Path(workspace) / ".forewarn" / "config.toml", real_root, REPOSITORY_KEYS))
    for file, inside, allowed in files:
        try:
            raw = untrusted.read_capped(file, MAX_CONFIG_FILE_BYTES, inside=inside)
            if raw is None:
                continue
            data = tomllib.loads(raw.decode("utf-8"))
        except untrusted.RefusedFile as exc:
            problems.append(f"{file}: not read, {exc.detail}; ignoring this file")
            continue
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            problems.append(f"{file}: cannot read settings ({exc}); ignoring this file")
            continue
        settings, found = parse_settings(data, settings, allowed)
        problems += [f"{file}: {p}" for p in found]
        if allowed is not None and any(REFUSED_MARK in p for p in found):
            problems.append(f"{file}: set those in {user_file} or in your editor's Forewarn settings instead")
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


REFUSED_MARK = "may not be set by a repository"


def _overlay(
    target: Any,
    data: dict[str, Any],
    prefix: str,
    dotted: str,
    problems: list[str],
    allowed: frozenset[str] | None,
    refused: str = REFUSED_MARK,
) -> None:
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
                _overlay(current, value, path + ".", f"{dotted}{name}.", problems, allowed, refused)
            else:
                problems.append(f"setting '{path}' must be a table/object; kept defaults")
            continue
        if allowed is not None and dotted + name not in allowed:
            problems.append(f"setting '{path}' {refused}; kept {_shown(current)}")
            continue
        ok, converted = _convert(value, hint)
        meta = fields[name].metadata
        low, high, max_len = meta.get("min"), meta.get("max"), meta.get("max_len")
        if not ok:
            problems.append(f"setting '{path}' = {_shown(value)} is not a valid {_type_name(hint)}; kept {current!r}")
        elif low is not None and converted < low:
            problems.append(f"setting '{path}' = {value!r} must be at least {low}; kept {current!r}")
        elif high is not None and converted > high:
            problems.append(f"setting '{path}' = {value!r} must be at most {high}; kept {current!r}")
        elif max_len is not None and len(converted) > max_len:
            unit = "items" if isinstance(converted, list) else "characters"
            problems.append(
                f"setting '{path}' is {len(converted)} {unit} long, more than {max_len}; kept {_shown(current)}"
            )
        else:
            setattr(target, name, converted)


def _shown(value: Any) -> str:
    """A value for a problem message, cut short: a message quoting a megabyte is unreadable."""
    text = repr(value)
    return text if len(text) <= SHOWN_VALUE_CHARS else text[: SHOWN_VALUE_CHARS - 1] + "…"


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
