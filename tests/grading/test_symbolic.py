"""The fast symbolic rung: what it decides, how it names it, what it leaves to math-verify.

Examples of issue 29 (symbolic answers without math-verify) and of the grading half of
issue 23 §5 (several values, intervals against inequalities, functions and equations).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from answerx.grading import HOWS, grade
from answerx.grading.symbolic import decide
from answerx.grading.symbolic.evaluate import MODULAR_POINTS, POINTS

SYMBOLIC = [
    # (answer, gold, correct, how)
    # numbers: surds exactly, the rest to 50 digits
    (r"2\sqrt{5}", r"\sqrt{20}", True, "symbolic_fast"),
    (r"\frac{\sqrt{3}}{2}", r"\frac{3}{2\sqrt{3}}", True, "symbolic_fast"),
    (r"\frac{1}{1+\sqrt{2}}", r"\sqrt{2}-1", True, "symbolic_fast"),
    (r"\sqrt{10}", r"2\sqrt{5}", False, "symbolic_fast"),
    (r"3\pi", r"\frac{6\pi}{2}", True, "symbolic_fast"),
    (r"\frac{\pi}{3}", r"\frac{\pi}{6}", False, "symbolic_fast"),
    (r"\sin\frac{\pi}{6}", r"\frac12", True, "symbolic_fast"),
    (r"\log_2(8) \cdot e^0", "3", True, "symbolic_fast"),
    (r"\ln e^3", r"3", True, "symbolic_fast"),
    (r"\frac{6!}{2}", "360", True, "symbolic_fast"),
    (r"\binom{5}{2}", "10", True, "symbolic_fast"),
    (r"2 \times 3 \cdot 4", "24", True, "symbolic_fast"),
    (r"4\frac{2}{3}", r"\frac{14}{3}", True, "symbolic_fast"),  # a mixed number
    ("2 * sqrt(26)", r"2\sqrt{26}", True, "symbolic_fast"),  # plain text: math-verify misreads
    ("2pi", r"2\pi", True, "symbolic_fast"),
    ("√(6√3)", r"\sqrt{6\sqrt{3}}", True, "symbolic_fast"),
    (r"-\frac{10}{9}", r"\frac{-10}{9}", True, "symbolic_fast"),
    (r"\infty", "64", False, "symbolic_fast"),
    ("204_5", "204", True, "symbolic_fast"),  # a base subscript: the digits, as math-verify reads
    (r"4 \cos^2 w", "4", False, "symbolic_fast"),  # a function of w differs at some point
    ("No solution", "5", False, "symbolic_fast"),  # prose against a number
    ("Cannot be determined", r"\frac{\sqrt3}{2}", False, "symbolic_fast"),
    ("b_solution", "7", False, "symbolic_fast"),  # a placeholder left as the answer
    # percentages and degrees, as math-verify reads them
    (r"20\%", r"\frac15", True, "symbolic_fast"),
    (r"12.5\%", "12.5", False, "symbolic_fast"),
    (r"90^\circ", "90", True, "symbolic_fast"),
    # decimals alone are rounded to 6 places (math-verify's rule)
    (r"1.414214", r"\sqrt{2}", True, "symbolic_fast"),
    (r"1.4142", r"\sqrt{2}", False, "symbolic_fast"),
    # expressions in variables: rational functions at fixed points
    (r"(x-1)^2", r"x^2-2x+1", True, "symbolic_fast"),
    (r"(x+1)^2", r"x^2-2x+1", False, "symbolic_fast"),
    (r"\frac{x^2-1}{x-1}", r"x+1", True, "symbolic_fast"),
    (r"3yx^2", r"3x^2y", True, "symbolic_fast"),
    (r"k\pi + \frac{\pi}{6}", r"\frac{\pi}{6} + k\pi", True, "symbolic_fast"),
    (r"9n", "18", False, "symbolic_fast"),
    # several values: a set unless the gold is a tuple
    (r"\{1, 0, -1\}", "-1,0,1", True, "symbolic_set"),
    (r"x = -1, x = 0, x = 1", "-1,0,1", True, "symbolic_set"),
    (r"x \in \{-1, 0, 1\}", "-1,0,1", True, "symbolic_set"),
    ("-2, -1, 2", "$-1$,$2$,$-2$", True, "symbolic_set"),
    ("-2,-1,0,1,2,10,11,12,13,14", "10,11,12,13,14,-2,-1,0,1,2", True, "symbolic_set"),
    ("10,11,12,13,14", "10,11,12,13,14,-2,-1,0,1,2", False, "symbolic_set"),
    ("4,-3", "-3,4", True, "symbolic_set"),
    (r"1+\sqrt{19}, 1-\sqrt{19}", r"1 \pm \sqrt{19}", True, "symbolic_set"),
    ("(4, 0), (1, 3)", "(1, 3), (4, 0)", True, "symbolic_set"),
    ("2, -1", "2", False, "symbolic_set"),
    ("(3, 1)", "(1, 3)", False, "symbolic_tuple"),
    ("(6, 31, 1-2)", r"\left(6,31,-1\right)", True, "symbolic_tuple"),
    ("3, 2, 1", "(1, 2, 3)", False, "symbolic_tuple"),
    # intervals and inequalities, either way round
    ("k < -5", r"(-\infty,-5)", True, "symbolic_interval"),
    (r"(-\infty,-5)", "k < -5", True, "symbolic_interval"),
    (r"\frac12 \le x \le 8", r"[\frac12, 8]", True, "symbolic_interval"),
    (r"x \ge 3", r"[3, \infty)", True, "symbolic_interval"),
    ("x > 3", r"[3, \infty)", False, "symbolic_interval"),
    (r"(12, 102) \cup (2, 12)", r"(2, 12) \cup (12, 102)", True, "symbolic_interval"),
    (r"(-\infty, 1] \cup [1, 3)", r"(-\infty, 3)", True, "symbolic_interval"),
    (r"(2, 102)", r"(2, 12) \cup (12, 102)", False, "symbolic_interval"),
    # equations and functions
    ("f(z)=z", "f(n) = n", True, "symbolic_equation"),
    ("f(z)=2z", "f(n) = n", False, "symbolic_equation"),
    ("y = 2x+1", "2x+1", True, "symbolic_equation"),
    ("2x+1", "y = 2x+1", True, "symbolic_equation"),
    ("x = 5+5+1", "x = 11", True, "symbolic_equation"),
    (r"2\cos x \sin x", r"2\sin x \cos x", True, "symbolic_fast"),  # the same terms, reordered
    (r"30^\circ \cdot \frac{\pi}{180}", r"\frac{\pi}{6}", True, "symbolic_fast"),
    ("12 or 13", "12, 13", True, "symbolic_set"),
    (r"x = 2 \text{ or } x = 3", "3, 2", True, "symbolic_set"),
    ("8^5 |z|^{80}", "65536", False, "symbolic_fast"),
    ("(25^2 + 12^2) = 625 + 144 = 769", "769", True, "symbolic_equation"),  # its last side
]


@pytest.mark.parametrize(("answer", "gold", "correct", "how"), SYMBOLIC)
def test_symbolic_answers_are_decided_by_the_fast_rung_with_its_own_how(
    answer: str, gold: str, correct: bool, how: str
) -> None:
    verdict = grade(answer, gold, "math")
    assert (verdict.correct, verdict.how) == (correct, how)
    assert how in HOWS


@pytest.mark.parametrize(
    ("answer", "gold", "correct"),
    [("1/2x", r"\frac{1}{2x}", True), ("1/2x", r"\frac{x}{2}", False),
     (r"1/2\pi", r"\frac{1}{2\pi}", True), (r"4/3\pi r^3", r"\frac{4}{3\pi r^3}", True),
     ("a/bc", r"\frac{a}{bc}", True), (r"1/2x \cdot 1/3y", r"\frac{1}{6xy}", True),
     ("1+1/2x", r"1+\frac{1}{2x}", True)],
)  # fmt: skip
def test_a_product_after_a_slash_is_the_divisor_as_math_verify_reads_it(
    answer: str, gold: str, correct: bool
) -> None:
    assert decide(answer, gold) == (correct, "symbolic_fast")


def test_a_decimal_equal_to_an_integer_is_that_integer_and_no_other() -> None:
    assert grade("4.0", "4", "math").correct is True
    assert grade("4.0", "4.2", "math").correct is False


@pytest.mark.parametrize(
    ("answer", "gold"),
    [(r"\tan^2(y)+1", r"\sec^2(y)"),  # a variable inside a function
     (r"\sin 30^\circ", r"\frac12"),  # math-verify reads 30 radians there
     ("x = 2", "y = 2"),  # names differ: whether that matters is math-verify's call
     (r"\sqrt{x^2}", "|x|"), (r"\{1, 3\}", "(x, 3)"),  # a pair or an open interval?
     ("x-1/3y", r"x-\frac{y}{3}"),  # after a minus math-verify reads 1/3y as y/3, a-b/cd not
     (r"1/2\frac13", r"\frac16"),  # no reading at all
     (r"\sin x/2", r"\frac{\sin x}{2}"), (r"\log 8 2", "1"),  # math-verify: sin(x/2), log(10)
     (r"i^2", "-1"), (r"\begin{pmatrix}1\\2\end{pmatrix}", "1,2"),
     ("1,000", "1000"), (r"\infty", "x"), ("three", "3"),  # number words: not this rung's
     ("1", "2x + z = 1")],  # an equation as the gold: math-verify solves it
)  # fmt: skip
def test_what_the_fast_rung_cannot_tell_goes_on_to_math_verify(answer: str, gold: str) -> None:
    assert decide(answer, gold) is None
    assert not grade(answer, gold, "math").how.startswith("symbolic_")


@pytest.mark.parametrize(
    ("answer", "gold"),
    [("12 cm", "12"), ("5 km", "5"), ("12 degrees", "12"), ("7 ways", "7"),
     ("12 apples", "12"), (r"\frac{1}{2} m", r"\frac12"), (r"5\text{ cm}", "5")],
)  # fmt: skip
def test_a_value_with_its_unit_is_read_as_math_verify_strips_the_unit(
    answer: str, gold: str
) -> None:
    # Read by this grammar, "12 cm" would be 12 * c * m and differ from 12; the unit is
    # stripped by math-verify's own normalisation (symbolic/readings.py), as it strips it.
    assert decide(answer, gold) == (True, "symbolic_fast")
    verdict = grade(answer, gold, "math")
    assert (verdict.correct, verdict.how) == (True, "symbolic_fast")


def test_a_gold_with_its_unit_is_left_to_math_verify() -> None:
    assert decide("3", "3 hours") is None
    verdict = grade("3", "3 hours", "math")
    assert (verdict.correct, verdict.how) == (True, "math_verify")


# Each of these would keep a computer algebra system busy for minutes, or fill memory.
HOSTILE = [
    r"9^{9^{9}}",
    r"10^{10^{10}}",
    r"2^{2^{2^{2^{2}}}}",
    r"1000!",
    r"\binom{100000}{50000}",
    r"\sin(10^{100})",
    r"e^{e^{e^{10}}}",
    r"\sqrt{" * 300 + "2" + "}" * 300,
    "(" * 5000 + ")" * 5000,
    "1+" * 2000 + "1",
    r"x^{1000000} - 1",
    r"(x+1)^{999}",
    r"\sqrt{10^{30}+1}",
    "123456789" * 50,
    r"\frac{1}{3}" * 40,
    r"\left(" * 100 + "1" + r"\right)" * 100,
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_any_input_is_decided_or_passed_on_within_a_bounded_time(text: str) -> None:
    started = time.process_time()
    for gold in ("1", "x^2", r"\pi"):
        result = decide(text, gold)
        assert result is None or result[1].startswith("symbolic_")
    assert time.process_time() - started < 1.0  # CPU seconds: milliseconds when idle


def test_the_comparison_points_are_fixed() -> None:
    assert POINTS[0][:2] == POINTS[0][:2] and len(POINTS) == 12 and len(MODULAR_POINTS) == 12
    assert len({p for point in POINTS for p in point}) > 40  # distinct, not one value reused
    assert len({p for point in MODULAR_POINTS for p in point}) == 48


def test_verdicts_from_many_threads_are_those_of_the_main_thread() -> None:
    cases = [(a, g) for a, g, _, _ in SYMBOLIC] * 8
    on_main = [decide(a, g) for a, g in cases]
    with ThreadPoolExecutor(max_workers=8) as pool:
        off_main = list(pool.map(lambda case: decide(*case), cases))
    assert off_main == on_main


_LATEX = st.sampled_from(
    ["x", "y", "2", "13", "0.5", "+", "-", r"\cdot", "/", "^", "{", "}", "(", ")", "[", "]",
     ",", "=", "<", r"\le", r"\sqrt", r"\frac", r"\pi", "e", r"\sin", r"\infty", r"\cup",
     r"\{", r"\}", r"\pm", "!", r"\%", r"^\circ", "|", r"\ln", r"\binom"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    answer=st.lists(_LATEX, max_size=14).map("".join),
    gold=st.lists(_LATEX, max_size=8).map("".join),
)
def test_the_fast_rung_never_raises_and_an_answer_equals_itself(answer: str, gold: str) -> None:
    result = decide(answer, gold)
    assert result is None or (isinstance(result[0], bool) and result[1] in HOWS)
    assert decide(answer, answer) in (None, (True, "symbolic_fast"), (True, "symbolic_set"),
                                      (True, "symbolic_tuple"), (True, "symbolic_interval"),
                                      (True, "symbolic_equation"))  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(
    roots=st.lists(st.integers(-9, 9), min_size=1, max_size=4),
    scale=st.integers(1, 5),
)
def test_a_factored_polynomial_equals_its_expansion(roots: list[int], scale: int) -> None:
    factored = f"{scale}" + "".join(f"(x{-r:+d})" for r in roots)
    coefficients = [scale]  # expand scale * prod(x - r), highest degree first
    for r in roots:
        coefficients = [
            a - r * b for a, b in zip([*coefficients, 0], [0, *coefficients], strict=True)
        ]
    degree = len(coefficients) - 1
    expanded = "+".join(f"({c})x^{{{degree - i}}}" for i, c in enumerate(coefficients))
    assert decide(factored, expanded) == (True, "symbolic_fast")
    assert decide(factored, expanded + "+1") == (False, "symbolic_fast")


def test_without_math_verifys_unit_pattern_any_trailing_word_counts_as_a_unit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.util

    from answerx.grading.symbolic import lexer

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    lexer._units.cache_clear()
    try:
        assert lexer.ends_in_unit("12 widgets") and lexer.ends_in_unit("12 cm")
        assert not lexer.ends_in_unit(r"2\sqrt{5}") and not lexer.ends_in_unit("x^2+1")
    finally:
        lexer._units.cache_clear()


def test_prepare_loads_now_what_the_first_item_would_load() -> None:
    from answerx.grading.symbolic import prepare
    from answerx.grading.symbolic.lexer import _units
    from answerx.grading.symbolic.readings import load_extraction

    _units.cache_clear()
    prepare()
    assert _units.cache_info().currsize == 1  # the unit pattern: read once, before any item
    assert load_extraction.cache_info().currsize == 1  # math-verify's patterns: imported
    assert decide("12 cm", "12") == (True, "symbolic_fast")  # and still the same pattern
