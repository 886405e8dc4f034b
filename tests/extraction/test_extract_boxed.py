"""LaTeX boxes: `\\boxed{…}` and `\\fbox{…}`, nested braces, several boxes, boxes in math mode."""

from __future__ import annotations

import pytest

from answerx import extract

HALF = r"""We roll a fair die. The outcomes 2, 4 and 6 are even, so there are 3 favourable
outcomes out of 6. The probability is $\frac{3}{6}$, which simplifies to one half.

Therefore the probability is \boxed{\frac{1}{2}}."""

TEXT_CHOICE = r"""Option (A) ignores air resistance and (C) double-counts the normal force.
Option (B) balances both forces correctly.
\boxed{\text{(B)}}"""

BARE = r"""The sum of the first five odd numbers is 1 + 3 + 5 + 7 + 9 = 25, and the
square root of 25 is 5, so the side length is $\boxed 5$."""

SEVERAL = r"""Setting up the equation 2x + 3 = 19 I first got \boxed{11}, but that forgot to
subtract 3: 2x = 16, so x = 8.

Final answer: \boxed{8}"""

FBOX = r"""Multiplying the two binomials, $(x + 1)(x - 1) = x^2 - 1$.
\fbox{x^{2}-1}"""

INLINE_MATH = r"""Solving 3x - 7 = 2 gives 3x = 9.
So $\boxed{x = 3}$ and we are done."""

DISPLAY_MATH = r"""The height of an equilateral triangle with side 1 is found with Pythagoras:
h^2 = 1 - 1/4 = 3/4. Hence the sine of 60 degrees is
\[
  \boxed{\dfrac{\sqrt{3}}{2}}
\]
which matches the unit circle."""

ESCAPED_BRACES = r"""The inequality x^2 < 4 holds exactly for -2 < x < 2, so the solution set is
$\boxed{\left\{ x \mid -2 < x < 2 \right\}}$."""

DEEP_NESTING = r"""Simplifying the continued fraction step by step:
$$\boxed{1+\frac{1}{1+\frac{1}{1+\frac{1}{2}}}}$$"""

CUT_OFF_LAST_BOX = r"""The first part gives \boxed{3}.
For the second part, the ratio of the areas is \boxed{\frac{9}{1"""

BOX_THEN_NUMBERS = r"""\boxed{42}

Checking: 6 * 7 = 42 and 42 - 2 = 40, so everything is consistent with step 3."""

MINERVA = r"""The common ratio is r = 1/2, so the sum is a / (1 - r) = 3 / (1/2) = 6.
Final Answer: The final answer is $\boxed{6}$. I hope it is correct."""


@pytest.mark.parametrize(
    ("raw", "task", "answer"),
    [
        pytest.param(HALF, "math", "\\frac{1}{2}", id="frac-nested-braces"),
        pytest.param(HALF, "auto", "\\frac{1}{2}", id="frac-auto"),
        pytest.param(TEXT_CHOICE, "multiple_choice", "B", id="text-choice-mc"),
        pytest.param(TEXT_CHOICE, "auto", "B", id="text-choice-auto"),
        pytest.param(BARE, "numeric", "5", id="bare-boxed-5"),
        pytest.param(BARE, "auto", "5", id="bare-boxed-5-auto"),
        pytest.param(SEVERAL, "numeric", "8", id="several-last-wins"),
        pytest.param(SEVERAL, "auto", "8", id="several-last-wins-auto"),
        pytest.param(FBOX, "math", "x^{2}-1", id="fbox"),
        pytest.param(INLINE_MATH, "math", "x = 3", id="inside-dollars"),
        pytest.param(DISPLAY_MATH, "math", "\\dfrac{\\sqrt{3}}{2}", id="inside-display-math"),
        pytest.param(
            ESCAPED_BRACES, "math", "\\left\\{ x \\mid -2 < x < 2 \\right\\}", id="escaped-braces"
        ),
        pytest.param(
            DEEP_NESTING, "math", "1+\\frac{1}{1+\\frac{1}{1+\\frac{1}{2}}}", id="deep-nesting"
        ),
        pytest.param(CUT_OFF_LAST_BOX, "math", "3", id="unclosed-last-box-skipped"),
        pytest.param(BOX_THEN_NUMBERS, "numeric", "42", id="box-beats-later-numbers"),
        pytest.param(MINERVA, "numeric", "6", id="box-inside-final-answer-phrase"),
    ],
)
def test_boxed_answer_is_taken(raw: str, task: str, answer: str) -> None:
    result = extract(raw, task)
    assert (result.answer, result.method) == (answer, "boxed")


def test_boxed_span_points_inside_the_box() -> None:
    result = extract(SEVERAL, "numeric")
    assert result.span is not None
    start, end = result.span
    assert SEVERAL[start:end] == "8"
    assert SEVERAL[start - len("\\boxed{") : start] == "\\boxed{"


def test_boxed_reasoning_drops_only_the_last_box() -> None:
    result = extract(SEVERAL, "numeric")
    assert result.reasoning == SEVERAL.replace("\\boxed{8}", "")
    assert "\\boxed{11}" in result.reasoning


def test_boxed_letter_inside_display_math_for_multiple_choice() -> None:
    raw = "Only option C keeps the units consistent.\n\\[\\boxed{C}\\]"
    result = extract(raw, "multiple_choice")
    assert (result.answer, result.method) == ("C", "boxed")


_BOX_PIECES = ("\\boxed", "\\fbox", "x", "_", "{", " ", "é", "\\")


def test_box_markers_found_from_the_end_are_exactly_the_pattern_matches() -> None:
    # The markers are found with rfind from the end (the usual last box is the answer, so
    # the scan stops there) and must be the matches of the pattern they replaced, last
    # first: every string of up to four pieces, whole and in windows (a window's end is
    # the end of the text for the pattern's closing word boundary).
    import re
    from itertools import product

    from answerx.extraction.latex import _box_markers

    pattern = re.compile(r"\\(?:boxed|fbox)\b")
    for n in range(1, 5):
        for pieces in product(_BOX_PIECES, repeat=n):
            text = "".join(pieces)
            for lo, hi in ((0, len(text)), (1, len(text)), (0, len(text) - 1)):
                expected = [m.start() for m in pattern.finditer(text, lo, hi)]
                assert list(_box_markers(text, lo, hi)) == expected[::-1], (text, lo, hi)
