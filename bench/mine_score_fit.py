"""Refit the commit-lesson score (forewarn/workspace/mine_score.py) on the judged lessons, and say how well it ranks.

    python bench/mine_score_fit.py

Reads ``bench/judgements/mining/score-training-r12-r15.jsonl``: the 419 commit lessons (not hot spots, not
comments) that two blind judges labelled in rounds 12 to 15, on 83 histories nobody had tuned on when they were
judged; each row holds the item's share of "useful" labels and the numbers the score reads of its commit
(computed from each history with ``git show --numstat`` and the suggestion's text). It fits an L2-regularised
logistic regression (Newton's method, numpy only), prints its weights beside the ones the product uses, and
cross-validates it by history (eight folds, no history in both halves): the AUC (how often a useful lesson scores
above a rejected one) and, per threshold, the share of lessons kept and how many of those the judges found useful.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(0, str(BENCH_DIR.parent))

from _logistic import fit, predict  # noqa: E402
from _stats import auc  # noqa: E402

from forewarn.workspace.mine_score import INTERCEPT, MIN_LESSON_SCORE, WEIGHTS, scaled  # noqa: E402

DATA = BENCH_DIR / "judgements" / "mining" / "score-training-r12-r15.jsonl"
FOLDS = 8
C = 0.3  # inverse regularisation strength: the weights stay small on 419 rows
THRESHOLDS = (0.5, 0.6, 0.65, 0.7, 0.75, 0.8)


def features(row: dict) -> list[float]:
    """The row's counts scaled as the product scales them (mine_score.scaled), in the order of WEIGHTS."""
    counts = {
        name: float(row["type"] == name) if name in ("decision", "error_pattern") else row[name] for name in WEIGHTS
    }
    inputs = scaled(counts)
    return [inputs[name] for name in WEIGHTS]


def folds(groups: list[str]) -> list[int]:
    """Each history to one fold, the largest first into the fold with the fewest rows so far."""
    sizes: dict[str, int] = {}
    for g in groups:
        sizes[g] = sizes.get(g, 0) + 1
    load = [0] * FOLDS
    fold_of: dict[str, int] = {}
    for g in sorted(sizes, key=lambda g: (-sizes[g], g)):
        k = load.index(min(load))
        fold_of[g] = k
        load[k] += sizes[g]
    return [fold_of[g] for g in groups]


def main() -> None:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    x = np.array([features(r) for r in rows])
    share = np.array([r["y"] for r in rows])
    useful = share >= 0.5  # at least half the judges said useful
    w = fit(x, useful.astype(float), C)
    print(f"{len(rows)} judged commit lessons from {len({r['corpus'] for r in rows})} histories; "
          f"{useful.mean():.1%} useful")  # fmt: skip
    print(f"{'weight':<16} {'refit':>8} {'product':>8}")
    print(f"{'(intercept)':<16} {w[0]:>8.4f} {INTERCEPT:>8.4f}")
    for (name, used), value in zip(WEIGHTS.items(), w[1:], strict=True):
        print(f"{name:<16} {value:>8.4f} {used:>8.4f}")
    fold = np.array(folds([r["corpus"] for r in rows]))
    held = np.zeros(len(rows))
    for k in range(FOLDS):
        test = fold == k
        held[test] = predict(fit(x[~test], useful[~test].astype(float), C), x[test])
    print(f"cross-validated by history ({FOLDS} folds): AUC {auc(held.tolist(), useful.tolist()):.3f}")
    print(f"{'threshold':>10} {'kept':>6} {'useful, kept':>13} {'useful, held back':>18}")
    for t in THRESHOLDS:
        kept = held >= t
        mark = "  <- MIN_LESSON_SCORE" if t == MIN_LESSON_SCORE else ""
        below = f"{share[~kept].mean():.1%}" if (~kept).any() else "-"
        print(f"{t:>10.2f} {kept.mean():>6.0%} {share[kept].mean():>13.1%} {below:>18}{mark}")


if __name__ == "__main__":
    main()
