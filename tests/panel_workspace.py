"""A workspace with memories of every source and status and suggestions waiting, built over six weeks.

What the panel tests (the workspace's health report, the language server's panel commands, the real editors)
open. Built with the real parts only: a git repository with real commits, the real ``Workspace`` (its clock set
back to spread the history over weeks), a teammate's workspace exported to the shared file and imported here,
accepted by a person (``memory import --accept``: without it, imports wait as suggestions).

payments.py, the file the *This file* views show:

| symbol          | memories                                                                              |
|-----------------|---------------------------------------------------------------------------------------|
| (whole file)    | note, typed, active                                                                   |
| charge_card     | gotcha, typed, active · decision, typed, stale (marked outdated) · gotcha, mined from a |
|                 | real commit, **suggested** (the one the tests accept)                                 |
| _gateway_charge | two typed gotchas, **contested** · gotcha from a HACK comment, **suggested**          |
| legacy_refund   | gotcha, typed, **orphaned** (the function was deleted)                                |

and, out of view there: a mined suggestion **dismissed**, a note **archived** (forgotten). checkout.py holds a
memory **superseded** by another, an accepted mined gotcha, an agent's suggestion and its accepted gotcha,
imported memories;
ledger.py imported ones; money.py, the file everything uses, none.
"""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from forewarn import paths
from forewarn.config import Settings
from forewarn.memory.suggestions import Suggestion
from forewarn.memory.vocabulary import MemorySource, MemoryStatus, MemoryType, Resolution
from forewarn.workspace.engine import Workspace
from tests.gitrepo import Repo

DAY = 86_400.0

MONEY = '''"""Money helpers every module uses."""


def to_cents(amount: float) -> int:
    return round(amount * 100)
'''

PAYMENTS = '''"""Charging customers through the payment gateway."""

import time

from money import to_cents


def charge_card(customer_id: str, amount: float, retries: int = 3) -> str:
    """Charge a customer's card, retrying when the gateway times out."""
    for attempt in range(retries):
        try:
            return _gateway_charge(customer_id, to_cents(amount))
        except TimeoutError:
            time.sleep(2**attempt)
    raise TimeoutError("the payment gateway did not answer")


def _gateway_charge(customer_id: str, cents: int) -> str:
    # HACK: the gateway rejects charges over 10000 cents; larger ones are split by the caller
    return f"charge-{customer_id}-{cents}"
'''

LEGACY = '''

def legacy_refund(charge_id: str) -> None:
    """Refunds through the old gateway API."""
    raise NotImplementedError(charge_id)
'''

CHECKOUT = '''"""The checkout flow: totals a cart and charges it."""

from ledger import record
from money import to_cents
from payments import charge_card


def checkout(customer_id: str, cart: list[float]) -> str:
    charge = charge_card(customer_id, sum(cart))
    record(charge, to_cents(sum(cart)))
    return charge
'''

LEDGER = '''"""The ledger of charges."""

from money import to_cents


def record(charge_id: str, cents: int) -> None:
    print(charge_id, cents, to_cents(0))
'''

FILE = "payments.py"
GOTCHA = "Retrying charge_card after a timeout double-charges customers: pass an idempotency key"
DECISION = "We chose exponential backoff in charge_card because the gateway rate-limits bursts"
NOTE = "Every amount in this module is in cents once it leaves charge_card"
CONTESTED_A = "The gateway must always get the customer id first in _gateway_charge"
CONTESTED_B = "The gateway must never get the customer id first in _gateway_charge"
ORPHANED = "legacy_refund only works for charges made before the 2023 gateway migration"
ARCHIVED = "TODO-ish note nobody needs: payments used to log to stdout"
MINED_SUBJECT = "Fix double charge when the gateway times out"
MINED = f"{MINED_SUBJECT}\n\nThe gateway had already charged the card when it timed out, so the retry charged twice."
COMMENT = "HACK: the gateway rejects charges over 10000 cents; larger ones are split by the caller"
DISMISSED = "Rename variables in charge_card\n\nBecause the old names confused reviewers."
AGENT = "checkout must call record() only after charge_card returned: a failed charge left ledger rows"
AGENT_ACCEPTED = "checkout's cart may hold negative amounts (refund lines): never reject them"
AGENT_NAME = {"name": "Claude Code", "version": "2.1.0"}
SUPERSEDED = "checkout charges the whole cart in one call"
SUPERSEDING = "checkout charges the whole cart in one call, and records it in the ledger afterwards"
ACCEPTED = "Fix checkout total\n\nThe total was computed before discounts, because the cart was summed twice."
IMPORTED = (
    ("ledger.py", "record", "The ledger is append-only: corrections are new rows, never updates"),
    ("ledger.py", None, "Ledger rows are reconciled nightly against the gateway's report"),
    ("checkout.py", "checkout", "checkout is retried by the web layer on 502s: keep it idempotent"),
)


@dataclass(frozen=True)
class PanelWorkspace:
    root: Path
    ids: dict[str, str]  # name (GOTCHA, MINED, …) → memory id
    commit: str  # the commit the mined suggestion (MINED) came from


def build(root: Path, *, now: float | None = None) -> PanelWorkspace:
    """The workspace described above, its history spread over the six weeks before ``now`` (default: now)."""
    now = time.time() if now is None else now
    repo = Repo(root)
    repo.write("money.py", MONEY)
    repo.write("payments.py", PAYMENTS + LEGACY)
    repo.write("checkout.py", CHECKOUT)
    repo.write("ledger.py", LEDGER)
    repo.write("pyproject.toml", '[project]\nname = "shop"\nversion = "0.1.0"\n')
    repo.commit("Payments through the gateway")
    repo.edit("payments.py", "retries: int = 3", "retries: int = 4")
    commit = repo.commit(MINED)
    ids: dict[str, str] = {}
    _imported(root, now, ids)
    settings = lexical()

    def at(days_ago: float) -> Workspace:
        ws = Workspace.open(root, settings, embedder=None, clock=lambda: now - days_ago * DAY)
        ws.reindex()
        return ws

    with at(40) as ws:
        ids["GOTCHA"] = ws.remember(GOTCHA, type=MemoryType.GOTCHA, file=FILE, symbol="charge_card").memory.id
        ids["NOTE"] = ws.remember(NOTE, type=MemoryType.NOTE, file=FILE).memory.id
        ids["ORPHANED"] = ws.remember(ORPHANED, type=MemoryType.GOTCHA, file=FILE, symbol="legacy_refund").memory.id
        ids["ARCHIVED"] = ws.remember(ARCHIVED, type=MemoryType.NOTE, file=FILE).memory.id
        ids["SUPERSEDED"] = ws.remember(SUPERSEDED, type=MemoryType.DECISION, file="checkout.py").memory.id
    with at(33) as ws:
        ids["DECISION"] = ws.remember(DECISION, type=MemoryType.DECISION, file=FILE, symbol="charge_card").memory.id
        for name, text in (("CONTESTED_A", CONTESTED_A), ("CONTESTED_B", CONTESTED_B)):
            ids[name] = ws.remember(text, type=MemoryType.GOTCHA, file=FILE, symbol="_gateway_charge").memory.id
        ws.proactive(FILE)
        ws.flush()
    with at(26) as ws:
        ws.add_suggestions(
            [
                _mined("fix:1", MemoryType.GOTCHA, MINED, commit, "charge_card"),
                _mined("fix:2", MemoryType.DECISION, DISMISSED, commit, "charge_card"),
                _mined("fix:3", MemoryType.GOTCHA, ACCEPTED, commit, "checkout", file="checkout.py"),
                Suggestion(
                    fingerprint="comment:payments.py:HACK", type=MemoryType.GOTCHA, text=COMMENT,
                    source=MemorySource.COMMENT, created_at=_iso(now - 26 * DAY), file=FILE, symbol="_gateway_charge",
                    provenance={"kind": "HACK", "line": PAYMENTS.splitlines().index(
                        "    # HACK: the gateway rejects charges over 10000 cents; larger ones are split by the caller"
                    ) + 1, "head": commit},
                ),
            ]
        )  # fmt: skip
        ids.update({_name(m.text): m.id for m in ws.suggestions()})
        ws.proactive(FILE)
        ws.proactive("checkout.py")
        ws.flush()
    with at(19) as ws:
        ws.accept_suggestion(ids["ACCEPTED"])
        ws.dismiss_suggestion(ids["DISMISSED"])
        ids["SUPERSEDING"] = ws.supersede(ids["SUPERSEDED"], SUPERSEDING).id
        ws.forget(ids["ARCHIVED"])
    with at(12) as ws:
        ws.resolve_conflict(ids["CONTESTED_B"], ids["CONTESTED_A"], Resolution.CONTESTED)
        ws.mark_stale(ids["DECISION"], "the gateway no longer rate-limits")
        ws.proactive(FILE)
        ws.flush()
    repo.write("payments.py", (root / "payments.py").read_text().replace(LEGACY, ""))  # legacy_refund is gone: its
    # memory is orphaned on the next index (the rest of the file stays as it was)
    repo.commit("Remove the legacy refund path")
    with at(5) as ws:
        for name, text in (("AGENT", AGENT), ("AGENT_ACCEPTED", AGENT_ACCEPTED)):
            ids[name] = ws.remember(
                text, type=MemoryType.GOTCHA, file="checkout.py", symbol="checkout", source=MemorySource.AGENT,
                status=MemoryStatus.SUGGESTED, provenance={"agent": AGENT_NAME},
            ).memory.id  # fmt: skip
    with at(2) as ws:
        ws.accept_suggestion(ids["AGENT_ACCEPTED"])
        ws.proactive(FILE)
        ws.proactive("checkout.py")
        ws.flush()
    with Workspace.open(root, settings, embedder=None) as ws:
        status = {m.id: m.status for m in ws.list_memories(statuses=tuple(MemoryStatus), limit=1000)}
    assert status[ids["ORPHANED"]] == MemoryStatus.ORPHANED, status
    assert status[ids["CONTESTED_A"]] == status[ids["CONTESTED_B"]] == MemoryStatus.CONTESTED, status
    return PanelWorkspace(root, ids, commit)


def lexical() -> Settings:
    settings = Settings()
    settings.embedder.enabled = False  # what is built needs no model; the servers that open it may load one
    settings.mining.enabled = False  # its suggestions are written here, not mined by a server in the background
    return settings


def _mined(fingerprint: str, kind: MemoryType, text: str, sha: str, symbol: str, file: str = FILE) -> Suggestion:
    subject = text.splitlines()[0]
    commit = {"sha": sha, "author": "Ann", "date": "2024-01-02T12:00:00+02:00", "subject": subject}
    return Suggestion(
        fingerprint=fingerprint, type=kind, text=text, source=MemorySource.COMMIT,
        created_at="2024-01-02T10:00:00+00:00", file=file, symbol=symbol,
        provenance={"commits": [commit], "anchor": "symbol", "then": f"{file}::{symbol}"},
    )  # fmt: skip


def _name(text: str) -> str:
    return {MINED: "MINED", DISMISSED: "DISMISSED", ACCEPTED: "ACCEPTED", COMMENT: "COMMENT"}[text]


def _iso(epoch: float) -> str:
    from forewarn.memory.text import to_iso

    return to_iso(epoch)


def _imported(root: Path, now: float, ids: dict[str, str]) -> None:
    """A teammate's memories, written in their own workspace over the past weeks, exported and imported here."""
    mate = root.parent / f"{root.name}-teammate"
    subprocess.run(["cp", "-r", str(root), str(mate)], check=True)
    shared = root / ".forewarn" / "memories.jsonl"
    for n, (file, symbol, text) in enumerate(IMPORTED):
        with Workspace.open(mate, lexical(), embedder=None, clock=lambda n=n: now - (38 - 9 * n) * DAY) as ws:
            ws.reindex()
            ids[f"IMPORTED_{n}"] = ws.remember(text, type=MemoryType.DECISION, file=file, symbol=symbol).memory.id
    with Workspace.open(mate, lexical(), embedder=None) as ws:
        ws.export(shared)
    with Workspace.open(root, lexical(), embedder=None, clock=lambda: now - 10 * DAY) as ws:
        ws.reindex()
        report = ws.import_(shared, embed=False, accept=True)  # accepted by a person here: current memories
    assert report.added == len(IMPORTED) and report.waiting == 0, report
    assert all(json.loads(line) for line in shared.read_text().splitlines())
    assert paths.workspace_dir(root) != paths.workspace_dir(mate)
