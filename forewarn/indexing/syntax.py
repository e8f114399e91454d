"""The syntax hash: a definition's code as its syntax tree, not its bytes.

Whitespace, line breaks, comments, Python docstrings, redundant parentheses, trailing commas,
semicolons and quote style leave it unchanged; a changed name, operator, literal or statement changes
it. A memory's staleness compares this hash, so reformatting or re-commenting the code it describes
does not mark it "may be outdated".

The tree is written out as node types with nesting marks and the text of leaf tokens, so structure
is kept even though brackets are dropped: ``(a + b) * c`` and ``a + b * c`` differ. The definition's
own name is written as a placeholder, so a pure rename keeps the hash (the symbol path still says
which name it has): that is how a renamed definition is recognised.
"""

from __future__ import annotations

import ast
import hashlib

from tree_sitter import Node

HASH_DIGEST_BYTES = 16  # as the content hash: 128 bits
# punctuation whose presence the tree's shape already records (or that formatters add and remove freely)
DROPPED_TOKENS = frozenset({",", ";", "(", ")", "[", "]", "{", "}"})
TRANSPARENT_NODES = frozenset({"parenthesized_expression"})  # (x) is x: the nesting marks keep precedence
# spellings of one construct that Python's own syntax tree does not tell apart
PYTHON_SAME_NODE = {"expression_list": "tuple", "pattern_list": "tuple_pattern"}
PYTHON_QUOTE_NODES = frozenset({"string_start", "string_end"})
PYTHON_STRING_NODES = frozenset({"string", "concatenated_string"})
NUMBER_NODES = frozenset({"integer", "float", "number", "int_literal", "float_literal", "integer_literal"})
NAME_PLACEHOLDER = b"\x01name"
OPEN, CLOSE, SEP = b"\x02", b"\x03", b"\x00"


def syntax_hash(nodes: list[Node], data: bytes, *, python: bool, name_start: int = -1) -> str:
    """The hash of ``nodes`` (one definition, or a run of top-level statements) as syntax."""
    h = hashlib.blake2b(digest_size=HASH_DIGEST_BYTES)
    for token in syntax_tokens(nodes, data, python=python, name_start=name_start):
        h.update(token)
        h.update(SEP)
    return h.hexdigest()


def syntax_tokens(nodes: list[Node], data: bytes, *, python: bool, name_start: int = -1) -> list[bytes]:
    """The normalised token stream :func:`syntax_hash` hashes (exposed for tests and the benchmark)."""
    out: list[bytes] = []
    pending: list[Node | None] = list(reversed(nodes))  # None closes the node opened before it
    while pending:
        node = pending.pop()
        if node is None:
            out.append(CLOSE)
            continue
        kind = node.type
        if node.is_extra or "comment" in kind:
            continue
        if python and kind == "expression_statement" and _is_docstring(node):
            continue
        if python and kind in PYTHON_STRING_NODES and (value := _python_literal(node, data)) is not None:
            out.append(value)  # its value: quotes, escapes and implicit concatenation as Python reads them
            continue
        if kind in TRANSPARENT_NODES:
            pending.extend(reversed([c for c in node.children if c.is_named or c.type not in DROPPED_TOKENS]))
            continue
        if node.child_count == 0:
            token = _leaf(node, data, python=python, name_start=name_start)
            if token is not None:
                out.append(token)
            continue
        out.append(OPEN + (PYTHON_SAME_NODE.get(kind, kind) if python else kind).encode())
        pending.append(None)
        pending.extend(reversed(node.children))
    return out


def _leaf(node: Node, data: bytes, *, python: bool, name_start: int) -> bytes | None:
    kind = node.type
    if not node.is_named and kind in DROPPED_TOKENS:
        return None
    text = data[node.start_byte : node.end_byte]
    if node.start_byte == name_start:
        return NAME_PLACEHOLDER
    if python and kind in PYTHON_QUOTE_NODES:  # 'x', "x", """x""" and u"x" are one string; f/b/r prefixes matter
        return text.strip(b"\"'").lower().replace(b"u", b"")
    if not node.is_named and text and text.strip(b"\"'`") == b"":  # quote tokens of other languages
        return None
    if kind in NUMBER_NODES:
        return text.lower()
    return text


def _python_literal(node: Node, data: bytes) -> bytes | None:
    """A Python string literal's value (an f-string has none: its parts are code, hashed as a tree)."""
    text = data[node.start_byte : node.end_byte]
    if b"{" in text and any(part.type == "interpolation" for s in _strings(node) for part in s.children):
        return None
    try:
        value = ast.literal_eval("(" + text.decode("utf-8") + "\n)")
    except (ValueError, SyntaxError, UnicodeDecodeError, MemoryError, RecursionError):
        return None
    return b"\x04" + repr(value).encode("utf-8", "backslashreplace")


def _strings(node: Node) -> list[Node]:
    return list(node.named_children) if node.type == "concatenated_string" else [node]


def _is_docstring(node: Node) -> bool:
    """A string statement first in a module, class or function body (Python's docstring rule)."""
    if node.named_child_count != 1 or node.named_children[0].type not in ("string", "concatenated_string"):
        return False
    parent = node.parent
    if parent is None or parent.type not in ("block", "module"):
        return False
    for sibling in parent.named_children:
        if sibling.is_extra or "comment" in sibling.type:
            continue
        return sibling.id == node.id
    return False
