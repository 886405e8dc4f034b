"""Numbers written in words (issue 23 §4): extraction returns them as stated, the grader reads
their value (``three`` ≡ ``3``), and the fallbacks find them in a sentence answer as they find
digits; never in a name, a pronoun or an adjective."""

from __future__ import annotations

from fractions import Fraction

import pytest

import answerx
from answerx import extract, grade
from answerx.extraction.number_words import words_value


@pytest.mark.parametrize(
    ("words", "value"),
    [
        ("three", 3),
        ("Twelve.", 12),
        ("twenty-one", 21),
        ("twenty one", 21),
        ("ninety-nine", 99),
        ("one hundred and five", 105),
        ("one hundred five", 105),
        ("two thousand and twenty-four", 2024),
        ("nineteen hundred", 1900),
        ("three million", 3_000_000),
        ("a dozen", 12),
        ("two dozen", 24),
        ("a hundred", 100),
        ("zero", 0),
        ("half", Fraction(1, 2)),
        ("a quarter", Fraction(1, 4)),
        ("two thirds", Fraction(2, 3)),
        ("three quarters", Fraction(3, 4)),
        ("one and a half", Fraction(3, 2)),
    ],
)
def test_number_words_have_their_value(words: str, value: Fraction | int) -> None:
    assert words_value(words) == value


@pytest.mark.parametrize(
    "text", ["one two", "hundred", "two third", "third", "one of them", "three apples", "3 three"]
)
def test_words_that_are_not_one_number_have_no_value(text: str) -> None:
    assert words_value(text) is None


@pytest.mark.parametrize(
    ("raw", "answer", "method"),
    [
        (
            "She gave away two of her five pencils. The answer is three.",
            "three",
            "final_answer_phrase",
        ),
        ("Final answer: twenty-one", "twenty-one", "final_answer_phrase"),
        ("one hundred and five", "one hundred and five", "whole_output"),
        ("a dozen", "a dozen", "whole_output"),
        ("half", "half", "whole_output"),
        ("There are three objects left.", "three", "last_number"),
        ("After lunch, only seven cookies remain on the plate.", "seven", "last_number"),
        ("The farmer counts forty-two sheep in the field.", "forty-two", "last_number"),
        ("There is one apple on the table.", "one", "last_number"),
    ],
)
def test_a_number_in_words_is_the_stated_answer(raw: str, answer: str, method: str) -> None:
    result = extract(raw, "numeric")
    assert (result.answer, result.method, result.valid) == (answer, method, True)


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("One of the 4 boxes is red.", "4"),
        ("Section Three of the manual lists 8 steps.", "8"),
        ("The red one has 5 wheels.", "5"),
        ("A three-dimensional cube has 6 faces.", "6"),
        ("The total is 9, not ten.", "9"),
        ("The answer is 6 (six).", "6"),
    ],
)
def test_names_pronouns_and_adjectives_are_not_numbers(raw: str, answer: str) -> None:
    assert extract(raw, "numeric").answer == answer


def test_no_number_word_is_read_inside_latex() -> None:
    assert extract(r"So $x = \text{one} + 2$ gives 3.", "numeric").answer == "3"


@pytest.mark.parametrize(
    ("answer", "gold", "task", "correct"),
    [
        ("three", "3", "numeric", True),
        ("three", 3, "auto", True),
        ("Three", "3", "math", True),
        ("twenty-one", "21", "numeric", True),
        ("one hundred and five", "105", "numeric", True),
        ("a dozen", "12", "numeric", True),
        ("half", "0.5", "numeric", True),
        ("three", "4", "numeric", False),
        ("a dozen", "13", "numeric", False),
    ],
)
def test_the_grader_finds_a_number_in_words_equal_to_its_digits(
    answer: str, gold: str | int, task: str, correct: bool
) -> None:
    assert grade(answer, gold, task).correct is correct


def test_verify_reads_and_grades_a_number_in_words() -> None:
    assert answerx.verify("There are three objects left.", 3).correct is True
    assert answerx.verify("The answer is four.", 3).correct is False


def test_a_structured_answer_must_still_be_written_in_digits() -> None:
    from answerx.extraction import AnswerSpec

    spec = AnswerSpec.of("numeric")
    assert (spec.normalise("three"), spec.normalise("3")) == (None, "3")
