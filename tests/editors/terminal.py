"""Turns a tmux pane capture (``capture-pane -e``: text with SGR colour codes) into an HTML page,
so Chromium can render a real Neovim screen as a PNG for the README."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, replace

SGR = re.compile(r"\x1b\[([0-9;:]*)m")
OTHER_ESCAPE = re.compile(r"\x1b(?:\[[0-9;?]*[A-Za-z]|\][^\x07]*\x07|[()][A-Za-z0-9])")
DEFAULT_FG = "#e0e2ea"  # Neovim 0.10+'s default dark scheme (NvimLightGrey2 on NvimDarkGrey1)
DEFAULT_BG = "#14161b"
# the xterm palette for the 16 basic colours
BASIC = [
    "#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
    "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
]  # fmt: skip


@dataclass(frozen=True)
class Style:
    fg: str | None = None
    bg: str | None = None
    bold: bool = False
    italic: bool = False
    underline: bool = False
    reverse: bool = False

    def css(self) -> str:
        fg, bg = self.fg or DEFAULT_FG, self.bg or DEFAULT_BG
        if self.reverse:
            fg, bg = bg, fg
        rules = [f"color:{fg}", f"background:{bg}"]
        if self.bold:
            rules.append("font-weight:bold")
        if self.italic:
            rules.append("font-style:italic")
        if self.underline:
            rules.append("text-decoration:underline")
        return ";".join(rules)


def xterm256(n: int) -> str:
    if n < 16:
        return BASIC[n]
    if n < 232:
        n -= 16
        levels = [0, 95, 135, 175, 215, 255]
        return f"#{levels[n // 36]:02x}{levels[n // 6 % 6]:02x}{levels[n % 6]:02x}"
    grey = 8 + (n - 232) * 10
    return f"#{grey:02x}{grey:02x}{grey:02x}"


def apply_sgr(style: Style, params: str) -> Style:
    codes = [int(p) if p else 0 for p in re.split(r"[;:]", params)] if params else [0]
    i = 0
    while i < len(codes):
        code = codes[i]
        if code in (38, 48) and i + 1 < len(codes):
            if codes[i + 1] == 5 and i + 2 < len(codes):
                colour, i = xterm256(codes[i + 2]), i + 3
            elif codes[i + 1] == 2 and i + 4 < len(codes):
                colour, i = "#{:02x}{:02x}{:02x}".format(*codes[i + 2 : i + 5]), i + 5
            else:
                i += 2
                continue
            style = replace(style, fg=colour) if code == 38 else replace(style, bg=colour)
            continue
        if code == 0:
            style = Style()
        elif code == 1:
            style = replace(style, bold=True)
        elif code == 3:
            style = replace(style, italic=True)
        elif code in (4, 21):
            style = replace(style, underline=True)
        elif code == 7:
            style = replace(style, reverse=True)
        elif code == 22:
            style = replace(style, bold=False)
        elif code == 23:
            style = replace(style, italic=False)
        elif code == 24:
            style = replace(style, underline=False)
        elif code == 27:
            style = replace(style, reverse=False)
        elif 30 <= code <= 37 or 90 <= code <= 97:
            style = replace(style, fg=BASIC[code - 30 if code < 90 else code - 82])
        elif 40 <= code <= 47 or 100 <= code <= 107:
            style = replace(style, bg=BASIC[code - 40 if code < 100 else code - 92])
        elif code == 39:
            style = replace(style, fg=None)
        elif code == 49:
            style = replace(style, bg=None)
        i += 1
    return style


def capture_to_html(capture: str, title: str) -> str:
    """One <span> per run of equally styled text; the style carries over line ends, as in the terminal."""
    style = Style()
    lines = []
    for raw in capture.rstrip("\n").split("\n"):
        parts = []
        pos = 0
        for match in SGR.finditer(raw):
            text = OTHER_ESCAPE.sub("", raw[pos : match.start()])
            if text:
                parts.append(f'<span style="{style.css()}">{html.escape(text)}</span>')
            style = apply_sgr(style, match.group(1))
            pos = match.end()
        text = OTHER_ESCAPE.sub("", raw[pos:])
        if text:
            parts.append(f'<span style="{style.css()}">{html.escape(text)}</span>')
        lines.append("".join(parts))
    body = "\n".join(lines)
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
  html, body {{ margin: 0; background: {DEFAULT_BG}; }}
  pre {{ margin: 0; padding: 8px; font: 14px/17px "DejaVu Sans Mono", monospace; color: {DEFAULT_FG}; }}
</style></head>
<body><pre>{body}</pre></body></html>
"""
