"""A small billing repository the mining tests build history on, and the helpers they share to mine it."""

from __future__ import annotations

from pathlib import Path

from forewarn.memory.records import Memory
from forewarn.workspace import mining
from forewarn.workspace.engine import Workspace
from tests.gitrepo import Repo

BILLING = """\
def charge(card, amount):
    total = amount
    return total


def refund(card, amount):
    return -amount
"""


def billing_repo(root: Path) -> Repo:
    """A real git repository at ``root`` whose one commit adds ``billing.py``."""
    r = Repo(root)
    r.write("billing.py", BILLING)
    r.commit("Add billing")
    return r


def mined(repo: Repo, opened: list[Workspace], **kwargs: object) -> tuple[Workspace, mining.MineReport]:
    """Open ``repo`` as a workspace (closed by the ``open_ws`` fixture that ``opened`` is) and mine it once."""
    ws = Workspace.open(repo.root, embedder=None)
    opened.append(ws)
    return ws, mining.mine(ws, **kwargs)  # type: ignore[arg-type]


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
