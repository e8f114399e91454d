"""One entry per lesson: what a file open shows, grouped.

A file's memories repeat themselves: mining once made one memory per symbol a commit touched, teammates
restate each other, and a neighbour's memory can say what the file's own says. An open shows each lesson
once: hits with the same headline (case and whitespace aside) become one lesson, shown where its best hit sits
and naming the other places; and the opened file's file-wide memories become one lesson, a summary on the
first line rather than one first-line entry each. Lessons keep the hits' order (``retrieval.proactive_key``:
place, type, score), each where its best hit was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from forewarn.memory.records import Memory
from forewarn.memory.retrieval import ProactiveHit
from forewarn.safe_text import headline


@dataclass(frozen=True, slots=True)
class Lesson:
    """What one entry of an open shows. ``hits``: best first; ``hits[0]`` is the one shown.

    A plain lesson's other hits say the same thing elsewhere (another symbol of the file, a neighbour). The
    file-wide summary (``file_wide``) holds every file-wide memory of the opened file, one lesson after another.
    """

    hits: tuple[ProactiveHit, ...]
    file_wide: bool = False

    @property
    def memory(self) -> Memory:
        return self.hits[0].memory

    @property
    def memories(self) -> list[Memory]:
        return [h.memory for h in self.hits]

    def distinct(self) -> list[ProactiveHit]:
        """The hits with distinct headlines, best first (a summary names each lesson once)."""
        seen: set[str] = set()
        out: list[ProactiveHit] = []
        for h in self.hits:
            key = text_key(h.memory.text)
            if key not in seen:
                seen.add(key)
                out.append(h)
        return out


def text_key(text: str) -> str:
    """Two memories say the same when their headlines (``safe_text.headline``: the first line, as a diagnostic
    shows it) are equal but for case and whitespace: a reader could not tell them apart anyway."""
    return headline(text).casefold()


def _file_wide(hit: ProactiveHit) -> bool:
    anchor = hit.memory.anchor
    return hit.relation == "file" and (anchor is None or anchor.symbol is None)


def group(hits: Sequence[ProactiveHit]) -> list[Lesson]:
    """``hits`` (in an open's order) as lessons, in the same order: one per text, the file-wide ones as one."""
    by_text: dict[str, list[ProactiveHit]] = {}
    for h in hits:
        by_text.setdefault(text_key(h.memory.text), []).append(h)
    lessons: list[Lesson] = []
    wide: list[ProactiveHit] = []
    wide_at: int | None = None
    for same in by_text.values():  # insertion order: each text where its best hit ranked
        if _file_wide(same[0]):
            if wide_at is None:
                wide_at = len(lessons)
            wide += same
        else:
            lessons.append(Lesson(tuple(same)))
    if wide_at is not None:
        lessons.insert(wide_at, Lesson(tuple(wide), file_wide=True))
    return lessons
