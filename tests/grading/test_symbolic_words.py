"""Parts of letters, as math-verify reads them, decided before math-verify.

In a text with no brackets, relations or commands, math-verify's LaTeX reading is the list of
its parts (it splits at commas, semicolons and the words "and" and "or"), and it reads a part
of letters as a product of real symbols: ``the generators of Z are 1`` is ``t*h*e*...*z*1``,
never a number. So a text holding such a part never states a gold of plain values, and
neither does a text with more distinct plain numbers than the gold has values. Letters that
are numbers to it (``e``, ``I``), a zero factor, a unit it strips off the end and the words
it reads as functions are the exceptions, each left to math-verify. The rule is checked
live against math-verify on constructed answers and golds (skipped without math-verify).
"""

from __future__ import annotations

import pytest

from answerx.grading.symbolic import decide
from symbolic_checks import needs_math_verify, sweep


def test_a_part_of_words_is_never_one_of_the_golds_values() -> None:
    assert decide("the generators of the cyclic group Z are 1 and -1", "[1, -1]") == (
        False,
        "symbolic_tuple",
    )
    assert (
        decide("0.022 for the 40 psi tire and 0.011 for the 105 psi tire", "[0.02, 0.01]")[0]
        is False
    )
    assert decide("roots 1 and -1", r"\{1, -1\}") == (False, "symbolic_set")


def test_more_distinct_numbers_than_the_gold_has_values_are_never_the_gold() -> None:
    assert decide("the keys are: 3, 4, 5, 6, 7, 8, 9", "[4, 5, 7, 11, 19]") == (
        False,
        "symbolic_tuple",
    )


def test_a_bracket_around_it_all_keeps_the_parts_compared() -> None:
    assert decide("[finite, finite]", "[1, 2]") == (False, "symbolic_interval")
    assert decide("(a b, 2, 3)", "[1, 2, 3]") == (False, "symbolic_tuple")


def test_letters_right_before_a_bracket_are_a_function_applied() -> None:
    assert decide("the list [4, 5, 7, 11]", "[4, 5, 7, 11]") == (False, "symbolic_tuple")
    assert decide("the keys [1, 2] and [3, 4]", "[1, 2, 3, 4]") == (False, "symbolic_tuple")
    assert decide("x lies in [2, 6]", "[2, 6]") == (False, "symbolic_interval")  # n(2, 6)
    assert decide("[f(1), f(2)]", r"\{1, 2\}") == (False, "symbolic_set")
    assert decide("i (1, 2)", "(1, 2)") is None  # the imaginary unit


def test_an_equation_or_a_brace_beside_a_part_of_letters_keeps_it_a_part() -> None:
    assert decide("the kernel of f, K_f, is {0}", "[4, 1]") == (False, "symbolic_tuple")


def test_a_product_with_a_zero_is_none_of_a_gold_without_zero() -> None:
    # 0 or a product of symbols, whichever math-verify makes of it: neither 4 nor 1
    assert decide("Kf = {0}, the set containing only the element 0", "[4, 1]") == (
        False,
        "symbolic_tuple",
    )
    assert decide("the element 0, 2", "(0, 2)") is None


def test_values_given_to_names_in_prose_are_compared_with_the_golds() -> None:
    assert decide("the values are a = 1, b = 2", "(1, 3)") == (False, "symbolic_tuple")
    assert decide("the values are a = 1, b = 3", "(1, 3)") is None  # a match: math-verify's


def test_a_list_of_numbers_left_open_is_one_number_or_its_parts() -> None:
    # cut off in a loop: math-verify's LaTeX reading fails and it takes the last number;
    # closed, it would keep 101 values as a tuple or 4 as a set: never the gold's 12
    cut = "[" + "2, 3, 4, 1, " * 25 + "2"
    assert decide(cut, "[1, 0, 1, 1, 3, 0, 1, 1, 3, 1, 1, 3]") == (False, "symbolic_tuple")
    assert decide("[1, 1, 1", "[-1.78, 0.28]") == (False, "symbolic_interval")
    assert decide("[2, 3, 4, 1, 2", r"\{1, 2, 3, 4\}") is None  # read whole: the set


def test_letters_math_verify_reads_as_numbers_are_left_to_it() -> None:
    assert decide("I I, 2", "(-1, 2)") is None  # the imaginary unit squared is -1
    # math-verify strips the unit ("2, 5"): read as it normalises the text, the pair
    assert decide("2, 5 meters", "(2, 5)") == (True, "symbolic_tuple")
    assert decide("the gcd 1, 2", "(1, 2)") is None  # a function it knows by name
    assert decide("ab : ba, 1", "(1, 2)") is None  # a quotient: letters may cancel


# Answers built to meet each exception of the rule, beside plain prose around values.
_ANSWERS = [
    "the generators of the cyclic group Z are 1 and -1", "that 1 and -1 are generators",
    "roots 1 and -1", "roots 1, roots -1", "x 1, 2", "x 5 cm, 2", "2, x 5 cm", "2, 5 meters",
    "2, 5 cm", "I I, 2", "1 I I, 2", "e, 2", "e e, 2", "i, 2", "I, 2", "2 e, 1",
    "the element 0, 2", "the element 0.0, 1", "x 0e5, 1", "non-zero 1, 2", "x - x, 2",
    "x/x, 2", "x : x, 2", "ab : ba, 1", "the keys: 3, 4, 5", "the keys are 3; 4",
    "keys 3; 4; 5", "x And 2", "x AND 2 and 3", "x or 2", "the gcd 1, 2", "zeros 1, 2",
    "x trace 1, 2", "d 1, 2", "dx, 2", "the answer is 1 and 2", "answer: 3, 4",
    "final answer is 1, 2", "pi, 2", "x infinity, 2", "a sqrt 4, 2", "5 percent, x",
    "N3, N4", "N3, N4, N5", "1, 2, 3, 4, x", "1, 2, 2, 2", "3.5 for a, 4.5 for b",
    "3 for the first, 4 for the second", "four and 1", "x 1e5, 2", "it's 1, 2",
    "x 1 y 2, 3", "1.5 x 2.5, 3", "2 monkeys, 3 monkeys", "-x, 2", "- x y, -1",
    "1, -1 are the generators", "the values are 4, 1", "4, 1 and 7 or 8",
    "[finite, finite]", "[a, 2]", "(a, 2)", "(a b, 2, 3)", "[x 1, 2)", "(roots 1, -1)",
    "[e, 2]", "(I I, 2)", "(the element 0, 2)", "[1, 2, x]", "(x, x)", "[x, 5 cm]",
    "(3, 4, 5, 6, x)", "[]", "(x - x, 2)", "[a, b] and [c, d]", "(1, 2) and x",
    "[2, 3, 4, 1, 2", "(2, 3, 4, 1, 2", "2, 3, 4, 1, 2]", "[1, 1, 1", "1, 1, 1, 2]", "[1, 2",
    "1,000, 2]", "[4, 1", "(1 and 2", "[" + "1, " * 150 + "1", "[" + "2, 3, 4, 1, " * 30 + "2",
    "the list [4, 5, 7, 11]", "t [1, 2, 3]", "the roots are x(1, 2)", "the roots are [1, 2]",
    "the keys [1, 2] and [3, 4]", "x (0, 0)", "x (1, 2) 0", "0 x (1, 2)", "the roots (1, 2)",
    "I (1, 2)", "i (1, 2)", "d (1, 2)", "x [1, 2) and 3", "f(1, 2), 3", "the values 1, 2 in [1, 2]",
    "the set is {1, 2}", "gcd (4, 6)", "ab (1, 2) cd", "x(1), 2", "[1, 2], x", "(1, 2) and x y",
    "x - x (1, 2)", "the pair E(4, 1)", "the pair e(4, 1)", "x (4, 1) y, 2",
    "The eigenvalues are: [1, 2]", "the roots: (1, 2)", "the list is [1, 2, 3].", "x: (1, 2, 3)",
    "x : (2, 2)", "ab: (1, 2) cd", "the roots are: [4, 1]", "x: (1), 2", "0: (1, 2)",
    "the list is [1]", "x (2)", "x (0)", "x (1 - 1)", "x (y)", "x 0 (1, 2)", "the 0 [4, 1]",
    "the 0 list [1, 2, 3]", "x (0), y (1)", "x (1 - 1), 2", "x [1, 2], y [3, 4]", "-(1, 2, 3)",
    "x, -(1, 2, 3)", "x 0 (1, 2), 0", "the kernel of f, K_f, is {0}", "Kf = {0}, the set",
    "the root, x = 1", "x = 1, the root", "the root = 1, 2", "x = 1, 2, the root", "a = 1, b = 2",
    "the values are a = 1, b = 0", "so x = 1 and y = 2", "x = 1, y = 2, z = 3", "a_1 = 4, a_2 = 1",
    "V_A = 4 and V_B = 1", "a = 1, b = 1", "x = 1, 2", "the roots x = 0.02, x = 0.01",
    "the value {1} and x", "x {2} y, 1", "f_x, 4", "x = 4, y = 1 are roots",
    "Kf = {0}, the set containing only the element 0", "the element 0, 1", "x 0 y, 0 z",
    "0 x, 1", "x 0 (1, 2) 0, 1", "the 0 list [4, 1]", "x (0), 1", "[f(1), f(2)]",
    "(f(1), g(2), h(3))", "[f(0), 1]", "[x (1, 2), 3]", "[(1, 2), x]", "[f(1)]", "(f(1), 2]",
]  # fmt: skip
# One gold of each kind the rule meets: a pair, a set, an open interval (with 0, with e), a
# pair the wrong way round, tuples (with repeats, with 0), a closed interval, longer lists.
_GOLDS = [
    "[1, -1]", r"\{1, -1\}", "(0, 2)", "(1, 2)", "[4, 1]", "(2, 5)", "(2.718281828459045, 2)",
    "[1, 2, 3]", "[1, 1, 2]", "[0, 1, 0]", "[3, 4]", "(-1, 2)", r"\{0, 1\}", "[0.02, 0.01]",
    "[4, 5, 7, 11, 19]", r"\{1, 2, 3, 4\}", "[1, 0, 1, 1, 3, 0, 1, 1, 3, 1, 1, 3]",
]  # fmt: skip


@pytest.mark.slow
@needs_math_verify
def test_on_constructed_parts_of_letters_the_rung_agrees_with_math_verify() -> None:
    decided, disagreements = sweep(_ANSWERS, _GOLDS)
    assert disagreements == []
    assert decided >= 1500
