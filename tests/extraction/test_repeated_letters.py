"""A letter written several times, as LiveBench-style prompts ask ("duplicate that letter
five times"), is that letter (issue 37 §3); the repeated letter written last wins over
options named while reasoning."""

from __future__ import annotations

import pytest

from answerx import extract

_FIVE = ["1", "2", "3", "4", "5", "6"]


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("Therefore, my answer is: FFFFF", "F"),
        ("I eliminated (B) and (D).\n\nWriting the letter five times:\n\nCCCCC", "C"),
        ("_DDDDD_", "D"),
        ("**CCCCC**", "C"),
        ("EEEEE", "E"),
        ("Option (A) fails the check, so the answer is F; as requested: FFFFF.", "F"),
        ("My final answer is (B), duplicated: BBBBB", "B"),
        ("Final answer: AAAAA", "A"),
    ],
)
def test_a_repeated_letter_is_that_letter(raw: str, answer: str) -> None:
    result = extract(raw, "multiple_choice", choices=_FIVE)
    assert (result.answer, result.unfinished, result.value_count) == (answer, False, 1)


def test_a_repeated_letter_beyond_the_options_is_not_an_option() -> None:
    assert extract("Working...\n\nJJJJJ", "multiple_choice", choices=_FIVE).answer is None


def test_a_short_run_inside_a_word_is_no_answer() -> None:
    result = extract("I bought AAA batteries; the answer is (B).", "multiple_choice", choices=_FIVE)
    assert result.answer == "B"
