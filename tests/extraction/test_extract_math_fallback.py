"""The ``math`` fallback without any marker: the last complete expression, not the last number.

``tests/data/bare_math.jsonl`` is a table written for the project: bare answers of every
shape (fractions with ``\\frac``/``\\dfrac``/``\\tfrac``/``\\cfrac`` and brace-less ``\\frac34``,
``\\sqrt3``, intervals, tuples, matrices, ``\\left(…\\right)``, units in ``\\text{}``, decimal
commas and spaced thousands) and MATH-style solutions whose last sentence states the answer
in ``$…$``, ``\\(…\\)``, ``\\[…\\]``, ``$$…$$`` or plain ``x = …``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from answerx import extract

TABLE = [
    json.loads(line)
    for line in (Path(__file__).parents[1] / "data" / "bare_math.jsonl").read_text().splitlines()
]


def _equivalent(stated: str, answer: str | None) -> bool:
    if answer is None:
        return False
    if answer == stated:
        return True
    from math_verify import parse, verify

    try:
        return any(verify(parse(w.format(stated)), parse(w.format(answer))) for w in ("${}$", "{}"))
    except Exception:  # math-verify raises on odd input: that is "not shown equivalent"
        return False


def test_the_table_covers_every_shape_with_150_cases_or_more() -> None:
    assert len(TABLE) >= 150
    shapes = {row["shape"] for row in TABLE}
    assert shapes == {"bare", "bare-dollars", "solution", "european", "plain-equation"}


def test_marker_less_math_answers_are_the_stated_expression_in_98_percent() -> None:
    misses = []
    for row in TABLE:
        got = extract(row["output"], "math")
        if not _equivalent(row["stated"], got.answer):
            misses.append(f"{row['output']!r}: stated {row['stated']!r}, got {got.answer!r}")
    share = 1 - len(misses) / len(TABLE)
    assert share >= 0.98, f"{share:.1%}; misses:\n" + "\n".join(misses)


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        pytest.param(r"\dfrac{3}{7}", r"\dfrac{3}{7}", id="bare-dfrac-not-7"),
        pytest.param("$(2,5]$", "(2,5]", id="interval-not-5"),
        pytest.param(r"Collecting terms, so $m = \frac{7}{4}$.", r"\frac{7}{4}", id="rhs"),
        pytest.param(r"\frac34", r"\frac34", id="braceless-frac"),
        pytest.param(r"5\text{ cm}", "5", id="unit-dropped"),
        pytest.param(r"Thus \[x = \frac{1}{2} \approx 0.5\]", r"\frac{1}{2}", id="approx-cut"),
        pytest.param("2,74", "2.74", id="decimal-comma"),
        pytest.param("1 000,5", "1000.5", id="spaced-thousands-and-decimal-comma"),
        pytest.param("1,000", "1000", id="comma-thousands-stays-one-thousand"),
        pytest.param("We need $3$ more, so 12 in all.", "12", id="number-after-formula-wins"),
    ],
)
def test_math_fallback_returns_the_whole_expression(raw: str, answer: str) -> None:
    got = extract(raw, "math")
    assert got.answer == answer
    # An output that is itself the expression is its own answer (issue 23 §3).
    assert got.method in ("last_expression", "last_number", "whole_output")
