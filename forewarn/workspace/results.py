"""What the workspace facade returns: remember, search, file-open, hover, re-index, history and stats results."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from forewarn.memory import retrieval
from forewarn.memory.lifecycle import ReconcileReport
from forewarn.memory.records import Memory, MemoryEvent
from forewarn.memory.retrieval import ProactiveHit, ScoredMemory, SearchTimings
from forewarn.workspace import lessons
from forewarn.workspace.code_search import FileHit
from forewarn.workspace.lessons import Lesson
from forewarn.workspace.symbols import symbol_label

if TYPE_CHECKING:
    pass


log = logging.getLogger(__name__)

MAX_EXTRA_DIGITS = 4  # past two decimals (or whole percent), a miss this close to the floor reads "just under"
FLOAT_NOISE = 1e-9  # of a figure scaled to its printed digits: what binary fractions lose, not a real difference


@dataclass(frozen=True, slots=True)
class Conflict:
    """A current memory on the same place that the new one seems to contradict, and the cues that say so."""

    memory: Memory
    cues: tuple[str, ...]  # forewarn.memory.contradictions' CUE_* names
    overlap: float  # shared content words, 0..1
    cosine: float | None  # meaning, when both have vectors

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.memory.id, "cues": list(self.cues), "overlap": self.overlap, "cosine": self.cosine}


@dataclass(frozen=True, slots=True)
class RememberResult:
    memory: Memory
    merged: bool  # True: it restated an existing memory, which was reinforced instead of duplicated
    candidates: list[Memory]  # the memories of ``conflicts``: what this one may replace
    redacted: list[str]  # kinds of secrets replaced before storage
    conflicts: list[Conflict] = field(default_factory=list)  # current memories it seems to contradict
    # an unvetted writer (an agent waiting for review) said what ``memory`` already says: nothing was stored, and
    # ``memory`` (a team memory, or the suggestion waiting already) was left as it was
    known: bool = False


@dataclass(frozen=True, slots=True)
class ChunkHit:
    """A code chunk matching a search (the indexer's ``CodeChunk``) and its BM25 score (higher is better)."""

    chunk: Any
    score: float


@dataclass(frozen=True, slots=True)
class ReindexReport:
    """What a re-index changed in the code (``index``) and in memory anchors (``memories``)."""

    index: Any  # the indexer's IndexReport
    memories: ReconcileReport

    def to_dict(self) -> dict[str, Any]:
        data = dict(self.index.to_dict())
        data["memories"] = self.memories.to_dict()
        return data


@dataclass(frozen=True, slots=True)
class OpenView:
    """What a file open shows (``hits``, in an open's order) and how many candidates the limit left out."""

    hits: list[ProactiveHit]
    more: int  # ranked below the limit: shown nowhere on open, reachable by search and list
    # the file's own memories filled the limit, so its neighbours' were not looked at (``more`` leaves them out;
    # ``Workspace.used_memories`` lists them)
    neighbours_unchecked: bool = False

    def lessons(self) -> list[Lesson]:
        """The hits as lessons (one per text; the file's file-wide memories as one), in the same order."""
        return lessons.group(self.hits)


@dataclass(frozen=True, slots=True)
class SearchResult:
    memories: list[ScoredMemory]
    mode: str  # "hybrid" or "lexical"
    reason: str | None = None  # why lexical, when it is
    timings: SearchTimings = field(default_factory=SearchTimings)
    files: list[FileHit] = field(default_factory=list)  # code hits ranked as files, best first
    closest: ScoredMemory | None = None  # no memory reached the relevance floor: the one that came closest
    # whether the code listed matches the query (a memory answered, or a file reached the code floor); False: the
    # files are only the nearest code, to be labelled so (D25)
    code_matched: bool = True

    @property
    def chunks(self) -> list[ChunkHit]:
        """Each code file's best chunk, with the file's score (the flat view symbol pickers and JSON show)."""
        return [ChunkHit(f.chunks[0].chunk, f.score) for f in self.files if f.chunks]

    def closest_summary(self) -> str | None:
        """Why no memory was returned, in a line: the closest one held back by the relevance floor, its match and
        the floor (None when memories were found, or none matched at all)."""
        c = self.closest
        if c is None or self.memories:
            return None
        floor = retrieval.Floor()
        why = [] if c.cosine is None else [f"similarity {below(c.cosine, floor.answer_cosine)}"]
        words = floor.words_to_answer(c.cosine)
        if (c.coverage or 0.0) >= words and c.terms < floor.answer_terms:
            # a rare word alone does not answer
            why.append(f"only {c.terms} word of the query matched{matched_words(c)}")
        else:
            why.append(f"words matched {below(c.coverage or 0.0, words, percent=True)}{matched_words(c)}")
        text = " ".join(c.memory.text.split())
        text = text if len(text) <= CLOSEST_TEXT_CHARS else text[: CLOSEST_TEXT_CHARS - 1] + "…"
        where = f" on {c.memory.file}" if c.memory.file else ""
        return f"“{text}” ({c.memory.type}{where}; {', '.join(why)})"

    def no_memory_message(self) -> str:
        """What a search that found no memory says: the closest one the floor held back, when there is one."""
        closest = self.closest_summary()
        return f"No memory matches; closest: {closest}" if closest else "No memory matches."


def matched_words(c: ScoredMemory) -> str:
    """Which of the query's words a memory matched, said after its share: found in the code it sits on (a
    parameter's name, say) rather than in the memory, that is said too, or the share reads as the memory's own."""
    if not c.words:
        return ""
    said = " and ".join(f"“{w}”" for w in c.words)
    return f": {said} in the code it is on, not in its text" if c.words_in_code else f": {said}"


def below(value: float, floor: float, *, percent: bool = False) -> str:
    """``value < floor`` written so it reads true: 0.4499 is "0.44 < 0.45", not "0.45 < 0.45". The value is
    rounded down, and both get more digits while the floor would not print as it is or the two would print alike."""
    scale, unit, digits = (100.0, "%", 0) if percent else (1.0, "", 2)
    exact = floor * scale
    last = digits + MAX_EXTRA_DIGITS
    for d in range(digits, last + 1):
        shown = math.floor(value * scale * 10**d + FLOAT_NOISE) / 10**d  # 0.29 * 100 is 28.999…: still 29
        as_it_is = abs(round(exact, d) - exact) < FLOAT_NOISE or d == last  # a floor such as 1/3 never is
        if as_it_is and shown < round(exact, d):
            return f"{shown:.{d}f}{unit} < {exact:.{d}f}{unit}"
    return f"just under {exact:g}{unit}"  # closer to the floor than any figure shown tells


@dataclass(frozen=True, slots=True)
class SymbolInfo:
    file: str
    symbol: str
    kind: str
    start_line: int
    end_line: int
    memories: list[Memory]
    file_rank: int | None  # 1 = the most important file of the workspace by PageRank
    file_count: int
    dependents: int  # files that use this file's definitions


@dataclass(frozen=True, slots=True)
class History:
    chain: list[Memory]  # oldest first, following supersedes/superseded_by
    events: dict[str, list[MemoryEvent]]


@dataclass(frozen=True, slots=True)
class ImportantFile:
    """One of the most important files by PageRank, and how many current memories it holds (0: none)."""

    file: str
    score: float
    rank: int  # 1 = the most important file of the workspace
    memories: int


@dataclass(frozen=True, slots=True)
class Pushback:
    """A memory people turned away within the report's window: how often, the latest way, and when."""

    memory: Memory
    times: int
    last: str  # the event kind: dismissed, marked_stale, forgotten
    at: str

    @property
    def surfaced(self) -> int:
        """How often it was shown in all: turned away after being shown often is the loudest noise."""
        return self.memory.surfaced_count


@dataclass(frozen=True, slots=True)
class WorkspaceStats:
    total: int
    by_type: dict[str, int]
    by_status: dict[str, int]
    stale: int
    most_surfaced: list[Memory]  # all time
    important_without_memories: list[tuple[str, float]]  # (file, PageRank score), most important first
    mode: str
    reason: str | None
    vectors: int
    trajectory: dict[str, Any] = field(default_factory=dict)  # forewarn.memory.trajectory.Trajectory.to_dict()
    important_files: list[ImportantFile] = field(default_factory=list)  # the most important files, with or without
    shown_most: list[tuple[Memory, int]] = field(default_factory=list)  # within the trajectory's window
    dismissed_most: list[Pushback] = field(default_factory=list)  # within the trajectory's window
    stale_memories: list[tuple[Memory, str]] = field(default_factory=list)  # (memory, why), newest first
    # memories of those lists on the first of several same-named definitions of their file (``Node.before`` beside
    # ``Node.before#2``): their label says which by its lines, as the others' do
    namesakes: frozenset[str] = frozenset()

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "by_type": self.by_type,
            "by_status": self.by_status,
            "stale": self.stale,
            "most_surfaced": [
                {"id": m.id, "type": m.type, "text": m.text, "surfaced": m.surfaced_count} for m in self.most_surfaced
            ],
            "important_without_memories": [{"file": f, "score": s} for f, s in self.important_without_memories],
            "mode": self.mode,
            "reason": self.reason,
            "vectors": self.vectors,
            "trajectory": self.trajectory,
            "important_files": [
                {"file": f.file, "score": f.score, "rank": f.rank, "memories": f.memories} for f in self.important_files
            ],
            "shown_most": [
                {**memory_brief(m, self.namesakes), "shown": n, "surfaced": m.surfaced_count}
                for m, n in self.shown_most
            ],
            "dismissed_most": [
                {
                    **memory_brief(p.memory, self.namesakes),
                    "times": p.times,
                    "last": p.last,
                    "at": p.at,
                    "surfaced": p.surfaced,
                }
                for p in self.dismissed_most
            ],
            "stale_memories": [
                {**memory_brief(m, self.namesakes), "why": why, "since": m.updated_at} for m, why in self.stale_memories
            ],
        }


def memory_brief(m: Memory, namesakes: frozenset[str] = frozenset()) -> dict[str, Any]:
    """A memory as the health report's lists name it (the editors open its file; the full record is a command away);
    ``namesakes``: the ids of memories on the first of several same-named definitions (``WorkspaceStats``)."""
    a = m.anchor
    return {
        "id": m.id,
        "type": m.type,
        "text": m.text,
        "status": m.status,
        "source": m.source,
        "file": a.file if a else None,
        "symbol": a.symbol if a else None,
        # as people read it: an overload by its lines (``get (lines 90-99)``), never the index's ``get#2``
        "label": symbol_label(a.symbol, a.start_line, a.end_line, namesakes=m.id in namesakes, file=a.file)
        if a and a.symbol
        else None,
        "created_at": m.created_at,
    }


CLOSEST_TEXT_CHARS = 80  # the closest miss a search names when none reached the floor: enough to recognise it
