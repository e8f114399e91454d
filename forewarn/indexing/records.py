"""The small records the indexer produces: chunks, tags and imports of one parsed file.

They cross process boundaries (files are parsed in worker processes), so they are plain,
picklable dataclasses with no behaviour.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Chunk:
    """A span of code memories can anchor to: a function, method, class… or grouped module code.

    ``symbol`` is the path inside the file (``Class.method``; ``<module>`` for top-level code), built
    from names only, never from line numbers, so it survives unrelated edits around it. The full
    anchor used across the workspace is ``f"{rel_path}::{symbol}"``.
    """

    symbol: str
    kind: str  # function | method | class | interface | struct | enum | trait | impl | module | …
    start_line: int  # 1-based, inclusive
    end_line: int  # 1-based, inclusive
    start_byte: int
    end_byte: int
    signature: str  # the definition's header, shown in the repo map
    content_hash: str  # hash of the chunk's text; changes when the code changes
    text: str
    part: int = 0  # 1, 2, … when an oversized definition was split; 0 when whole
    syntax_hash: str = ""  # its syntax tree's hash (indexing/syntax.py), only when asked for (parse_file(syntax=True))


@dataclass(frozen=True, slots=True)
class Tag:
    """A definition or reference of a name (Aider's ``Tag``, plus where in the symbol tree it sits)."""

    name: str
    kind: str  # "def" | "ref"
    category: str  # function | method | class | call | type | constant | …
    line: int  # 1-based
    symbol: str  # def: the defined symbol's path; ref: the enclosing symbol's path ("" at top level)


@dataclass(frozen=True, slots=True)
class Import:
    """An import as written in the source; resolution to workspace files happens later."""

    spec: str  # "os.path", "..models" (Python relative), "./util", "fmt", "crate::a::b", "java.util.List"
    line: int
    names: tuple[str, ...] = ()  # names brought in, where the syntax lists them


@dataclass(slots=True)
class FileParse:
    language: str
    chunks: list[Chunk] = field(default_factory=list)
    tags: list[Tag] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    has_errors: bool = False  # tree-sitter recovered from syntax errors; results are best effort
