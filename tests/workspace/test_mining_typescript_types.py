"""A TypeScript commit that only changed types ("Fix areIntervalsOverlapping types" in date-fns: generic type
parameters and arguments dropped, the body as it was) is no fix of the function's logic: one real fix and such a
commit make no hot spot (QA pass 4, Q2), while two real fixes still do."""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.workspace.engine import Workspace
from tests.gitrepo import Repo
from tests.workspace.billing_history import kinds, mined

OVERLAP = """\
import type { Interval } from "./types.js";

export interface OverlapOptions<DateType extends Date> {
  inclusive?: boolean;
}

export function areIntervalsOverlapping<
  DateType extends Date,
  ContextDate extends Date,
>(
  intervalLeft: Interval<DateType>,
  intervalRight: Interval<DateType>,
  options?: OverlapOptions<ContextDate>,
): boolean {
  const [leftStart, leftEnd] = [+intervalLeft.start, +intervalLeft.end].sort((a, b) => a - b);
  const [rightStart, rightEnd] = [+intervalRight.start, +intervalRight.end].sort((a, b) => a - b);
  if (options?.inclusive) return leftStart <= rightEnd && rightStart <= leftEnd;
  return leftStart < rightEnd && rightStart < leftEnd;
}
"""

UNTYPED = {
    "export interface OverlapOptions<DateType extends Date> {": "export interface OverlapOptions {",
    "export function areIntervalsOverlapping<\n  DateType extends Date,\n  ContextDate extends Date,\n>(": (
        "export function areIntervalsOverlapping("
    ),
    "Interval<DateType>": "Interval",
    "OverlapOptions<ContextDate>": "OverlapOptions",
}


@pytest.mark.parametrize("second", ["types", "logic"])
def test_a_type_only_fix_makes_no_typescript_hot_spot(tmp_path: Path, open_ws: list[Workspace], second: str) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("src/overlap.ts", OVERLAP.replace(".sort((a, b) => a - b)", ""))
    repo.commit("Add areIntervalsOverlapping")
    repo.write("src/overlap.ts", OVERLAP)
    repo.commit("Fix areIntervalsOverlapping for intervals given end first")
    if second == "types":
        text = OVERLAP
        for old, new in UNTYPED.items():
            text = text.replace(old, new)
        repo.write("src/overlap.ts", text)
        repo.commit("Fix areIntervalsOverlapping types")
    else:
        repo.edit("src/overlap.ts", "rightStart <= leftEnd;", "rightStart <= leftEnd && leftEnd >= leftStart;")
        repo.commit("Fix areIntervalsOverlapping for empty inclusive intervals")
    ws, _ = mined(repo, open_ws)
    hot = [m.anchor.symbol for m in kinds(ws, "hotspot") if m.anchor]
    assert hot == ([] if second == "types" else ["areIntervalsOverlapping"])
