"""Reading a damaged SQLite file page by page, without SQLite: what recovery salvages rows with.

SQLite stops at the first damaged page it meets; this reader walks each b-tree from its root, skips
a page that does not parse (counting it), and decodes every cell of the pages it can read, so a
damaged page costs only the rows stored on it. Work is bounded by the file's size: each page is read
at most once per walk, and :meth:`PageFile.orphan_leaves` finds, in one pass, the table leaves that a
damaged interior page cut off from their tree. The format is SQLite's own, documented at
https://www.sqlite.org/fileformat2.html (section numbers below refer to it).
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAGIC = b"SQLite format 3\x00"
HEADER_BYTES = 100
PAGE_SIZES = (4096, 1024, 2048, 8192, 16384, 32768, 65536, 512)  # SQLite's default first, when the header is gone
TABLE_INTERIOR, TABLE_LEAF, INDEX_INTERIOR, INDEX_LEAF = 5, 13, 2, 10
MAX_OVERFLOW_PAGES = 1 << 16  # a longer chain is a loop through damaged pages: memory texts are far shorter

Value = int | float | str | bytes | None
Progress = Callable[[int, int], None]  # (pages done, pages in all)


class PageError(Exception):
    """A page (or a cell on it) that does not parse: damaged."""


@dataclass
class Walk:
    """What one walk of a b-tree read: rows (rowid, values) or index keys, and the pages it could not."""

    rows: list[tuple[int, list[Value]]] = field(default_factory=list)
    pages: set[int] = field(default_factory=set)  # pages of the tree that were read
    bad_pages: set[int] = field(default_factory=set)
    bad_cells: int = 0


class PageFile:
    """One SQLite database file, opened read-only as bytes."""

    def __init__(self, path: Path) -> None:
        with open(path, "rb") as f:  # mapped, not read: a large file costs address space, not memory
            self.data: bytes | mmap.mmap = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if f.seek(0, 2) else b""
        self.header_ok = self.data[:16] == MAGIC
        self.page_size = self._page_size()
        reserved = self.data[20] if self.header_ok and len(self.data) > 20 else 0
        self.usable = self.page_size - reserved
        self.page_count = len(self.data) // self.page_size
        encoding = int.from_bytes(self.data[56:60], "big") if self.header_ok else 1
        self.encoding = {2: "utf-16-le", 3: "utf-16-be"}.get(encoding, "utf-8")

    def _page_size(self) -> int:
        if self.header_ok:
            size = int.from_bytes(self.data[16:18], "big")
            size = 65_536 if size == 1 else size
            if size >= 512 and not size & (size - 1):
                return size
        # the header is gone: the size at which page 2 (usually a b-tree root) parses as a b-tree page
        for size in PAGE_SIZES:
            if len(self.data) >= 2 * size and self.data[size] in (
                TABLE_INTERIOR,
                TABLE_LEAF,
                INDEX_INTERIOR,
                INDEX_LEAF,
            ):
                return size
        return PAGE_SIZES[0]

    def page(self, number: int) -> bytes:
        if not 1 <= number <= self.page_count:
            raise PageError(f"page {number} is outside the file")
        start = (number - 1) * self.page_size
        return bytes(self.data[start : start + self.page_size])

    # ------------------------------------------------------------ b-tree pages (1.6)

    def _parse(self, number: int) -> tuple[int, bytes, int, list[int], int]:
        """(page type, page bytes, header offset, cell offsets, right-most child or 0)."""
        page = self.page(number)
        at = HEADER_BYTES if number == 1 else 0
        kind = page[at]
        if kind not in (TABLE_INTERIOR, TABLE_LEAF, INDEX_INTERIOR, INDEX_LEAF):
            raise PageError(f"page {number} is not a b-tree page (type {kind})")
        cells = int.from_bytes(page[at + 3 : at + 5], "big")
        interior = kind in (TABLE_INTERIOR, INDEX_INTERIOR)
        header = 12 if interior else 8
        if at + header + 2 * cells > self.usable:
            raise PageError(f"page {number} claims {cells} cells, more than fit")
        right = int.from_bytes(page[at + 8 : at + 12], "big") if interior else 0
        offsets = [int.from_bytes(page[p : p + 2], "big") for p in range(at + header, at + header + 2 * cells, 2)]
        if any(not at + header <= o < self.usable for o in offsets):
            raise PageError(f"page {number} has a cell pointer outside the page")
        return kind, page, at, offsets, right

    def walk(self, root: int, *, seen: set[int] | None = None, progress: Progress | None = None) -> Walk:
        """Every row (table) or key (index) reachable from ``root``; unreadable pages are skipped and counted."""
        out = Walk()
        seen = seen if seen is not None else set()
        stack = [root]
        while stack:
            number = stack.pop()
            if number in seen:
                continue  # a loop, or a page two trees claim: read once
            seen.add(number)
            try:
                kind, page, _, offsets, right = self._parse(number)
            except PageError:
                out.bad_pages.add(number)
                continue
            out.pages.add(number)
            if progress is not None:
                progress(len(seen), self.page_count)
            if kind in (TABLE_INTERIOR, INDEX_INTERIOR):
                children = [int.from_bytes(page[o : o + 4], "big") for o in offsets] + [right]
                stack.extend(reversed(children))
            if kind != TABLE_INTERIOR:
                self._cells(kind, page, offsets, out)
        return out

    def orphan_leaves(self, reached: set[int], free: set[int]) -> Iterator[tuple[int, list[tuple[int, list[Value]]]]]:
        """Table leaves that no walked tree reached (their parent is damaged), with their rows: one pass."""
        for number in range(2, self.page_count + 1):
            if number in reached or number in free or self.page(number)[0] != TABLE_LEAF:
                continue
            leaf = Walk()
            try:
                kind, page, _, offsets, _ = self._parse(number)
                self._cells(kind, page, offsets, leaf)
            except PageError:
                continue
            yield number, leaf.rows

    def freelist(self) -> set[int]:
        """Pages on the freelist (1.5): deleted content, never salvaged. Empty when the header is gone."""
        if not self.header_ok:
            return set()
        free: set[int] = set()
        trunk = int.from_bytes(self.data[32:36], "big")
        while trunk and trunk not in free and trunk <= self.page_count:
            free.add(trunk)
            page = self.page(trunk)
            count = min(int.from_bytes(page[4:8], "big"), (self.usable - 8) // 4)
            free.update(int.from_bytes(page[8 + 4 * i : 12 + 4 * i], "big") for i in range(count))
            trunk = int.from_bytes(page[0:4], "big")
        return free

    # ------------------------------------------------------------ cells and records (1.6, 2.1)

    def _cells(self, kind: int, page: bytes, offsets: list[int], out: Walk) -> None:
        for offset in offsets:
            try:
                out.rows.append(self._cell(kind, page, offset))
            except (PageError, IndexError, UnicodeDecodeError, struct.error, ValueError):
                out.bad_cells += 1

    def _cell(self, kind: int, page: bytes, at: int) -> tuple[int, list[Value]]:
        if kind == INDEX_INTERIOR:
            at += 4  # left child
        size, at = varint(page, at)
        rowid = 0
        if kind == TABLE_LEAF:
            rowid, at = varint(page, at)
            if rowid >= 1 << 63:
                rowid -= 1 << 64
        payload = self._payload(page, at, size, table=kind == TABLE_LEAF)
        return rowid, self._record(payload)

    def _payload(self, page: bytes, at: int, size: int, *, table: bool) -> bytes:
        """The cell's payload, following its overflow chain when it does not fit on the page (1.6)."""
        u = self.usable
        x = u - 35 if table else ((u - 12) * 64 // 255) - 23
        if size <= x:
            local = size
        else:
            m = ((u - 12) * 32 // 255) - 23
            k = m + (size - m) % (u - 4)
            local = k if k <= x else m
        if at + local > u:
            raise PageError("a cell runs past its page")
        parts = [page[at : at + local]]
        got = local
        if size > local:
            nxt = int.from_bytes(page[at + local : at + local + 4], "big")
            hops = 0
            while got < size:
                hops += 1
                if not nxt or hops > MAX_OVERFLOW_PAGES:
                    raise PageError("an overflow chain ends early")
                over = self.page(nxt)
                take = min(size - got, u - 4)
                parts.append(over[4 : 4 + take])
                got += take
                nxt = int.from_bytes(over[0:4], "big")
        return b"".join(parts)

    def _record(self, payload: bytes) -> list[Value]:
        """The values of one record (2.1); a malformed one raises."""
        header_size, at = varint(payload, 0)
        if not 0 < header_size <= len(payload):
            raise PageError("a record header of impossible size")
        types: list[int] = []
        while at < header_size:
            serial, at = varint(payload, at)
            types.append(serial)
        body = header_size
        values: list[Value] = []
        for serial in types:
            value, body = self._value(payload, body, serial)
            values.append(value)
        if body != len(payload):
            raise PageError("a record whose values do not fill it")
        return values

    def _value(self, data: bytes, at: int, serial: int) -> tuple[Value, int]:
        if serial == 0:
            return None, at
        if 1 <= serial <= 6:
            width = (0, 1, 2, 3, 4, 6, 8)[serial]
            if at + width > len(data):
                raise PageError("a value past the end of its record")
            return int.from_bytes(data[at : at + width], "big", signed=True), at + width
        if serial == 7:
            return struct.unpack(">d", data[at : at + 8])[0], at + 8
        if serial in (8, 9):
            return serial - 8, at
        if serial in (10, 11):
            raise PageError("a reserved serial type")
        length = (serial - 12) // 2
        if at + length > len(data):
            raise PageError("a value past the end of its record")
        raw = data[at : at + length]
        return (raw if serial % 2 == 0 else raw.decode(self.encoding)), at + length


def varint(data: bytes, at: int) -> tuple[int, int]:
    """SQLite's big-endian variable-length integer (1-9 bytes) at ``at``: (value, offset after it)."""
    value = 0
    for i in range(8):
        byte = data[at + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    return (value << 8) | data[at + 8], at + 9


def schema(pages: PageFile, progress: Progress | None = None) -> tuple[list[dict[str, Any]], Walk]:
    """The rows of ``sqlite_schema`` (type, name, tbl_name, rootpage, sql) that page 1's tree still holds."""
    walk = pages.walk(1, progress=progress)
    rows = []
    for _, values in walk.rows:
        if len(values) == 5:
            rows.append(dict(zip(("type", "name", "tbl_name", "rootpage", "sql"), values, strict=True)))
    return rows, walk


__all__ = ["PageError", "PageFile", "Walk", "schema", "varint"]
