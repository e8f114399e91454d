"""`make demo`: Forewarn at work on a small billing service, end to end, with the real parts.

It copies examples/demo-workspace to build/demo/workspace, uses a private data dir
(build/demo/home, so your own memories are never touched) and the installed embedding model, then:
indexes the code, records what a team learned about it, shows the repo map and a search by meaning,
opens a file through a real language-server session (`forewarn serve` over stdio) to show the
diagnostics and hover an editor would get, changes the code under a memory to show it turning
stale, and ends with the memory-health report.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from forewarn import paths

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "examples" / "demo-workspace"
DEMO = REPO / "build" / "demo"
WORKSPACE = DEMO / "workspace"
HOME = DEMO / "home"
LSP_WAIT_S = 120.0  # first start indexes and loads the model; a stuck server fails the demo instead of hanging it

MEMORIES = [
    (
        "gotcha",
        "billing/money.py",
        "Money",
        "Never build Money from a float: 0.1 + 0.2 rounding put one-cent errors on 3% of invoices in March 2024. "
        "Use Money.from_decimal with a string, or integer cents.",
    ),
    (
        "decision",
        "billing/provider.py",
        "charge_card",
        "Every charge carries an idempotency key (the invoice number). Without it, a retry after a timeout "
        "charged customers twice during the 2025 provider outage.",
    ),
    (
        "error_pattern",
        "billing/db.py",
        "get_connection",
        "'database is locked' under load means a connection was shared between threads: keep one connection "
        "per thread (this function does), never pass it to a worker.",
    ),
    (
        "dead_end",
        "web/src/api.ts",
        "fetchJson",
        "Tried AbortController timeouts with keepalive in fetchJson: Safari drops the request silently. "
        "Rely on the server-side timeout instead.",
    ),
    (
        "convention",
        "billing/invoice.py",
        None,
        "VAT is computed on the subtotal once, never per line: per-line rounding disagreed with the tax office.",
    ),
]


def main() -> int:
    env = demo_env()
    reset_demo()
    step("1. The embedding model (llama.cpp, local)")
    forewarn(env, "model", "info")
    step("2. Index the workspace (tree-sitter chunks, imports, PageRank)")
    forewarn(env, "index")
    step("3. The team records what it learned (in the editor: 'Forewarn: Remember Gotcha Here')")
    for kind, file, symbol, text in MEMORIES:
        anchor = ["--file", file] + (["--symbol", symbol] if symbol else [])
        forewarn(env, "remember", "--type", kind, *anchor, text)
    step("4. Repo map: the most important definitions, within a token budget")
    forewarn(env, "map", "--budget", "250")
    step("5. Search by meaning: the words differ from the memory's")
    forewarn(env, "search", "customers were billed two times", "-k", "3")
    step("6. What an editor shows when billing/invoice.py opens (a real LSP session over stdio)")
    asyncio.run(editor_session(env))
    step("8. Memory health")
    forewarn(env, "stats")
    print(f"\nThe demo's data lives in {HOME}; your own memories were not touched.")
    return 0


def demo_env() -> dict[str, str]:
    models = paths.models_dir()  # the installed model, before HOME is pointed at the demo's data dir
    # the server's info logs would interleave with what the demo shows
    return {**os.environ, paths.HOME_ENV: str(HOME), paths.MODELS_ENV: str(models), "FOREWARN_LOG_LEVEL": "WARNING"}


def reset_demo() -> None:
    if DEMO.exists():
        shutil.rmtree(DEMO)
    shutil.copytree(SOURCE, WORKSPACE)
    # a project of its own, as a real one is: commands find their workspace root the way git does, and
    # without this the copy (under build/, inside Forewarn's own checkout) would resolve to the checkout
    git = ["git", "-c", "user.name=Demo", "-c", "user.email=demo@example.invalid", "-C", str(WORKSPACE)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "The billing service"], check=True)
    HOME.mkdir(parents=True)


def step(title: str) -> None:
    print(f"\n\033[1m== {title}\033[0m", flush=True)


def forewarn(env: dict[str, str], *args: str) -> None:
    shown = " ".join(a if " " not in a else repr(a) for a in args)
    print(f"$ forewarn {textwrap.shorten(shown, 110)}", flush=True)
    subprocess.run([sys.executable, "-m", "forewarn", *args], env=env, cwd=WORKSPACE, check=True)


async def editor_session(env: dict[str, str]) -> None:
    from lsprotocol import types
    from pytest_lsp import client_capabilities
    from pytest_lsp.client import make_test_lsp_client

    from forewarn.lsp.convert import CLIENT_CAPABILITY, MEMORIES_CHANGED, PROMPTS_FOR_TEXT

    client = make_test_lsp_client()
    client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
    client.feature(MEMORIES_CHANGED)(lambda params: None)  # the editors refresh their panels on it
    # VS Code with Forewarn's extension, as a person uses it: the extension says it asks the user for a text, which
    # is how the server tells an interactive editor from an agent host (agents get notes quoted as data)
    capabilities = client_capabilities("visual-studio-code")
    known = capabilities.experimental if isinstance(capabilities.experimental, dict) else {}
    capabilities.experimental = {**known, CLIENT_CAPABILITY: {PROMPTS_FOR_TEXT: True}}
    await client.start_io(sys.executable, "-m", "forewarn.cli.main", "serve", env=env)
    try:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=capabilities,
                root_uri=WORKSPACE.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=WORKSPACE.as_uri(), name="demo-workspace")],
            )
        )
        invoice = WORKSPACE / "billing" / "invoice.py"
        diagnostics = await open_and_wait(client, invoice)
        print(f"Diagnostics for {invoice.relative_to(WORKSPACE)}:")
        for d in diagnostics:
            severity = types.DiagnosticSeverity(d.severity).name if d.severity else "?"
            print(f"  line {d.range.start.line + 1:>3}  {severity:<11} {d.message}")
            for related in d.related_information or []:
                where = Path(related.location.uri.removeprefix("file://")).relative_to(WORKSPACE)
                print(f"{'':20}↳ {where}:{related.location.range.start.line + 1}  {related.message}")

        provider = WORKSPACE / "billing" / "provider.py"
        text = provider.read_text(encoding="utf-8")
        line = next(i for i, s in enumerate(text.splitlines()) if s.startswith("def charge_card"))
        await open_and_wait(client, provider)
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=provider.as_uri()),
                position=types.Position(line=line, character=5),
            )
        )
        print("\nHover on charge_card in billing/provider.py:")
        if hover is not None and isinstance(hover.contents, types.MarkupContent):
            print(textwrap.indent(hover.contents.value, "  │ "))

        step("7. The code under a memory changes: the memory turns stale ('may be outdated')")
        edited = text.replace("key = idempotency_key or str(uuid.uuid4())", "key = str(uuid.uuid4())  # simplified")
        provider.write_text(edited, encoding="utf-8")
        print("$ (charge_card edited to ignore the caller's idempotency key, then saved)")
        uri = provider.as_uri()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited)],
            )
        )
        client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        async with asyncio.timeout(LSP_WAIT_S):
            while True:
                await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
                current = client.diagnostics.get(uri, [])
                if any(d.severity == types.DiagnosticSeverity.Hint for d in current):
                    break
        for d in client.diagnostics[uri]:
            severity = types.DiagnosticSeverity(d.severity).name if d.severity else "?"
            print(f"  line {d.range.start.line + 1:>3}  {severity:<11} {d.message}")
        await client.shutdown_session()
    finally:
        await client.stop()


async def open_and_wait(client: object, path: Path) -> list[object]:
    from lsprotocol import types

    uri = path.as_uri()
    item = types.TextDocumentItem(uri=uri, language_id="python", version=1, text=path.read_text(encoding="utf-8"))
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))  # type: ignore[attr-defined]
    async with asyncio.timeout(LSP_WAIT_S):
        while uri not in client.diagnostics:  # type: ignore[attr-defined]
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[attr-defined]
    return list(client.diagnostics[uri])  # type: ignore[attr-defined]


if __name__ == "__main__":
    sys.exit(main())
