"""``\\frac12``, ``\\dfrac34``, ``\\tfrac{1}{2}``, ``\\frac 1 2`` are fractions everywhere
(issue 40 §2): extraction cleaning, numeric grading, math grading and the fast rung."""

from __future__ import annotations

import pytest

from answerx import extract, verify
from answerx.extraction import clean_answer
from answerx.extraction.latex import brace_fractions
from answerx.extraction.numbers import canonical_number
from answerx.grading.numeric import exact_number
from answerx.grading.symbolic import decide

_SPELLINGS = [
    (r"\frac12", "1/2", "0.5"),
    (r"\dfrac34", "3/4", "0.75"),
    (r"\tfrac{1}{2}", "1/2", "0.5"),
    (r"\frac 1 2", "1/2", "0.5"),
    (r"\frac{3}4", "3/4", "0.75"),
    (r"\dfrac 5{8}", "5/8", "0.625"),
]


@pytest.mark.parametrize(("latex", "slash", "decimal"), _SPELLINGS)
def test_a_cleaned_answer_keeps_its_spelling_and_reads_as_the_fraction(
    latex: str, slash: str, decimal: str
) -> None:
    cleaned = clean_answer(f"The answer is ${latex}$.")
    assert cleaned == latex
    assert canonical_number(cleaned) == slash
    assert brace_fractions(cleaned).endswith("{" + slash.replace("/", "}{") + "}")


@pytest.mark.parametrize(("latex", "slash", "decimal"), _SPELLINGS)
def test_numeric_extraction_reads_the_fraction(latex: str, slash: str, decimal: str) -> None:
    assert extract(f"The answer is $\\boxed{{{latex}}}$.", "numeric").answer == slash
    assert extract(f"So we get ${latex}$", "numeric").answer == slash


@pytest.mark.parametrize(("task", "stated"), [("numeric", "{}"), ("math", "${}$")])
@pytest.mark.parametrize(("latex", "slash", "decimal"), _SPELLINGS)
def test_grading_reads_the_fraction(
    task: str, stated: str, latex: str, slash: str, decimal: str
) -> None:
    output = f"The answer is $\\boxed{{{latex}}}$."
    assert verify(output, decimal, task=task).correct is True
    assert verify(output, slash.replace("/", ""), task=task).correct is False
    assert verify(f"The answer is {stated.format(decimal)}.", latex, task=task).correct is True


@pytest.mark.parametrize(("latex", "slash", "decimal"), _SPELLINGS)
def test_the_fast_rung_and_the_exact_reading_agree(latex: str, slash: str, decimal: str) -> None:
    num, den = (int(x) for x in slash.split("/"))
    got = exact_number(brace_fractions(latex))
    assert got is not None and got[0] * den == num
    assert exact_number(latex) == got
    assert decide(latex, slash) == (True, "symbolic_fast")


def test_an_unbraced_argument_is_one_digit_as_latex_reads_it() -> None:
    assert brace_fractions(r"\frac123") == r"\frac{1}{2}3"
    assert brace_fractions(r"\frac{12}{5}") == r"\frac{12}{5}"
