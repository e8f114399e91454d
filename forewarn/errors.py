"""The one root of Forewarn's own errors.

Every error Forewarn raises on purpose (bad input, damaged data, a missing model, an unknown memory)
derives from ``ForewarnError`` and carries a message written for the person reading it. Each front end
(the command line, the language server, the MCP server) catches ``ForewarnError`` once, at its edge, and
shows the message; anything else is a bug and keeps its traceback. Subclasses live beside the code that
raises them; this module imports nothing of Forewarn's, so every layer may use it.
"""

from __future__ import annotations


class ForewarnError(Exception):
    """An error with a message meant for the user; front ends show ``str(exc)`` and keep serving."""
