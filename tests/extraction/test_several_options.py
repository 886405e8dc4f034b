"""Several letters stated as one answer (issue 37 §3) are reported as several
(``value_count`` > 1, ``problem`` says so) and graded wrong against one gold, never read
as their first letter."""

from __future__ import annotations

import pytest

from answerx import extract, verify

_OPTIONS = ["red", "green", "blue", "white"]


@pytest.mark.parametrize(
    ("raw", "answer", "count"),
    [
        ("【答案】: B, C", "B, C", 2),
        ("答案：B、C", "B, C", 2),
        ("So the answer is (A), (B), (C), or (D).", "A, B, C, D", 4),
        ("The answer is A and D.", "A, D", 2),
        ("Answer: B or C", "B, C", 2),
        ("Both hold, so the answer is AC.", "A, C", 2),
        ("Final answer: (B)/(D)", "B, D", 2),
    ],
)
def test_several_letters_are_reported_as_several(raw: str, answer: str, count: int) -> None:
    result = extract(raw, "multiple_choice", choices=_OPTIONS)
    assert (result.answer, result.value_count, result.valid) == (answer, count, False)
    assert result.problem is not None and "several options" in result.problem


@pytest.mark.parametrize("raw", ["【答案】: B, C", "So the answer is (B), (C), or (D)."])
def test_several_letters_are_wrong_against_one_gold(raw: str) -> None:
    assert verify(raw, "B", task="multiple_choice", choices=_OPTIONS).correct is False


def test_one_letter_repeated_in_a_list_is_one_letter_and_a_word_is_no_list() -> None:
    assert extract("The answer is B, B.", "multiple_choice", choices=_OPTIONS).answer != "B, B"
    assert extract("The answer is BAD.", "multiple_choice", choices=_OPTIONS).value_count <= 1


def test_one_letter_with_a_reason_after_its_comma_is_one_letter() -> None:
    result = extract("答案：B，因为其余选项都不成立。", "multiple_choice", choices=_OPTIONS)
    assert (result.answer, result.value_count) == ("B", 1)
