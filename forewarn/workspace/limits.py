"""Limits the workspace enforces and its front ends share: one definition each, imported where used.

Imports nothing, so the language server can read them without loading the engine.
"""

from __future__ import annotations

MAX_TEXT_CHARS = 20_000  # a memory is a lesson, not a log file; longer input is refused, not cut
# memories shown on a file at most (diagnostics on open): past this nobody reads them, and the
# file-open budget (15 ms at 100k memories, bench/lsp_bench.py) is measured at this many
PROACTIVE_LIMIT = 20
SEARCH_CHUNKS = 5  # code chunks shown beside memories in a search: a cold-start answer, not the main result
