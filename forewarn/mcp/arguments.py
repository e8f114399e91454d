"""A tool call's bad arguments as one readable line, instead of the SDK's pydantic report.

The MCP SDK validates arguments against each tool's schema and, on failure, answers with pydantic's
multi-line report ("1 validation error for confirmArguments … For further information visit https://…").
An agent (or a person reading its log) needs one line: which argument, what is wrong with it, and which
arguments the tool takes (a README's or an old client's names, such as ``id`` for ``memory_id``, are named
as unknown).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from forewarn.safe_text import flat_text

MAX_MESSAGE_CHARS = 600  # one line an agent reads: every problem of a call fits, a flood of them does not
MAX_SHOWN_NAME_CHARS = 40  # an unknown argument's name, as the caller spelled it


def readable(tool: str, error: ValidationError, arguments: Mapping[str, Any], known: Iterable[str]) -> str:
    """``confirm: 'memory_id' is required; unknown argument 'id' (confirm takes: memory_id)``."""
    names = list(known)
    problems: list[str] = []
    for err in error.errors():
        loc = [str(part) for part in err.get("loc", ()) if part != "__root__"]
        field = ".".join(loc) or "arguments"
        problems.append(_problem(f"'{field}'", str(err.get("type", "")), err.get("ctx") or {}, str(err.get("msg"))))
    unknown = [k for k in arguments if k not in names]
    problems += [f"unknown argument '{_short(k)}'" for k in unknown]
    takes = f" ({tool} takes: {', '.join(names)})" if names else ""
    line = f"{tool}: " + "; ".join(dict.fromkeys(problems)) + takes
    return line if len(line) <= MAX_MESSAGE_CHARS else line[: MAX_MESSAGE_CHARS - 1] + "…"


def _problem(field: str, kind: str, ctx: Mapping[str, Any], message: str) -> str:
    if kind == "missing":
        return f"{field} is required"
    if kind == "string_too_long":
        return f"{field} is too long: at most {_n(ctx.get('max_length'))} characters"
    if kind == "string_too_short":
        return f"{field} must not be empty"
    if kind == "too_long":
        return f"{field} has too many items: at most {_n(ctx.get('max_length'))}"
    if kind == "too_short":
        return f"{field} needs at least {_n(ctx.get('min_length'))} item(s)"
    if kind in ("less_than_equal", "less_than"):
        return f"{field} must be at most {_n(ctx.get('le', ctx.get('lt')))}"
    if kind in ("greater_than_equal", "greater_than"):
        return f"{field} must be at least {_n(ctx.get('ge', ctx.get('gt')))}"
    if kind in ("enum", "literal_error"):
        return f"{field} must be one of {ctx.get('expected', 'the listed values')}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"{field} must be a whole number"
    if kind in ("string_type",):
        return f"{field} must be a string"
    if kind in ("list_type",):
        return f"{field} must be a list"
    if kind in ("bool_type", "bool_parsing"):
        return f"{field} must be true or false"
    return f"{field}: {' '.join(message.split())}"


def _n(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _short(name: str) -> str:
    flat = flat_text(name)
    return flat if len(flat) <= MAX_SHOWN_NAME_CHARS else flat[: MAX_SHOWN_NAME_CHARS - 1] + "…"
