"""``forewarn serve`` — run the language server over stdio (default) or loopback TCP.

Over stdio, fd 1 belongs to the protocol alone: it is duplicated for the transport, then fd 1 and
``sys.stdout`` are pointed at stderr, so a stray ``print`` or a C library writing to fd 1 (llama.cpp
logs there) lands in the log instead of corrupting the JSON-RPC stream.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import socket
import stat
import sys
from pathlib import Path
from typing import Any, BinaryIO

from forewarn import paths
from forewarn.cli import util as cliutil
from forewarn.cli.util import CliError

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"  # loopback: the daemon reads and writes the user's files and memories
DEFAULT_PORT = 2087  # the port pygls examples use; 0 asks the OS for a free one
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
TOKEN_ENV = "FOREWARN_TCP_TOKEN"  # --tcp: the secret a client must send in initializationOptions.token


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve`` to the forewarn parser."""
    parser = sub.add_parser("serve", help="run the language server (stdio by default)")
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    transport.add_argument("--tcp", action="store_true", help="listen for one LSP client over TCP")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"TCP address to bind (default {DEFAULT_HOST})")
    parser.add_argument(
        "--port",
        type=cliutil.int_in(0, 65535),
        default=DEFAULT_PORT,
        help=f"TCP port (default {DEFAULT_PORT}; 0 = any)",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="let --host be an address other machines can reach (warns; pair it with --token-file)",
    )
    parser.add_argument(
        "--token-file",
        type=Path,
        default=None,
        metavar="PATH",
        help=f"--tcp: clients must send this file's secret as initializationOptions.token (or set {TOKEN_ENV})",
    )
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
    configure_logging(args.log_file, args.verbose)
    from forewarn.lsp.server import create_server
    from forewarn.lsp.transport import serve_tcp

    if args.tcp:
        token = tcp_token(args.token_file)
        check_host(args.host, allow_remote=args.allow_remote, token=token is not None)
        server = create_server()
        server.log_level_from_cli = args.verbose > 0
        server.fallback_root = fallback_root
        try:
            serve_tcp(server, args.host, args.port, token)
        except OSError as exc:
            raise CliError(f"cannot listen on {args.host}:{args.port}: {exc}") from exc
        return _exit(server.finish())
    if args.token_file is not None or args.allow_remote:
        raise cliutil.UsageError("--token-file and --allow-remote apply to --tcp only")
    protocol_out = claim_stdout()
    server = create_server()
    server.log_level_from_cli = args.verbose > 0
    server.fallback_root = fallback_root
    server.start_io(sys.stdin.buffer, protocol_out)
    return _exit(server.finish())


def check_host(host: str, *, allow_remote: bool, token: bool) -> None:
    """Loopback only, unless ``--allow-remote`` says otherwise (then a loud warning): the server reads code and
    reads and writes memories for whoever connects."""
    if not host.strip():
        raise cliutil.UsageError(
            "--host '' would listen on every interface of this machine; give an address: 127.0.0.1 "
            "(this machine only, the default), or 0.0.0.0 with --allow-remote"
        )
    if all(address.is_loopback for address in _addresses(host)):
        return
    if not allow_remote:
        raise cliutil.UsageError(
            f"--host {host} can be reached from other machines, and whoever connects reads your code and your "
            "team's memories; use 127.0.0.1, or pass --allow-remote (with --token-file) if you mean it"
        )
    print(
        f"forewarn: WARNING: serving on {host}, which other machines can reach: whoever connects reads this "
        "workspace's code and memories and can write memories"
        + ("." if token else f"; no token is required (set {TOKEN_ENV} or --token-file)."),
        file=sys.stderr,
        flush=True,
    )


def _addresses(host: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        return [ipaddress.ip_address(host.strip("[]").split("%", 1)[0])]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise CliError(f"--host {host}: cannot resolve it ({exc})") from exc
    return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]


def tcp_token(token_file: Path | None) -> str | None:
    """The secret clients must present: ``--token-file`` (private to the user), else ``$FOREWARN_TCP_TOKEN``."""
    if token_file is None:
        env = os.environ.get(TOKEN_ENV)
        if env is not None and not env.strip():
            raise CliError(f"{TOKEN_ENV} is set but empty")
        return env.strip() if env else None
    try:
        st = token_file.stat()
        text = token_file.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeError) as exc:
        raise CliError(f"cannot read the token file {token_file}: {exc}") from exc
    if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise CliError(
            f"the token file {token_file} can be read by other users (mode {stat.S_IMODE(st.st_mode):o}); "
            f"fix it with: chmod 600 {token_file}"
        )
    if not text:
        raise CliError(f"the token file {token_file} is empty")
    return text


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


def configure_logging(log_file: Path | None, verbose: int) -> None:
    root = logging.getLogger()
    for handler in root.handlers:
        handler.setFormatter(logging.Formatter(LOG_FORMAT))
    if log_file is not None:
        try:
            paths.ensure_private_dir(log_file.parent.absolute(), check=False)  # missing folders made 0700
            file_handler = _PrivateFileHandler(log_file, encoding="utf-8")
        except OSError as exc:
            raise CliError(f"cannot write the log file {log_file}: {exc}") from exc
        file_handler.setFormatter(logging.Formatter(LOG_FORMAT))
        root.addHandler(file_handler)
    # our own logs at INFO by default; pygls logs every message body at INFO, so only with -vv
    logging.getLogger("forewarn").setLevel(logging.DEBUG if verbose else logging.INFO)
    logging.getLogger("pygls").setLevel(logging.DEBUG if verbose >= 2 else logging.WARNING)


class _PrivateFileHandler(logging.FileHandler):
    """A log file created 0600 whatever the umask: the log quotes file names, symbols and memory text."""

    def _open(self) -> Any:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, paths.FILE_MODE)
        return os.fdopen(fd, "a", encoding=self.encoding, errors=self.errors)
