"""How a hook call talks to the hook server: one Unix socket per workspace, length-prefixed messages.

The socket sits in the workspace's data dir (0700, the user's own), or, when that path is too long for a Unix
socket address, in a private folder of the user's runtime dir. A request is a small JSON header then the raw
event; the reply is one JSON object. Everything here is standard library only: the hook call imports it.
"""

from __future__ import annotations

import _socket  # socket.py's base: socket.py itself imports selectors and more, on every hook call
import json
import os
import struct
from pathlib import Path

from forewarn.locations import sha1

PROTOCOL = 1
SOCKET_NAME = "hook.sock"
LOCK_NAME = "hook.lock"
MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes on Linux and 104 on macOS, with the terminating NUL
MAX_EVENT_BYTES = 4 * 1024 * 1024  # a hook event with a test run's whole output; past this it is answered with nothing
MAX_HEADER_BYTES = 64 * 1024
MAX_MESSAGE_BYTES = 2 * MAX_EVENT_BYTES  # a reply is far smaller; a request is the event and a small header
_LENGTH = struct.Struct(">I")


class WireError(Exception):
    """A message that is not ours: too large, cut short, not JSON."""


def socket_path(wdir: Path) -> Path:
    """Where the hook server of the workspace whose data dir is ``wdir`` listens."""
    path = wdir / SOCKET_NAME
    if len(os.fsencode(str(path))) <= MAX_SOCKET_PATH:
        return path
    runtime = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("TMPDIR") or "/tmp"
    folder = Path(runtime) / f"forewarn-{os.getuid() if hasattr(os, 'getuid') else 'user'}"
    return folder / (sha1(str(wdir).encode("utf-8", "surrogateescape")).hexdigest()[:20] + ".sock")


def private_socket_dir(path: Path) -> None:
    """Create ``path``'s folder 0700 if missing; refuse one another user owns or may write."""
    folder = path.parent
    folder.mkdir(mode=0o700, exist_ok=True)
    st = folder.stat()
    if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o077):
        raise PermissionError(f"{folder} is not private to this user; the hook server will not listen there")


def send(sock: _socket.socket, *parts: bytes) -> None:
    sock.sendall(b"".join(_LENGTH.pack(len(p)) + p for p in parts))


def receive(sock: _socket.socket, limit: int = MAX_MESSAGE_BYTES) -> bytes:
    (size,) = _LENGTH.unpack(_exactly(sock, _LENGTH.size))
    if size > limit:
        raise WireError(f"a message of {size} bytes (limit {limit})")
    return _exactly(sock, size)


def receive_json(sock: _socket.socket, limit: int = MAX_HEADER_BYTES) -> dict[str, object]:
    try:
        data = json.loads(receive(sock, limit))
    except ValueError as exc:
        raise WireError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise WireError("not a JSON object")
    return data


def encode(data: dict[str, object]) -> bytes:
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


def _exactly(sock: _socket.socket, size: int) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise WireError("the other side closed the connection mid-message")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
