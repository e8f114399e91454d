"""Parse one file into chunks, tags and imports with its language's single tree-sitter query.

Pure and process-local: worker processes call :func:`parse_source` with the file's bytes; parsers and
compiled queries are cached per process by language name.

Chunk rules (what memories anchor to):

- Every captured definition is a chunk, nested ones included (a class chunk spans its methods, which
  are chunks too). Its symbol is the path of enclosing definition names, ``Class.method``; Go methods
  nest under their receiver type, Rust ``impl`` members under the implemented type, a C++ definition
  written ``ns::Class::method`` outside its class under ``ns.Class.method``. Paths hold names only,
  never lines, so they survive unrelated edits; a repeated path gets ``#2``, ``#3``… in file order.
- An oversized definition (> ``MAX_CHUNK_LINES`` lines or ``MAX_CHUNK_BYTES`` bytes) is kept whole as
  ``part=0`` — the chunk anchors address — and additionally split into ``part=1, 2, …`` contiguous
  line ranges of the same symbol for retrieval.
- Code outside every definition forms ``<module>`` chunks: one per run of top-level statements
  between definitions (comments and the language's trivia never start a run), named ``<module>``,
  ``<module>#2``… in file order. Imports at the top are thus always ``<module>``.

:func:`parse_file` is the same parse before references become :class:`Tag` records: the indexer stores
only their names (a Django cold index makes ~200k of them), so it skips building a record and finding
the enclosing symbol of each one; :func:`parse_source` is ``parse_file(...).file_parse()``.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import threading
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from itertools import accumulate

from tree_sitter import Node, Parser, QueryCursor

from forewarn.indexing import std_paths
from forewarn.indexing.c_macros import without_macros
from forewarn.indexing.languages import LanguageSpec, compiled
from forewarn.indexing.records import Chunk, FileParse, Import, Tag
from forewarn.indexing.syntax import syntax_hash

log = logging.getLogger(__name__)

MAX_CHUNK_LINES = 200  # beyond a screenful or two a chunk stops being one idea for retrieval
MAX_CHUNK_BYTES = 12_000  # ~3k tokens: fits small embedding contexts after splitting
SIGNATURE_MAX_CHARS = 200  # the repo map shows headers, not essays
HASH_DIGEST_BYTES = 16  # 128 bits: collisions are irrelevant at workspace scale, and it is fast
MODULE_SYMBOL = "<module>"
CLASS_LIKE_KINDS = frozenset({"class", "struct", "interface", "trait", "impl", "enum", "record", "union"})
# containers a file may reopen (C++ `namespace geo {…}` twice): members of every block share one path
OPEN_SCOPE_KINDS = frozenset({"namespace", "impl"})
QUALIFIER_SPLIT = re.compile(r"::|\.")
TEMPLATE_ARGS = re.compile(r"<[^<>]*>")
QUOTES = "\"'`"
OPENING_BRACKETS = ("(", "[", "<", "{")  # a removed comment leaves no space after these…
CLOSING_PUNCTUATION = (")", "]", ">", "}", ",", ";")  # …nor before these

# tree-sitter parsers and cursors are not thread-safe (the server parses on its pools and mines in the background):
# one set per thread and language, as indexing.lookup keeps; a cursor resets per run
_local = threading.local()
_roles: dict[str, dict[int, tuple[str, str]]] = {}  # language → pattern index → what it captures


# TypeScript's declarations without a body that overload a function or method implemented beside them
OVERLOAD_SIGNATURE_LANGUAGES = frozenset({"typescript", "tsx"})
SIGNATURE_NODES = frozenset({"function_signature", "method_signature"})


@dataclass(slots=True)
class _Def:
    node: Node
    start: int
    end: int
    kind: str
    name: str
    name_start: int
    name_end: int
    name_line: int
    pattern: int
    scope: tuple[str, ...] = ()
    label: str | None = None
    symbol: str = ""  # the chunk's symbol (disambiguated)
    child_scope: str = ""  # the path its children nest under
    parent: _Def | None = field(default=None, repr=False)


class _Source:
    """One file's bytes with cheap text slices: an ASCII file (most code) is decoded once, not per node."""

    __slots__ = ("_line_ends", "ascii", "data", "view")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.view = memoryview(data)  # hashing a slice of it copies nothing
        self.ascii = data.decode("ascii") if data.isascii() else None  # byte offsets are str offsets
        self._line_ends: list[int] | None = None

    def text(self, start: int, end: int) -> str:
        if self.ascii is not None:
            return self.ascii[start:end]
        return self.data[start:end].decode("utf-8", "replace")

    def line_bounds(self, start: int, end: int) -> list[int]:
        """Where the lines of ``[start, end)`` begin, then ``end``: lines split at ``\\n`` only, as
        tree-sitter counts them; the first starts at ``start`` even mid-line."""
        if self._line_ends is None:  # once per file, and only for files with an oversized chunk
            self._line_ends = list(accumulate(len(line) + 1 for line in self.data.split(b"\n")))[:-1]
        ends = self._line_ends  # the offset just past each newline
        bounds = [start, *ends[bisect_right(ends, start) : bisect_right(ends, end)]]
        if bounds[-1] != end:
            bounds.append(end)
        return bounds


@dataclass(slots=True)
class ParsedFile:
    """One file's chunks, definitions, references and imports before references become records."""

    language: str
    has_errors: bool  # tree-sitter recovered from syntax errors; results are best effort
    chunks: list[Chunk]
    defs: list[tuple[str, str, int, str]]  # (name, category, line, symbol) in file order
    refs: list[tuple[int, str, Node, str]]  # (start byte, name, name node, category) in file order
    imports: list[Import]
    ordered: list[_Def] = field(repr=False)  # every definition, outer before inner, for enclosing symbols
    root: Node | None = field(default=None, repr=False)  # the syntax tree's root, for a caller's own queries

    def ref_line(self, ref: tuple[int, str, Node, str]) -> int:
        return ref[2].start_point.row + 1

    def tags(self) -> list[Tag]:
        """Definition tags, then reference tags with the symbol that encloses each one."""
        tags = [
            Tag(name=name, kind="def", category=category, line=line, symbol=symbol)
            for name, category, line, symbol in self.defs
        ]
        # sweep references in file order against the definition stack to find each one's enclosing symbol
        ordered = self.ordered
        stack: list[_Def] = []
        i = 0
        for start, name, node, category in self.refs:
            while i < len(ordered) and ordered[i].start <= start:
                while stack and stack[-1].end <= ordered[i].start:
                    stack.pop()
                stack.append(ordered[i])
                i += 1
            while stack and stack[-1].end <= start:
                stack.pop()
            enclosing = stack[-1].symbol if stack else ""
            tags.append(Tag(name=name, kind="ref", category=category, line=node.start_point.row + 1, symbol=enclosing))
        return tags

    def file_parse(self) -> FileParse:
        return FileParse(
            language=self.language,
            chunks=self.chunks,
            tags=self.tags(),
            imports=self.imports,
            has_errors=self.has_errors,
        )


def parse_source(rel_path: str, source: bytes, spec: LanguageSpec) -> FileParse:
    """Chunks, tags and imports of one file. Never raises on bad code: tree-sitter recovers."""
    return parse_file(source, spec).file_parse()


def parse_file(source: bytes, spec: LanguageSpec, *, syntax: bool = False) -> ParsedFile:
    """:func:`parse_source`'s findings, with references left as (start, name, node, category).

    ``syntax``: fill each whole chunk's ``syntax_hash`` (it more than doubles the parse time, so the
    index leaves it out; reconciling memories with changed code asks for it, file by file).
    """
    parser, cursor = _tools(spec)
    tree = parser.parse(without_macros(source, spec.name))  # C/C++ export macros hide declarations: blanked
    root = tree.root_node
    src = _Source(source)
    defs: dict[int, _Def] = {}
    refs: dict[int, tuple[Node, str]] = {}
    imports: dict[tuple[int, str], tuple[int, list[str]]] = {}
    roles = _roles.setdefault(spec.name, {})
    for pattern, caps in cursor.matches(root):
        role = roles.get(pattern)
        if role is None:
            role = roles[pattern] = _role(caps)
        what, kind = role
        if what == "ref":  # by far the most common match: kept inline
            for name in caps.get("name", ()):
                refs.setdefault(name.start_byte, (name, kind))
        elif what == "def":
            _add_def(pattern, kind, caps, src, defs)
        elif what == "import":
            _add_import(caps, src, imports)

    if spec.name == "rust":  # `io::ErrorKind` is std's, no use of a workspace namesake
        refs = std_paths.without_std(refs, root, src.data)
    if spec.name in OVERLOAD_SIGNATURE_LANGUAGES:
        _drop_overload_signatures(defs)
    ordered = sorted(defs.values(), key=lambda d: (d.start, -d.end, d.pattern))
    _nest(ordered)
    chunks: list[Chunk] = []
    python: bool | None = (spec.name == "python") if syntax else None
    for d in ordered:
        chunks.extend(_definition_chunks(d, src, python))
    chunks.extend(_module_chunks(root, ordered, src, frozenset(spec.trivia), python))
    chunks.sort(key=lambda c: (c.start_byte, -c.end_byte, c.part))
    named = [d for d in ordered if d.label is None]
    return ParsedFile(
        language=spec.name,
        has_errors=root.has_error,
        chunks=chunks,
        defs=[(d.name, d.kind, d.name_line, d.symbol) for d in named],
        refs=_references(refs, named, src),
        imports=[
            Import(spec=spec_text, line=line, names=tuple(dict.fromkeys(names)))
            for (_, spec_text), (line, names) in imports.items()
        ],
        ordered=ordered,
        root=root,
    )


def _drop_overload_signatures(defs: dict[int, _Def]) -> None:
    """TypeScript's overload signatures (``function string(): S;`` above ``function string(p?: P): S { … }``) are
    one function with their implementation: no definitions of their own, so the name means the implementation (its
    memories, ``remember --symbol string``, a hover on it). A signature with no implementation beside it (an
    interface's member, a ``declare``d function) stays a definition."""
    implemented = {(_container(d.node), d.name) for d in defs.values() if d.node.type not in SIGNATURE_NODES}
    for key, d in list(defs.items()):
        if d.node.type in SIGNATURE_NODES and (_container(d.node), d.name) in implemented:
            del defs[key]


def _container(node: Node) -> int:
    """The node a definition is declared in, past an ``export`` around it (the program, a class or namespace body)."""
    parent = node.parent
    while parent is not None and parent.type == "export_statement":
        parent = parent.parent
    return parent.id if parent is not None else -1


def _tools(spec: LanguageSpec) -> tuple[Parser, QueryCursor]:
    parsers: dict[str, tuple[Parser, QueryCursor]] = getattr(_local, "parsers", None) or {}
    _local.parsers = parsers
    tools = parsers.get(spec.name)
    if tools is None:
        language, query = compiled(spec)
        tools = parsers[spec.name] = (Parser(language), QueryCursor(query))
    return tools


def _role(caps: dict[str, list[Node]]) -> tuple[str, str]:
    """What a pattern captures ("def", "ref", "import" or ""), and the definition/reference kind."""
    for cap_name in caps:
        if cap_name.startswith("definition."):
            return "def", cap_name[len("definition.") :]
        if cap_name.startswith("reference."):
            return "ref", cap_name[len("reference.") :]
        if cap_name == "import":
            return "import", ""
    return "", ""


def _add_def(pattern: int, kind: str, caps: dict[str, list[Node]], src: _Source, defs: dict[int, _Def]) -> None:
    names = caps.get("name")
    if not names:
        return
    node, name_node = caps["definition." + kind][0], names[0]
    start, end = node.start_byte, node.end_byte
    name_start = name_node.start_byte
    known = defs.get(name_start)
    if known is not None and (
        known.end - known.start > end - start or (known.end - known.start == end - start and known.pattern <= pattern)
    ):
        return
    name_end = name_node.end_byte
    raw_name = src.text(name_start, name_end).strip()
    parts = _qualified_parts(raw_name) or [raw_name]
    scope = [p for n in caps.get("scope", ()) for p in _qualified_parts(src.text(n.start_byte, n.end_byte))]
    scope += parts[:-1]
    label_nodes = caps.get("label")
    label = None
    if label_nodes:  # a container named by its header: "impl Point", "impl fmt::Display for Point"
        label = " ".join((kind, *src.text(label_nodes[0].start_byte, name_end).split()))
    defs[name_start] = _Def(
        node=node,
        start=start,
        end=end,
        kind=kind,
        name=parts[-1],
        name_start=name_start,
        name_end=name_end,
        name_line=name_node.start_point.row + 1,
        pattern=pattern,
        scope=tuple(scope),
        label=label,
    )


def _qualified_parts(text: str) -> list[str]:
    """``ns::Class<T>::method`` → [ns, Class, method]; ``A.B`` → [A, B]; operator names stay whole."""
    if "::" in text:
        stripped = TEMPLATE_ARGS.sub("", text)
        while stripped != text:  # nested template arguments shed one level per pass
            text, stripped = stripped, TEMPLATE_ARGS.sub("", stripped)
    elif "." not in text:
        return [text.strip()] if text.strip() else []
    return [p.strip() for p in QUALIFIER_SPLIT.split(text) if p.strip()]


def _add_import(
    caps: dict[str, list[Node]],
    src: _Source,
    imports: dict[tuple[int, str], tuple[int, list[str]]],
) -> None:
    node = caps["import"][0]
    names = [src.text(n.start_byte, n.end_byte).strip() for n in caps.get("import.name", ())]
    for cap, relative in (("import.source", False), ("import.source.relative", True)):
        for source_node in caps.get(cap, ()):
            spec = src.text(source_node.start_byte, source_node.end_byte).strip()
            if len(spec) >= 2 and spec[0] in QUOTES and spec[-1] == spec[0]:
                spec = spec[1:-1]
            if relative and not spec.startswith("."):
                spec = "./" + spec
            if not spec:
                continue
            entry = imports.setdefault((node.start_byte, spec), (node.start_point.row + 1, []))
            entry[1].extend(names)


def _references(refs: dict[int, tuple[Node, str]], named: list[_Def], src: _Source) -> list[tuple[int, str, Node, str]]:
    """References in file order, without the names definitions declare (a broad reference pattern,
    such as every type identifier, also sees those)."""
    spans = sorted((d.name_start, d.name_end) for d in named)
    span_starts = [span[0] for span in spans]
    text = src.ascii
    data = src.data
    out = []
    for start in sorted(refs):
        k = bisect_right(span_starts, start) - 1
        if k >= 0 and start < spans[k][1]:
            continue
        node, category = refs[start]
        end = node.end_byte
        name = text[start:end] if text is not None else data[start:end].decode("utf-8", "replace")
        out.append((start, name, node, category))
    return out


def _nest(ordered: list[_Def]) -> None:
    """Link each definition to its innermost enclosing one and give it its symbol path."""
    stack: list[_Def] = []
    seen: dict[str, int] = {}
    for d in ordered:
        while stack and stack[-1].end <= d.start:
            stack.pop()
        parent = stack[-1] if stack else None
        d.parent = parent
        if d.kind == "function" and (d.scope or (parent is not None and parent.kind in CLASS_LIKE_KINDS)):
            d.kind = "method"  # inside a class, or defined outside it with a qualified name (C++ Class::method)
        base = parent.child_scope if parent is not None else ""
        own = ".".join(p for p in (base, *d.scope, d.name) if p)
        symbol = ".".join(p for p in (base, d.label) if p) if d.label else own
        count = seen.get(symbol, 0) + 1
        seen[symbol] = count
        d.symbol = symbol if count == 1 else f"{symbol}#{count}"
        d.child_scope = own if d.label or d.kind in OPEN_SCOPE_KINDS else d.symbol
        stack.append(d)


def _line_span(node_start: Node, node_end: Node) -> tuple[int, int]:
    start = node_start.start_point.row + 1
    end_point = node_end.end_point
    # a node ending at column 0 ends on the previous line (its text includes the newline)
    end = end_point.row if end_point.column == 0 and end_point.row + 1 > start else end_point.row + 1
    return start, end


def _hash(data: bytes | memoryview) -> str:
    return hashlib.blake2b(data, digest_size=HASH_DIGEST_BYTES).hexdigest()


def _signature(src: _Source, node: Node, start: int, end: int) -> str:
    """The declaration from its start to its body (or its first line), without the comments written in it."""
    body = _body(node, depth=3)
    stop = body.start_byte if body is not None else -1
    if stop <= start:
        newline = src.data.find(b"\n", start, end)
        stop = newline if newline != -1 else end
    header, cursor = "", start
    for comment_start, comment_end in _comments_within(node, start, stop):
        header = _glued(header, src.text(cursor, comment_start))
        cursor = max(cursor, comment_end)
    sig = " ".join(_glued(header, src.text(cursor, stop)).split())
    if body is not None:
        sig = sig.removesuffix(";")  # Ruby's `def path_info; …`: the separator before a body on the same line
    return sig if len(sig) <= SIGNATURE_MAX_CHARS else sig[: SIGNATURE_MAX_CHARS - 1] + "…"


def _glued(left: str, right: str) -> str:
    """Two pieces of a header a comment stood between: a space parts words, not ``(`` from ``)``."""
    left, right = left.rstrip(), right.lstrip()
    tight = not left or left.endswith(OPENING_BRACKETS) or right.startswith(CLOSING_PUNCTUATION)
    return f"{left}{'' if tight else ' '}{right}"


def _comments_within(node: Node, start: int, stop: int) -> list[tuple[int, int]]:
    """Byte spans of the comments between ``start`` and ``stop`` inside ``node``, in source order.

    A comment after the header belongs to the body (Ruby's ``module Rack`` then ``# Request env keys``,
    Python's ``def run(self):  # pragma: no cover``), and one among the parameters or annotations is
    no part of the declaration either. Only the children overlapping the header are visited.
    """
    spans: list[tuple[int, int]] = []
    pending = [node]
    while pending:
        for child in pending.pop().children:
            if child.end_byte <= start or child.start_byte >= stop:
                continue
            if child.is_extra and child.type.endswith("comment"):
                spans.append((child.start_byte, min(child.end_byte, stop)))
            elif child.child_count:
                pending.append(child)
    return sorted(spans)


def _body(node: Node, depth: int) -> Node | None:
    """The definition's body: its ``body`` field, or the first one among its named descendants."""
    body = node.child_by_field_name("body")
    if body is not None or depth == 0:
        return body
    for child in node.named_children:
        found = _body(child, depth - 1)
        if found is not None:
            return found
    return None


def _definition_chunks(d: _Def, src: _Source, python: bool | None) -> list[Chunk]:
    start_line, end_line = _line_span(d.node, d.node)
    signature = _signature(src, d.node, d.start, d.end)
    if d.label is None and d.name_start >= d.start + len(signature) and d.name not in signature:
        signature = f"{signature} … {d.name}"  # C's ``typedef struct {…} jv;``: its name follows its body
    own_name = d.name_start if d.label is None else -1
    syntax = "" if python is None else syntax_hash([d.node], src.data, python=python, name_start=own_name)
    return _chunks_for_span(d.symbol, d.kind, d.start, d.end, start_line, end_line, signature, src, syntax)


def _chunks_for_span(
    symbol: str,
    kind: str,
    start: int,
    end: int,
    start_line: int,
    end_line: int,
    signature: str,
    src: _Source,
    syntax: str,
) -> list[Chunk]:
    whole = Chunk(
        symbol=symbol,
        kind=kind,
        start_line=start_line,
        end_line=end_line,
        start_byte=start,
        end_byte=end,
        signature=signature,
        content_hash=_hash(src.view[start:end]),
        text=src.text(start, end),
        syntax_hash=syntax,
    )
    line_count = end_line - start_line + 1
    if line_count <= MAX_CHUNK_LINES and end - start <= MAX_CHUNK_BYTES:
        return [whole]
    return [whole, *_split(whole, src, line_count)]


def _split(whole: Chunk, src: _Source, line_count: int) -> list[Chunk]:
    """Contiguous line ranges of balanced size within the chunk limits, cut where a statement starts.

    Linear in the chunk's lines: line boundaries come from the file's newline offsets, and a part's
    end is found by bisecting them rather than by summing line lengths.
    """
    start, end = whole.start_byte, whole.end_byte
    n_parts = max(math.ceil(line_count / MAX_CHUNK_LINES), math.ceil((end - start) / MAX_CHUNK_BYTES))
    target_lines = math.ceil(line_count / n_parts)
    bounds = src.line_bounds(start, end)  # bounds[k]: where line k of the chunk starts; bounds[-1] == end
    n = len(bounds) - 1
    parts: list[Chunk] = []
    i = 0
    while i < n:
        # as many whole lines as fit the byte limit (at least one), at most target_lines
        fit = bisect_right(bounds, bounds[i] + MAX_CHUNK_BYTES, i) - 1
        j = max(i + 1, min(fit, i + target_lines, n))
        if j < n:
            j = _cut_point(src.data, bounds, i + max(1, (j - i) // 2), j)
        lo, hi = bounds[i], bounds[j]
        parts.append(
            Chunk(
                symbol=whole.symbol,
                kind=whole.kind,
                start_line=whole.start_line + i,
                end_line=whole.start_line + j - 1,
                start_byte=lo,
                end_byte=hi,
                signature=whole.signature,
                content_hash=_hash(src.view[lo:hi]),
                text=src.text(lo, hi),
                part=len(parts) + 1,
            )
        )
        i = j
    return parts


def _cut_point(data: bytes, bounds: list[int], low: int, high: int) -> int:
    """The line in [low, high] to start the next part at: the least indented one after a blank line, latest first.

    Members of a class or statements of a body sit at the shallowest indentation, so parts end between
    them rather than inside one.
    """
    best, best_key = high, -1
    below = data[bounds[high] : bounds[high + 1]].lstrip()  # line k without its indentation ("" when blank)
    for k in range(high, low - 1, -1):
        above = data[bounds[k - 1] : bounds[k]].lstrip()
        if below:
            # (indentation, previous line not blank) as one int: lower is a better place to cut
            key = 2 * (bounds[k + 1] - bounds[k] - len(below)) + (1 if above else 0)
            if best_key < 0 or key < best_key:
                best, best_key = k, key
        below = above
    return best


def _module_chunks(
    root: Node, ordered: list[_Def], src: _Source, trivia: frozenset[str], python: bool | None
) -> list[Chunk]:
    outer = [d for d in ordered if d.parent is None]
    starts = [d.start for d in outer]
    ends = {(d.start, d.end) for d in outer}
    runs: list[list[Node]] = [[]]
    # depth-first over the nodes between outer definitions, descending only into nodes that hold one
    # (a C header guard, `export`, `if TYPE_CHECKING:`); an explicit stack keeps deep files safe
    pending: list[Node] = list(reversed(root.children))
    while pending:
        node = pending.pop()
        if (node.start_byte, node.end_byte) in ends:
            if runs[-1]:
                runs.append([])
            continue
        i = bisect_left(starts, node.start_byte)
        if i < len(starts) and starts[i] < node.end_byte:
            pending.extend(reversed(node.children))
        elif node.is_named and "comment" not in node.type and node.type not in trivia:
            runs[-1].append(node)

    chunks: list[Chunk] = []
    for number, run in enumerate((r for r in runs if r), start=1):
        symbol = MODULE_SYMBOL if number == 1 else f"{MODULE_SYMBOL}#{number}"
        start_line, end_line = _line_span(run[0], run[-1])
        start, end = run[0].start_byte, run[-1].end_byte
        first_line_end = src.data.find(b"\n", start, end)
        signature = " ".join(src.text(start, first_line_end if first_line_end != -1 else end).split())
        syntax = "" if python is None else syntax_hash(run, src.data, python=python)
        chunks.extend(
            _chunks_for_span(
                symbol, "module", start, end, start_line, end_line, signature[:SIGNATURE_MAX_CHARS], src, syntax
            )
        )
    return chunks
