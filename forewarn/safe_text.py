"""Untrusted text made inert where Forewarn prints it: Markdown that renders as written, one-line fields.

Memory texts, file names, symbols and writers come from people, repositories, commit messages and agents.
Every front end (the language server's hovers and diagnostics, the MCP server, hooks, the CLI) passes them
through here before they reach a renderer. This module imports nothing of Forewarn's, so every layer may use it.
"""

from __future__ import annotations

import re
import unicodedata

CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
# every character that can open a Markdown construct somewhere: escaped wholesale only in the short
# fragments Forewarn writes inside its own markup (a type, a status), where position is not known
MARKDOWN_ACTIVE = "\\`*_[]<>&#|~!"
_MD_ACTIVE_RE = re.compile("([" + re.escape(MARKDOWN_ACTIVE) + "])")
_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")  # what a backslash escapes (CommonMark)
# line starts that open a block (after the line is stripped): a heading, quote, bullet, ordered item,
# fence, or a row of -, =, | and : (thematic break, setext underline, table delimiter row)
_BLOCK_START_RE = re.compile(
    r"#{1,6}(?=\s|$)|>|[-+*](?=\s|$)|\d{1,9}[.)](?=\s|$)|`{3,}|~{3,}|(?:\*\s*){3,}$|(?:_\s*){3,}$|[-=|:][-=|:\s]*$"
)
_DELIMITER_RUN_RE = re.compile(r"`+|\*+|_+|~+")
_HTML_OR_AUTOLINK_RE = re.compile(r"<(?=[A-Za-z/!?]|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@)")
_ENTITY_RE = re.compile(r"&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]*;)")
_LINK_CLOSE_RE = re.compile(r"\](?=[(\[:])")  # a link, image, reference or definition needs one of these
_BARE_LINK_RE = re.compile(  # what GFM (VS Code) turns into links by itself: scheme://, www., user@host.tld
    r"(?<=http)(?=://)|(?<=https)(?=://)|(?<=ftp)(?=://)|(?<=www)(?=\.)|(?<=[A-Za-z0-9._+-])(?=@[A-Za-z0-9_-]+\.[A-Za-z0-9])",
    re.IGNORECASE,
)


def escape_markdown(text: str) -> str:
    """Memory text as inert Markdown that reads as written: no link, image, HTML, heading, list, quote,
    table, code or emphasis forms, and a backslash appears only where one of those could start.

    CommonMark lets any ASCII punctuation be backslash-escaped; escaping every such character would
    show in editors that print Markdown source (Neovim's hover float: ``charge\\_card``), so each
    character is escaped only where it can open a construct: ``-``/``#``/``>``/``1.`` at a line's start,
    ``_`` or ``*`` only where it could pair into emphasis (never ``charge_card``), a backtick only when
    a run of its length could close it, ``]`` only before ``(``, ``[`` or ``:``, ``<`` only before a tag or autolink,
    ``&`` only before an entity, and bare ``http://``, ``www.`` and ``user@host`` that GFM renderers
    would link by themselves. Rendered, the text equals the input with control and bidi characters
    dropped, each line's surrounding whitespace trimmed and blank-line runs kept as one paragraph break.
    """
    cleaned = CONTROL_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    paragraphs: list[list[str]] = [[]]
    for line in cleaned.split("\n"):
        line = line.strip()  # leading spaces would make an indented code block; trailing ones a line break
        if line:
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
    return "\n\n".join("  \n".join(_escape_paragraph(lines)) for lines in paragraphs if lines)


def _escape_paragraph(lines: list[str]) -> list[str]:
    """Lines of one paragraph, escaped: which characters open something depends on the whole paragraph."""
    text = "\n".join(lines)
    escape: set[int] = set()  # offsets in ``text`` to put a backslash before
    start = 0
    for line in lines:  # block starts: every line is taken as a paragraph's first, the worst case
        if (m := _BLOCK_START_RE.match(line)) is not None:
            first = line[0]
            if first.isdigit():
                escape.add(start + m.end() - 1)  # "1." → "1\.": the delimiter, not the number
            elif first in "*_`~":
                escape.update(range(start, start + len(line) - len(line.lstrip(first))))  # the whole run
            else:
                escape.add(start)
        start += len(line) + 1
    for i, ch in enumerate(text):
        if ch == "\\" and (i + 1 == len(text) or text[i + 1] in _ASCII_PUNCT or text[i + 1] == "\n"):
            escape.add(i)  # an escape, or a hard line break
    for pattern in (_HTML_OR_AUTOLINK_RE, _ENTITY_RE, _LINK_CLOSE_RE):
        escape.update(m.start() for m in pattern.finditer(text))
    escape.update(m.start() for m in _BARE_LINK_RE.finditer(text))  # the "." or ":" or "@" after
    escape |= _pairing_delimiters(text, escape)
    return "".join(("\\" + ch if i in escape else ch) for i, ch in enumerate(text)).split("\n")


def _pairing_delimiters(text: str, escaped: set[int]) -> set[int]:
    """Offsets of backticks, ``*``, ``_`` and ``~`` that could pair into a code span, emphasis or strikethrough.

    Backticks are all escaped once a paragraph has two runs (or a fence): an escaped backtick cannot open
    a code span but can still close one, so escaping only some could pair the rest. An emphasis run is left
    alone when it cannot open or close (between two spaces; ``_`` between letters or digits, as in
    ``snake_case``) or has no partner after it. The flanking tests are looser than CommonMark's, so
    renderers that differ in details stay covered.
    """
    runs: dict[str, list[tuple[int, int, bool, bool]]] = {}
    ticks = [m for m in _DELIMITER_RUN_RE.finditer(text) if m.group()[0] == "`"]
    out: set[int] = set()
    if len(ticks) > 1 or any(m.start() in escaped for m in ticks):
        out.update(i for m in ticks for i in range(m.start(), m.end()))
    for m in _DELIMITER_RUN_RE.finditer(text):
        char = m.group()[0]
        if char == "`" or m.start() in escaped:  # backticks done; a run already made literal as a block start
            continue
        before = text[m.start() - 1] if m.start() > 0 else " "
        after = text[m.end()] if m.end() < len(text) else " "
        if char == "_" and _word_char(before) and _word_char(after):
            continue  # intraword: cannot open or close (snake_case_name)
        else:
            runs.setdefault(char, []).append((m.start(), m.end(), not after.isspace(), not before.isspace()))
    for found in runs.values():
        active = [r for r in found if r[2] or r[3]]
        opener = next((i for i, r in enumerate(active) if r[2]), None)
        if opener is not None and any(r[3] for r in active[opener + 1 :]):
            for run_start, run_end, _, _ in active:
                out.update(range(run_start, run_end))
    return out


def _word_char(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LN"


def escape_inline(text: str) -> str:
    """A short value inside Forewarn's own markup (a type, a status): one line, every active character escaped."""
    return _MD_ACTIVE_RE.sub(r"\\\1", " ".join(CONTROL_RE.sub("", text).split()))


def code_span(text: str) -> str:
    """``text`` as one inline code span that nothing in it can end early: whitespace (newlines too) collapsed
    to single spaces, fenced by more backticks than its longest run, padded when it starts or ends with one."""
    flat = " ".join(CONTROL_RE.sub("", text).split())
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def flat_text(text: str) -> str:
    """A name or path for a plain-text field (a symbol picker, a diagnostic): one line, no control characters."""
    return " ".join(CONTROL_RE.sub("", text).split())


def one_line(text: str, limit: int) -> str:
    """First line-ish of ``text`` (whitespace collapsed), cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(CONTROL_RE.sub("", text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


HEADLINE_MAX_CHARS = 120  # what a reader takes in at a glance (a diagnostic's first line, a review line)


def headline(text: str, limit: int = HEADLINE_MAX_CHARS) -> str:
    """The lesson at a glance: the first non-blank line of ``text`` (a commit's subject, a note's first line),
    control characters dropped and whitespace collapsed, cut at a word boundary with an ellipsis past ``limit``."""
    clean = CONTROL_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    first = next((" ".join(line.split()) for line in clean.split("\n") if line.strip()), "")
    if len(first) <= limit:
        return first
    cut = first[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:  # a word boundary not too far back; one long token is cut where it is
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "…"
