"""Comments and docstrings in a syntax tree, found by one query per language instead of a walk in Python.

A comment is any named node kind whose name says so (``comment``, ``line_comment``, ``block_comment``,
``doc_comment`` …); a docstring is a statement that is only a string. The query is built from the grammar's own
node kinds, so a new language needs no list here.
"""

from __future__ import annotations

from tree_sitter import Language, Node, Query, QueryCursor

from forewarn.indexing.languages import LanguageSpec, compiled

COMMENT = "comment"
DOCSTRING = "docstring"
PROSE_STRINGS = ("string", "concatenated_string")
_QUERIES: dict[str, Query | None] = {}  # compiled once per language; each call runs it with a cursor of its own


def _query(spec: LanguageSpec) -> Query | None:
    if spec.name not in _QUERIES:
        language, _tags = compiled(spec)
        _QUERIES[spec.name] = Query(language, pattern) if (pattern := _pattern(language)) else None
    return _QUERIES[spec.name]


def _pattern(language: Language) -> str:
    kinds = {
        language.node_kind_for_id(i) or ""
        for i in range(language.node_kind_count)
        if language.node_kind_is_named(i) and language.node_kind_is_visible(i)
    }
    patterns = [f"({kind}) @{COMMENT}" for kind in sorted(kinds) if "comment" in kind]
    strings = " ".join(f"({kind})" for kind in PROSE_STRINGS if kind in kinds)
    if strings and "expression_statement" in kinds:  # exactly one named child, a string: "." anchors first and last
        patterns.append(f"(expression_statement . [{strings}] .) @{DOCSTRING}")
    return "\n".join(patterns)


def prose_nodes(root: Node, spec: LanguageSpec) -> dict[str, list[Node]]:
    """The comments (``COMMENT``) and docstrings (``DOCSTRING``) under ``root``, each list in document order."""
    query = _query(spec)
    if query is None:
        return {}
    found = QueryCursor(query).captures(root)  # a cursor is not thread-safe: one per call
    return {name: sorted(nodes, key=lambda n: (n.start_byte, -n.end_byte)) for name, nodes in found.items()}


def comment_nodes(root: Node, spec: LanguageSpec) -> list[Node]:
    """The outermost comments under ``root`` in document order (a doc comment's inner parts are not listed)."""
    out: list[Node] = []
    for node in prose_nodes(root, spec).get(COMMENT, ()):
        if out and node.start_byte < out[-1].end_byte:
            continue  # inside the comment before it
        out.append(node)
    return out


def last_line(node: Node) -> int:
    """The line (1-based) the node's text ends on: a comment that takes its newline with it (Rust's ``//`` and
    ``///``) ends at column 0 of the next line, which is not part of it."""
    end = node.end_point
    return end.row + (1 if end.column else 0)
