"""Sets against pairs, and intervals with ends that are no plain numbers, decided before
math-verify.

math-verify reads ``{1, 4}`` as the set ``\\{1, 4\\}``, ``(1, 4)`` as an open interval and
``[4, 1]`` (ends the wrong way round) as a pair; against either, a set is compared member
by member as written, in order, and a set not written with two members is never a pair.
``[\\sqrt{2}, 3]`` is an interval when its first end is surely the smaller (else latex2sympy
reads it as a pair), and an interval holding more than one point is never finitely many
values. Checked live against math-verify on constructed answers and golds (skipped without
math-verify).
"""

from __future__ import annotations

import pytest

from answerx.grading.symbolic import decide
from symbolic_checks import needs_math_verify, sweep


def test_a_set_against_a_pair_is_compared_as_written() -> None:
    assert decide(r"\{4, 1\}", "[4, 1]") == (True, "symbolic_tuple")
    assert decide(r"\{1, 4\}", "[4, 1]") == (False, "symbolic_tuple")
    assert decide("1 and 4", "(1, 4)") == (True, "symbolic_tuple")
    assert decide(r"\{4, 1, 1\}", "[4, 1]") == (False, "symbolic_tuple")  # written thrice
    assert decide(r"\{3\}", "[4, 1]") == (False, "symbolic_tuple")


def test_braces_around_it_all_are_a_set() -> None:
    assert decide("K_f={1,4}", "[4, 1]") == (False, "symbolic_equation")
    assert decide("{4, 1}", "[4, 1]") == (True, "symbolic_tuple")
    assert decide("{5}", "5") == (True, "symbolic_set")


def test_an_interval_with_constant_ends_is_a_range_of_reals() -> None:
    assert decide(r"[\sqrt{2}, 3]", r"\{5\}") == (False, "symbolic_interval")
    assert decide(r"[\sqrt{2}, 3]", "[4, 1]") == (False, "symbolic_interval")
    assert decide(r"[3, \sqrt{2}]", r"\{5\}") == (False, "symbolic_interval")  # two values


def test_an_interval_against_a_pair_the_wrong_way_round_is_that_pair_or_not_it() -> None:
    assert decide(r"[\sqrt{16}, 1]", "[4, 1]") == (True, "symbolic_interval")  # read as a pair
    assert decide("[a b, c d]", "[4, 1]") == (False, "symbolic_interval")
    assert decide("[4, 1)", "[4, 1]") == (False, "symbolic_interval")  # half-open: an interval


_ANSWERS = [
    r"\{4, 1\}", r"\{1, 4\}", "4, 1", "1, 4", "4 and 1", r"\{4, 1, 1\}", "4, 4", r"\{3\}",
    "4, 1, 7", r"\{4, 2/2\}", r"\{8/2, 1\}", r"\{\sqrt{16}, 1\}", r"K = \{4, 1\}", "2, 2",
    r"\{2\}", r"\{1, 4, 4\}", "-1, 1", r"\{0.5, 1\}", r"\{\frac{1}{2}, 1\}",
    r"[\sqrt{2}, 3]", r"[3, \sqrt{2}]", r"[\sqrt{16}, 1]", r"(\sqrt{2}, 3]", r"[\pi, 4]",
    r"[1, \pi]", r"[\sqrt{2}, \sqrt{2}]", r"[2\sqrt{2}, \sqrt{8}]", "[x, 3]", "[e, 3]",
    r"(\sqrt{2}, 3)", r"[\sqrt{2}, 3)", r"[-\sqrt{2}, \sqrt{2}]", r"[\frac{1}{3}, 0.5]",
    r"[0.3333333333, \frac{1}{3}]", r"[\ln 2, 1]", r"[1, 2^{10}]", "[a b, c d]", "[a b, a b]",
    "[x, x]", "[x + 1, x]", "[4, 1)", "(4, 1]", r"[\sqrt{16}, 2/2]", "[x - x + 4, 1]",
    "[4, x - x + 1]", r"(1, \infty)", r"[4, \infty)", "(4, 1)", "[2x, x + x]", "[5, 5]",
    "{4, 1}", "{1, 4}", "K_f={1,4}", "K_f={4,1}", "{5}", "{1, 1, 4}", "x={1,4}", "{}", "{0}",
    "f(x)={4, 1}", "{1}, {2}", r"{\frac{1}{2}, 1}", r"{\frac{1}{2}}", "{4, 1}, 3",
]  # fmt: skip
_GOLDS = [
    "5", "1, 4", "0.5", "[4, 1]", "(1, 4)", "(4, 1)", "[2, 2]", "(2, 2)", "[1, 4]", r"\{5\}",
    r"\{1, 4\}", "[1, -1]", "(-1, 1)", "(0.5, 1)", "[1, 0.5]", r"\{3\}", "[3, 1]", "(1, 3)", "2",
    "[16, 1]", "[4, 3]", r"\{4\}", r"\{0\}",
]  # fmt: skip


@pytest.mark.slow
@needs_math_verify
def test_on_constructed_sets_pairs_and_intervals_the_rung_agrees_with_math_verify() -> None:
    decided, disagreements = sweep(_ANSWERS, _GOLDS)
    assert disagreements == []
    assert decided >= 300
