"""Prose around values, and lists of named values, decided before math-verify.

The fast rung decides an answer its grammar does not read ("N4", "the eigenvalues of matrix
A are 3, 4, and 2") only where what math-verify can make of it is sure from its marks: one
value at most against several distinct values, no interval against a range with a closed
end. ``x = 1, y = -2, z = 3`` is compared value by value with a gold of values. Each rule is
checked live against math-verify: on constructed answers and golds, and on every item of the
external corpus's tune half the rung decides (skipped when math-verify or the corpus is
absent).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from answerx.extraction import clean_answer, extract
from answerx.grading.symbolic import decide
from external import external_dir
from external import items as external_items
from symbolic_checks import math_verify_verdict, needs_math_verify, sweep


def test_one_value_in_prose_is_never_several_distinct_values() -> None:
    assert decide("N4", "[4, 5, 7, 11, 19]") == (False, "symbolic_tuple")
    assert decide("there are two positive real zeros of f(x)", "[3, 1]") == (
        False,
        "symbolic_tuple",
    )
    assert decide("No solution", r"\{1, 2\}") == (False, "symbolic_set")


def test_fewer_values_than_the_gold_holds_are_never_the_gold() -> None:
    # three values at most (two separators) against four: math-verify compares them in order
    assert decide("N8, N12, N3", "[7, 8, 10, 14]") == (False, "symbolic_tuple")
    # four, none of them surely no number (a quotient's letters may cancel): may be the gold
    assert decide("N:8, N:12, N:3, N:4", "[7, 8, 10, 14]") is None


def test_values_in_prose_are_never_a_range_with_a_closed_end() -> None:
    assert decide("the eigenvalues of matrix A are 3, 4, and 2", "[2, 6]") == (
        False,
        "symbolic_interval",
    )
    assert decide("based on the assumption that the problem is solved", "[8.8, 24.4]") == (
        False,
        "symbolic_interval",
    )
    assert decide("an empty list, []", "[-1.78, 0.28]") == (False, "symbolic_interval")


def test_prose_that_math_verify_could_read_as_the_gold_is_left_to_it() -> None:
    # two values, and "roots: 1" is a quotient (its letters might cancel): may be the pair
    assert decide("roots: 1 and -1", "[1, -1]") is None
    assert decide("it is 2", r"\{2, 2\}") is None  # the set {2}: one value
    assert decide("N:2, 3", "[3, 1]") is None  # a quotient and a number: may be the pair
    assert decide("it is 3", "x = 3, 4") is None  # equations: compared by rules of their own


def test_inside_its_own_dollars_the_text_is_read_where_math_verify_reads_it() -> None:
    # math-verify's extraction takes the $...$ alone: 3, one value, never the pair
    assert decide(r"it is $3$", "[3, 1]") == (False, "symbolic_tuple")


def test_values_given_to_names_are_compared_as_the_gold_orders_them() -> None:
    assert decide("x=-1, y=3, z=1", "[-1, 3, 1]") == (True, "symbolic_tuple")
    assert decide("x=1, y=-2, z=3", "[-1, 3, 1]") == (False, "symbolic_tuple")
    assert decide("x=3, y=-1", "-1, 3") == (True, "symbolic_set")
    assert decide(r"B=-\frac{1}{2}, C=\frac{1}{2}", "[3, 5]") == (False, "symbolic_interval")


def test_named_values_against_named_golds_or_repeated_values_are_left_to_math_verify() -> None:
    assert decide("a=7, b=3", "a=7, b=3") is None  # names compared too
    assert decide("x=1, y=1", "1") is None  # two equations, one value: math-verify counts
    assert decide("x=1, y=2, x=3", "[1, 2, 3]") is None


# Prose and named values as models write them around lists, beside answers the grammar reads.
_ANSWERS = [
    "N4", "N8, N12, N3", "the eigenvalues of matrix A are 3, 4, and 2", "No solution",
    "there are two positive real zeros of f(x)", "an empty list, []", "x = 2 or x = -3",
    "approximately 3.14", "the answer is 5 meters", "the roots are 1 and -1", "2 and 6",
    "3 and 1", "x=1, y=-2, z=3", "x=-1, y=3, z=1", "x=3, y=-1", "x=-1, y=3", "x=2, y=6",
    r"B=-\frac{1}{2}, C=\frac{1}{2}", "a=7, b=3", "x=1, y=1", "it is 2", "k = 4 and m = 1",
    "all real numbers between 2 and 6", "the interval from 2 to 6", "the set of 4 and 1",
    r"\operatorname{Re}(z)", "f is continuous", "0", "zero", "element 0", "is 0",
    "4 or 5 or 7", "1 \\pm 2", "the kernel is {0}", "the kernel of f, K_f, is {0}",
    "0.0259 and 0.00505", "3 apples", "2 meters", "element 0 and 1", "the values 1, 0",
    "0 and 1 hold", "all x with x > 2", r"N \to \infty", "x is 2 and y is 6", "p = 1/4",
    "approximately 0.26 and 0.005", "n = 3 or n = 1", "N8, N12, N3, N4", "an empty list, []",
    "1, 2]", "[1, 2", "x, [2]", "f(x), g(x)", "[a and b]", "values 2 and 6 (both)",
    r"x \subset 2", r"x \approx 3", "about 3", "3 meters", "6 meters and 2 meters",
    "i=1, j=2, k=3", "E=1, F=2", "x=1, I=2", r"\pi=1, x=2", "x_1=1, x_2=2",
    r"\alpha=1, \beta=2", "a=1, b=2, c=3", "a=3, b=2, c=1",
]  # fmt: skip
_GOLDS = [
    "[4, 5, 7, 11, 19]", "[7, 8, 10, 14]", "[2, 6]", "[3, 1]", "[1, -1]", "[-1, 3, 1]",
    "[8.8, 24.4]", "[0.0259, 0.00505]", "[4, 1]", "-1, 3", r"\{1, 2\}", "(2, 6)", "[0, 1)",
    "3", "[1, 1]", r"\{2, 2\}", "x = 3, 4", "[-3, 2]", "[0, 4]",
    "[0, 1]", "[1, 0]", "(0, 1)", "[0, 1, 2]", "[2, 4)", r"[1, 2] \cup [3, 4]", "[3, 3]",
    "[1, 2, 3]", "1, 2",
]  # fmt: skip


@pytest.mark.slow
@needs_math_verify
def test_on_constructed_prose_and_named_values_the_rung_agrees_with_math_verify() -> None:
    decided, disagreements = sweep(_ANSWERS, _GOLDS)
    assert disagreements == []
    assert decided >= 1200


@pytest.mark.slow
@needs_math_verify
@pytest.mark.skipif(external_dir() is None, reason="../shared/data/external not present")
def test_on_the_external_tune_half_every_decision_agrees_with_math_verify() -> None:
    folder = external_dir()
    assert folder is not None
    decided, disagreements = 0, []
    for _, item in external_items(folder, "tune", None):
        if item["task"] != "math":
            continue
        answer = extract(item["output"], "math").answer
        if answer is None:
            continue
        mine, gold = clean_answer(answer), clean_answer(str(item["gold"]))
        fast = decide(mine, gold)
        if fast is None:
            continue
        decided += 1
        if fast[0] is not math_verify_verdict(mine, gold):
            disagreements.append((mine, gold, fast))
    assert disagreements == []
    assert decided >= 90
