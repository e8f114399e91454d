"""What the index database stores and returns: file records, stored chunks, definitions, a file's parse ready to
write, and the changes a reader catches up with."""

from __future__ import annotations

from dataclasses import dataclass

from forewarn.indexing.records import Chunk, Import


@dataclass(frozen=True, slots=True)
class IndexChanges:
    """What changed in the index after generation ``since`` (see m004), up to ``generation``.

    ``whole``: the reader cannot be told file by file (another epoch, or it is behind the removal
    log) and should check everything; ``complete``: a full run has finished since the index was built
    (until then a file missing from it may simply not be indexed yet).
    """

    epoch: str
    generation: int
    complete: bool
    whole: bool
    changed: list[str]  # files (re)written after ``since``, present now
    removed: list[tuple[str, str | None]]  # (file, renamed_to or None) in the order they happened


@dataclass(frozen=True, slots=True)
class FileRecord:
    """What the index knows about one file; ``status`` is ok, errors or skipped (then ``reason``)."""

    rel: str
    language: str
    size: int
    mtime_ns: int
    content_hash: str
    status: str
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class CodeChunk:
    """A stored chunk: the parser's :class:`Chunk` plus its id and file."""

    id: int
    rel: str
    symbol: str
    kind: str
    start_line: int
    end_line: int
    start_byte: int
    end_byte: int
    signature: str
    content_hash: str
    text: str
    part: int


@dataclass(frozen=True, slots=True)
class Definition:
    rel: str
    name: str
    category: str
    line: int
    symbol: str
    signature: str


@dataclass(slots=True)
class FileContent:
    """Everything parsing one file produced, ready to store (built in worker processes)."""

    record: FileRecord
    chunks: list[Chunk]
    chunk_words: list[str]
    defs: list[tuple[str, str, int, str, str]]  # name, category, line, symbol, signature
    refs: dict[str, int]  # name -> number of references
    imports: list[Import]
