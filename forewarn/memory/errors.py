"""The memory package's user-facing errors."""

from __future__ import annotations

from pathlib import Path

from forewarn.errors import ForewarnError


class MemoryError_(ForewarnError):
    """Base of the memory package's user-facing errors."""


class MemoryDatabaseCorruptError(MemoryError_):
    """``memory.db`` cannot be read. It is left in place, untouched: memories are user data.

    ``path`` names the file; ``forewarn memory recover`` (forewarn.memory.recovery) moves it aside and
    salvages what SQLite can read, when the user asks.
    """

    def __init__(self, path: Path, cause: BaseException) -> None:
        reason = " ".join(str(cause).split())  # one line: front ends print it as one
        super().__init__(
            f"The memory database {path} is damaged ({reason}). Forewarn stopped reading and writing it and "
            f"left it untouched; run `forewarn memory recover` to salvage its memories (the damaged file is kept)."
        )
        self.path = path
        self.cause = cause


class MemoryNotFoundError(MemoryError_):
    pass


class AmbiguousMemoryIdError(MemoryNotFoundError):
    """An id prefix matching several memories; says how to tell them apart (CLI and editor alike)."""


class InvalidMemoryError(MemoryError_, ValueError):
    pass
