"""Low confidence where the rules guess (issue 23 §6): a sentence answer whose last number
qualifies something ("… with values below 40") is reported as ``number_guess``, with a
confidence below every explicit marker, so two-stage extraction (or a judge) takes over."""

from __future__ import annotations

import pytest

from answerx import extract
from answerx.reasoning import MARKER_CONFIDENCE


@pytest.mark.parametrize(
    ("raw", "guess"),
    [
        ("There are 13 bars with values below 40.", "40"),
        ("Exactly 4 students scored above 90.", "90"),
        ("Only 2 of the 12 months had more than 100 mm of rain.", "100"),
        ("It snowed on 9 days out of 31.", "31"),
        ("There are 3 numbers between 10 and 20 that are prime.", "20"),
        ("5 boxes hold 8 pens each, with 3 left over after 2 pm.", "2"),
        ("There are seven bars taller than twenty.", "twenty"),
    ],
)
def test_a_sentence_answer_whose_last_number_qualifies_is_a_guess(raw: str, guess: str) -> None:
    result = extract(raw, "numeric")
    assert (result.answer, result.method) == (guess, "number_guess")
    assert result.confidence < MARKER_CONFIDENCE
    assert result.confidence < extract("The total is 40.", "numeric").confidence


@pytest.mark.parametrize(
    "raw",
    [
        "She had 3 apples and bought 4 more, so she has 7 apples.",
        "After 2 hours the tank holds 30 liters.",
        "Each of the 6 boxes holds 5 pens, 30 pens in all.",
        "Of the 40 marbles, 15 are blue.",
    ],
)
def test_a_sentence_that_states_its_last_number_as_the_value_is_no_guess(raw: str) -> None:
    result = extract(raw, "numeric")
    assert result.method == "last_number"
    assert result.confidence < MARKER_CONFIDENCE  # still a fallback: two-stage confirms it


def test_a_long_reasoning_keeps_its_last_number() -> None:
    raw = (
        "We start with 12 apples. Then we add 8 more, which gives 20 apples in the basket. "
        "After that, 5 apples are eaten at lunch, so 15 remain. At dinner, 3 more are eaten "
        "and there are 12 left, to be shared between 4 friends."
    )
    assert extract(raw, "numeric").method == "last_number"


def test_every_fallback_scores_below_every_explicit_marker() -> None:
    guesses = [
        extract("There are 13 bars with values below 40.", "numeric"),
        extract("She has 7 apples.", "numeric"),
        extract("Only one option is right: (C).", "multiple_choice"),
        extract(
            "So the planet with rings is Saturn.", "multiple_choice", choices=["Mars", "Saturn"]
        ),
    ]
    assert [g.method for g in guesses] == [
        "number_guess",
        "last_number",
        "choice_letter",
        "choice_text",
    ]
    assert all(g.confidence < MARKER_CONFIDENCE for g in guesses)
