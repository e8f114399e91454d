"""Staleness that means something: syntax, not bytes; anchors that follow their definition; every index path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.indexing.indexer import Indexer
from forewarn.memory.store import MemoryStore
from forewarn.memory.vocabulary import MemoryStatus
from forewarn.workspace.engine import Workspace
from tests.gitrepo import Repo

PAY_PY = '''\
import time


def retry(fn, attempts=3):
    """Call fn until it succeeds."""
    for i in range(attempts):
        try:
            return fn()
        except OSError:
            time.sleep(2 ** i)
    raise RuntimeError("gave up")


def charge(amount, currency='EUR'):
    total = (amount * 100)  # cents
    return {"amount": total, "currency": currency,}
'''


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    st = path.stat()  # a new mtime even within the filesystem's timestamp granularity
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    write(root, "pay.py", PAY_PY)
    return root


@pytest.fixture
def ws(root: Path) -> Iterator[Workspace]:
    w = Workspace.open(root, embedder=None)
    w.reindex()
    yield w
    w.close()


def kinds(ws: Workspace, memory_id: str) -> list[str]:
    return [e.kind for e in ws.history(memory_id).events[ws.get(memory_id).id]]


# ---------------------------------------------------------------- syntax, not bytes


def test_formatting_comments_and_docstrings_keep_a_memory_active(root: Path, ws: Workspace) -> None:
    m = ws.remember("retry sleeps exponentially", type="gotcha", file="pay.py", symbol="retry").memory
    c = ws.remember("charge works in cents", type="gotcha", file="pay.py", symbol="charge").memory
    reformatted = PAY_PY.replace('"""Call fn until it succeeds."""', '"""Call fn until it works (docs changed)."""')
    reformatted = reformatted.replace("for i in range(attempts):", "# try again\n    for i in range( attempts ) :")
    reformatted = reformatted.replace("currency='EUR'", 'currency="EUR"')
    reformatted = reformatted.replace("(amount * 100)  # cents", "amount * 100")
    reformatted = reformatted.replace('"currency": currency,}', '"currency": currency}')
    write(root, "pay.py", reformatted)
    report = ws.reindex().memories
    assert ws.get(m.id).status == MemoryStatus.ACTIVE
    assert ws.get(c.id).status == MemoryStatus.ACTIVE
    assert set(report.reformatted) == {m.id, c.id}
    assert "reformatted" in kinds(ws, m.id)


def test_a_real_change_marks_stale_and_keeps_a_diff(root: Path, ws: Workspace) -> None:
    m = ws.remember("retry sleeps exponentially", type="gotcha", file="pay.py", symbol="retry").memory
    write(root, "pay.py", PAY_PY.replace("time.sleep(2 ** i)", "time.sleep(1)"))
    assert m.id in ws.reindex().memories.stale
    assert ws.get(m.id).status == MemoryStatus.STALE
    diff = ws.stale_diff(m.id)
    assert diff is not None
    assert "-            time.sleep(2 ** i)" in diff and "+            time.sleep(1)" in diff
    stale = [e for e in ws.store.events(m.id) if e.kind == "stale"]
    assert stale and stale[-1].detail["diff"] == diff
    ws.confirm(m.id)  # still true: later diffs start from the code as it is now
    write(root, "pay.py", PAY_PY.replace("time.sleep(2 ** i)", "time.sleep(5)"))
    ws.reindex()
    diff = ws.stale_diff(m.id)
    assert diff is not None and "-            time.sleep(1)" in diff and "+            time.sleep(5)" in diff


JS = """\
function total(items) {
  // sum of prices
  return items.reduce((a, b) => a + b.price, 0);
}
"""


def test_javascript_formatting_is_not_a_change_but_an_operator_is(root: Path, ws: Workspace) -> None:
    write(root, "cart.js", JS)
    ws.reindex()
    m = ws.remember("prices are in cents", type="gotcha", file="cart.js", symbol="total").memory
    write(root, "cart.js", "function total(items)\n{\n    return items.reduce((a, b) => a + b.price, 0)\n}\n")
    ws.reindex()
    assert ws.get(m.id).status == MemoryStatus.ACTIVE
    write(root, "cart.js", "function total(items) {\n  return items.reduce((a, b) => a - b.price, 0);\n}\n")
    ws.reindex()
    assert ws.get(m.id).status == MemoryStatus.STALE


# ---------------------------------------------------------------- every path that changes the index


def test_cli_index_reconciles_and_the_next_open_too(root: Path, ws: Workspace) -> None:
    m = ws.remember("retry sleeps exponentially", type="gotcha", file="pay.py", symbol="retry").memory
    ws.close()
    write(root, "pay.py", PAY_PY.replace("attempts=3", "attempts=5"))
    out = subprocess.run(
        [sys.executable, "-m", "forewarn", "index", "--no-embed", "--json", "-w", str(root)],
        capture_output=True, text=True, check=True, env=os.environ,
    )  # fmt: skip
    assert m.id in out.stdout  # the summary says which memories it made stale
    store = MemoryStore(next(Path(os.environ["FOREWARN_HOME"]).glob("workspaces/*")) / "memory.db")
    try:
        assert store.resolve(m.id).status == MemoryStatus.STALE
    finally:
        store.close()


def test_an_index_written_by_another_process_is_reconciled_on_open(root: Path, ws: Workspace) -> None:
    m = ws.remember("retry sleeps exponentially", type="gotcha", file="pay.py", symbol="retry").memory
    ws.close()
    write(root, "pay.py", PAY_PY.replace("attempts=3", "attempts=5"))
    with Indexer(root, ws.settings) as other:  # a git hook's `forewarn index` without memories (no reconcile)
        other.index()
    with Workspace.open(root, embedder=None) as again:  # the server starting, the CLI's next command
        assert again.get(m.id).status == MemoryStatus.STALE
        assert m.id in again.last_reconcile.stale


def test_a_saved_file_is_reconciled(root: Path, ws: Workspace) -> None:
    m = ws.remember("charge works in cents", type="gotcha", file="pay.py", symbol="charge").memory
    write(root, "pay.py", PAY_PY.replace("amount * 100", "amount * 1000"))
    ws.reindex(["pay.py"])  # what the server does on save and for watched files
    assert ws.get(m.id).status == MemoryStatus.STALE


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args], cwd=root, check=True, capture_output=True
    )


def test_a_branch_switch_is_reconciled(root: Path, ws: Workspace) -> None:
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    git(root, "checkout", "-qb", "other")
    write(root, "pay.py", PAY_PY.replace("def retry(", "def retry_forever(").replace("attempts=3", "attempts=None"))
    git(root, "commit", "-qam", "other")
    git(root, "checkout", "-q", "main")
    ws.reindex()
    m = ws.remember("retry sleeps exponentially", type="gotcha", file="pay.py", symbol="retry").memory
    git(root, "checkout", "-q", "other")
    os.utime(root / "pay.py", ns=(1, (root / "pay.py").stat().st_mtime_ns + 1_000_000_000))
    ws.reindex()
    got = ws.get(m.id)
    assert got.anchor is not None and got.anchor.symbol == "retry_forever"  # renamed and edited: followed
    assert got.status == MemoryStatus.STALE


def test_mining_reconciles_what_changed_before_it(root: Path, ws: Workspace) -> None:
    from forewarn.workspace.mining import mine

    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    m = ws.remember("charge works in cents", type="gotcha", file="pay.py", symbol="charge").memory
    write(root, "pay.py", PAY_PY.replace("amount * 100", "amount * 1000"))
    mine(ws)
    assert ws.get(m.id).status == MemoryStatus.STALE


# ---------------------------------------------------------------- anchors follow identity


def test_a_renamed_function_keeps_its_memory(root: Path, ws: Workspace) -> None:
    m = ws.remember("retry sleeps exponentially", type="gotcha", file="pay.py", symbol="retry").memory
    write(root, "pay.py", PAY_PY.replace("def retry(", "def retry_with_backoff("))
    ws.reindex()
    got = ws.get(m.id)
    assert got.anchor is not None and got.anchor.symbol == "retry_with_backoff"
    assert got.status == MemoryStatus.ACTIVE  # only the name changed
    ev = [e for e in ws.store.events(m.id) if e.kind == "reanchored"]
    assert ev and ev[-1].detail["from_symbol"] == "retry" and ev[-1].detail["to_symbol"] == "retry_with_backoff"


def test_a_function_moved_unchanged_to_another_file_keeps_its_memory(root: Path, ws: Workspace) -> None:
    m = ws.remember("charge works in cents", type="gotcha", file="pay.py", symbol="charge").memory
    start = PAY_PY.index("def charge(")
    write(root, "pay.py", PAY_PY[:start].rstrip() + "\n")
    write(root, "billing/charges.py", "import decimal\n\n\n" + PAY_PY[start:])
    ws.reindex()
    got = ws.get(m.id)
    assert got.anchor is not None and (got.anchor.file, got.anchor.symbol) == ("billing/charges.py", "charge")
    assert got.status == MemoryStatus.ACTIVE


def test_git_mv_plus_an_edit_follows_and_goes_stale(root: Path, ws: Workspace) -> None:
    m = ws.remember("retry sleeps exponentially", type="gotcha", file="pay.py", symbol="retry").memory
    (root / "pay.py").unlink()
    write(root, "payments.py", PAY_PY.replace('raise RuntimeError("gave up")', 'raise TimeoutError("gave up")'))
    ws.reindex()
    got = ws.get(m.id)
    assert got.anchor is not None and (got.anchor.file, got.anchor.symbol) == ("payments.py", "retry")
    assert got.status == MemoryStatus.STALE
    assert "TimeoutError" in (ws.stale_diff(m.id) or "")


HELPERS = """\
def helper(x):
    return x + 1


def helper(x):
    return [x, x]
"""


def test_deleting_the_first_of_two_namesakes_moves_no_memory_onto_the_other(root: Path, ws: Workspace) -> None:
    write(root, "h.py", HELPERS)
    ws.reindex()
    first = ws.remember("adds one", file="h.py", symbol="helper#1").memory
    second = ws.remember("pairs it", file="h.py", symbol="helper#2").memory
    write(root, "h.py", HELPERS[HELPERS.index("def helper(x):\n    return [x") :])
    ws.reindex()
    assert ws.get(first.id).status == MemoryStatus.ORPHANED
    kept = ws.get(second.id)
    assert kept.status == MemoryStatus.ACTIVE and kept.anchor is not None and kept.anchor.symbol == "helper"


OVERLOADS = """\
from typing import overload


@overload
def parse(x: int) -> int: ...
@overload
def parse(x: str) -> str: ...
def parse(x):
    return x
"""


def test_one_more_overload_stub_does_not_move_the_memory_onto_a_stub(root: Path, ws: Workspace) -> None:
    write(root, "o.py", OVERLOADS)
    ws.reindex()
    impl = next(c for c in ws.indexer.chunks_for("o.py") if "return x" in c.text and c.kind != "module")
    m = ws.remember("parse passes values through", file="o.py", symbol=impl.symbol).memory
    stub = "@overload\ndef parse(x: bytes) -> bytes: ...\n"
    write(root, "o.py", OVERLOADS.replace("def parse(x: str) -> str: ...\n", "def parse(x: str) -> str: ...\n" + stub))
    ws.reindex()
    got = ws.get(m.id)
    now = next(c for c in ws.indexer.chunks_for("o.py") if "return x" in c.text and c.kind != "module")
    assert got.anchor is not None and got.anchor.symbol == now.symbol != impl.symbol
    assert got.status == MemoryStatus.ACTIVE


def test_an_orphan_is_reanchored_by_hand(root: Path, ws: Workspace) -> None:
    m = ws.remember("charge works in cents", type="gotcha", file="pay.py", symbol="charge").memory
    start = PAY_PY.index("def charge(")
    write(root, "pay.py", PAY_PY[:start] + "def bill(total):\n    return {'sum': total}\n")
    ws.reindex()
    assert ws.get(m.id).status == MemoryStatus.ORPHANED
    got = ws.reanchor(m.id, "pay.py", "bill")
    assert got.status == MemoryStatus.ACTIVE and got.anchor is not None and got.anchor.symbol == "bill"
    assert "reanchored" in [e.kind for e in ws.store.events(m.id)]


def test_a_memory_from_before_m007_gets_its_code_remembered_on_open(root: Path, ws: Workspace) -> None:
    m = ws.remember("retry sleeps exponentially", type="gotcha", file="pay.py", symbol="retry").memory
    with ws.store.batch():  # as a memory written before m007, imported or mined holds no code
        ws.store.conn.execute("DELETE FROM anchored_code")
    ws.close()
    with Workspace.open(root, embedder=None) as again:  # the sweep: its code is unchanged, so it is remembered
        assert m.id in again.store.anchored_code([m.id])
        write(root, "pay.py", PAY_PY.replace('"""Call fn until it succeeds."""', '"""Retries."""'))
        again.reindex()
        assert again.get(m.id).status == MemoryStatus.ACTIVE


def test_a_renamed_file_takes_suggestions_and_history_along(root: Path, ws: Workspace) -> None:
    kept = ws.remember("retry sleeps exponentially", file="pay.py", symbol="retry").memory
    old = ws.remember("charge rounds down", file="pay.py", symbol="charge").memory
    ws.forget(old.id)
    (root / "pay.py").rename(root / "payments.py")
    ws.reindex()
    for mid in (kept.id, old.id):
        anchor = ws.get(mid).anchor
        assert anchor is not None and anchor.file == "payments.py"


def test_namesakes_without_remembered_code_follow_their_bytes(root: Path, ws: Workspace) -> None:
    write(root, "h.py", HELPERS)
    ws.reindex()
    first = ws.remember("adds one", file="h.py", symbol="helper#1").memory
    second = ws.remember("pairs it", file="h.py", symbol="helper#2").memory
    with ws.store.batch():  # as memories from before m007
        ws.store.conn.execute("DELETE FROM anchored_code")
    write(root, "h.py", HELPERS[HELPERS.index("def helper(x):\n    return [x") :])
    ws.reindex(["h.py"])  # a save: no sweep
    assert ws.get(first.id).status == MemoryStatus.ORPHANED
    kept = ws.get(second.id)
    assert kept.status == MemoryStatus.ACTIVE and kept.anchor is not None and kept.anchor.symbol == "helper"


# ---------------------------------------------------------------- both ways (issue 22: D3, D23, review on a branch)


def bump(path: Path) -> None:
    """A new mtime, as a checkout within the filesystem's timestamp granularity may not give."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "repo")
    r.write("pay.py", PAY_PY)
    r.commit("pay")
    return r


def test_code_back_to_what_a_memory_was_written_against_makes_it_current_again(repo: Repo) -> None:
    """D3: a branch switched back, a revert and a stash each bring the exact code back: the memory is active
    again (its history says so); one a person marked outdated stays stale."""
    with Workspace.open(repo.root, embedder=None) as ws:
        ws.reindex()
        m = ws.remember("charge works in cents", type="gotcha", file="pay.py", symbol="charge").memory
        by_hand = ws.remember("retry gives up after 3", type="gotcha", file="pay.py", symbol="retry").memory
        ws.mark_stale(by_hand.id, "the gateway retries for us now")
        repo.git("checkout", "-q", "-b", "experiment")
        repo.edit("pay.py", "total = (amount * 100)  # cents", "total = amount * 1000")
        repo.commit("experiment")
        bump(repo.root / "pay.py")
        assert m.id in ws.reindex().memories.stale
        repo.git("checkout", "-q", "main")  # the branch switched back
        bump(repo.root / "pay.py")
        report = ws.reindex().memories
        assert m.id in report.revived and ws.get(m.id).status == MemoryStatus.ACTIVE
        assert kinds(ws, m.id)[-2:] == ["stale", "revived"]
        assert ws.get(by_hand.id).status == MemoryStatus.STALE  # a person's word is not the code's to undo
        for undo in (("stash",), ("checkout", "--", "pay.py")):  # a stash, and a revert of the working tree
            repo.edit("pay.py", "total = (amount * 100)  # cents", "total = amount * 7")
            bump(repo.root / "pay.py")
            ws.reindex()
            assert ws.get(m.id).status == MemoryStatus.STALE
            repo.git(*undo)
            bump(repo.root / "pay.py")
            ws.reindex()
            assert ws.get(m.id).status == MemoryStatus.ACTIVE, undo


def test_a_contested_memory_goes_stale_with_its_code_and_comes_back_contested(repo: Repo) -> None:
    """D23: contested is no shield against a code change; when the code returns, so does the contest."""
    with Workspace.open(repo.root, embedder=None) as ws:
        ws.reindex()
        a = ws.remember("charge rounds to cents", type="gotcha", file="pay.py", symbol="charge").memory
        b = ws.remember("charge never rounds", type="gotcha", file="pay.py", symbol="charge").memory
        ws.resolve_conflict(b.id, a.id, "contested")
        assert ws.get(a.id).status == ws.get(b.id).status == MemoryStatus.CONTESTED
        repo.edit("pay.py", "total = (amount * 100)  # cents", "total = round(amount * 100)")
        bump(repo.root / "pay.py")
        report = ws.reindex().memories
        assert {a.id, b.id} <= set(report.stale)
        assert ws.get(a.id).status == MemoryStatus.STALE and "stale" in kinds(ws, a.id)
        repo.git("checkout", "--", "pay.py")
        bump(repo.root / "pay.py")
        ws.reindex()
        assert ws.get(a.id).status == ws.get(b.id).status == MemoryStatus.CONTESTED


def test_review_on_a_branch_never_changes_what_main_shows(repo: Repo) -> None:
    """``forewarn review`` re-indexes the branch it runs on; back on main the memories read as before it."""
    from forewarn.workspace.review import Reason, review

    with Workspace.open(repo.root, embedder=None) as ws:
        ws.reindex()
        m = ws.remember("charge works in cents", type="gotcha", file="pay.py", symbol="charge").memory
        before = [(h.memory.id, h.memory.status) for h in ws.proactive("pay.py", record=False)]
        repo.git("checkout", "-q", "-b", "feature")
        repo.edit("pay.py", "total = (amount * 100)  # cents", "total = amount * 100 + 1")
        repo.commit("feature")
        bump(repo.root / "pay.py")
        items = {i.memory.id: i for i in review(ws, "main").items}
        assert Reason.STALE in items[m.id].reasons
        repo.git("checkout", "-q", "main")
        bump(repo.root / "pay.py")
        ws.reindex()
        assert [(h.memory.id, h.memory.status) for h in ws.proactive("pay.py", record=False)] == before


# ---------------------------------------------------------------- @overload (issue 22: D2)

OVERLOADED = """\
import typing as t


class Context:
    @t.overload
    def invoke(self, callback: int) -> int: ...

    @t.overload
    def invoke(self, callback: str) -> str: ...

    def invoke(self, callback):
        for param in callback:
            pass
        return callback
"""


def test_a_memory_on_an_overloaded_name_anchors_to_the_implementation(root: Path, ws: Workspace) -> None:
    """D2: ``--symbol Context.invoke`` (and a line inside a stub) means the code that runs; a change to it makes
    the memory stale and is a change in review; nothing shows the internal ``#3``."""
    write(root, "core.py", OVERLOADED)
    ws.reindex(["core.py"])
    m = ws.remember("invoke fills defaults only for a Command", type="gotcha", file="core.py", symbol="Context.invoke")
    assert m.memory.anchor is not None and m.memory.anchor.symbol == "Context.invoke#3"
    assert m.memory.anchor.start_line == 11  # the implementation, not the stub at line 5
    on_stub = ws.resolve_anchor("core.py", line=6)
    assert on_stub is not None and on_stub.symbol == "Context.invoke#3"
    loop = "        for param in callback:"
    write(root, "core.py", OVERLOADED.replace(loop, "        callback = list(callback)\n" + loop))
    assert m.memory.id in ws.reindex().memories.stale


# ---------------------------------------------------------------- one symbol, memories of several versions of it

CENTS = "total = (amount * 100)  # cents"


def anchored_to(ws: Workspace, memory_id: str) -> tuple[str | None, MemoryStatus]:
    got = ws.get(memory_id)
    return (got.anchor.symbol if got.anchor is not None else None), got.status


def two_versions(repo: Repo, ws: Workspace) -> tuple[str, str]:
    """One memory written on ``charge`` as committed, another after an edit made the first stale."""
    ws.reindex()
    first = ws.remember("charge works in cents", type="gotcha", file="pay.py", symbol="charge").memory
    repo.edit("pay.py", CENTS, "total = amount * 1000")
    repo.commit("mills")
    bump(repo.root / "pay.py")
    ws.reindex()
    second = ws.remember("charge works in mills now", type="gotcha", file="pay.py", symbol="charge").memory
    return first.id, second.id


def test_memories_written_on_two_versions_of_a_symbol_both_stay_on_it(repo: Repo) -> None:
    """Another edit makes both stale, neither orphaned; the code back to what one was written on revives that one."""
    with Workspace.open(repo.root, embedder=None) as ws:
        first, second = two_versions(repo, ws)
        repo.edit("pay.py", "total = amount * 1000", "total = amount * 10_000")
        bump(repo.root / "pay.py")
        report = ws.reindex().memories
        assert report.orphaned == []
        assert anchored_to(ws, first) == anchored_to(ws, second) == ("charge", MemoryStatus.STALE)
        repo.git("checkout", "HEAD~1", "--", "pay.py")  # the code the first was written on
        bump(repo.root / "pay.py")
        ws.reindex()
        assert anchored_to(ws, first) == ("charge", MemoryStatus.ACTIVE)
        assert anchored_to(ws, second) == ("charge", MemoryStatus.STALE)
        repo.git("checkout", "HEAD", "--", "pay.py")  # the second's
        bump(repo.root / "pay.py")
        ws.reindex()
        assert anchored_to(ws, first) == ("charge", MemoryStatus.STALE)
        assert anchored_to(ws, second) == ("charge", MemoryStatus.ACTIVE)
        assert "orphaned" not in kinds(ws, first) + kinds(ws, second)


@pytest.mark.parametrize("content_hash", [None, "f" * 64], ids=["no-hash", "a-teammates-hash"])
def test_an_imported_memory_without_code_and_a_typed_one_share_a_symbol(
    repo: Repo, tmp_path: Path, content_hash: str | None
) -> None:
    """An imported memory has no code remembered here (its hash: none, or another checkout's): a version of its own."""
    anchor = {"file": "pay.py", "symbol": "charge", **({"content_hash": content_hash} if content_hash else {})}
    line = {
        "id": "01JEEEEEEEEEEEEEEEEEEEEE01", "type": "gotcha", "anchor": anchor, "text": "charge rounds half up",
        "created_at": "2025-06-01T09:00:00Z", "updated_at": "2025-06-01T09:00:00Z", "status": "active",
        "source": "user", "confidence": 1.0, "tags": [], "events": [],
    }  # fmt: skip
    shared = tmp_path / "team.jsonl"
    shared.write_text(json.dumps({"format": "forewarn-memories", "version": 1}) + "\n" + json.dumps(line) + "\n")
    with Workspace.open(repo.root, embedder=None) as ws:
        ws.reindex()
        assert ws.import_(shared, embed=False, accept=True).added == 1
        typed = ws.remember("charge works in cents", type="gotcha", file="pay.py", symbol="charge").memory
        # another checkout's code is not this one's: stale here from the import on (QA pass 5, F4)
        imported = MemoryStatus.STALE if content_hash else MemoryStatus.ACTIVE
        assert anchored_to(ws, line["id"]) == ("charge", imported)
        assert anchored_to(ws, typed.id) == ("charge", MemoryStatus.ACTIVE)
        repo.edit("pay.py", CENTS, "total = amount * 1000")
        bump(repo.root / "pay.py")
        assert ws.reindex().memories.orphaned == []
        assert anchored_to(ws, line["id"]) == anchored_to(ws, typed.id) == ("charge", MemoryStatus.STALE)


def test_review_leaves_memories_of_two_versions_of_a_symbol_anchored(repo: Repo) -> None:
    from forewarn.workspace.review import Reason, review

    with Workspace.open(repo.root, embedder=None) as ws:
        first, second = two_versions(repo, ws)
        repo.git("checkout", "-q", "-b", "feature")
        repo.edit("pay.py", "total = amount * 1000", "total = amount * 1000 + 1")
        repo.commit("feature")
        bump(repo.root / "pay.py")
        items = {i.memory.id: i for i in review(ws, "main").items}
        assert Reason.DELETED not in items[first].reasons and Reason.DELETED not in items[second].reasons
        assert anchored_to(ws, first) == anchored_to(ws, second) == ("charge", MemoryStatus.STALE)


def test_a_symbol_really_deleted_orphans_the_memories_of_each_of_its_versions(repo: Repo) -> None:
    """Gone: both orphaned. Back as it was when the second was written: both on it again, the first stale."""
    with Workspace.open(repo.root, embedder=None) as ws:
        first, second = two_versions(repo, ws)
        text = (repo.root / "pay.py").read_text(encoding="utf-8")
        repo.write("pay.py", text[: text.index("def charge(")].rstrip() + "\n")
        bump(repo.root / "pay.py")
        assert set(ws.reindex().memories.orphaned) == {first, second}
        assert anchored_to(ws, first) == anchored_to(ws, second) == ("charge", MemoryStatus.ORPHANED)
        repo.git("checkout", "--", "pay.py")
        bump(repo.root / "pay.py")
        assert set(ws.reindex().memories.revived) == {first, second}
        assert anchored_to(ws, first) == ("charge", MemoryStatus.STALE)
        assert anchored_to(ws, second) == ("charge", MemoryStatus.ACTIVE)
