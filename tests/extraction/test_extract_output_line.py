"""`Output:` lines (Game of 24 / Graph-of-Thought prompts): the last one, `= 24` stripped."""

from __future__ import annotations

import pytest

from answerx import extract

TOT_GAME24 = """Input: 4 9 10 13
Steps:
13 - 9 = 4 (left: 4 4 10)
10 - 4 = 6 (left: 4 6)
4 * 6 = 24 (left: 24)
Answer: (10 - 4) * (13 - 9) = 24
Output: (10 - 4) * (13 - 9) = 24"""

GOT_SORTING = """Input: [5, 1, 8, 3, 2]
Let me sort the list in ascending order.
Output: [1, 3, 2, 5, 8]
Checking adjacent pairs: 3 > 2 is out of order, so I swap them.
Output: [1, 2, 3, 5, 8]"""

TWO_OUTPUT_LINES_24 = """Input: 4 9 10 13
First idea: 13 - 9 = 4, 10 - 4 = 6, 6 * 4 = 24.
Output: (13 - 9) * (10 - 4) = 24
Rewriting with the larger factor first:
Output: (10 - 4) * (13 - 9) = 24"""

BOLD_OUTPUT = """Input: 2 3 4 6
Trying multiplication first: 2 * 3 = 6, 6 * 4 = 24, and 6 is left over... no.
(6 / 2) * (3 + 4) = 21, no. 6 * 4 * (3 - 2) = 24, yes.
**Output:** 6 * 4 * (3 - 2) = 24"""


@pytest.mark.parametrize(
    ("raw", "task", "kwargs", "answer"),
    [
        pytest.param(
            TOT_GAME24,
            "game24",
            {"numbers": [4, 9, 10, 13]},
            "(10 - 4) * (13 - 9)",
            id="tot-game24",
        ),
        pytest.param(TOT_GAME24, "auto", {}, "(10 - 4) * (13 - 9)", id="tot-game24-auto"),
        pytest.param(GOT_SORTING, "text", {}, "[1, 2, 3, 5, 8]", id="got-sorting-last-wins"),
        pytest.param(GOT_SORTING, "auto", {}, "[1, 2, 3, 5, 8]", id="got-sorting-auto"),
        pytest.param(
            TWO_OUTPUT_LINES_24,
            "game24",
            {"numbers": [4, 9, 10, 13]},
            "(10 - 4) * (13 - 9)",
            id="several-last-wins",
        ),
        pytest.param(
            BOLD_OUTPUT, "game24", {"numbers": [2, 3, 4, 6]}, "6 * 4 * (3 - 2)", id="bold-output"
        ),
    ],
)
def test_last_output_line_is_taken(raw: str, task: str, kwargs: dict, answer: str) -> None:
    result = extract(raw, task, **kwargs)
    assert (result.answer, result.method) == (answer, "output_line")


def test_output_line_strips_equals_24_from_span() -> None:
    result = extract(TOT_GAME24, "game24", numbers=[4, 9, 10, 13])
    assert result.span is not None
    assert TOT_GAME24[result.span[0] : result.span[1]] == "(10 - 4) * (13 - 9)"
    assert TOT_GAME24[result.span[1] :] == " = 24"


def test_output_line_beats_bottom_scan() -> None:
    raw = TOT_GAME24 + "\n(13 - 9) * (10 - 4)"
    # The explicit Output: line wins over a bare expression written after it.
    result = extract(raw, "game24", numbers=[4, 9, 10, 13])
    assert (result.answer, result.method) == ("(10 - 4) * (13 - 9)", "output_line")
