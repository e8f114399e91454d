"""``FolderSession`` on a real engine, without a server: what handlers get back."""

from __future__ import annotations

import gc
from pathlib import Path

from forewarn.config import Settings
from forewarn.lsp.convert import HOVER_NOTHING
from forewarn.lsp.session import FolderSession
from tests.lsp.conftest import PY_MODELS, open_session


def test_file_hits_during_a_full_index_show_the_files_own_memories(workspace: Path) -> None:
    session = open_session(workspace)
    try:
        made = session.remember("Round once.", "gotcha", "billing/models.py", "Invoice.total", None, [])
        decision = session.remember("Decimal only.", "decision", "billing/models.py", None, None, [])
        text = (workspace / "billing" / "models.py").read_text()
        normal = session.file_hits("billing/models.py", text)
        session.full_index_running.set()  # as while engine.reindex() holds the indexer's lock
        quick = session.file_hits("billing/models.py", text)
        assert [h.memory.id for h in quick] == [made["id"], decision["id"]]  # gotchas first
        assert {h.memory.id for h in quick} == {h.memory.id for h in normal}
        assert quick[0].span.start_line == 9 and quick[0].span.end_line == 12
        # neighbours need the graph: the service shows nothing of models.py until the index is done
        assert session.file_hits("billing/service.py", None) == []
    finally:
        session.close()


def test_dirty_buffer_spans_follow_the_edit(workspace: Path) -> None:
    session = open_session(workspace)
    try:
        made = session.remember("Round once.", "gotcha", "billing/models.py", "Invoice.total", None, [])
        text = "# a new first line\n\n" + (workspace / "billing" / "models.py").read_text()
        hit = next(h for h in session.file_hits("billing/models.py", text, dirty=True) if h.memory.id == made["id"])
        assert (hit.span.start_line, hit.span.end_line) == (11, 14)
        hit = next(h for h in session.file_hits("billing/models.py", text, dirty=False) if h.memory.id == made["id"])
        assert (hit.span.start_line, hit.span.end_line) == (9, 12)  # saved spans until the buffer is re-parsed
    finally:
        session.close()


def test_unusable_folder_is_reported_not_raised(tmp_path: Path) -> None:
    session = FolderSession(tmp_path / "missing", Settings())
    session.open()
    assert session.engine is None
    assert "does not exist" in session.take_problems()[0]
    assert session.file_hits("a.py", "") == []
    assert session.symbol_info("a.py", 1, 0, "x = 1\n") == HOVER_NOTHING


def test_reads_that_need_the_code_index_do_not_wait_for_a_full_index(workspace: Path) -> None:
    session = open_session(workspace)
    try:
        made = session.remember("Round once.", "gotcha", "billing/models.py", "Invoice.total", None, [])
        assert session.symbol_at("billing/models.py", 10) == "Invoice.total"
        session.full_index_running.set()  # the indexer's lock is held: these would block for the whole run
        assert session.symbol_at("billing/models.py", 10) is None
        at_name = PY_MODELS.split("\n")[8].index("total")  # line 9: `def total(self, lines):`
        view = session.symbol_info("billing/models.py", 9, at_name, PY_MODELS)
        assert view.symbol == "Invoice.total" and [m.id for m in view.memories] == [made["id"]]  # the stored span
        assert view.importance is None  # the ranks wait for the index
        assert session.symbol_info("billing/models.py", 2, 0, PY_MODELS) == HOVER_NOTHING  # no memory holds line 2
        assert session.symbol_info("billing/models.py", 10, 8, PY_MODELS) == HOVER_NOTHING  # its docstring: no name
        found = session.search("round once", 5, None, None)
        assert found["memories"][0]["id"] == made["id"] and found["chunks"] == []
    finally:
        session.close()


def test_commits_by_another_process_are_noticed_once(workspace: Path) -> None:
    from forewarn.workspace.engine import Workspace

    session = open_session(workspace)
    try:
        assert session.memories_changed_elsewhere() is False
        session.remember("Ours does not count.", "note", None, None, None, [])
        assert session.memories_changed_elsewhere() is False
        other = Workspace.open(workspace, session.settings, embedder=None)  # a second window, the CLI
        try:
            other.remember("Theirs does.", type="gotcha", file="billing/models.py")
        finally:
            other.close()
        assert session.memories_changed_elsewhere() is True
        assert session.memories_changed_elsewhere() is False
    finally:
        session.close()


def test_a_full_index_keeps_what_it_leaves_out_of_later_collections(workspace: Path) -> None:
    """Opens and hovers then pay only for what they allocate, not for walking the code graph and caches."""
    gc.unfreeze()
    session = open_session(workspace)
    try:
        assert gc.get_freeze_count() > 0
    finally:
        session.close()
        gc.unfreeze()
