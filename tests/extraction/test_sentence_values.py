"""Numbers as answers write them beyond plain digits (issue 37, from TheoremQA's outputs):
scientific notation, and a sentence answer that concludes on its value."""

from __future__ import annotations

import pytest

from answerx import extract, verify
from answerx.extraction.numbers import canonical_number


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("1.28e-06", "0.00000128"),
        ("1.28 × 10^(-6)", "0.00000128"),
        (r"3 \times 10^{8}", "300000000"),
        ("6.02E23", "602000000000000000000000"),
        ("-2.5 x 10^3", "-2500"),
    ],
)
def test_scientific_notation_reads_as_its_value(written: str, value: str) -> None:
    assert canonical_number(written) == value


def test_a_gold_in_e_notation_matches_the_same_value_written_with_a_power_of_ten() -> None:
    verdict = verify("Therefore, the answer is 1.28 × 10^(-6).", "1.28e-06", task="numeric")
    assert verdict.correct is True
    assert verify("Therefore, the answer is 1.28.", "1.28e-06", task="numeric").correct is False


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        (
            "Therefore, the answer is that the approximate area under the curve between "
            "x=-1 and x=3 with n=4 subintervals is 11.25.",
            "11.25",
        ),
        (
            "Therefore, the answer is: \nIf they offer 50% of the revenue, her utility is 250.",
            "250",
        ),
        ("The answer is: the minimum frame size at 1 Gbps should be 51,200 bits.", "51200"),
        ("The answer is that the acceleration at t = 5 equals -120 m/s^2", "-120"),
    ],
)
def test_a_sentence_answer_concluding_on_its_value_is_that_value(raw: str, answer: str) -> None:
    result = extract(raw, "numeric")
    assert (result.answer, result.valid) == (answer, True)


@pytest.mark.parametrize(
    "raw",
    [
        "The answer is 32 + 0.8x",
        "The answer is 4 blue, 6 red",
        "The answer is that the two coefficients are 0.46 and 0.4 respectively.",
    ],
)
def test_a_statement_of_several_numbers_stays_malformed(raw: str) -> None:
    assert extract(raw, "numeric").problem == "not a single number"
