"""A small billing repository the mining tests build history on, and the helpers they share to mine it."""

from __future__ import annotations

from pathlib import Path

from forewarn.memory.records import Memory
from forewarn.workspace import history, mining
from forewarn.workspace.engine import Workspace
from forewarn.workspace.history import BlobReader, CommitRecord, FileChange, Hunk
from forewarn.workspace.mine_anchors import Placement, SymbolFinder, place
from forewarn.workspace.mine_head import HeadIndex
from tests.gitrepo import Repo

BILLING = """\
def charge(card, amount):
    total = amount
    return total


def refund(card, amount):
    return -amount
"""


def record(
    subject: str, body: str = "", paths: tuple[str, ...] = ("a.py",), *, parents: int = 1, author: str = "Ann"
) -> CommitRecord:
    """A commit as mining reads it, without a repository: for the rules that classify one commit."""
    return CommitRecord(
        sha="0" * 40,
        parents=["1" * 40] * parents,
        author=author,
        date="2024-01-01T00:00:00Z",
        subject=subject,
        body=body,
        files=[FileChange(path=p, old_path=p, hunks=[Hunk(1, 1, 1)]) for p in paths],
    )


def billing_repo(root: Path) -> Repo:
    """A real git repository at ``root`` whose one commit adds ``billing.py``."""
    r = Repo(root)
    r.write("billing.py", BILLING)
    r.commit("Add billing")
    return r


def mined(repo: Repo, opened: list[Workspace], **kwargs: object) -> tuple[Workspace, mining.MineReport]:
    """Open ``repo`` as a workspace (closed by the ``open_ws`` fixture that ``opened`` is) and mine it once.

    Unless a test says otherwise, nothing is held back (``hold_back=False``, as ``forewarn mine --all``): these
    tests are about what the rules find and where they place it; ``test_mining_hold_back`` is about what a
    default run proposes of it."""
    ws = Workspace.open(repo.root, embedder=None)
    opened.append(ws)
    kwargs.setdefault("hold_back", False)
    return ws, mining.mine(ws, **kwargs)  # type: ignore[arg-type]


def place_of(repo: Repo, sha: str, opened: list[Workspace]) -> Placement:
    """Where mining places commit ``sha``'s lesson, with HEAD indexed as mining reads it (the workspace is closed by
    the ``open_ws`` fixture that ``opened`` is)."""
    ws = Workspace.open(repo.root, embedder=None)
    opened.append(ws)
    ws.reindex()  # what exists at HEAD, as mining reads it
    with BlobReader(repo.root) as blobs:
        [commit] = history.iter_commits(repo.root, [f"{sha}^!"])
        return place(commit, f"{commit.subject}\n{commit.body}", SymbolFinder(blobs), {}, HeadIndex(ws))


def kinds(ws: Workspace, kind: str) -> list[Memory]:
    return [m for m in ws.suggestions() if m.provenance and m.provenance.get("kind") == kind]


def round_charge(repo: Repo) -> str:
    """Commit a change to ``charge`` that says why it was made (a decision, until it is reverted); its sha."""
    repo.edit("billing.py", "total = amount", "total = round(amount)")
    return repo.commit("Round totals in charge\n\nWe round here because the gateway rejects fractions otherwise.")


def revert(repo: Repo, sha: str, message: str) -> None:
    """Revert ``sha`` with ``message`` instead of git's own."""
    repo.git("revert", "--no-edit", sha)
    repo.git("commit", "--amend", "-q", "-m", message)
