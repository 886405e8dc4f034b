"""Game of 24 with `numbers=[4, 9, 10, 13]`: a bottom-up scan for the last line that is an
arithmetic expression (digits, spaces, parentheses, + - * / only) using each given number
exactly once as a standalone token."""

from __future__ import annotations

import pytest

from answerx import extract

NUMBERS = [4, 9, 10, 13]
EXPR = "(10 - 4) * (13 - 9)"

COT = f"""Let me look for two numbers that make 4 and 6, since 4 * 6 = 24.
13 - 9 = 4
10 - 4 = 6
4 * 6 = 24
So the expression is:
{EXPR}"""

COT_TRAILING_NOTE = f"""13 - 9 = 4 and 10 - 4 = 6, and 6 * 4 = 24.
{EXPR}
I used each of 4, 9, 10 and 13 exactly once."""

TWO_EXPRESSIONS = """First solution: 13 - 9 = 4, 10 - 4 = 6, 4 * 6 = 24.
(10 - 4) * (13 - 9)
Another way to write the same thing:
(13 - 9) * (10 - 4)"""


@pytest.mark.parametrize(
    ("raw", "answer", "method"),
    [
        pytest.param(COT, EXPR, "bottom_scan", id="last-line"),
        pytest.param(COT_TRAILING_NOTE, EXPR, "bottom_scan", id="line-above-a-note"),
        pytest.param(TWO_EXPRESSIONS, "(13 - 9) * (10 - 4)", "bottom_scan", id="lowest-wins"),
        pytest.param(f"Working...\n{EXPR} = 24", EXPR, "bottom_scan", id="equals-24-stripped"),
        pytest.param(f"Working...\n{EXPR} = 24.", EXPR, "bottom_scan", id="equals-24-period"),
        pytest.param(f"Working...\nOutput: {EXPR} = 24", EXPR, "output_line", id="output-prefix"),
        pytest.param("Working...\n(10-4)*(13-9)", "(10-4)*(13-9)", "bottom_scan", id="no-spaces"),
        pytest.param(f"Working...\n   {EXPR}   \n\n", EXPR, "bottom_scan", id="padded-line"),
    ],
)
def test_game24_expression_is_found(raw: str, answer: str, method: str) -> None:
    result = extract(raw, "game24", numbers=NUMBERS)
    assert (result.answer, result.method, result.task) == (answer, method, "game24")


def test_game24_numbers_in_any_order() -> None:
    result = extract(COT, "game24", numbers=[13, 10, 9, 4])
    assert (result.answer, result.method) == (EXPR, "bottom_scan")


def test_game24_repeated_numbers_each_used_once() -> None:
    raw = "The classic hard one: 8 / 3 is 2.67, 3 - 2.67 = 0.33, 8 / 0.33 = 24.\n8 / (3 - 8 / 3)"
    result = extract(raw, "game24", numbers=[3, 3, 8, 8])
    assert (result.answer, result.method) == ("8 / (3 - 8 / 3)", "bottom_scan")


def test_game24_auto_with_numbers_is_game24() -> None:
    result = extract(COT, numbers=NUMBERS)
    assert (result.answer, result.method, result.task) == (EXPR, "bottom_scan", "game24")


# The last line is rejected; the scan goes on up to the valid expression above it.
@pytest.mark.parametrize(
    "last_line",
    [
        pytest.param("(10 - 4) * (13 - 9) = 6 * 4 = 24", id="equals-chain"),
        pytest.param("10 - 4 = 6", id="intermediate-step"),
        pytest.param("(10 - 4) * (13 - 9) = 25", id="equals-other-value"),
        pytest.param("(10 - 4) * (13 - 9) ✓", id="check-mark"),
        pytest.param("Answer found: (10 - 4) * (13 - 9) works.", id="words-around"),
        pytest.param("(10 - 4) ^ 1 * (13 - 9)", id="caret"),
        pytest.param("x = (10 - 4) * (13 - 9)", id="variable"),
        pytest.param("(10 - 4) * (13 - 9) + 0", id="extra-number"),
        pytest.param("4 * (10 - 4)", id="missing-numbers"),
        pytest.param("4 + 4 + 9 + 10 - 13", id="number-used-twice"),
        pytest.param("(104 - 9) * 13", id="digits-glued-104"),
        pytest.param("(1 0 - 4) * (13 - 9)", id="digits-split-1-0"),
        pytest.param(
            "(10 - 4) * (13 - 9.0)",
            id="decimal-point",
        ),
        pytest.param("4, 9, 10, 13", id="just-the-numbers"),
        pytest.param("4 9 10 13", id="numbers-without-operators"),
    ],
)
def test_game24_rejects_invalid_lines(last_line: str) -> None:
    raw = f"13 - 9 = 4, 10 - 4 = 6, 4 * 6 = 24.\n{EXPR}\n{last_line}"
    result = extract(raw, "game24", numbers=NUMBERS)
    assert (result.answer, result.method) == (EXPR, "bottom_scan")


def test_game24_nothing_valid_is_no_answer() -> None:
    raw = (
        "13 - 9 = 4, 10 - 4 = 6, 4 * 6 = 24.\n"
        "So the solution multiplies the two differences.\n"
        "(10 - 4) * (13 - 9) = 6 * 4 = 24"
    )
    result = extract(raw, "game24", numbers=NUMBERS)
    assert (result.answer, result.method, result.confidence) == (None, "none", 0.0)


def test_game24_span_points_at_the_expression() -> None:
    raw = f"Working...\n{EXPR} = 24\n"
    result = extract(raw, "game24", numbers=NUMBERS)
    assert result.span is not None
    assert raw[result.span[0] : result.span[1]].startswith(EXPR)
