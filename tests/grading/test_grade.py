"""grade(): one answer against its gold answer, each task by its own ladder of predicates."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from answerx.errors import ConfigError
from answerx.grading import HOWS, REASONS, grade, infer_task

CHOICES = ["Mercury", "Venus", "Earth", "Mars"]

MATH = [
    # (answer, gold, correct, how)
    (r"\frac{1}{2}", "0.5", True, "fraction"),
    ("0.5", r"\frac{1}{2}", True, "fraction"),
    (r"\dfrac{3}{4}", "0.75", True, "fraction"),
    ("1000", "1,000", True, "fraction"),
    ("3", "4", False, "fraction"),
    ("2", "2", True, "exact"),
    (r"\left( 1, 2 \right)", "(1,2)", True, "normalised_math"),
    ("x=2", "2", True, "symbolic_equation"),
    ("x = 2", "2", True, "symbolic_equation"),
    (r"\boxed{2}", "2", True, "exact"),  # cleaning takes the box off first
    ("The answer is $2$.", "2", True, "exact"),
    (r"\{2, 1\}", r"\{1,2\}", True, "symbolic_set"),
    ("3,2", "2,3", True, "symbolic_set"),  # an unordered answer list is a set
    ("(0,1]", "[0,1)", False, "symbolic_interval"),
    (r"\frac{\sqrt2}{2}", r"\sqrt{2}/2", True, "symbolic_fast"),
    ("(x+1)^2", "x^2+2x+1", True, "symbolic_fast"),
    ("3.14159265358979", r"\pi", True, "symbolic_fast"),  # a decimal: rounded to 6 places
    ("50%", r"\frac{1}{2}", True, "symbolic_fast"),
    ("0.3333333", "1/3", True, "symbolic_fast"),  # rounded to 6 places, as math-verify does
    ("0.33", "1/3", False, "fraction"),  # further apart than that rounding: no need to ask
    ("x=3", "2", False, "symbolic_equation"),
    ("6√2", "6", False, "symbolic_fast"),  # math-verify alone would drop the root sign
    ("6√2", r"6\sqrt{2}", True, "symbolic_fast"),
    (r"\tan^2(y)+1", r"\sec^2(y)", True, "math_verify"),  # functions of a variable: math-verify
    (r"\begin{pmatrix}1\\2\end{pmatrix}", r"\begin{pmatrix}1\\2\end{pmatrix}", True, "exact"),
    (
        r"\begin{pmatrix}2\\2\end{pmatrix}",
        r"\begin{pmatrix}1\\2\end{pmatrix}",
        False,
        "math_verify",
    ),  # matrices: math-verify
]


@pytest.mark.parametrize(("answer", "gold", "correct", "how"), MATH)
def test_math_answers_are_decided_by_the_cheapest_predicate_that_can(
    answer: str, gold: str, correct: bool, how: str
) -> None:
    verdict = grade(answer, gold, "math")
    assert (verdict.correct, verdict.how) == (correct, how)
    assert verdict.reason == ("equivalent" if correct else "different")


def test_a_math_gold_of_plain_words_is_compared_as_text() -> None:
    verdict = grade("Odd.", "odd", "math")
    assert (verdict.correct, verdict.how) == (True, "normalised_text")


NUMERIC = [
    ("26", "26", True, "exact"),
    ("$1,234.50", "1234.5", True, "fraction"),
    ("1234.5", "$1,234.50", True, "fraction"),
    ("12 dollars", "12", True, "fraction"),
    ("50%", "50", True, "fraction"),
    ("1/2", "0.5", True, "fraction"),
    (r"\frac{3}{4}", "0.75", True, "fraction"),
    ("-3", "−3", True, "fraction"),
    ("x = 7", "7", True, "fraction"),
    ("0.3333333", "1/3", True, "numeric_tolerance"),  # within the default 1e-6
    ("0.33", "1/3", False, "numeric_tolerance"),
    ("1000001", "1000000", True, "numeric_tolerance"),  # relative: 1e-6 of a million is 1
    ("1000002", "1000000", False, "numeric_tolerance"),
    ("twenty-six", "26", True, "fraction"),  # a number in words (issue 23 §4)
    ("twenty-six", "62", False, "numeric_tolerance"),
    (r"\sqrt{25}", "5", True, "symbolic_fast"),  # LaTeX, not a plain number: the fast rung
]


@pytest.mark.parametrize(("answer", "gold", "correct", "how"), NUMERIC)
def test_numbers_match_exactly_or_within_tolerance(
    answer: str, gold: str, correct: bool, how: str
) -> None:
    verdict = grade(answer, gold, "numeric")
    assert (verdict.correct, verdict.how) == (correct, how)


def test_a_wider_tolerance_accepts_a_rounded_answer() -> None:
    assert grade("0.33", "1/3", "numeric", tolerance=0.01).correct is True


def test_a_gold_number_from_a_dataset_column_needs_no_string() -> None:
    assert grade("72", 72).reason == "equivalent"
    assert grade("0.5", 0.5).reason == "equivalent"


CHOICE = [
    ("B", "B", True, "letter"),
    ("(B)", "B", True, "letter"),
    ("b", "B", True, "letter"),
    ("(B) Venus", "B", True, "letter"),
    ("Option B", "B", True, "letter"),
    ("C", "B", False, "letter"),
    ("Venus", "B", True, "option_text"),
    ("Earth", "B", False, "option_text"),
    ("B", "Venus", True, "letter"),  # a gold answer given as the option's text
    ("A bit of both", "A", False, "letter"),  # prose, not the letter A
    ("Pluto", "B", False, "letter"),
]


@pytest.mark.parametrize(("answer", "gold", "correct", "how"), CHOICE)
def test_choices_match_by_letter_or_option_text(
    answer: str, gold: str, correct: bool, how: str
) -> None:
    verdict = grade(answer, gold, "multiple_choice", choices=CHOICES)
    assert (verdict.correct, verdict.how) == (correct, how)


def test_a_letter_that_is_not_an_option_is_malformed() -> None:
    verdict = grade("H", "B", "multiple_choice", choices=CHOICES)
    assert (verdict.correct, verdict.reason) == (False, "malformed_answer")


def test_a_gold_letter_that_is_not_an_option_cannot_be_read() -> None:
    verdict = grade("K", "K", "multiple_choice", choices=CHOICES)
    assert (verdict.correct, verdict.reason) == (None, "unreadable_gold")


@pytest.mark.parametrize(
    ("answer", "gold", "correct"),
    [("Yes, because the sum is even.", "yes", True), ("True", "yes", True),
     ("incorrect", "no", True), ("no", "yes", False), ("maybe", "yes", False)],
)  # fmt: skip
def test_booleans_match_in_any_spelling(answer: str, gold: str, correct: bool) -> None:
    verdict = grade(answer, gold, "boolean")
    assert (verdict.correct, verdict.how) == (correct, "boolean")


@pytest.mark.parametrize(
    ("answer", "gold", "correct"),
    [("The Eiffel Tower!", "eiffel tower", True), ("The answer is Paris.", "Paris", True),
     ("Paris, France", "Paris", False)],
)  # fmt: skip
def test_text_matches_after_squad_normalisation(answer: str, gold: str, correct: bool) -> None:
    verdict = grade(answer, gold, "text")
    assert (verdict.correct, verdict.how) == (correct, "normalised_text")


GAME24 = [
    ("(7 - 8 / 8) * 4", [4, 7, 8, 8], "equivalent"),
    ("8 / (3 - 8 / 3)", [3, 3, 8, 8], "equivalent"),  # needs exact fractions: 8 / (1/3)
    ("(4 × 6) × (1 ÷ 1)", [1, 1, 4, 6], "equivalent"),
    ("1 + 2 + 3 + 4", [1, 2, 3, 4], "different"),  # well formed, makes 10
    ("8 / (3 - 3) + 8", [3, 3, 8, 8], "different"),  # division by zero
    ("6 * 4 * 1 * 1 * 1", [1, 1, 4, 6], "malformed_answer"),  # a number used twice
    ("4 * 6", [4, 6, 6, 1], "malformed_answer"),  # numbers left out
    ("2 ** 4 + 8", [2, 4, 8], "malformed_answer"),  # powers are not allowed
    ("__import__('os').system('true')", [1, 2, 3, 4], "malformed_answer"),
    ("(" * 5000 + "1" + ")" * 5000, [1], "malformed_answer"),
]


@pytest.mark.parametrize(("expression", "numbers", "reason"), GAME24)
def test_game24_is_evaluated_exactly_and_never_with_eval(
    expression: str, numbers: list[int], reason: str
) -> None:
    verdict = grade(expression, None, "game24", numbers=numbers)
    assert (verdict.reason, verdict.how) == (reason, "game24")


def test_game24_takes_the_numbers_from_a_reference_solution() -> None:
    assert grade("4 * (7 - 8 / 8)", "(7 - 8 / 8) * 4", "game24").correct is True
    assert grade("4 * 6", None, "game24").reason == "unreadable_gold"


def test_no_answer_is_wrong_and_only_an_unreadable_gold_is_undecided() -> None:
    assert grade(None, "4").model_dump(include={"correct", "reason", "how"}) == {
        "correct": False, "reason": "no_answer", "how": "none"
    }  # fmt: skip
    assert grade("4", None).correct is None
    assert grade("4", "  ").reason == "unreadable_gold"


def test_an_empty_answer_never_equals_an_empty_gold() -> None:
    verdict = grade("", "")
    assert verdict.correct is None and verdict.reason == "unreadable_gold"
    assert grade("", "", "text").correct is not True


def test_an_unknown_task_is_a_config_error_naming_the_valid_ones() -> None:
    with pytest.raises(ConfigError, match="numeric"):
        grade("4", "4", "arithmetic")


@pytest.mark.parametrize(
    ("gold", "choices", "numbers", "task"),
    [("B", CHOICES, None, "multiple_choice"), ("(C)", None, None, "multiple_choice"),
     (None, None, [1, 2, 3, 4], "game24"), ("Yes", None, None, "boolean"),
     ("$1,234", None, None, "numeric"), (r"\frac{3}{4}", None, None, "math"),
     ("Paris", None, None, "text")],
)  # fmt: skip
def test_auto_reads_the_task_from_gold_choices_and_numbers(
    gold: str | None, choices: list[str] | None, numbers: list[int] | None, task: str
) -> None:
    assert infer_task(gold, choices, numbers) == task


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(max_size=60),
    gold=st.sampled_from(["4", "B", "yes", "Paris", r"\frac{1}{2}", "(7 - 8 / 8) * 4"]),
    task=st.sampled_from(["auto", "numeric", "multiple_choice", "boolean", "text", "game24"]),
)
def test_grading_never_crashes_and_always_names_its_reason(text: str, gold: str, task: str) -> None:
    verdict = grade(text, gold, task, choices=CHOICES if task == "multiple_choice" else None)
    assert verdict.reason in REASONS and verdict.how in HOWS
    assert (verdict.correct is None) == (verdict.reason == "unreadable_gold")
    assert verdict.model_dump(exclude={"elapsed_s"}) == grade(
        text, gold, task, choices=CHOICES if task == "multiple_choice" else None
    ).model_dump(exclude={"elapsed_s"})
