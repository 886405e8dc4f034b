"""Every reading math-verify's own extraction can end with, followed before math-verify.

math-verify tries the candidates its patterns find (``$...$`` pieces, numbers, the whole
text), in its order, and takes the first that latex2sympy reads. The fast rung runs those
patterns itself and decides an answer only where every reading math-verify could end with
gives the same verdict: a candidate its grammar reads ends the walk; a sentence it does not
read may read (as a product of symbols, a relation, an equation compared by its right side)
or fail (math-verify goes on), and both are followed. Checked live against math-verify on
answers built in each shape (skipped without math-verify).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from answerx.grading.symbolic import decide
from symbolic_checks import needs_math_verify, sweep

pytestmark = needs_math_verify


def test_the_number_math_verify_finds_last_is_the_one_it_reads() -> None:
    # the number ends after the $...$ piece: math-verify tries it first, and a number reads
    assert decide("so $a=3$, hence 4", "4") == (True, "symbolic_fast")
    assert decide("so $a=3$, hence 4", "3") == (False, "symbolic_fast")


def test_pieces_in_dollars_are_read_alone_and_joined_as_a_set() -> None:
    assert decide("the roots are $1$ and $2$", r"\{1, 2\}") == (True, "symbolic_set")
    assert decide("the roots are $1$ and $2$", "[1, 2]") == (False, "symbolic_interval")


def test_prose_around_numbers_is_never_a_number_however_it_reads() -> None:
    # read: two products of symbols; failing: the last number, 6. Neither is 12.
    assert decide("6 positive integers, 6 negative integers", "12") == (False, "symbolic_fast")
    assert decide("The exact value of $(x+1)^{48}$ is complex", "125") == (False, "symbolic_fast")


def test_a_list_cut_at_both_ends_fails_to_read_and_its_last_number_is_taken() -> None:
    # a bracket closing before any opens is a syntax error to latex2sympy
    assert decide("V_A, V_B] = [5V, 20V", "[5, 20]") == (False, "symbolic_interval")
    assert decide("a, b] = [1, 2", "2") == (True, "symbolic_fast")


def test_inequalities_and_function_values_are_never_plain_numbers() -> None:
    assert decide("so x > 3 and x < 5", "[3, 5]") == (False, "symbolic_interval")
    assert decide("[f(1), f(2)]", "[1, 2]") == (False, "symbolic_interval")


def test_where_the_readings_disagree_math_verify_decides() -> None:
    # read: x' = [1, 2, 3], compared by its right side (the gold); failing: 3 (not the gold)
    assert decide("the values x' = [1, 2, 3]", "[1, 2, 3]") is None
    assert decide("3 > 2", "[1, 2]") is None  # numbers in a relation: sympy may evaluate it


# Answers built in the shapes that reached math-verify on outside outputs: names given lists
# in prose (also cut at both ends), text with its own $...$, relations, lists of function
# values, sentences ending in a bracket, prose around numbers.
_NAMES = [
    "the values x' = [1, 2, 3]",
    "so [a, b] = [1, 2]",
    "a, b] = [1, 2",
    "a, b] = [2, 1",
    "V_A, V_B] = [5V, 20V",
    "x, y) = (1, 2",
    "x, y) = (2, 1",
    "x = [1, 2] and y = 3",
    "the solution is (x, y) = (1, 2)",
    "we get x=[1,2,3].",
    "roots: x = (1, 2)",
    "the pair is (a, b) = (3, 4)",
    "the vector v = [1, 2, 3] here",
    "P = [5, 20]",
    "a_1, a_2] = [1, 2",
    "u, v, w] = [4, 5, 6",
    "so the answer x = [1, 2, 3] is final",
    "the points x = 1, 2",
    "f = [1, 2, 3]",
    "N1, N2] = [3, 4",
    "the interval is I = [0, 1]",
    "set S = {1, 2}",
    "the sets are x = {1, 2}",
    "the x-values = [2 V, 3 V]",
    "the eigen-values = [1, 2]",
    "the x-intercepts = [1, 2] U [3, 4]",
    "so x-y = [5, 20] roughly",
]
_DOLLARS = [
    "the roots are $1$ and $2$",
    "the roots are $1$ and $3$",
    "we get $x = 2$",
    r"$\frac{1}{2}$ is the value",
    "the answer is $3$ or $4$",
    "so $a=3$, hence 4",
    "value $3$%",
    "we find $12$",
    "it is $(1, 2)$",
    "it is $[1, 2]$ exactly",
    "the list $[1, 2, 3]$",
    "$1$, $2$ and $3$",
    "take $x=12$ apples",
    "$12$ apples and 13 pears",
    "roughly $0.5$",
    r"we have $\{1, 2\}$",
    "so $f(1) = 2$",
    "the values $-1$ and $3$",
    "exactly $5$ and $20$",
    r"$\sqrt{4}$ and $1$",
    "the result is $2$.",
    "first $3$ then $4$",
    "The exact value of $(x+1)^{48}$ is complex",
    "The smallest value of $|zw|^2$ is about 10",
]
_RELATIONS = [
    "x > 3",
    r"x \le 2",
    "0 < x < 1",
    "so x > 3 and x < 5",
    r"x \geq 2, y < 1",
    "3 > 2",
    "1 < 2 < 3",
    "the solution is x > 1",
    "k < -5",
    r"a \le b",
    "x > 0, x < 2",
    r"t \ge 12",
    "for x > 3 the value is 12",
    "x < 1 or x > 2",
    "so f(x) < 0 for x in (1, 2)",
    r"y \lt 4",
    r"n \geqslant 5",
    "x > 3 cm",
    "x>1,y>2,z>3",
    "I > 2",
]
_CALLS = [
    "[f(1), f(2)]",
    "[g(0), g(1), g(2)]",
    "[V(A), V(B)]",
    "(f(2), f(3))",
    "[e(1), e(2)]",
    "[i(1), i(2)]",
    "[x(1), 2]",
    "[f(1), 2, 3]",
    "[h(3), h(4)]",
    "[p(1), q(2)]",
    "[f(0), f(1)]",
    "[F(1), F(2)]",
    "[f(1), f(2)] = [1, 2]",
    "[d(1), d(2)]",
    "[P(A), P(B), P(C)]",
    "(a(1), b(2))",
    "[f(1) , f(2)]",
    "[f(x), g(x)]",
    "[s(5), s(20)]",
    "[f(1.5), f(2.5)]",
    "[10 + 0.9 * V(A'), 10 + 0.9 * V*(A')]",
]
_ENDS_IN_A_BRACKET = [
    "it is (1, 2)",
    "the interval is [1, 2]",
    "the answer is (3)",
    "we find the pair (1, 2)",
    "values [1, 2, 3]",
    "solution (x = 2)",
    "the set {1, 2}",
    "so it lies in [0, 1]",
    "1) the value is 3",
    "the roots are (3, 4)",
    "we get [5, 20]",
    "the list [4, 5, 6]",
    "point (2, 1)",
    "the keys (1, 2) and (3, 4)",
    "range [-1, 3]",
    "at x = 3 (the maximum)",
    "12 (approximately)",
    "the total is 12 (dollars)",
    "it equals (1)",
    "hence [3]",
]
_PROSE_NUMBERS = [
    "6 positive integers, 6 negative integers",
    "12 apples",
    "there are 12 ways",
    "1 + tan 5° - tan 15°",
    "The value is 12",
    "about 12.0 units",
    "12 or 13",
    "the answer is 12",
    "12 and 12",
    "we get 3 solutions",
    "3 and 4 are the roots",
    "5 apples and 20 pears",
    "x is 3",
    "the ratio 1/2",
    "0 items",
    "exactly 0.5 of it",
    "1, 2 and 3 in order",
    "the numbers 4, 5, 6",
    "no solution exists",
    "N4",
    "N8, N12, N3",
    "2 pi",
    "12 cm",
    "the 2 values 1 and 2",
    "1 or 2 or 3",
    r"about \frac{1}{2} of it",
    r"x \cdot 3, 4",
    "the total 2 x + 1",
    r"12 \cdot n",
    r"\sqrt{2} m, 3",
    "x - x + 12 apples",
    r"a \cdot \frac{1}{a}, 2",
    "1,000",
    "1,000 and 2",
    "so 10 + 2 * x",
    "about 3 + 4 * n items",
    "it is 2 ^ k",
    "5 - (x + 1)",
]
_GOLDS = ["12", "3", "2", "0", "0.5", "1", "20", "[1, 2, 3]", "[1, 2]", "[2, 1]", "[3, 4]",
          "(1, 2)", r"\{1, 2\}", "[0, 1]", "[5, 20]", "[-1, 3]", "[4, 5, 6]"]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize(
    "answers",
    [_NAMES, _DOLLARS, _RELATIONS, _CALLS, _ENDS_IN_A_BRACKET, _PROSE_NUMBERS],
    ids=["names", "dollars", "relations", "calls", "ends-in-a-bracket", "prose-numbers"],
)
def test_on_constructed_answers_of_each_shape_the_rung_agrees_with_math_verify(
    answers: list[str],
) -> None:
    decided, disagreements = sweep(answers, _GOLDS)
    assert decided > 5 * len(_GOLDS)  # the sweep has something to check
    assert disagreements == []


# A file run's batch worker never loads math-verify: its grading workers (copies of the
# run's template) have the patterns, and make the walk for it, with the comparison.
_WALKED = [("so $a=3$, hence 4", "4"), ("so $a=3$, hence 4", "3"), ("3 > 2", "[1, 2]")]


@pytest.fixture
def without_patterns(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process as a batch worker: math-verify's patterns not loaded, and its
    comparisons made by grading workers drawn from a template."""
    from answerx.grading import symbolic
    from answerx.grading.symbolic import readings

    readings.load_extraction.cache_clear()
    symbolic._decide.cache_clear()  # decisions made with the patterns loaded
    monkeypatch.setattr(readings, "comparisons_elsewhere", lambda: True)
    yield
    readings.load_extraction()  # as the other tests found it


@pytest.mark.parametrize(("answer", "gold"), _WALKED)
def test_a_process_without_the_patterns_asks_its_grading_worker_for_the_walk(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, answer: str, gold: str
) -> None:
    from answerx.grading import core
    from answerx.grading._worker import _answer

    here = core.symbolic_then_math(answer, gold, 60)  # the patterns loaded in this process
    request.getfixturevalue("without_patterns")
    asked: list[tuple[str, str]] = []

    def worker(a: str, g: str, limit_s: float) -> object:
        asked.append((a, g))
        with monkeypatch.context() as inside:  # what a grading worker answers (JSON: a list)
            inside.setattr("answerx.grading.mathverify._IN_WORKER", True)
            reply = _answer(["rung", a, g])
        return tuple(reply) if isinstance(reply, list) else reply

    monkeypatch.setattr(core, "compare_with_rung", worker)
    from answerx.grading.symbolic import readings

    # In the worker itself the walk is made there: it is no batch worker.
    monkeypatch.setattr(readings, "comparisons_elsewhere", lambda: not asked)
    assert core.symbolic_then_math(answer, gold, 60) == here
    assert asked == [(answer, gold)]


@pytest.mark.usefixtures("without_patterns")
def test_where_no_grading_worker_can_start_the_walk_is_made_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from answerx.grading import core
    from answerx.grading.symbolic import readings

    monkeypatch.setattr(core, "compare_with_rung", lambda *_: None)  # no worker started
    assert core.symbolic_then_math("so $a=3$, hence 4", "4", 60) == (True, "symbolic_fast")
    assert readings.load_extraction.cache_info().currsize == 1  # loaded here, once
    assert core.symbolic_then_math("so $a=3$, hence 4", "3", 60) == (False, "symbolic_fast")
