"""Numbers (`numeric`, GSM8K-style): separators, currency, units, percent, signs, decimals,
fractions, and the low-confidence last-number fallback."""

from __future__ import annotations

import pytest

from answerx import extract


def _gsm8k(final_line: str) -> str:
    return (
        "Janet's ducks lay 16 eggs per day. She eats 3 for breakfast and bakes with 4.\n"
        "She sells the remaining 16 - 3 - 4 = 9 eggs at the market each day.\n" + final_line
    )


@pytest.mark.parametrize(
    ("final_line", "answer"),
    [
        pytest.param("#### 1,800", "1800", id="thousands-separator"),
        pytest.param("#### 1,234,567", "1234567", id="two-separators"),
        pytest.param("The answer is $1,234.50.", "1234.5", id="dollars-and-cents"),
        pytest.param("The answer is $18.", "18", id="dollar-sign"),
        pytest.param(r"The answer is \$18.", "18", id="escaped-dollar-sign"),
        pytest.param("The answer is €1,000,000.", "1000000", id="euro"),
        pytest.param("The answer is £12.00.", "12", id="pound-trailing-zeros"),
        pytest.param("The answer is 45 km/h.", "45", id="unit-km-h"),
        pytest.param("The answer is 18 dollars.", "18", id="unit-dollars"),
        pytest.param("The answer is 2.5 hours.", "2.5", id="unit-hours"),
        pytest.param("The answer is 25%.", "25", id="percent"),
        pytest.param(r"The answer is $25\%$.", "25", id="latex-percent"),
        pytest.param("The answer is -17.", "-17", id="negative"),
        pytest.param("The answer is −17.", "-17", id="unicode-minus"),
        pytest.param(
            "The answer is -$5.",
            "-5",
            id="negative-currency",
        ),
        pytest.param("The answer is 0.75.", "0.75", id="decimal"),
        pytest.param(
            "The answer is .75.",
            "0.75",
            id="decimal-no-leading-zero",
        ),
        pytest.param("The answer is 3/4.", "3/4", id="fraction"),
        pytest.param(r"The answer is $\frac{3}{4}$.", "3/4", id="latex-frac"),
        pytest.param(r"The answer is \dfrac{3}{4}.", "3/4", id="latex-dfrac"),
        pytest.param("The answer is 18.00", "18", id="decimal-zeros"),
        pytest.param("The answer is x = 18.", "18", id="equation"),
    ],
)
def test_numeric_answer_is_normalised(final_line: str, answer: str) -> None:
    result = extract(_gsm8k(final_line), "numeric")
    assert (result.answer, result.method) == (answer, "final_answer_phrase")
    assert result.task == "numeric"


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        pytest.param(
            "She had 5 apples and bought 7 more, so now she has 12 apples.",
            "12",
            id="plain",
        ),
        pytest.param(
            "The company earns 25,000 dollars a week for 50 weeks, so it earns 1,250,000 "
            "dollars per year.",
            "1250000",
            id="thousands",
        ),
        pytest.param(
            "The temperature started at 6 degrees and fell by 10, ending at -4 degrees.",
            "-4",
            id="negative",
        ),
        pytest.param(
            "Three pens cost 3 * 0.9 = 2.70 dollars, so the bill comes to 2.75 dollars.",
            "2.75",
            id="decimal-before-period",
        ),
        pytest.param(
            "Each sandwich costs $4 and she buys 3, which costs her $12.",
            "12",
            id="currency",
        ),
        pytest.param(
            "Half of the 3 pizzas were eaten, which leaves 3/2 pizzas.",
            "3/2",
            id="fraction",
        ),
    ],
)
def test_last_number_fallback(raw: str, answer: str) -> None:
    result = extract(raw, "numeric")
    assert (result.answer, result.method) == (answer, "last_number")
    assert result.confidence < 0.5


def test_last_number_fallback_has_lower_confidence_than_a_phrase() -> None:
    fallback = extract("She had 5 apples and bought 7 more: 12 apples.", "numeric")
    phrase = extract("She had 5 apples and bought 7 more. The answer is 12.", "numeric")
    assert fallback.answer == phrase.answer == "12"
    assert (fallback.method, phrase.method) == ("last_number", "final_answer_phrase")
    assert 0.0 < fallback.confidence < phrase.confidence


# Issue 23 §4: a number in words is a number, returned as stated (the grader reads its value).
def test_number_spelled_out_is_found_by_the_last_number_fallback() -> None:
    result = extract("I think it comes to twelve in the end.", "numeric")
    assert (result.answer, result.method) == ("twelve", "last_number")


def test_a_phrase_stating_a_number_in_words_is_the_answer() -> None:
    raw = "Each of the 4 boxes holds 6 cans, 24 cans in all.\nThe answer is twenty-four."
    result = extract(raw, "numeric")
    assert (result.answer, result.method, result.valid) == (
        "twenty-four",
        "final_answer_phrase",
        True,
    )


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("That is $\\frac{1}{2}$.", "1/2"),
        ("So x = $\\dfrac{3}{4}$", "3/4"),
        ("That is $-\\frac{1}{2}$.", "-1/2"),
    ],
)
def test_numeric_fallback_reads_a_last_latex_fraction_as_the_number(raw: str, answer: str) -> None:
    got = extract(raw, "numeric")
    assert (got.answer, got.method) == (answer, "last_number")


def test_numeric_fallback_gives_a_fraction_the_form_a_marker_gives_it() -> None:
    stated = extract("The answer is $\\frac{1}{2}$.", "numeric").answer
    assert stated == extract("That is $\\frac{1}{2}$.", "numeric").answer == "1/2"


def test_numeric_fallback_still_reads_a_plain_last_number_after_a_fraction() -> None:
    assert extract("Half is $\\frac{1}{2}$, so we buy 6.", "numeric").answer == "6"
