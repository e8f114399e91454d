"""End to end, as both editors: mined suggestions as hints with Accept/Dismiss, the review command,
background mining of a git repository, and what a capped open or hover says about the rest."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import ClientServerConfig, LanguageClient

from forewarn.config import Settings
from forewarn.lsp.convert import HOVER_MEMORIES
from forewarn.lsp.session import SUGGESTIONS_PER_FILE
from forewarn.memory.suggestions import Suggestion
from forewarn.memory.vocabulary import MemorySource, MemoryType
from forewarn.workspace.engine import Workspace
from forewarn.workspace.history import GitError, cut_lines
from tests.lsp.conftest import (
    EDITORS,
    SERVER_COMMAND,
    accept_registrations,
    diagnostics_for,
    history_with_a_reverted_rounding,
    indexing_done,
    initialize_params,
    open_document,
    raw_request,
    run,
    start_editor,
)

ROUNDING = "Fix rounding in Invoice.total: quantize after summing, never per line, or cents go missing."
MANY = 200  # memories on one file: ten times what an open shows


def _suggestion(n: int, text: str, symbol: str | None = "Invoice.total") -> Suggestion:
    commit = {"sha": f"{n:07d}abcdef", "author": "Ann", "date": "2024-03-02T10:00:00+00:00", "subject": text[:40]}
    return Suggestion(
        fingerprint=f"fix:{n}", type=MemoryType.GOTCHA, text=text, source=MemorySource.COMMIT,
        created_at="2024-03-02T10:00:00+00:00", file="billing/models.py", symbol=symbol,
        provenance={"commits": [commit], "anchor": "symbol" if symbol else "file"},
    )  # fmt: skip


def _lexical() -> Settings:
    settings = Settings()
    settings.embedder.enabled = False  # the test writes hundreds of memories: no model needed for that
    settings.mining.enabled = False
    return settings


@pytest.fixture
def seeded(workspace: Path) -> Path:
    """Suggestions on billing/models.py (more than an open shows), written before the server starts."""
    with Workspace.open(workspace, _lexical()) as ws:
        ws.reindex()
        ws.add_suggestions([_suggestion(0, ROUNDING)])
        ws.add_suggestions(
            [_suggestion(n, f"Widget {n}: suggestion number {n} about parse_amount", None) for n in range(1, 6)]
        )
    return workspace


async def start_lexical(client: LanguageClient, editor: str, root: Path) -> None:
    """Initialize as ``editor`` on ``root`` with the embedder off (no model needed), and wait for the first index."""
    client.set_configuration({"embedder": {"enabled": False}}, section="forewarn")
    await start_editor(client, editor, root, {"embedder": {"enabled": False}})


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, seeded: Path):
    await start_lexical(lsp_client, request.param, seeded)
    yield
    await lsp_client.shutdown_session()


def by_text(diags: list[types.Diagnostic], text: str) -> types.Diagnostic | None:
    return next((d for d in diags if text in d.message), None)


async def test_a_suggestion_is_a_hint_until_accepted_then_a_warning(client: LanguageClient, seeded: Path) -> None:
    uri = open_document(client, seeded / "billing" / "models.py")
    diags = await diagnostics_for(client, uri, lambda ds: by_text(ds, "quantize after summing") is not None)
    hint = by_text(diags, "quantize after summing")
    assert hint is not None and hint.severity == types.DiagnosticSeverity.Hint
    assert hint.message.split("\n")[1].startswith("suggested gotcha")
    assert "suggested from commit 0000000 by Ann, 2024-03-02" in hint.message
    assert (hint.range.start.line, hint.range.end.line) == (8, 12)  # Invoice.total's span
    suggested = [d for d in diags if isinstance(d.data, dict) and d.data.get("status") == "suggested"]
    assert len(suggested) == SUGGESTIONS_PER_FILE  # six on the file, a few shown…
    assert all(d.severity == types.DiagnosticSeverity.Hint for d in diags)  # …never a warning
    assert by_text(diags, "More suggestions on this file") is not None  # …and the rest named

    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(10, 0), end=types.Position(10, 5)),
        context=types.CodeActionContext(diagnostics=[hint]),
    )
    request = {"jsonrpc": "2.0", "id": "actions", "method": "textDocument/codeAction"}
    actions = await raw_request(
        client, {**request, "params": client.protocol._converter.unstructure(params)}, "actions"
    )
    mid = hint.data["id"]  # type: ignore[index]
    offered = {
        (a["title"].split(" (")[0], a["command"]["command"], "text" in a["command"]["arguments"][0]) for a in actions
    }
    assert {
        ("Forewarn: accept suggestion", "forewarn.acceptSuggestion", False),
        ("Forewarn: edit and accept suggestion", "forewarn.acceptSuggestion", True),  # text: null, the client asks
        ("Forewarn: dismiss suggestion", "forewarn.dismissSuggestion", False),
    } <= offered
    assert not any(a["command"]["command"] == "forewarn.confirm" for a in actions)  # not a memory yet

    review = await run(client, "forewarn.review", uri=uri)
    assert review["total"] == 6 and review["suggestions"][0]["id"] == mid  # the symbol-anchored one ranks first
    assert review["suggestions"][0]["provenance"]["commits"][0]["author"] == "Ann"

    accept = next(a for a in actions if a["command"]["command"] == "forewarn.acceptSuggestion")
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="forewarn.acceptSuggestion", arguments=accept["command"]["arguments"])
    )
    after = await diagnostics_for(
        client, uri, lambda ds: (d := by_text(ds, "quantize after summing")) is not None and d.severity == 2
    )
    warning = by_text(after, "quantize after summing")
    assert warning is not None and warning.severity == types.DiagnosticSeverity.Warning
    assert (
        warning.message.startswith("Fix rounding")
        and "\ngotcha · " in warning.message
        and "learned from commit 0000000 by Ann" in warning.message
    )

    dismissed = await run(client, "forewarn.dismissSuggestion", id=review["suggestions"][1]["id"])
    assert dismissed["status"] == "dismissed"
    assert (await run(client, "forewarn.review"))["total"] == 4
    with pytest.raises(Exception, match="'text' must not be empty"):
        await run(client, "forewarn.acceptSuggestion", id=review["suggestions"][2]["id"], text="  ")


@pytest.fixture
def crowded(workspace: Path) -> Path:
    """billing/models.py with ``MANY`` memories: notes on Invoice.total, one gotcha there, the rest file-wide."""
    with Workspace.open(workspace, _lexical()) as ws:
        ws.reindex()
        for n in range(MANY - 1):
            symbol = "Invoice.total" if n < 2 * HOVER_MEMORIES else None
            ws.remember(
                f"Note {n}: ledger entry{n} keeps tally{n} for audit{n}.", file="billing/models.py", symbol=symbol
            )
        ws.remember(
            "Invoice.total: quantize once after summing.",
            type="gotcha",
            file="billing/models.py",
            symbol="Invoice.total",
        )
    return workspace


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS[:1])
async def crowded_client(lsp_client: LanguageClient, request: pytest.FixtureRequest, crowded: Path):
    await start_lexical(lsp_client, request.param, crowded)
    yield
    await lsp_client.shutdown_session()


async def test_a_crowded_file_shows_the_cap_and_says_how_many_more(
    crowded_client: LanguageClient, crowded: Path
) -> None:
    client = crowded_client
    uri = open_document(client, crowded / "billing" / "models.py")
    diags = await diagnostics_for(client, uri, lambda ds: len(ds) > 1)
    more = diags[-1]
    assert len(diags) == Settings().diagnostics.max_diagnostics  # four lessons and one entry for the rest
    assert more.severity == types.DiagnosticSeverity.Information and more.code is None
    assert more.message.startswith(f"{MANY - 4} more memories on this file")
    assert "forewarn memory list --file billing/models.py" in more.message and "Search Memories" in more.message
    assert diags[0].message.startswith("Invoice.total: quantize")  # the gotcha outranks 199 notes

    hover = await client.text_document_hover_async(  # on the name `total` of `def total`
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(8, 8))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    body = hover.contents.value
    blocks = body.split("\n\n---\n\n")
    assert blocks[1].startswith("**gotcha**")  # the symbol's gotcha first, whatever is newer
    assert len(blocks) == 1 + HOVER_MEMORIES + 1
    assert blocks[-1].startswith(f"{2 * HOVER_MEMORIES + 1 - HOVER_MEMORIES} more memories on this symbol")


def _git(root: Path, *args: str) -> None:
    env = {"GIT_AUTHOR_NAME": "Ann", "GIT_AUTHOR_EMAIL": "ann@example.com", "GIT_COMMITTER_NAME": "Ann",
           "GIT_COMMITTER_EMAIL": "ann@example.com", "GIT_AUTHOR_DATE": "2024-03-02T10:00:00Z",
           "GIT_COMMITTER_DATE": "2024-03-02T10:00:00Z", "HOME": str(root), "PATH": "/usr/bin:/bin"}  # fmt: skip
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


@pytest.fixture
def repository(workspace: Path) -> Path:
    """The workspace as a git repository whose history holds a revert: mining proposes a dead end."""
    history_with_a_reverted_rounding(workspace, _git)
    return workspace


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), params=EDITORS[:1])
async def git_client(lsp_client: LanguageClient, request: pytest.FixtureRequest, repository: Path):
    options = {"embedder": {"enabled": False}, "user": {"mining": {"onOpen": True}}}  # the user allows mining
    lsp_client.set_configuration(options, section="forewarn")
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(initialize_params(request.param, repository, options))
    yield
    await lsp_client.shutdown_session()


async def test_the_server_mines_the_history_in_the_background(git_client: LanguageClient, repository: Path) -> None:
    runs = await indexing_done(git_client, count=2)  # indexing, then mining: each with $/progress
    titles = [r[0].title for r in runs if isinstance(r[0], types.WorkDoneProgressBegin)]
    assert any("mining the history of" in t for t in titles), titles
    review = await run(git_client, "forewarn.review")  # the mining run ended after its suggestions were stored
    assert review["total"] >= 1 and review["worth_a_look"] >= 1, review
    assert any(s["type"] == "dead_end" for s in review["suggestions"]), review


async def test_the_review_shows_the_commit_diff_a_suggestion_was_mined_from(
    git_client: LanguageClient, repository: Path
) -> None:
    await indexing_done(git_client, count=2)  # indexing, then mining
    review = await run(git_client, "forewarn.review")
    dead_end = next(s for s in review["suggestions"] if s["type"] == "dead_end")
    shown = await run(git_client, "forewarn.suggestionDiff", id=dead_end["id"])
    assert shown["id"] == dead_end["id"]
    diff: str = shown["diff"]
    header = diff.splitlines()[0]
    assert "Ann 2024-03-02" in header and "Revert" in header, diff
    assert "diff --git a/billing/models.py b/billing/models.py" in diff, diff
    removed = [line for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
    assert any("round(amount, 2) and amount.quantize" in line for line in removed), diff  # the reverted line

    with pytest.raises(JsonRpcInvalidParams):
        await run(git_client, "forewarn.suggestionDiff", id="01NOSUCHMEMORY0000000000000")
    with pytest.raises(JsonRpcInvalidParams):
        await run(git_client, "forewarn.suggestionDiff")


def test_a_long_diff_is_cut_with_a_marker() -> None:
    text = "\n".join(f"line {n}" for n in range(10))
    assert cut_lines(text, 4).splitlines() == ["line 0", "line 1", "line 2", "line 3", "… 6 more lines"]
    assert cut_lines(text, 9).splitlines()[-1] == "… 1 more line"
    assert cut_lines(text, 10) == text


def test_suggestion_diff_outside_history(workspace: Path) -> None:
    """A warning comment shows its place; a commit that is gone, or no repository at all, says so."""
    comment = Suggestion(
        fingerprint="comment:billing/models.py:x", type=MemoryType.GOTCHA, text="HACK: cents are rounded twice",
        source=MemorySource.COMMENT, created_at="2024-03-02T10:00:00Z", file="billing/models.py", symbol=None,
        provenance={"anchor": "file", "kind": "HACK", "line": 12, "head": "abcdef1234"},
    )  # fmt: skip
    with Workspace.open(workspace, _lexical()) as ws:
        ws.reindex()
        ws.add_suggestions([comment, _suggestion(1, ROUNDING)])
        ids = {m.text: m.id for m in ws.suggestions()}
        assert ws.suggestion_diff(ids[comment.text]) == (
            "warning comment (HACK) at billing/models.py:12, mined at commit abcdef1"
        )
        with pytest.raises(GitError, match="not inside a git repository"):
            ws.suggestion_diff(ids[ROUNDING])
        _git(workspace, "init", "-q", "-b", "main")
        _git(workspace, "add", "-A")
        _git(workspace, "commit", "-q", "-m", "Billing")
        with pytest.raises(GitError, match="history rewritten"):
            ws.suggestion_diff(ids[ROUNDING])


@pytest.fixture
def lost(workspace: Path) -> Path:
    """A suggestion on ``Invoice.void``, then ``void`` deleted: the suggestion keeps its symbol, not its lines."""
    models = workspace / "billing" / "models.py"
    with Workspace.open(workspace, _lexical()) as ws:
        ws.reindex()
        ws.add_suggestions(
            [_suggestion(0, ROUNDING), _suggestion(7, "Invoice.void must run before archiving", "Invoice.void")]
        )
        models.write_text(models.read_text().replace("    def void(self):\n        self.voided = True\n\n", ""))
        ws.reindex()
        gone = [m for m in ws.suggestions() if m.anchor and m.anchor.symbol == "Invoice.void"]
        assert len(gone) == 1 and gone[0].anchor is not None and gone[0].anchor.start_line is None
    return workspace


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def lost_client(lsp_client: LanguageClient, lost: Path):
    await start_lexical(lsp_client, EDITORS[0], lost)
    yield
    await lsp_client.shutdown_session()


async def test_a_suggestion_whose_definition_is_gone_shows_no_hint(lost_client: LanguageClient, lost: Path) -> None:
    """QA pass 5 recheck: it showed as a hint on line 1 of its file, saying nothing of the function being gone; it
    waits in the review (where `memory show` says why) instead."""
    uri = open_document(lost_client, lost / "billing" / "models.py")
    diags = await diagnostics_for(lost_client, uri, lambda ds: by_text(ds, "quantize after summing") is not None)
    assert by_text(diags, "Invoice.void must run") is None
    review = await run(lost_client, "forewarn.review", uri=uri)
    assert review["total"] == 2
