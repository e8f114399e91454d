"""Reading history that an attacker wrote (red-team R6, R8): every repository here is built by the test, from the
recipes of ``shared/security/kit2`` (``mkrepo.py`` commit 3, ``mine_odd_messages.sh``, ``mine_bigblob.sh``)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from forewarn.workspace import history
from forewarn.workspace.history import BlobReader
from tests.gitrepo import ENV, Repo

MONEY = "class Money:\n    def __str__(self):\n        return 'x'\n"
INVOICE = "def finalize(invoice, card_token):\n    return invoice\n"
FAKE_SHA = "f" * 40


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "repo")
    r.write("billing/money.py", MONEY)
    r.write("billing/invoice.py", INVOICE)
    r.commit("initial import")
    return r


def forged_record_message(target: str = "billing/money.py", blob: str = "HEAD:billing/money.py") -> str:
    """kit2/mkrepo.py commit 3: separators, then a fake sha, author, date, message and diff lines naming a file."""
    return (
        "Tidy finalize imports\n\nsome text\n"
        f"\x1e{FAKE_SHA}\x1f\x1fAlice Smith (security lead)\x1f2030-01-01T00:00:00+00:00\x1f"
        "Fix: money rounding must never use float\n\nWe chose Decimal because float rounding fails.\x1d\n"
        f"diff --git a/{target} b/{target}\nindex 0000000..{blob} 100644\n"
        f"--- a/{target}\n+++ b/{target}\n@@ -1 +1,200 @@\n"
    )


def test_a_message_cannot_forge_a_commit_record(repo: Repo) -> None:
    repo.edit("billing/invoice.py", "card_token):", "card_token):  # noqa")
    sha = repo.commit(forged_record_message(), author="Mallory", verbatim=True)
    commits = list(history.iter_commits(repo.root, ["HEAD"]))
    assert [c.sha for c in commits] == [sha, repo.git("rev-parse", "HEAD~1")]
    forged = commits[0]
    assert forged.author == "Mallory" and forged.date == "2024-01-02T10:00:00Z"
    assert forged.subject == "Tidy finalize imports" and "Alice Smith" in forged.body  # text, not a record
    assert [(f.path, f.blob) for f in forged.files] == [
        ("billing/invoice.py", repo.git("rev-parse", "HEAD:billing/invoice.py"))
    ]
    assert not any(c.sha == FAKE_SHA or c.author.startswith("Alice") for c in commits)


def test_separators_in_an_author_name_and_a_date_in_the_future(repo: Repo) -> None:
    """kit2/mine_odd_messages.sh: an author name holding the old field separator; a date years ahead is now."""
    repo.edit("billing/money.py", "'x'", "'y'")
    name = "Bob\x1fX\x1f2031-01-01T00:00:00+00:00\x1fforged"
    repo.commit("Fix author because it fails otherwise", author=name, date="2031-01-01T00:00:00+00:00")
    before = time.time()
    [top] = list(history.iter_commits(repo.root, ["HEAD"], limit=1))
    assert top.author == name and top.subject == "Fix author because it fails otherwise"
    assert top.clamped_date and before - 60 <= _unix(top.date) <= time.time() + 1
    assert [f.path for f in top.files] == ["billing/money.py"]


def test_odd_messages_are_read_whole_and_bounded(repo: Repo) -> None:
    """A non-UTF-8 message, a 5 MB message, and a NUL byte in a message (written with hash-object: git commit
    refuses one) are each one record with its own fields."""
    repo.edit("billing/money.py", "'x'", "'y'")
    repo.commit(b"Fix money \xff\xfe caf\xe9 because rounding fails\n\nbody \xc3\x28 bytes\n", verbatim=True)
    repo.edit("billing/money.py", "'y'", "'z'")
    repo.commit("Fix giant because it fails otherwise\n\n" + "word fails because " * 300_000, verbatim=True)
    tree = repo.git("rev-parse", "HEAD^{tree}")
    parent = repo.git("rev-parse", "HEAD")
    raw = (
        f"tree {tree}\nparent {parent}\nauthor Eve <e@x> 1700000000 +0000\ncommitter Eve <e@x> 1700000000 +0000\n\n"
        f"Fix nul\x00\x1e{FAKE_SHA}\x1fforged\x1d byte\n"
    ).encode()
    nul = repo.git("hash-object", "-t", "commit", "-w", "--literally", "--stdin", input=raw)
    repo.git("update-ref", "HEAD", nul)
    nul_commit, giant, latin, _first = list(history.iter_commits(repo.root, ["HEAD"]))
    assert nul_commit.sha == nul and nul_commit.author == "Eve" and nul_commit.parents == [parent]
    assert nul_commit.subject == f"Fix nul\ufffd\x1e{FAKE_SHA}\x1fforged\x1d byte"
    assert giant.subject == "Fix giant because it fails otherwise"
    assert len(giant.body.encode()) < history.MAX_COMMIT_BYTES and [f.path for f in giant.files] == ["billing/money.py"]
    assert latin.subject.startswith("Fix money ") and latin.body.startswith("body ")


def test_added_lines_that_look_like_diff_headers_are_content(repo: Repo) -> None:
    """Counted against their hunk header, a removed line reading ``--- a/…`` and an added one reading ``+++ b/…``
    (content "-- a/…" and "++ b/…") forge no file header, and no other content line forges anything."""
    old = ["-- a/billing/money.py", "keep"]
    new = [
        "++ b/billing/money.py",
        "diff --git a/billing/money.py b/billing/money.py",
        "index 0000000..deadbeef 100644",
        "@@ -1 +1,200 @@",
        "rename to billing/money.py",
        "Binary files a/x and b/x differ",
        "keep",
    ]
    repo.write("notes.txt", "\n".join(old) + "\n")
    repo.commit("Add notes")
    repo.write("notes.txt", "\n".join(new) + "\n")
    repo.commit("Rewrite notes")
    [top] = list(history.iter_commits(repo.root, ["HEAD"], limit=1))
    assert [(f.path, f.old_path) for f in top.files] == [("notes.txt", "notes.txt")]
    assert top.files[0].hunks == [history.Hunk(1, len(new) - 1, 1 + len(new) - 1, (old[0],), tuple(new[:-1]))]
    assert top.files[0].blob == repo.git("rev-parse", "HEAD:notes.txt")
    assert top.binary_files == 0


def test_a_hunks_lines_are_kept_bounded_across_a_no_newline_marker(repo: Repo) -> None:
    """The text of removed and added lines is kept (what mining weighs as logic), each line cut at LINE_CHARS_KEPT,
    at most HUNK_LINES_KEPT per side; git's "\\ No newline at end of file" between them is no content."""
    repo.write("a.py", "x = 1")
    repo.commit("Add a")
    long_line = "y = '" + "z" * (history.LINE_CHARS_KEPT * 2) + "'"
    repo.write("a.py", "x = 2\n" + long_line + "\n" + "w = 0\n" * (history.HUNK_LINES_KEPT + 10))
    repo.commit("Change a")
    [top] = list(history.iter_commits(repo.root, ["HEAD"], limit=1))
    [hunk] = top.files[0].hunks
    assert hunk.removed == ("x = 1",)
    assert hunk.added[:2] == ("x = 2", long_line[: history.LINE_CHARS_KEPT])
    assert len(hunk.added) == history.HUNK_LINES_KEPT and hunk.changed == 1 + history.HUNK_LINES_KEPT + 12


def test_only_object_ids_reach_cat_file(repo: Repo) -> None:
    with BlobReader(repo.root) as blobs:
        assert blobs.read("HEAD:billing/money.py", max_bytes=1 << 20) is None  # a revision, not an id
        assert blobs.read(repo.git("rev-parse", "HEAD"), max_bytes=1 << 20) is None  # a commit, not a blob
        assert blobs.read("0" * 40, max_bytes=1 << 20) is None  # missing
        assert blobs.read(repo.git("rev-parse", "HEAD:billing/money.py"), max_bytes=1 << 20) == MONEY.encode()


def test_a_blob_over_the_cap_is_never_read(repo: Repo) -> None:
    """R8: the size is asked first; a 64 MB blob under a 1 MB cap costs the reading process nothing."""
    size = 64 << 20
    blob = repo.git("hash-object", "-w", "--stdin", input=b"\0" * size)
    probe = (
        "import json, resource, sys\n"
        "from pathlib import Path\n"
        "from forewarn.workspace.history import BlobReader\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "with BlobReader(Path(sys.argv[1])) as blobs:\n"
        "    data = blobs.read(sys.argv[2], max_bytes=1 << 20)\n"
        "    size = blobs.size(sys.argv[2])\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(json.dumps({'read': data is not None, 'size': size, 'grew_kb': after - before}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(repo.root), blob],
        capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    out = json.loads(done.stdout)
    assert out["read"] is False and out["size"] == size
    assert out["grew_kb"] < 16 * 1024, out  # reading it whole would add 64 MB


def test_git_diff_never_loads_a_blob_over_the_threshold(repo: Repo) -> None:
    """git's own diff treats a file over DIFF_BIG_FILE_BYTES as binary: it is counted, never diffed or parsed."""
    repo.write("billing/generated.py", "VALUE = 1\n" * (history.DIFF_BIG_FILE_BYTES // 10 + 1))
    repo.commit("Add generated tables")
    [top] = list(history.iter_commits(repo.root, ["HEAD"], limit=1))
    assert top.binary_files == 1 and top.files == []


def test_paths_of_big_blobs_are_left_out_of_the_diffs_git_reads(repo: Repo) -> None:
    """R8, git's side: git's diff loads an added or deleted file whole, binary or not. Mining finds the paths that
    ever held a blob over the threshold (from object headers) and leaves them out, so git never loads one."""
    repo.write("data/big.py", b"VALUE = 1\n" * (48 << 17))  # 60 MB
    repo.commit("Add the table")
    repo.write("data/big.py", b"VALUE = 2\n")
    repo.edit("billing/money.py", "'x'", "'y'")
    repo.commit("Shrink the table and fix str")
    probe = (
        "import json, resource, sys\n"
        "from pathlib import Path\n"
        "from forewarn.workspace import history\n"
        "root = Path(sys.argv[1])\n"
        "big, total = history.big_blob_paths(root, ['HEAD'])\n"
        "commits = list(history.iter_commits(root, ['HEAD'], exclude=big))\n"
        "files = [[f.path for f in c.files] for c in commits]\n"
        "ids = history.patch_ids(root, [c.sha for c in commits], exclude=big)\n"
        "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(json.dumps({'big': big, 'total': total, 'files': files, 'ids': len(ids), 'git_kb': rss}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(repo.root)],
        capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    out = json.loads(done.stdout)
    assert out["big"] == ["data/big.py"] and out["total"] == 1
    assert out["files"] == [["billing/money.py"], [], ["billing/invoice.py", "billing/money.py"]]
    assert out["git_kb"] < 30 * 1024, out  # diffing the 60 MB file would take git past 60 MB


def test_a_cherry_pick_has_its_originals_patch_id(repo: Repo) -> None:
    repo.git("checkout", "-q", "-b", "side")
    repo.edit("billing/money.py", "'x'", "'y'")
    original = repo.commit("Fix str")
    repo.git("checkout", "-q", "main")
    repo.write("billing/invoice.py", INVOICE + "\n")
    other = repo.commit("Touch invoice")
    repo.git("cherry-pick", "-x", original)
    picked = repo.git("rev-parse", "HEAD")
    ids = history.patch_ids(repo.root, [original, picked, other, "not-an-id"])
    assert ids[original] == ids[picked] != ids[other] and "not-an-id" not in ids


def test_a_bad_revision_is_a_clear_error(repo: Repo) -> None:
    with pytest.raises(history.GitError, match="git rev-list failed"):
        list(history.iter_commits(repo.root, ["no-such-branch"]))


def _unix(iso: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def test_env_has_no_user_config() -> None:  # the repositories above see no ~/.gitconfig
    assert ENV["GIT_CONFIG_GLOBAL"] == "/dev/null"


def _drop_object(repo: Repo, rel: str) -> None:
    """Delete the loose object of ``rel`` at HEAD, as a partial clone without its remote or a damaged disk leaves a
    repository, and change the file in the work tree (else git's diff would read the file there instead)."""
    oid = repo.git("rev-parse", f"HEAD:{rel}")
    (repo.root / ".git" / "objects" / oid[:2] / oid[2:]).unlink()
    repo.write(rel, b"rebuilt here, not committed\n")


def test_a_commit_whose_object_is_missing_is_skipped_and_the_rest_read(repo: Repo) -> None:
    repo.edit("billing/invoice.py", "return invoice", "return invoice  # first")
    first = repo.commit("first change")
    repo.write("tool.bin", b"\x00\x01 a built binary committed by mistake\n")
    repo.edit("billing/money.py", "'x'", "'y'")
    broken = repo.commit("commit a tool binary")
    repo.edit("billing/invoice.py", "# first", "# second")
    last = repo.commit("second change")
    _drop_object(repo, "tool.bin")
    with pytest.raises(history.GitError, match="unable to read"):
        list(history.iter_commits(repo.root, ["HEAD"]))
    unreadable: list[str] = []
    commits = list(history.iter_commits(repo.root, ["HEAD"], unreadable=unreadable))
    assert unreadable == [broken]
    assert [c.sha for c in commits] == [last, first, repo.git("rev-parse", "HEAD~3")]
    assert [f.path for f in commits[0].files] == ["billing/invoice.py"]  # read whole, not cut at the failure
    # two missing in a row, and one at the very start (newest) of the walk
    repo.write("tool.bin", b"\x00\x02 rebuilt\n")
    newest = repo.commit("rebuild the tool")
    _drop_object(repo, "tool.bin")
    unreadable = []
    commits = list(history.iter_commits(repo.root, ["HEAD"], unreadable=unreadable))
    assert unreadable == [newest, broken]
    assert [c.sha for c in commits] == [last, first, repo.git("rev-parse", "HEAD~4")]
