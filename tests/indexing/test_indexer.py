"""Incremental indexing on a small real multi-language workspace."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import psutil
import pytest

from forewarn import paths
from forewarn.config import Settings
from forewarn.indexing import indexer as indexer_module
from forewarn.indexing.graph import FileGraph
from forewarn.indexing.indexer import Indexer

WORKSPACE = Path(__file__).parent / "workspaces" / "shop"
FILES = sorted(p.relative_to(WORKSPACE).as_posix() for p in WORKSPACE.rglob("*") if p.suffix in {".py", ".ts", ".go"})


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(WORKSPACE, root)
    return root


@pytest.fixture
def ix(ws: Path) -> Indexer:
    indexer = Indexer(ws, Settings())
    yield indexer
    indexer.close()


def bump(path: Path, text: str) -> None:
    """Write new content and move mtime forward so the stat fast path cannot miss it."""
    path.write_text(text, encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_cold_index_then_noop(ix: Indexer) -> None:
    report = ix.index()
    assert report.added == FILES
    assert report.parsed == len(FILES)
    assert report.changed == report.deleted == report.renamed == []
    assert set(ix.files()) == set(FILES)
    assert "Database.fetch_rows" in [c.symbol for c in ix.chunks_for("app/core/db.py")]
    assert ix.search_chunks("fetch rows")[0][0].symbol == "Database.fetch_rows"
    assert [d.rel for d in ix.definitions_named("connect_database")] == ["app/core/db.py"]
    assert ix.chunk_at("app/core/db.py", 12).symbol == "Database.fetch_rows"
    again = ix.index()
    assert again.parsed == 0 and again.unchanged == len(FILES)
    assert again.added == again.changed == again.deleted == []


def test_only_changed_files_are_reparsed(ix: Indexer, ws: Path) -> None:
    ix.index()
    bump(ws / "app/reports.py", "def sales_report():\n    return []\n\n\ndef refund_report():\n    return []\n")
    report = ix.index()
    assert report.parsed == 1 and report.changed == ["app/reports.py"]
    assert [c.symbol for c in ix.chunks_for("app/reports.py")] == ["sales_report", "refund_report"]
    # same bytes, new mtime: hashed, not parsed
    path = ws / "app/models.py"
    bump(path, path.read_text(encoding="utf-8"))
    report = ix.index()
    assert report.parsed == 0 and report.changed == [] and report.unchanged == len(FILES)
    assert ix.index().unchanged == len(FILES)  # the new mtime was recorded


def test_delete_and_rename(ix: Indexer, ws: Path) -> None:
    ix.index()
    (ws / "scripts/cleanup_tmp.py").unlink()
    (ws / "app/reports.py").rename(ws / "app/sales_reports.py")
    report = ix.index()
    assert report.deleted == ["scripts/cleanup_tmp.py"]
    assert report.renamed == [("app/reports.py", "app/sales_reports.py")]
    assert report.added == []
    assert "app/reports.py" not in ix.files() and "app/sales_reports.py" in ix.files()
    assert ix.chunks_for("app/reports.py") == []
    assert ix.chunk_by_symbol("app/sales_reports.py", "sales_report") is not None


def test_binary_minified_and_oversized_are_skipped_with_reasons(ws: Path) -> None:
    (ws / "app/blob.py").write_bytes(b"x = 1\0\1\2")
    (ws / "web/src/bundle.js").write_text("var a=1;" * 200, encoding="utf-8")
    (ws / "app/huge.py").write_text("x = 1\n" * 400, encoding="utf-8")
    settings = Settings()
    settings.index.max_file_bytes = 2000
    with Indexer(ws, settings) as ix:
        report = ix.index()
        assert report.skipped == {"app/blob.py": "binary", "web/src/bundle.js": "minified", "app/huge.py": "oversized"}
        assert ix.chunks_for("app/blob.py") == []
        again = ix.index()  # content verdicts are remembered, not re-read
        assert again.parsed == 0 and again.skipped == report.skipped


def test_file_turning_binary_leaves_the_index_and_comes_back(ix: Indexer, ws: Path) -> None:
    ix.index()
    path = ws / "app/reports.py"
    text = path.read_text(encoding="utf-8")
    path.write_bytes(b"\0binary now")
    report = ix.index_files(["app/reports.py"])
    assert report.deleted == ["app/reports.py"] and report.skipped == {"app/reports.py": "binary"}
    assert ix.chunks_for("app/reports.py") == [] and "app/reports.py" not in ix.graph.rank()
    bump(path, text)
    report = ix.index_files(["app/reports.py"])
    assert report.added == ["app/reports.py"] and report.skipped == {}
    assert "app/reports.py" in ix.graph.dependents("app/core/db.py")


def test_index_files_for_saves_and_deletes(ix: Indexer, ws: Path) -> None:
    ix.index()
    bump(ws / "app/views.py", "def product_page():\n    return ''\n")
    report = ix.index_files(["app/views.py"])
    assert report.parsed == 1 and report.changed == ["app/views.py"]
    assert [c.symbol for c in ix.chunks_for("app/views.py")] == ["product_page"]
    (ws / "app/views.py").unlink()
    report = ix.index_files(["app/views.py"])
    assert report.deleted == ["app/views.py"] and report.parsed == 0
    (ws / "new.py").write_text("def fresh():\n    pass\n", encoding="utf-8")
    assert ix.index_files([str(ws / "new.py")]).added == ["new.py"]  # absolute paths inside are fine
    assert ix.index_files(["../elsewhere.py", "/etc/passwd"]).parsed == 0


def test_saving_an_ignore_file_rescans(ix: Indexer, ws: Path) -> None:
    ix.index()
    (ws / ".gitignore").write_text("/scripts/\n", encoding="utf-8")
    report = ix.index_files([".gitignore"])
    assert report.deleted == ["scripts/cleanup_tmp.py"]


def test_imports_become_edges(ix: Indexer) -> None:
    ix.index()
    deps = ix.graph.dependencies("app/views.py")
    assert {"app/models.py", "app/services.py", "app/core/__init__.py"} <= set(deps)
    assert "app/views.py" in ix.graph.dependents("app/services.py")
    assert "web/src/api.ts" in ix.graph.dependencies("web/src/cart.ts")
    assert "goapp/store/store.go" in ix.graph.dependencies("goapp/cmd/server/main.go")


def test_graph_kept_in_memory_matches_a_fresh_load(ix: Indexer, ws: Path) -> None:
    ix.index()
    before = ix.graph.rank()
    bump(ws / "scripts/cleanup_tmp.py", "from app.core.db import connect_database\n\nconnect_database()\n")
    (ws / "app/reports.py").unlink()
    (ws / "web/src/extra.ts").write_text("import { fetchJson } from './api';\nfetchJson('/x');\n", encoding="utf-8")
    ix.index()
    updated = ix.graph.rank()
    assert updated != before
    store = ix.store
    files = [rel for rel, rec in store.files().items() if rec.status != "skipped"]
    fresh = FileGraph.build(files, store.def_names(), store.ref_counts(), store.edges()).rank()
    assert updated.keys() == fresh.keys()
    assert all(abs(updated[k] - fresh[k]) < 1e-5 for k in fresh)  # within PageRank's tolerance


def test_worker_processes_give_the_same_index(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Indexer(ws, Settings(), db_path=ws.parent / "inproc.db") as ix:
        ix.index()
        expected = {rel: [c.content_hash for c in ix.chunks_for(rel)] for rel in FILES}
    monkeypatch.setattr(indexer_module, "IN_PROCESS_MAX_FILES", 0)
    monkeypatch.setattr(indexer_module, "BATCH_FILES", 4)
    settings = Settings()
    settings.index.workers = 2
    with Indexer(ws, settings, db_path=ws.parent / "pool.db") as ix:
        ticks: list[tuple[int, int]] = []
        report = ix.index(progress=lambda done, total: ticks.append((done, total)))
        assert report.parsed == len(FILES)
        assert {rel: [c.content_hash for c in ix.chunks_for(rel)] for rel in FILES} == expected
    assert ticks[0] == (0, len(FILES)) and ticks[-1] == (len(FILES), len(FILES))


def test_corrupt_index_db_is_rebuilt(ws: Path) -> None:
    db = paths.workspace_dir(ws) / "index.db"
    db.write_bytes(b"\0garbage" * 512)
    with Indexer(ws, Settings()) as ix:
        assert ix.index().parsed == len(FILES)
    assert list(db.parent.glob("index.db.corrupt-*"))


def many_files(ws: Path, count: int) -> list[str]:
    """``count`` small real Python files, enough that a pool still has batches pending after its first."""
    source = (ws / "app/reports.py").read_text(encoding="utf-8")
    for i in range(count):
        (ws / f"gen/mod_{i:03}.py").parent.mkdir(exist_ok=True)
        (ws / f"gen/mod_{i:03}.py").write_text(source.replace("def ", f"def v{i}_"), encoding="utf-8")
    return [f"gen/mod_{i:03}.py" for i in range(count)]


def test_a_worker_killed_mid_run_costs_no_file(
    ws: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    many_files(ws, 200)
    with Indexer(ws, Settings(), db_path=ws.parent / "inproc.db") as ix:
        ix.index()
        expected = {rel: [c.content_hash for c in ix.chunks_for(rel)] for rel in ix.files()}
    monkeypatch.setattr(indexer_module, "IN_PROCESS_MAX_FILES", 0)
    monkeypatch.setattr(indexer_module, "BATCH_FILES", 10)
    settings = Settings()
    settings.index.workers = 2
    me = psutil.Process()
    killed: list[int] = []

    def kill_a_worker(done: int, total: int) -> None:
        if done and not killed:  # as the OOM killer would: SIGKILL, no chance to clean up
            forkserver_children = [p for p in me.children(recursive=True) if p not in me.children()]
            forkserver_children[0].kill()  # a pool worker: the forkserver and resource tracker are our children
            killed.append(forkserver_children[0].pid)

    with Indexer(ws, settings, db_path=ws.parent / "pool.db") as ix:
        report = ix.index(progress=kill_a_worker)
        assert killed and "a parser process died" in caplog.text
        assert report.skipped == {} and report.parsed == len(expected)
        assert {rel: [c.content_hash for c in ix.chunks_for(rel)] for rel in ix.files()} == expected


def test_files_swapped_between_scan_and_read_cost_only_themselves(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    generated = many_files(ws, 40)
    monkeypatch.setattr(indexer_module, "IN_PROCESS_MAX_FILES", 0)
    monkeypatch.setattr(indexer_module, "BATCH_FILES", 8)
    settings = Settings()
    settings.index.workers = 2

    def swap(done: int, total: int) -> None:
        if done == 0:  # after the scan, before any read
            (ws / generated[0]).unlink()
            (ws / generated[1]).unlink()
            os.mkfifo(ws / generated[1])  # opening it blocking would hang the worker forever
            (ws / generated[2]).unlink()
            (ws / generated[2]).mkdir()

    with Indexer(ws, settings) as ix:
        report = ix.index(progress=swap)
        assert report.skipped == {generated[1]: "unreadable", generated[2]: "unreadable"}
        assert report.parsed == len(FILES) + len(generated) - 3
        assert generated[0] not in ix.files() and ix.chunks_for(generated[3])


READER_WAIT_S = 30.0  # generous: a reader blocked by the run never answers, so any finite wait fails it


def test_readers_get_answers_while_an_index_run_is_between_batches(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real reader thread queries mid-run (synchronised by the progress callback, no sleeps): chunk
    queries see batches already committed; files() stays the previous generation until the run ends."""
    monkeypatch.setattr(indexer_module, "IN_PROCESS_MAX_FILES", 0)
    monkeypatch.setattr(indexer_module, "BATCH_FILES", 1)  # one batch per file: many points between batches
    settings = Settings()
    settings.index.workers = 1
    with Indexer(ws, settings) as ix:
        ix.index()
        changed = sorted({"app/core/db.py", *[rel for rel in FILES if rel.endswith(".py")][:2]})
        for rel in changed:
            bump(ws / rel, (ws / rel).read_text(encoding="utf-8") + "\n\ndef zeta_probe():\n    pass\n")
        before = ix.files()
        answers: list[tuple[int, dict[str, object]]] = []

        def read(done: int) -> None:
            answers.append(
                (
                    done,
                    {
                        "chunk": ix.chunk_at("app/core/db.py", 12),
                        "symbol": ix.chunk_by_symbol("app/core/db.py", "Database.fetch_rows"),
                        "search": [c.symbol for c, _ in ix.search_chunks("zeta probe")],
                        "files": ix.files(),
                    },
                )
            )

        def on_progress(done: int, total: int) -> None:
            if done >= total:
                return
            reader = threading.Thread(target=read, args=(done,))
            reader.start()
            reader.join(READER_WAIT_S)  # the run waits here; an indexer holding its lock would deadlock
            assert not reader.is_alive(), "a reader was blocked by the index run"

        report = ix.index(progress=on_progress)
        after = ix.search_chunks("zeta probe")
    assert report.changed == sorted(changed) and [done for done, _ in answers] == list(range(len(changed)))
    for _, got in answers:
        assert got["chunk"].symbol == "Database.fetch_rows" and got["symbol"] is not None
        assert got["files"] == before  # the in-memory generation swaps only at the end
    assert answers[0][1]["search"] == []  # nothing written before the first batch
    assert len(answers[-1][1]["search"]) >= len(changed) - 1  # batches land while the run goes on
    assert len(after) == len(changed)


def test_a_reader_gets_answers_during_a_cold_index(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cold index in the pool: between batches the chunks already stored are searchable, files() is empty."""
    monkeypatch.setattr(indexer_module, "IN_PROCESS_MAX_FILES", 0)
    monkeypatch.setattr(indexer_module, "BATCH_FILES", 1)
    seen: list[tuple[int, int, int]] = []  # (files done, chunks of done files found, files known)
    with Indexer(ws, Settings()) as ix:

        def on_progress(done: int, total: int) -> None:
            if 0 < done < total:
                result: list[tuple[int, int, int]] = []
                reader = threading.Thread(
                    target=lambda: result.append(
                        (done, sum(len(ix.chunks_for(rel)) > 0 for rel in FILES), len(ix.files()))
                    )
                )
                reader.start()
                reader.join(READER_WAIT_S)
                assert result, "a reader was blocked by the index run"
                seen.extend(result)

        ix.index(progress=on_progress)
        assert len(ix.files()) == len(FILES)
    assert seen and all(found >= done and known == 0 for done, found, known in seen)
