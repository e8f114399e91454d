"""Sharing memories through git: `forewarn init`, the merge driver under real `git merge`, `memory diff`.

Ten branches (each its own clone, its own memory database, its own git identity) add, supersede, forget
and edit memories, export and commit; a clone with the registered driver merges them in several orders.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from forewarn.memory import transfer
from forewarn.memory.suggestions import Suggestion
from forewarn.memory.vocabulary import MemorySource, MemoryType
from forewarn.workspace.engine import Workspace
from tests.cli.conftest import CLI_TIMEOUT_S, Forewarn, plain_env

BRANCHES = 10
BASE_MEMORIES = 30
ADDS_PER_BRANCH = 5
ORDERS = 3  # merge orders tried (seeded shuffles); the results must be byte-identical
SHARED = ".forewarn/memories.jsonl"
MARKER_RE = re.compile(r"^(<{7}|={7}|>{7}|\|{7})", re.M)
HOT = 1  # the base memory every branch edits (0 and 2-9 are superseded, 10-19 forgotten)
VENV_BIN = str(Path(sys.executable).parent)


def git_env() -> dict[str, str]:
    # PATH finds this venv's forewarn first, as a developer's shell would; no global git config leaks in
    return plain_env(PATH=VENV_BIN + os.pathsep + os.environ.get("PATH", ""), GIT_CONFIG_GLOBAL=os.devnull)


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["git", *args], cwd=cwd, env=git_env(), capture_output=True, text=True, timeout=CLI_TIMEOUT_S)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stdout}{done.stderr}")
    return done


def clone(origin: Path, dest: Path, who: str) -> Path:
    git(origin.parent, "clone", "-q", str(origin), str(dest))
    git(dest, "config", "user.name", who)
    git(dest, "config", "user.email", f"{who.replace(' ', '.')}@example.invalid")
    return dest


def version(r: dict[str, Any]) -> tuple[Any, ...]:
    """What tells two versions of one memory apart (a record, or the fields a history event keeps)."""
    return (r.get("text"), r.get("status"), r.get("updated_at"))


def records(path: Path) -> dict[str, dict[str, Any]]:
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    return {r["id"]: r for r in lines if "id" in r}


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    seed = clone(origin, tmp_path / "seed", "seed dev")
    (seed / "pkg").mkdir()
    for i in range(5):
        (seed / "pkg" / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n", encoding="utf-8")
    git(seed, "checkout", "-q", "-b", "main")
    with Workspace.open(seed, embedder=None) as ws:
        for i in range(BASE_MEMORIES):
            ws.remember(f"base lesson {i}: the zebracorn{i} cache must be warmed", file=f"pkg/m{i % 5}.py")
        ws.export(include_archived=True)
    git(seed, "add", ".")
    git(seed, "commit", "-q", "-m", "base memories")
    git(seed, "push", "-q", "origin", "main")
    return origin


def branch_work(origin: Path, tmp: Path, k: int, base_ids: list[str]) -> dict[str, int]:
    """One developer's branch: adds, one private note, a supersede, a forget and edits; ≥ 10 operations."""
    work = clone(origin, tmp / f"dev{k}", f"dev {k}")
    git(work, "checkout", "-q", "-b", f"b{k}")
    ops = {"add": 0, "private": 0, "supersede": 0, "forget": 0, "edit": 0}
    with Workspace.open(work, embedder=None) as ws:
        ws.import_(embed=False, accept=True)  # a teammate who takes the team's file as it is
        for j in range(ADDS_PER_BRANCH):
            ws.remember(f"branch {k} finding {j}: quokka{k}x{j} retries are not idempotent", file=f"pkg/m{j}.py")
            ops["add"] += 1
        ws.remember(f"private {k}: halfway through the refactor, do not merge secretword{k}", private=True)
        ops["private"] += 1
        # branches 0 and 1 both supersede memory 0: the same id changed on two sides
        ws.supersede(base_ids[0 if k < 2 else k], f"branch {k} corrects base lesson: warm zebracorn lazily")
        ops["supersede"] += 1
        ws.forget(base_ids[BRANCHES + k])
        ops["forget"] += 1
        ws.mark_stale(base_ids[2 * BRANCHES + (k % 5)], f"branch {k} saw the code move")
        ws.confirm(base_ids[2 * BRANCHES + 5 + (k % 5)])
        # every branch edits the same memory: ten versions of one id
        ws.mark_stale(base_ids[HOT], f"branch {k} doubts it")
        ops["edit"] += 3
        ws.export(include_archived=True)
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", f"branch {k} memories")
    git(work, "push", "-q", "origin", f"b{k}")
    return ops


def test_merge_driver_merges_ten_branches_in_any_order_with_nothing_lost(
    origin: Path, tmp_path: Path, forewarn: Forewarn
) -> None:
    seed = tmp_path / "seed"
    base = records(seed / SHARED)
    base_ids = sorted(base)
    ops: dict[str, int] = {}
    for k in range(BRANCHES):
        for name, n in branch_work(origin, tmp_path, k, base_ids).items():
            ops[name] = ops.get(name, 0) + n
    assert sum(ops.values()) >= 100

    merger = clone(origin, tmp_path / "merger", "merger")
    done = forewarn("init", "-w", str(merger))
    assert done.returncode == 0, done.stderr
    assert forewarn("init", "-w", str(merger)).stdout.startswith("Already set up")  # idempotent
    assert (merger / ".gitattributes").read_text(encoding="utf-8").count("merge=forewarn") == 1
    git(merger, "add", ".gitattributes")
    git(merger, "commit", "-q", "-m", "forewarn init")
    git(merger, "fetch", "-q", "origin")

    # what every branch wrote: its records, as the ground truth of "nothing lost"
    branch_files = {}
    for k in range(BRANCHES):
        show = git(merger, "show", f"origin/b{k}:{SHARED}")
        branch_files[k] = {r["id"]: r for r in map(json.loads, show.stdout.splitlines()) if "id" in r}

    rng = random.Random(15)
    orders = [rng.sample(range(BRANCHES), BRANCHES) for _ in range(ORDERS - 1)] + [list(range(BRANCHES))[::-1]]
    results: list[bytes] = []
    driver_runs = 0
    for n, order in enumerate(orders):
        git(merger, "checkout", "-q", "-B", f"order{n}", "main")
        for k in order:
            merged = git(merger, "merge", "--no-ff", "--no-edit", f"origin/b{k}", check=False)
            assert merged.returncode == 0, merged.stdout + merged.stderr
            driver_runs += merged.stderr.count("forewarn merge-driver:") > 0
        assert git(merger, "diff", "--name-only", "--diff-filter=U").stdout == ""
        results.append((merger / SHARED).read_bytes())

    text = results[0].decode("utf-8")
    assert all(r == results[0] for r in results), "the merge depends on the order"
    assert not MARKER_RE.search(text)
    merged_records = records(merger / SHARED)
    every_id = set(base) | {i for f in branch_files.values() for i in f}
    lost = every_id - set(merged_records)
    every_event = {(i, e["id"]) for f in [base, *branch_files.values()] for i, r in f.items() for e in r["events"]}
    kept_events = {(i, e["id"]) for i, r in merged_records.items() for e in r["events"]}
    versions = {(i, version(r)) for f in branch_files.values() for i, r in f.items()}
    unkept = [
        (i, v)
        for i, v in versions
        if v not in {version(merged_records[i]), version(base.get(i, {}))}
        and not any(
            e["kind"] == transfer.MERGED_EVENT and version(e["detail"]) == v for e in merged_records[i]["events"]
        )
    ]
    hot = merged_records[base_ids[HOT]]
    figures = {
        "branches": BRANCHES,
        "operations": sum(ops.values()),
        **{f"op_{k}": v for k, v in ops.items()},
        "orders": len(orders),
        "merges": len(orders) * BRANCHES,
        "driver_runs": driver_runs,
        "memories_in_result": len(merged_records),
        "ids_written_by_anyone": len(every_id),
        "memories_lost": len(lost),
        "events_written": len(every_event),
        "events_lost": len(every_event - kept_events),
        "versions_not_kept": len(unkept),
        "conflict_markers": len(MARKER_RE.findall(text)),
        "private_in_result": sum(f"secretword{k}" in text for k in range(BRANCHES)),
        "hot_memory_versions_in_history": sum(e["kind"] == transfer.MERGED_EVENT for e in hot["events"]),
        "identical_across_orders": all(r == results[0] for r in results),
    }
    print("\nmerge-driver figures: " + json.dumps(figures))
    assert lost == set() and every_event <= kept_events and unkept == []
    assert figures["private_in_result"] == 0
    assert driver_runs >= BRANCHES  # the driver really ran (not only trivial merges)
    # both supersessions of memory 0 are kept: one as the record, the other in its history
    assert merged_records[base_ids[0]]["status"] == "superseded"
    # the result imports cleanly into a fresh clone
    reader = clone(origin, tmp_path / "reader", "reader")
    (reader / ".forewarn").mkdir(exist_ok=True)
    (reader / SHARED).write_bytes(results[0])
    with Workspace.open(reader, embedder=None) as ws:
        report = ws.import_(embed=False, accept=True)
        assert report.added == len(merged_records) and report.skipped == 0


def test_merge_driver_keeps_unreadable_records_and_refuses_a_newer_format(tmp_path: Path, forewarn: Forewarn) -> None:
    good = {"id": "01J0000000000000000000000A", "type": "gotcha", "text": "keep me", "created_at": "2025-01-01T00:00Z"}
    base = tmp_path / "base"
    ours = tmp_path / "ours"
    theirs = tmp_path / "theirs"
    base.write_text("", encoding="utf-8")
    header = b'{"format": "forewarn-memories", "version": 1}\n'
    ours.write_bytes(header + json.dumps(good).encode() + b"\n")
    theirs.write_bytes(header + b"<<<<<<< HEAD\n" + b'{"id": "bad"}\n')
    done = forewarn("merge-driver", str(base), str(ours), str(theirs))
    assert done.returncode == 0, done.stderr
    out = ours.read_bytes()
    assert b"keep me" in out and b'{"id": "bad"}\n' in out and b"<<<<<<<" not in out
    assert "kept as it is" in done.stderr

    before = ours.read_bytes()
    theirs.write_text('{"format": "forewarn-memories", "version": 99}\n', encoding="utf-8")
    done = forewarn("merge-driver", str(base), str(ours), str(theirs))
    assert done.returncode != 0 and "upgrade Forewarn" in done.stderr
    assert ours.read_bytes() == before  # left for a person, untouched


def test_memory_diff_shows_what_changed_since_a_ref(origin: Path, tmp_path: Path, forewarn: Forewarn) -> None:
    work = clone(origin, tmp_path / "differ", "differ")
    with Workspace.open(work, embedder=None) as ws:
        ws.import_(embed=False, accept=True)  # a teammate who takes the team's file as it is
        ids = sorted(m.id for m in ws.store.iter_all())
        added = ws.remember("a new finding: the ledger rounds half-even", file="pkg/m1.py").memory
        ws.supersede(ids[0], "corrected: warm the zebracorn cache at boot")
        ws.forget(ids[1])
        ws.mark_stale(ids[2], "moved")
        ws.remember("mine only: try the flag", private=True)
        ws.export(include_archived=True)
    done = forewarn("memory", "diff", "HEAD", "-w", str(work), "--json")
    assert done.returncode == 0, done.stderr
    changes = {(c["id"], c["change"]) for c in json.loads(done.stdout)["changes"]}
    assert (added.id, "added") in changes and (ids[0], "superseded") in changes
    assert (ids[1], "forgotten") in changes and (ids[2], "changed") in changes
    assert len(changes) == 5  # the four above and the superseding memory; the private one is not in the file
    text = forewarn("memory", "diff", "HEAD", "-w", str(work)).stdout
    assert "superseded" in text and "1 forgotten" in text
    bad = forewarn("memory", "diff", "no-such-ref", "-w", str(work))
    assert bad.returncode != 0 and "no-such-ref" in bad.stderr


def test_remember_private_shows_a_lock_and_export_keeps_it_out(tmp_path: Path, forewarn: Forewarn) -> None:
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "pkg" / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    made = forewarn("remember", "--private", "halfway through: do not merge yet", "--file", "pkg/a.py", "-w", str(ws))
    assert made.returncode == 0 and "🔒 private" in made.stdout, made.stderr
    forewarn("remember", "the team's lesson about f", "--file", "pkg/a.py", "-w", str(ws))
    listed = forewarn("memory", "list", "-w", str(ws)).stdout
    assert [line.startswith("🔒 ") for line in listed.splitlines() if "  note  " in line].count(True) == 1
    exported = forewarn("memory", "export", "-w", str(ws))
    assert exported.returncode == 0 and "1 private kept out" in exported.stdout
    shared = (ws / SHARED).read_text(encoding="utf-8")
    assert "the team's lesson" in shared and "do not merge yet" not in shared


def test_export_says_by_status_what_it_left_out(tmp_path: Path, forewarn: Forewarn) -> None:
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "pkg" / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    with Workspace.open(ws, embedder=None) as engine:
        engine.reindex()
        engine.remember("the team's lesson about f", file="pkg/a.py")
        gone = engine.remember("an old note nobody needs", file="pkg/a.py").memory
        engine.forget(gone.id)
        engine.add_suggestions([
            Suggestion(f"fix:{i}", MemoryType.GOTCHA, f"f trap number {i}", MemorySource.COMMIT,
                       "2024-03-02T10:00:00Z", "pkg/a.py", "f")
            for i in range(3)
        ])  # fmt: skip
        engine.dismiss_suggestion(engine.suggestions()[0].id)
    done = forewarn("memory", "export", "-w", str(ws))
    assert done.returncode == 0, done.stderr
    assert "(2 suggested, 1 dismissed and 1 forgotten left out)" in done.stdout
    answer = json.loads(forewarn("memory", "export", "--json", "-w", str(ws)).stdout)
    assert answer["left_out"] == 4  # the total stays where scripts read it
    assert answer["left_out_by"] == {"suggested": 2, "dismissed": 1, "proposal": 0, "forgotten": 1, "purged": 0}
    everything = forewarn("memory", "export", "--include-archived", "-w", str(ws))
    assert "(2 suggested and 1 dismissed left out)" in everything.stdout
