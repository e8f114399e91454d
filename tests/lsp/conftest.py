"""Shared pieces of the daemon tests: fixture workspaces, the server command, awaiting notifications.

Every end-to-end test drives the real ``forewarn serve`` over stdio with pytest-lsp's client; the
server inherits this test's private ``FOREWARN_HOME`` (tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from forewarn.config import Settings
from forewarn.lsp.convert import CLIENT_CAPABILITY, PROMPTS_FOR_TEXT
from forewarn.lsp.session import FolderSession

SERVER_COMMAND = [sys.executable, "-m", "forewarn.cli.main", "serve"]
EDITORS = ["visual-studio-code", "neovim"]  # the two clients issue 6 ships; their real capabilities
WAIT_S = 60.0  # generous for a loaded 2-core CI machine; a hang still fails instead of blocking forever

PY_MODELS = '''\
"""Billing models."""

import decimal


class Invoice:
    """An invoice."""

    def total(self, lines):
        """Sum the lines with the right rounding."""
        amount = sum(line.amount for line in lines)
        return amount.quantize(decimal.Decimal("0.01"))

    def void(self):
        self.voided = True


def parse_amount(text):
    return decimal.Decimal(text)
'''

PY_SERVICE = '''\
"""Uses the billing models."""

from billing.models import Invoice, parse_amount


def charge(lines):
    invoice = Invoice()
    return invoice.total(lines)


def refund(text):
    return -parse_amount(text)
'''

TS_CLIENT = """\
export function formatMoney(cents: number): string {
  return (cents / 100).toFixed(2);
}

export class Cart {
  items: number[] = [];

  total(): number {
    return this.items.reduce((a, b) => a + b, 0);
  }
}
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small real workspace: a Python package whose service uses its models, and a TypeScript file."""
    root = tmp_path / "shop"
    (root / "billing").mkdir(parents=True)
    (root / "web").mkdir()
    (root / "billing" / "__init__.py").write_text("")
    (root / "billing" / "models.py").write_text(PY_MODELS)
    (root / "billing" / "service.py").write_text(PY_SERVICE)
    (root / "web" / "cart.ts").write_text(TS_CLIENT)
    return root


def history_with_a_reverted_rounding(root: Path, git: Callable[..., None]) -> None:
    """Make the ``workspace`` fixture's ``root`` a repository (``git(root, *args)`` runs git with the test's own
    identity) whose history holds a revert with its reason: mining proposes it as a dead end (without one, nothing)."""
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Billing models and service")
    models = root / "billing" / "models.py"
    models.write_text(models.read_text().replace("amount.quantize", "round(amount, 2) and amount.quantize"))
    git(root, "commit", "-q", "-am", "Use round() in Invoice.total for speed")
    git(root, "revert", "--no-edit", "HEAD")
    git(root, "commit", "-q", "--amend", "-m", 'Revert "Use round() in Invoice.total for speed"\n\n'
        "round() on floats loses cents on long invoices, so the total drifted.")  # fmt: skip


def accept_registrations(client: LanguageClient) -> list[types.Registration]:
    """Answer ``client/registerCapability`` as an editor does; returns the list registrations land in."""
    registrations: list[types.Registration] = []

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        registrations.extend(params.registrations)

    return registrations


async def start_editor(
    client: LanguageClient, editor: str, root: Path, options: Any = None
) -> list[types.Registration]:
    """Initialize as ``editor`` on ``root`` (answering its registrations as it does) and wait for the first
    index; returns the registrations the server made."""
    registrations = accept_registrations(client)
    await client.initialize_session(initialize_params(editor, root, options))
    await indexing_done(client)
    return registrations


def initialize_params(
    editor: str, root: Path | None, options: Any = None, folders: list[Path] | None = None, *, prompts: bool = True
) -> types.InitializeParams:
    """``editor``'s real capabilities; ``prompts`` adds what Forewarn's own clients for it declare on top
    (``experimental.forewarn.promptsForText``: they ask the user for a code action's ``text: null``).
    ``prompts=False`` is a generic client: an agent host, or an editor without a Forewarn plugin."""
    folders = folders if folders is not None else ([root] if root is not None else [])
    capabilities = client_capabilities(editor)
    if prompts:
        capabilities.experimental = {
            **(capabilities.experimental if isinstance(capabilities.experimental, dict) else {}),
            CLIENT_CAPABILITY: {PROMPTS_FOR_TEXT: True},
        }
    return types.InitializeParams(
        capabilities=capabilities,
        root_uri=root.as_uri() if root is not None else None,
        workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders] or None,
        initialization_options=options,
    )


def _condition(client: LanguageClient) -> asyncio.Condition:
    """A condition notified after every notification the client has handled (state already updated).

    ``wait_for_notification`` alone can miss one that lands between two waits; this cannot.
    """
    cond: asyncio.Condition | None = getattr(client, "_forewarn_condition", None)
    if cond is None:
        cond = asyncio.Condition()
        original = client.protocol._handle_notification
        pending: set[asyncio.Task[None]] = set()  # strong references until each wake-up has run

        def handle(method: str, params: Any) -> None:
            original(method, params)

            async def wake() -> None:
                async with cond:
                    cond.notify_all()

            task = asyncio.ensure_future(wake())
            pending.add(task)
            task.add_done_callback(pending.discard)

        client.protocol._handle_notification = handle  # type: ignore[method-assign]
        client._forewarn_condition = cond  # type: ignore[attr-defined]
    return cond


async def wait_until(client: LanguageClient, method: str, ready: Callable[[], Any], timeout: float = WAIT_S) -> Any:
    """Await notifications (``method`` names what is expected) until ``ready()`` is truthy; returns its value."""
    cond = _condition(client)
    box: list[Any] = []

    def check() -> bool:
        value = ready()
        if value:
            box.append(value)
        return bool(value)

    async with cond:
        await asyncio.wait_for(cond.wait_for(check), timeout)
    return box[-1]


async def indexing_done(client: LanguageClient, count: int = 1) -> list[list[Any]]:
    """Wait for ``count`` finished ``$/progress`` runs; returns every run's reports."""

    def finished() -> list[list[Any]] | None:
        runs = [r for r in client.progress_reports.values() if r and isinstance(r[-1], types.WorkDoneProgressEnd)]
        return runs if len(runs) >= count else None

    return await wait_until(client, types.PROGRESS, finished)


async def diagnostics_for(
    client: LanguageClient, uri: str, accept: Callable[[list[types.Diagnostic]], bool], timeout: float = WAIT_S
) -> list[types.Diagnostic]:
    """The first published diagnostics of ``uri`` that ``accept`` approves (checked on every publish)."""
    seen: list[Any] = []

    def ready() -> Any:
        current = client.diagnostics.get(uri)
        if current is not None and (not seen or current is not seen[-1]):
            seen.append(current)
            if accept(list(current)):
                return list(current) or [None]
        return None

    result = await wait_until(client, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, ready, timeout)
    return [d for d in result if d is not None]


async def run(client: LanguageClient, command: str, **argument: Any) -> Any:
    """``workspace/executeCommand`` with the one object argument every Forewarn command takes."""
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=[argument])
    )


def open_session(root: Path) -> FolderSession:
    """One folder's session, lexical (no model), opened and indexed, as the server holds it."""
    settings = Settings()
    settings.embedder.enabled = False
    session = FolderSession(root, settings)
    session.open()
    session.index(None)
    return session


def open_document(client: LanguageClient, path: Path, language: str = "python", version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language, version=version, text=path.read_text())
        )
    )
    return uri


async def raw_request(client: LanguageClient, body: bytes | str | dict[str, Any], msg_id: str | None = None) -> Any:
    """Send a hand-made request frame (any bytes) and await the response to ``msg_id``.

    The typed client cannot send wrong parameter types; real editors and fuzzers can.
    """
    msg_id = msg_id or str(uuid.uuid4())
    future: Future[Any] = Future()
    client.protocol._request_futures[msg_id] = future
    raw_frame(client, body)
    return await asyncio.wait_for(asyncio.wrap_future(future), WAIT_S)


def raw_frame(client: LanguageClient, body: bytes | str | dict[str, Any]) -> None:
    if isinstance(body, dict):
        body = json.dumps(body)
    data = body.encode() if isinstance(body, str) else body
    assert client._server is not None and client._server.stdin is not None
    client._server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)


def dedent(text: str) -> str:
    return textwrap.dedent(text)
