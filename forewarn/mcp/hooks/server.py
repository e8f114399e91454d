"""``forewarn hook --serve``: keep one workspace open for its hook calls, on a Unix socket in its data dir.

Started by the first hook call that finds none (``client.start_server``), one per workspace (an exclusive lock
on ``hook.lock``; a second one exits at once). It binds its socket before opening the workspace, so early calls
wait in the listen queue rather than start more servers, then computes ranks and references ahead of the first
file the agent touches. It answers one call at a time; only the user's own processes can connect (the socket
is 0600 in a 0700 folder, and the peer's uid is checked where the system tells it). It exits after
``IDLE_EXIT_S`` without a call, when asked (``forewarn hook --stop``), when a client speaks another version,
and when Forewarn's own code changed on disk (an upgrade): the next call starts a fresh one.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import socket
import struct
import time
from pathlib import Path

import forewarn
from forewarn import __version__, paths
from forewarn.locations import workspace_data
from forewarn.mcp.hooks import wire
from forewarn.mcp.hooks.client import LOG_NAME, MAX_LOG_BYTES, MEMORY_DB
from forewarn.mcp.hooks.events import Host
from forewarn.mcp.hooks.service import HookService

log = logging.getLogger(__name__)

IDLE_EXIT_S = 20 * 60  # an agent idle this long has likely ended its session; the next call restarts in seconds
TICK_S = 10.0  # how often an idle server wakes to write surfaced counts and check its idle time
CODE_CHECK_S = 5.0  # between checks that Forewarn's code on disk is still the code this process runs
REQUEST_TIMEOUT_S = 10.0  # a client that connects and then says nothing for this long is dropped
_PEERCRED = struct.Struct("3i")  # Linux ucred: pid, uid, gid


def serve(root: Path, *, idle_exit_s: float = IDLE_EXIT_S) -> int:
    """Serve hook calls for the workspace at ``root`` until idle, told to stop, or outdated; the exit status."""
    root = root.resolve()
    if not (workspace_data(root) / MEMORY_DB).is_file():
        return 0  # nothing to serve: the workspace has no memories
    wdir = paths.workspace_dir(root)
    log_to(wdir)
    lock = os.open(wdir / wire.LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, paths.FILE_MODE)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(lock)
        return 0  # another server has this workspace
    os.ftruncate(lock, 0)
    os.pwrite(lock, f"{os.getpid()}\n".encode(), 0)  # who holds it (forewarn hook --stop asks it over the socket)
    path = wire.socket_path(wdir)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    service = HookService(root, wdir)
    try:
        if path.parent != wdir:
            wire.private_socket_dir(path)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # a crashed server's socket: we hold the lock, so nobody listens on it
        listener.bind(str(path))
        os.chmod(path, paths.FILE_MODE)
        listener.listen(64)
        log.info("hook server for %s listening on %s", root, path)
        service.warm()
        _loop(listener, service, idle_exit_s)
    except Exception:
        log.exception("the hook server for %s stopped on an error", root)
        return 1
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            path.unlink()
        with contextlib.suppress(Exception):
            service.flush()
        with contextlib.suppress(Exception):
            service.close()
        os.close(lock)
        log.info("hook server for %s stopped", root)
    return 0


def _loop(listener: socket.socket, service: HookService, idle_exit_s: float) -> None:
    stamp = code_stamp()
    checked = last = time.monotonic()
    indexed = False
    listener.settimeout(min(TICK_S, idle_exit_s))
    while True:
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            service.after()
            if not indexed:
                indexed = True
                try:
                    service.complete_index()
                except Exception:
                    log.exception("indexing the workspace while idle failed; hooks answer from the index as it is")
            service.flush()
            if time.monotonic() - last > idle_exit_s:
                log.info("idle for %.0f s: exiting", idle_exit_s)
                return
            continue
        last = time.monotonic()
        with conn:
            keep = _one(conn, service)
        service.after()  # the agent has its answer: re-index what it touched, note its edits
        if not keep:
            return
        if last - checked > CODE_CHECK_S:
            checked = last
            if code_stamp() != stamp:
                log.info("Forewarn's code changed on disk: exiting so the next call runs the new code")
                return


def _one(conn: socket.socket, service: HookService) -> bool:
    """Answer one connection; False when the server should exit (told to, or the client is another version)."""
    conn.settimeout(REQUEST_TIMEOUT_S)
    try:
        if not _same_user(conn):
            log.warning("a connection from another user was refused")
            return True
        header = wire.receive_json(conn)
        if header.get("stop"):
            wire.send(conn, wire.encode({"stopped": True}))
            return False
        if header.get("v") != wire.PROTOCOL or header.get("version") != __version__:
            wire.send(conn, wire.encode({"stale": True}))
            return False
        raw = wire.receive(conn, wire.MAX_EVENT_BYTES)
        host = str(header.get("host", ""))
        name = header.get("event_name")
        if host not in set(Host):
            log.warning("a hook call for an unknown host %r was answered with nothing", host[:40])
            reply = {"stdout": "", "stderr": "", "code": 0}
        else:
            r = service.answer(host, raw, name if isinstance(name, str) else None)
            reply = {"stdout": r.stdout, "stderr": r.stderr, "code": r.code}
        wire.send(conn, wire.encode(reply))
    except (OSError, wire.WireError) as exc:
        log.warning("a hook call broke off: %s", exc)
    return True


def _same_user(conn: socket.socket) -> bool:
    if not hasattr(socket, "SO_PEERCRED") or not hasattr(os, "getuid"):
        return True  # the folder's 0700 mode is the check here
    try:
        _, uid, _ = _PEERCRED.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size))
    except OSError:
        return False
    return uid == os.getuid()


def code_stamp() -> float:
    """The newest modification time among Forewarn's own modules (an upgrade or a checkout changes it)."""
    newest = 0.0
    for path in Path(forewarn.__file__).parent.rglob("*.py"):
        with contextlib.suppress(OSError):
            newest = max(newest, path.stat().st_mtime)
    return newest


def log_to(wdir: Path) -> None:
    """Send this process's log to the workspace's ``hooks.log`` (0600; rotated once past ``MAX_LOG_BYTES``)."""
    path = wdir / LOG_NAME
    with contextlib.suppress(OSError):
        if path.stat().st_size > MAX_LOG_BYTES:
            os.replace(path, wdir / (LOG_NAME + ".1"))
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, paths.FILE_MODE)
    stream = os.fdopen(fd, "a", encoding="utf-8")
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(asctime)s hook[%(process)d] %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
