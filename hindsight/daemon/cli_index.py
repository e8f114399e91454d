"""Commands of this group are registered here (filled in by the issue that owns them)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add this module's subcommands to the hindsight parser."""
