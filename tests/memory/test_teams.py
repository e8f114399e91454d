"""Teams: private memories never reach the shared file, the m005 upgrade, the canonical export, the merge of
two exports and an import that merges a teammate's restatement."""

from __future__ import annotations

import itertools
import json
import random
import sqlite3
import subprocess
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forewarn.memory import merging, shared_file, transfer
from forewarn.memory.records import Memory
from forewarn.memory.store import MIGRATIONS, MemoryStore
from forewarn.memory.vocabulary import MemoryStatus, Visibility
from forewarn.sqlite import connect, migrate
from forewarn.workspace import team
from forewarn.workspace.engine import Workspace


def make_ws(root: Path, *, git: bool = False) -> Path:
    (root / "billing").mkdir(parents=True)
    (root / "billing" / "invoice.py").write_text("def total(lines):\n    return sum(lines)\n", encoding="utf-8")
    if git:
        for args in (["init", "-q"], ["config", "user.name", "Grace H"], ["config", "user.email", "grace@x.test"]):
            subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
        subprocess.run(["git", "add", "."], cwd=root, check=True, capture_output=True)
        subprocess.run(["git", "commit", "-qm", "first"], cwd=root, check=True, capture_output=True)
    return root


# ---------------------------------------------------------------- migration


def test_m005_upgrade_gives_every_existing_memory_team_visibility_and_no_writer(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    conn = connect(db)
    migrate(conn, MIGRATIONS[:4], what="previous memory database")  # the schema before m005
    with conn:
        for i in range(20):
            conn.execute(
                """INSERT INTO memories (id, type, text, source, confidence, created_at, updated_at, status)
                   VALUES (?, 'gotcha', ?, 'user', 1.0, '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z', ?)""",
                (f"01OLD{i:021d}", f"old lesson {i}", ("active", "suggested", "superseded", "archived")[i % 4]),
            )
    conn.close()
    store = MemoryStore(db)
    try:
        assert "m005_visibility" in {r[0] for r in store.conn.execute("SELECT name FROM _migrations")}
        memories = list(store.iter_all())
        assert len(memories) == 20
        assert {m.visibility for m in memories} == {Visibility.TEAM}
        assert {m.recorded_by for m in memories} == {None}
        try:
            store.conn.execute("UPDATE memories SET visibility = 'everyone'")
            raise AssertionError("an unknown visibility was accepted")
        except sqlite3.IntegrityError:
            pass
    finally:
        store.close()


# ---------------------------------------------------------------- visibility (property)

OPS = st.lists(
    st.tuples(
        st.sampled_from(["remember", "remember_private", "twin", "supersede", "forget", "restore", "export", "merge"]),
        st.integers(0, 50),
    ),
    min_size=3,
    max_size=14,
)


def _private_marks(ws: Workspace) -> tuple[set[str], set[str]]:
    every = list(ws.store.iter_all())
    private = [m for m in every if m.visibility == Visibility.PRIVATE]
    shared_texts = {m.text for m in every if m.visibility == Visibility.TEAM}  # a "twin" says the same words
    return {m.id for m in private}, {m.text for m in private} - shared_texts


def _assert_no_private(data: bytes, ids: set[str], texts: set[str]) -> None:
    text = data.decode("utf-8", "replace")
    assert not any(i in text for i in ids), "a private memory's id reached the shared file"
    assert not any(t in text for t in texts), "a private memory's text reached the shared file"


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS, seed=st.integers(0, 2**16))
def test_a_private_memory_never_reaches_the_shared_file_whatever_writes_it(
    ops: list[tuple[str, int]], seed: int
) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        root = make_ws(Path(tmp) / "ws")
        other = Path(tmp) / "theirs.jsonl"
        with Workspace.open(root, embedder=None) as ws:
            ws.remember("a team lesson: totals round half-even", file="billing/invoice.py")
            ws.export(other)  # a teammate's file to merge with
            counter = itertools.count()
            for op, n in ops:
                current = [m for m in ws.store.iter_all() if m.status == MemoryStatus.ACTIVE]
                pick = current[n % len(current)] if current else None
                if op == "remember":
                    ws.remember(f"team lesson {next(counter)} about totals", file="billing/invoice.py")
                elif op == "remember_private":
                    ws.remember(f"privmark {next(counter)}: halfway through, do not merge", private=True)
                elif op == "twin" and pick is not None:  # the same words with the other visibility: never merged
                    ws.remember(pick.text, file=pick.file, private=pick.visibility == Visibility.TEAM)
                elif op == "supersede" and pick is not None:
                    mark = "privmark " if pick.visibility == Visibility.PRIVATE else ""
                    ws.supersede(pick.id, f"{mark}corrected {next(counter)}")
                elif op == "forget" and pick is not None:
                    ws.forget(pick.id)
                elif op == "restore":
                    gone = [m for m in ws.store.iter_all() if m.status == MemoryStatus.ARCHIVED]
                    if gone:
                        ws.restore(gone[n % len(gone)].id)
                elif op == "export":
                    ws.export(include_archived=rng.random() < 0.5)
                elif op == "merge" and ws.default_export_path().is_file():
                    shared = ws.default_export_path()
                    merged, _ = merging.merge_exports(None, shared.read_bytes(), other.read_bytes())
                    shared.write_bytes(merged)
                ids, texts = _private_marks(ws)
                for written in (ws.default_export_path(), other):
                    if written.is_file():
                        _assert_no_private(written.read_bytes(), ids, texts)
            ws.export(include_archived=True)
            ws.export(Path(tmp) / "elsewhere.jsonl")
            ids, texts = _private_marks(ws)
            for written in (ws.default_export_path(), Path(tmp) / "elsewhere.jsonl"):
                _assert_no_private(written.read_bytes(), ids, texts)
            # a merge of a file holding a private line (written by hand) leaves it out
            if ids:
                m = ws.store.get(sorted(ids)[0])
                assert m is not None
                line = shared_file.jsonl_line({**transfer.memory_record(m, []), "visibility": "private"})
                header = shared_file.jsonl_line({"format": shared_file.FORMAT, "version": shared_file.VERSION})
                theirs = (header + line).encode()
                merged, report = merging.merge_exports(None, ws.default_export_path().read_bytes(), theirs)
                assert report.private_left_out == 1
                _assert_no_private(merged, ids, texts)


def test_private_memories_stay_private_and_team_ones_team_through_import(tmp_path: Path) -> None:
    with Workspace.open(make_ws(tmp_path / "a"), embedder=None) as a:
        team_m = a.remember("the ledger rounds half-even", file="billing/invoice.py").memory
        mine = a.remember("my private hunch about the ledger", file="billing/invoice.py", private=True).memory
        assert mine.visibility == Visibility.PRIVATE and team_m.visibility == Visibility.TEAM
        report = a.export()
        assert (report.exported, report.private) == (1, 1)
        # a hand-edited file claiming our team memory is private: ours stays team, and the import says so
        rec = transfer.memory_record(team_m, a.store.events(team_m.id))
        flipped = tmp_path / "flipped.jsonl"
        flipped.write_text(shared_file.jsonl_line({**rec, "visibility": "private"}), encoding="utf-8")
        done = a.import_(flipped, embed=False)
        assert a.get(team_m.id).visibility == Visibility.TEAM
        assert any(c.action == "kept_local" and "visibility stays team" in c.detail for c in done.changes)


# ---------------------------------------------------------------- canonical export, recorded_by, exported_at


def test_export_is_canonical_and_records_writer_and_commit(tmp_path: Path) -> None:
    root = make_ws(tmp_path / "ws", git=True)
    team.git_identity.cache_clear()
    with Workspace.open(root, embedder=None) as ws:
        first = ws.remember("totals must round half-even", file="billing/invoice.py").memory
        assert first.recorded_by == "Grace H <grace@x.test>"
        ws.export()
        path = ws.default_export_path()
        one = path.read_bytes()
        lines = one.decode().splitlines()
        ids = [json.loads(x)["id"] for x in lines[1:]]
        assert ids == sorted(ids) and all(list(json.loads(x)) == sorted(json.loads(x)) for x in lines)
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
        assert json.loads(lines[1])["exported_at"] == head
        assert json.loads(lines[1])["recorded_by"] == "Grace H <grace@x.test>"
        subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "later"], cwd=root, check=True)
        ws.remember("a second lesson on invoices", file="billing/invoice.py")
        ws.export()
        later = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()[1:]]
        by_id = {r["id"]: r for r in later}
        assert by_id[first.id]["exported_at"] == head  # unchanged line: unchanged exported_at (no needless diff)
        now = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
        assert sorted(r["exported_at"] for r in later) == sorted([head, now])  # the new line: the new HEAD
        # the merge of a file with itself is the file: canonical bytes are a fixed point
        merged, _ = merging.merge_exports(None, path.read_bytes(), path.read_bytes())
        assert merged == path.read_bytes()
    # files written before this release (no exported_at, no recorded_by) still import
    old = tmp_path / "old.jsonl"
    old.write_text(
        '{"format": "forewarn-memories", "version": 1}\n'
        '{"id": "01J0000000000000000000000A", "type": "gotcha", "text": "an old lesson", '
        '"created_at": "2025-01-01T00:00:00Z"}\n',
        encoding="utf-8",
    )
    with Workspace.open(make_ws(tmp_path / "b"), embedder=None) as ws:
        assert ws.import_(old, embed=False).added == 1


def test_no_git_identity_never_fails_a_write(tmp_path: Path) -> None:
    root = make_ws(tmp_path / "nogit")
    team.git_identity.cache_clear()
    with Workspace.open(root, embedder=None) as ws:
        m = ws.remember("written outside any repository", file="billing/invoice.py").memory
        assert m.recorded_by is None or "<" in m.recorded_by  # a global identity may exist; none is fine
        assert ws.export().exported == 1


# ---------------------------------------------------------------- merging two exports


def test_merge_is_the_same_whatever_the_order_and_keeps_every_version(tmp_path: Path) -> None:
    with Workspace.open(make_ws(tmp_path / "ws"), embedder=None) as ws:
        base_m = ws.remember("base lesson about the invoice totals", file="billing/invoice.py").memory
        ws.export(tmp_path / "base.jsonl")
        sides = []
        for k in range(4):
            ws.mark_stale(base_m.id, f"doubt {k}") if k % 2 == 0 else ws.confirm(base_m.id)
            ws.remember(f"side {k} adds lesson number {k}", file="billing/invoice.py")
            ws.export(tmp_path / f"side{k}.jsonl")
            sides.append((tmp_path / f"side{k}.jsonl").read_bytes())
    base = (tmp_path / "base.jsonl").read_bytes()
    results = set()
    for order in itertools.permutations(range(4)):
        acc = base
        for k in order:
            acc, _ = merging.merge_exports(base, acc, sides[k])
        results.add(acc)
    assert len(results) == 1
    merged = [json.loads(x) for x in results.pop().decode().splitlines()[1:]]
    assert len(merged) == 5  # the base memory and four additions
    hot = next(r for r in merged if r["id"] == base_m.id)
    kept = [e for e in hot["events"] if e["kind"] == transfer.MERGED_EVENT]
    assert len(kept) == 3  # four versions of one memory: one current, three in its history


# ---------------------------------------------------------------- restatements


def test_import_merges_a_teammates_restatement_instead_of_adding_a_near_duplicate(tmp_path: Path) -> None:
    with Workspace.open(make_ws(tmp_path / "theirs"), embedder=None) as theirs:
        theirs.remember("Retries to the payment API must be idempotent!", file="billing/invoice.py")
        theirs.remember("Retry of payment API calls must be idempotent", file="billing/invoice.py")
        theirs.remember("the totals use banker's rounding", file="billing/invoice.py")
        theirs.remember("retries to the payment api must be idempotent")  # workspace-wide: another place
        theirs.export(tmp_path / "shared.jsonl")
    with Workspace.open(make_ws(tmp_path / "ours"), embedder=None) as ours:
        mine = ours.remember("retries to the payment API must be idempotent", file="billing/invoice.py").memory
        report = ours.import_(tmp_path / "shared.jsonl", embed=False)
        assert (report.merged, report.added) == (1, 3)  # "Retry of … calls" overlaps too little: a new memory
        kinds = [e.kind for e in ours.store.events(mine.id)]
        assert transfer.RESTATED_EVENT in kinds
        again = ours.import_(tmp_path / "shared.jsonl", embed=False)
        assert (again.merged, again.added) == (0, 0)


def test_recovery_keeps_rows_written_before_m005_as_team_and_private_ones_private(tmp_path: Path) -> None:
    from forewarn.memory.records import Memory
    from forewarn.memory.recovery import integrity_ok, recover_memory_db
    from forewarn.memory.text import new_id, to_iso

    db = tmp_path / "memory.db"
    conn = connect(db)
    migrate(conn, MIGRATIONS[:4], what="previous memory database")
    with conn:
        for i in range(300):
            conn.execute(
                """INSERT INTO memories (id, type, text, source, confidence, created_at, updated_at, status)
                   VALUES (?, 'gotcha', ?, 'user', 1.0, '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z', 'active')""",
                (f"01OLD{i:021d}", f"old lesson {i}: " + "the invoice rounding detail " * 8),
            )
    conn.close()
    store = MemoryStore(db)  # m005 runs: the old rows stay as they were on disk (the column reads as its default)
    at = to_iso(1_800_000_000)
    mine = Memory(new_id(), "note", "a private hunch", None, "user", 1.0, at, at, visibility=Visibility.PRIVATE)  # type: ignore[arg-type]
    store.insert(mine)
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    conn = sqlite3.connect(db)
    page_size, pages = conn.execute("PRAGMA page_size").fetchone()[0], conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()
    with open(db, "r+b") as f:  # damage one page among the memories
        f.seek((pages // 3 - 1) * page_size)
        f.write(b"\xa5" * page_size)
    assert not integrity_ok(db)
    report = recover_memory_db(db)
    assert not any("memories row was refused" in p for p in report.problems), report.problems
    recovered = MemoryStore(db)
    try:
        memories = list(recovered.iter_all())
        assert len(memories) >= 200, report.message()
        assert {m.visibility for m in memories if m.id.startswith("01OLD")} == {Visibility.TEAM}
        assert all(m.visibility == Visibility.PRIVATE for m in memories if m.id == mine.id)
    finally:
        recovered.close()


def test_import_finds_a_restatement_by_meaning_when_the_workspace_has_vectors(tmp_path: Path) -> None:
    from forewarn.memory import model_install

    if model_install.installed_manifest(verify=False) is None:
        raise AssertionError("the embedding model is not installed: run `make model`")
    with Workspace.open(make_ws(tmp_path / "theirs"), embedder=None) as theirs:
        theirs.remember("Payment API retries have to be idempotent.", file="billing/invoice.py")  # 67% word overlap
        theirs.remember("The invoice total rounds half-even.", file="billing/invoice.py")
        theirs.export(tmp_path / "shared.jsonl")
    with Workspace.open(make_ws(tmp_path / "ours")) as ours:  # the real model: hybrid mode
        assert ours.mode == "hybrid", ours.embedder_problem
        mine = ours.remember("Retries to the payment API must be idempotent.", file="billing/invoice.py").memory
        report = ours.import_(tmp_path / "shared.jsonl")
        assert (report.merged, report.added) == (1, 1)
        assert transfer.RESTATED_EVENT in [e.kind for e in ours.store.events(mine.id)]
    with Workspace.open(make_ws(tmp_path / "lexical"), embedder=None) as lexical:  # without vectors: words only
        lexical.remember("Retries to the payment API must be idempotent.", file="billing/invoice.py")
        assert lexical.import_(tmp_path / "shared.jsonl", embed=False).added == 2


# ---------------------------------------------------------------- D21: two replacements of one memory


def replaced_by_a_teammate(tmp_path: Path) -> tuple[Memory, Memory]:
    """A memory of workspace ``a`` that teammate ``b`` took on and replaced; ``b``'s export (archived included) is
    ``b.jsonl``. Returns the memory and b's replacement."""
    with Workspace.open(make_ws(tmp_path / "a"), embedder=None) as ws:
        old = ws.remember("the invoice total rounds per line", file="billing/invoice.py").memory
        ws.export(tmp_path / "base.jsonl")
    with Workspace.open(make_ws(tmp_path / "b"), embedder=None) as ws:
        ws.import_(tmp_path / "base.jsonl", embed=False, accept=True)  # b's person took it on: current there
        theirs = ws.supersede(old.id, "the invoice total rounds once, at the end")
        ws.export(tmp_path / "b.jsonl", include_archived=True)
    return old, theirs


def test_importing_a_teammates_replacement_of_a_memory_we_replaced_too_flags_one_contested_pair(
    tmp_path: Path,
) -> None:
    old, theirs = replaced_by_a_teammate(tmp_path)
    with Workspace.open(tmp_path / "a", embedder=None) as ws:
        ours = ws.supersede(old.id, "the invoice total rounds half-even per line")
        report = ws.import_(tmp_path / "b.jsonl", embed=False, accept=True)
        assert sorted(c.id for c in report.changes if c.action == "contested") == sorted([ours.id, theirs.id])
        assert ws.get(ours.id).status == ws.get(theirs.id).status == MemoryStatus.CONTESTED
        assert [m.id for m in ws.contested_with([ours.id])[ours.id]] == [theirs.id]
        again = ws.import_(tmp_path / "b.jsonl", embed=False)  # nothing new: flagged once
        assert not [c for c in again.changes if c.action == "contested"]
        ws.resolve_conflict(ours.id, theirs.id, "both")  # a person says both hold: never flagged again
        ws.import_(tmp_path / "b.jsonl", embed=False)
        assert ws.get(ours.id).status == ws.get(theirs.id).status == MemoryStatus.ACTIVE


def test_accepting_a_teammates_waiting_replacement_of_a_memory_we_replaced_too_flags_the_pair(
    tmp_path: Path,
) -> None:
    old, theirs = replaced_by_a_teammate(tmp_path)
    with Workspace.open(tmp_path / "a", embedder=None) as ws:
        ours = ws.supersede(old.id, "the invoice total rounds half-even per line")
        report = ws.import_(tmp_path / "b.jsonl", embed=False)  # not accepted: theirs waits for review
        assert report.waiting == 1 and not [c for c in report.changes if c.action == "contested"]
        assert ws.get(theirs.id).status == MemoryStatus.SUGGESTED and ws.get(ours.id).status == MemoryStatus.ACTIVE
        ws.accept_suggestion(theirs.id)  # now two current replacements of one memory: never a silent pair
        assert ws.get(ours.id).status == ws.get(theirs.id).status == MemoryStatus.CONTESTED
        assert {k: [o.id for o in v] for k, v in ws.contested_with([ours.id, theirs.id]).items()} == {
            ours.id: [theirs.id],
            theirs.id: [ours.id],
        }
        assert ws.get(old.id).superseded_by == ours.id  # the replaced memory keeps its history as it was


def test_merge_keeps_a_rewritten_event_beside_the_original_in_any_order(tmp_path: Path) -> None:
    with Workspace.open(make_ws(tmp_path / "ws"), embedder=None) as ws:
        m = ws.remember("base lesson about the invoice totals", file="billing/invoice.py").memory
        base = ws.export(tmp_path / "base.jsonl").path.read_bytes()
    header, line = base.decode().splitlines()
    rec = json.loads(line)
    original = rec["events"][0]
    sides = []
    for at, note in [("1970-01-01T00:00:00.000000Z", "forged"), (original["at"], "reworded")]:
        rec["events"] = [{**original, "at": at, "detail": {"note": note}}]
        sides.append(f"{header}\n{json.dumps(rec)}\n".encode())
    sides.append(base)
    results = set()
    for order in itertools.permutations(range(3)):
        acc = base
        for k in order:
            acc, _ = merging.merge_exports(base, acc, sides[k])
        results.add(acc)
    assert len(results) == 1
    events = json.loads(results.pop().decode().splitlines()[1])["events"]
    assert [e for e in events if e["id"] == original["id"]] == [original]
    assert sorted(e["detail"].get("note", "") for e in events if e["id"].startswith(merging.RIVAL_EVENT_PREFIX)) == [
        "forged",
        "reworded",
    ]
    assert m.id == json.loads(line)["id"]
