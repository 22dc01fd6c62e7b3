"""Percentiles, as every benchmark prints them.

Part of the harness that bench/ shares with the tests (see tests/support/__init__.py):
it imports no pytest.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile by nearest rank (a value that was seen); NaN for none."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(p / 100 * len(ordered)) - 1))]


def spread_ms(seconds: Sequence[float]) -> str:
    """p50, p99 and max of durations in seconds, in milliseconds; "too few" for fewer
    than two."""
    if len(seconds) < 2:
        return "too few"
    return (
        f"p50 {percentile(seconds, 50) * 1000:.0f} ms, p99 {percentile(seconds, 99) * 1000:.0f} "
        f"ms, max {max(seconds) * 1000:.0f} ms"
    )
