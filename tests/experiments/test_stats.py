"""Wilson intervals, McNemar's test and percentiles against published and hand-computed values."""

from __future__ import annotations

import math

import pytest

from answerx.experiments.stats import mcnemar, percentile, wilson_interval


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        # Values as statsmodels' proportion_confint(method="wilson") gives them.
        (8, 10, 0.4902, 0.9433),
        (50, 100, 0.4038, 0.5962),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (1, 1, 0.2065, 1.0),
        (81, 263, 0.2553, 0.3662),
    ],
)
def test_wilson_interval_matches_known_values(
    successes: int, n: int, low: float, high: float
) -> None:
    got = wilson_interval(successes, n)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_is_exact_at_the_ends_and_widens_with_confidence() -> None:
    assert wilson_interval(0, 7)[0] == 0.0
    assert wilson_interval(7, 7)[1] == 1.0
    narrow, wide = wilson_interval(8, 10, 0.90), wilson_interval(8, 10, 0.99)
    assert wide[0] < narrow[0] < 0.8 < narrow[1] < wide[1]


def test_wilson_interval_of_nothing_is_everything() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("successes", "n", "confidence"), [(3, 2, 0.95), (-1, 5, 0.95), (1, 5, 1.0), (1, 5, 0.0)]
)
def test_wilson_interval_rejects_impossible_input(
    successes: int, n: int, confidence: float
) -> None:
    with pytest.raises(ValueError):
        wilson_interval(successes, n, confidence)


@pytest.mark.parametrize(
    ("b", "c", "p"),
    [
        (10, 2, 0.038574),  # statsmodels mcnemar([[., 10], [2, .]], exact=True)
        (2, 10, 0.038574),
        (0, 6, 0.03125),  # 2 * (1/2)^6
        (0, 5, 0.0625),
        (1, 4, 0.375),  # 2 * (1 + 5) / 32
        (5, 5, 1.0),
        (0, 0, 1.0),
        (0, 1, 1.0),
    ],
)
def test_mcnemar_exact_p_values(b: int, c: int, p: float) -> None:
    assert mcnemar(b, c) == pytest.approx(p, abs=1e-6)


def test_mcnemar_on_large_counts_agrees_with_the_chi_square_approximation() -> None:
    b, c = 5000, 5100
    chi2 = (abs(b - c) - 1) ** 2 / (b + c)
    assert mcnemar(b, c) == pytest.approx(math.erfc(math.sqrt(chi2 / 2)), abs=2e-3)
    assert 0.0 <= mcnemar(40_000, 41_000) < 1e-3


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar(-1, 3)


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [
        ([1, 2, 3, 4], 50, 2.5),  # numpy.percentile(..., method="linear")
        ([1, 2, 3, 4], 95, 3.85),
        ([1, 2, 3, 4], 0, 1.0),
        ([1, 2, 3, 4], 100, 4.0),
        ([4, 1, 3, 2], 25, 1.75),  # order does not matter
        ([7.5], 95, 7.5),
        ([], 50, None),
    ],
)
def test_percentile_interpolates_linearly(
    values: list[float], q: float, expected: float | None
) -> None:
    assert percentile(values, q) == (pytest.approx(expected) if expected is not None else None)


def test_percentile_rejects_q_outside_0_to_100() -> None:
    with pytest.raises(ValueError):
        percentile([1.0], 101)
