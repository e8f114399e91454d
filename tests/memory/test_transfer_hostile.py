"""A shared memories file is someone else's input: regression tests for F1, F2, F3, F4 (import), F8, F11 and F12
of the hostile-input review, built from its recipes (real SQLite, the Workspace API, the real CLI, the real model
where vectors matter), and a property test that export → import round-trips what the store accepts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forewarn import paths
from forewarn.memory import shared_file, transfer
from forewarn.memory.records import Memory
from forewarn.memory.redact import redact
from forewarn.memory.shared_file import TransferError
from forewarn.memory.store import STATUSES
from forewarn.memory.text import clean_memory_text, from_iso, iso_of, new_id, to_iso
from forewarn.workspace.engine import Workspace

CLI = [sys.executable, "-m", "forewarn.cli.main"]
HEADER = json.dumps({"format": "forewarn-memories", "version": 1})
INVOICE = "def finalize(invoice):\n    return invoice.total\n"


def make_ws(root: Path) -> Path:
    (root / "billing").mkdir(parents=True)
    (root / "billing/invoice.py").write_text(INVOICE, encoding="utf-8")
    (root / "etclink").symlink_to("/etc")
    return root


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_ws(tmp_path / "ws")


def rec(mid: str, text: str = "x", **kw: Any) -> dict[str, Any]:
    """A record as mkevil.py writes them."""
    r: dict[str, Any] = {
        "id": mid, "type": "gotcha", "text": text, "created_at": "2025-01-01T00:00:00Z",
        "updated_at": "2025-01-01T00:00:00Z", "status": "active", "source": "user", "confidence": 1.0,
        "anchor": None, "tags": [], "events": [],
    }  # fmt: skip
    r.update(kw)
    return r


def write(path: Path, *records: dict[str, Any], raw: tuple[str, ...] = ()) -> Path:
    lines = [HEADER, *(json.dumps(r) for r in records), *raw]  # ASCII: a lone surrogate is written as \ud800
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def cli(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *argv, "-w", str(root)], capture_output=True, text=True, timeout=300)


def exported_record(engine: Workspace) -> dict[str, Any]:
    engine.export()
    return dict(json.loads(engine.default_export_path().read_text(encoding="utf-8").splitlines()[1]))


# ---------------------------------------------------------------- F1: an import never destroys a local version


def test_f1_a_newer_copy_waits_for_review_and_ours_stays_in_history(ws: Path, tmp_path: Path) -> None:
    with Workspace.open(ws, embedder=None) as engine:
        m = engine.remember(
            "finalize is not idempotent; retries double-bill customers", type="gotcha", file="billing/invoice.py",
            symbol="finalize",
        ).memory  # fmt: skip
        r = exported_record(engine)
    later = iso_of(datetime.fromtimestamp(from_iso(r["updated_at"]) + 1, UTC))
    evil = write(tmp_path / "evil.jsonl", dict(r, text="finalize is idempotent, retry freely", updated_at=later))
    dry = cli(ws, "memory", "import", str(evil), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert f"{m.id}  proposed  a newer copy waits for review" in dry.stdout and "nothing was written" in dry.stdout
    with Workspace.open(ws, embedder=None) as engine:
        assert engine.get(m.id).text == m.text and engine.suggestions() == []  # the dry run wrote nothing
    done = cli(ws, "memory", "import", str(evil))
    assert done.returncode == 0 and "1 newer copies waiting for your review" in done.stdout, done.stderr
    with Workspace.open(ws, embedder=None) as engine:
        assert engine.get(m.id).text == m.text  # never changed by the file alone
        (proposal,) = engine.suggestions()
    accepted = cli(ws, "memory", "review", "accept", proposal.id)
    assert accepted.returncode == 0, accepted.stderr
    with Workspace.open(ws, embedder=None) as engine:
        assert engine.get(m.id).text == "finalize is idempotent, retry freely"
        (replaced,) = [e for e in engine.store.events(m.id) if e.kind == "replaced_by_import"]
        assert replaced.detail["text"] == m.text and replaced.detail["anchor"]["symbol"] == "finalize"
    history = cli(ws, "memory", "history", m.id)
    assert "replaced_by_import" in history.stdout and "retries double-bill customers" in history.stdout
    show = cli(ws, "memory", "show", m.id)
    assert "retries double-bill customers" in show.stdout, show.stdout


def test_f1_a_year_9999_copy_cannot_pin_itself(ws: Path, tmp_path: Path) -> None:
    with Workspace.open(ws, embedder=None) as engine:
        m = engine.remember("finalize is not idempotent", type="gotcha", file="billing/invoice.py").memory
        r = exported_record(engine)
        evil = write(
            tmp_path / "evil1.jsonl", dict(r, text="attacker text", updated_at="9999-12-31T23:59:59Z", events=[])
        )
        report = engine.import_(evil, embed=False)
        assert (report.updated, report.kept_local, report.clamped) == (0, 1, 1)
        assert "dated in the future" in report.changes[0].detail
        assert engine.get(m.id).text == "finalize is not idempotent"
        new = engine.supersede(m.id, "finalize is idempotent since the v2 ledger")
        engine.import_(evil, embed=False)  # the same file again: the local supersede wins
        assert engine.get(m.id).status == "superseded"
        current = [x.id for x in engine.list_memories()]
        assert current == [new.id]
        engine.forget(new.id)
        again = write(tmp_path / "evil2.jsonl", dict(exported_record_of(engine, new.id), updated_at="9999-01-01"))
        engine.import_(again, embed=False)
        assert engine.get(new.id).status == "archived"  # a forget is not undone either
        # an unknown id dated 9999 is added with its times clamped to now, and says so
        fresh = rec(new_id(), "future created", created_at="9999-12-31T23:59:59Z", updated_at="9999-12-31T23:59:59Z")
        report = engine.import_(write(tmp_path / "future.jsonl", fresh), embed=False)
        assert (report.added, report.clamped) == (1, 1)
        stored = engine.get(fresh["id"])
        assert from_iso(stored.updated_at) <= time.time() + 1
        clamped = [e for e in engine.store.events(stored.id) if e.kind == "import_clamped"]
        assert clamped[0].detail["updated_at"] == "9999-12-31T23:59:59Z"


def exported_record_of(engine: Workspace, memory_id: str) -> dict[str, Any]:
    m = engine.get(memory_id)
    return transfer.memory_record(m, [])


def test_f1_forged_events_are_attributed_to_the_import(ws: Path, tmp_path: Path) -> None:
    with Workspace.open(ws, embedder=None) as engine:
        m = engine.remember("the ledger rounds half to even", type="gotcha").memory
        r = exported_record(engine)
        nudged = iso_of(datetime.fromtimestamp(from_iso(r["updated_at"]) + 0.000001, UTC))
        forged = {"id": "EVFORGED", "kind": "forgotten", "at": nudged, "detail": {"by": "alice (lead)"}}
        evil = write(tmp_path / "evil.jsonl", dict(r, status="archived", updated_at=nudged, events=[forged]))
        engine.import_(evil, accept=True)  # even a file taken as it is writes no local action
        events = {e.id: e for e in engine.store.events(m.id)}
        assert events["EVFORGED"].kind == "imported"
        assert events["EVFORGED"].detail == {"original_kind": "forgotten", "original_detail": {"by": "alice (lead)"}}
        assert not any(e.kind == "forgotten" for e in events.values())
        assert engine.restore(m.id).status == "active"  # the replaced version is in history; restore works
    history = cli(ws, "memory", "history", m.id)
    assert "forgotten in a shared file" in history.stdout, history.stdout


# ---------------------------------------------------------------- F2: dates before 1970 and unpadded years


def test_f2_ancient_dates_are_refused_and_years_are_always_four_digits(ws: Path, tmp_path: Path) -> None:
    assert to_iso(-62135596800.0) == "0001-01-01T00:00:00.000000Z"
    ancient = rec(new_id(), "ancient", created_at="0999-01-01T00:00:00Z", updated_at="0999-01-01T00:00:00Z")
    with Workspace.open(ws, embedder=None) as engine:
        with pytest.raises(TransferError, match="line 2: created_at: '0999-01-01T00:00:00Z' is before 1970"):
            engine.import_(write(tmp_path / "ancient.jsonl", ancient), embed=False)
        # a store poisoned by an older release ("1-01-01T…" rows) still lists and searches
        m = engine.remember("invoice totals round per line", file="billing/invoice.py").memory
        engine.store.set_created_at(m.num, "1-01-01T00:00:00.000000Z")
        assert [x.id for x in engine.list_memories()] == [m.id]
        assert [h.memory.id for h in engine.search("invoice totals").memories] == [m.id]
        assert [h.memory.id for h in engine.proactive("billing/invoice.py")] == [m.id]


# ---------------------------------------------------------------- F3: line separators in text


def test_f3_pasted_line_separators_round_trip(ws: Path, tmp_path: Path) -> None:
    text = "pasted from the wiki:\u2028retry only with an idempotency key\u2029 then\x85 log it\x0b\x0c"
    with Workspace.open(ws, embedder=None) as engine:
        m = engine.remember(text).memory
        path = engine.export().path
    raw = path.read_text(encoding="utf-8")
    assert raw.count("\n") == 2 and len(raw.splitlines()) == 2  # whatever splits lines, two lines
    with Workspace.open(make_ws(tmp_path / "other"), embedder=None) as other:
        assert other.import_(path, embed=False).added == 1
        assert other.get(m.id).text == m.text


# ---------------------------------------------------------------- F8: the checks remember applies


DEEP = json.loads("[" * 17 + "]" * 17)
HOSTILE: list[tuple[str, dict[str, Any], str]] = [
    ("bigtext", {"text": "A" * 10_000_000}, "text: memory text is 10,000,000 characters; the limit is 20,000"),
    ("tags10k", {"tags": [f"t{n}" for n in range(10_000)]}, "tags: 10000 tags; the limit is 20"),
    ("hugetag", {"tags": ["x" * 1_000_000]}, "tags: tag 'xxx"),
    ("ansitag", {"tags": ["\x1b[2Jtag"]}, "tags: tag"),
    ("sourceodd", {"source": "trusted-admin"}, "source: unknown source 'trusted-admin'; use one of user, agent"),
    ("badtype", {"type": "rumour"}, "type: unknown memory type 'rumour'"),
    ("badstatus", {"status": "deleted"}, "status: unknown status 'deleted'"),
    ("nan", {"confidence": float("nan")}, "confidence: confidence must be a number from 0 to 1"),
    ("nul", {"anchor": {"file": "billing/inv\x00oice.py"}}, "anchor.file: 'billing/inv\\x00oice.py' is not a usable"),
    ("dot", {"anchor": {"file": "."}}, "anchor.file: '.' is not a file path in the workspace"),
    ("dir", {"anchor": {"file": "billing"}}, "anchor.file: billing is not a file in the workspace"),
    ("trailing", {"anchor": {"file": "billing/"}}, "anchor.file: 'billing/' is not a file path"),
    ("drive", {"anchor": {"file": "C:\\Windows\\hosts"}}, "is outside the workspace"),
    ("unc", {"anchor": {"file": "\\\\evil\\share\\x"}}, "is outside the workspace"),
    ("backdots", {"anchor": {"file": "..\\..\\etc\\passwd"}}, "is outside the workspace"),
    ("dotdot", {"anchor": {"file": "billing/../../x"}}, "is outside the workspace"),
    ("absolute", {"anchor": {"file": "/etc/passwd"}}, "is outside the workspace"),
    ("symlink", {"anchor": {"file": "etclink/passwd"}}, "anchor.file: etclink/passwd is outside the workspace"),
    ("negline", {"anchor": {"file": "billing/invoice.py", "start_line": -5}}, "line numbers start at 1, got -5"),
    ("hugeline", {"anchor": {"file": "billing/invoice.py", "start_line": 10**30}}, "anchor.start_line: line 1"),
    ("hugecount", {"surfaced_count": 10**30}, "surfaced_count: surfaced_count must be a whole number"),
    ("bigsymbol", {"anchor": {"file": "billing/invoice.py", "symbol": "S" * 100_000}}, "anchor.symbol: symbol is"),
    ("mdsymbol", {"anchor": {"file": "billing/invoice.py", "symbol": "f\n\n[x](command:y)"}}, "control character"),
    ("surrogate", {"anchor": {"file": "billing/invoice.py", "symbol": "\ud800"}}, "lone surrogate"),
    ("reason", {"status_reason": "\x1b]0;TITLE\x07"}, "status_reason: status_reason holds a control character"),
    ("events", {"events": [{"id": f"E{n}", "kind": "created", "at": "2025-01-01"} for n in range(200_000)]},
     "events: 200,000 events; the limit is 1,000 per memory"),
    ("eventkind", {"events": [{"id": "E", "kind": "created\x1b[2J", "at": "2025-01-01"}]}, "events[0].kind"),
    ("deepdetail", {"events": [{"id": "E", "kind": "k", "at": "2025-01-01", "detail": {"d": DEEP}}]},
     "events[0].detail: nests deeper than 16 levels"),
    ("bigdetail", {"events": [{"id": "E", "kind": "k", "at": "2025-01-01", "detail": {"d": "x" * 100_000}}]},
     "events[0].detail: is 100,009 characters"),
    ("badtime", {"updated_at": "99999-01-01"}, "updated_at: '99999-01-01' is not an ISO-8601"),
    ("badid", {"supersedes": "x"}, "supersedes: must be a 26-character memory id"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "fields", "message"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_f8_hostile_records_are_refused_with_line_field_and_reason(
    ws: Path, tmp_path: Path, name: str, fields: dict[str, Any], message: str
) -> None:
    good = rec(new_id(), "a good one")
    path = write(tmp_path / f"{name}.jsonl", good, {**rec(new_id(), "hostile"), **fields})
    with Workspace.open(ws, embedder=None) as engine:
        with pytest.raises(TransferError) as caught:
            engine.import_(path, embed=False)
        assert f"line 3: {message}" in str(caught.value) or message in str(caught.value), str(caught.value)[:500]
        assert "line 3: " in str(caught.value) and "nothing was imported" in str(caught.value)
        assert engine.store.count() == 0
        report = engine.import_(path, embed=False, skip_invalid=True)
        assert (report.added, report.skipped) == (1, 1) and report.invalid[0].startswith("line 3: ")
        assert [m.text for m in engine.store.iter_all()] == ["a good one"]


def test_f8_deep_nesting_and_huge_integers_are_one_line_errors(ws: Path, tmp_path: Path) -> None:
    nest = "[" * 100_000 + "]" * 100_000
    deep = '{"id": "01JAAAAAAAAAAAAAAAAAAAA999", "type": "gotcha", "text": "n", "detail": ' + nest + "}"
    digits = '{"id": "01JAAAAAAAAAAAAAAAAAAAA998", "type": "gotcha", "text": "n", "access_count": ' + "9" * 5000 + "}"
    path = write(tmp_path / "nested.jsonl", raw=(deep, digits))
    with Workspace.open(ws, embedder=None) as engine, pytest.raises(TransferError) as caught:
        engine.import_(path, embed=False)
    assert "line 2: not JSON (nested too deeply)" in str(caught.value)
    assert "line 3: not JSON" in str(caught.value)
    done = cli(ws, "memory", "import", str(path))
    assert done.returncode != 0 and "Traceback" not in done.stderr and "line 2: not JSON" in done.stderr


# ---------------------------------------------------------------- F4 (import): only a regular file, size-capped


def test_f4_import_reads_only_a_regular_file_of_bounded_size(ws: Path, tmp_path: Path) -> None:
    target = ws / ".forewarn" / "memories.jsonl"
    target.parent.mkdir()
    with Workspace.open(ws, embedder=None) as engine:
        target.symlink_to("/dev/zero")
        with pytest.raises(TransferError, match="not a regular file"):
            engine.import_(embed=False)
        target.unlink()
        os.mkfifo(target)  # no writer: an open that waited would hang this test
        with pytest.raises(TransferError, match="not a regular file"):
            engine.import_(embed=False)
        target.unlink()
        with open(target, "wb") as f:
            f.truncate(shared_file.MAX_IMPORT_BYTES + 1)  # sparse: no disk used
        with pytest.raises(TransferError, match="larger than 64 MiB"):
            engine.import_(embed=False)


# ---------------------------------------------------------------- F11: forget, purge, and what export writes


def test_f11_export_leaves_forgotten_memories_out_and_purge_removes_the_text(ws: Path, tmp_path: Path) -> None:
    secret = "prod admin password is Tr0ub4dor&3 do not share"
    with Workspace.open(ws) as engine:  # the real model: the purge must reach the vectors too
        assert engine.vectors is not None
        m = engine.remember(secret, file="billing/invoice.py").memory
        engine.remember(secret + " (really)")  # merged or not, its text must go too
        kept = engine.remember("invoice totals round per line").memory
        team = engine.export().path
        assert "Tr0ub4dor" in team.read_text()
        old_team = team.read_text()
        ids = [x.id for x in engine.store.iter_all() if "Tr0ub4dor" in x.text]
        for mid in ids:
            engine.forget(mid)
        report = engine.export()
        assert "Tr0ub4dor" not in team.read_text() and report.left_out == len(ids)
        assert "Tr0ub4dor" in engine.export(tmp_path / "all.jsonl", include_archived=True).path.read_text()
        nums = [engine.get(mid).num for mid in ids]
    done = cli(ws, "memory", "forget", "--purge", m.id)
    assert done.returncode == 0, done.stderr
    with Workspace.open(ws) as engine:
        for mid in ids[1:]:
            engine.purge(mid)
        assert engine.vectors is not None
        assert not set(nums) & {n for n, _ in engine.vectors.query(engine.embedder.embed_query(secret), 10)}
        assert engine.store.vectors_for(engine.embedder.model_id, nums) == {}
        found = engine.search("Tr0ub4dor password", statuses=STATUSES)  # every status: a purged text is nowhere
        assert not {h.memory.id for h in found.memories} & set(ids)
        assert "Tr0ub4dor" not in (found.closest_summary() or "")
        assert kept.id in {h.memory.id for h in engine.search("invoice totals round").memories}
        purged = engine.get(m.id)
        assert (purged.text, purged.status, purged.status_reason) == ("", "archived", "purged")
        assert [e.kind for e in engine.store.events(m.id)][-1] == "purged"
        assert all("Tr0ub4dor" not in json.dumps(e.detail) for e in engine.store.events(m.id))
        with pytest.raises(Exception, match="purged"):
            engine.restore(m.id)
        assert engine.export(include_archived=True).left_out == len(ids)
        # the old team file still holds it: importing that does not bring it back
        stale = write(tmp_path / "old.jsonl", *(json.loads(line) for line in old_team.splitlines()[1:]))
        report = engine.import_(stale, embed=False)
        assert report.skipped == len(ids) and engine.get(m.id).text == ""
        engine.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db = paths.workspace_dir(ws.resolve()) / "memory.db"
    for f in (db, db.with_name("memory.db-wal"), *db.parent.glob("vectors*")):
        if f.exists():
            assert b"Tr0ub4dor" not in f.read_bytes(), f


# ---------------------------------------------------------------- F12: export writes inside the real workspace


def test_f12_export_refuses_a_symlinked_forewarn_folder_and_odd_targets(ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / ".forewarn").symlink_to(outside)
    with Workspace.open(ws, embedder=None) as engine:
        engine.remember("a secret-ish lesson")
        with pytest.raises(TransferError, match="symbolic link or not a folder"):
            engine.export()
        assert list(outside.iterdir()) == []
        (ws / ".forewarn").unlink()
        (ws / ".forewarn").mkdir()
        target = engine.default_export_path()
        target.symlink_to(outside / "stolen.jsonl")
        with pytest.raises(TransferError, match="symbolic link"):
            engine.export()
        target.unlink()
        os.mkfifo(target)
        with pytest.raises(TransferError, match="not a regular file"):
            engine.export()
        target.unlink()
        assert engine.export().exported == 1 and target.is_file() and not target.is_symlink()
    done = cli(ws, "memory", "export", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["exported"] == 1
    assert list(outside.iterdir()) == [] and not list(ws.joinpath(".forewarn").glob(".*tmp*"))


# ---------------------------------------------------------------- property: export → import round-trips


EARLIEST_S = 0.0
NOW_S = time.time()
stored_texts = st.text(st.characters(codec="utf-8"), min_size=1, max_size=300).map(
    lambda t: redact(clean_memory_text(t))[0]
)
stored_times = st.floats(EARLIEST_S, NOW_S, allow_nan=False).map(to_iso)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Workspace, Workspace, Path]]:
    home = tmp_path_factory.mktemp("prop-home")
    old = os.environ.get(paths.HOME_ENV)
    os.environ[paths.HOME_ENV] = str(home)  # module-scoped: the per-test home fixture would be too late
    base = tmp_path_factory.mktemp("prop")
    src = Workspace.open(make_ws(base / "src"), embedder=None)
    dst = Workspace.open(make_ws(base / "dst"), embedder=None)
    yield src, dst, base / "shared.jsonl"
    src.close()
    dst.close()
    if old is None:
        os.environ.pop(paths.HOME_ENV, None)
    else:
        os.environ[paths.HOME_ENV] = old


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=stored_texts, created=stored_times, updated=stored_times)
def test_export_import_round_trips_any_stored_text_and_time(
    pair: tuple[Workspace, Workspace, Path], text: str, created: str, updated: str
) -> None:
    if not text.strip() or len(text) > 20_000:
        return  # remember refuses these: the store never holds them
    src, dst, shared = pair
    m = Memory(
        id=new_id(), type="note", text=text, anchor=None, source="user", confidence=1.0,  # type: ignore[arg-type]
        created_at=created, updated_at=updated,
    )  # fmt: skip
    src.store.insert(m)
    src.export(shared)
    dst.import_(shared, embed=False)
    got = dst.get(m.id)
    assert (got.text, got.created_at, got.updated_at) == (text, created, updated)
