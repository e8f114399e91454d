"""What the commands of one folder answer: search, workspace symbols, writes (remember, supersede, forget,
confirm…), suggestions and their review, the repo map, stats and the *This file* view, as plain dicts.

Part of :class:`forewarn.lsp.session.FolderSession` (a mixin: the session provides the engine, the indexing state
and the spans declared here). Every method blocks and runs on the server's worker threads.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from forewarn.lsp import convert
from forewarn.lsp.convert import ChunkView, Span
from forewarn.lsp.session_guard import _refusing_damage
from forewarn.memory.errors import (
    AmbiguousMemoryIdError,
    InvalidMemoryError,
    MemoryDatabaseCorruptError,
    MemoryNotFoundError,
)
from forewarn.memory.origin import ProposalAction
from forewarn.memory.records import Memory
from forewarn.memory.suggestions import worth_a_look
from forewarn.memory.vocabulary import MemorySource, MemoryStatus
from forewarn.workspace.agents import AgentWriter

if TYPE_CHECKING:
    from forewarn.workspace.engine import Workspace

MAX_CODE_FILES = 50  # code files in a search answer (they follow k up to this)
MAP_FILES = 100  # ranked files listed beside the repo map text: a palette shows no more
REVIEW_MAX = 500  # suggestions one review answer lists (best first); a picker past this is unusable


class SessionCommands:
    """The command answers of one folder (part of ``FolderSession``)."""

    uri: str
    engine: Workspace | None
    damage: MemoryDatabaseCorruptError | None
    full_index_running: threading.Event
    indexed: threading.Event

    if TYPE_CHECKING:

        def _engine(self) -> Workspace: ...
        def uri_of(self, rel: str) -> str: ...
        def _span(self, rel: str, anchor: Any, live: dict[str, tuple[int, int]] | None) -> Span: ...

    @_refusing_damage()
    def accept(self, memory_id: str) -> dict[str, Any]:
        """The user acted on a memory (opened it from search, applied it): reinforce it."""
        engine = self._engine()
        engine.accept(memory_id)
        return {"id": engine.get(memory_id).id}

    def anchor_span(self, memory: Memory) -> Span | None:
        anchor = memory.anchor
        if anchor is None:
            return None
        return self._span(anchor.file, anchor, None)

    @_refusing_damage(lambda: None)
    def resolve_id(self, memory_id: str) -> str | None:
        """The full id of ``memory_id`` (a full id or a unique prefix) in this folder, or None."""
        if self.engine is None:
            return None
        try:
            return str(self.engine.get(memory_id).id)
        except AmbiguousMemoryIdError:
            raise  # the user must type more of the id: say so rather than "not found"
        except (MemoryNotFoundError, InvalidMemoryError):
            return None

    @_refusing_damage()
    def search(self, query: str, k: int, mtype: str | None, rel: str | None, code_only: bool = False) -> dict[str, Any]:
        # no code search while a full index holds the indexer; its number of files follows k. The answer says when
        # its code part is missing or may be stale (``indexing``), so a client can ask again once it is done
        code = 0 if self.full_index_running.is_set() else min(k, MAX_CODE_FILES)
        indexing = self.full_index_running.is_set() or not self.indexed.is_set()
        result = self._engine().search(
            query, k, types=(mtype,) if mtype else (), file=rel, chunks=code, code_only=code_only
        )
        files = [
            convert.file_result(
                f.file, self.uri_of(f.file), f.score, f.is_test, [self._chunk_view(c) for c in f.chunks]
            )
            for f in result.files
        ]
        return {
            "memories": [convert.memory_result(s.memory, self.anchor_span(s.memory), s.score) for s in result.memories],
            "chunks": [convert.chunk_result(self._chunk_view(c)) for c in result.chunks],
            "files": files,
            "mode": result.mode,
            "reason": result.reason,
            "message": None if result.memories or code_only else result.no_memory_message(),
            "indexing": indexing,
        }

    def _chunk_view(self, hit: Any) -> ChunkView:
        """A search's chunk hit (the indexer's ``CodeChunk`` and a score) as the daemon shows it."""
        c = hit.chunk
        return ChunkView(c.rel, self.uri_of(c.rel), c.symbol, c.kind, c.start_line, c.end_line, c.signature, hit.score)

    @_refusing_damage(list)
    def symbols(self, query: str, memories: int, chunks: int) -> list[types.WorkspaceSymbol]:
        if self.engine is None:
            return []
        if self.full_index_running.is_set():
            chunks = 0
        result = self.engine.search(query, memories, chunks=chunks, record=False)
        root = Span(self.uri, "", None, None, None)
        out = [convert.memory_symbol(s.memory, self.anchor_span(s.memory) or root) for s in result.memories]
        return out + [convert.chunk_symbol(self._chunk_view(c)) for c in result.chunks]

    @_refusing_damage()
    def remember(
        self,
        text: str,
        mtype: str,
        rel: str | None,
        symbol: str | None,
        line: int | None,
        tags: list[str],
        private: bool = False,
        writer: AgentWriter | None = None,
        as_indexed: bool = True,
    ) -> dict[str, Any]:
        engine = self._engine()
        # ``as_indexed``: the symbol is the index's own path (``get`` is the first of same-named definitions, ``get#2``
        # the second), as a code action or the line found it; False for a name an agent typed
        if writer is not None:  # an agent's: a suggestion (or, trusted, active), named after the client
            outcome = writer.remember(
                engine, text, type=mtype, file=rel, symbol=symbol, line=line, private=private, as_indexed=as_indexed
            )
        else:
            outcome = engine.remember(
                text, type=mtype, file=rel, symbol=symbol, line=line, tags=tags, source=MemorySource.USER,
                private=private, as_indexed=as_indexed,
            )  # fmt: skip
        return {
            "id": outcome.memory.id,
            "merged": outcome.merged,
            "known": outcome.known,  # an agent's near-duplicate: nothing stored
            "memory": convert.memory_result(outcome.memory, self.anchor_span(outcome.memory)),
            "candidates": [convert.memory_result(m, self.anchor_span(m)) for m in outcome.candidates],
            "conflicts": [
                {**convert.memory_result(c.memory, self.anchor_span(c.memory)), "cues": list(c.cues)}
                for c in outcome.conflicts
            ],
            "redacted": list(outcome.redacted),
        }

    @_refusing_damage()
    def resolve_conflict(self, memory_id: str, other_id: str, resolution: str) -> dict[str, Any]:
        kept, other = self._engine().resolve_conflict(memory_id, other_id, resolution)
        return {
            "id": kept.id,
            "other": other.id,
            "resolution": resolution,
            "memory": convert.memory_result(kept, self.anchor_span(kept)),
            "otherMemory": convert.memory_result(other, self.anchor_span(other)),
        }

    @_refusing_damage()
    def supersede(self, memory_id: str, text: str, mtype: str | None) -> dict[str, Any]:
        engine = self._engine()
        new = engine.supersede(memory_id, text, type=mtype)
        engine.accept(new.id)  # the user acted on this lesson: the replacement carries it on
        return {"id": new.id, "superseded": memory_id, "memory": convert.memory_result(new, self.anchor_span(new))}

    @_refusing_damage()
    def agent_supersede(self, writer: AgentWriter, memory_id: str, text: str) -> dict[str, Any]:
        """An agent's supersede: a suggestion replacing the memory once a person accepts it (trusted: at once)."""
        done = writer.supersede(self._engine(), memory_id, text)
        new = done.memory
        return {
            "id": new.id, "superseded": None if done.proposed else memory_id, "proposed": done.proposed,
            "memory": convert.memory_result(new, self.anchor_span(new)),
        }  # fmt: skip

    @_refusing_damage()
    def agent_act(
        self, writer: AgentWriter, action: ProposalAction, memory_id: str, reason: str | None
    ) -> dict[str, Any]:
        """An agent's confirm, mark outdated or forget: a proposal waiting for a person (trusted: done at once)."""
        engine = self._engine()
        done = writer.act(engine, action, memory_id, reason)
        if not done.proposed:
            return _status(done.memory)
        target = engine.get(memory_id)
        said = "proposed" if done.new else "already proposed"
        return {
            **_status(target), "proposed": True, "suggestion": done.memory.id,
            "message": f"{said}: suggestion {done.memory.id} waits for a person's review; memory {target.id} is "
            "unchanged until then",
        }  # fmt: skip

    @_refusing_damage()
    def forget(self, memory_id: str) -> dict[str, Any]:
        """Archive a memory; the answer says how to bring it back (forgetting is never deletion)."""
        memory = self._engine().forget(memory_id)
        return {**_status(memory), "restore": convert.restore_hint(memory.id)}

    @_refusing_damage()
    def restore(self, memory_id: str) -> dict[str, Any]:
        return _status(self._engine().restore(memory_id))

    @_refusing_damage()
    def confirm(self, memory_id: str) -> dict[str, Any]:
        engine = self._engine()
        memory = engine.confirm(memory_id)
        engine.accept(memory.id)
        return _status(memory)

    @_refusing_damage()
    def reanchor(self, memory_id: str, rel: str, symbol: str | None, line: int | None) -> dict[str, Any]:
        memory = self._engine().reanchor(memory_id, rel, symbol, line=line, as_indexed=True)  # a code action's path
        return {**_status(memory), "memory": convert.memory_result(memory, self.anchor_span(memory))}

    def orphans(self, rel: str) -> list[Memory]:
        """The file's orphaned memories (their code was not found again), newest first, for re-anchoring."""
        if self.engine is None:
            return []
        found = self.engine.list_memories(file=rel, statuses=[MemoryStatus.ORPHANED], limit=convert.REANCHOR_ACTIONS)
        return [m for m in found if m.anchor is not None and m.anchor.file == rel]

    @_refusing_damage()
    def mark_outdated(self, memory_id: str) -> dict[str, Any]:
        return _status(self._engine().mark_stale(memory_id))

    @_refusing_damage()
    def accept_suggestion(self, memory_id: str, text: str | None) -> dict[str, Any]:
        memory = self._engine().accept_suggestion(memory_id, text)
        return {**_status(memory), "memory": convert.memory_result(memory, self.anchor_span(memory))}

    @_refusing_damage()
    def dismiss_suggestion(self, memory_id: str) -> dict[str, Any]:
        return _status(self._engine().dismiss_suggestion(memory_id))

    @_refusing_damage()
    def suggestion_diff(self, memory_id: str) -> dict[str, Any]:
        """The commit diff (or warning comment's place) a mined memory stands on, for the review pickers."""
        return {"id": memory_id, "diff": self._engine().suggestion_diff(memory_id)}

    @_refusing_damage()
    def open_list(self, rel: str, text: str | None) -> dict[str, Any]:
        """Everything an open of ``rel`` counts, for a picker: its own memories (best first), then those on the
        definitions it uses from other files (``usedAt``: the line of ``rel`` that uses each)."""
        engine = self._engine()
        from forewarn.memory.retrieval import rank_anchored

        own = rank_anchored(engine.store.anchored_to_files([rel]), engine.clock())
        used = engine.used_memories(rel, text=text)
        rows = [convert.memory_result(m, self.anchor_span(m)) for m in own]
        rows += [{**convert.memory_result(h.memory, self.anchor_span(h.memory)), "usedAt": h.line} for h in used]
        return {"file": rel, "memories": rows, "total": len(rows)}

    @_refusing_damage()
    def review(self, rel: str | None) -> dict[str, Any]:
        """The suggestions on ``rel`` (None or a folder: everywhere below it) in the review queue's order (those
        worth a look first, then the rest, each best first), each saying whether it is worth a look, and how many
        there are."""
        engine = self._engine()
        found = engine.suggestions(rel or None)
        return {
            "suggestions": [
                {**self._suggestion_row(engine, m), "worthALook": worth_a_look(m)} for m in found[:REVIEW_MAX]
            ],
            "total": len(found),
            "worth_a_look": sum(1 for m in found if worth_a_look(m)),  # rank_suggestions: these lead the list
        }

    def _suggestion_row(self, engine: Workspace, memory: Memory) -> dict[str, Any]:
        """A memory's result; a proposal's (a suggestion that changes another memory when accepted) says what
        accepting it changes, as ``memory review`` does: ``proposedChange`` with its ``summary`` line."""
        row = convert.memory_result(memory, self.anchor_span(memory))
        if memory.status == MemoryStatus.SUGGESTED and (change := engine.proposed_change(memory)) is not None:
            row["proposedChange"] = change.to_dict()
        return row

    @_refusing_damage()
    def repo_map(self, budget: int, focus: list[str]) -> dict[str, Any]:
        rmap = self._engine().indexer.repo_map(budget, focus_files=focus)
        files = [{"file": rel, "uri": self.uri_of(rel), "score": score} for rel, score in rmap.ranked_files[:MAP_FILES]]
        return {"text": rmap.text, "tokens": rmap.tokens, "files": files}

    @_refusing_damage()
    def stats(self, since: str | None = None) -> dict[str, Any]:
        """``forewarn stats --json --since`` plus the code vectors, and a ``uri`` on every listed file."""
        engine = self._engine()
        data: dict[str, Any] = engine.stats(since=since).to_dict()
        embedded, total = engine.code_vector_state()
        data["code_vectors"] = {"embedded": embedded, "total": total}
        for key in ("important_without_memories", "important_files", "shown_most", "dismissed_most", "stale_memories"):
            for item in data[key]:
                if item.get("file"):
                    item["uri"] = self.uri_of(item["file"])
        return data

    def file_memories(self, rel: str) -> dict[str, Any]:
        """Every memory of ``rel`` grouped by symbol, each on its current span (the editors' *This file* view)."""
        engine = self._engine()
        found = engine.file_memories(rel)
        symbols = []
        for group in found.symbols:
            # each with the severity its diagnostic has on open, so a view marks what warns as the editor does
            memories = [
                {**self._suggestion_row(engine, m), "severity": convert.severity(m, neighbour=False)}
                for m in group.memories
            ]
            ranges = [m["anchor"]["range"] for m in memories if m["anchor"] is not None]
            symbols.append(
                {
                    "symbol": group.symbol,
                    "range": min(ranges, key=lambda r: r["start"]["line"]) if ranges else None,
                    "counts": group.counts(),
                    "memories": memories,
                }
            )
        counts = found.counts()
        return {
            "file": found.file,
            "uri": self.uri_of(found.file),
            "symbols": symbols,
            "counts": counts,
            "total": sum(counts.values()) + found.more,
            "more": found.more,
        }


def _status(memory: Memory) -> dict[str, Any]:
    return {"id": memory.id, "status": memory.status}
