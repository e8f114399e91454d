"""Malformed and hostile LSP traffic, fuzzed with hypothesis against one real ``forewarn serve``.

Every request gets an answer (a result or a JSON-RPC error with a message), every frame that is
not a request leaves the server serving, and after each case a real command still works. The
server runs for the whole module on an event loop in a helper thread, so hypothesis drives it
from ordinary synchronous tests.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import threading
import uuid
from collections import Counter
from collections.abc import Coroutine, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.reliability import crash, lsp

T = TypeVar("T")
EXAMPLES = int(os.environ.get("FOREWARN_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
ANSWER_S = 60.0
FUZZ_COUNTS: Counter[str] = Counter()

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
HOSTILE_TEXT = st.one_of(
    st.text(st.characters(codec=None, categories=None), max_size=200),
    st.sampled_from(
        ['NEAR("a" b', "*", '"', "(()", "[click](command:workbench.action.terminal.new)", "<img src=x onerror=1>",
         "$(rm -rf ~)", "`whoami`", "\u202e evil", "file:///etc/passwd", "../../etc/passwd"]
    ),
    st.integers(1, 3).map(lambda n: "z" * (n * 1_000_000)),
)  # fmt: skip
URIS = st.one_of(
    st.sampled_from(
        ["file:///etc/passwd", "file:///", "file:///../../etc/shadow", "untitled:Untitled-1", "http://x/y.py",
         "file://host/share/x.py", "not a uri", "", "file:///%00", "file:///tmp/%2e%2e/%2e%2e/etc/passwd"]
    ),
    st.text(max_size=60),
)  # fmt: skip


class Served:
    """The server, its client and the loop they live on (a helper thread)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="fuzz-lsp", daemon=True)
        self.thread.start()
        self._cm = lsp.server(root, tolerant=True)
        self.client: LanguageClient = self.run(self._cm.__aenter__())
        self.run(lsp.indexed(self.client))

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = lsp.WAIT_S) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.run(self._cm.__aexit__(None, None, None))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    def command(self, name: str, *arguments: Any) -> Any:
        """A command with arbitrary arguments: its result, or the JsonRpcException it was answered with."""

        async def go() -> Any:
            params = types.ExecuteCommandParams(command=name, arguments=list(arguments))
            try:
                return await asyncio.wait_for(self.client.workspace_execute_command_async(params), ANSWER_S)
            except JsonRpcException as exc:
                return exc

        return self.run(go())

    def request(self, body: bytes | dict[str, Any], msg_id: str | None = None) -> Any:
        """Send a hand-made frame; with ``msg_id`` wait for its answer (result or error object)."""

        async def go() -> Any:
            future: Future[Any] | None = None
            if msg_id is not None:
                future = Future()
                self.client.protocol._request_futures[msg_id] = future
            data = json.dumps(body).encode() if isinstance(body, dict) else body
            assert self.client._server is not None and self.client._server.stdin is not None
            self.client._server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
            await self.client._server.stdin.drain()
            if future is None:
                return None
            try:
                return await asyncio.wait_for(asyncio.wrap_future(future), ANSWER_S)
            except JsonRpcException as exc:
                return exc

        return self.run(go())

    def assert_alive(self) -> None:
        stats = self.command("forewarn.stats", {})
        assert isinstance(stats, dict) and "by_type" in stats, stats
        assert self.client._server is not None and self.client._server.returncode is None


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("fuzz-lsp-home")
    old = os.environ.get("FOREWARN_HOME")
    os.environ["FOREWARN_HOME"] = str(home)  # module-scoped, so the per-test home is not in place yet
    root = crash.make_workspace(tmp_path_factory.mktemp("fuzz-lsp") / "ws", files=20)
    s = Served(root)
    try:
        yield s
    finally:
        s.close()
        if old is None:
            os.environ.pop("FOREWARN_HOME", None)
        else:
            os.environ["FOREWARN_HOME"] = old


def answered(result: Any) -> None:
    """A result, or an error that says something."""
    if isinstance(result, JsonRpcException):
        assert str(result).strip(), "an error without a message"


@FUZZ
@given(query=st.one_of(HOSTILE_TEXT, JSON), k=JSON)
def test_search_with_any_arguments(served: Served, query: Any, k: Any) -> None:
    FUZZ_COUNTS["search arguments"] += 1
    answered(served.command("forewarn.search", {"query": query, "k": k}))
    answered(served.command("forewarn.search", {"query": query}))
    served.assert_alive()


@FUZZ
@given(text=st.one_of(HOSTILE_TEXT, JSON), uri=st.one_of(URIS, JSON), rng=JSON, tags=JSON, mtype=JSON)
def test_remember_with_any_arguments(served: Served, text: Any, uri: Any, rng: Any, tags: Any, mtype: Any) -> None:
    FUZZ_COUNTS["remember arguments"] += 1
    result = served.command("forewarn.remember", {"text": text, "uri": uri, "range": rng, "tags": tags, "type": mtype})
    answered(result)
    if isinstance(result, dict) and "memory" in result:  # stored (text: null stores nothing): anchored inside
        anchor = result["memory"]["anchor"]
        if anchor is not None:
            assert (served.root / anchor["file"]).resolve().is_relative_to(served.root)
    served.assert_alive()


@FUZZ
@given(name=st.sampled_from([
    "forewarn.search", "forewarn.remember", "forewarn.supersede", "forewarn.forget", "forewarn.confirm",
    "forewarn.markOutdated", "forewarn.repoMap", "forewarn.stats", "forewarn.nonexistent", ""]),
    arguments=st.lists(JSON, max_size=3))  # fmt: skip
def test_every_command_with_any_argument_list(served: Served, name: str, arguments: list[Any]) -> None:
    FUZZ_COUNTS["command argument lists"] += 1
    answered(served.command(name, *arguments))
    served.assert_alive()


@FUZZ
@given(method=st.one_of(
    st.sampled_from([types.TEXT_DOCUMENT_HOVER, types.TEXT_DOCUMENT_CODE_ACTION, types.WORKSPACE_SYMBOL,
                     types.WORKSPACE_EXECUTE_COMMAND, "textDocument/definition", "forewarn/unknown",
                     "$/cancelRequest"]),
    st.text(max_size=30)), params=JSON)  # fmt: skip
def test_requests_with_wrong_parameter_types_are_answered(served: Served, method: str, params: Any) -> None:
    FUZZ_COUNTS["requests with wrong params"] += 1
    msg_id = str(uuid.uuid4())
    answered(served.request({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}, msg_id))
    served.assert_alive()


@FUZZ
@given(body=st.one_of(
    st.binary(max_size=300),
    st.text(max_size=100).map(str.encode),
    JSON.map(lambda v: json.dumps(v).encode()),
    st.sampled_from([b"{", b'{"jsonrpc": "2.0"', b"null", b"[]", b'{"jsonrpc":"2.0","method":5}',
                     b'{"jsonrpc":"2.0","id":{},"method":"x"}', b'{"jsonrpc":"1.0","id":1}',
                     b"\xff\xfe\x00"])))  # fmt: skip
def test_frames_that_are_not_messages_leave_the_server_serving(served: Served, body: bytes) -> None:
    FUZZ_COUNTS["malformed frames"] += 1
    served.request(body)
    served.assert_alive()


@FUZZ
@given(method=st.sampled_from([types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_CHANGE,
                               types.TEXT_DOCUMENT_DID_SAVE, types.TEXT_DOCUMENT_DID_CLOSE,
                               types.WORKSPACE_DID_CHANGE_WATCHED_FILES, types.WORKSPACE_DID_CHANGE_CONFIGURATION]),
       params=JSON)  # fmt: skip
def test_notifications_with_wrong_parameter_types(served: Served, method: str, params: Any) -> None:
    FUZZ_COUNTS["notifications with wrong params"] += 1
    served.request({"jsonrpc": "2.0", "method": method, "params": params})
    served.assert_alive()


@pytest.mark.parametrize("megabytes", [1, 8, 70])
def test_huge_payloads_are_answered_or_discarded(served: Served, megabytes: int) -> None:
    FUZZ_COUNTS["huge payloads"] += 1
    msg_id = str(uuid.uuid4())
    text = "q" * (megabytes * 1_000_000)
    body = {"jsonrpc": "2.0", "id": msg_id, "method": types.WORKSPACE_EXECUTE_COMMAND,
            "params": {"command": "forewarn.search", "arguments": [{"query": text}]}}  # fmt: skip
    if megabytes < 64:  # under the server's frame limit: answered with a clear error
        result = served.request(body, msg_id)
        assert isinstance(result, JsonRpcException) and "limit" in str(result)
    else:  # over it: the frame is discarded, the server logs it and keeps serving
        served.request(body)
    served.assert_alive()


def test_open_a_file_with_hostile_text_and_hover(served: Served) -> None:
    FUZZ_COUNTS["documents"] += 1
    path = served.root / "pkg0" / "mod0.py"
    uri = path.as_uri()
    item = {"uri": uri, "languageId": "python", "version": 1, "text": "\x00\ud800" + "def (((\n" * 10_000}
    served.request({"jsonrpc": "2.0", "method": types.TEXT_DOCUMENT_DID_OPEN, "params": {"textDocument": item}})
    msg_id = str(uuid.uuid4())
    hover = {"textDocument": {"uri": uri}, "position": {"line": 2**31 - 1, "character": 2**31 - 1}}
    answered(
        served.request({"jsonrpc": "2.0", "id": msg_id, "method": types.TEXT_DOCUMENT_HOVER, "params": hover}, msg_id)
    )
    served.assert_alive()


def test_a_request_with_an_object_id_is_answered_with_a_null_id(tmp_path: Path) -> None:
    """JSON-RPC: an id that is not a string or number gets an error with id null (echoing it crashes clients).

    Read as raw frames: a typed client cannot even parse the bad reply this guards against.
    """
    proc = subprocess.Popen(lsp.SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for body in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
            {"jsonrpc": "2.0", "id": {"a": 1}, "method": "forewarn/x"},
            {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        ):
            data = json.dumps(body).encode()
            proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        proc.stdin.flush()
        replies = []
        while not any(r.get("id") == 2 for r in replies):
            length = 0
            while (line := proc.stdout.readline().strip()) != b"":
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            replies.append(json.loads(proc.stdout.read(length)))
    finally:
        proc.kill()
        proc.wait()
    ids = [r.get("id") for r in replies if "method" not in r]
    assert {"a": 1} not in ids and None in ids


def test_zz_report_counts() -> None:
    total = sum(FUZZ_COUNTS.values())
    print(f"\nfuzz cases tried (LSP): {total} {dict(FUZZ_COUNTS)}")
    report = os.environ.get("FOREWARN_FUZZ_REPORT")
    if report:
        with open(report, "a", encoding="utf-8") as f:
            f.write(f"lsp {total} {dict(FUZZ_COUNTS)}\n")
