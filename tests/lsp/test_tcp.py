"""``serve --tcp`` against hostile peers: one client at a time, initialize first, the token, a reset peer.

Every test runs the real server process on 127.0.0.1 (port 0) and talks raw JSON-RPC frames over real
sockets, so what a second or uninitialized client sees is exactly what reaches the wire.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.lsp.conftest import SERVER_COMMAND, WAIT_S

NOT_INITIALIZED = -32002
TOKEN = "correct horse battery staple"


@dataclass
class Server:
    proc: asyncio.subprocess.Process
    host: str
    port: int
    stderr: bytearray = field(default_factory=bytearray)

    async def wait(self) -> int:
        return await asyncio.wait_for(self.proc.wait(), WAIT_S)

    async def log_line(self, pattern: str) -> None:
        """Wait until the server's stderr holds a line matching ``pattern`` (the log is drained as it comes)."""
        while not re.search(pattern.encode(), self.stderr):
            assert self.proc.stderr is not None
            chunk = await asyncio.wait_for(self.proc.stderr.read(4096), WAIT_S)
            assert chunk, f"the server's stderr ended without {pattern!r}:\n{self.stderr.decode(errors='replace')}"
            self.stderr += chunk


@asynccontextmanager
async def tcp_server(*extra: str, env: dict[str, str] | None = None) -> AsyncIterator[Server]:
    proc = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND, "--tcp", "--port", "0", *extra,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    server = Server(proc, "", 0)
    try:
        await server.log_line(r"listening on [\d.]+:\d+")
        match = re.search(rb"listening on ([\d.]+):(\d+)", server.stderr)
        assert match is not None
        server.host, server.port = match.group(1).decode(), int(match.group(2))
        assert server.host == "127.0.0.1"
        yield server
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


class Peer:
    """A raw JSON-RPC peer over one TCP connection."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.received: list[dict[str, Any]] = []

    @classmethod
    async def connect(cls, server: Server) -> Peer:
        return cls(*await asyncio.open_connection(server.host, server.port))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    async def frame(self) -> dict[str, Any] | None:
        """The next message, or None when the server closed the connection."""
        length = None
        while True:
            line = await asyncio.wait_for(self.reader.readline(), WAIT_S)
            if not line:
                return None
            if line == b"\r\n":
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        assert length is not None
        message: dict[str, Any] = json.loads(await asyncio.wait_for(self.reader.readexactly(length), WAIT_S))
        self.received.append(message)
        return message

    async def request(self, msg_id: int, method: str, params: Any) -> dict[str, Any]:
        """Send a request and answer the server's own requests until its reply comes."""
        self.send({"id": msg_id, "method": method, "params": params})
        while (message := await self.frame()) is not None:
            if "method" in message and "id" in message:  # workspace/configuration, registerCapability…
                self.send({"id": message["id"], "result": None})
            elif message.get("id") == msg_id:
                return message
        raise AssertionError(f"the connection closed before the answer to {method}")

    async def initialize(self, root: Path, options: Any = None) -> dict[str, Any]:
        editor = {"experimental": {"forewarn": {"promptsForText": True}}}  # an editor a person uses: writes show
        params = {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": editor}
        reply = await self.request(1, "initialize", {**params, "initializationOptions": options})
        if "result" in reply:
            self.send({"method": "initialized", "params": {}})
        return reply

    async def closed(self) -> bool:
        """True once the server has closed this connection with nothing more sent (EOF, or a reset when it
        closed with our unread request still queued)."""
        try:
            return await asyncio.wait_for(self.reader.read(), WAIT_S) == b""
        except ConnectionResetError:
            return True

    def reset(self) -> None:
        """Abort the connection with a TCP RST, as a crashed or killed client does."""
        sock = self.writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.writer.transport.abort()


def search(query: str) -> dict[str, Any]:
    return {"command": "forewarn.search", "arguments": [{"query": query}]}


async def shutdown(peer: Peer) -> None:
    assert "result" in await peer.request(99, "shutdown", None)
    peer.send({"method": "exit", "params": None})


async def test_a_second_client_is_refused_and_cannot_take_the_first_ones_answers(workspace: Path) -> None:
    async with tcp_server() as server:
        first = await Peer.connect(server)
        assert "result" in await first.initialize(workspace)
        remembered = await first.request(2, "workspace/executeCommand", {
            "command": "forewarn.remember", "arguments": [{"text": "the admin password is hunter3"}],
        })  # fmt: skip
        assert "result" in remembered

        second = await Peer.connect(server)
        second.send({"id": 7, "method": "workspace/executeCommand", "params": search("password")})
        assert await second.closed()  # closed at once, unanswered
        assert second.received == []
        await server.log_line(r"refused a connection from .*one client at a time")

        found = await first.request(3, "workspace/executeCommand", search("password"))  # still the first's
        assert [m["id"] for m in found["result"]["memories"]] == [remembered["result"]["id"]]
        symbols = await first.request(4, "workspace/symbol", {"query": "Invoice"})
        assert "result" in symbols
        assert not any(m.get("id") == 7 for m in first.received)  # the refused client's request never ran
        await shutdown(first)
        assert await server.wait() == 0
    assert b"Traceback" not in server.stderr


async def test_requests_before_initialize_get_server_not_initialized_and_nothing_else(workspace: Path) -> None:
    async with tcp_server() as server:
        peer = await Peer.connect(server)
        peer.send({"method": "workspace/didChangeWorkspaceFolders", "params": {
            "event": {"added": [{"uri": workspace.as_uri(), "name": "w"}], "removed": []},
        }})  # fmt: skip
        peer.send({"method": "initialized", "params": {}})
        for msg_id, method, params in (
            (1, "workspace/executeCommand", search("password")),
            ("two", "workspace/symbol", {"query": ""}),
            (3, "forewarn/unknown", None),
            (4, "shutdown", None),
        ):
            reply = await peer.request(msg_id, method, params)  # type: ignore[arg-type]
            assert reply["id"] == msg_id and reply["error"]["code"] == NOT_INITIALIZED and "result" not in reply
        assert [m["error"]["code"] for m in peer.received] == [NOT_INITIALIZED] * 4  # no notification, no log message

        assert "result" in await peer.initialize(workspace)  # the same client may still initialize
        symbols = await peer.request(5, "workspace/symbol", {"query": "Invoice"})
        assert "result" in symbols
        again = await peer.request(6, "initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        assert again["error"]["code"] == -32600  # initialize once
        await shutdown(peer)
        assert await server.wait() == 0


async def test_a_token_is_required_when_configured(workspace: Path) -> None:
    async with tcp_server(env={"FOREWARN_TCP_TOKEN": TOKEN}) as server:
        for options in (None, {}, {"token": "guess"}, {"token": TOKEN[:-1]}, {"token": 12}):
            intruder = await Peer.connect(server)
            reply = await intruder.initialize(workspace, options)
            assert "error" in reply and "initializationOptions.token" in reply["error"]["message"]
            assert await intruder.closed()
            await server.log_line(r"ended before initialize; still listening")
            server.stderr.clear()

        client = await Peer.connect(server)
        assert "result" in await client.initialize(workspace, {"token": TOKEN})
        assert "result" in await client.request(2, "workspace/symbol", {"query": "Invoice"})
        await shutdown(client)
        assert await server.wait() == 0


async def test_a_token_file(workspace: Path, tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(0o600)
    async with tcp_server("--token-file", str(token_file)) as server:
        refused = await Peer.connect(server)
        assert "error" in await refused.initialize(workspace)
        assert await refused.closed()
        client = await Peer.connect(server)
        assert "result" in await client.initialize(workspace, {"token": TOKEN})
        await shutdown(client)
        assert await server.wait() == 0


async def test_a_connection_before_initialize_does_not_end_the_server(workspace: Path) -> None:
    async with tcp_server() as server:
        scanner = await Peer.connect(server)
        scanner.writer.close()
        await server.log_line(r"ended before initialize; still listening")
        rogue = await Peer.connect(server)
        rogue.send({"method": "exit", "params": None})  # over TCP, exit before initialize only drops that client
        assert await rogue.closed()
        client = await Peer.connect(server)
        assert "result" in await client.initialize(workspace)
        await shutdown(client)
        assert await server.wait() == 0


async def test_a_clean_exit_ends_the_server_without_a_traceback(workspace: Path) -> None:
    async with tcp_server() as server:
        client = await Peer.connect(server)
        assert "result" in await client.initialize(workspace)
        await shutdown(client)
        assert await server.wait() == 0
        assert server.proc.stderr is not None
        server.stderr += await server.proc.stderr.read()
    assert b"Traceback" not in server.stderr, server.stderr.decode(errors="replace")


async def test_a_client_reset_ends_the_server_without_a_traceback(workspace: Path) -> None:
    async with tcp_server() as server:
        client = await Peer.connect(server)
        assert "result" in await client.initialize(workspace)
        client.reset()
        assert await server.wait() == 1  # LSP: exit without shutdown is 1; but no traceback
        assert server.proc.stderr is not None
        server.stderr += await server.proc.stderr.read()
    assert b"Traceback" not in server.stderr, server.stderr.decode(errors="replace")


async def test_a_connection_that_never_initializes_cannot_keep_the_real_client_out(workspace: Path) -> None:
    """R12: an idle peer holding the one slot is closed when a client connects, or after a few seconds."""
    async with tcp_server() as server:
        idle = await Peer.connect(server)
        idle.writer.write(b"Content-Length: 9")  # half a header, then nothing
        await idle.writer.drain()
        client = await Peer.connect(server)  # connects while the idle peer holds the slot: it gets in
        assert "result" in await client.initialize(workspace)
        assert await idle.closed()
        await server.log_line(r"connected before this one sent initialize")
        late = await Peer.connect(server)  # once a client has initialized, the slot is its own
        assert await late.closed()
        assert "result" in await client.request(2, "workspace/symbol", {"query": "Invoice"})
        await shutdown(client)
        assert await server.wait() == 0

    async with tcp_server() as server:
        silent = await Peer.connect(server)
        assert await silent.closed()  # alone, it is closed after transport.INITIALIZE_TIMEOUT_S
        await server.log_line(r"no initialize within \d+ s")
        await server.log_line(r"ended before initialize; still listening")
        client = await Peer.connect(server)
        assert "result" in await client.initialize(workspace)
        await shutdown(client)
        assert await server.wait() == 0
    assert b"Traceback" not in server.stderr
