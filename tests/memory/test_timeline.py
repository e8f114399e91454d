"""Why a memory is stale (marked by hand vs its code changed), said so in diagnostics and hovers; and a
memory's standing at a past time, replayed from its real history."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from forewarn.config import Settings
from forewarn.lsp import convert
from forewarn.memory.records import Anchor, Memory
from forewarn.memory.text import from_iso, to_iso
from forewarn.memory.timeline import stale_by_hand, stale_note, standing_at
from forewarn.workspace.engine import Workspace

NOW = 1_800_000_000.0


def stale(reason: str | None) -> Memory:
    at = to_iso(NOW - 86400)
    return Memory("m1", "gotcha", "retry with care", Anchor("a.py", "f", 3, 5), "user", 1.0, at, at, "stale", reason)


def test_marked_by_hand_is_not_called_a_code_change() -> None:
    by_hand = stale("the gateway was replaced")
    default = stale("marked outdated")
    agent = stale("the checkout page was rewritten (said by Claude Code)")
    code = stale("the code of f changed since this was written")
    revived = stale("its code changed while it was gone")
    assert [stale_by_hand(m) for m in (by_hand, default, agent, code, revived)] == [True, True, True, False, False]
    assert stale_by_hand(stale(None)) is False  # no reason recorded (an old import): the code, as it always said
    assert stale_note(by_hand) == "marked outdated: the gateway was replaced"
    assert stale_note(default) == "marked outdated"
    assert stale_note(code) == "its code changed"

    message = convert.diagnostic_message(by_hand, NOW)
    assert message.startswith("retry with care\ngotcha (stale: marked outdated: the gateway was replaced) · ")
    assert "code it describes changed" not in message and "its code changed" not in message
    assert convert.diagnostic_message(code, NOW).split("\n")[1].startswith("gotcha (stale: its code changed) · ")

    hover = convert.hover_markdown("f", [by_hand, code], None, NOW)
    assert hover is not None
    assert "(stale: marked outdated: the gateway was replaced)" in hover and "(stale: its code changed)" in hover


def test_the_hover_shows_what_changed_when_the_history_has_a_diff() -> None:
    code = stale("the code of f changed since this was written")
    diff = "--- then\n+++ now\n@@ -1 +1 @@\n-    return a\n+    return b ```"
    body = convert.hover_markdown("f", [code], None, NOW, changes={"m1": diff})
    assert body is not None and "What changed in its code since:" in body
    block = body.split("What changed in its code since:\n\n", 1)[1]
    assert block.startswith("````diff\n") and block.endswith("\n````")  # a fence its ``` cannot close
    assert "+    return b" in block
    assert "What changed" not in (convert.hover_markdown("f", [code], None, NOW) or "")


def test_a_use_elsewhere_names_the_defining_file() -> None:
    active = replace(stale(None), status="active", status_reason=None)
    body = convert.hover_markdown("charge_card", [active], None, NOW, where="billing/pay.py")
    assert body is not None and body.splitlines()[0] == "**Forewarn** · `charge_card` · defined in `billing/pay.py`"
    found = convert.hover_view(convert.HoverView("charge_card", [active], None, None, (4, 11, 22)), 4, "a.py", NOW)
    assert found is not None and found.range.start == convert.types.Position(3, 11)
    assert found.range.end == convert.types.Position(3, 22)
    assert convert.hover_view(convert.HOVER_NOTHING, 4, "a.py", NOW) is None
    many = [replace(active, id=f"m{i}") for i in range(convert.HOVER_MEMORIES + 2)]
    capped = convert.hover_view(convert.HoverView("charge_card", many, None, "billing/pay.py"), 4, "a.py", NOW)
    assert capped is not None and "forewarn memory list --file billing/pay.py" in capped.contents.value  # type: ignore[union-attr]


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "w"
    root.mkdir()
    (root / "pay.py").write_text("def charge(card):\n    return card\n")
    settings = Settings()
    settings.embedder.enabled = False
    clock = [NOW]
    with Workspace.open(root, settings, embedder=None, clock=lambda: clock[0]) as engine:
        engine.reindex()
        engine.test_clock = clock  # type: ignore[attr-defined]
        yield engine


def tick(ws: Workspace, days: float) -> str:
    clock = ws.test_clock  # type: ignore[attr-defined]
    clock[0] += days * 86400
    return to_iso(clock[0])


def test_standing_at_replays_the_history(ws: Workspace) -> None:
    m = ws.remember("charge retries double-charge", type="gotcha", file="pay.py", symbol="charge").memory
    t_active = tick(ws, 1)
    tick(ws, 1)
    ws.mark_stale(m.id, "the gateway was replaced")
    t_stale = tick(ws, 1)
    tick(ws, 1)
    ws.confirm(m.id)
    t_confirmed = tick(ws, 1)
    tick(ws, 1)
    ws.forget(m.id)
    t_forgotten = tick(ws, 1)
    tick(ws, 1)
    ws.restore(m.id)

    now = ws.get(m.id)
    events = ws.store.events(m.id)
    assert now.status == "active"
    assert standing_at(now, events, t_active).status == "active"
    then = standing_at(now, events, t_stale)
    assert (then.status, then.reason) == ("stale", "the gateway was replaced")
    assert standing_at(now, events, t_confirmed).status == "active"
    assert standing_at(now, events, t_forgotten).status == "archived"
    assert standing_at(now, events, tick(ws, 1)).status == "active"
    assert from_iso(t_stale) > from_iso(now.created_at)
