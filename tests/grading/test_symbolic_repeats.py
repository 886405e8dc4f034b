"""Repeated values, as math-verify counts them: ``[1, 1]`` is the point 1 (the set {1}), a
set's repeated members are one, a tuple keeps its length. Checked live against math-verify
on every pair of the lists below (skipped when math-verify is absent).
"""

from __future__ import annotations

import importlib.util

import pytest

from answerx.grading.mathverify import compare
from answerx.grading.symbolic import decide


def test_a_closed_interval_with_ends_written_alike_is_its_one_point() -> None:
    assert decide("1", "[1, 1]") == (True, "symbolic_set")
    assert decide("0.5000001", "[0.5, 0.5]") == (True, "symbolic_set")
    assert decide("2", "[1, 1]") == (False, "symbolic_set")
    assert decide("x = 1", "[1, 1]") == (True, "symbolic_equation")
    assert decide("No solution", "[2, 2]") == (False, "symbolic_fast")


def test_ends_written_differently_or_an_open_end_are_left_to_math_verify() -> None:
    assert decide("1", "[1.0, 1]") is None  # math-verify keeps Interval(1.0, 1)
    assert decide("[1, 1)", "[1, 1]") is None  # the empty interval
    assert decide("(1, 1)", "[1, 1]") is None


def test_a_tuple_with_a_repeated_value_is_never_a_set() -> None:
    assert decide("[1, 1, 1]", "1") == (False, "symbolic_set")
    assert decide("(1, 1, 2)", "2, 1") == (False, "symbolic_set")
    assert decide("[1, 1, 1]", "[1, 1]") == (False, "symbolic_set")


def test_a_set_with_a_repeated_value_is_its_distinct_values() -> None:
    assert decide(r"\{1, 1, 2\}", "1, 2") == (True, "symbolic_set")
    assert decide("1, 1, 1", "[1, 1]") == (True, "symbolic_set")
    assert decide("x = 1, x = 1", "1") == (True, "symbolic_set")
    assert decide("1, 1, 1", "[1, 1, 1]") == (False, "symbolic_tuple")  # {1}: one member
    assert decide("(1, 2)", "2, 1, 1") is None  # {1, 2}: two members, as the pair (1, 2)


_ANSWERS = [
    "1", "1.0", "2", "1, 1", "1, 2", "1, 1, 1", "[1, 1]", "[1, 1, 1]", "(1, 1, 2)", "(1, 2)",
    r"\{1\}", r"\{1, 1, 2\}", "x = 1", r"x \in [1, 1]", "x > 1", "[1, 1)", "[2, 2]",
    "0.5", "1/2", "[0.5, 0.5]", "(2, 1, 2)", "(3, 1, 2)", "[1/2, 1/2]", "-3", "[-3, -3]",
    "No solution", "infinitely many", "Cannot be determined",
]  # fmt: skip
_GOLDS = [
    "[1, 1]", "[0.5, 0.5]", "[-3, -3]", "[1/2, 1/2]", "1", "1, 2", "2, 1, 1", r"\{1, 2, 3\}",
    "[1, 1, 1]", "[2, 2]",
]  # fmt: skip


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("math_verify") is None, reason="no math-verify")
def test_on_repeated_values_the_rung_agrees_with_math_verify() -> None:
    decided, disagreements = 0, []
    for answer in _ANSWERS:
        for gold in _GOLDS:
            fast = decide(answer, gold)
            if fast is None:
                continue
            decided += 1
            result = compare(answer, gold, 30.0)
            if result in ("timeout", "unreadable_gold", "unavailable"):
                continue
            if fast[0] is not (result == "equal"):
                disagreements.append((answer, gold, fast, result))
    assert disagreements == []
    assert decided >= 240
