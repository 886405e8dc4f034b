"""A short last sentence that states a number is a conclusion written without its period,
not a cut output (issue 40 §1), when nothing else suggests a cut."""

from __future__ import annotations

import pytest

from answerx import extract


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("So the total is 42", "42"),
        ("She packs 6 boxes of 7.\nTherefore the number of apples is 42", "42"),
        ("Thus the area equals 12.5 square meters", "12.5"),
        ("Hence the curvature is negative 0.5", "-0.5"),
        ("In total, the bill comes to $18", "18"),
    ],
)
def test_a_short_statement_of_a_number_is_finished(raw: str, answer: str) -> None:
    result = extract(raw, "numeric")
    assert (result.answer, result.unfinished) == (answer, False)


@pytest.mark.parametrize(
    "raw",
    [
        "First we add 3 and 4 to get 7 and then multiply by",
        "Let me compute 5 hours * 1",
        "So the total is 42 +",
        "The price per item, which we found in step 2, is 4 and the number of items is",
        "The value of $a$ is 10",
    ],
)
def test_an_output_cut_mid_reasoning_stays_unfinished(raw: str) -> None:
    result = extract(raw, "numeric")
    assert (result.answer, result.unfinished) == (None, True)


def test_with_options_a_stated_number_is_a_step_not_a_conclusion() -> None:
    result = extract("So the total is 42", "multiple_choice", choices=["40", "41", "43", "44"])
    assert result.unfinished is True
