"""The error a commit message quotes, as a matcher would look for it (``KeyError: 'x'``, a traceback's last line)."""

from __future__ import annotations

import re

ERROR_TEXT_CHARS = 200  # the error text kept beside its name: enough to match a log line, not a traceback
# an error the message quotes: ``KeyError: 'x'``, ``requests.exceptions.SSLError``, a traceback's last line
ERROR_SIGNATURE = re.compile(r"\b((?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Warning|Exit))\b(?::\s*([^\n]+))?")


def error_signature(subject: str, body: str) -> str | None:
    """The error a message quotes, as a matcher would look for it: ``Name: text`` (text cut), or the name alone."""
    for text in (subject, body):
        for m in ERROR_SIGNATURE.finditer(text):
            name = m.group(1)
            if name.lower() in ("error", "exception", "warning"):
                continue
            detail = _unquoted((m.group(2) or "").strip(), text[m.start() - 1 : m.start()])
            if detail and len(detail) > ERROR_TEXT_CHARS:
                detail = detail[: ERROR_TEXT_CHARS - 1] + "…"
            return f"{name}: {detail}" if detail else name
    return None


def _unquoted(detail: str, before: str) -> str:
    """An error's text without the closing quote of the quotation that holds the error (``raise "TypeError: no
    implicit conversion"``: the text ends at the quote that opened before the name) and what follows it."""
    if before in QUOTES and (end := detail.find(QUOTES[before])) >= 0:
        return detail[:end].rstrip()
    return detail


QUOTES = {'"': '"', "'": "'", "`": "`", "“": "”", "‘": "’"}  # an opening quote and the quote that closes it
