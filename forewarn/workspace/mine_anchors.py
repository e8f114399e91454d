"""Where a commit's lesson belongs: the one symbol it is about, at the commit, followed to HEAD.

A commit's hunks are mapped to the symbols they touched in the file as it was at that commit (its blob,
parsed with :func:`parse_source`), each weighted by the lines it changed. The lesson goes to the symbol
its message names (``Session.send`` in "Fix send when …"), else to the most changed one; then it follows
renames seen in the log to HEAD: the symbol if it still exists, else its file (one of several same-named
definitions, ``parse#29``, as the same definition: :mod:`mine_identity`). A string literal's re-worded text weighs
less than logic changed, and a helper the commit wrote whole is no candidate beside code it changed. When several
definitions local to one function (an anonymous class's methods, closures) tie for most changed, naming none, the
lesson goes to that function: file order is no reason to pick one of them. A commit spread thin over
many files, naming none of them, is about no code in particular (:func:`place` returns no anchor).
Only files the commit's own diff touched are ever candidates: a message cannot name its anchor elsewhere.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

from tree_sitter import Node

from forewarn.indexing.languages import LanguageSpec, language_for_path
from forewarn.indexing.parse import parse_file
from forewarn.indexing.prose import last_line, prose_nodes
from forewarn.indexing.records import Chunk
from forewarn.indexing.words import LOCAL_SCOPES
from forewarn.memory.suggestions import ANCHOR_FILE, ANCHOR_SYMBOL, ANCHOR_WORKSPACE
from forewarn.workspace import mine_code, mine_identity, mine_kept
from forewarn.workspace.history import BlobReader, CommitRecord, Hunk
from forewarn.workspace.mine_head import HeadIndex
from forewarn.workspace.mine_identity import Namesake
from forewarn.workspace.mine_lessons import BULLET
from forewarn.workspace.mine_rules import CHANGELOG_PATH, DOCS_PATH, in_test_module, is_product_path, symbol_parts

if TYPE_CHECKING:
    pass

MAX_PARSE_BYTES = 1 << 20  # a blob larger than this is generated or data: anchored to its file only
PARSE_CACHE = 64  # parsed blobs kept (a hot file is parsed once per version that a lesson touched)
MODULE_SYMBOL = "<module>"  # top-level code ("<module>", "<module>#2" …): anchored to its file
# a fix touching at most this many symbols counts toward each one's hot spot and track record; a wider one
# counts toward its chosen symbol only (it fixed one thing and tidied the rest)
MAX_FIXED_SYMBOLS = 3
# a change spread over more files than this, naming none of its symbols, whose most changed symbol holds less than
# DOMINANT_SHARE of the changed lines, is about no code in particular
DIFFUSE_FILES = 4
DOMINANT_SHARE = 0.4
# … and a change to more symbols than this (logic changed in each), naming none, none holding DOMINANT_SHARE, is a
# rewrite of their class or module: a lesson on its most changed method would sit on a sibling of what it is about
DIFFUSE_SYMBOLS = 4
# a syntax node holding a string literal's text (Rust's raw_string_literal, TS's template_string, Java's text_block,
# Ruby's heredoc_body), and one holding code inside it (``${…}``, ``#{…}``, ``{…}`` of an f-string)
STRING_LITERAL = re.compile(r"string|heredoc|text_block")
SUBSTITUTION = re.compile(r"substitution|interpolation")
PLAIN_WORD = re.compile(r"^[A-Za-z][a-z]+$")  # "send", "Flags": an English word as often as a name
MIN_NAME_CHARS = 3  # "x", "id": too short to count as the message naming a symbol
# ``field_transformer``, ``maxRetries``: a parameter's name, no English word, nor a type's (``OptionException``)
CODE_WORD = re.compile(r"^[a-z_]\w*([A-Za-z0-9]_[A-Za-z0-9]|[a-z][A-Z])")
# ``Iterator#remove()``, ``Rack::Request#scheme``: the Javadoc/RDoc way to name a type's method. A type of this code
# (a class, struct or module in the path of a symbol the commit touched; Go's ``Context#RealIP`` for the struct
# ``context``) names its member wherever the commit changed it (jsoup 2b573de's ``Element#selectXpath`` is
# ``NodeUtils.selectXpath``'s work); another type (the JDK's ``Iterator``; a method ``iterator`` is no type) names none
# of this code's (jsoup 91b630f's "outside of Iterator#remove()" named the one method its check was not in)
OWNED_MEMBER = re.compile(r"\b([A-Za-z_]\w*)#([A-Za-z_]\w*)")
# a standing definition changed less than this share of a gone one's logic is a bystander of the fix, no anchor:
# the lesson was about the code changed most, and where that went is not known (cobra 9b6c926: 1 line against 2)
BYSTANDER_SHARE = 1.0
ALSO_LISTED = 3  # other symbols the commit touched, kept in the provenance for the reviewer
# a message with this many bullet items or more is a squash of several commits: the symbols its later items name
# ("* Make DisplayName() public", "* use PrintErrf() instead") were touched in passing, not what its subject fixed
SQUASH_ITEMS = 3
# a body paragraph that opens as a side note ("Additionally, Attribute.evolve() now …", "Also, …", "As a bonus …",
# "Unrelated: …") tells of a change made on the way: the symbols it names are not what the subject and the first
# paragraph are about (attrs 862696a moved alias resolution in ``_transform_attrs``; its side paragraph named
# ``Attribute.evolve``), so they name no anchor
SIDE_PARAGRAPH = re.compile(
    r"^\s*((we |i )?also|additionally|in addition|as a bonus|unrelated(ly)?|separately|on a side note|side note"
    r"|while (i was|i'm|i am|at it)|(this|the) (commit|change|patch|pr|pull request) (also|additionally))\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Touch:
    """What a commit's hunks did to one symbol: lines changed, how many of them logic, the telling lines added."""

    changed: int
    logic: int
    sample: tuple[str, ...] = ()  # mine_code.sample of the lines it added: looked for at HEAD later
    removed: tuple[str, ...] = ()  # mine_code.sample of the lines it removed: what an earlier change had left
    created: bool = False  # the commit wrote the whole symbol (a helper it added), changed no code that was there
    behaviour: int = -1  # logic lines changed, no declaration nor log (mine_code.Behaviour.lines); -1: not counted
    logs: bool = False  # every logic line changed was a log statement (mine_code.Behaviour.logging_only)
    wording: int = 0  # of the logic lines, those inside a string literal spanning lines: its text, no logic
    cut: bool = False  # its lines only lost a clause of their condition (mine_code.Reach.cut)
    decides: bool = False  # it gained a line that compares or branches (mine_code.Reach.decides)
    shown: tuple[str, ...] = ()  # the lines it added that say what it did, as written (mine_kept.candidates)


class Parsed(NamedTuple):
    """One blob's symbols, the lines of its comments and docstrings, each symbol's depth (:func:`columns_of`), its
    syntax tree (for the lines inside string literals, :func:`string_lines`) and its text's lines (where each of
    same-named definitions is written, :meth:`SymbolFinder.namesakes`)."""

    chunks: list[Chunk]
    docs: frozenset[int]
    columns: dict[str, int]
    root: Node | None = None
    lines: tuple[str, ...] = ()


def columns_of(chunks: list[Chunk], data: bytes) -> dict[str, int]:
    """The indentation of each symbol's first line (``module.exports.parse = uri => {`` starts mid-line: the line's
    indentation counts, not the column where the function starts)."""
    out: dict[str, int] = {}
    for c in chunks:
        start = data.rfind(b"\n", 0, c.start_byte) + 1
        line = data[start : c.start_byte]
        out[c.symbol] = len(line) - len(line.lstrip())
    return out


class SymbolFinder:
    """Symbols a set of new-side hunks touched in a blob (parsed once, cached by blob id)."""

    def __init__(self, blobs: BlobReader) -> None:
        self._blobs = blobs
        self._cache: OrderedDict[str, Parsed | None] = OrderedDict()

    def _parsed(self, path: str, blob: str) -> Parsed | None:
        if blob in self._cache:
            self._cache.move_to_end(blob)
            return self._cache[blob]
        parsed: Parsed | None = None
        if language_for_path(path) is not None and blob:
            data = self._blobs.read(blob, max_bytes=MAX_PARSE_BYTES)
            spec = language_for_path(path, data) if data is not None else None  # a .h of C++ is C++
            if data is not None and spec is not None:
                found = parse_file(data, spec)  # chunks, and the tree the prose is found in: one parse per blob
                docs = doc_lines(found.root, spec) if found.root is not None else frozenset()
                lines = tuple(data.decode("utf-8", "replace").splitlines())
                parsed = Parsed(found.chunks, docs, columns_of(found.chunks, data), found.root, lines)
        self._cache[blob] = parsed
        if len(self._cache) > PARSE_CACHE:
            self._cache.popitem(last=False)
        return parsed

    def chunks(self, path: str, blob: str) -> list[Chunk] | None:
        parsed = self._parsed(path, blob)
        return parsed.chunks if parsed else None

    def touched(self, path: str, blob: str, hunks: Iterable[Hunk]) -> dict[str, Touch]:
        """Innermost named symbols the hunks touched, in file order, with what the hunks did to each;
        {} when only module code was touched."""
        parsed = self._parsed(path, blob)
        if not parsed or not parsed.chunks:
            return {}
        hunks = list(hunks)
        text = string_lines(parsed.root, hunks) if parsed.root is not None else frozenset()
        return touched_symbols(parsed.chunks, hunks, path, parsed.docs, parsed.columns, text)

    def namesakes(self, path: str, blob: str, symbol: str) -> list[Namesake]:
        """The definitions of ``symbol``'s name in ``blob``, with where each is written (:mod:`mine_identity`)."""
        parsed = self._parsed(path, blob)  # the blob read and parsed once, as for what its hunks touched
        return mine_identity.namesakes(parsed.chunks, symbol, parsed.lines, path) if parsed else []

    def sample_of(self, path: str, blob: str, symbol: str) -> tuple[str, ...]:
        """The telling lines of ``symbol`` as it was in ``blob`` (what to look for at HEAD when a change added none)."""
        for c in self.chunks(path, blob) or ():
            if c.symbol == symbol:
                return mine_code.sample(c.text.splitlines(), path)
        return ()


def doc_lines(root: Node, spec: LanguageSpec) -> frozenset[int]:
    """Lines (1-based) inside comments and docstrings (a statement that is only a string): prose, not logic. A
    comment after code on its line leaves that line code, and so does the line after one that ends with its
    newline (Rust's ``///`` ends at column 0 of the ``fn`` below it)."""
    lines: set[int] = set()
    for nodes in prose_nodes(root, spec).values():
        for node in nodes:
            before = node.prev_sibling
            shares_line = (
                before is not None and before.end_point.row == node.start_point.row and before.end_point.column > 0
            )
            lines.update(range(node.start_point.row + 1 + shares_line, last_line(node) + 1))
    return frozenset(lines)


def string_lines(root: Node, hunks: Iterable[Hunk]) -> frozenset[int]:
    """The lines (1-based) the hunks added that are text inside a string literal begun on an earlier line (a flag's
    roff help): none of a template with substitutions (``${…}``), which writes code (zod's object JIT).

    The tree is walked once from the top, into the nodes that span an added line only: asking each added line's node
    for its parents made tree-sitter scan their siblings again and again, and a regenerated table of ten thousand
    entries (cmark's ``html_unescape.h``) took minutes for one commit."""
    starts: dict[int, int] = {}  # row (0-based) → the column its text starts at
    for hunk in hunks:
        for i, line in enumerate(hunk.added):
            starts[hunk.start + i - 1] = len(line) - len(line.lstrip())
    rows = sorted(starts)
    out: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]  # a node, and whether its parent is a string literal
    while stack:
        node, in_string = stack.pop()
        first, last = node.start_point.row, node.end_point.row
        k = bisect_left(rows, first)
        if k == len(rows) or rows[k] > last:
            continue  # no added line in it
        if SUBSTITUTION.search(node.type):
            stack.extend((c, False) for c in node.children)  # code: a string inside it starts afresh
            continue
        is_string = STRING_LITERAL.search(node.type) is not None
        if is_string and not in_string and not any(SUBSTITUTION.search(c.type) for c in node.children):
            for row in rows[k : bisect_right(rows, last)]:
                if first < row and (row < last or starts[row] < node.end_point.column):
                    out.add(row + 1)
            continue
        stack.extend((c, is_string) for c in node.children)  # a template's parts: inside a string
    return frozenset(out)


def _code_only(hunk: Hunk, docs: frozenset[int]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The hunk's removed and added lines without those in comments or docstrings (a hunk whose added lines are all
    prose is a documentation edit: its removed lines go too)."""
    added = tuple(line for i, line in enumerate(hunk.added) if hunk.start + i not in docs)
    if hunk.added and not added:
        return (), ()
    return hunk.removed, added


def _home(chunks: list[Chunk], hunk: Hunk, columns: dict[str, int]) -> Chunk | None:
    """The innermost symbol a hunk changed. A pure deletion sits between the new side's lines ``start`` and
    ``start + 1``: it changed a symbol holding both, or the end of one whose header the deleted code is indented
    under. Code deleted after a symbol's last line at that symbol's own depth (a whole function, class or setting
    removed) was none of it: charging it to the neighbour put a revert's lesson on the setting above the one it
    removed."""
    deletion = bool(hunk.removed) and not hunk.added
    depth = _indent(hunk.removed) if deletion else None
    best: Chunk | None = None
    for c in chunks:
        if c.symbol.startswith(MODULE_SYMBOL) or c.end_line < hunk.start or c.start_line > hunk.end:
            continue
        if deletion and c.end_line == hunk.end and depth is not None and depth <= columns.get(c.symbol, 0):
            continue  # deleted after its last line, at its own depth: the next definition, not its tail
        if best is None or (c.end_line - c.start_line) < (best.end_line - best.start_line):
            best = c
    return best


def _header_lines(chunk: Chunk, hunk: Hunk, gone: tuple[str, ...], new: tuple[str, ...]) -> set[str]:
    """The lines of a constructor's parameter list the hunk changed: those it added there, and those it removed up to
    the one closing the list it replaced. A constructor stores what its parameters declare, as its fields do: a
    parameter it gained to set a field is no behaviour (gson's ``TreeTypeAdapter(…, boolean nullSafe)``)."""
    last = mine_code.header_end(chunk.text.splitlines())
    if last is None or not chunk.start_line <= hunk.start <= chunk.start_line + last:
        return set()
    out = {line for i, line in enumerate(new) if hunk.start + i <= chunk.start_line + last}
    closed = mine_code.header_end(gone)
    return out | set(gone[: closed + 1] if closed is not None else ())


def _indent(lines: Iterable[str]) -> int | None:
    """The indentation of the first line with code (None when every line is blank)."""
    for line in lines:
        if line.strip():
            return len(line) - len(line.lstrip())
    return None


def touched_symbols(
    chunks: list[Chunk],
    hunks: Iterable[Hunk],
    path: str,
    docs: frozenset[int] = frozenset(),
    columns: dict[str, int] | None = None,
    text: frozenset[int] = frozenset(),
) -> dict[str, Touch]:
    """What the hunks did to each symbol they changed (see :meth:`SymbolFinder.touched`); ``text`` holds the lines
    inside string literals (:func:`string_lines`): a hunk that added only those re-worded text, no logic."""
    changed: dict[str, int] = {}
    removed: dict[str, list[str]] = {}
    added: dict[str, list[str]] = {}
    worded: dict[str, tuple[list[str], list[str]]] = {}
    prose = text | docs
    created: set[str] = set()
    header: dict[str, set[str]] = {}
    columns = columns if columns is not None else {}
    for hunk in hunks:
        best = _home(chunks, hunk, columns)
        if best is not None:
            gone, new = _code_only(hunk, docs)
            if mine_code.is_constructor(best.symbol, best.kind):
                header.setdefault(best.symbol, set()).update(_header_lines(best, hunk, gone, new))
            changed[best.symbol] = changed.get(best.symbol, 0) + hunk.changed
            if (
                hunk.start <= best.start_line
                and best.end_line <= hunk.end
                and hunk.changed == hunk.end - hunk.start + 1
            ):
                created.add(best.symbol)  # one pure addition (nothing removed) holds the whole symbol
            removed.setdefault(best.symbol, []).extend(gone)
            added.setdefault(best.symbol, []).extend(new)
            if new and all(hunk.start + i in prose for i, line in enumerate(hunk.added) if line.strip()):
                worded.setdefault(best.symbol, ([], []))[0].extend(gone)
                worded[best.symbol][1].extend(new)
    touches: dict[str, Touch] = {}
    for symbol, lines in changed.items():
        did = mine_code.behaviour(removed[symbol], added[symbol], path, header.get(symbol, frozenset()))
        touches[symbol] = Touch(
            lines,
            did.logic,
            mine_code.sample(added[symbol], path),
            mine_code.sample(removed[symbol], path),
            symbol in created,
            did.lines,
            did.logging_only,
            mine_code.logic_lines(*worded[symbol], path) if symbol in worded else 0,
            *mine_code.reach(removed[symbol], added[symbol], path),
            shown=mine_kept.candidates(removed[symbol], added[symbol], path),
        )
    return touches


@dataclass(slots=True)
class Anchored:
    file: str | None
    symbol: str | None
    anchor: str  # symbol | file | workspace: how precisely it is placed at HEAD
    then: str  # "path::symbol" at the commit
    typing: bool = False  # the symbol at HEAD only declares types (a stub, a TypedDict): no lesson belongs there
    logic: int = 0  # logic lines the commit changed in it
    sample: tuple[str, ...] = ()  # telling lines the commit left in it (added, else the symbol's own), for HEAD
    removed: tuple[str, ...] = ()  # telling lines the commit took out of it
    behaviour: int = -1  # of its logic lines, those that are no declaration (-1: not counted)
    logs: bool = False  # its logic lines were all log statements: it declares nothing, nor does it behave
    created: bool = False  # the commit wrote the whole symbol: a fix there is its creation, not a fix of it
    wording: int = 0  # of its logic lines, those only the text of a string literal spanning lines (help text)
    cut: bool = False  # its lines only lost a clause of their condition: it widened a rule, wrote none
    decides: bool = False  # it gained a line that compares or branches
    shown: tuple[str, ...] = ()  # the lines the commit added that say what it did, as written (mine_kept)

    @property
    def declares_only(self) -> bool:
        """The commit changed logic lines here, and every one only declares state (fields, annotations) or logs."""
        return self.logic > 0 and self.behaviour == 0

    @property
    def key(self) -> tuple[str, str] | None:
        return (self.file, self.symbol) if self.file and self.symbol else None


def follow(
    path: str,
    symbol: str | None,
    renames: dict[str, str],
    head: HeadIndex,
    namesakes: Callable[[str], list[Namesake]] | None = None,
) -> Anchored:
    """A (path, symbol) at some commit, followed to HEAD: symbol if it still exists (an overload stub's
    implementation), else file, else workspace. ``namesakes`` gives the definitions of a name at the commit: one
    of several same-named definitions is followed as the same definition (:mod:`mine_identity`), and one that
    cannot be told apart is placed on its file, never on a namesake by its position."""
    now = renames.get(path, path)
    then = f"{path}::{symbol}" if symbol else path
    if (
        symbol
        and namesakes is not None
        and (mine_identity.needs_telling_apart(symbol) or head.defines_twice(now, symbol))
    ):
        symbol = mine_identity.followed_symbol(symbol, namesakes, partial(head.namesakes, now))
    at_head, typing = head.resolve(now, symbol) if symbol else (None, False)
    if at_head:
        return Anchored(now, at_head, ANCHOR_SYMBOL, then, typing=typing)
    if head.has_file(now):
        return Anchored(now, None, ANCHOR_FILE, then)
    return Anchored(None, None, ANCHOR_WORKSPACE, then)


def record_renames(commit: CommitRecord, renames: dict[str, str]) -> None:
    """Commits arrive newest first: a rename old→new maps old to wherever new is at HEAD."""
    for f in commit.files:
        if f.renamed:
            renames[f.old_path] = renames.get(f.path, f.path)


@dataclass(slots=True)
class Placement:
    """Where one commit's lesson goes (``anchor``), and the symbols at HEAD its change fixed (``fixed``)."""

    anchor: Anchored | None  # None: about no code in particular (diffuse), or its code is gone
    named: bool = False  # the message names the anchored symbol
    fixed: list[Anchored] = field(default_factory=list)  # symbol anchors at HEAD, for hot spots and track records
    also: list[str] = field(default_factory=list)  # other touched symbols at HEAD ("file::symbol")
    gone: bool = False  # the code it was about exists no more at HEAD
    diffuse: bool = False  # it rewrote many symbols of its files, naming none, none dominant: about no one of them
    in_passing: bool = False  # a squashed message names its symbols only in side items, none in its lead
    siblings: int = 0  # other symbols whose logic it changed (helpers it added left out)
    touched: list[str] = field(default_factory=list)  # every symbol it touched, as named at the commit


def names_in(message: str) -> set[str]:
    """Identifier-like words of a message (``Session.send`` gives ``Session.send``, ``Session`` and ``send``).

    A plain word ("send", "Flags") names a symbol from the subject, or from the body only when written as code
    (``send()``, a backticked `send`, ``.send``): body prose ("Flags:" above a pasted help screen) names nothing.
    ``Owner#member`` gives ``Owner#member`` and ``Owner``, not ``member`` (:data:`OWNED_MEMBER`)."""
    owned = {f"{o}#{m}" for o, m in OWNED_MEMBER.findall(message) if len(m) >= MIN_NAME_CHARS}
    message = OWNED_MEMBER.sub(lambda m: m.group(1), message)
    subject = message.split("\n", 1)[0]
    words = set(re.findall(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*", message))
    out = set(words)
    for w in words:
        out.update(w.split("."))
    as_code = set(re.findall(r"(?<=[`.])[A-Za-z_]\w*", message)) | set(
        re.findall(r"[A-Za-z_]\w*(?=\(|`|\.[A-Za-z_])", message)
    )
    in_subject = set(re.findall(r"[A-Za-z_]\w*", subject))
    kept = {w for w in out if len(w) >= MIN_NAME_CHARS and (not PLAIN_WORD.match(w) or w in in_subject or w in as_code)}
    return kept | owned


def about_other_symbol(text: str, anchor: str, touched: Iterable[str]) -> bool:
    """``text`` names in code (``_copy_cookie_jar``, ``__getitem__``, not a plain word) another symbol the commit
    touched, and not the anchor: it explains that symbol, not the one it would be shown on."""
    touched = list(touched)
    names = owned_members(names_in(text), {part for s in touched for part in symbol_parts(s)})
    if _named(anchor, names):
        return False
    said = {w for w in names if not PLAIN_WORD.match(w)}
    return any(s != anchor and _named(s, said) for s in touched)


def owned_members(names: set[str], owners: set[str]) -> set[str]:
    """``names`` with the member of each ``Owner#member`` whose owner is one of ``owners`` (this code's types, as
    written or lower-cased): a type of this code names its member as a bare name would (:data:`OWNED_MEMBER`)."""
    said = (w.split("#", 1) for w in names if "#" in w)
    return names | {member for owner, member in said if owner in owners or owner.lower() in owners}


def type_names(candidates: Iterable[tuple[str, str, str, Touch]], finder: SymbolFinder) -> set[str]:
    """The names in touched symbols' paths that are no function (classes, structs, modules), lower-cased."""
    out: set[str] = set()
    for path, blob, symbol, _ in candidates:
        kinds = {c.symbol: c.kind for c in finder.chunks(path, blob) or ()}
        parts = symbol.split(".")
        for i in range(1, len(parts) + 1):
            if kinds.get(".".join(parts[:i])) not in LOCAL_SCOPES:
                out.add(parts[i - 1].split("#", 1)[0].lower())  # ``before#2``: an overload of ``before``
    return out


def without_side_paragraphs(message: str) -> str:
    """``message`` less the prose of its body paragraphs that open as a side note (:data:`SIDE_PARAGRAPH`); the
    subject stays, and so do a side paragraph's bullet items ("Also:" above a list): a squash is still one."""
    subject, _, body = message.partition("\n")
    paragraphs = re.split(r"(\n[ \t]*\n)", body)  # the blank lines kept between the paragraphs
    return "\n".join((subject, "".join(map(_side_prose_dropped, paragraphs)))) if body else subject


def _side_prose_dropped(paragraph: str) -> str:
    """A side paragraph's lines before its first bullet dropped; any other paragraph as it is."""
    lines = paragraph.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or not SIDE_PARAGRAPH.match(lines[first]):
        return paragraph
    bullet = next((i for i, line in enumerate(lines) if i > first and BULLET.match(line)), len(lines))
    return "\n".join(lines[:first] + lines[bullet:])


def named_by_parameter(
    subject: str, candidates: Iterable[tuple[str, str, str, Touch]], finder: SymbolFinder
) -> set[str]:
    """The touched symbol whose parameters hold a name the subject writes as code ("Resolve field aliases before
    calling field_transformer": ``_transform_attrs(…, field_transformer)``): the subject is about that function.
    Only a name with an underscore or an inner capital (no plain word), in one touched symbol's parameters only, and
    not when the commit also changed a function nested in it: its closures read the parameter too (ofetch 8ea2d2b's
    "avoid calling `fetch` with `globalOptions` context" changed the calls in ``createFetch.$fetchRaw``)."""
    said = {w for w in re.findall(r"[A-Za-z_]\w*", subject) if len(w) >= MIN_NAME_CHARS and CODE_WORD.search(w)}
    if not said:
        return set()
    candidates = list(candidates)
    holders: set[tuple[str, str]] = set()
    for path, blob, symbol, _ in candidates:
        signature = next((c.signature for c in finder.chunks(path, blob) or () if c.symbol == symbol), "")
        if said & set(re.findall(r"[A-Za-z_]\w*", _parameters(signature))):
            holders.add((path, symbol))
    if len(holders) != 1:
        return set()
    [(at, holder)] = holders
    nested = any(p == at and s.startswith(f"{holder}.") for p, _, s, _ in candidates)
    return set() if nested else {holder}


def _parameters(signature: str) -> str:
    """The text of a signature's first parenthesized list (its parameters), without what follows it (a C++
    constructor's ``: OptionException(…)`` initializer, a return type); "" when it has none."""
    opened = signature.find("(")
    if opened < 0:
        return ""
    depth = 0
    for i in range(opened, len(signature)):
        depth += {"(": 1, ")": -1}.get(signature[i], 0)
        if depth == 0:
            return signature[opened + 1 : i]
    return signature[opened + 1 :]


def squash_lead(message: str) -> str | None:
    """A squashed message's lead (its subject and body up to its second bullet: what the change is about), or None
    when the message is not a list of SQUASH_ITEMS bullets or more."""
    lines = message.splitlines()
    bullets = [i for i, line in enumerate(lines) if BULLET.match(line)]
    if len(bullets) < SQUASH_ITEMS:
        return None
    return "\n".join(lines[: bullets[1]])


def _named(symbol: str, names: set[str]) -> bool:
    if symbol in names:
        return True
    parts = [p for p in symbol_parts(symbol) if not p.isdigit()]
    return bool(parts) and (parts[-1] in names or any(f"{owner}#{parts[-1]}" in names for owner in parts[:-1]))


def place(
    commit: CommitRecord, message: str, finder: SymbolFinder, renames: dict[str, str], head: HeadIndex
) -> Placement:
    """The symbol (else file) one commit's lesson is about, at HEAD; see the module's docstring."""
    code = [f for f in commit.files if f.path and not (DOCS_PATH.search(f.path) or CHANGELOG_PATH.search(f.path))]
    product = [f for f in code if is_product_path(f.path)] or code  # tests only when the commit touched no product
    message = without_side_paragraphs(message)
    every_name = names_in(message)
    lead = squash_lead(message)
    names = names_in(lead) if lead is not None else every_name
    candidates: list[tuple[str, str, str, Touch]] = []  # (path at the commit, its blob, symbol, what changed)
    for f in product:
        for symbol, touch in finder.touched(f.path, f.blob, f.hunks).items():
            candidates.append((f.path, f.blob, symbol, touch))
    # a product file's own test module ("mod tests") is tests too: the product code beside it comes first
    candidates = [c for c in candidates if not in_test_module(c[2])] or candidates
    types = type_names(candidates, finder)
    every_name, names = owned_members(every_name, types), owned_members(names, types)
    if not any(_named(s, names) for _, _, s, _ in candidates):  # a parameter the subject names, else nothing
        names |= named_by_parameter(message.split("\n", 1)[0], candidates, finder)
    total = sum(t.changed for _, _, _, t in candidates) or 1
    if candidates:
        followed: list[tuple[Anchored, str, str, int]] = []
        created: set[str] = set()
        for p, blob, s, touch in candidates:
            a = follow(p, s, renames, head, partial(finder.namesakes, p, blob))
            a.logic, a.sample, a.removed = touch.logic, touch.sample or finder.sample_of(p, blob, s), touch.removed
            a.behaviour, a.logs, a.created, a.wording = touch.behaviour, touch.logs, touch.created, touch.wording
            a.cut, a.decides, a.shown = touch.cut, touch.decides, touch.shown
            followed.append((a, p, s, touch.changed))
            if touch.created:
                created.add(f"{p}::{s}")
        logic = any(a.logic for a, _, _, _ in followed)
        behaves = any(a.behaviour > 0 for a, _, _, _ in followed)
        taken_out = {line for a, _, _, _ in followed for line in a.removed}
        written = {id(a) for a, _, _, _ in followed if a.created and not _moved(a.sample, taken_out)}
        # the names of helpers the message names that the commit wrote whole, beside code it changed that now calls
        # one: they are no candidate, and that code is what the message is about. A commit whose changed code calls
        # none of them added them as new things (cobra 5b121bc's AddTemplateFunc, a feature): they stay named
        helpers = {symbol_parts(s)[-1] for a, _, s, _ in followed if id(a) in written and _named(s, names)}
        fixed_there = any(a.logic and id(a) not in written and _calls(a.sample, helpers) for a, _, _, _ in followed)

        def named_here(a: Anchored, symbol: str) -> bool:
            """Named, and where its logic changed: not a docstring edit, nor a type that was only declared (a new
            exception class) while the code that raises or uses it changed. A helper the commit wrote whole while it
            changed code that was there is not named; that code calling it is (ripgrep f55548b's "fix
            `matches_all`" wrote eight ``matches_all`` methods for the ``GlobSet::matches_all_candidate`` it fixed
            to call them)."""
            if fixed_there:
                said = id(a) not in written and (_named(symbol, names) or _calls(a.sample, helpers))
            else:
                said = _named(symbol, names)
            return said and bool(a.logic or not logic) and not (a.declares_only and behaves)

        decided = any(a.decides for a, _, _, _ in followed)

        def rank(x: tuple[Anchored, str, str, int]) -> tuple[bool, bool, bool, bool, bool, bool, int, int, int]:
            """Named (where its logic changed), then where the logic changed most: a docstring edit is no place
            for a lesson."""
            return (
                not named_here(x[0], x[2]),
                f"{x[1]}::{x[2]}" in created,  # a helper the fix added is not the code that was wrong
                x[0].anchor != ANCHOR_SYMBOL,
                x[0].typing,
                x[0].declares_only,  # fields or annotations declared: the behaviour changed elsewhere
                x[0].cut and decided,  # it only dropped a clause of a condition; the new rule was written elsewhere
                x[0].wording - x[0].logic,  # a string literal's text re-worded weighs less than logic changed
                -x[0].logic,
                -x[3],
            )

        ranked = sorted(followed, key=rank)
        tied = [x for x in ranked if rank(x) == rank(ranked[0])]
        blobs = {p: blob for p, blob, _, _ in candidates}
        shared = (
            None
            if named_here(ranked[0][0], ranked[0][2])
            else _shared_function(tied, followed, blobs, finder, renames, head)
        )
        if shared is not None:
            ranked = [shared, *(x for x in ranked if x[0].key != shared[0].key)]
        best, best_path, best_symbol, best_changed = ranked[0]
        named = named_here(best, best_symbol)
        files = {p for _, p, _, _ in followed}
        fixed = [a for a, _, _, _ in followed if a.key] if len(followed) <= MAX_FIXED_SYMBOLS else []
        if not fixed and best.key:
            fixed = [best]
        also = [f"{a.file}::{a.symbol}" for a, _, _, _ in ranked[1 : 1 + ALSO_LISTED] if a.key]
        if lead is not None and not named and any(_named(s, every_name) for _, _, s, _ in followed):
            return Placement(None, fixed=_unique(fixed), also=also, in_passing=True)
        if not named and len(files) > DIFFUSE_FILES and best_changed / total < DOMINANT_SHARE:
            return Placement(None, fixed=[], also=also)
        # a constructor or class that only gained the field a fix plumbs through rewrote nothing of its own
        rewritten = sum(1 for a, _, _, _ in followed if a.logic and not a.declares_only)
        if not named and rewritten > DIFFUSE_SYMBOLS and best_changed / total < DOMINANT_SHARE:
            return Placement(None, fixed=_unique(fixed), also=also, diffuse=True)
        if best.anchor == ANCHOR_WORKSPACE:
            return Placement(None, fixed=fixed, gone=True)
        if not named and best.anchor == ANCHOR_SYMBOL and _bystander(best, followed):
            # the code the commit changed most is gone; what stands is what it touched in passing (cobra 9b6c926
            # fixed initHelp, gone since, and cleared one field in the test helper ResetCommands): its file
            return Placement(follow(best_path, None, renames, head), fixed=_unique(fixed), also=also)
        # the function a tie moved the lesson to, and what it holds, are one place: none of them is a sibling
        held = {(p, s) for _, p, s, _ in followed if shared is not None and _within(p, s, shared[1], shared[2])}
        siblings = sum(
            1
            for a, p, s, _ in followed
            if a.logic and a is not best and (p, s) not in held and f"{p}::{s}" not in created
        )
        touched = [s for _, _, s, _ in followed]
        return Placement(best, named=named, fixed=_unique(fixed), also=also, siblings=siblings, touched=touched)
    # module-level code only: the file most changed, when the change is not spread thin
    by_file = sorted(product, key=lambda f: -f.changed)
    if not by_file:
        return Placement(None)
    top = by_file[0]
    spread = sum(f.changed for f in by_file) or 1
    if len(by_file) > DIFFUSE_FILES and top.changed / spread < DOMINANT_SHARE:
        return Placement(None)
    anchored = follow(top.path, None, renames, head)
    if anchored.anchor == ANCHOR_WORKSPACE:
        return Placement(None, gone=True)
    return Placement(anchored)


def _bystander(best: Anchored, followed: list[tuple[Anchored, str, str, int]]) -> bool:
    """``best`` changed less than BYSTANDER_SHARE of the logic of a definition the commit changed that is gone at
    HEAD: the fix was there, and ``best`` is only what still stands."""
    gone = max((a.logic for a, _, _, _ in followed if a.anchor != ANCHOR_SYMBOL and not a.created), default=0)
    return best.logic < BYSTANDER_SHARE * gone


def _moved(sample: tuple[str, ...], taken_out: set[str]) -> bool:
    """Most of a definition's telling lines are lines the commit took out elsewhere: it moved code (cxxopts 1e175bc
    put the ``parse_value`` overloads before their callers), it did not write a helper."""
    return bool(sample) and 2 * sum(line in taken_out for line in sample) >= len(sample)


def _calls(lines: Iterable[str], names: set[str]) -> bool:
    """One of the (normalized) lines calls one of ``names`` (``if!strat.matches_all(path){``)."""
    return any(re.search(rf"(?<![\w$]){re.escape(n)}\(", line) for n in names for line in lines)


def _within(path: str, symbol: str, outer_path: str, outer: str) -> bool:
    """``symbol`` is ``outer`` or defined within it (``Attributes.iterator.next`` within ``Attributes.iterator``)."""
    return path == outer_path and (symbol == outer or symbol.startswith(f"{outer}."))


def _shared_function(
    tied: list[tuple[Anchored, str, str, int]],
    followed: list[tuple[Anchored, str, str, int]],
    blobs: dict[str, str],
    finder: SymbolFinder,
    renames: dict[str, str],
    head: HeadIndex,
) -> tuple[Anchored, str, str, int] | None:
    """The function holding every one of several definitions the commit changed alike (tied for most changed, none
    named), as a candidate covering all it changed within that function; None when they tie with no such function.

    The methods of an anonymous class, or closures, changed a line each are one piece of that function's behaviour:
    file order would put the lesson on whichever came first (jsoup 91b630f: on ``remove``, the one method its new
    check was not in). A class holding tied methods is no such place (it is as broad as its file)."""
    if len(tied) < 2 or len({p for _, p, _, _ in tied}) > 1:
        return None
    _, path, _, _ = tied[0]
    parts = [s.split(".") for _, _, s, _ in tied]
    common: list[str] = []
    for names in zip(*parts, strict=False):
        if len(set(names)) > 1:
            break
        common.append(names[0])
    if not common:
        return None
    outer = ".".join(common)  # the function itself may be one of them (a local it declared): it holds the rest
    kind = next((c.kind for c in finder.chunks(path, blobs[path]) or () if c.symbol == outer), None)
    if kind not in LOCAL_SCOPES:
        return None
    anchored = follow(path, outer, renames, head, partial(finder.namesakes, path, blobs[path]))
    if anchored.anchor != ANCHOR_SYMBOL:
        return None
    within = [(a, changed) for a, p, s, changed in followed if _within(p, s, path, outer)]
    _cover(anchored, [a for a, _ in within])
    return anchored, path, outer, sum(changed for _, changed in within)


def _cover(outer: Anchored, parts: list[Anchored]) -> None:
    """What the commit did to ``outer``: the sum of what it did to each definition within it (and to itself)."""
    outer.logic = sum(a.logic for a in parts)
    outer.wording = sum(a.wording for a in parts)
    outer.sample = tuple(dict.fromkeys(line for a in parts for line in a.sample))
    outer.removed = tuple(dict.fromkeys(line for a in parts for line in a.removed))
    counted = [a.behaviour for a in parts if a.behaviour >= 0]
    outer.behaviour = sum(counted) if counted else -1
    outer.logs = any(a.logic for a in parts) and all(a.logs for a in parts if a.logic)
    outer.cut = all(a.cut for a in parts if a.logic) and any(a.cut for a in parts)
    outer.decides = any(a.decides for a in parts)
    outer.shown = tuple(dict.fromkeys(line for a in parts for line in a.shown))


def _unique(items: list[Anchored]) -> list[Anchored]:
    seen: dict[tuple[str | None, str | None], Anchored] = {}
    for a in items:
        seen.setdefault((a.file, a.symbol), a)
    return list(seen.values())
