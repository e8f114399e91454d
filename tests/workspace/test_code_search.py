"""Code search as files: fusion (RRF), aggregation, tests below code, filters, and memories that follow the code."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from forewarn.cli.main import main
from forewarn.indexing.conventions import is_test_path
from forewarn.memory.vocabulary import MemoryType
from forewarn.workspace import code_search
from forewarn.workspace.code_search import ChunkMatch, fuse, rank_files
from forewarn.workspace.engine import Workspace


@dataclass(frozen=True)
class C:
    """The fields of the indexer's CodeChunk that ranking reads."""

    id: int
    rel: str
    symbol: str = "f"
    start_line: int = 1


@pytest.mark.parametrize(
    ("rel", "test"),
    [
        ("tests/test_api.py", True),
        ("src/pkg/tests/helpers.py", True),
        ("test_api.py", True),
        ("pkg/api_test.go", True),
        ("web/cart.spec.ts", True),
        ("web/cart.test.jsx", True),
        ("src/FooTest.java", True),
        ("conftest.py", True),
        ("src/pkg/api.py", False),
        ("src/contest.py", False),
        ("src/testing_utils.py", False),
        ("latest/api.py", False),
    ],
)
def test_test_paths(rel: str, test: bool) -> None:
    assert is_test_path(rel) is test


def test_fusion_rewards_agreement_and_keeps_either_list() -> None:
    a, b, c = C(1, "a.py"), C(2, "b.py"), C(3, "c.py")
    fused = fuse([(a, 9.0), (b, 5.0)], [(b, 0.9), (c, 0.8)])
    assert [m.chunk.id for m in fused] == [2, 1, 3]  # b is in both lists
    assert fused[0].lexical_rank == 2 and fused[0].vector_rank == 1
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61)


def test_files_aggregate_chunks_and_tests_rank_below_code() -> None:
    code, test = C(1, "src/upload.py", "retry_upload"), C(2, "tests/test_upload.py", "test_retry")
    also = C(3, "src/upload.py", "Uploader.send", 40)
    matches = [ChunkMatch(test, 0.030), ChunkMatch(code, 0.020), ChunkMatch(also, 0.015)]
    files = rank_files(matches, k=10)
    assert [f.file for f in files] == ["src/upload.py", "tests/test_upload.py"]
    assert files[0].score == pytest.approx(0.020 + 0.015 / 2)  # top-3: each further chunk counts half
    assert [c.chunk.symbol for c in files[0].chunks] == ["retry_upload", "Uploader.send"]
    assert files[1].is_test and files[1].score == pytest.approx(0.030 * code_search.TEST_WEIGHT)
    asked = rank_files(matches, k=10, include_tests=True)
    assert asked[0].file == "tests/test_upload.py"
    assert [f.file for f in rank_files(matches, k=1)] == ["src/upload.py"]
    assert [f.file for f in rank_files(matches, k=10, scope="tests")] == ["tests/test_upload.py"]
    assert [f.file for f in rank_files(matches, k=10, scope="src/upload.py")] == ["src/upload.py"]
    assert rank_files(matches, k=10, allowed={}) == []
    assert rank_files(matches, k=10, how="max")[0].score == pytest.approx(0.020)


UPLOADER = '''\
"""Uploads."""

import time


def retry_upload(send, payload, attempts=3):
    """Send the payload, retrying with backoff when the server is busy."""
    for attempt in range(attempts):
        if send(payload):
            return True
        time.sleep(2**attempt)
    return False


def checksum(payload):
    return sum(payload) % 256
'''

TESTS = """\
from uploader import retry_upload


def test_retry_upload_gives_up():
    assert retry_upload(lambda p: False, b"x", attempts=1) is False


def test_retry_upload_succeeds():
    assert retry_upload(lambda p: True, b"x")
"""

BILLING = """\
def charge(amount):
    return amount


def refund(amount):
    return -amount


def invoice_total(lines):
    return sum(lines)
"""


@pytest.fixture
def ws_root(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    (root / "tests").mkdir(parents=True)
    (root / "uploader.py").write_text(UPLOADER)
    (root / "billing.py").write_text(BILLING)
    (root / "tests" / "test_uploader.py").write_text(TESTS)
    return root


def test_search_ranks_code_files_with_the_best_chunk(ws_root: Path) -> None:
    with Workspace.open(ws_root, embedder=None) as ws:
        ws.reindex()
        files = ws.search_code("where do we retry the upload")
        assert [f.file for f in files][:2] == ["uploader.py", "tests/test_uploader.py"]
        assert files[0].chunks[0].chunk.symbol == "retry_upload" and not files[0].is_test
        assert files[1].is_test
        about_tests = ws.search_code("tests of retry upload")
        assert about_tests[0].file == "tests/test_uploader.py"
        assert [f.file for f in ws.search_code("retry upload", 1)] == ["uploader.py"]
        assert [f.file for f in ws.search_code("retry upload", file="tests")] == ["tests/test_uploader.py"]
        result = ws.search("retry upload", k=1)
        assert len(result.files) == 1 and result.chunks[0].chunk.symbol == "retry_upload"
        assert ws.search("retry upload", k=3, chunks=0).files == []


def test_memories_follow_the_code_they_are_anchored_to(ws_root: Path) -> None:
    with Workspace.open(ws_root, embedder=None) as ws:
        ws.reindex()
        gotcha = ws.remember(
            "backoff must stay under the gateway's 30 s idle timeout", type=MemoryType.GOTCHA, file="uploader.py",
            symbol="retry_upload",
        ).memory  # fmt: skip
        ws.remember("refunds are negative charges", type=MemoryType.DECISION, file="billing.py", symbol="refund")
        # no word of the gotcha, its file or its symbol is in the query: it is found through the code it sits on
        found = ws.search("what happens when the server is busy", k=5)
        assert [h.memory.id for h in found.memories] == [gotcha.id]
        assert ws.search("what happens when the server is busy", k=5, chunks=0).memories == []  # no code, no way
        # --type narrows the code too: only code carrying memories of that type
        typed = ws.search("retry upload refund", k=5, types=["decision"])
        assert [f.file for f in typed.files] == ["billing.py"]


def test_cli_search_groups_code_by_file(ws_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", "--no-embed", "-w", str(ws_root)]) == 0  # a search reads a workspace, creating none
    capsys.readouterr()
    assert main(["search", "retry the upload", "--code-only", "--lexical", "-w", str(ws_root)]) == 0
    out = capsys.readouterr()
    assert "Code:" in out.out and "uploader.py:6" in out.out and "retry_upload" in out.out
    assert "(test)" in out.out and "No memory matches" not in out.out
    assert "searched by words only" in out.err
    assert main(["search", "retry the upload", "-k", "1", "--json", "--lexical", "-w", str(ws_root)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [f["file"] for f in data["files"]] == ["uploader.py"]
    assert data["files"][0]["chunks"][0]["symbol"] == "retry_upload" and data["files"][0]["is_test"] is False
    assert data["chunks"][0]["file"] == "uploader.py" and "code" in data["timings_ms"]


def test_meaning_finds_code_that_shares_no_word_with_the_query(tmp_path: Path) -> None:
    """The real model: chunks embedded (with their path and signature) are found by a paraphrase."""
    root = tmp_path / "app"
    root.mkdir()
    (root / "transfer.py").write_text(
        'def send_again_later(blob, tries):\n    """Push the blob to the bucket once more after sleeping when the'
        ' previous push failed."""\n    return tries\n'
    )
    (root / "billing.py").write_text('def invoice_total(lines):\n    """Sum invoice lines."""\n    return sum(lines)\n')
    with Workspace.open(root) as ws:
        assert ws.embedder is not None, ws.embedder_problem
        ws.reindex()
        assert ws.search_code("retry the upload") == []  # no word in common, and no chunk has a vector yet
        assert ws.embed_chunks() == 2 and ws.code_vector_state() == (2, 2)
        result = ws.search("retry the upload", k=2)
        assert result.mode == "hybrid"
        assert result.files[0].file == "transfer.py"
        best = result.files[0].chunks[0]
        assert best.chunk.symbol == "send_again_later" and best.vector_rank == 1 and best.lexical_rank is None


def test_a_hot_file_s_memories_are_bounded_and_each_chunk_read_once(ws_root: Path) -> None:
    """Hundreds of memories on one function (issue 22): the memories-on-code list reads the newest
    ``CODE_CANDIDATES`` from an index, all of them sharing the one chunk text, and a memory whose own words
    answer the query is still found through the words list, however old."""
    from forewarn.memory import retrieval
    from forewarn.memory.records import Anchor, Memory
    from forewarn.memory.text import new_id, to_iso
    from forewarn.memory.vocabulary import CURRENT_STATUSES

    with Workspace.open(ws_root, embedder=None) as ws:
        ws.reindex()
        chunk = next(c for c in ws.indexer.chunks_for("uploader.py") if c.symbol == "retry_upload")
        anchor = Anchor("uploader.py", "retry_upload", chunk.start_line, chunk.end_line, chunk.content_hash)
        start = 1_600_000_000.0
        rows = [
            (Memory(id=new_id(start + i), type="note", text=f"rollout note {i}: the canary ran for {i} minutes",
                    anchor=anchor, source="user", confidence=1.0, created_at=to_iso(start + i),
                    updated_at=to_iso(start + i)), [])
            for i in range(1, 301)
        ]  # fmt: skip
        old = Memory(id=new_id(start), type="gotcha", text="exponential backoff doubles the wait between attempts",
                     anchor=anchor, source="user", confidence=1.0, created_at=to_iso(start),
                     updated_at=to_iso(start))  # fmt: skip
        stored = ws.store.insert_many([(old, []), *rows])
        files = ws.search_code("retry the upload when the server is busy")
        assert files[0].file == "uploader.py"
        ranked, texts = ws._memories_on_code(files[:1], (), CURRENT_STATUSES)
        assert len(ranked) == retrieval.CODE_CANDIDATES
        newest = sorted(stored[1:], key=lambda m: m.created_at, reverse=True)[: retrieval.CODE_CANDIDATES]
        assert [n for n, _ in ranked] == [m.num for m in newest]  # equal strength: the newest first
        assert len({id(texts[n][0]) for n, _ in ranked}) == 1  # one code tuple, shared: its words are read once
        found = ws.search("how long is the backoff between attempts", k=3)
        assert found.memories and found.memories[0].memory.id == stored[0].id  # older than every code candidate
