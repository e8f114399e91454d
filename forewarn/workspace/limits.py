"""Limits the workspace enforces and its front ends share: one definition each, imported where used.

The memory text limit is the memory package's (forewarn.memory.validation: import checks it too).
"""

from __future__ import annotations

from forewarn.memory.validation import MAX_TEXT_CHARS

__all__ = ["MAX_TEXT_CHARS", "PROACTIVE_LIMIT"]

# memories shown on a file at most (diagnostics on open): past this nobody reads them, and the
# file-open budget (15 ms at 100k memories, bench/lsp_bench.py) is measured at this many
PROACTIVE_LIMIT = 20
