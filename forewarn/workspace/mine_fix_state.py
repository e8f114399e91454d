"""The fixes a mining run leaves for the next one: symbols not proposed as hot spots yet, with their newest fixes,
kept in the workspace's mining state so an incremental run still finds a hot spot whose fixes span several runs."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from forewarn.workspace import history
from forewarn.workspace.mine_fixes import EARLIER_RUN, HOTSPOT_KEPT, FixRef

if TYPE_CHECKING:
    from forewarn.workspace.engine import Workspace

log = logging.getLogger(__name__)

# mining_state key: symbols not proposed as hot spots so far, with their fixes (JSON), so an incremental run can
# still find a hot spot whose fixes span several runs
STATE_FIX_HISTORY = "fix_history"
FIX_HISTORY_SUBJECT_CHARS = 120  # a remembered fix's subject, clipped: the state stays small on long histories
FIX_HISTORY_SAMPLE = 3  # … and the telling lines kept of it, to check at HEAD in a later run


def load_fix_history(ws: Workspace, renames: dict[str, str]) -> dict[tuple[str, str], list[FixRef]]:
    """The fixes remembered from earlier runs, their paths followed through this run's renames."""
    try:
        data = json.loads(ws.mining_state(STATE_FIX_HISTORY) or "{}")
    except ValueError:
        log.warning("mining state %s is not JSON: earlier fixes are not counted toward hot spots", STATE_FIX_HISTORY)
        return {}
    out: dict[tuple[str, str], list[FixRef]] = {}
    for place_, refs in data.items() if isinstance(data, dict) else ():
        path, _, symbol = str(place_).partition("::")
        if not symbol or not isinstance(refs, list):
            continue
        out[(renames.get(path, path), symbol)] = [
            FixRef(
                str(r["sha"]), str(r.get("date", "")), str(r.get("author", "")), str(r.get("subject", "")), EARLIER_RUN,
                _lines(r.get("sample")), _lines(r.get("removed")), _lines(r.get("shown")),
            )
            for r in refs
            if isinstance(r, dict) and history.is_object_id(str(r.get("sha", "")))
        ]  # fmt: skip
    return out


def _lines(value: object) -> tuple[str, ...]:
    return tuple(line for line in value if isinstance(line, str)) if isinstance(value, list) else ()


def dump_fix_history(fixes: dict[tuple[str, str], list[FixRef]], proposed: set[tuple[str, str]]) -> str:
    """Symbols not hot spots yet, with their newest fixes (a hot spot, once proposed, is never proposed again)."""
    kept = {
        f"{path}::{symbol}": [
            {
                **r.to_dict(),
                "subject": r.subject[:FIX_HISTORY_SUBJECT_CHARS],
                "sample": r.sample[:FIX_HISTORY_SAMPLE],
                "removed": r.removed[:FIX_HISTORY_SAMPLE],
                "shown": r.shown[:FIX_HISTORY_SAMPLE],
            }
            for r in sorted({r.sha: r for r in refs}.values(), key=lambda r: r.date, reverse=True)[:HOTSPOT_KEPT]
        ]
        for (path, symbol), refs in fixes.items()
        if (path, symbol) not in proposed
    }
    return json.dumps(kept, separators=(",", ":"))
