"""``forewarn mcp`` — serve the workspace's memories to coding agents over MCP (stdio).

fd 1 belongs to the protocol alone. Opening the workspace may load llama.cpp, which logs to fd 1, so fd 1
points at stderr until the workspace is open; then it is handed back and the MCP SDK's stdio transport
claims it (diverting fd 1 to stderr again while it serves). The background index starts only then.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from forewarn.cli import util as cliutil
from forewarn.config import load_settings

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``mcp`` to the forewarn parser."""
    from forewarn.mcp.render import DEFAULT_BUDGET, MAX_BUDGET, MIN_BUDGET

    parser = sub.add_parser(
        "mcp",
        help="serve memories to coding agents over MCP (stdio)",
        description="Serve the workspace's memories to coding agents as MCP tools over stdin/stdout.",
    )
    cliutil.add_workspace_flag(parser)
    parser.add_argument(
        "--budget",
        type=cliutil.int_in(MIN_BUDGET, MAX_BUDGET),
        default=DEFAULT_BUDGET,
        metavar="TOKENS",
        help=f"default token budget of a tool answer ({MIN_BUDGET}-{MAX_BUDGET}; default {DEFAULT_BUDGET})",
    )
    parser.add_argument(
        "--trust-agents",
        action="store_true",
        help="what agents remember is active at once (default: a suggestion a person accepts; "
        "or set [agents] trust = true in your config.toml)",
    )
    parser.add_argument(
        "--no-index", action="store_true", help="do not bring the code index up to date at start (answer as it is)"
    )
    parser.add_argument("--log-file", type=Path, default=None, help="also write the server log to this file")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    root = cliutil.workspace_root(args)
    from forewarn.cli.serve import configure_logging

    configure_logging(args.log_file, args.verbose)
    settings, problems = load_settings(root)
    for problem in problems:
        log.warning("settings: %s", problem)
    from forewarn.mcp.server import ForewarnMcp, run_stdio

    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)  # while the model loads: anything printed to fd 1 goes to stderr
    try:
        app = ForewarnMcp(root, settings, budget=args.budget, index_on_start=not args.no_index)
    finally:
        os.dup2(protocol_fd, 1)
        os.close(protocol_fd)
    log.info("serving %s over MCP (search: %s)", root, app.workspace.mode if app.workspace else "unavailable")
    run_stdio(app, trust_agents=True if args.trust_agents else None)
    logging.shutdown()
    return 0
