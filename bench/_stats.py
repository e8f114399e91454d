"""The one percentile the benchmarks report, so every p50/p95/p99 they print means the same thing."""

from __future__ import annotations

from collections.abc import Sequence


def percentile(values: Sequence[float], pct: float) -> float:
    """The ``pct``-th percentile (0–100) by linear interpolation between ranks; NaN when there are none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * pct / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)
