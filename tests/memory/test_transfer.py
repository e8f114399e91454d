"""Export/import JSONL: lossless round trip, merge by id (newer wins, the replaced version kept), bad files refused
whole, imported history attributed to the import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forewarn.memory.origin import shared_provenance
from forewarn.memory.shared_file import TransferError, read_jsonl
from forewarn.workspace.engine import Workspace


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def workspace(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    (root / "lib").mkdir(parents=True)
    (root / "lib/io.py").write_text("def read_all(path):\n    return open(path).read()\n", encoding="utf-8")
    return root


def everything(engine: Workspace) -> list[dict[str, object]]:
    """Every field of every memory, with its events; where a memory was imported from is this machine's own
    record (``provenance["imported"]``), checked apart."""
    out = []
    for m in sorted(engine.store.iter_all(), key=lambda m: m.id):
        d = m.to_dict()
        d["provenance"] = shared_provenance(m.provenance)
        d["events"] = [e.to_dict() for e in engine.store.events(m.id)]
        out.append(d)
    return out


def test_round_trip_is_lossless(tmp_path: Path) -> None:
    clock = Clock()
    with Workspace.open(workspace(tmp_path, "a"), embedder=None, clock=clock) as src:
        src.reindex()
        m1 = src.remember(
            "read_all leaks a file handle", type="gotcha", file="lib/io.py", symbol="read_all", tags=["io"]
        )
        clock.now += 10
        src.supersede(m1.memory.id, "read_all leaks a file handle on error only")
        m2 = src.remember("prefer pathlib", type="convention", source="agent").memory
        src.forget(m2.id)
        src.search("file handle")  # access counts and surfacing are part of the record too
        exported = src.export(include_archived=True)
        assert exported.exported == 3
        assert exported.path == src.root / ".forewarn" / "memories.jsonl"
        before = everything(src)
    with Workspace.open(workspace(tmp_path, "b"), embedder=None, clock=clock) as dst:
        report = dst.import_(exported.path, accept=True)  # a file this person trusts: taken as it is
        assert (report.added, report.updated, report.unchanged, report.waiting) == (3, 0, 0, 0)
        after = everything(dst)
        marks = [(m.provenance or {})["imported"] for m in dst.store.iter_all()]
        assert all(
            mark["from"] == str(exported.path) and mark["accepted"] == "memory import --accept" for mark in marks
        )
        # every field as it was; the history arrives attributed to the import, the original inside
        for event in (e for m in before for e in m["events"]):  # type: ignore[attr-defined]
            event["detail"] = {"original_kind": event["kind"], "original_detail": event["detail"]}
            event["kind"] = "imported"
        assert after == before
        again = dst.import_(exported.path, accept=True)  # idempotent
        assert (again.added, again.updated, again.unchanged, again.events_added) == (0, 0, 3, 0)
        assert [h.memory.text for h in dst.search("file handle").memories] == [
            "read_all leaks a file handle on error only"
        ]


def test_merge_by_id_newer_wins_and_histories_unite(tmp_path: Path) -> None:
    clock = Clock()
    with Workspace.open(workspace(tmp_path, "a"), embedder=None, clock=clock) as a:
        m = a.remember("the importer skips hidden files", type="gotcha").memory
        shared = a.export(tmp_path / "shared.jsonl").path
        with Workspace.open(workspace(tmp_path, "b"), embedder=None, clock=clock) as b:
            b.import_(shared, accept=True)
            clock.now += 100
            b.mark_stale(m.id, "importer rewritten")  # b's copy is now newer
            newer = b.export(tmp_path / "from_b.jsonl").path
        clock.now += 100
        a.confirm(m.id)  # ...and then a's copy is newer still, with a different history
        report = a.import_(newer, accept=True)
        assert (report.updated, report.kept_local) == (0, 1)
        assert report.events_added == 1  # b's marked_stale event joins a's history, as b's
        events = a.store.events(m.id)
        assert [e.kind for e in events] == ["created", "imported", "confirmed"]
        assert events[1].detail["original_kind"] == "marked_stale"
        assert a.get(m.id).status == "active"  # a's newer state stands
        with Workspace.open(workspace(tmp_path, "c"), embedder=None, clock=clock) as c:
            c.import_(newer, accept=True)
            c_report = c.import_(a.export(tmp_path / "from_a.jsonl").path, accept=True)
            assert c_report.updated == 1
            assert c.get(m.id).status == "active"
            kinds = [(e.kind, e.detail.get("original_kind")) for e in c.store.events(m.id)]
            # all of it came from files; c's own act was the replacement, which kept the stale version
            assert kinds == [
                ("imported", "created"), ("imported", "marked_stale"), ("imported", "confirmed"),
                ("replaced_by_import", None),
            ]  # fmt: skip
            replaced = c.store.events(m.id)[-1].detail
            assert (replaced["status"], replaced["status_reason"]) == ("stale", "importer rewritten")


def test_bad_file_is_refused_whole_with_line_numbers(tmp_path: Path) -> None:
    with Workspace.open(workspace(tmp_path, "a"), embedder=None) as a:
        a.remember("one", type="gotcha")
        a.remember("two", type="gotcha")
        path = a.export().path
    lines = path.read_text(encoding="utf-8").splitlines()
    broken = json.loads(lines[2])
    broken["type"] = "rumour"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], lines[1], json.dumps(broken), "{not json", ""]), encoding="utf-8")
    with Workspace.open(workspace(tmp_path, "b"), embedder=None) as b:
        with pytest.raises(
            TransferError,
            match=r"2 bad line\(s\); nothing was imported.*: line 3: type: unknown memory type 'rumour'"
            r".*line 4: not JSON",
        ):
            b.import_(bad)
        assert b.store.count() == 0
        with pytest.raises(TransferError, match="does not exist"):
            b.import_(tmp_path / "missing.jsonl")


def test_imported_secrets_and_escaping_paths_are_handled(tmp_path: Path) -> None:
    with Workspace.open(workspace(tmp_path, "a"), embedder=None) as a:
        a.remember("plain", type="note")
        path = a.export().path
    record = json.loads(path.read_text(encoding="utf-8").splitlines()[1])
    record["text"] = "old key AKIAIOSFODNN7EXAMPLE in the runbook"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    (memory,) = (r.memory for r in read_jsonl(path)[0])
    with Workspace.open(workspace(tmp_path, "b"), embedder=None) as b:
        report = b.import_(path)
        assert report.redacted == 1
        assert b.get(memory.id).text == "old key [REDACTED:aws-access-key] in the runbook"
    record["anchor"] = {"file": "../../etc/passwd"}
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(TransferError, match="inside the workspace"):
        read_jsonl(path)
