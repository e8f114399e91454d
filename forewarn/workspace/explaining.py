"""The error-pattern matcher: what the team knows about an error a command printed (part of ``Workspace``).

``explain_error(text)`` reads the error (``error_text.read_errors``: its type, its message normalised into a
signature, its stack frames; each of a build's several errors with its own places), maps the frames to indexed
definitions of this workspace, and ranks the ``error_pattern``, ``gotcha`` and ``dead_end`` memories found two ways,
fused like search's lists (RRF):

* on the code the error went through: memories anchored to the definitions of the frames that are this
  workspace's code (a frame printed on another machine, ``/ci/build/src/app/models.py``, is matched by its
  path's tail), innermost first, up to ``MAX_PLACES`` definitions (the places past them are counted);
* on the error's words: a search of those types for the signature (the exception type and message, with
  numbers, paths and ids left out) and the innermost workspace function's name, under search's relevance
  floor, so an error that has nothing to do with what the team wrote down gets nothing (a compiler's error: the
  memory must also name an identifier the error names, or the function it sits in).

A build's first few errors are each looked up so; each later one counts less (the first is most often the cause).

Suggestions are never returned (an agent receives only what people vetted or wrote).
"""

from __future__ import annotations

import logging
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from forewarn.memory.records import Memory
from forewarn.memory.retrieval import RRF_K
from forewarn.memory.text import STOPWORDS, split_identifier
from forewarn.memory.vocabulary import ANCHORED_STATUSES, CURRENT_STATUSES, MemoryType
from forewarn.workspace.error_text import ErrorReport, Frame, read_errors
from forewarn.workspace.searching import SearchMixin
from forewarn.workspace.symbols import base_symbol, called_name, has_namesakes, symbol_label

log = logging.getLogger(__name__)

_TOKEN_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_IDENTIFIER_RE = re.compile(r"[A-Za-z_]\w{0,200}")
# the function a linker could not find: GNU ld's "undefined reference to `ns::f(int)'", lld's "undefined symbol:
# ns::f(int)" (its arguments are not read: a name defined more than once places nothing)
UNDEFINED_NAME_RE = re.compile(
    r"^(?:undefined reference to|undefined symbol:)\s*[`'\u2018]?(?P<name>[^`'\u2019()<>\s]+)"
)

EXPLAIN_TYPES: tuple[MemoryType, ...] = (MemoryType.ERROR_PATTERN, MemoryType.GOTCHA, MemoryType.DEAD_END)
EXPLAIN_LIMIT = 5  # memories per explanation: an agent reads them before its next attempt
# distinct definitions of the trace whose memories count, innermost first: every one the error went through (a
# library's trace is its own code from the throw back to the public call: ``Gson.toJson`` is the 8th), but not a
# whole recursion's or framework's depth; the places past it are counted (``Explanation.places_left_out``)
MAX_PLACES = 12
PLACE_DECAY = 0.5  # each definition further out counts half as much: the innermost is where the error surfaced
FILE_WIDE_WEIGHT = 0.5  # a file-wide memory on a file the error went through, against one on the definition
# a memory on a function holding the frame's definition (an anonymous class's method, a closure): the error went
# through that function too, a little less directly than through the definition itself
ENCLOSING_WEIGHT = 0.75
ENCLOSING_KINDS = frozenset({"function", "method"})  # a class holding a method is too broad to say "went through"
SEARCH_K = 10  # memories the word search returns before fusion
SEARCH_LIST_WEIGHT = 1.0  # the two lists count alike: a frame hit and a word match are equal evidence
PLACE_LIST_WEIGHT = 1.0
MIN_SUFFIX_PARTS = 2  # a foreign absolute path matches a workspace file by at least its last two parts
MAX_QUERY_CHARS = 600
# of a build's several errors: how many are looked up (each costs a search), and how much each later one counts
# against the one before it (a compiler's first error is most often the cause; later ones often follow from it)
MAX_EXPLAINED_ERRORS = 3
ERROR_DECAY = 0.5
# a memory found by words alone must share this many of the error's telling words (its message, the specific parts
# of its type's name, the function it surfaced in): a lone shared word is how unrelated errors matched (bench-hook)
MIN_SHARED_WORDS = 2
MIN_WORD_CHARS = 3
# a compiler's error (``error``, tsc's ``TS2339``, rustc's ``E0425``, MSVC's ``C3861``) names the code it is about:
# quoted (``'y' undeclared``, ``cannot find value `x```), after ``undefined:`` or javac's ``symbol: class``, or
# written as code (``cw.wroteHeader``, ``*compressResponseWriter``). A memory found by words alone must name one of
# them, or the function the error sits in: "writer" and "response" shared with a ``ReadFrom`` lesson are the
# package's vocabulary, not this error
COMPILER_KIND_RE = re.compile(r"^(?:error|TS\d{1,6}|E\d{4}|C\d{4})$")
_QUOTED_NAME_RE = re.compile(r"[`'\u2018\"](?P<name>[A-Za-z_][\w.:]{0,200})[`'\u2019\"]")
_INTRODUCED_NAME_RE = re.compile(
    r"(?:\bundefined:|\bsymbol:\s+(?:class|variable|method|interface|enum|record)?)\s*(?P<name>[A-Za-z_]\w{0,200})"
)
_CODE_SHAPED_RE = re.compile(r"^(?:_*[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*|\w+_\w+)$")  # camelCase, CamelCase, a_b
# words every error says, which tell one error from another no better than "the": parts of the commonest exception
# names (TypeError: "type"), and how tracebacks and test runners talk
GENERIC_ERROR_WORDS = frozenset({
    "error", "errors", "exception", "exceptions", "warning", "warnings", "fault", "failure", "failed", "fail", "fails",
    "raise", "raised", "raises", "traceback", "recent", "call", "last", "line", "file", "most", "type", "value",
    "key", "attribute", "runtime", "name", "index", "lookup", "assertion", "assert", "import", "syntax", "base",
    "object", "none", "null", "undefined", "true", "false", "int", "str", "got", "expected", "argument", "arguments",
    "invalid", "cannot", "can't", "unable", "not", "implemented", "module", "function", "method", "class", "test",
    "tests", "self", "return", "uncaught", "panic", "thread", "main", "stack", "frame", "code", "exit", "status",
})  # fmt: skip
NOT_TELLING = GENERIC_ERROR_WORDS | STOPWORDS


@dataclass(frozen=True, slots=True)
class Place:
    """A frame mapped to this workspace: the file, the definition holding the line (None: top-level), the line."""

    file: str
    symbol: str | None
    line: int | None
    frame: Frame
    label: str | None = None  # the definition as people read it (``symbol_label``): no ``#2``, its lines if needed


@dataclass(frozen=True, slots=True)
class ExplainHit:
    """A memory that explains an error: how that error found it (the first error that did, of several)."""

    memory: Memory
    score: float
    place: Place | None  # the frame whose code carries this memory (None: found by the error's words)
    by_words: bool
    error: int = 0  # which of ``Explanation.errors`` found it


@dataclass(frozen=True, slots=True)
class ErrorPlaces:
    """One error read from the output, and the places of this workspace it names, innermost first."""

    error: ErrorReport
    places: list[Place]


@dataclass(frozen=True, slots=True)
class Explanation:
    error: ErrorReport  # the first error (of a build's several; the only one of a traceback)
    hits: list[ExplainHit]
    places: list[Place] = field(default_factory=list)  # every error's, the first error's first, each place once
    mode: str = "lexical"
    closest: str | None = None  # nothing passed the floor: the closest memory and why (search's summary)
    errors: list[ErrorPlaces] = field(default_factory=list)  # each error read, in printed order ([] when none)
    places_left_out: int = 0  # places past ``MAX_PLACES`` definitions (of any error): listed, their memories not read


class ExplainMixin(SearchMixin):
    """``explain_error`` (part of ``Workspace``)."""

    def explain_error(self, text: str, *, limit: int = EXPLAIN_LIMIT) -> Explanation:
        """The memories that explain the error in ``text`` (a traceback, test or compiler output, a log), or the
        errors: a build's first ``MAX_EXPLAINED_ERRORS`` errors are each looked up, each later one counting less."""
        reports = read_errors(text)
        if not reports[0].found:
            return Explanation(reports[0], [])
        placed = self._places_each([r.frames for r in reports])
        errors = [
            ErrorPlaces(r, p + self._missing_definition(r.message, p)) for r, p in zip(reports, placed, strict=True)
        ]
        fused: dict[str, float] = {}
        memories: dict[str, Memory] = {}
        found: dict[str, tuple[int, Place | None, bool]] = {}  # the first error that found it: how
        searches: list[tuple[str, str | None]] = []
        for n, one in enumerate(errors[:MAX_EXPLAINED_ERRORS]):
            said, searched = self._explain_one(one, memories)
            for mid, (score, place, by_words) in said.items():
                fused[mid] = fused.get(mid, 0.0) + ERROR_DECAY**n * score
                found.setdefault(mid, (n, place, by_words))
            searches += [searched] if searched is not None else []
        mode = searches[0][0] if searches else self.mode
        closest = next((summary for _, summary in searches if summary), None)
        order = sorted(fused, key=lambda mid: (-fused[mid], mid))[:limit]
        hits = [ExplainHit(memories[mid], fused[mid], found[mid][1], found[mid][2], found[mid][0]) for mid in order]
        places = _each_once([p for one in errors for p in one.places])
        left_out = sum(len(_counted(one.places)[1]) for one in errors[:MAX_EXPLAINED_ERRORS])
        return Explanation(reports[0], hits, places, mode, None if hits else closest, errors, left_out)

    def _explain_one(
        self, one: ErrorPlaces, memories: dict[str, Memory]
    ) -> tuple[dict[str, tuple[float, Place | None, bool]], tuple[str, str | None] | None]:
        """One error's memories (id: its fused score, the place whose code carries it, whether its words found
        it), the memories read put in ``memories``; and the search's mode and closest summary (None: no search)."""
        report, places = one.error, one.places
        fused: dict[str, float] = {}
        where: dict[str, Place] = {}
        by_words: set[str] = set()
        for rank, (memory, place, weight) in enumerate(self._place_memories(places)):
            if memory.id not in fused:
                fused[memory.id] = PLACE_LIST_WEIGHT * weight / (RRF_K + rank + 1)
                memories[memory.id] = memory
                where[memory.id] = place
        query = _query(report, places)
        searched: tuple[str, str | None] | None = None
        own = error_words(report, places)
        if query and own:
            result = self.search(query, SEARCH_K, types=EXPLAIN_TYPES, chunks=0, record=False)
            searched = (result.mode, result.closest_summary())
            names = compiler_names(report)
            names |= {called_name(p.symbol).lower() for p in places[:1] if p.symbol and names}  # where it is
            kept = [
                h
                for h in result.memories
                if shares_enough(own, report.kind, h.memory.text) and names_one(names, h.memory.text)
            ]
            for rank, hit in enumerate(kept):
                memories.setdefault(hit.memory.id, hit.memory)
                fused[hit.memory.id] = fused.get(hit.memory.id, 0.0) + SEARCH_LIST_WEIGHT / (RRF_K + rank + 1)
                by_words.add(hit.memory.id)
        return {mid: (score, where.get(mid), mid in by_words) for mid, score in fused.items()}, searched

    def error_places(self, frames: Sequence[Frame]) -> list[Place]:
        """The frames that are this workspace's indexed code, innermost first, each file and line once."""
        return self._places_each([frames])[0]

    def _places_each(self, traces: Sequence[Sequence[Frame]]) -> list[list[Place]]:
        """``error_places`` of each of a build's errors (the files and their spans read once for all)."""
        files = self.indexer.files()
        by_suffix: dict[str, list[str]] | None = None
        spans_read: dict[str, list[tuple[str, str, int, int]]] = {}  # a trace goes through one file many times
        each: list[list[Place]] = []
        for frames in traces:
            out: list[Place] = []
            seen: set[tuple[str, int | None]] = set()
            for frame in frames:
                rel = self._frame_file(frame.path, files)
                if rel is None:
                    if by_suffix is None:
                        by_suffix = _suffixes(files)
                    rel = _by_suffix(frame.path, by_suffix)
                if rel is None or (rel, frame.line) in seen:
                    continue
                seen.add((rel, frame.line))
                symbol = self._frame_symbol(rel, frame)
                out.append(Place(rel, symbol, frame.line, frame, self._label(rel, symbol, spans_read)))
            each.append(out)
        return each

    def _missing_definition(self, message: str, places: Sequence[Place]) -> list[Place]:
        """The definition a linker's "undefined reference to `ns::Logger::flush()'" names, when this workspace
        defines it once (a source left out of the build, a library not linked): its memories explain the error as
        much as the caller's line does. [] for another error, or a name defined nowhere or more than once."""
        m = UNDEFINED_NAME_RE.match(message)
        if m is None:
            return []
        path = [p for p in m["name"].strip().split("::") if p]
        if not path or not all(_IDENTIFIER_RE.fullmatch(p) for p in path):
            return []  # an operator, a template's arguments, a mangled name: not read
        dotted = ".".join(path)
        found = {
            (d.rel, d.symbol)
            for d in self.indexer.definitions_named(path[-1])
            if d.symbol and (base_symbol(d.symbol) == dotted or base_symbol(d.symbol).endswith("." + dotted))
        }
        if len(found) != 1:
            return []
        [(rel, symbol)] = found
        if any(p.file == rel and p.symbol == symbol for p in places):
            return []
        chunk = self.indexer.chunk_by_symbol(rel, symbol)
        line = chunk.start_line if chunk is not None else None
        return [Place(rel, symbol, line, Frame(rel, line, path[-1]), self._label(rel, symbol, {}))]

    def _label(
        self, rel: str, symbol: str | None, spans_read: dict[str, list[tuple[str, str, int, int]]]
    ) -> str | None:
        """``symbol_label`` of a frame's definition (``spans_read``: the files' spans read so far in this trace)."""
        if symbol is None:
            return None
        if rel not in spans_read:
            spans_read[rel] = self.indexer.chunk_spans(rel)
        spans = spans_read[rel]
        lines = next(((start, end) for s, _, start, end in spans if s == symbol), (None, None))
        return symbol_label(symbol, *lines, namesakes=has_namesakes(spans, symbol), file=rel)

    def _frame_file(self, path: str, files: dict[str, object]) -> str | None:
        text = path.removeprefix("file://").replace("\\", "/")
        try:
            rel = self.lookup_path(text)
        except Exception:  # outside the workspace, not a usable path: maybe another machine's copy
            return None
        return rel if rel in files else None

    def _frame_symbol(self, rel: str, frame: Frame) -> str | None:
        """The definition holding the frame's line; the frame's function by name when the line says otherwise
        (the file changed since the error was printed)."""
        by_line: str | None = None
        if frame.line is not None:
            chunk = self.indexer.chunk_at(rel, frame.line)
            if chunk is not None and chunk.kind != "module":
                by_line = chunk.symbol
        name = frame.function
        if not name or (by_line is not None and called_name(by_line) == name):  # ``before#2`` is a ``before`` too
            return by_line
        spans = self.indexer.chunk_spans(rel)
        if by_line is not None:  # Java's bridge method is printed on its class's line: ``DoubleAdapter.write``
            members = [s for s, _, _, _ in spans if base_symbol(s) == f"{base_symbol(by_line)}.{name}"]
            if len(members) == 1:
                return members[0]
        named = [symbol for symbol, kind, _, _ in spans if called_name(symbol) == name]
        if not named and frame.line is None:  # a name read off a Go test's (TestReadFiles: Reader.readFiles)
            named = [symbol for symbol, kind, _, _ in spans if called_name(symbol).lower() == name.lower()]
        return named[0] if len(named) == 1 else by_line

    def _place_memories(self, places: Sequence[Place]) -> list[tuple[Memory, Place, float]]:
        """Memories of the explained types on the innermost places' definitions (then their files), best first."""
        out: list[tuple[Memory, Place, float]] = []
        wanted = set(EXPLAIN_TYPES)
        counted, _ = _counted(places)
        for place, depth in counted:
            weight = PLACE_DECAY**depth
            found: list[tuple[Memory, float]] = []
            if place.symbol is not None:
                on_symbol = self.store.anchored_to_symbol(place.file, place.symbol, ANCHORED_STATUSES)
                found += [(m, weight) for m in on_symbol]
                for outer in self._enclosing_functions(place.file, place.symbol):
                    on_outer = self.store.anchored_to_symbol(place.file, outer, ANCHORED_STATUSES)
                    found += [(m, weight * ENCLOSING_WEIGHT) for m in on_outer]
            on_file = self.store.anchored_to_files([place.file], CURRENT_STATUSES)
            found += [(m, weight * FILE_WIDE_WEIGHT) for m in on_file if m.anchor and not m.anchor.symbol]
            found.sort(key=lambda p: (-p[1], -p[0].confidence, p[0].id))
            out += [(m, place, w) for m, w in found if m.type in wanted and m.status in CURRENT_STATUSES]
        out.sort(key=lambda t: -t[2])  # stable: within a weight, the order above
        return out

    def _enclosing_functions(self, rel: str, symbol: str) -> list[str]:
        """The functions and methods of ``rel`` holding ``symbol``, innermost first (``Attributes.iterator`` for
        ``Attributes.iterator.checkModified``, a method of the anonymous class it returns)."""
        parts = base_symbol(symbol).split(".")
        out: list[str] = []
        for k in range(len(parts) - 1, 0, -1):
            outer = ".".join(parts[:k])
            chunk = self.indexer.chunk_by_symbol(rel, outer)
            if chunk is not None and chunk.kind in ENCLOSING_KINDS:
                out.append(outer)
        return out


def error_words(report: ErrorReport, places: Sequence[Place]) -> set[str]:
    """The words that tell this error from others: its message's, its type name's specific parts, its function's."""
    names = [called_name(p.symbol) for p in places[:1] if p.symbol]
    text = " ".join([report.kind or "", _unplaced(report.signature), *names])
    return {w for w in _words(text) if len(w) >= MIN_WORD_CHARS and w not in NOT_TELLING and not w.isdigit()}


def shares_enough(own: set[str], kind: str | None, text: str) -> bool:
    """A memory found by words says enough of this error: ``MIN_SHARED_WORDS`` of its telling words, or, for an
    error with fewer, all of them and its type by name (``KeyError: 'address'`` and "KeyError 'address' in …")."""
    words = set(_words(text))
    shared = own & words
    if len(shared) >= MIN_SHARED_WORDS:
        return True
    if len(own) >= MIN_SHARED_WORDS or shared != own or kind is None:
        return False
    return kind.lower() in {t.lower() for t in _TOKEN_RE.findall(text)}


def compiler_names(report: ErrorReport) -> set[str]:
    """The identifiers a compiler's error names (``COMPILER_KIND_RE``), lower-cased; none for another error."""
    if report.kind is None or not COMPILER_KIND_RE.match(report.kind):
        return set()
    said = report.message
    names = {m["name"] for m in _INTRODUCED_NAME_RE.finditer(said)}
    names |= {part for m in _QUOTED_NAME_RE.finditer(said) for part in _TOKEN_RE.findall(m["name"])}
    names |= {t for t in _TOKEN_RE.findall(said) if _CODE_SHAPED_RE.match(t)}
    return {n.lower() for n in names}


def names_one(names: set[str], text: str) -> bool:
    """Whether ``text`` names one of ``names`` (true when there are none to name)."""
    return not names or bool(names & {t.lower() for t in _TOKEN_RE.findall(text)})


def _words(text: str) -> list[str]:
    """Words and identifier parts; a compound name whole too, unless all its parts say nothing (``TypeError``)."""
    out: list[str] = []
    for token in _TOKEN_RE.findall(text):
        parts = split_identifier(token)
        out += parts
        if len(parts) > 1 and any(p not in NOT_TELLING for p in parts):
            out.append(token.lower())
    return out


def _unplaced(signature: str) -> str:
    for placeholder in ("<n>", "<path>", "<id>", "<addr>"):
        signature = signature.replace(placeholder, " ")
    return signature


def _query(report: ErrorReport, places: Sequence[Place]) -> str:
    """The words to search memories with: the signature without placeholders, and the innermost function's name."""
    words = _unplaced(report.signature)
    names = [called_name(p.symbol) for p in places[:1] if p.symbol]
    return " ".join([words, *names]).strip()[:MAX_QUERY_CHARS]


def _counted(places: Sequence[Place]) -> tuple[list[tuple[Place, int]], list[Place]]:
    """The places whose memories count, each with its depth (the distinct definitions before it: a recursion, or
    three lines of one method, is one step out), at most ``MAX_PLACES`` definitions; and the places left out."""
    depths: dict[tuple[str, str | None], int] = {}
    counted: list[tuple[Place, int]] = []
    left_out: list[Place] = []
    for place in places:
        key = (place.file, place.symbol)
        if key not in depths and len(depths) < MAX_PLACES:
            depths[key] = len(depths)
        if key in depths:
            counted.append((place, depths[key]))
        else:
            left_out.append(place)
    return counted, left_out


def _each_once(places: list[Place]) -> list[Place]:
    """Each place once (two errors of a build on one line), the first time it is named."""
    seen: set[tuple[str, str | None, int | None]] = set()
    out: list[Place] = []
    for place in places:
        if (place.file, place.symbol, place.line) not in seen:
            seen.add((place.file, place.symbol, place.line))
            out.append(place)
    return out


def _suffixes(files: dict[str, object]) -> dict[str, list[str]]:
    """Each indexed file under every tail of its path (``src/app/models.py``: ``app/models.py``, ``models.py``)."""
    out: dict[str, list[str]] = {}
    for rel in files:
        parts = rel.split("/")
        for i in range(len(parts)):
            out.setdefault("/".join(parts[i:]), []).append(rel)
    return out


def _by_suffix(path: str, by_suffix: dict[str, list[str]]) -> str | None:
    """The one workspace file whose path ends like ``path`` does, by as many trailing parts as both share."""
    parts = [p for p in posixpath.normpath(path.replace("\\", "/")).split("/") if p not in ("", ".")]
    relative = not path.startswith(("/", "\\")) and ":" not in path[:3]
    for i in range(len(parts)):
        tail = parts[i:]
        if len(tail) < MIN_SUFFIX_PARTS and not relative:
            return None
        found = by_suffix.get("/".join(tail))
        if found:
            return found[0] if len(found) == 1 else None
    return None
