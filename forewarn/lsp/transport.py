"""The wire: pygls' protocol guarded (nothing before ``initialize``, an InvalidParams reply to params that do
not parse, a TCP client's token), readers that skip an absurd frame, and ``serve --tcp``'s one-client loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import cattrs
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcServerNotInitialized,
)
from pygls.io_ import StdinAsyncReader, run_async
from pygls.protocol import LanguageServerProtocol

if TYPE_CHECKING:
    from forewarn.lsp.server import ForewarnServer

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 64 * 1024 * 1024  # a larger frame is discarded: no real LSP message is that big
INVALID_REQUEST = JsonRpcInvalidRequest.CODE  # JSON-RPC's answer to a request it cannot even identify
NOT_INITIALIZED = JsonRpcServerNotInitialized.CODE  # LSP: the answer to any request before initialize
TOKEN_OPTION = "token"  # serve --tcp with a token: initializationOptions.token must carry it
# serve --tcp: a client sends initialize as soon as it connects; a connection silent this long is not a client
INITIALIZE_TIMEOUT_S = 5.0


class _Answered:
    """A request that failed to parse and was already answered with an error: nothing left to do."""

    jsonrpc = "answered"


ANSWERED = _Answered()


class ForewarnProtocol(LanguageServerProtocol):
    """pygls' protocol, except that a request whose params do not parse gets an InvalidParams reply,
    and nothing but ``initialize`` is served before ``initialize`` (LSP: requests get ServerNotInitialized,
    notifications are dropped, except ``exit`` on stdio).

    pygls only logs a request it cannot parse (and shows an error), so the client would wait forever for it.
    """

    initialize_seen = False  # an initialize got through: the session is this client's
    required_token: str | None = None  # serve --tcp with a token: initialize must carry it
    # serve --tcp: ends this client's connection (a wrong token, exit before initialize); None on stdio
    drop_connection: Callable[[str], None] | None = None

    def structure_message(self, data: dict[str, Any]) -> Any:
        pending = not self.initialize_seen and isinstance(data, dict) and "jsonrpc" in data
        if pending and data.get("method") != types.INITIALIZE:
            return self._before_initialize(data)  # its params are not even parsed
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if not (isinstance(data, dict) and "jsonrpc" in data and "id" in data and "method" in data):
                raise
            msg_id = data["id"]
            if isinstance(msg_id, bool) or not isinstance(msg_id, int | str):
                # JSON-RPC ids are strings or numbers; an unusable one is answered with a null id
                message = f"request id {msg_id!r} is not a string or number"[:500]
                # written by hand: lsprotocol would drop a None id, and JSON-RPC wants an explicit null
                self._send_data({"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": message}})
                return ANSWERED
            detail = _structure_problem(exc.__cause__)
            error = JsonRpcInvalidParams(f"Invalid params for {data.get('method')!r}: {detail}")
            self._send_response(msg_id, error=error.to_response_error())
            return ANSWERED

    def _before_initialize(self, data: dict[str, Any]) -> Any:
        method = data.get("method")
        if method == types.EXIT and "id" not in data:
            if self.drop_connection is None:
                return super().structure_message(data)  # stdio: the editor may stop a server it never started
            self.drop_connection("exit before initialize")
        elif "id" in data and method is not None:
            msg_id = data["id"] if isinstance(data["id"], int | str) and not isinstance(data["id"], bool) else None
            error = {"code": NOT_INITIALIZED, "message": f"{str(method)[:100]!r} before initialize"}
            self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": error})
        else:
            log.debug("dropped a message before initialize: %s", str(method)[:100])
        return ANSWERED

    def handle_message(self, message: Any) -> None:
        if message is ANSWERED:
            return
        if getattr(message, "method", None) == types.INITIALIZE and not self._admit(message):
            return
        super().handle_message(message)

    def _admit(self, message: Any) -> bool:
        """The first initialize opens the session (with the right token where one is required)."""
        if self.initialize_seen:
            error = JsonRpcInvalidRequest("initialize was already received")
            self._send_response(message.id, error=error.to_response_error())
            return False
        if self.required_token is not None:
            options = getattr(message.params, "initialization_options", None)
            given = options.get(TOKEN_OPTION) if isinstance(options, dict) else None
            if not (isinstance(given, str) and hmac.compare_digest(_utf8(given), _utf8(self.required_token))):
                text = f"this server needs its token in initializationOptions.{TOKEN_OPTION}"
                self._send_response(message.id, error=JsonRpcInvalidRequest(text).to_response_error())
                if self.drop_connection is not None:
                    self.drop_connection("initialize without the right token")
                return False
        self.initialize_seen = True
        return True

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Any,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        """pygls 2.1.1 files every handler's future under its id but only removes those of client requests:
        the steps of its built-in generator handlers (every didOpen, hover, command…) stay forever, a few KB
        each. Finished ones are dropped here, on the event loop, before each new handler (never from a
        future's callback: those run on worker threads, and during pygls's own iteration at shutdown)."""
        finished = [key for key, future in self._request_futures.items() if future.done()]
        for key in finished:
            del self._request_futures[key]
        super()._execute_handler(msg_id, handler, callback, args, kwargs)


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # JSON may carry lone surrogates: compared, never rejected


def _structure_problem(exc: BaseException | None) -> str:
    if isinstance(exc, cattrs.ClassValidationError):
        return "; ".join(cattrs.transform_error(exc))[:500]
    return str(exc)[:500] if exc else "cannot be read"


class GuardedReader(StdinAsyncReader):
    """Reads stdin like pygls, but skips an absurdly large frame instead of buffering it whole."""

    def readexactly(self, n: int) -> Any:
        if n <= MAX_MESSAGE_BYTES:
            return super().readexactly(n)
        return self.loop.run_in_executor(self.executor, self._discard, n)

    def _discard(self, n: int) -> bytes:
        log.error("discarding a %d-byte message (limit %d bytes)", n, MAX_MESSAGE_BYTES)
        while n > 0:
            got = self.stdin.read(min(n, 1 << 20))
            if not got:
                return b""
            n -= len(got)
        return b"null"  # parses, then fails as "not a message": reported like any malformed frame


class _GuardedStreamReader:
    """A TCP client's stream as pygls reads it, skipping an absurdly large frame instead of buffering it."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader

    def readline(self) -> Any:
        return self.reader.readline()

    async def readexactly(self, n: int) -> bytes:
        if n <= MAX_MESSAGE_BYTES:
            return await self.reader.readexactly(n)
        log.error("discarding a %d-byte message (limit %d bytes)", n, MAX_MESSAGE_BYTES)
        while n > 0:
            got = await self.reader.read(min(n, 1 << 20))
            if not got:
                return b""
            n -= len(got)
        return b"null"  # parses, then fails as "not a message": reported like any malformed frame


@dataclass
class _Connection:
    """The TCP connection being served: how to end it, and when it has ended."""

    peer: Any
    drop: Callable[[str], None]
    done: asyncio.Event = field(default_factory=asyncio.Event)


def serve_tcp(server: ForewarnServer, host: str, port: int, token: str | None = None) -> None:
    """Serve one client at a time over TCP; the bound address is logged (``--port 0`` picks a free port).

    A connection made while an initialized client is connected is closed at once (logged): it can never read
    or take the first client's answers. Nothing but ``initialize`` is served before ``initialize``, which must
    carry ``token`` in ``initializationOptions.token`` when one is given. A connection that has not sent
    ``initialize`` holds nothing: it is closed after ``INITIALIZE_TIMEOUT_S``, or as soon as another client
    connects, so an idle or hostile peer can never keep the real client out (R12). The server ends once the
    client that initialized disconnects; a connection that ends before that (a port scan, a wrong token)
    leaves it listening for the real client.
    """
    stop = threading.Event()
    server._stop_event = stop
    protocol = server.protocol
    assert isinstance(protocol, ForewarnProtocol)
    protocol.required_token = token
    served: asyncio.Future[None]  # set by main(): done once the initialized client has gone
    active: _Connection | None = None

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal active
        peer = writer.get_extra_info("peername")
        while active is not None:
            if protocol.initialize_seen:
                log.warning("forewarn: refused a connection from %s: this server serves one client at a time", peer)
                writer.close()
                return
            waiting = active
            waiting.drop(f"another client ({peer}) connected before this one sent initialize")
            await waiting.done.wait()

        def drop(reason: str) -> None:
            log.warning("forewarn: closing the connection from %s: %s", peer, reason)
            writer.close()  # buffered replies are flushed first; the reader then sees the end of the stream

        def silent() -> None:
            if not protocol.initialize_seen:
                drop(f"no initialize within {INITIALIZE_TIMEOUT_S:g} s")

        active = current = _Connection(peer, drop)
        protocol.set_writer(writer)
        protocol.drop_connection = drop
        timer = asyncio.get_running_loop().call_later(INITIALIZE_TIMEOUT_S, silent)
        try:
            await run_async(stop, _GuardedStreamReader(reader), protocol, log, server.report_server_error)
        except (ConnectionError, asyncio.IncompleteReadError, ValueError) as exc:  # ValueError: an endless header
            log.warning("forewarn: the connection from %s ended: %s", peer, exc or type(exc).__name__)
        except SystemExit:  # the client's exit: pygls ends with sys.exit, which asyncio would log as a traceback
            log.info("forewarn: the client at %s asked the server to exit", peer)
        finally:
            timer.cancel()
            writer.close()
            active = None
            current.done.set()
            if protocol.initialize_seen:
                if not served.done():
                    served.set_result(None)
            else:
                log.warning("forewarn: the connection from %s ended before initialize; still listening", peer)

    async def main() -> None:
        nonlocal served
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(_quiet_cancellation)
        served = loop.create_future()
        listener = await asyncio.start_server(connection, host, port)
        for sock in listener.sockets:
            address = sock.getsockname()
            log.warning("forewarn: listening on %s:%s", address[0], address[1])
        async with listener:
            await served

    with contextlib.suppress(KeyboardInterrupt, SystemExit):
        asyncio.run(main())


def _quiet_cancellation(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """Work in flight when the client goes is cancelled; pygls then reports each handler as a traceback."""
    if isinstance(context.get("exception"), asyncio.CancelledError):
        log.debug("cancelled at disconnect: %s", context.get("message"))
        return
    loop.default_exception_handler(context)
