"""The words the index makes of code and queries: identifiers split for full-text search (the chunks' ``words``
column), chunk texts for FTS5, safe FTS5 queries and the terms worth matching, and the definition names the file
graph counts."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence

from forewarn.indexing.records import Chunk

CAMEL_PART_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
IDENT_PATH_RE = re.compile(r"\w+(?:\.\w+)*")  # a word, identifier or dotted path (os.path.join) in a query
# search matches the rarest query terms first and stops adding terms past this many candidate chunks:
# bm25 must score every chunk that matches, and "the", "return", "self" match a fifth of Django
SEARCH_CANDIDATES_MAX = 3_000
SEARCH_TERMS_MAX = 8  # rarest terms kept from a long query; more add candidates, rarely better hits
IDENT_CACHE_MAX = 200_000  # distinct identifiers remembered per process (a few MB); names recur across files


LOCAL_SCOPES = frozenset({"function", "method"})  # a definition inside one of these is local to it


def graph_def_names(defs: Iterable[tuple[str, str, str]]) -> list[str]:
    """The names among ``(name, category, symbol)`` definitions that other files can refer to, once each.

    A class or function defined inside a function (a test's local ``class Request``) is that function's
    own: a reference elsewhere to the same name means some other ``Request`` (a library's, the
    project's), so it must not draw rank into the file (the repo map put such test classes near the top).
    """
    items = list(defs)
    local_parents = {symbol for _, category, symbol in items if category in LOCAL_SCOPES}
    names: dict[str, None] = {}
    for name, _, symbol in items:
        parts = symbol.split(".")
        if any(".".join(parts[:i]) in local_parents for i in range(1, len(parts))):
            continue
        names[name] = None
    return list(names)


def split_identifier(ident: str) -> list[str]:
    """``getHTTPResponse_code`` -> ``["get", "http", "response", "code"]``."""
    return [p.lower() for part in ident.split("_") if part for p in CAMEL_PART_RE.findall(part)]


def chunk_words(names: Iterable[str]) -> str:
    """The ``words`` column for a chunk using these identifiers: what :func:`identifier_words` adds."""
    return " ".join(dict.fromkeys(word for name in dict.fromkeys(names) for word in identifier_words(name)))


def identifier_words(name: str) -> list[str]:
    """The search words of a compound identifier that the text's own tokens lack. Do not mutate.

    unicode61 splits ``retry_upload`` at ``_`` (tokens ``retry``, ``upload``) and keeps ``retryUpload``
    whole (``retryupload``). Each compound identifier is searchable both ways, so this gives what is
    missing: camelCase parts (``retry``, ``upload``; ``HTTPServer`` -> ``http``, ``server``) and the
    whole name without its underscores (``retryupload`` for ``retry_upload``). [] for a plain word.
    """
    words = _ident_cache.get(name)
    if words is None:
        words = _identifier_words(name)
        if len(_ident_cache) < IDENT_CACHE_MAX:
            _ident_cache[name] = words
    return words


_ident_cache: dict[str, list[str]] = {}


def _identifier_words(name: str) -> list[str]:
    inner = name.strip("_")
    if "_" not in inner and (inner.islower() or inner.isupper()):  # string methods in C: most names stop here
        return []
    tokens = [t for t in name.lower().split("_") if t]  # what unicode61 makes of the name itself
    parts = split_identifier(name)
    if len(parts) < 2:
        return []
    out = dict.fromkeys(p for p in parts if p not in tokens)
    whole = whole_identifier(name)
    if whole not in tokens:
        out[whole] = None
    return list(out)


def whole_identifier(word: str) -> str:
    """The one search token standing for a whole identifier: lowercased, underscores dropped."""
    return word.lower().replace("_", "")


def file_chunk_words(names_by_line: Sequence[tuple[int, str]], spans: Iterable[tuple[int, int]]) -> list[str]:
    """``chunk_words`` for each (start_line, end_line) chunk of one file.

    Only compound names (snake_case, camelCase) give words. The names are the parser's tags
    (definitions and references, sorted by line), not a scan of the text: nested chunks repeat their
    children's text, and a regex pass over every chunk cost a fifth of all parsing time.
    """
    words = {name: split for name in {n for _, n in names_by_line} if (split := identifier_words(name))}
    named = [(line, name) for line, name in names_by_line if name in words]
    if not named:
        return ["" for _ in spans]
    lines = [line for line, _ in named]
    out = []
    for start, end in spans:
        lo, hi = bisect_left(lines, start), bisect_right(lines, end)
        if lo == hi:  # no compound name inside
            out.append("")
            continue
        inside = dict.fromkeys(name for _, name in named[lo:hi])
        out.append(" ".join(dict.fromkeys(word for name in inside for word in words[name])))
    return out


def fts_texts(chunks: Sequence[Chunk]) -> list[str | None]:
    """What full-text search indexes for each chunk of one file: its own text, None for none.

    Nested chunks are indexed themselves, so a chunk's row replaces each chunk directly inside it with
    that chunk's signature (a class keeps its header, fields and method signatures, not method bodies).
    A split definition's whole ``part=0`` chunk gets no row: its parts carry the text. Offsets are
    bytes; a chunk whose text does not re-encode to its byte span (undecodable bytes) is kept whole.
    """
    split = {c.symbol for c in chunks if c.part > 0}
    wholes = sorted((c for c in chunks if c.part == 0), key=lambda c: (c.start_byte, -c.end_byte))
    children: dict[str, list[Chunk]] = {}  # symbol of a definition -> the chunks directly inside it
    stack: list[Chunk] = []
    for c in wholes:
        while stack and stack[-1].end_byte <= c.start_byte:
            stack.pop()
        parent = stack[-1] if stack else None
        if (
            parent is not None
            and c.end_byte <= parent.end_byte
            and (c.start_byte, c.end_byte) != (parent.start_byte, parent.end_byte)
        ):
            children.setdefault(parent.symbol, []).append(c)
        stack.append(c)
    out: list[str | None] = []
    for c in chunks:
        if c.part == 0 and c.symbol in split:
            out.append(None)
            continue
        inner = [d for d in children.get(c.symbol, ()) if d.start_byte < c.end_byte and d.end_byte > c.start_byte]
        out.append(_own_text(c, inner) if inner else c.text)
    return out


def _own_text(c: Chunk, inner: list[Chunk]) -> str:
    ascii_text = c.text.isascii()
    data = c.text.encode("ascii" if ascii_text else "utf-8")
    if len(data) != c.end_byte - c.start_byte:
        return c.text
    pieces: list[bytes] = []
    at = 0
    for d in inner:  # in file order, disjoint
        lo, hi = max(d.start_byte - c.start_byte, 0), min(d.end_byte - c.start_byte, len(data))
        pieces.append(data[at:lo])
        if d.start_byte >= c.start_byte:  # the signature goes where the nested definition begins
            pieces.append(d.signature.encode())
        at = hi
    pieces.append(data[at:])
    return b"".join(pieces).decode("utf-8", "replace")


def query_terms(text: str) -> list[str]:
    """The distinct search terms of free text, lowercased: each word whole (the token
    :func:`identifier_words` stores for a compound name), its identifier parts, and a phrase of the
    tokens of each snake_case name or dotted path, which matches where they stand together as written.

    "retry upload", "retryUpload", "retry_upload" and "retryupload" all meet both ``retryUpload`` and
    ``retry_upload``; "os.path.join" meets ``os.path.join`` above a chunk merely holding the three words.
    """
    words: dict[str, None] = {}
    for match in IDENT_PATH_RE.finditer(text):
        path = match.group(0)
        tokens = [t for t in re.split(r"[._]", path.lower()) if t]
        for word in path.split("."):
            if not word.strip("_"):
                continue
            words[whole_identifier(word)] = None
            for part in split_identifier(word):
                words[part] = None
        if len(tokens) > 1:
            words[" ".join(tokens)] = None
    return list(words)


def fts_query(text: str | Sequence[str]) -> str:
    """A safe FTS5 query from free text (or its terms): each term quoted, any may match (bm25 ranks)."""
    terms = query_terms(text) if isinstance(text, str) else text
    return " OR ".join(f'"{w}"' for w in terms)


def selective_terms(doc_freqs: dict[str, int]) -> list[str]:
    """The terms worth matching: rarest first while their chunks fit SEARCH_CANDIDATES_MAX (the rarest
    always), at most SEARCH_TERMS_MAX; terms no chunk holds are dropped."""
    kept: list[str] = []
    candidates = 0
    for term, df in sorted(doc_freqs.items(), key=lambda item: item[1]):
        if df == 0:
            continue
        if kept and (candidates + df > SEARCH_CANDIDATES_MAX or len(kept) == SEARCH_TERMS_MAX):
            break
        kept.append(term)
        candidates += df
    return kept
