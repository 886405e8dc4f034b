"""A stated answer that is wrong or malformed is still the answer (issue 12, §1).

Extraction reports what the model stated; ``valid`` and ``problem`` say whether it has
the task's shape. Judging it is the grader's job.
"""

from __future__ import annotations

import pytest

from answerx import extract

TOT_LOG = """Input: 4 6 2 11
Steps:
11 - 4 = 7 (left: 2 6 7)
6 - 2 = 4 (left: 4 7)
7 * 4 = 28 (left: 28)
Answer: (11 - 4) * (6 - 2) = 28
"""


@pytest.mark.parametrize(
    ("raw", "numbers", "answer", "valid", "problem"),
    [
        pytest.param(TOT_LOG, None, "(11 - 4) * (6 - 2)", False, "evaluates to 28", id="tot-28"),
        pytest.param(
            "Steps:\n6 / 2 = 3 (left: 3 4 5)\nAnswer: (6 / 2) * 4 * (5 - 4) = 24",
            [6, 2, 4, 5],
            "(6 / 2) * 4 * (5 - 4)",
            False,
            "uses 4 twice; evaluates to 12",
            id="tot-4-used-twice",
        ),
        pytest.param(
            "Output: (10 - 4) * (13 - 3) = 24",
            [4, 9, 10, 13],
            "(10 - 4) * (13 - 3)",
            False,
            "uses 3, which is not given; does not use 9; evaluates to 60",
            id="output-line-wrong-number",
        ),
        pytest.param(
            "Let me try.\n<answer>(13 - 9) * (10 - 4) = 24</answer>",
            [4, 9, 10, 13],
            "(13 - 9) * (10 - 4)",
            True,
            None,
            id="answer-block-right",
        ),
        pytest.param(
            "<answer>4 * (10 - 4) = 24</answer>",
            [4, 6, 10, 1],
            "4 * (10 - 4)",
            False,
            "does not use 1; uses 4 twice; does not use 6",
            id="answer-block-three-numbers",
        ),
        pytest.param(
            "Answer: 8 / (3 - 8 / 3) = 24",
            [3, 3, 8, 8],
            "8 / (3 - 8 / 3)",
            True,
            None,
            id="exact-fractions-make-24",
        ),
        pytest.param(
            "Answer: (5 + 7) * (3 - 1) = 24", [1, 3, 5, 7], "(5 + 7) * (3 - 1)", True, None, id="ok"
        ),
    ],
)
def test_game24_marker_returns_the_stated_expression_with_its_verdict(
    raw: str, numbers: list[int] | None, answer: str, valid: bool, problem: str | None
) -> None:
    result = extract(raw, "game24", numbers=numbers) if numbers else extract(raw)
    assert (result.answer, result.task) == (answer, "game24")
    assert (result.valid, result.problem) == (valid, problem)


def test_game24_bottom_scan_still_needs_each_number_once() -> None:
    raw = "4 + 4 + 9 + 10 - 13\n(10 - 4) * (13 - 9)\nThat's it."
    result = extract(raw, "game24", numbers=[4, 9, 10, 13])
    assert (result.answer, result.method, result.valid) == (
        "(10 - 4) * (13 - 9)",
        "bottom_scan",
        True,
    )


@pytest.mark.parametrize(
    ("raw", "answer", "valid"),
    [
        pytest.param("The answer is 56,000 pounds.", "56000", True, id="thousands-and-unit"),
        pytest.param("#### $18.00", "18", True, id="currency"),
        pytest.param("The answer is 32 + 0.8x.", "32 + 0.8x", False, id="expression-not-32"),
        pytest.param("Answer: 4 blue, 6 red", "4 blue, 6 red", False, id="two-counts-not-4"),
        pytest.param("The answer is 12 (3 groups of 4).", "12", True, id="aside-is-not-a-number"),
        pytest.param("So the answer is x = 5.", "5", True, id="equation-rhs"),
        pytest.param("Answer: 2,74", "2.74", True, id="decimal-comma"),
    ],
)
def test_numeric_cleaning_never_cuts_a_stated_expression_to_its_first_number(
    raw: str, answer: str, valid: bool
) -> None:
    result = extract(raw, "numeric")
    assert (result.answer, result.valid) == (answer, valid)
    assert result.problem == (None if valid else "not a single number")


def test_math_and_text_answers_are_well_formed_when_found() -> None:
    assert extract(r"\boxed{\frac{1}{2}}", "math").valid is True
    assert extract("Answer: Paris", "text").valid is True


def test_no_answer_has_no_verdict() -> None:
    result = extract("I could not work it out.", "numeric")
    assert (result.answer, result.valid, result.problem) == (None, None, None)
