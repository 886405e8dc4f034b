"""A signed number in words keeps its sign, and ``\\text{…}`` answers compare
case-insensitively as text (issue 37 §3)."""

from __future__ import annotations

import pytest

from answerx import extract, verify


@pytest.mark.parametrize(
    ("raw", "task", "answer"),
    [
        ("the curvature is negative 0.5.", "numeric", "-0.5"),
        ("The answer is minus 3.", "numeric", "-3"),
        ("The final answer is negative 12.", "numeric", "-12"),
        ("The answer is negative 0.5", "math", "-0.5"),
        ("So the slope is minus 3.", "math", "-3"),
    ],
)
def test_a_sign_said_in_words_is_kept(raw: str, task: str, answer: str) -> None:
    assert extract(raw, task).answer == answer


def test_minus_between_two_numbers_is_an_operation_not_a_sign() -> None:
    assert extract("We get 5 minus 3.", "numeric").answer == "3"


@pytest.mark.parametrize(
    ("output", "gold"),
    [
        (r"$\boxed{\text{no}}$", r"\text{No}"),
        (r"$\boxed{\text{Yes}}$", r"\text{yes}"),
        (r"$\boxed{\text{EVEN}}$", r"\text{even}"),
    ],
)
def test_text_answers_compare_case_insensitively(output: str, gold: str) -> None:
    assert verify(output, gold, task="math").correct is True


def test_different_words_stay_different() -> None:
    assert verify(r"$\boxed{\text{no}}$", r"\text{Yes}", task="math").correct is False
