"""The few statistics a report needs: Wilson intervals (:mod:`answerx.support.confidence`),
McNemar's test, percentiles.

Written by hand on the standard library (``math``)
because each is a few lines and scipy would be a large dependency for them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from answerx.support.confidence import wilson_interval

__all__ = ["mcnemar", "percentile", "wilson_interval"]


def mcnemar(b: int, c: int) -> float:
    """Two-sided p-value of McNemar's test for paired right/wrong outcomes.

    ``b`` counts the pairs only the first arm got right, ``c`` those only the
    second got right. Always the exact binomial test (``b ~ Binomial(b + c, 1/2)``):
    the chi-square approximation only exists to avoid large factorials, and
    Python's exact integers compute the binomial tail quickly for any count a
    run produces. With no discordant pairs there is no evidence either way: 1.0.

    >>> round(mcnemar(10, 2), 4)
    0.0386
    """
    if b < 0 or c < 0:
        raise ValueError(f"counts must not be negative, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    # sum of C(n, k) for k <= min(b, c), each term from the last (C(n, k+1) = C(n, k)(n-k)/(k+1)),
    # in exact integers until the one division, so large n neither overflows nor drifts.
    term = tail = 1
    for k in range(min(b, c)):
        term = term * (n - k) // (k + 1)
        tail += term
    return min(1.0, 2 * tail / (1 << n))


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0-100) with linear interpolation (numpy's default); None if empty.

    >>> percentile([1, 2, 3, 4], 50)
    2.5
    """
    if not 0 <= q <= 100:
        raise ValueError(f"percentile must be between 0 and 100, got {q}")
    if not values:
        return None
    ordered = sorted(float(v) for v in values)
    rank = (len(ordered) - 1) * q / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)
