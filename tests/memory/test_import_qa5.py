"""QA pass 5, F5 / F15 / F16: a teammate's shared file beside this workspace's own mining, a file a Windows editor
touched or a newer Forewarn wrote, and what a proposal from a round trip changes.

Two clones of one real git repository: the teammate mines, accepts and exports; the reader mines and imports
(either order), through the real ``forewarn`` command and a real SQLite store.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from forewarn import paths
from forewarn.memory.text import iso_of
from tests.gitrepo import ENV, Repo

CLI = [sys.executable, "-m", "forewarn.cli.main"]
FIX = (
    "Fix rounding of invoice totals\n\n"
    "Rounding each line before summing would lose cents on long invoices because the error adds up."
)


def cli(root: Path, *argv: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if home is not None:
        env[paths.HOME_ENV] = str(home)
    return subprocess.run([*CLI, *argv, "-w", str(root)], capture_output=True, text=True, timeout=300, env=env)


def ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The team's repository: one explained fix of ``total``."""
    repo = Repo(tmp_path_factory.mktemp("origin") / "repo")
    repo.write("billing/__init__.py", "")
    repo.write("billing/invoice.py", "def total(lines):\n    return sum(round(x, 2) for x in lines)\n")
    repo.commit("first")
    repo.write("billing/invoice.py", "def total(lines):\n    return round(sum(lines), 2)\n")
    repo.commit(FIX)
    return repo.root


def clone(origin: Path, where: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(origin), str(where)], env=ENV, check=True, capture_output=True)
    (where / ".forewarn").mkdir(exist_ok=True)
    (where / ".forewarn" / "config.toml").write_text("[embedder]\nenabled = false\n")
    return where


@pytest.fixture(scope="module")
def teammate_file(origin: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The teammate mined the history, accepted what it proposed and exported it (their own Forewarn home)."""
    base = tmp_path_factory.mktemp("teammate")
    home, root = base / "home", clone(origin, base / "clone")
    ok(cli(root, "mine", "--all", home=home))
    ok(cli(root, "memory", "review", "--accept-all", home=home))
    ok(cli(root, "memory", "export", home=home))
    shared = base / "shared.jsonl"
    shared.write_bytes((root / ".forewarn" / "memories.jsonl").read_bytes())
    assert any('"fingerprint": "fix:' in line for line in shared.read_text().splitlines())
    return shared


def without_fingerprints(shared: Path, to: Path) -> Path:
    """The same file as an older Forewarn wrote it: the lesson and its anchor, no mining fingerprint."""
    lines = []
    for line in shared.read_text().splitlines():
        data = json.loads(line)
        for e in data.get("events", []):
            e.get("detail", {}).pop("fingerprint", None)
        (data.get("provenance") or {}).pop("merged", None)
        lines.append(json.dumps(data))
    to.write_text("\n".join(lines) + "\n")
    return to


def queue(root: Path) -> list[dict[str, Any]]:
    return list(json.loads(ok(cli(root, "memory", "review", "--json")))["suggestions"])


@pytest.mark.parametrize("fingerprints", [True, False], ids=["fingerprint", "same-text"])
@pytest.mark.parametrize("order", ["mine-then-import", "import-then-mine"])
def test_mining_and_a_teammates_file_give_one_suggestion_per_lesson(
    origin: Path, teammate_file: Path, tmp_path: Path, order: str, fingerprints: bool
) -> None:
    """F5: the teammate's accepted copy and this history's mining are the same lesson: one suggestion, saying both
    where it came from and that the teammate accepted it."""
    root = clone(origin, tmp_path / "reader")
    shared = teammate_file if fingerprints else without_fingerprints(teammate_file, tmp_path / "old.jsonl")
    theirs = [json.loads(line) for line in shared.read_text().splitlines()[1:]]
    steps = [("mine", "--all"), ("memory", "import", str(shared))]
    for step in steps if order == "mine-then-import" else steps[::-1]:
        ok(cli(root, *step))
    waiting = queue(root)
    places = [(s["anchor"]["file"], s["anchor"]["symbol"]) for s in waiting]
    assert len(places) == len(set(places)) == len(theirs), waiting
    (one,) = [s for s in waiting if s["anchor"]["symbol"] == "total"]
    prov = one["provenance"]
    if order == "mine-then-import":  # ours is kept, mined here; the teammate's copy and their accept beside it
        assert one["origin"]["kind"] == "commit" and prov["shared_copy"]["id"] == theirs[0]["id"]
        assert prov["shared_copy"]["status"] == "active"
        assert any("also in" in n and "a teammate accepted it" in n for n in one["shared_notes"])
    else:  # theirs is kept, from the shared file; this history's mining found it too
        assert one["id"] == theirs[0]["id"] and one["origin"]["kind"] == "imported"
        assert "mined_here" in prov and "mined from this history too" in one["shared_notes"]
        assert any("a teammate accepted it" in n for n in one["shared_notes"])
    # again, both ways: nothing new
    ok(cli(root, "mine", "--all"))
    ok(cli(root, "memory", "import", str(shared)))
    assert [s["id"] for s in queue(root)] == [s["id"] for s in waiting]


def test_mine_then_import_with_accept_accepts_the_one_lesson(origin: Path, teammate_file: Path, tmp_path: Path) -> None:
    """F5 with ``import --accept``: the file is taken as it is, so the lesson mined here becomes active, once."""
    root = clone(origin, tmp_path / "reader")
    ok(cli(root, "mine", "--all"))
    ok(cli(root, "memory", "import", "--accept", str(teammate_file)))
    assert queue(root) == []
    listed = json.loads(ok(cli(root, "memory", "list", "--json")))
    rows = listed["memories"] if isinstance(listed, dict) else listed
    assert [m["anchor"]["symbol"] for m in rows] == ["total"]


def test_a_shared_file_with_a_byte_order_mark_imports(origin: Path, teammate_file: Path, tmp_path: Path) -> None:
    """F15: a file a Windows editor saved (BOM, CRLF) is read like any other."""
    root = clone(origin, tmp_path / "reader")
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + teammate_file.read_bytes().replace(b"\n", b"\r\n"))
    out = ok(cli(root, "memory", "import", str(bom)))
    assert "1 added" in out and len(queue(root)) == 1


@pytest.mark.parametrize("skip_invalid", [False, True])
def test_a_format_version_this_forewarn_cannot_read_stops_the_import(
    origin: Path, teammate_file: Path, tmp_path: Path, skip_invalid: bool
) -> None:
    """F15: ``--skip-invalid`` skips bad lines of a file it can read, never the version check of one it cannot."""
    root = clone(origin, tmp_path / "reader")
    lines = teammate_file.read_text().splitlines()
    newer = tmp_path / "v99.jsonl"
    newer.write_bytes(("\ufeff" + "\n".join([json.dumps({"format": "forewarn-memories", "version": 99}), *lines[1:]]))
                      .encode())  # fmt: skip
    done = cli(root, "memory", "import", *(["--skip-invalid"] if skip_invalid else []), str(newer))
    assert done.returncode != 0
    assert "not a Forewarn memory export of a version this Forewarn reads" in done.stderr
    assert "nothing was imported" in done.stderr and queue(root) == []


def test_a_round_trip_proposal_says_what_accepting_it_changes(
    origin: Path, teammate_file: Path, tmp_path: Path
) -> None:
    """F16: a teammate's newer copy that changes only times and counts says so, waits last and is not worth a
    look; one that supersedes ours says "status active → superseded", in review, review --json and show."""
    root = clone(origin, tmp_path / "reader")
    ok(cli(root, "memory", "import", "--accept", str(teammate_file)))
    header, ours = (json.loads(line) for line in teammate_file.read_text().splitlines())
    later, latest = (iso_of(datetime.now(UTC) + timedelta(hours=h)) for h in (1, 2))  # newer, within the skew
    touched = dict(ours, updated_at=later, access_count=ours.get("access_count", 0) + 3)
    back = tmp_path / "back.jsonl"
    back.write_text("\n".join(json.dumps(r) for r in (header, touched)) + "\n")
    ok(cli(root, "memory", "import", str(back)))
    (proposal,) = queue(root)
    assert proposal["replaces"] == ours["id"] and proposal["proposal"]["bookkeeping_only"] is True
    assert proposal["proposal"]["changes"] == [] and "times and counts only" in proposal["proposal"]["summary"]
    review = ok(cli(root, "memory", "review"))
    assert f"accepting it changes memory {ours['id']}: times and counts only" in review
    assert "0 worth a look" in review
    show = ok(cli(root, "memory", "show", proposal["id"]))
    assert "Proposal:" in show and "times and counts only" in show

    replacement = "01JZZZZZZZZZZZZZZZZZZZZZ01"
    new = dict(ours, id=replacement, text="Round the sum once, never each line: cents are lost", events=[],
               supersedes=ours["id"], created_at=later, updated_at=latest)  # fmt: skip
    ended = dict(ours, status="superseded", superseded_by=replacement, updated_at=latest,
                 ended_at=latest)  # fmt: skip
    back.write_text("\n".join(json.dumps(r) for r in (header, ended, new)) + "\n")
    ok(cli(root, "memory", "import", str(back)))
    waiting = queue(root)
    assert waiting[-1]["id"] == proposal["id"]  # the bookkeeping-only one ranks last
    (supersede,) = [s for s in waiting if s["proposal"] and not s["proposal"]["bookkeeping_only"]]
    assert {"field": "status", "from": "active", "to": "superseded"} in supersede["proposal"]["changes"]
    assert {"field": "superseded_by", "from": "-", "to": replacement} in supersede["proposal"]["changes"]
    review = ok(cli(root, "memory", "review"))
    assert "status active → superseded; superseded by " + replacement in review
    shown = json.loads(ok(cli(root, "memory", "show", "--json", supersede["id"])))
    assert shown["replaces"] == ours["id"] and shown["proposal"]["summary"].startswith("accepting it changes")
    # accepting "theirs replaces mine" accepts the replacement too: the lesson keeps a vetted memory
    ok(cli(root, "memory", "review", "accept", supersede["id"]))
    listed = json.loads(ok(cli(root, "memory", "list", "--json")))
    assert [m["id"] for m in listed if m["anchor"] and m["anchor"]["symbol"] == ours["anchor"]["symbol"]] == [
        replacement
    ]


def test_accepting_a_times_and_counts_update_keeps_the_memorys_origin(
    origin: Path, teammate_file: Path, tmp_path: Path
) -> None:
    """The recheck of F16: accepting a copy that changes only times and counts rewrote the memory's origin to the
    second shared file's ("learned from commit … by …" became "imported from back.jsonl; it says …")."""
    root = clone(origin, tmp_path / "reader")
    ok(cli(root, "memory", "import", "--accept", str(teammate_file)))
    header, ours = (json.loads(line) for line in teammate_file.read_text().splitlines())
    before = json.loads(ok(cli(root, "memory", "show", "--json", ours["id"])))
    later = iso_of(datetime.now(UTC) + timedelta(hours=1))
    back = tmp_path / "back.jsonl"
    touched = dict(ours, updated_at=later, access_count=ours.get("access_count", 0) + 3)
    back.write_text("\n".join(json.dumps(r) for r in (header, touched)) + "\n")
    ok(cli(root, "memory", "import", str(back)))
    (proposal,) = queue(root)
    ok(cli(root, "memory", "review", "accept", proposal["id"]))
    after = json.loads(ok(cli(root, "memory", "show", "--json", ours["id"])))
    assert after["origin"] == before["origin"] and after["status"] == "active"
