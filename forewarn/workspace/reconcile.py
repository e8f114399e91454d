"""Memories follow their code: the one place that brings anchors in line with the code index.

Whatever changed the index (this process or another: ``forewarn index``, an editor's save, a branch
switch, mining) left a generation behind (index m004); :func:`catch_up` asks the index what changed
since the generation this memory database last saw (memory m007) and reconciles exactly that, so no
path can skip it. A rebuilt index (another epoch) is checked whole once it is complete.

A definition is followed by identity, not by position:

1. same symbol, same bytes: nothing changed (its span may have moved);
2. same syntax (``indexing/syntax.py``: formatting, comments and docstrings don't count; the
   definition's own name is a placeholder): under its own symbol it was only reformatted (active,
   an event says so); under another symbol of the file it was renamed or shifted (``helper#2``
   became ``helper``; one more ``@overload`` stub pushed the implementation from ``f#3`` to ``f#4``);
3. its symbol still there and not taken by another definition's exact match: the same definition,
   really changed: ``stale`` (a contested one too), with a short diff against the code it was written (or
   confirmed) on. Memories of one symbol written on different versions of its code (or imported without it)
   are one definition: each version is checked on its own, none takes the symbol from the others;
4. otherwise it vanished here: the most similar definition (tokens, names aligned) among the
   changed files, above ``SIMILARITY_MIN`` and clear of the runner-up, is it (renamed and edited,
   moved to another file, ``git mv`` plus an edit): re-anchored, stale when its syntax changed;
5. nothing like it anywhere: ``orphaned`` (re-anchor by hand: ``Workspace.reanchor``).

Staleness follows the code both ways: a memory its code made stale whose definition is found again with the
syntax it was written (or confirmed) against — a branch switched back, a revert, a stash — is current again
(``revived``: active, or contested when it was and its pair still is). One a person marked outdated stays so.

Suggestions follow their code the same way (a hint, and the memory it becomes once accepted, sit on the definition
they name), but only a person changes what a suggestion is: one whose code changed or vanished stays a suggestion,
says so in its reason and history (``SUGGESTION_CHANGED`` / ``SUGGESTION_LOST``), and a vanished one loses its
lines rather than pointing at code it is not about. A suggestion accepted meanwhile is reconciled as a memory:
its anchor keeps the hash it was written on, so the code it no longer matches makes it stale.

Memories that arrive from a shared file (:func:`place_imported`) are resolved against this workspace's code by
their symbol: its lines here, stale when its bytes differ, orphaned when it is not here.
"""

from __future__ import annotations

import dataclasses
import difflib
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forewarn.indexing.languages import language_for_path
from forewarn.indexing.parse import parse_file
from forewarn.indexing.records import Chunk
from forewarn.memory.lifecycle import ReconcileReport, event
from forewarn.memory.records import Anchor, Memory
from forewarn.memory.store import STATUSES, MemoryStore
from forewarn.memory.timeline import stale_by_hand
from forewarn.memory.vocabulary import CURRENT_STATUSES, SUGGESTION_STATUSES, MemoryStatus, Resolution
from forewarn.workspace.protocols import IndexerLike
from forewarn.workspace.symbols import base_symbol, called_name

log = logging.getLogger(__name__)

SIMILARITY_MIN = 0.6  # token similarity above which a vanished definition is taken to live on elsewhere
SIMILARITY_MARGIN = 0.08  # ... and by which it must beat the runner-up; closer calls leave the memory orphaned
LENGTH_RATIO_MAX = 2.5  # candidates more than this many times longer or shorter are not compared at all
CROSS_FILE_MAX = 400  # changed files searched for a vanished definition (a branch switch can change thousands)
DIFF_MAX_LINES = 40  # a stale memory's diff, as kept in its history and shown on hover
CODE_MAX_CHARS = 60_000  # anchored code kept for diffs; longer definitions keep their syntax hash only
REFORMATTED = "reformatted"  # event kinds this module writes, beside lifecycle's stale/orphaned/revived/renamed
REANCHORED = "reanchored"
SAME_CODE = "same code"  # how a memory found its definition again: by identical syntax
STALE_REASON = "the code of {symbol} changed since this was written"
SWEEP_MAX = 2_000  # memories without remembered code given one per open or full index (a parse per file)
UNKNOWN_SYNTAX = ""  # their code had changed before it could be remembered: compared by bytes, as before m007
TOKEN_RE = re.compile(r"\w+|[^\w\s]")
# what follows the code: memories, and the suggestions waiting for review (their hints, and what accepting makes)
FOLLOWED_STATUSES: tuple[MemoryStatus, ...] = (*CURRENT_STATUSES, *SUGGESTION_STATUSES)
# a suggestion stays one whatever its code does; these events (no status change) and reasons say what the code did
SUGGESTION_CHANGED = "code changed"
SUGGESTION_LOST = "code vanished"
SUGGESTION_FOUND = "code found"  # its code is again what it was written on / its definition is back
IMPORT_HASH_DROPPED = "imported hash dropped"  # an imported anchor's hash was another definition's here
SUGGESTION_CHANGED_REASON = "the code of {symbol} differs from the code this was written on"
IMPORTED_LOST_REASON = "{symbol} is not in {file} in this workspace"
IMPORTED_FILE_LOST_REASON = "{file} is not in this workspace"


@dataclass
class _Group:
    """The memories anchored to one definition (file, symbol, hash): they move together."""

    file: str
    symbol: str
    content_hash: str | None
    memories: list[Memory]
    syntax: str | None = None  # as written/confirmed (m007); None for memories from before it
    code: str | None = None


@dataclass
class _Run:
    ws_root: Path
    indexer: IndexerLike
    store: MemoryStore
    at: str
    report: ReconcileReport
    parsed: dict[str, dict[str, Chunk] | None] = field(default_factory=dict)
    # (file, symbol) some definition was matched to -> the anchor (file, symbol) whose memories took it
    claimed: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    snapshots: list[tuple[str, str, str]] = field(default_factory=list)
    known: dict[str, set[str]] = field(default_factory=dict)  # symbols files had when last looked at
    symbols_now: dict[str, list[str]] = field(default_factory=dict)  # files found holding memories: their symbols

    def claim(self, g: _Group, rel: str, symbol: str) -> None:
        self.claimed[(rel, symbol)] = (g.file, g.symbol)

    def taken(self, g: _Group, rel: str, symbol: str) -> bool:
        """Whether another definition was matched to ``symbol`` of ``rel``. Memories of one anchor written on
        different versions of its code (or imported without it) form several groups of one definition: one
        group's match does not take it from the others."""
        by = self.claimed.get((rel, symbol))
        return by is not None and by != (g.file, g.symbol)

    def chunks(self, rel: str) -> dict[str, Chunk] | None:
        """The file's definitions with syntax hashes, parsed from disk once per run (None: not parseable)."""
        if rel not in self.parsed:
            self.parsed[rel] = syntax_chunks(self.ws_root, rel)
        return self.parsed[rel]


def syntax_chunks(root: Path, rel: str) -> dict[str, Chunk] | None:
    """Whole chunks of ``rel`` by symbol, each with its syntax hash."""
    if language_for_path(rel) is None:
        return None
    try:
        data = (root / rel).read_bytes()
    except OSError:
        return None
    spec = language_for_path(rel, data)  # a .h of C++ is C++
    assert spec is not None  # the extension is claimed, so a language is
    try:
        parsed = parse_file(data, spec, syntax=True)
    except Exception:  # a parser bug costs this file's re-anchoring only
        log.exception("parsing %s for reconciliation failed", rel)
        return None
    return {c.symbol: c for c in parsed.chunks if c.part == 0}


def catch_up(
    root: Path, indexer: IndexerLike, store: MemoryStore, at: str, *, force_whole: bool = False
) -> ReconcileReport | None:
    """Reconcile what changed in the index since this database last caught up; None when nothing did."""
    epoch, since = store.code_sync()
    if not force_whole and not _behind(indexer.changes_since(epoch, since), since):
        return None  # the common case (every open, every save already reconciled): no write transaction
    with store.batch():  # read the mark again inside the write transaction: one change is reconciled once
        epoch, since = store.code_sync()
        changes = indexer.changes_since(None if force_whole else epoch, since)
        if not _behind(changes, since):
            return None
        report = reconcile(
            root, indexer, store, at, changed=changes.changed, removed=changes.removed, whole=changes.whole
        )
        store.set_code_sync(changes.epoch, changes.generation)
    return report


def remember_missing_code(root: Path, store: MemoryStore, at: str, *, limit: int = SWEEP_MAX) -> int:
    """Give memories that never had their code remembered (imported, mined, older) a snapshot, where their
    code is still what they were written on; the others are marked as unknown ('') so they are not retried."""
    missing = store.without_anchored_code([*CURRENT_STATUSES, MemoryStatus.SUGGESTED], limit)
    if not missing:
        return 0
    parsed: dict[str, dict[str, Chunk] | None] = {}
    items: list[tuple[str, str, str]] = []
    for m in missing:
        a = m.anchor
        assert a is not None and a.symbol is not None
        if a.file not in parsed:
            parsed[a.file] = syntax_chunks(root, a.file)
        c = (parsed[a.file] or {}).get(a.symbol)
        same = c is not None and c.content_hash == a.content_hash and len(c.text) <= CODE_MAX_CHARS
        items.append((m.id, c.syntax_hash, c.text) if same and c is not None else (m.id, UNKNOWN_SYNTAX, ""))
    store.set_anchored_code(items, at=at)
    return len(items)


def place_imported(
    root: Path, indexer: IndexerLike, store: MemoryStore, at: str, ids: Sequence[str]
) -> ReconcileReport:
    """Memories just imported, resolved against this workspace's code by their symbol: the shared file's lines and
    hash were the teammate's code. Same bytes here: this workspace's lines; other bytes: these lines, and stale (a
    suggestion says its code differs) as a local edit would make it; no such symbol (or file) here: orphaned (a
    suggestion keeps no lines). A hash that is another definition's here contradicts its symbol (a hostile or
    damaged line) and is dropped: the symbol is what the memory is about."""
    run = _Run(root, indexer, store, at, ReconcileReport())
    with store.batch():
        found = store.get_many(ids) if ids else {}
        for m in (found[i] for i in ids if i in found):
            a = m.anchor
            if a is None or a.symbol is None or m.status not in FOLLOWED_STATUSES:
                continue  # workspace-wide or file-wide: no lines to be wrong; ended: nothing shows it
            _place_one(run, m, a)
        store.set_anchored_code(run.snapshots, at=at)
    return run.report


def settle_accepted(root: Path, indexer: IndexerLike, store: MemoryStore, at: str, memory_id: str) -> ReconcileReport:
    """A suggestion a person just accepted, checked as the memory it now is: one whose code differs from the code it
    was written on is stale at once (with the diff), one whose definition is gone orphaned, instead of active until
    its file next changes. Its file is reconciled (the others there are in line already: nothing changes for them).
    One that names no code it was written on (an imported line without a hash) takes the code it is accepted on."""
    m = store.get(memory_id)
    a = m.anchor if m is not None else None
    if a is None or a.symbol is None or a.content_hash is None:
        return ReconcileReport()
    here = indexer.chunk_by_symbol(a.file, a.symbol)
    if here is not None and here.content_hash == a.content_hash and (here.start_line, here.end_line) == (
        a.start_line, a.end_line
    ):  # fmt: skip
        return ReconcileReport()  # its code, where it says: nothing to settle (an accept-all stays one lookup each)
    return reconcile(root, indexer, store, at, changed=[a.file], removed=[])


def _place_one(run: _Run, m: Memory, a: Anchor) -> None:
    symbol = a.symbol
    assert symbol is not None
    here = {c.symbol: c for c in run.indexer.chunks_for(a.file) if c.part == 0}
    if not here:  # a file not indexed yet is followed when it is (catch_up); one that is not here never will be
        if not (run.ws_root / a.file).is_file() and m.status != MemoryStatus.ORPHANED:
            why = IMPORTED_FILE_LOST_REASON.format(file=a.file)
            _orphan(run, m, why, reason="file not here", symbol=symbol, file=a.file)
        return
    c = here.get(symbol)
    if c is None:
        if m.status != MemoryStatus.ORPHANED:
            why = IMPORTED_LOST_REASON.format(symbol=symbol, file=a.file)
            _orphan(run, m, why, reason="symbol not here", symbol=symbol, file=a.file)
    elif a.content_hash is None:  # the line named no code: what it was written on is unknown, its place is not
        if (c.start_line, c.end_line) != (a.start_line, a.end_line):
            run.store.move_spans([(m.id, c.start_line, c.end_line)])
            run.report.reanchored.append(m.id)
    elif c.content_hash == a.content_hash:
        _settle(run, m, a.file, c.symbol, c.start_line, c.end_line, c.content_hash, changed=False)
        parsed = (run.chunks(a.file) or {}).get(symbol)
        if parsed is not None and parsed.content_hash == c.content_hash:
            _snapshot(run, [m], parsed)
    else:
        if any(other.content_hash == a.content_hash for other in here.values()):
            m = _drop_contradicting_hash(run, m, a)
        written_on = m.anchor.content_hash if m.anchor is not None else None
        _follow(run, _Group(a.file, symbol, written_on, [m]), a.file, c, changed=True, how="imported")


def _drop_contradicting_hash(run: _Run, m: Memory, a: Anchor) -> Memory:
    """The line's hash is another definition's code here, not its symbol's (a hostile or damaged line): dropped, so
    that reconciling later does not take the memory to that definition; the symbol is what the memory is about."""
    kept = Anchor(a.file, a.symbol, a.start_line, a.end_line, None)
    run.store.update_anchor(
        m.id,
        kept,
        at=run.at,
        event=event(m.id, IMPORT_HASH_DROPPED, run.at, symbol=a.symbol, content_hash=a.content_hash),
    )
    return dataclasses.replace(m, anchor=kept)


def _behind(changes: Any, since: int) -> bool:
    if changes.whole:
        return bool(changes.complete)  # a new index still filling: a file not in it yet is not a deleted file
    return bool(changes.generation != since)


def reconcile(
    root: Path,
    indexer: IndexerLike,
    store: MemoryStore,
    at: str,
    *,
    changed: Sequence[str],
    removed: Sequence[tuple[str, str | None]],
    whole: bool = False,
) -> ReconcileReport:
    """Bring every anchor in ``changed`` files (and those of ``removed`` ones) in line, in one transaction."""
    run = _Run(root, indexer, store, at, ReconcileReport())
    lost: list[_Group] = []
    with store.batch():
        for rel, renamed_to in removed:
            if renamed_to is not None:  # every memory follows its file, history and suggestions included
                for m in store.anchored_to_files([rel], statuses=STATUSES):
                    assert m.anchor is not None
                    a = m.anchor
                    moved = Anchor(renamed_to, a.symbol, a.start_line, a.end_line, a.content_hash)
                    store.update_anchor(
                        m.id, moved, at=at, event=event(m.id, "renamed", at, old_file=rel, new_file=renamed_to)
                    )
                    run.report.renamed.append(m.id)
        gone = [rel for rel, to in removed if to is None]
        files = list(dict.fromkeys([*changed, *(to for _, to in removed if to is not None)]))
        indexed = set(indexer.files()) if whole else set()
        if whole:  # every file memories are anchored to: those the index lacks and the disk too are gone
            anchored = store.anchored_files(FOLLOWED_STATUSES)
            gone += [rel for rel in sorted(anchored) if rel not in indexed and not (root / rel).exists()]
            files = [rel for rel in sorted(anchored) if rel in indexed]
        present = set(files)
        for rel in dict.fromkeys(r for r in gone if r not in present):  # deleted, unless back since
            groups = _groups(
                store.anchored_to_files([rel], statuses=FOLLOWED_STATUSES), store, run, file_wide_gone=True
            )
            lost += groups
        for rel in files:
            lost += _reconcile_file(run, rel)
        candidates = [rel for rel in dict.fromkeys([*changed, *(to for _, to in removed if to)])][:CROSS_FILE_MAX]
        if whole and len(candidates) >= CROSS_FILE_MAX:
            candidates = []  # a rebuilt index: every file "changed"; only exact places are trusted then
        run.known = store.file_symbols(candidates)
        for g in lost:
            _find_elsewhere(run, g, candidates)
        store.set_anchored_code(run.snapshots, at=at)
        store.set_file_symbols(list(run.symbols_now.items()))
    return run.report


def _groups(memories: Iterable[Memory], store: MemoryStore, run: _Run, *, file_wide_gone: bool = False) -> list[_Group]:
    """Symbol-anchored memories grouped by definition; file-wide ones are settled here (file gone or back)."""
    by_key: dict[tuple[str, str, str | None], _Group] = {}
    for m in memories:
        a = m.anchor
        if a is None:
            continue
        if a.symbol is None:
            if file_wide_gone and m.status != MemoryStatus.ORPHANED:
                _orphan(run, m, f"{a.file} was deleted", reason="file deleted", file=a.file)
            elif not file_wide_gone and m.status == MemoryStatus.SUGGESTED and m.status_reason is not None:
                _settle_suggestion(run, m, a.file, None, changed=False)
            elif not file_wide_gone and m.status == MemoryStatus.ORPHANED:
                store.update_status(
                    m.id, MemoryStatus.ACTIVE, at=run.at, event=event(m.id, "revived", run.at, file=a.file)
                )
                run.report.revived.append(m.id)
            continue
        key = (a.file, a.symbol, a.content_hash)
        group = by_key.get(key)
        if group is None:
            group = by_key[key] = _Group(a.file, a.symbol, a.content_hash, [])
        group.memories.append(m)
    groups = list(by_key.values())
    codes = store.anchored_code([m.id for g in groups for m in g.memories])
    for g in groups:
        for m in g.memories:  # any memory of the group that has its code tells what the definition was
            if m.id in codes and codes[m.id][0] != UNKNOWN_SYNTAX:
                g.syntax, g.code = codes[m.id]
                break
    return groups


def _reconcile_file(run: _Run, rel: str) -> list[_Group]:
    """Steps 1–3 for one file; returns the definitions that vanished from it (step 4 looks elsewhere)."""
    groups = _groups(run.store.anchored_to_files([rel], statuses=FOLLOWED_STATUSES), run.store, run)
    if not groups:
        return []
    index_chunks = {c.symbol: c for c in run.indexer.chunks_for(rel) if c.part == 0}
    run.symbols_now[rel] = list(index_chunks)
    pending: list[_Group] = []
    for g in groups:  # 1. same symbol, same bytes
        c = index_chunks.get(g.symbol)
        if c is not None and g.content_hash is not None and c.content_hash == g.content_hash:
            run.claim(g, rel, g.symbol)
            for m in g.memories:
                _settle(run, m, rel, c.symbol, c.start_line, c.end_line, c.content_hash, changed=False)
            if g.syntax is None:  # from before m007: remember its code now that it is known unchanged
                parsed = run.chunks(rel)
                pc = parsed.get(g.symbol) if parsed else None
                if pc is not None and pc.content_hash == c.content_hash:
                    _snapshot(run, g.memories, pc)
        else:
            pending.append(g)
    if not pending:
        return []
    parsed = run.chunks(rel) or {}
    exact_done: list[_Group] = []
    for g in pending:  # 2. same syntax (the same bytes, for memories without code): own symbol, same name, any
        same = [
            c
            for c in parsed.values()
            if (c.syntax_hash == g.syntax if g.syntax is not None else c.content_hash == g.content_hash)
            and not run.taken(g, rel, c.symbol)
        ]
        target = _pick_exact(g.symbol, same)
        if target is None:
            continue
        run.claim(g, rel, target.symbol)
        _follow(run, g, rel, target, changed=False, how=SAME_CODE)
        exact_done.append(g)
    lost: list[_Group] = []
    for g in pending:
        if g in exact_done:
            continue
        c = parsed.get(g.symbol)
        if c is not None and not run.taken(g, rel, g.symbol):  # 3. same definition, really changed
            if g.code is not None and (base_symbol(g.symbol) != g.symbol or _has_namesakes(g.symbol, parsed)):
                namesakes = [x for x in parsed.values() if base_symbol(x.symbol) == base_symbol(g.symbol)]
                c = _best_similar(run, g, namesakes, rel) or c
            run.claim(g, rel, c.symbol)
            _follow(run, g, rel, c, changed=True, how="similar code")
        else:
            lost.append(g)
    return lost


def _find_elsewhere(run: _Run, g: _Group, files: Sequence[str]) -> None:
    """Step 4 (and 5): the vanished definition in any changed file, by syntax, then by similarity."""
    pool: list[tuple[str, Chunk]] = []
    for rel in files:
        for c in (run.chunks(rel) or {}).values():
            if not run.taken(g, rel, c.symbol) and c.kind != "module":
                pool.append((rel, c))
    # by similarity only a definition under its old name, or under a name new to its file (a rename): one that
    # was already there is another definition, however alike (short functions look alike)
    similar_pool = [
        (rel, c)
        for rel, c in pool
        if called_name(c.symbol) == called_name(g.symbol) or (rel in run.known and c.symbol not in run.known[rel])
    ]
    if g.syntax is not None or g.content_hash is not None:  # memories from before m007: the same bytes
        exact = [(rel, c) for rel, c in pool if c.syntax_hash == g.syntax or c.content_hash == g.content_hash]
        named = [(rel, c) for rel, c in exact if called_name(c.symbol) == called_name(g.symbol)]
        pick = named if len(named) == 1 else exact if len(exact) == 1 else []
        if pick:
            rel, c = pick[0]
            run.claim(g, rel, c.symbol)
            _follow(run, g, rel, c, changed=False, how=SAME_CODE)
            return
    if g.code is not None:
        best = _most_similar(g, similar_pool)
        if best is not None:
            (rel, c), score = best
            run.claim(g, rel, c.symbol)
            _follow(run, g, rel, c, changed=c.syntax_hash != g.syntax, how="similar code", similarity=score)
            return
    for m in g.memories:
        if m.status != MemoryStatus.ORPHANED:  # a suggestion it already left says so once
            _orphan(
                run, m, f"{g.symbol} is no longer in {g.file}", reason="symbol vanished", symbol=g.symbol, file=g.file
            )


def _pick_exact(symbol: str, same: list[Chunk]) -> Chunk | None:
    for want in (lambda c: c.symbol == symbol, lambda c: base_symbol(c.symbol) == base_symbol(symbol)):
        hits = [c for c in same if want(c)]
        if hits:
            return hits[0]
    return same[0] if len(same) == 1 else None


def _best_similar(run: _Run, g: _Group, chunks: list[Chunk], rel: str) -> Chunk | None:
    best = _most_similar(g, [(rel, c) for c in chunks if not run.taken(g, rel, c.symbol)], margin=0.0, floor=0.0)
    return best[0][1] if best is not None else None


def _most_similar(
    g: _Group, pool: Sequence[tuple[str, Chunk]], *, margin: float = SIMILARITY_MARGIN, floor: float = SIMILARITY_MIN
) -> tuple[tuple[str, Chunk], float] | None:
    """The candidate most like the group's code (tokens; its old name read as the candidate's)."""
    assert g.code is not None
    old_tokens = TOKEN_RE.findall(g.code)
    scored: list[tuple[float, int]] = []
    for i, (_, c) in enumerate(pool):
        new_tokens = TOKEN_RE.findall(c.text)
        if not old_tokens or not new_tokens:
            continue
        ratio = len(new_tokens) / len(old_tokens)
        if ratio > LENGTH_RATIO_MAX or ratio < 1 / LENGTH_RATIO_MAX:
            continue
        old_name, new_name = called_name(g.symbol), called_name(c.symbol)
        aligned = [new_name if t == old_name else t for t in old_tokens]
        scored.append((difflib.SequenceMatcher(None, aligned, new_tokens, autojunk=False).ratio(), i))
    if not scored:
        return None
    scored.sort(reverse=True)
    top, i = scored[0]
    runner_up = scored[1][0] if len(scored) > 1 else 0.0
    if top < floor or top - runner_up < margin:
        return None
    return pool[i], top


def _follow(
    run: _Run, g: _Group, rel: str, c: Chunk, *, changed: bool, how: str, similarity: float | None = None
) -> None:
    """Move the group's memories onto chunk ``c`` of ``rel``; ``changed``: its syntax differs (stale)."""
    moved = (rel, c.symbol) != (g.file, g.symbol)
    diff = code_diff(g.code, c.text) if changed and g.code is not None else None
    for m in g.memories:
        if moved:
            ev = event(
                m.id, REANCHORED, run.at, how=how, from_file=g.file, from_symbol=g.symbol, to_file=rel,
                to_symbol=c.symbol, similarity=round(similarity, 3) if similarity is not None else None,
            )  # fmt: skip
            a = m.anchor
            keep_hash = a.content_hash if changed and a is not None else c.content_hash
            run.store.update_anchor(
                m.id, Anchor(rel, c.symbol, c.start_line, c.end_line, keep_hash), at=run.at, event=ev
            )
            run.report.reanchored.append(m.id)
        _settle(
            run, m, rel, c.symbol, c.start_line, c.end_line, c.content_hash, changed=changed, diff=diff, moved=moved
        )
    if not changed:
        _snapshot(run, g.memories, c)


def _settle(
    run: _Run,
    m: Memory,
    rel: str,
    symbol: str,
    start: int,
    end: int,
    content_hash: str,
    *,
    changed: bool,
    diff: str | None = None,
    moved: bool = False,
) -> None:
    """Status and span of one memory whose definition was found (``changed``: its syntax changed)."""
    a = m.anchor
    assert a is not None
    store, at = run.store, run.at
    if m.status == MemoryStatus.SUGGESTED:
        _settle_suggestion(run, m, rel, symbol, changed=changed, diff=diff)
    elif m.status == MemoryStatus.ORPHANED:
        status = MemoryStatus.STALE if changed else MemoryStatus.ACTIVE
        store.update_status(
            m.id, status, at=at, reason="its code changed while it was gone" if changed else None,
            event=event(m.id, "revived", at, symbol=symbol, file=rel, diff=diff),
        )  # fmt: skip
        run.report.revived.append(m.id)
    elif changed and m.status in (MemoryStatus.ACTIVE, MemoryStatus.CONTESTED):  # contested or not, it may be moot
        store.update_status(
            m.id, MemoryStatus.STALE, at=at, reason=STALE_REASON.format(symbol=symbol),
            event=event(
                m.id, "stale", at, symbol=symbol, old_hash=a.content_hash, new_hash=content_hash, diff=diff,
                previous_status=m.status,
            ),
        )  # fmt: skip
        run.report.stale.append(m.id)
    elif not changed and m.status == MemoryStatus.STALE and not stale_by_hand(m):
        # its code is again what it was written against (a branch switched back, a revert, a stash): current again
        status = _before_stale(store, m.id)
        store.update_status(
            m.id, status, at=at, event=event(m.id, "revived", at, symbol=symbol, file=rel, status=status, how=SAME_CODE)
        )
        run.report.revived.append(m.id)
    if not changed and not moved and a.content_hash is not None and a.content_hash != content_hash:
        # only formatting, comments or docstrings: still what the memory describes
        store.update_anchor(
            m.id, Anchor(rel, symbol, start, end, content_hash), at=at,
            event=event(m.id, REFORMATTED, at, symbol=symbol),
        )  # fmt: skip
        run.report.reformatted.append(m.id)
    elif not moved and (start, end) != (a.start_line, a.end_line):
        store.move_spans([(m.id, start, end)])
        if m.id not in run.report.reanchored:
            run.report.reanchored.append(m.id)


def _before_stale(store: MemoryStore, memory_id: str) -> MemoryStatus:
    """The status a memory its code made stale goes back to: contested when it was and its pair still is."""
    for ev in reversed(store.events(memory_id)):
        if ev.kind == "stale":
            if ev.detail.get("previous_status") == MemoryStatus.CONTESTED and any(
                r.kind == Resolution.CONTESTED for r in store.relations([memory_id])
            ):
                return MemoryStatus.CONTESTED
            break
    return MemoryStatus.ACTIVE


def _settle_suggestion(
    run: _Run, m: Memory, rel: str, symbol: str | None, *, changed: bool, diff: str | None = None
) -> None:
    """A suggestion whose definition was found: it says whether its code is still the code it was written on (it
    stays a suggestion: only a person makes it a memory). The reason is written once, the event with it."""
    reason = SUGGESTION_CHANGED_REASON.format(symbol=symbol) if changed else None
    if m.status_reason == reason:
        return
    kind = SUGGESTION_CHANGED if changed else SUGGESTION_FOUND
    run.store.update_status(
        m.id, MemoryStatus.SUGGESTED, at=run.at, reason=reason,
        event=event(m.id, kind, run.at, symbol=symbol, file=rel, diff=diff),
    )  # fmt: skip


def _suggestion_lost(run: _Run, m: Memory, why: str, **detail: Any) -> None:
    """A suggestion whose definition is gone: it keeps its symbol (found again, it follows) but not its lines, which
    would show its hint, and the warning it becomes once accepted, on code it is not about."""
    a = m.anchor
    if a is None or (m.status_reason == why and a.start_line is None):
        return
    run.store.update_anchor(
        m.id, Anchor(a.file, a.symbol, None, None, a.content_hash), at=run.at,
        event=event(m.id, SUGGESTION_LOST, run.at, why=why, start_line=a.start_line, end_line=a.end_line, **detail),
    )  # fmt: skip
    run.store.update_status(m.id, MemoryStatus.SUGGESTED, at=run.at, reason=why)


def _orphan(run: _Run, m: Memory, why: str, **detail: Any) -> None:
    if m.status == MemoryStatus.SUGGESTED:
        _suggestion_lost(run, m, why, **detail)
        return
    run.store.update_status(
        m.id, MemoryStatus.ORPHANED, at=run.at, reason=why, event=event(m.id, "orphaned", run.at, **detail)
    )
    run.report.orphaned.append(m.id)


def _snapshot(run: _Run, memories: Iterable[Memory], c: Chunk) -> None:
    if c.syntax_hash and len(c.text) <= CODE_MAX_CHARS:
        run.snapshots += [(m.id, c.syntax_hash, c.text) for m in memories]


def code_diff(old: str | None, new: str, *, max_lines: int = DIFF_MAX_LINES) -> str | None:
    """A unified diff of the anchored code then and now, cut at ``max_lines`` (``… N more lines``)."""
    if old is None:
        return None
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), "then", "now", n=1, lineterm=""))
    if not lines:
        return None
    if len(lines) > max_lines:
        lines = [*lines[:max_lines], f"… {len(lines) - max_lines} more lines"]
    return "\n".join(lines)


def _has_namesakes(symbol: str, parsed: dict[str, Chunk]) -> bool:
    base = base_symbol(symbol)
    return sum(1 for s in parsed if base_symbol(s) == base) > 1
