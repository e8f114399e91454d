"""Text helpers shared by the memory package: ids, timestamps, identifier splitting, safe FTS5 queries.

Everything a user types must be a valid search, so FTS5 queries are built here from extracted word
tokens, each quoted; raw FTS5 syntax (``NEAR``, ``AND``, ``*``, ``:``, parentheses) never reaches
SQLite.
"""

from __future__ import annotations

import functools
import os
import re
import threading
import time
from datetime import UTC, datetime

# ---------------------------------------------------------------- ids

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_id_lock = threading.Lock()
_last_ms = 0
_last_rand = 0
RANDOM_BITS = 80  # ULID layout: 48-bit millisecond time + 80 random bits


def new_id(now: float | None = None) -> str:
    """A ULID: 26 Crockford base32 characters, sortable by creation time, monotonic within a process."""
    global _last_ms, _last_rand
    ms = int((time.time() if now is None else now) * 1000)
    with _id_lock:
        if ms <= _last_ms:
            # same millisecond (or clock went back): keep order by incrementing the random part
            ms = _last_ms
            rand = (_last_rand + 1) % (1 << RANDOM_BITS)
        else:
            rand = int.from_bytes(os.urandom(10), "big")
        _last_ms, _last_rand = ms, rand
    value = (ms << RANDOM_BITS) | rand
    chars = []
    for _ in range(26):
        chars.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(chars))


ID_PREFIX_RE = re.compile(r"^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{4,26}$")


def normalise_id_prefix(text: str) -> str | None:
    """Upper-cased id or id prefix typed by a user, or None when it cannot be one."""
    text = text.strip()
    return text.upper() if ID_PREFIX_RE.match(text) else None


# ---------------------------------------------------------------- time


def to_iso(epoch: float) -> str:
    """UTC ISO-8601 with microseconds and ``Z``: fixed width, so strings sort as times do."""
    return iso_of(datetime.fromtimestamp(epoch, UTC))


def iso_of(dt: datetime) -> str:
    """``dt`` as stored: UTC, microseconds, ``Z``, and always a four-digit year.

    ``strftime("%Y")`` does not zero-pad years below 1000 on glibc, and ``from_iso`` cannot read
    such a string back; ``isoformat`` always pads.
    """
    return dt.astimezone(UTC).isoformat(timespec="microseconds").removesuffix("+00:00") + "Z"


def parse_iso(text: str) -> datetime:
    """An aware UTC datetime from ISO-8601 text (naive values are UTC); ValueError says what is wrong."""
    raw = text.strip()
    try:
        dt = datetime.fromisoformat(raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw)
    except ValueError:
        # rows written before years were padded ("1-01-01T…"): read them, so a poisoned store still lists
        padded = _UNPADDED_YEAR_RE.sub(lambda m: m.group(1).zfill(4) + "-", raw, count=1)
        try:
            dt = datetime.fromisoformat(padded[:-1] + "+00:00" if padded.endswith(("Z", "z")) else padded)
        except ValueError:
            raise ValueError(
                f"'{text}' is not an ISO-8601 date or time (e.g. 2025-03-01 or 2025-03-01T12:00:00Z)"
            ) from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        return dt.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00 is before year 1 in UTC
        raise ValueError(f"'{text}' is outside the years 1 to 9999") from None


_UNPADDED_YEAR_RE = re.compile(r"^(\d{1,3})-")


@functools.lru_cache(maxsize=262_144)  # ranking parses the same timestamps on every search: parse each once
def from_iso(text: str) -> float:
    """Epoch seconds from an ISO-8601 date or date-time; naive values are taken as UTC.

    Raises ValueError with a readable message on anything else.
    """
    return parse_iso(text).timestamp()


def age_text(seconds: float) -> str:
    """A short human age: "3 days", "5 months"."""
    seconds = max(0.0, seconds)
    for unit, size in (("year", 365 * 86400), ("month", 30 * 86400), ("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return "just now"


# ---------------------------------------------------------------- identifiers and search terms

_WORD_RE = re.compile(r"\w+", re.UNICODE)
# camelCase / PascalCase / ACRONYMWord / digit boundaries
_CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def split_identifier(word: str) -> list[str]:
    """``useTerminalStore`` → [use, terminal, store]; ``HTTPServer_v2`` → [http, server, v, 2]."""
    parts: list[str] = []
    for piece in word.split("_"):
        parts.extend(m.group(0).lower() for m in _CAMEL_RE.finditer(piece))
    return [p for p in parts if p]


def identifier_terms(*texts: str | None) -> str:
    """The split forms of every compound identifier in ``texts``, space-separated, for the FTS index.

    Only words that split into several parts are expanded: plain words are already indexed as is. A
    snake_case name is also given whole without its underscores (``retry_upload`` → ``retryupload``), the
    way unicode61 already keeps a camelCase one, so either spelling typed as one word finds both.
    """
    out: list[str] = []
    seen: set[str] = set()
    for text in texts:
        if not text:
            continue
        for m in _WORD_RE.finditer(text):
            word = m.group(0)
            parts = split_identifier(word)
            if len(parts) > 1:
                forms = [" ".join(parts)]
                if "_" in word.strip("_"):
                    forms.append("".join(parts))
                for form in forms:
                    if form not in seen:
                        seen.add(form)
                        out.append(form)
    return " ".join(out)


# fmt: off
STOPWORDS = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did", "do", "does", "for",
    "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "no", "not", "of",
    "on", "or", "our", "should", "so", "than", "that", "the", "their", "them", "then", "there", "these", "they",
    "this", "those", "to", "too", "was", "we", "were", "what", "when", "where", "which", "who", "why", "will",
    "with", "would", "you", "your",
))
# fmt: on
MAX_QUERY_TERMS = 48  # a pasted megabyte still becomes a bounded query; more terms add little recall


def query_terms(text: str) -> list[str]:
    """Lower-cased search terms from free text: words, plus the parts of compound identifiers.

    Stop words are dropped unless nothing else remains (a search for "to do" still searches).
    """
    words: list[str] = []
    seen: set[str] = set()

    def add(term: str) -> None:
        if term and term not in seen:
            seen.add(term)
            words.append(term)

    for m in _WORD_RE.finditer(text):
        word = m.group(0)
        add(word.lower())
        parts = split_identifier(word)
        if len(parts) > 1:
            for part in parts:
                add(part)
        if len(words) >= MAX_QUERY_TERMS * 2:
            break
    content = [w for w in words if w not in STOPWORDS and w.strip("_")]
    chosen = content or [w for w in words if w.strip("_")]
    return chosen[:MAX_QUERY_TERMS]


def fts_match_expression(text: str) -> str | None:
    """A safe FTS5 MATCH expression: every term double-quoted, OR-ed (BM25 rewards matching more terms).

    None when the text has no searchable word (empty, only punctuation).
    """
    return match_terms(query_terms(text))


def match_terms(terms: list[str]) -> str | None:
    """Quoted, OR-ed terms (None for none): the only shape of FTS5 query Forewarn builds."""
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


_WS_RE = re.compile(r"\s+")


def normalise_text(text: str) -> str:
    """Text for exact-duplicate comparison: case-folded, whitespace collapsed."""
    return _WS_RE.sub(" ", text).strip().casefold()


# C0 but newline and tab, DEL, C1 (a terminal may act on U+009B CSI and U+009D OSC), the bidi embeddings,
# overrides and isolates that reorder what a reader sees, and the invisible tag characters
_CONTROL_RE = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]"
)


# a terminal's escape sequence whole (colour, cursor, title, link): dropping only its ESC would leave "[31m"
_ESCAPE_SEQUENCE_RE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI, 7-bit or C1: parameters, intermediates, the final byte
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC (a title, a hyperlink) to its terminator
    r"|\x1b[ -/]*[0-~]"  # any other escape: ESC, intermediates, one final byte
)


def clean_memory_text(text: str) -> str:
    """Memory text as stored: terminal escape sequences removed whole, then control, C1, bidi-override and tag
    characters (NEL and CR become newlines; newline and tab stay), ends trimmed. Idempotent: cleaning stored text
    changes nothing.

    Lone surrogates (undecodable command-line bytes, ``\\ud800`` in JSON) cannot be stored as UTF-8:
    they become U+FFFD, so the rest of the text is kept instead of the write failing.
    """
    text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    text = _ESCAPE_SEQUENCE_RE.sub("", text)
    return _CONTROL_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n").replace("\x85", "\n")).strip()
