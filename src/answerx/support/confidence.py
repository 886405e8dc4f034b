"""Confidence intervals for a proportion: how sure an accuracy measured on n items is.

Written by hand on the standard library (``math``, ``statistics.NormalDist``):
the formula is a few lines, and scipy would be a large dependency for it. Low in
the layers, so that a file run's summary (``answerx verify --file``) and the
experiment reports state accuracy the same way.
"""

from __future__ import annotations

import math
from statistics import NormalDist

__all__ = ["wilson_interval"]


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval for a proportion ``successes / n``.

    Unlike the normal approximation it stays inside [0, 1] and is sensible for
    small ``n`` and for 0 or ``n`` successes. With ``n == 0`` nothing is known:
    ``(0.0, 1.0)``.

    >>> tuple(round(x, 3) for x in wilson_interval(8, 10))
    (0.49, 0.943)
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    if n == 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # 0/n and n/n touch 0 and 1 exactly in theory; floating point leaves crumbs like 3e-17.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high
