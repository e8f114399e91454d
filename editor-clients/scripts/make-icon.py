"""Draws the VS Code extension's 128x128 icon (editor-clients/vscode/media/icon.png) with the standard library.

An amber warning triangle with a dark exclamation mark on a rounded night-blue square: "forewarned".
Shapes are sampled 4x4 per pixel for smooth edges. Run: python3 editor-clients/scripts/make-icon.py
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

SIZE = 128
SAMPLES = 4  # per axis: 16 samples per pixel smooth the edges
OUT = Path(__file__).resolve().parents[1] / "vscode" / "media" / "icon.png"
BACKGROUND = (0x1B, 0x26, 0x3B)
TRIANGLE = (0xF5, 0xA5, 0x24)
MARK = (0x1B, 0x26, 0x3B)
CORNER = 22  # rounded-square corner radius, px


def in_rounded_square(x: float, y: float) -> bool:
    cx = min(max(x, CORNER), SIZE - CORNER)
    cy = min(max(y, CORNER), SIZE - CORNER)
    return (x - cx) ** 2 + (y - cy) ** 2 <= CORNER**2


def in_triangle(x: float, y: float) -> bool:
    top, bottom, half = 20.0, 108.0, 50.0
    if not top <= y <= bottom:
        return False
    return abs(x - SIZE / 2) <= half * (y - top) / (bottom - top)


def in_mark(x: float, y: float) -> bool:
    stem = abs(x - SIZE / 2) <= 6 - (y - 46) * 0.04 and 46 <= y <= 84
    dot = (x - SIZE / 2) ** 2 + (y - 95) ** 2 <= 6.5**2
    return stem or dot


def colour(x: float, y: float) -> tuple[int, int, int, int]:
    if in_mark(x, y) and in_triangle(x, y):
        return (*MARK, 255)
    if in_triangle(x, y):
        return (*TRIANGLE, 255)
    if in_rounded_square(x, y):
        return (*BACKGROUND, 255)
    return (0, 0, 0, 0)


def pixel(px: int, py: int) -> bytes:
    totals = [0, 0, 0, 0]
    for sy in range(SAMPLES):
        for sx in range(SAMPLES):
            r, g, b, a = colour(px + (sx + 0.5) / SAMPLES, py + (sy + 0.5) / SAMPLES)
            totals = [totals[0] + r * a, totals[1] + g * a, totals[2] + b * a, totals[3] + a]
    alpha = totals[3]
    if alpha == 0:
        return bytes(4)
    return bytes([round(totals[0] / alpha), round(totals[1] / alpha), round(totals[2] / alpha), alpha // SAMPLES**2])


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def main() -> None:
    rows = b"".join(b"\x00" + b"".join(pixel(x, y) for x in range(SIZE)) for y in range(SIZE))
    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)  # 8-bit RGBA
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(png)
    print(f"{OUT}: {len(png)} bytes")


if __name__ == "__main__":
    main()
