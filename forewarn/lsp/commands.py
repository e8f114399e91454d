"""``workspace/executeCommand`` and ``workspace/symbol``: argument checking, then one session call.

Every command takes one JSON object (docs/internals.md, "LSP surface"). Arguments are checked here
and a bad one is answered with InvalidParams naming the field, never with a crash. A key the command does
not take is refused too, before anything runs: a misspelt ``symbl``, or ``file`` for ``uri``, would otherwise
be dropped silently and a memory meant for one definition stored workspace-wide (MCP refuses them as well).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from forewarn.errors import ForewarnError
from forewarn.lsp import convert, for_agents
from forewarn.lsp.session import Unavailable
from forewarn.memory.origin import ProposalAction
from forewarn.memory.store import MEMORY_TYPES
from forewarn.memory.vocabulary import MemoryType, Resolution
from forewarn.safe_text import one_line
from forewarn.workspace.limits import MAX_TEXT_CHARS

if TYPE_CHECKING:
    from forewarn.lsp.server import ForewarnServer

MAX_QUERY_CHARS = 2_000  # a search longer than this is a pasted file; its first part says enough
# a search made while the folder's first (or a full) index runs waits this long for it, so its code part is
# complete: the first index of a project takes seconds. Past it the answer says ``indexing`` and has what it has
SEARCH_INDEX_WAIT_S = 10.0
MAX_K = 200  # more results than a palette can show
DEFAULT_K = 20  # one screen of a picker
DEFAULT_MAP_TOKENS = 1_024  # Aider's default repo-map budget
MAX_MAP_TOKENS = 32_768  # beyond this the map no longer fits any model's context usefully
SYMBOL_MEMORIES = 50  # workspace/symbol: memories listed…
SYMBOL_CHUNKS = 50  # …and code chunks, each capped so the picker stays quick
MAX_REASON_CHARS = 500  # why a memory is outdated: a sentence or two
REQUEST_FAILED = -32803  # LSP's RequestFailed: the request was valid but the server could not do it
MAX_SHOWN_KEY_CHARS = 40  # an unknown key, as the client spelled it, in the error naming it
MAX_SHOWN_KEYS = 3  # unknown keys named in one error; a client sending dozens is told of the first few


class Args:
    """Reads one command's argument object; every problem raises InvalidParams naming the field."""

    def __init__(self, command: str, raw: Sequence[Any], keys: Sequence[str]) -> None:
        self.command = command
        self.keys = keys
        if len(raw) > 1:
            self.fail(f"takes one argument object, got {len(raw)} arguments")
        value = raw[0] if raw else {}
        if value is None:
            value = {}
        if not isinstance(value, dict):
            self.fail(f"the argument must be an object, got {type(value).__name__}")
        if unknown := [key for key in value if key not in keys]:
            named = "; ".join(
                f"unknown argument '{one_line(key, MAX_SHOWN_KEY_CHARS)}'" for key in unknown[:MAX_SHOWN_KEYS]
            )
            self.fail(f"{named} ({command} takes: {', '.join(keys)})")
        self.data: dict[str, Any] = value

    def _get(self, name: str) -> Any:
        if name not in self.keys:  # a reader and its Command's keys disagree: the server's bug, not the client's
            raise RuntimeError(f"{self.command} reads '{name}' but does not list it among its keys")
        return self.data.get(name)

    def fail(self, message: str) -> NoReturn:
        raise JsonRpcInvalidParams(f"{self.command}: {message}")

    def null(self, name: str) -> bool:
        """``name`` is present and null: a code action's "the client asks for this" that reached us unanswered."""
        return name in self.data and self._get(name) is None

    def string(self, name: str, *, required: bool = False, limit: int = MAX_TEXT_CHARS) -> str | None:
        value = self._get(name)
        if value is None:
            if required:
                self.fail(f"'{name}' is required")
            return None
        if not isinstance(value, str):
            self.fail(f"'{name}' must be a string, got {type(value).__name__}")
        if required and not value.strip():
            self.fail(f"'{name}' must not be empty")
        if len(value) > limit:
            self.fail(f"'{name}' is {len(value)} characters; the limit is {limit}")
        return value

    def integer(self, name: str, default: int, low: int, high: int) -> int:
        value = self._get(name)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            self.fail(f"'{name}' must be an integer")
        if value != int(value) or not low <= value <= high:
            self.fail(f"'{name}' must be an integer from {low} to {high}, got {value}")
        return int(value)

    def boolean(self, name: str, default: bool = False) -> bool:
        value = self._get(name)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.fail(f"'{name}' must be true or false, got {type(value).__name__}")
        return value

    def strings(self, name: str) -> list[str]:
        value = self._get(name)
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(f"'{name}' must be a list of strings")
        return list(value)

    def choice(self, name: str, allowed: Sequence[str], default: str | None = None) -> str | None:
        value = self.string(name)
        if value is None:
            return default
        if value not in allowed:
            self.fail(f"'{name}' must be one of {', '.join(allowed)}; got {value!r}")
        return value

    def lsp_range(self, name: str) -> types.Range | None:
        value = self._get(name)
        if value is None:
            return None
        try:
            start, end = value["start"], value["end"]
            rng = types.Range(
                start=types.Position(line=_nat(start["line"]), character=_nat(start["character"])),
                end=types.Position(line=_nat(end["line"]), character=_nat(end["character"])),
            )
        except (KeyError, TypeError, ValueError):
            self.fail(f"'{name}' must be an LSP range {{start: {{line, character}}, end: {{line, character}}}}")
        return rng


def _nat(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(value)
    return value


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    run: Callable[[ForewarnServer, Args], Any]
    writes: bool  # writes run on the writer thread and republish open documents afterwards
    keys: tuple[str, ...]  # what its argument object may hold (docs/internals.md); any other key is refused


async def _search(ls: ForewarnServer, args: Args) -> dict[str, Any]:
    query = args.string("query", required=True, limit=MAX_QUERY_CHARS) or ""
    k = args.integer("k", DEFAULT_K, 1, MAX_K)
    mtype = args.choice("type", MEMORY_TYPES)
    code_only = args.boolean("codeOnly", False)
    session, rel = ls.target(args.string("file"))
    await ls.until_indexed(session, SEARCH_INDEX_WAIT_S)
    return await ls.read(session.search, query, k, mtype, rel, code_only)


async def _remember(ls: ForewarnServer, args: Args) -> dict[str, Any]:
    if args.null("text"):
        return convert.needs_text(args.command)
    text = args.string("text", required=True) or ""
    mtype = args.choice("type", MEMORY_TYPES, MemoryType.GOTCHA) or MemoryType.GOTCHA
    rng = args.lsp_range("range")
    symbol = args.string("symbol", limit=1_000)
    tags = args.strings("tags")
    uri = args.string("uri")
    session, rel = ls.target(uri)
    line = convert.selection_lines(rng)[0] if rng else None
    writer = ls.agent_writer()
    # a symbol found at the line, or carried by a person's code action, is the index's own path (``get#2``); one an
    # agent typed is a name: overloads it names alike are refused with each one's name, never the first taken
    as_indexed = symbol is None or writer is None
    if line is not None and symbol is None:  # the editor's line: in an unsaved buffer, where it is saved
        place = await ls.read(session.saved_place, rel, line, ls.buffer_text(uri) if uri else None)
        if place.line is None:
            raise ForewarnError(f"line {line} is code not saved yet: save the file, then remember it")
        symbol, line = place.symbol, place.line
    private = args.boolean("private")  # the writer's alone: never exported to the team's file
    return await ls.write(session.remember, text, mtype, rel, symbol, line, tags, private, writer, as_indexed)


def _id(args: Args) -> str:
    return args.string("id", required=True, limit=64) or ""


async def _supersede(ls: ForewarnServer, args: Args) -> dict[str, Any]:
    if args.null("text"):
        return convert.needs_text(args.command, args.string("id", limit=64))
    text = args.string("text", required=True) or ""
    mtype = args.choice("type", MEMORY_TYPES)
    session, mid = await ls.session_owning(_id(args))
    if (writer := ls.agent_writer()) is not None:  # an agent's: a suggestion replacing it once a person accepts
        return await ls.write(session.agent_supersede, writer, mid, text)
    return await ls.write(session.supersede, mid, text, mtype)


def _on_memory(action: str, proposal: ProposalAction | None = None) -> Callable[[ForewarnServer, Args], Any]:
    """A command whose one argument is a memory id: ``session.<action>(id)`` on the writer thread; from an agent
    (a client that is not an interactive editor), ``proposal``: a suggestion waiting for a person."""

    async def run(ls: ForewarnServer, args: Args) -> dict[str, Any]:
        reason = args.string("reason", limit=MAX_REASON_CHARS) if proposal == ProposalAction.MARK_OUTDATED else None
        session, mid = await ls.session_owning(_id(args))
        if proposal is not None and (writer := ls.agent_writer()) is not None:
            return await ls.write(session.agent_act, writer, proposal, mid, reason)
        return await ls.write(getattr(session, action), mid)

    return run


async def _reanchor(ls: ForewarnServer, args: Args) -> dict[str, Any]:
    symbol = args.string("symbol", limit=1_000)
    rng = args.lsp_range("range")
    if symbol is None and rng is None:
        args.fail("'symbol' or 'range' is required: where the memory belongs now")
    session, mid = await ls.session_owning(_id(args))
    target, rel = ls.target(args.string("uri", required=True))
    if target is not session or rel is None:
        args.fail("'uri' must be a file of the folder that holds the memory")
    line = None if symbol is not None or rng is None else convert.selection_lines(rng)[0]
    return await ls.write(session.reanchor, mid, rel, symbol, line)


async def _resolve_conflict(ls: ForewarnServer, args: Args) -> dict[str, Any]:
    resolution = args.choice("resolution", tuple(Resolution))
    if resolution is None:
        args.fail(f"'resolution' is required: one of {', '.join(Resolution)}")
    other = args.string("other", required=True, limit=64) or ""
    session, mid = await ls.session_owning(_id(args))
    return await ls.write(session.resolve_conflict, mid, other, resolution)


async def _accept_suggestion(ls: ForewarnServer, args: Args) -> dict[str, Any]:
    if args.null("text"):  # "edit and accept" whose edit never happened: accepting unedited would be a guess
        return convert.needs_text(args.command, args.string("id", limit=64))
    text = args.string("text")
    if text is not None and not text.strip():
        args.fail("'text' must not be empty (leave it out to accept the suggestion as it is)")
    session, mid = await ls.session_owning(_id(args))
    return await ls.write(session.accept_suggestion, mid, text)


async def _review(ls: ForewarnServer, args: Args) -> dict[str, Any]:
    session, rel = ls.target(args.string("uri"))
    return await ls.read(session.review, rel)


async def _open_list(ls: ForewarnServer, args: Args) -> dict[str, Any]:
    uri = args.string("uri", required=True)
    session, rel = ls.target(uri)
    if rel is None:
        args.fail("'uri' must be a file of a workspace folder")
    return await ls.read(session.open_list, rel, ls.buffer_text(uri or ""))


async def _suggestion_diff(ls: ForewarnServer, args: Args) -> dict[str, Any]:
    session, mid = await ls.session_owning(_id(args))
    return await ls.read(session.suggestion_diff, mid)


async def _repo_map(ls: ForewarnServer, args: Args) -> dict[str, Any]:
    budget = args.integer("budget", DEFAULT_MAP_TOKENS, 64, MAX_MAP_TOKENS)
    focus = args.strings("focus")
    session = ls.session_for(focus[0] if focus else None)
    rels = [found[1] for uri in focus if (found := ls.locate(uri)) is not None and found[0] is session]
    return await ls.read(session.repo_map, budget, rels)


async def _stats(ls: ForewarnServer, args: Args) -> dict[str, Any]:
    since = args.string("since", limit=40)  # a date or a span such as "90d" (forewarn.memory.trajectory)
    return await ls.read(ls.session_for(args.string("uri")).stats, since)


async def _file_memories(ls: ForewarnServer, args: Args) -> dict[str, Any]:
    session, rel = ls.target(args.string("uri", required=True))
    if rel is None:
        args.fail("'uri' must be a file of a workspace folder")
    return await ls.read(session.file_memories, rel)


async def _reindex(ls: ForewarnServer, args: Args) -> dict[str, Any]:
    session = ls.session_for(args.string("uri"))
    await ls.index(session)
    return session.last_report


ID_ONLY = ("id",)  # the commands acting on one memory take nothing else
COMMANDS = (
    Command(convert.CMD_SEARCH, _search, writes=False, keys=("query", "k", "type", "codeOnly", "file")),
    Command(
        convert.CMD_REMEMBER,
        _remember,
        writes=True,
        keys=("text", "type", "uri", "range", "symbol", "tags", "private"),
    ),
    Command(convert.CMD_SUPERSEDE, _supersede, writes=True, keys=("id", "text", "type")),
    Command(convert.CMD_FORGET, _on_memory("forget", ProposalAction.FORGET), writes=True, keys=ID_ONLY),
    Command(convert.CMD_RESTORE, _on_memory("restore"), writes=True, keys=ID_ONLY),
    Command(convert.CMD_CONFIRM, _on_memory("confirm", ProposalAction.CONFIRM), writes=True, keys=ID_ONLY),
    Command(
        convert.CMD_MARK_OUTDATED,
        _on_memory("mark_outdated", ProposalAction.MARK_OUTDATED),
        writes=True,
        keys=("id", "reason"),
    ),
    Command(convert.CMD_REANCHOR, _reanchor, writes=True, keys=("id", "uri", "symbol", "range")),
    Command(convert.CMD_REPO_MAP, _repo_map, writes=False, keys=("budget", "focus")),
    Command(convert.CMD_STATS, _stats, writes=False, keys=("uri", "since")),
    Command(convert.CMD_REINDEX, _reindex, writes=False, keys=("uri",)),  # indexing republishes by itself
    Command(
        convert.CMD_ACCEPT, _on_memory("accept"), writes=False, keys=ID_ONLY
    ),  # reinforcement changes no diagnostic
    # an accepted suggestion's hint becomes a warning at once
    Command(convert.CMD_ACCEPT_SUGGESTION, _accept_suggestion, writes=True, keys=("id", "text")),
    Command(convert.CMD_DISMISS_SUGGESTION, _on_memory("dismiss_suggestion"), writes=True, keys=ID_ONLY),
    Command(convert.CMD_REVIEW, _review, writes=False, keys=("uri",)),
    Command(convert.CMD_SUGGESTION_DIFF, _suggestion_diff, writes=False, keys=ID_ONLY),
    # statuses change: republish
    Command(convert.CMD_RESOLVE_CONFLICT, _resolve_conflict, writes=True, keys=("id", "other", "resolution")),
    Command(convert.CMD_FILE_MEMORIES, _file_memories, writes=False, keys=("uri",)),
    Command(convert.CMD_OPEN_LIST, _open_list, writes=False, keys=("uri",)),
)


def register(server: ForewarnServer) -> None:
    for command in COMMANDS:
        _register_one(server, command)


def _register_one(server: ForewarnServer, command: Command) -> None:
    # pygls reads this signature's type hints at call time: only names resolvable at run time here
    async def handler(ls: Any, *raw: Any) -> Any:
        await ls.ready.wait()
        if command.name in for_agents.PERSON_ONLY_COMMANDS and not ls.interactive():
            raise JsonRpcException(for_agents.person_only(command.name), code=REQUEST_FAILED)
        try:
            result = await command.run(ls, Args(command.name, raw, command.keys))
        except Unavailable as exc:  # the request was fine; this folder cannot answer it
            raise JsonRpcException(f"{command.name}: {exc}", code=REQUEST_FAILED) from exc
        except (ForewarnError, ValueError) as exc:  # the one edge: Forewarn's errors explain themselves
            raise JsonRpcInvalidParams(f"{command.name}: {exc}") from exc
        if command.writes:
            ls.republish_all()
            ls.flush_when_idle()
        return result

    handler.__name__ = command.name.replace(".", "_")
    server.command(command.name)(handler)


async def workspace_symbols(ls: ForewarnServer, query: str) -> list[types.WorkspaceSymbol]:
    """Memories and code chunks matching ``query``, from every folder, for the standard picker."""
    if not query.strip():
        return []
    query = query[:MAX_QUERY_CHARS]
    await ls.ready.wait()
    out: list[types.WorkspaceSymbol] = []
    for session in list(ls.sessions.values()):
        out += await ls.read(session.symbols, query, SYMBOL_MEMORIES, SYMBOL_CHUNKS)
    return out
