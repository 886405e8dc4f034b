"""Grading reads number words with extraction's parser (issue 36 §2: one table per
vocabulary), so a short answer and a numeric answer agree on what "a dozen" is."""

from __future__ import annotations

from fractions import Fraction

import pytest

from answerx.extraction.number_words import number_run, words_value
from answerx.grading.qa_metrics import normalize_answer
from answerx.grading.text import drop_articles, normalize_text
from answerx.grading.variants import variant_tokens


@pytest.mark.parametrize(
    ("spelled", "digits"),
    [
        ("one hundred and five pages", "105 pages"),
        ("twenty-one metres", "21 meters"),
        ("a dozen eggs", "12 eggs"),
        ("2.5 million people", "2500000 people"),
        ("three thousand two hundred", "3200"),
        ("nineteen eighty-four", "1984"),
        ("the third place", "3rd place"),
    ],
)
def test_number_words_in_a_short_answer_meet_their_digits(spelled: str, digits: str) -> None:
    assert variant_tokens(spelled) == variant_tokens(digits)


def test_two_numbers_joined_by_and_stay_two_numbers() -> None:
    # The parser extraction uses: "one hundred and five" is one number, "two and three" two.
    assert variant_tokens("two and three") == ("2", "and", "3")
    assert number_run(["two", "and", "three"]) == (Fraction(2), 1)


def test_grading_and_extraction_give_a_number_in_words_one_value() -> None:
    for words in ("forty-two", "one hundred and five", "a dozen", "three thousand"):
        value = words_value(words)
        assert value is not None
        assert variant_tokens(words) == (str(value),)


def test_the_squad_articles_are_dropped_the_same_way_by_every_normaliser() -> None:
    assert drop_articles("the cat and a hat on an apple") == "cat and hat on apple"
    text = "The Eiffel Tower, an icon"
    assert normalize_text(text) == normalize_answer(text) == "eiffel tower icon"
    assert normalize_answer(text, "ultrarag") == "eiffel tower icon"
    assert "the" not in variant_tokens(text)
