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
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from tree_sitter import Node, Parser, Query, QueryCursor

from hindsight.indexing.languages import LanguageSpec, compiled
from hindsight.indexing.records import Chunk, FileParse, Import, Tag

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

_parsers: dict[str, tuple[Parser, Query]] = {}  # per process, by language name
_roles: dict[str, dict[int, tuple[str, str]]] = {}  # language → pattern index → what it captures


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


def parse_source(rel_path: str, source: bytes, spec: LanguageSpec) -> FileParse:
    """Chunks, tags and imports of one file. Never raises on bad code: tree-sitter recovers."""
    parser, query = _tools(spec)
    tree = parser.parse(source)
    root = tree.root_node
    defs: dict[int, _Def] = {}
    refs: dict[int, tuple[Node, str]] = {}
    imports: dict[tuple[int, str], tuple[int, list[str]]] = {}
    roles = _roles.setdefault(spec.name, {})
    for pattern, caps in QueryCursor(query).matches(root):
        role = roles.get(pattern)
        if role is None:
            role = roles[pattern] = _role(caps)
        what, kind = role
        if what == "ref":  # by far the most common match: kept inline
            for name in caps.get("name", ()):
                refs.setdefault(name.start_byte, (name, kind))
        elif what == "def":
            _add_def(pattern, kind, caps, source, defs)
        elif what == "import":
            _add_import(caps, source, imports)

    ordered = sorted(defs.values(), key=lambda d: (d.start, -d.end, d.pattern))
    _nest(ordered)
    result = FileParse(language=spec.name, has_errors=root.has_error)
    for d in ordered:
        result.chunks.extend(_definition_chunks(d, source))
    result.chunks.extend(_module_chunks(root, ordered, source, frozenset(spec.trivia)))
    result.chunks.sort(key=lambda c: (c.start_byte, -c.end_byte, c.part))
    result.tags = _tags(ordered, refs, source)
    result.imports = [
        Import(spec=spec_text, line=line, names=tuple(dict.fromkeys(names)))
        for (_, spec_text), (line, names) in imports.items()
    ]
    return result


def _tools(spec: LanguageSpec) -> tuple[Parser, Query]:
    tools = _parsers.get(spec.name)
    if tools is None:
        language, query = compiled(spec)
        tools = _parsers[spec.name] = (Parser(language), query)
    return tools


def _text(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


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


def _add_def(pattern: int, kind: str, caps: dict[str, list[Node]], source: bytes, defs: dict[int, _Def]) -> None:
    names = caps.get("name")
    if not names:
        return
    node, name_node = caps["definition." + kind][0], names[0]
    known = defs.get(name_node.start_byte)
    if known is not None and (known.end - known.start > node.end_byte - node.start_byte or
                              (known.end - known.start == node.end_byte - node.start_byte
                               and known.pattern <= pattern)):
        return
    raw_name = _text(source, name_node).strip()
    parts = _qualified_parts(raw_name) or [raw_name]
    scope = [p for node in caps.get("scope", ()) for p in _qualified_parts(_text(source, node))] + parts[:-1]
    label_nodes = caps.get("label")
    label = None
    if label_nodes:  # a container named by its header: "impl Point", "impl fmt::Display for Point"
        header = source[label_nodes[0].start_byte : name_node.end_byte].decode("utf-8", "replace")
        label = " ".join((kind, *header.split()))
    defs[name_node.start_byte] = _Def(
        node=node, start=node.start_byte, end=node.end_byte, kind=kind, name=parts[-1],
        name_start=name_node.start_byte, name_end=name_node.end_byte, name_line=name_node.start_point.row + 1,
        pattern=pattern, scope=tuple(scope), label=label,
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
    caps: dict[str, list[Node]], source: bytes, imports: dict[tuple[int, str], tuple[int, list[str]]],
) -> None:
    node = caps["import"][0]
    names = [_text(source, n).strip() for n in caps.get("import.name", ())]
    for cap, relative in (("import.source", False), ("import.source.relative", True)):
        for src in caps.get(cap, ()):
            spec = _text(source, src).strip()
            if len(spec) >= 2 and spec[0] in QUOTES and spec[-1] == spec[0]:
                spec = spec[1:-1]
            if relative and not spec.startswith("."):
                spec = "./" + spec
            if not spec:
                continue
            entry = imports.setdefault((node.start_byte, spec), (node.start_point.row + 1, []))
            entry[1].extend(names)


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


def _hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=HASH_DIGEST_BYTES).hexdigest()


def _signature(source: bytes, node: Node) -> str:
    body = _body(node, depth=3)
    end = body.start_byte if body is not None and body.start_byte > node.start_byte else None
    if end is None:
        newline = source.find(b"\n", node.start_byte, node.end_byte)
        end = newline if newline != -1 else node.end_byte
    sig = " ".join(source[node.start_byte : end].decode("utf-8", "replace").split())
    return sig if len(sig) <= SIGNATURE_MAX_CHARS else sig[: SIGNATURE_MAX_CHARS - 1] + "…"


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


def _definition_chunks(d: _Def, source: bytes) -> list[Chunk]:
    start_line, end_line = _line_span(d.node, d.node)
    return _chunks_for_span(d.symbol, d.kind, d.start, d.end, start_line, end_line, _signature(source, d.node), source)


def _chunks_for_span(
    symbol: str, kind: str, start: int, end: int, start_line: int, end_line: int, signature: str, source: bytes,
) -> list[Chunk]:
    data = source[start:end]
    whole = Chunk(
        symbol=symbol, kind=kind, start_line=start_line, end_line=end_line, start_byte=start, end_byte=end,
        signature=signature, content_hash=_hash(data), text=data.decode("utf-8", "replace"),
    )
    line_count = end_line - start_line + 1
    if line_count <= MAX_CHUNK_LINES and len(data) <= MAX_CHUNK_BYTES:
        return [whole]
    return [whole, *_split(whole, data, line_count)]


def _split(whole: Chunk, data: bytes, line_count: int) -> list[Chunk]:
    """Contiguous line ranges of balanced size within the chunk limits, cut where a statement starts."""
    n_parts = max(math.ceil(line_count / MAX_CHUNK_LINES), math.ceil(len(data) / MAX_CHUNK_BYTES))
    target_lines = math.ceil(line_count / n_parts)
    lines = data.split(b"\n")  # tree-sitter counts lines by \n only; so must the parts
    lines = [line + b"\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    parts: list[Chunk] = []
    offset = 0
    i = 0
    while i < len(lines):
        j, size = i, 0
        while j < len(lines) and j - i < target_lines and (j == i or size + len(lines[j]) <= MAX_CHUNK_BYTES):
            size += len(lines[j])
            j += 1
        if j < len(lines):
            j = _cut_point(lines, i + max(1, (j - i) // 2), j)
        piece = b"".join(lines[i:j])
        parts.append(Chunk(
            symbol=whole.symbol, kind=whole.kind, start_line=whole.start_line + i, end_line=whole.start_line + j - 1,
            start_byte=whole.start_byte + offset, end_byte=whole.start_byte + offset + len(piece),
            signature=whole.signature, content_hash=_hash(piece), text=piece.decode("utf-8", "replace"),
            part=len(parts) + 1,
        ))
        offset += len(piece)
        i = j
    return parts


def _cut_point(lines: list[bytes], low: int, high: int) -> int:
    """The line in [low, high] to start the next part at: the least indented one after a blank line, latest first.

    Members of a class or statements of a body sit at the shallowest indentation, so parts end between
    them rather than inside one.
    """
    best, best_key = high, None
    for k in range(high, low - 1, -1):
        text = lines[k].rstrip()
        if not text:
            continue
        indent = len(text) - len(text.lstrip())
        key = (indent, bool(lines[k - 1].strip()))
        if best_key is None or key < best_key:
            best, best_key = k, key
    return best


def _module_chunks(root: Node, ordered: list[_Def], source: bytes, trivia: frozenset[str]) -> list[Chunk]:
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
        first_line_end = source.find(b"\n", run[0].start_byte, run[-1].end_byte)
        header = source[run[0].start_byte : first_line_end if first_line_end != -1 else run[-1].end_byte]
        signature = " ".join(header.decode("utf-8", "replace").split())[:SIGNATURE_MAX_CHARS]
        chunks.extend(_chunks_for_span(symbol, "module", run[0].start_byte, run[-1].end_byte, start_line, end_line,
                                       signature, source))
    return chunks


def _tags(ordered: list[_Def], refs: dict[int, tuple[Node, str]], source: bytes) -> list[Tag]:
    tags = [Tag(name=d.name, kind="def", category=d.kind, line=d.name_line, symbol=d.symbol)
            for d in ordered if d.label is None]
    # sweep references in file order against the definition stack to find each one's enclosing symbol
    stack: list[_Def] = []
    i = 0
    # a broad reference pattern (every type identifier) also sees the names definitions declare: skip those
    name_spans = sorted((d.name_start, d.name_end) for d in ordered if d.label is None)
    name_starts = [span[0] for span in name_spans]
    for start in sorted(refs):
        k = bisect_right(name_starts, start) - 1
        if k >= 0 and start < name_spans[k][1]:
            continue
        node, category = refs[start]
        while i < len(ordered) and ordered[i].start <= start:
            while stack and stack[-1].end <= ordered[i].start:
                stack.pop()
            stack.append(ordered[i])
            i += 1
        while stack and stack[-1].end <= start:
            stack.pop()
        enclosing = stack[-1].symbol if stack else ""
        name = source[start : node.end_byte].decode("utf-8", "replace")
        tags.append(Tag(name=name, kind="ref", category=category, line=node.start_point.row + 1, symbol=enclosing))
    return tags
