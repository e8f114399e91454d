"""Security: loopback by default, private files, no reads or writes outside the workspace and the data
dir, memory text never executed and inert in hovers, secrets redacted before storage."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import stat
import subprocess
from pathlib import Path

import psutil
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from markdown_it import MarkdownIt

from forewarn import paths
from forewarn.lsp import convert
from forewarn.memory.records import Anchor, Memory
from forewarn.memory.redact import redact
from forewarn.memory.shared_file import TransferError
from forewarn.memory.text import new_id, to_iso
from forewarn.workspace.engine import Workspace
from tests.lsp.conftest import open_session
from tests.reliability import crash, lsp

LISTEN_RE = re.compile(r"listening on (\S+):(\d+)")

# ---------------------------------------------------------------- TCP transport


async def _serve_tcp(*extra: str) -> tuple[asyncio.subprocess.Process, str, int]:
    proc = await asyncio.create_subprocess_exec(
        *lsp.SERVE, "--tcp", "--port", "0", *extra, stderr=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL
    )
    assert proc.stderr is not None
    while True:
        line = (await asyncio.wait_for(proc.stderr.readline(), lsp.WAIT_S)).decode()
        assert line, "the server exited before listening"
        if m := LISTEN_RE.search(line):
            return proc, m.group(1), int(m.group(2))


def _other_addresses() -> list[str]:
    return [
        a.address
        for addrs in psutil.net_if_addrs().values()
        for a in addrs
        if a.family == socket.AF_INET and not a.address.startswith("127.")
    ]


async def test_tcp_listens_on_loopback_only_by_default() -> None:
    proc, host, port = await _serve_tcp()
    try:
        assert host == "127.0.0.1"
        listening = [c.laddr for c in psutil.Process(proc.pid).net_connections() if c.status == psutil.CONN_LISTEN]
        assert listening and all(addr.ip == "127.0.0.1" for addr in listening), listening
        for address in _other_addresses():  # reachable from the network? it must not be
            with pytest.raises(OSError), socket.create_connection((address, port), timeout=2):
                pass
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
    finally:
        proc.kill()
        await proc.wait()


async def test_tcp_binds_elsewhere_only_when_configured() -> None:
    # a non-loopback address needs --allow-remote as well as --host (the refusal itself: tests/lsp/test_tcp.py)
    proc, host, _ = await _serve_tcp("--host", "0.0.0.0", "--allow-remote")
    try:
        assert host == "0.0.0.0"
    finally:
        proc.kill()
        await proc.wait()


# ---------------------------------------------------------------- file modes


def _modes(home: Path) -> dict[str, str]:
    """Every path under the data dir whose mode is wider than private: rel path -> octal mode."""
    wide = {}
    for p in [home, *home.rglob("*")]:
        mode = stat.S_IMODE(p.lstat().st_mode)
        if p.is_symlink():
            continue
        limit = 0o700 if p.is_dir() else 0o600
        if mode & ~limit:
            wide[str(p.relative_to(home)) or "."] = oct(mode)
    return wide


@pytest.fixture
def used_home(tmp_path: Path, forewarn_home: Path) -> Path:
    """A data dir after real use: memories with vectors, an index, the embedding cache, an export."""
    root = crash.make_workspace(tmp_path / "ws", files=6)
    with Workspace.open(root) as engine:
        engine.reindex()
        engine.remember("a lesson with a vector", file="pkg0/mod0.py")
        engine.search("lesson")
        engine.flush()
    return forewarn_home


def test_database_files_are_private(used_home: Path) -> None:
    dbs = [p for p in used_home.rglob("*") if p.name.endswith((".db", ".db-wal", ".db-shm", ".hnsw", "vectors.json"))]
    assert any(p.name == "memory.db" for p in dbs) and any(p.name == "index.db" for p in dbs)
    assert {
        str(p.relative_to(used_home)): oct(stat.S_IMODE(p.stat().st_mode)) for p in dbs if p.stat().st_mode & 0o077
    } == {}
    wdir = next(p.parent for p in dbs if p.name == "memory.db")
    assert stat.S_IMODE(wdir.stat().st_mode) == 0o700
    assert stat.S_IMODE(used_home.stat().st_mode) == 0o700


def test_everything_in_the_data_dir_is_private(used_home: Path) -> None:
    assert _modes(used_home) == {}


# ---------------------------------------------------------------- paths outside the workspace


def test_cli_refuses_anchors_outside_the_workspace(tmp_path: Path) -> None:
    root = crash.make_workspace(tmp_path / "ws", files=4)
    (root / "out.py").symlink_to("/etc/passwd")
    for target in ("../../etc/passwd", "/etc/passwd", "out.py", "pkg0/../../../etc/passwd"):
        done = subprocess.run(
            [*crash.CLI, "remember", "x", "--file", target, "-w", str(root)], capture_output=True, text=True
        )
        assert done.returncode != 0 and "Traceback" not in done.stderr, (target, done.stderr)
        assert "outside the workspace" in done.stderr or "not a file in the workspace" in done.stderr, done.stderr


def test_import_refuses_anchors_that_escape_the_workspace(tmp_path: Path) -> None:
    root = crash.make_workspace(tmp_path / "ws", files=4)
    with Workspace.open(root, embedder=None) as engine:
        engine.remember("a real one", file="pkg0/mod0.py")
        engine.export()
        lines = engine.default_export_path().read_text().splitlines()
    header = json.loads(lines[0])
    record = json.loads(lines[1])
    crafted = []
    for i, bad in enumerate(["../../etc/passwd", "/etc/passwd", "pkg0/../../x"]):
        r = dict(record, id=new_id(1_700_000_000 + i), text=f"evil {i}")
        r["anchor"] = dict(record["anchor"], file=bad)
        crafted.append(json.dumps(r))
    evil = tmp_path / "evil.jsonl"
    evil.write_text("\n".join([json.dumps(header), *crafted]) + "\n")
    with Workspace.open(root, embedder=None) as engine:
        with pytest.raises(TransferError, match="inside the workspace"):
            engine.import_(evil, embed=False)
        anchors = [m.anchor.file for m in engine.store.iter_all() if m.anchor is not None]
    assert anchors == ["pkg0/mod0.py"]  # nothing of the crafted file got in


async def test_server_refuses_documents_and_anchors_outside_its_folders(tmp_path: Path) -> None:
    root = crash.make_workspace(tmp_path / "ws", files=4)
    async with lsp.server(root, options={"embedder": {"enabled": False}}) as client:
        for uri in (
            "file:///etc/passwd",
            (root.parent / "elsewhere.py").as_uri(),
            "file:///" + "../" * 8 + "etc/shadow",
        ):
            params = types.ExecuteCommandParams(command="forewarn.remember", arguments=[{"text": "x", "uri": uri}])
            with pytest.raises(Exception, match=r"not inside a workspace folder|outside"):
                await asyncio.wait_for(client.workspace_execute_command_async(params), lsp.WAIT_S)
        hover = types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri="file:///etc/passwd"),
            position=types.Position(line=0, character=0),
        )
        assert await asyncio.wait_for(client.text_document_hover_async(hover), lsp.WAIT_S) is None
        with pytest.raises(Exception, match="not inside a workspace folder"):
            await lsp.command(client, "forewarn.repoMap", {"focus": ["file:///etc/passwd"]})


# ---------------------------------------------------------------- memory text is data, never code

PAYLOADS = [
    "$(touch {marker})",
    "`touch {marker}`",
    "; touch {marker} #",
    "__import__('os').system('touch {marker}')",
    "{{{{ ''.__class__ }}}} {{% include '{marker}' %}}",
    "[run](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22touch%20{marker}%5Cn%22%7D)",
    "<img src=x onerror=\"fetch('file://{marker}')\">",
]


async def test_memory_text_is_never_executed(tmp_path: Path) -> None:
    root = crash.make_workspace(tmp_path / "ws", files=4)
    marker = tmp_path / "pwned"
    texts = [p.format(marker=marker) for p in PAYLOADS]
    for text in texts[:3]:
        subprocess.run([*crash.CLI, "remember", text, "-w", str(root), "--file", "pkg0/mod0.py"], check=True,
                       capture_output=True)  # fmt: skip
    async with lsp.server(root, options={"embedder": {"enabled": False}}) as client:
        for text in texts[3:]:
            await lsp.command(client, "forewarn.remember", {"text": text, "uri": (root / "pkg0" / "mod0.py").as_uri()})
        await lsp.command(client, "forewarn.search", {"query": "touch pwned"})
        uri = (root / "pkg0" / "mod0.py").as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1,
                                                     text=(root / "pkg0" / "mod0.py").read_text())
            )
        )  # fmt: skip
        hover = types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=4, character=4)
        )
        await asyncio.wait_for(client.text_document_hover_async(hover), lsp.WAIT_S)
    for argv in (["search", "touch"], ["memory", "list"], ["memory", "export"]):
        subprocess.run([*crash.CLI, *argv, "-w", str(root)], check=True, capture_output=True)
    assert not marker.exists()
    exported = (root / ".forewarn" / "memories.jsonl").read_text()
    assert all(json.dumps(t)[1:-1] in exported for t in texts)  # stored as written: data, not code


# ---------------------------------------------------------------- hovers are inert Markdown

RENDER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])  # html on: the worst case
# any tag but inert formatting (Forewarn's own Markdown, an indented line as a code block, a memory's own
# list or setext heading): no <a>, <img>, <script> or other HTML
ACTIVE_HTML = re.compile(r"<(?!/?(?:p|strong|em|code|pre|hr|br|ul|ol|li|h[1-6])\b)[a-zA-Z/!?]")


def _memory(text: str) -> Memory:
    return Memory("01HOVER00000000000000000000", "gotcha", text, None, "user", 1.0,
                  "2025-01-01T00:00:00.000000Z", "2025-01-01T00:00:00.000000Z")  # fmt: skip


def _assert_inert(markdown: str) -> None:
    html = RENDER.render(markdown)
    assert not ACTIVE_HTML.search(html), html  # no <a>, <img>, <script>: only the tags Forewarn writes


HOSTILE = st.one_of(
    st.text(max_size=300),
    st.lists(
        st.sampled_from(["[a](command:x)", "[b]: command:y", "![i](https://e/x.png)", "<a href='command:z'>",
                         "<img src=x>", "<script>", "&lt;script&gt;", "&#60;img src=x&#62;", "```", "`", "\\",
                         "<command:x>", "<https://evil.example>", "](", "[", "\n\n", "    ", "*", "_", "|", "~~~"]),
        max_size=12,
    ).map("".join),
)  # fmt: skip


@settings(max_examples=int(os.environ.get("FOREWARN_FUZZ_EXAMPLES", "60")) * 3, deadline=None)
@given(text=HOSTILE)
def test_hover_markdown_is_inert_for_any_memory_text(text: str) -> None:
    markdown = convert.hover_markdown("Invoice.total", [_memory(text)], None)
    assert markdown is not None
    _assert_inert(markdown)


async def test_hover_through_the_server_shows_escaped_text(tmp_path: Path) -> None:
    root = crash.make_workspace(tmp_path / "ws", files=4)
    path = root / "pkg0" / "mod0.py"
    evil = "[click me](command:workbench.action.terminal.new) <img src=x onerror=alert(1)> <https://e.example>"
    async with lsp.server(root, options={"embedder": {"enabled": False}}) as client:
        await lsp.indexed(client)
        lines = path.read_text().splitlines()
        line = next(i for i, text in enumerate(lines) if text.startswith("def "))
        rng = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 1}}
        await lsp.command(client, "forewarn.remember", {"text": evil, "uri": path.as_uri(), "range": rng})
        hover = await asyncio.wait_for(
            client.text_document_hover_async(
                types.HoverParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
                                  position=types.Position(line=line, character=5))
            ),
            lsp.WAIT_S,
        )  # fmt: skip
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "click me" in hover.contents.value
    _assert_inert(hover.contents.value)


# F6: a symbol name is data too. (a) a JS computed method name from a hostile source file; (b) an imported
# anchor's symbol, which hovers show while a full index runs
F6A_SOURCE = "class A {\n  [`x\n\n[**Click**](command:workbench.action.terminal.new)\n\n`]() { return 1; }\n}\n"
F6B_SYMBOL = (
    "finalize\n\n[**Click to fix**](command:workbench.action.terminal.new) ![t](https://127.0.0.1:9/pixel.png) "
    "<img src=x onerror=alert(1)>\n\n`x"
)
HOVER_BLOCKS = {"paragraph_open", "paragraph_close", "inline", "hr"}
HOVER_INLINE = {"text", "text_special", "hardbreak", "softbreak", "strong_open", "strong_close", "code_inline"}


def _hover_parts(markdown: str) -> list[str]:
    """The code spans of a hover, after checking it holds only what Forewarn writes: paragraphs, rules,
    bold labels, code spans and line breaks (no link, image, HTML, heading, list or quote)."""
    spans = []
    for token in RENDER.parse(markdown):
        assert token.type in HOVER_BLOCKS, (token.type, markdown)
        for child in token.children or []:
            assert child.type in HOVER_INLINE, (child.type, markdown)
            if child.type == "code_inline":
                spans.append(child.content)
    assert not re.search(r"<(?!/?(?:p|strong|code|hr|br)\b)", RENDER.render(markdown))
    return spans


@settings(max_examples=int(os.environ.get("FOREWARN_FUZZ_EXAMPLES", "60")) * 3, deadline=None)
@given(symbol=HOSTILE, text=HOSTILE)
def test_hover_shows_any_symbol_as_one_unbroken_code_span(symbol: str, text: str) -> None:
    markdown = convert.hover_markdown(symbol, [_memory(text)], None)
    assert markdown is not None
    spans = _hover_parts(markdown)
    name = convert.flat_text(symbol)
    assert spans == ([name] if name else []) + ["01HOVER00000000000000000000"]


def test_f6a_a_computed_js_method_name_cannot_add_a_link(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "evil.js").write_text(F6A_SOURCE)
    session = open_session(root)
    try:
        made = session.remember("calls the gateway twice", "gotcha", "evil.js", None, 2, [])
        assert session.engine is not None
        memory = session.engine.get(made["id"])
        symbol = memory.anchor.symbol if memory.anchor else None
        assert symbol is not None and "\n" in symbol and "command:" in symbol  # the indexer keeps the name as written
        # a hover anywhere on the hostile line answers safely (a computed name is no identifier: nothing, or the
        # class), and what a hover on that symbol would render is inert
        for char in range(0, 8):
            view = session.symbol_info("evil.js", 2, char, F6A_SOURCE)
            if view.symbol is not None:
                shown = convert.hover_markdown(view.symbol, view.memories, view.importance)
                if shown is not None:
                    _hover_parts(shown)  # only paragraphs, rules, text, bold and code spans: no link, no image
        markdown = convert.hover_markdown(symbol, [memory], None)
        assert markdown is not None and "calls the gateway twice" in markdown
        assert _hover_parts(markdown)[0] == "A.[`x [**Click**](command:workbench.action.terminal.new) `]"
        picked = convert.chunk_symbol(convert.ChunkView("evil.js", "file:///evil.js", symbol, "method", 2, 6, ""))
        assert "\n" not in picked.name  # the symbol picker shows one line
    finally:
        session.close()


def test_f6b_an_imported_anchor_symbol_cannot_add_a_link_during_a_full_index(tmp_path: Path) -> None:
    root = crash.make_workspace(tmp_path / "ws", files=2)
    session = open_session(root)
    try:
        made = session.remember("finalize runs twice on retry", "gotcha", "pkg0/mod0.py", None, None, [])
        assert session.engine is not None
        session.engine.store.update_anchor(
            made["id"], Anchor("pkg0/mod0.py", F6B_SYMBOL, 1, 100_000), at=to_iso(0), event=None
        )
        session.full_index_running.set()  # hovers are answered from the stored anchors
        text = (root / "pkg0" / "mod0.py").read_text()
        line = text.split("\n")[2]
        char = line.find("finalize") if "finalize" in line else 0
        view = session.symbol_info("pkg0/mod0.py", 3, max(char, 0), text)
        assert view.symbol in (None, F6B_SYMBOL)
        symbol = F6B_SYMBOL
        memories = view.memories or [session.engine.get(made["id"])]
        assert [m.id for m in memories] == [made["id"]]
        markdown = convert.hover_markdown(symbol, memories, None)
        assert markdown is not None
        assert _hover_parts(markdown)[0] == convert.flat_text(F6B_SYMBOL)
        assert "https://127.0.0.1:9/pixel.png" in markdown  # shown as text inside the code span, never loaded
    finally:
        session.close()


# ---------------------------------------------------------------- secrets


SECRETS = {
    "aws-access-key": "AKIAIOSFODNN7EXAMPLE",
    "aws-secret-key": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "github-token": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "github-pat": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
    "slack-token": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "slack-webhook": "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "rsa-private-key": (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq8d1yZ3kYQ+ZJmPQx0\nq9w==\n-----END RSA PRIVATE KEY-----"
    ),
    "openssh-private-key": (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
        "-----END OPENSSH PRIVATE KEY-----"
    ),
    "jwt": (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
    ),
    "env-assignment": 'STRIPE_API_KEY="q8Zr2LmX0vT7pK4nW9sB3eY6"',
    "json-assignment": '{"client_secret": "Zx9Lq2Vt7Rk4Wm8Np3Bs6Yd1"}',
    "yaml-assignment": "db_password: T7#kq2!Lm9@xZ",
    "url-credentials": "postgres://billing:S3cr3tP4ss@db.internal:5432/billing",
}
SECRET_VALUES = {
    "aws-secret-key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "rsa-private-key": "MIIEpAIBAAKCAQEA7bq8d1yZ3kYQ",
    "openssh-private-key": "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
    "env-assignment": "q8Zr2LmX0vT7pK4nW9sB3eY6",
    "json-assignment": "Zx9Lq2Vt7Rk4Wm8Np3Bs6Yd1",
    "yaml-assignment": "T7#kq2!Lm9@xZ",
    "url-credentials": "S3cr3tP4ss",
}
NOT_SECRETS = [
    "set password=changeme in the dev compose file only",
    "the token bucket refills at 10/s",
    "use AKIA prefixed keys only through the vault",
    "sha256 of the release is e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed the rounding",
]


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_secret_is_redacted_before_storage(tmp_path: Path, kind: str) -> None:
    secret = SECRETS[kind]
    value = SECRET_VALUES.get(kind, secret)
    text = f"we hit this in prod, the config had {secret} in it; rotate it"
    safe, kinds = redact(text)
    assert value not in safe and "[REDACTED:" in safe and kinds
    root = crash.make_workspace(tmp_path / "ws", files=2)
    with Workspace.open(root, embedder=None) as engine:
        stored = engine.remember(text).memory
        assert value not in stored.text and "[REDACTED:" in stored.text
        db = paths.workspace_dir(root) / "memory.db"
        engine.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert value.encode() not in db.read_bytes()  # not in the file either (FTS included)


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_ordinary_text_is_kept(text: str) -> None:
    assert redact(text) == (text, [])


def test_secret_in_an_import_is_redacted(tmp_path: Path) -> None:
    root = crash.make_workspace(tmp_path / "ws", files=2)
    with Workspace.open(root, embedder=None) as engine:
        engine.remember("placeholder")
        engine.export()
        lines = engine.default_export_path().read_text().splitlines()
    record = json.loads(lines[1])
    record.update(id="01SECRET000000000000000000", text=f"key is {SECRETS['github-token']}")
    path = tmp_path / "in.jsonl"
    path.write_text(lines[0] + "\n" + json.dumps(record) + "\n")
    with Workspace.open(root, embedder=None) as engine:
        engine.import_(path, embed=False)
        texts = [m.text for m in engine.store.iter_all()]
    assert not any(SECRETS["github-token"] in t for t in texts)
