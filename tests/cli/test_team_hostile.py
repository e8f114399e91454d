"""Sharing memories through git with a hostile repository or teammate (red-team review 2, R1, R2, R10; D21).

A clone may ship ``.gitattributes`` as a symbolic link (``forewarn init`` must not write through it), a
branch may route source files to the merge driver (it must leave them as git's ordinary conflict) or
rewrite a memory's history events (a merge must keep both versions), and two teammates may replace the
same memory (one visible conflict, not two silent replacements).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from forewarn.memory import merging
from forewarn.memory.vocabulary import MemoryStatus
from forewarn.workspace.engine import Workspace
from tests.cli.conftest import Forewarn
from tests.cli.test_team import SHARED, clone, git, records

BILLING = "def finalize(invoice):\n    total = invoice.total()\n    charge(total)\n    save(invoice)\n"


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """A bare repository holding billing.py, and a seed clone of it."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    seed = clone(origin, tmp_path / "seed", "seed dev")
    (seed / "billing.py").write_text(BILLING, encoding="utf-8")
    git(seed, "checkout", "-q", "-b", "main")
    git(seed, "add", ".")
    git(seed, "commit", "-q", "-m", "billing")
    git(seed, "push", "-q", "origin", "main")
    return origin


# ---------------------------------------------------------------- R1: init never writes through a link


@pytest.mark.parametrize("dangling", [False, True], ids=["to-an-existing-file", "dangling"])
def test_init_refuses_a_symlinked_gitattributes_and_writes_nothing_outside(
    tmp_path: Path, forewarn: Forewarn, dangling: bool
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    rc = home / ".bashrc"
    if not dangling:
        rc.write_text('export PS1="$ "\n', encoding="utf-8")
    hostile = tmp_path / "hostile"
    git(tmp_path, "init", "-q", "-b", "main", str(hostile))
    os.symlink("../.bashrc", hostile / ".gitattributes")  # in a clone made in $HOME: the victim's shell rc
    (hostile / "app.py").write_text("def f():\n    pass\n", encoding="utf-8")
    git(hostile, "-c", "user.name=M", "-c", "user.email=m@x.invalid", "add", "-A")
    git(hostile, "-c", "user.name=M", "-c", "user.email=m@x.invalid", "commit", "-q", "-m", "init")
    repo = clone(hostile, home / "repo", "victim")
    assert (repo / ".gitattributes").is_symlink()

    done = forewarn("init", "-w", str(repo))
    assert done.returncode == 1, done.stdout + done.stderr
    assert ".gitattributes is a symbolic link (to ../.bashrc)" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert rc.exists() == (not dangling)  # a dangling link's target is not created
    if not dangling:
        assert rc.read_text(encoding="utf-8") == 'export PS1="$ "\n'
    assert git(repo, "config", "--local", "--get", "merge.forewarn.driver", check=False).stdout == ""

    # the link replaced by a regular file (what the message says to do): init works, in place
    (repo / ".gitattributes").unlink()
    (repo / ".gitattributes").write_text("*.png binary\n", encoding="utf-8")
    os.chmod(repo / ".gitattributes", 0o640)
    done = forewarn("init", "-w", str(repo))
    assert done.returncode == 0, done.stderr
    assert (repo / ".gitattributes").read_text(
        encoding="utf-8"
    ) == "*.png binary\n.forewarn/memories.jsonl merge=forewarn\n"
    assert (repo / ".gitattributes").stat().st_mode & 0o777 == 0o640  # the file's own permissions are kept


def test_init_refuses_a_symlinked_git_config(tmp_path: Path, forewarn: Forewarn) -> None:
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    elsewhere = tmp_path / "elsewhere.config"
    (repo / ".git" / "config").rename(elsewhere)
    os.symlink(elsewhere, repo / ".git" / "config")
    before = elsewhere.read_bytes()
    done = forewarn("init", "-w", str(repo))
    assert done.returncode == 1 and "config is a symbolic link" in done.stderr, done.stderr
    assert elsewhere.read_bytes() == before and not (repo / ".gitattributes").exists()


# ---------------------------------------------------------------- R2: only memories files are merged


def _conflicting_billing_branches(work: Path) -> bytes:
    """Two branches that change ``finalize`` differently (a real conflict); main checked out; main's bytes."""
    git(work, "checkout", "-q", "-b", "alice")
    (work / "billing.py").write_text(BILLING.replace("    charge(total)", "    log(total)\n    charge(total)"))
    git(work, "commit", "-q", "-am", "alice: log the payment")
    git(work, "checkout", "-q", "main")
    (work / "billing.py").write_text(BILLING.replace("    charge(total)", "    audit(total)\n    charge(total)"))
    git(work, "commit", "-q", "-am", "bob: audit the payment")
    return (work / "billing.py").read_bytes()


@pytest.mark.parametrize("registration", ["current", "before %P"])
def test_merge_driver_leaves_source_files_routed_to_it_as_an_ordinary_conflict(
    origin: Path, tmp_path: Path, forewarn: Forewarn, registration: str
) -> None:
    work = clone(origin, tmp_path / "work", "bob")
    assert forewarn("init", "-w", str(work)).returncode == 0
    if registration != "current":  # a clone set up by an older Forewarn: git passes three files, no path
        driver = git(work, "config", "--get", "merge.forewarn.driver").stdout.strip()
        git(work, "config", "merge.forewarn.driver", driver.removesuffix(" %P"))
    with open(work / ".gitattributes", "a", encoding="utf-8") as fh:
        fh.write("*.py merge=forewarn\n")  # what a hostile branch adds ("gitattributes: normalise")
    git(work, "add", ".gitattributes")
    git(work, "commit", "-q", "-m", "gitattributes: normalise")
    ours = _conflicting_billing_branches(work)

    merged = git(work, "merge", "--no-edit", "alice", check=False)
    assert merged.returncode != 0, merged.stdout + merged.stderr
    assert "CONFLICT (content): Merge conflict in billing.py" in merged.stdout
    assert git(work, "diff", "--name-only", "--diff-filter=U").stdout.split() == ["billing.py"]
    assert (work / "billing.py").read_bytes() == ours  # untouched: no sorted, deduplicated lines
    assert "log(total)" in git(work, "show", ":3:billing.py").stdout  # theirs is there for the person merging
    reason = next(line for line in merged.stderr.splitlines() if line.startswith("forewarn merge-driver:"))
    assert "is not a Forewarn memories file" in reason and "left it untouched" in reason
    if registration == "current":
        assert reason.startswith("forewarn merge-driver: billing.py is not a Forewarn memories file")


def test_merge_driver_refuses_a_side_without_header_or_with_a_line_that_is_not_json(
    tmp_path: Path, forewarn: Forewarn
) -> None:
    header = b'{"format": "forewarn-memories", "version": 1}\n'
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_bytes(b"")
    for bad, why in (
        (b"def f():\n    return 1\n", "its first line is not a Forewarn header"),
        (b'{"some": "json"}\n' + header, "its first line is not a Forewarn header"),
        (header + b"def f():\n", "line 2 is not JSON"),
    ):
        ours.write_bytes(header)
        theirs.write_bytes(bad)
        done = forewarn("merge-driver", str(base), str(ours), str(theirs), ".forewarn/memories.jsonl")
        assert done.returncode == 1 and f"theirs is not a Forewarn memories file ({why})" in done.stderr
        assert ours.read_bytes() == header


# ---------------------------------------------------------------- R10: a merge never rewrites history


def test_a_branch_rewriting_an_event_keeps_both_versions_through_a_real_merge(
    origin: Path, tmp_path: Path, forewarn: Forewarn
) -> None:
    work = clone(origin, tmp_path / "work", "alice")
    assert forewarn("init", "-w", str(work)).returncode == 0
    with Workspace.open(work, embedder=None) as ws:
        m = ws.remember("finalize is not idempotent: pass an idempotency key", file="billing.py").memory
        ws.export()
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "team memories")
    original = records(work / SHARED)[m.id]["events"][0]

    git(work, "checkout", "-q", "-b", "hostile")
    lines = (work / SHARED).read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[1])
    forged = {**original, "at": "1970-01-01T00:00:00.000000Z", "detail": {"note": "written by the security team"}}
    rec["events"] = [forged]
    (work / SHARED).write_text("\n".join([lines[0], json.dumps(rec, sort_keys=True)]) + "\n", encoding="utf-8")
    git(work, "commit", "-q", "-am", "memories: refresh")
    git(work, "checkout", "-q", "main")
    with Workspace.open(work, embedder=None) as ws:
        ws.mark_stale(m.id, "the code moved")
        ws.export()
    git(work, "commit", "-q", "-am", "memories: doubt")

    merged = git(work, "merge", "--no-edit", "hostile", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "1 rewritten event(s) kept beside the original" in merged.stderr
    events = records(work / SHARED)[m.id]["events"]
    by_id = {e["id"]: e for e in events}
    assert by_id[original["id"]] == original  # the base's version keeps its id
    rivals = [e for e in events if e["id"].startswith(merging.RIVAL_EVENT_PREFIX)]
    assert [(e["at"], e["detail"]) for e in rivals] == [(forged["at"], forged["detail"])]

    # whichever side is which, the same bytes
    a = git(work, "show", f"HEAD^1:{SHARED}").stdout.encode()
    b = git(work, "show", f"HEAD^2:{SHARED}").stdout.encode()
    base = git(work, "show", f"{git(work, 'merge-base', 'HEAD^1', 'HEAD^2').stdout.strip()}:{SHARED}").stdout.encode()
    assert merging.merge_exports(base, a, b)[0] == merging.merge_exports(base, b, a)[0] == (work / SHARED).read_bytes()


# ---------------------------------------------------------------- D21: two teammates replace one memory


def test_two_teammates_superseding_one_memory_leave_one_visible_conflict(
    origin: Path, tmp_path: Path, forewarn: Forewarn
) -> None:
    seed = tmp_path / "seed"
    assert forewarn("init", "-w", str(seed)).returncode == 0
    with Workspace.open(seed, embedder=None) as ws:
        old = ws.remember("finalize retries up to 3 times", file="billing.py").memory
        ws.export()
    git(seed, "add", ".")
    git(seed, "commit", "-q", "-m", "memories")
    git(seed, "push", "-q", "origin", "main")
    replacements = {}
    for who in ("ann", "ben"):
        work = clone(origin, tmp_path / who, who)
        git(work, "checkout", "-q", "-b", who)
        with Workspace.open(work, embedder=None) as ws:
            ws.import_(embed=False, accept=True)  # each teammate took the memory on before correcting it
            replacements[who] = ws.supersede(old.id, f"finalize retries up to {5 if who == 'ann' else 7} times").id
            ws.export(include_archived=True)
        git(work, "commit", "-q", "-am", f"{who}: corrected the retry count")
        git(work, "push", "-q", "origin", who)

    ann = tmp_path / "ann"
    assert forewarn("init", "-w", str(ann)).returncode == 0
    git(ann, "fetch", "-q", "origin")
    merged = git(ann, "merge", "--no-edit", "origin/ben", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    a, b = sorted(replacements.values())
    assert f"memory {old.id} was replaced on both sides, by {a} and by {b}" in merged.stderr

    # a new teammate's import and ann's own, accepted: one contested pair, no second silent replacement
    reader = clone(origin, tmp_path / "reader", "reader")
    (reader / ".forewarn").mkdir(exist_ok=True)
    (reader / SHARED).write_bytes((ann / SHARED).read_bytes())
    for where in (reader, ann):
        with Workspace.open(where, embedder=None) as ws:
            report = ws.import_(embed=False, accept=True)
            current = [x for x in ws.store.iter_all() if x.supersedes == old.id]
            assert sorted(x.id for x in current) == [a, b]
            assert {x.status for x in current} == {MemoryStatus.CONTESTED}, where
            assert {k: [o.id for o in v] for k, v in ws.contested_with([a, b]).items()} == {a: [b], b: [a]}
            if where == ann:  # ann's own replacement was active here until the merge brought ben's
                assert sorted(c.id for c in report.changes if c.action == "contested") == [a, b]
    listed = forewarn("memory", "list", "-w", str(reader)).stdout
    assert listed.count("[contested]") == 2 and "up to 3 times" not in listed
    # settled by a person, it stays settled through the next import of the same file
    with Workspace.open(reader, embedder=None) as ws:
        ws.resolve_conflict(a, b, "replace")
        ws.import_(embed=False)
        assert ws.get(a).status == MemoryStatus.ACTIVE and ws.get(b).status == MemoryStatus.SUPERSEDED
