"""The guard every ``FolderSession`` call stands behind: a damaged memory database refuses the folder.

``Unavailable`` is what a request gets when the folder has no working engine; ``_refusing_damage`` wraps a session
method (of ``FolderSession`` or one of the mixins it is built from) so the first ``MemoryDatabaseCorruptError`` is
kept and every later call answers quietly or with ``Unavailable``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from forewarn.errors import ForewarnError
from forewarn.memory.errors import MemoryDatabaseCorruptError


class Unavailable(ForewarnError):
    """The folder has no working engine (unreadable workspace, damaged database…); says why."""


class Guarded(Protocol):
    """What the guard reads and sets on a session: the damage first seen (None while the database is sound)."""

    damage: MemoryDatabaseCorruptError | None


S = TypeVar("S", bound=Guarded)
P = ParamSpec("P")
R = TypeVar("R")
Method = Callable[Concatenate[S, P], R]


def _refusing_damage(quiet: Callable[[], Any] | None = None) -> Callable[[Method[S, P, R]], Method[S, P, R]]:
    """A session call on a damaged memory database: ``quiet()``'s empty answer (diagnostics, hovers and
    background work show nothing), else ``Unavailable`` naming ``forewarn memory recover`` (requests
    answer RequestFailed). The first sighting, at open or from any call, is kept for ``take_damage``."""

    def wrap(method: Method[S, P, R]) -> Method[S, P, R]:
        @functools.wraps(method)
        def guarded(self: S, *args: P.args, **kwargs: P.kwargs) -> R:
            if self.damage is None:
                try:
                    return method(self, *args, **kwargs)
                except MemoryDatabaseCorruptError as exc:
                    self.damage = exc
            if quiet is not None:
                result: R = quiet()
                return result
            raise Unavailable(str(self.damage)) from self.damage

        return guarded

    return wrap
