"""Transports: stdout carries nothing but JSON-RPC frames; TCP binds loopback."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import client_capabilities
from pytest_lsp.client import make_test_lsp_client

from tests.lsp.conftest import SERVER_COMMAND, WAIT_S, indexing_done

HEADER_RE = re.compile(rb"Content-Length: (\d+)\r\n(?:Content-Type: [^\r\n]*\r\n)?\r\n")


def test_claimed_stdout_sends_stray_writes_to_stderr() -> None:
    """After claim_stdout, print() and C-level writes to fd 1 go to stderr; only the protocol stream reaches stdout."""
    code = (
        "import os, sys\n"
        "from forewarn.cli.serve import claim_stdout\n"
        "out = claim_stdout()\n"
        "print('stray print')\n"
        "os.write(1, b'c-level write\\n')\n"
        "out.write(b'PROTOCOL'); out.flush()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=WAIT_S, check=True)
    assert done.stdout == b"PROTOCOL"
    assert b"stray print" in done.stderr and b"c-level write" in done.stderr


async def test_stdout_is_only_protocol_frames(workspace: Path) -> None:
    """A whole session, model loading included: every byte on stdout belongs to a JSON-RPC frame."""
    proc = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    stderr_task = asyncio.ensure_future(proc.stderr.read())  # type: ignore[union-attr]
    stream = bytearray()
    messages: list[dict[str, Any]] = []

    def send(message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        proc.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))  # type: ignore[union-attr]

    async def read_frame() -> dict[str, Any] | None:
        header = b""
        while not header.endswith(b"\r\n\r\n"):
            byte = await proc.stdout.read(1)  # type: ignore[union-attr]
            if not byte:
                assert header == b"", f"stdout ended inside a header: {header!r}"
                return None
            header += byte
        match = HEADER_RE.fullmatch(header)
        assert match, f"not a JSON-RPC header on stdout: {header!r}"
        body = await proc.stdout.readexactly(int(match.group(1)))  # type: ignore[union-attr]
        stream.extend(header + body)
        message = json.loads(body)
        assert message["jsonrpc"] == "2.0"
        messages.append(message)
        return message  # type: ignore[no-any-return]

    async def request(msg_id: int, method: str, params: Any) -> dict[str, Any]:
        send({"id": msg_id, "method": method, "params": params})
        while (message := await read_frame()) is not None:
            if message.get("id") == msg_id and "method" not in message:
                return message
        raise AssertionError(f"stdout closed before the answer to {method}")

    async def session() -> None:
        models = workspace / "billing" / "models.py"
        uri = models.as_uri()
        editor = {"experimental": {"forewarn": {"promptsForText": True}}}  # a person's remember, shown at once
        init = {"processId": os.getpid(), "rootUri": workspace.as_uri(), "capabilities": editor}
        assert "result" in await request(1, "initialize", init)
        send({"method": "initialized", "params": {}})
        remember = {"command": "forewarn.remember", "arguments": [{"text": "Quantize once.", "uri": uri}]}
        assert "result" in await request(2, "workspace/executeCommand", remember)
        item = {"uri": uri, "languageId": "python", "version": 1, "text": models.read_text()}
        send({"method": "textDocument/didOpen", "params": {"textDocument": item}})
        hover = {"textDocument": {"uri": uri}, "position": {"line": 10, "character": 8}}
        assert "result" in await request(3, "textDocument/hover", hover)
        search = {"command": "forewarn.search", "arguments": [{"query": "quantize"}]}
        assert (await request(4, "workspace/executeCommand", search))["result"]["memories"]
        await request(5, "shutdown", None)
        send({"method": "exit", "params": None})
        while await read_frame() is not None:
            pass

    await asyncio.wait_for(session(), WAIT_S)
    assert await asyncio.wait_for(proc.wait(), WAIT_S) == 0
    stderr = await stderr_task
    assert any(m.get("method") == "textDocument/publishDiagnostics" for m in messages)
    assert len(stream) > 0 and b"forewarn" in stderr.lower()  # the log went to stderr, as it should


async def test_tcp_listens_on_loopback_and_serves(workspace: Path) -> None:
    proc = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND, "--tcp", "--port", "0", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    assert proc.stderr is not None
    address = None
    while address is None:
        line = await asyncio.wait_for(proc.stderr.readline(), WAIT_S)
        assert line, "the server exited before listening"
        if match := re.search(rb"listening on ([\d.]+):(\d+)", line):
            address = (match.group(1).decode(), int(match.group(2)))
    assert address[0] == "127.0.0.1"
    drain = asyncio.ensure_future(proc.stderr.read())

    client = make_test_lsp_client()
    await client.start_tcp(*address)
    await client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("neovim"), root_uri=workspace.as_uri())
    )
    await indexing_done(client)  # code chunks are searched once the first index is done
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="Invoice"))
    assert found is not None and any(s.name == "Invoice" for s in found)
    await client.shutdown_async(None)
    client.exit(None)
    assert await asyncio.wait_for(proc.wait(), WAIT_S) == 0
    await client.stop()
    await drain
