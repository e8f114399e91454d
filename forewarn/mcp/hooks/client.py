"""The hook command itself: find the workspace, ask its hook server, hand the answer to the host.

This is all a hook call imports (standard library and ``forewarn.locations``), so the call costs a Python start
and a round trip. A folder without Forewarn data is answered with nothing at once. When no server answers, one
is started in the background (``forewarn hook --serve``) and asked as soon as it listens; if that fails too, the
event is answered in this process. Nothing here raises: every problem is logged to the workspace's
``hooks.log`` and answered with nothing, so the agent's tool call never fails because of Forewarn.
"""

from __future__ import annotations

import _socket  # socket.py's base (see wire)
import contextlib
import json
import os
import sys
import time
from pathlib import Path

from forewarn import __version__
from forewarn.locations import data_root, find_workspace_root, workspace_data
from forewarn.mcp.hooks import wire

SERVER_ENV = "FOREWARN_HOOK_SERVER"  # "0": answer every hook call in its own process, never start a server
PROJECT_DIR_ENVS = ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")  # the hosts' project dir, when the event has no cwd
# a first call waits while a new server opens a large workspace (seconds); under the hooks' own 30 s timeout
# (install.TIMEOUT_S), so a call that gives up still exits cleanly with nothing
ANSWER_TIMEOUT_S = 25.0
SPAWN_WAIT_S = 10.0  # for a started server to listen (it binds before opening the workspace)
POLL_S = 0.02
LOG_NAME = "hooks.log"
MAX_LOG_BYTES = 1 << 20  # the log is rotated once (hooks.log.1) past this
MEMORY_DB = "memory.db"

Reply = tuple[str, str, int]  # (stdout, stderr, exit status)
NOTHING: Reply = ("", "", 0)


def run(host: str, raw: bytes, event_name: str | None = None, workspace: Path | None = None) -> Reply:
    """The reply to one hook event (``raw``: the host's stdin). Never raises."""
    wdir: Path | None = None
    try:
        if len(raw) > wire.MAX_EVENT_BYTES:
            log(None, f"{host}: an event of more than {wire.MAX_EVENT_BYTES} bytes was answered with nothing")
            return NOTHING
        root = workspace_root(raw, workspace)
        wdir = workspace_data(root)
        if not (wdir / MEMORY_DB).is_file():
            return NOTHING  # no Forewarn data for this folder: nothing to say, nothing to start
        if os.environ.get(SERVER_ENV) == "0" or not hasattr(_socket, "AF_UNIX"):
            return in_process(root, wdir, host, raw, event_name)
        header = {"v": wire.PROTOCOL, "version": __version__, "host": host, "event_name": event_name}
        reply = ask(wdir, header, raw)
        if reply is None or reply.get("stale"):
            start_server(root)
            reply = ask(wdir, header, raw, wait=SPAWN_WAIT_S)
        if reply is None:
            log(wdir, f"{host}: no hook server could be started; answering in this process")
            return in_process(root, wdir, host, raw, event_name)
        if reply.get("stale") or reply.get("lost"):
            return NOTHING  # a server was there but did not answer in time: the host must not wait longer
        code = reply.get("code", 0)
        return str(reply.get("stdout", "")), str(reply.get("stderr", "")), code if isinstance(code, int) else 0
    except Exception as exc:  # never the agent's problem
        log(wdir, f"{host}: the hook call failed ({type(exc).__name__}: {exc}); answered with nothing")
        return NOTHING


def workspace_root(raw: bytes, workspace: Path | None) -> Path:
    """``-w`` as given, else found (as the CLI does) from the event's ``cwd``, the host's project dir, or ours."""
    if workspace is not None:
        return workspace.resolve()
    start: str | None = None
    with contextlib.suppress(ValueError):
        data = json.loads(raw)
        if isinstance(data, dict) and isinstance(data.get("cwd"), str) and "\0" not in data["cwd"]:
            start = data["cwd"]
    for name in PROJECT_DIR_ENVS:
        start = start or os.environ.get(name)
    path = Path(start) if start else Path.cwd()
    return find_workspace_root(path if path.is_dir() else Path.cwd())


def ask(wdir: Path, header: dict[str, object], raw: bytes, *, wait: float = 0.0) -> dict[str, object] | None:
    """The server's reply; None when no server listens (within ``wait`` seconds); ``{"lost": True}`` when one
    listened but did not answer (too slow, or it broke off)."""
    path = wire.socket_path(wdir)
    deadline = time.monotonic() + wait
    while True:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            sock.settimeout(ANSWER_TIMEOUT_S)
            sock.connect(str(path))
        except (FileNotFoundError, ConnectionRefusedError):
            sock.close()
            if time.monotonic() >= deadline:
                return None
            time.sleep(POLL_S)
            continue
        except OSError:
            sock.close()
            return None
        try:
            wire.send(sock, wire.encode(header), raw)
            return wire.receive_json(sock, wire.MAX_MESSAGE_BYTES)
        except (OSError, wire.WireError) as exc:
            log(wdir, f"the hook server did not answer ({type(exc).__name__}: {exc}); answered with nothing")
            return {"lost": True}
        finally:
            sock.close()


def start_server(root: Path) -> None:
    """Start ``forewarn hook --serve`` for ``root`` in the background, detached from this call."""
    import subprocess

    cmd = [sys.executable, "-m", "forewarn", "hook", "--serve", "-w", str(root)]
    subprocess.Popen(
        cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
        start_new_session=True, cwd=str(root),
    )  # fmt: skip


def stop_server(root: Path) -> bool:
    """Ask the workspace's hook server to exit; whether one answered."""
    reply = ask(workspace_data(root.resolve()), {"v": wire.PROTOCOL, "stop": True}, b"")
    return bool(reply and reply.get("stopped"))


def in_process(root: Path, wdir: Path, host: str, raw: bytes, event_name: str | None) -> Reply:
    """Open the workspace for this one call and answer it (slower: the whole engine is loaded)."""
    from forewarn.mcp.hooks.server import log_to
    from forewarn.mcp.hooks.service import HookService

    log_to(wdir)
    service = HookService(root, wdir)
    try:
        reply = service.answer(host, raw, event_name)
        service.after()
        service.flush()
    finally:
        service.close()
    return reply.stdout, reply.stderr, reply.code


def log(wdir: Path | None, message: str) -> None:
    """Append a line to the workspace's (else the data dir's) hook log; never raises, never creates folders."""
    with contextlib.suppress(Exception):
        folder = wdir if wdir is not None and wdir.is_dir() else data_root()
        if not folder.is_dir():
            return
        path = folder / LOG_NAME
        with contextlib.suppress(OSError):
            if path.stat().st_size > MAX_LOG_BYTES:
                os.replace(path, folder / (LOG_NAME + ".1"))
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as fh:
            fh.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} hook[{os.getpid()}] {message[:2000]}\n")
