"""``forewarn serve`` — run the language server over stdio (default) or loopback TCP.

Over stdio, fd 1 belongs to the protocol alone: it is duplicated for the transport, then fd 1 and
``sys.stdout`` are pointed at stderr, so a stray ``print`` or a C library writing to fd 1 (llama.cpp
logs there) lands in the log instead of corrupting the JSON-RPC stream.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import BinaryIO

from forewarn.cli import util as cliutil
from forewarn.cli.util import CliError

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"  # loopback: the daemon reads and writes the user's files and memories
DEFAULT_PORT = 2087  # the port pygls examples use; 0 asks the OS for a free one
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve`` to the forewarn parser."""
    parser = sub.add_parser("serve", help="run the language server (stdio by default)")
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    transport.add_argument("--tcp", action="store_true", help="listen for one LSP client over TCP")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"TCP address to bind (default {DEFAULT_HOST})")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT}; 0 = any)")
    parser.add_argument("--log-file", type=Path, default=None, help="also write the server log to this file")
    parser.add_argument(
        "-w",
        "--workspace",
        type=Path,
        default=None,
        metavar="DIR",
        help="the folder to serve when the editor names none (its own workspace folders always win)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # -w is never discovered from the cwd: an editor starts servers from wherever it was started
    fallback_root = cliutil.workspace_root(args) if args.workspace is not None else None
    _configure_logging(args.log_file, args.verbose)
    from forewarn.lsp.server import create_server, serve_tcp

    if args.tcp:
        if not 0 <= args.port <= 65535:
            raise CliError(f"--port {args.port} is not a TCP port")
        server = create_server()
        server.log_level_from_cli = args.verbose > 0
        server.fallback_root = fallback_root
        try:
            serve_tcp(server, args.host, args.port)
        except OSError as exc:
            raise CliError(f"cannot listen on {args.host}:{args.port}: {exc}") from exc
        return _exit(server.finish())
    protocol_out = claim_stdout()
    server = create_server()
    server.log_level_from_cli = args.verbose > 0
    server.fallback_root = fallback_root
    server.start_io(sys.stdin.buffer, protocol_out)
    return _exit(server.finish())


def _exit(code: int) -> int:
    """Leave now: pygls' stdin reader thread may be blocked in ``readline`` and cannot be joined."""
    logging.shutdown()
    sys.stderr.flush()
    os._exit(code)


def claim_stdout() -> BinaryIO:
    """Keep the real stdout for the protocol; everything else that writes to fd 1 goes to stderr."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(protocol_fd, "wb")


def _configure_logging(log_file: Path | None, verbose: int) -> None:
    root = logging.getLogger()
    for handler in root.handlers:
        handler.setFormatter(logging.Formatter(LOG_FORMAT))
    if log_file is not None:
        try:
            log_file.parent.mkdir(parents=True, exist_ok=True)
            file_handler = logging.FileHandler(log_file, encoding="utf-8")
        except OSError as exc:
            raise CliError(f"cannot write the log file {log_file}: {exc}") from exc
        file_handler.setFormatter(logging.Formatter(LOG_FORMAT))
        root.addHandler(file_handler)
    # our own logs at INFO by default; pygls logs every message body at INFO, so only with -vv
    logging.getLogger("forewarn").setLevel(logging.DEBUG if verbose else logging.INFO)
    logging.getLogger("pygls").setLevel(logging.DEBUG if verbose >= 2 else logging.WARNING)
