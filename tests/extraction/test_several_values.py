"""Answers with several values (issue 23 §5, extraction): a comma between values is not a
decimal comma, several boxes and lists of solutions are the whole list as stated, and
``Extraction.value_count`` says how many values the answer holds."""

from __future__ import annotations

import pytest

from answerx import extract
from answerx.extraction.values import comma_is_decimal, split_values


@pytest.mark.parametrize(
    ("raw", "answer", "count"),
    [
        (r"\boxed{-3,4}", "-3,4", 2),
        (r"\boxed{5,9}", "5,9", 2),
        (r"So the roots are \boxed{-2,7}.", "-2,7", 2),
        (r"\boxed{10,11}", "10,11", 2),
        (r"\boxed{2,500.75}", "2500.75", 1),
        (r"\boxed{1,000}", "1000", 1),
    ],
)
def test_a_comma_between_values_in_a_math_answer_is_not_a_decimal_comma(
    raw: str, answer: str, count: int
) -> None:
    result = extract(raw, "math")
    assert (result.answer, result.value_count) == (answer, count)


@pytest.mark.parametrize(
    ("raw", "task", "answer"),
    [
        ("4,35 €", "numeric", "4.35"),
        ("Le total est de 4,35 €.", "numeric", "4.35"),
        ("Soit 3,5 kg", "numeric", "3.5"),
        ("Soit 3,5 kg", "math", "3.5"),
        ("Donc x vaut 2,5.", "numeric", "2.5"),
        ("2,74", "math", "2.74"),
        ("Answer: 2,74", "numeric", "2.74"),
        ("The answer is 2,500.75", "numeric", "2500.75"),
    ],
)
def test_the_decimal_comma_still_reads_money_units_and_european_prose(
    raw: str, task: str, answer: str
) -> None:
    assert extract(raw, task).answer == answer


@pytest.mark.parametrize(
    ("number", "after", "decimal"),
    [
        ("-3,4", "", False),
        ("5,9", "", False),
        ("10,11", "", False),
        ("2,74", "", True),
        ("3,14159", "", True),
        ("3,5", " kg", True),
        ("4,35", " €", True),
        ("1,000", " €", False),  # a group of three is thousands
    ],
)
def test_when_a_comma_is_a_decimal_comma(number: str, after: str, decimal: bool) -> None:
    assert comma_is_decimal(number, after=after) is decimal


@pytest.mark.parametrize(
    ("raw", "answer", "count"),
    [
        (r"The answers are \boxed{10, 11, 12} and \boxed{-2, -1, 0}.", "10, 11, 12, -2, -1, 0", 6),
        (r"$\boxed{(1, 3)} \text{ and } \boxed{(4, 0)}$", "(1, 3), (4, 0)", 2),
        (r"We get $\boxed{a = 7}$ and $\boxed{b = 3}$.", "a = 7, b = 3", 2),
        (r"Either \boxed{2} or \boxed{-2}.", "2, -2", 2),
        (r"\boxed{4}, \boxed{4}", "4", 1),  # the same value twice is one value
    ],
)
def test_several_boxes_listed_together_are_one_answer(raw: str, answer: str, count: int) -> None:
    result = extract(raw, "math")
    assert (result.answer, result.method, result.value_count) == (answer, "boxed", count)


def test_boxes_far_apart_are_a_draft_and_a_final_answer() -> None:
    raw = r"A first guess is \boxed{3}. Checking the second condition rules it out, so \boxed{4}."
    result = extract(raw, "math")
    assert (result.answer, result.value_count) == ("4", 1)


@pytest.mark.parametrize(
    ("raw", "answer", "count"),
    [
        ("Setting each factor to zero, x = -1, x = 2, and x = -2.", "-1, 2, -2", 3),
        ("The solutions are $x = 1$ and $x = 4$.", "1, 4", 2),
        (r"Hence $x \in \{-1, 0, 1\}$.", r"\{-1, 0, 1\}", 3),
        ("Checking each case, the integer values are -1, 0 and 1.", "-1, 0, 1", 3),
        ("The primes below 10 are 2, 3, 5, and 7.", "2, 3, 5, 7", 4),
        ("The vertex is at (3, -2).", "(3, -2)", 1),
        ("The answer is 2, 4 or 6.", "2, 4, 6", 3),
        (r"The answer is $(1, 2)$ and $(2, 1)$.", "(1, 2), (2, 1)", 2),
    ],
)
def test_a_list_of_solutions_is_the_whole_list(raw: str, answer: str, count: int) -> None:
    result = extract(raw, "math")
    assert (result.answer, result.value_count) == (answer, count)


@pytest.mark.parametrize(
    ("answer", "values"),
    [
        ("-1, 0, 1", ["-1", "0", "1"]),
        ("(1, 3), (4, 0)", ["(1, 3)", "(4, 0)"]),
        (r"\{2, 3\}", ["2", "3"]),
        ("(2,5]", ["(2,5]"]),
        ("[1, 2, 4, 8]", ["1", "2", "4", "8"]),
        (r"x = \pm 3", ["+3", "-3"]),
        ("1,000", ["1,000"]),
        (r"\frac{1}{2}", [r"\frac{1}{2}"]),
    ],
)
def test_the_values_of_an_answer(answer: str, values: list[str]) -> None:
    assert split_values(answer) == values


def test_one_value_and_no_value_are_counted_too() -> None:
    assert extract(r"\boxed{(1, 2)}", "math").value_count == 1  # one ordered pair
    assert extract("The answer is (B).", "multiple_choice").value_count == 1
    assert extract("I could not work it out.", "math").value_count == 0


def test_a_numeric_task_given_several_values_says_so() -> None:
    result = extract(r"Both work: \boxed{4} and \boxed{6}.", "numeric")
    assert (result.answer, result.valid, result.problem, result.value_count) == (
        "4, 6",
        False,
        "not a single number",
        2,
    )
