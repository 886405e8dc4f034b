"""``grade`` (an answer against a gold answer) and ``verify`` (a raw output against one).

Each task is a short ladder of predicates, cheapest first; the first that can
decide names itself in ``Verdict.how``. math-verify, the slowest, is asked only
when the cheap ones cannot decide, and always through the worker pool
(:mod:`answerx.grading.pool`), so any item is bounded in time on any thread.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Final

from answerx.errors import InputError
from answerx.extraction import Extraction, clean_answer, extract
from answerx.extraction.models import Task
from answerx.grading.boolean import boolean_of
from answerx.grading.choice import choice_of
from answerx.grading.game24 import judge_game24, numbers_of
from answerx.grading.mathverify import compare
from answerx.grading.models import How, Reason, Verdict
from answerx.grading.numeric import as_fraction, exact_number, numbers_close
from answerx.grading.symbolic import decide
from answerx.grading.tasks import check_task, infer_task
from answerx.grading.text import same_text

__all__ = ["DEFAULT_TIME_LIMIT_S", "DEFAULT_TOLERANCE", "Gold", "grade", "verify"]

#: Seconds one item's math-verify comparison may take (math-verify's own default).
DEFAULT_TIME_LIMIT_S: Final = 5.0
#: Numeric task: relative to the gold value, absolute below 1.
DEFAULT_TOLERANCE: Final = 1e-6
#: A gold answer as datasets hold it: text, or a bare number (GSM8K's ``72``).
Gold = str | int | float | None

_Decision = tuple[Reason, How]
_NOTHING: Final = "none"
# math-verify compares floats rounded to 6 places: decimals further apart than this
# differ for it too, so no need to ask it.
_ROUNDING_GAP: Final = 1e-5


def grade(
    answer: str | None,
    gold: Gold,
    task: Task | str = "auto",
    *,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    time_limit_s: float = DEFAULT_TIME_LIMIT_S,
) -> Verdict:
    """Judge an answer already extracted against ``gold``, the way ``task`` says.

    Both are cleaned first (``clean_answer``: "The answer is $4$." is ``4``). No
    answer is wrong (``no_answer``); a missing gold cannot be judged
    (``correct=None``, ``unreadable_gold``), except for ``game24`` with
    ``numbers``. ``auto`` reads the task from the gold answer. Raises ConfigError
    for an unknown task; never raises for any answer text.

    >>> grade(r"\\frac{1}{2}", "0.5", "math").how
    'fraction'
    >>> grade("Venus", "B", choices=["Mercury", "Venus"]).reason
    'equivalent'
    """
    started = time.perf_counter()
    task = check_task(task)
    pred = clean_answer(answer) if answer else ""
    ref = _clean_gold(gold)
    reason, how = _decide(pred, ref, task, choices, numbers, tolerance, time_limit_s)
    return _verdict(reason, how, pred or None, ref or None, None, started)


def verify(
    raw_output: str,
    gold: Gold,
    task: Task | str = "auto",
    *,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    finish_reason: str | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    time_limit_s: float = DEFAULT_TIME_LIMIT_S,
) -> Verdict:
    """Extract the final answer from ``raw_output`` and judge it against ``gold``.

    An output that states nothing is wrong (``no_answer``, or ``unfinished`` when
    it was cut off: ``finish_reason="length"``, or an unclosed ``<think>``); a
    stated answer that is not well formed (``Extraction.valid`` is False) and not
    equivalent is ``malformed_answer``. ``auto`` reads the task from the gold
    answer (``72`` is numeric, ``B`` a choice letter, ``\\frac{1}{2}`` math) and
    extracts with it. Thread-safe; math-verify runs bounded by ``time_limit_s``.

    >>> verify("6 * 7 = 42, so the answer is 42.", 42).correct
    True
    """
    started = time.perf_counter()
    if not isinstance(raw_output, str):
        raise InputError(f"raw_output must be a string, not {type(raw_output).__name__}")
    task = check_task(task)
    ref = _clean_gold(gold)
    wanted = infer_task(ref or None, choices, numbers) if task == "auto" else task
    extraction = _extract(raw_output, wanted, choices, numbers, finish_reason)
    if extraction.answer is None:
        if not _gold_readable(ref, wanted, numbers):
            return _verdict("unreadable_gold", _NOTHING, None, None, extraction, started)
        reason: Reason = "unfinished" if extraction.unfinished else "no_answer"
        return _verdict(reason, _NOTHING, None, ref or None, extraction, started)
    reason, how = _decide(extraction.answer, ref, wanted, choices, numbers, tolerance, time_limit_s)
    if reason == "different" and extraction.valid is False:
        reason = "malformed_answer"
    return _verdict(reason, how, extraction.answer, ref or None, extraction, started)


# --- extraction ------------------------------------------------------------------------------


def _extract(
    raw_output: str,
    task: Task,
    choices: Sequence[str] | None,
    numbers: Sequence[int | float] | None,
    finish_reason: str | None,
) -> Extraction:
    return extract(raw_output, task, choices=choices, numbers=numbers, finish_reason=finish_reason)


# --- deciding -------------------------------------------------------------------------------------


def _clean_gold(gold: Gold) -> str:
    if gold is None or isinstance(gold, bool):
        return ""
    if isinstance(gold, int | float):
        gold = repr(gold) if isinstance(gold, float) else str(gold)
    return clean_answer(gold) if isinstance(gold, str) and gold.strip() else ""


def _gold_readable(ref: str, task: str, numbers: Sequence[int | float] | None) -> bool:
    if task == "game24":
        return numbers is not None or (bool(ref) and numbers_of(ref) is not None)
    return bool(ref)


def _verdict(
    reason: Reason,
    how: How,
    answer: str | None,
    gold: str | None,
    extraction: Extraction | None,
    started: float,
) -> Verdict:
    correct = True if reason == "equivalent" else None if reason == "unreadable_gold" else False
    return Verdict(
        correct=correct,
        reason=reason,
        how=how,
        answer=answer,
        gold=gold,
        extraction=extraction,
        elapsed_s=time.perf_counter() - started,
    )


def _decide(
    pred: str,
    ref: str,
    task: str,
    choices: Sequence[str] | None,
    numbers: Sequence[int | float] | None,
    tolerance: float,
    limit_s: float,
) -> _Decision:
    if task == "auto":
        task = infer_task(ref or None, choices, numbers)
    if task == "game24":
        if numbers is None and ref:
            numbers = numbers_of(ref)  # a reference solution names the numbers
        if numbers is None:
            return "unreadable_gold", _NOTHING
        if not pred:
            return "no_answer", _NOTHING
        return judge_game24(pred, numbers), "game24"
    if not ref:
        return "unreadable_gold", _NOTHING
    if not pred:
        return "no_answer", _NOTHING
    if task == "math":
        return _math(pred, ref, limit_s)
    if task == "numeric":
        return _numeric(pred, ref, tolerance, limit_s)
    if task == "multiple_choice":
        return _choice(pred, ref, choices)
    if task == "boolean":
        return _boolean(pred, ref)
    return _text(pred, ref)


def _same(same: bool, how: How) -> _Decision:
    return ("equivalent" if same else "different"), how


def _text(pred: str, ref: str) -> _Decision:
    return _same(same_text(pred, ref), "normalised_text")


def _boolean(pred: str, ref: str) -> _Decision:
    expected = boolean_of(ref)
    if expected is None:  # a boolean item whose gold is not yes/no: compare as text
        return _text(pred, ref)
    return _same(boolean_of(pred) == expected, "boolean")


_LONE_LETTER = re.compile(r"\(?([A-Za-z])\)?")


def _choice(pred: str, ref: str, choices: Sequence[str] | None) -> _Decision:
    lone = _LONE_LETTER.fullmatch(ref)
    if choices and lone and ord(lone.group(1).upper()) - ord("A") >= len(choices):
        return "unreadable_gold", _NOTHING  # gold "K" of a question with options A-B
    expected = choice_of(ref, choices)
    if expected is None:  # gold is neither a letter nor an option: compare as text
        return _text(pred, ref)
    got = choice_of(pred, choices)
    if got is None:
        return "different", "letter"
    if choices and "ABCDEFGHIJ".index(got[0]) >= len(choices):
        return "malformed_answer", got[1]  # "letter K is not an option"
    return _same(got[0] == expected[0], got[1])


# LaTeX beyond a currency sign, a percent or a plain \frac{a}{b}: "\sqrt{25}" or "5^2"
# is a number only math-verify can read (its first digits would be the wrong one).
_LOOKS_MATH = re.compile(r"\\(?![$%]|[dt]?frac\{\d+\}\{\d+\})|\^")


def _numeric(pred: str, ref: str, tolerance: float, limit_s: float) -> _Decision:
    expected = as_fraction(ref)
    if expected is None:  # a numeric item whose gold is not a number: compare as text
        return _text(pred, ref)
    if pred == ref:
        return "equivalent", "exact"
    if _LOOKS_MATH.search(pred):
        return _math(pred, ref, limit_s)
    got = as_fraction(pred)
    if got is None:
        return "different", "fraction"
    if got == expected:
        return "equivalent", "fraction"
    return _same(numbers_close(got, expected, tolerance), "numeric_tolerance")


_LATEX_NOISE = re.compile(r"\\left|\\right|\\[,;!: ]|\$|\\displaystyle")
_SPACE = re.compile(r"(?<![A-Za-z])\s+|\s+(?![A-Za-z])")  # keeps "\pi r" from becoming "\pir"


def _normalised_math(text: str) -> str:
    text = _LATEX_NOISE.sub("", text).replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    return _SPACE.sub("", text)


# A gold of plain words ("odd", "Monday"): math-verify would read it as a product of
# symbols, so that "Odd" differed from "odd".
_WORDS = re.compile(r"[A-Za-z]{3,}(?:[ '-]+[A-Za-z]+)*")


def _math(pred: str, ref: str, limit_s: float) -> _Decision:
    if pred == ref:
        return "equivalent", "exact"
    if _WORDS.fullmatch(ref):
        return _text(pred, ref)
    got, expected = exact_number(pred), exact_number(ref)
    if got is not None and expected is not None:
        (a, a_decimal), (b, b_decimal) = got, expected
        if a == b:
            return "equivalent", "fraction"
        # Exact numbers differ for math-verify too; decimals (compared rounded to 6
        # places) only when they are further apart than the rounding.
        if not (a_decimal or b_decimal) or abs(a - b) > _ROUNDING_GAP:
            return "different", "fraction"
    if _normalised_math(pred) == _normalised_math(ref):
        return "equivalent", "normalised_math"
    decided = decide(pred, ref)  # the fast rung: only what it cannot tell goes on
    if decided is not None:
        return _same(*decided)
    result = compare(pred, ref, limit_s)
    if result == "unreadable_gold":  # math-verify cannot read the gold at all: compare as text
        return _text(pred, ref)
    if result == "timeout":
        return "timeout", "math_verify"
    return _same(result == "equal", "math_verify")
