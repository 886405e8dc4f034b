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
from dataclasses import dataclass
from typing import Any, Final, cast

from answerx.errors import InputError
from answerx.extraction import Extraction, clean_answer, extract
from answerx.extraction.latex import brace_fractions
from answerx.extraction.models import OPTION_LETTERS, Task
from answerx.extraction.spec import DEFAULT_TIME_LIMIT_S, DEFAULT_TOLERANCE, AnswerSpec
from answerx.extraction.tasks import check_task
from answerx.grading.boolean import boolean_of
from answerx.grading.choice import choice_of
from answerx.grading.game24 import judge_game24, numbers_of
from answerx.grading.golds import (
    Gold,
    Golds,
    check_finite_gold,
    clean_golds,
    infer_task,
    spec_for,
)
from answerx.grading.judgement import Doubt, Judge
from answerx.grading.mathverify import MathResult, compare, compare_with_rung
from answerx.grading.models import How, Reason, Verdict
from answerx.grading.numeric import as_fraction, exact_number, numbers_close
from answerx.grading.qa_metrics import ShortAnswerScores
from answerx.grading.residue import consult, output_doubt
from answerx.grading.short_answer import decide_short_answer, opening_answer
from answerx.grading.symbolic import ReadingsElsewhere
from answerx.grading.symbolic import decide as decide_symbolic
from answerx.grading.symbolic import prepare as prepare_symbolic
from answerx.grading.symbolic.lexer import LAYOUT_COMMANDS, SPACING, SYNONYMS
from answerx.grading.text import same_text

__all__ = [
    "DEFAULT_TIME_LIMIT_S",
    "DEFAULT_TOLERANCE",
    "Gold",
    "Golds",
    "decide",
    "grade",
    "verify",
]

_Decision = tuple[Reason, How]
_NOTHING: Final = "none"
# math-verify compares floats rounded to 6 places: decimals further apart than this
# differ for it too, so no need to ask it.
_ROUNDING_GAP: Final = 1e-5


def grade(
    answer: str | None,
    gold: Golds,
    task: Task | str = "auto",
    *,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    time_limit_s: float = DEFAULT_TIME_LIMIT_S,
    question: str | None = None,
) -> Verdict:
    """Judge an answer already extracted against ``gold``, the way ``task`` says.

    ``gold`` is one answer or a list of accepted answers (aliases): the answer is
    right when it matches any of them, and ``Verdict.matched_gold`` names the one it
    matched. Both are cleaned first (``clean_answer``: "The answer is $4$." is ``4``).
    No answer is wrong (``no_answer``); a missing gold cannot be judged
    (``correct=None``, ``unreadable_gold``), except for ``game24`` with ``numbers``.
    ``auto`` reads the task from the gold answer (a list of short texts is
    ``short_answer``). ``question`` lets ``short_answer`` accept a surname for a
    person. Raises ConfigError for an unknown task (with the name it likely meant) and
    InputError for a gold that is NaN
    or ±Infinity, or spells one (``"(nan)"``) when the task is not ``text`` or
    ``short_answer`` (or a list holding one); never raises for any answer text.

    >>> grade(r"\\frac{1}{2}", "0.5", "math").how
    'fraction'
    >>> grade("Venus", "B", choices=["Mercury", "Venus"]).reason
    'equivalent'
    >>> grade("Paris, France", ["Paris", "City of Light"]).matched_gold
    'Paris'
    """
    started = time.perf_counter()
    spec, refs = _item(gold, task, choices, numbers, tolerance, time_limit_s)
    return decide(answer, refs, spec, question=question, started=started)


def verify(
    raw_output: str,
    gold: Golds,
    task: Task | str = "auto",
    *,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    finish_reason: str | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    time_limit_s: float = DEFAULT_TIME_LIMIT_S,
    question: str | None = None,
    judge: Judge | None = None,
) -> Verdict:
    """Extract the final answer from ``raw_output`` and judge it against ``gold``.

    ``gold`` is one answer or a list of accepted answers (any one matching is right;
    ``Verdict.matched_gold`` says which). An output that states nothing is wrong
    (``no_answer``, or ``unfinished`` when it was cut off: ``finish_reason="length"``,
    or an unclosed ``<think>``); a stated answer that is not well formed
    (``Extraction.valid`` is False) and not equivalent is ``malformed_answer``.
    ``auto`` reads the task from the gold answer (``72`` is numeric, ``B`` a choice
    letter, ``\\frac{1}{2}`` math, a list of short texts ``short_answer``) and
    extracts with it. Thread-safe; math-verify runs bounded by ``time_limit_s``.
    ``verify`` is :func:`decide` on :func:`~answerx.extraction.extract`'s result.

    ``judge`` (see :class:`~answerx.grading.judgement.Judge`, e.g.
    :class:`answerx.judge.LLMJudge`) is asked only where the rules are unsure
    (``Verdict.doubt``); it sees ``question`` when given. Without a judge the verdict
    is the rules' alone. An unknown task raises ConfigError naming the task it likely
    meant. A gold that is NaN or ±Infinity (JSON's ``NaN``), or spells
    one (``"[NaN]"``, ``"\\mathrm{NaN}"``) when the task is not ``text`` or
    ``short_answer``, raises InputError, as does a raw output that is not text.

    >>> verify("6 * 7 = 42, so the answer is 42.", 42).correct
    True
    """
    started = time.perf_counter()
    if not isinstance(raw_output, str):
        raise InputError(f"raw_output must be a string, not {type(raw_output).__name__}")
    spec, refs = _item(gold, task, choices, numbers, tolerance, time_limit_s)
    extraction = extract(
        raw_output, spec.task, choices=choices, numbers=numbers, finish_reason=finish_reason
    )
    return decide(extraction, refs, spec, question=question, judge=judge, started=started)


def decide(
    extraction: Extraction | str | None,
    golds: Sequence[str],
    spec: AnswerSpec,
    *,
    question: str | None = None,
    judge: Judge | None = None,
    started: float | None = None,
) -> Verdict:
    """The verdict on what was read from an output against the accepted answers ``golds``
    (cleaned: :func:`~answerx.grading.golds.clean_golds`), compared as ``spec`` says: the
    one place a verdict is made (``verify``, ``grade`` and experiment scoring all end here).

    ``extraction`` is what :func:`~answerx.extraction.extract` (or an LLM's structured
    reply) found: no answer from a cut-off output is ``unfinished``, a wrong answer that
    is not well formed (``valid=False``) ``malformed_answer``, and the rules' doubts about
    it (:func:`~answerx.grading.residue.output_doubt`) join the comparison's. A bare
    answer (a string, or None) is compared as it is, with nothing known about where it
    came from. A ``spec`` of task ``auto`` is resolved from ``golds``. ``judge`` is asked
    only when the verdict has a doubt; ``question`` is what it and the short-answer
    rules see. ``started`` (``perf_counter``) is when the work on the item began, for
    ``Verdict.elapsed_s``.

    >>> from answerx.extraction import extract
    >>> spec = AnswerSpec.of("numeric")
    >>> decide(extract("So the answer is 42."), ("42",), spec).how
    'exact'
    >>> decide("41", ("42",), spec).reason
    'different'
    """
    if started is None:
        started = time.perf_counter()
    refs = tuple(golds)
    if spec.task == "auto":
        spec = AnswerSpec(
            infer_task(refs if len(refs) > 1 else (refs[0] if refs else None),
                       spec.choices, spec.numbers),
            spec.choices, spec.numbers, spec.tolerance, spec.time_limit_s,
        )  # fmt: skip
    if not isinstance(extraction, Extraction):
        pred = clean_answer(extraction) if extraction else ""
        decided = _decide_golds(pred, refs, spec, question)
        verdict = _verdict(decided.reason, decided.how, pred or None, refs, None, started, decided)
    elif extraction.answer is None:
        verdict = _nothing_read(extraction, refs, spec, question, started)
    else:
        decided = _decide_golds(extraction.answer, refs, spec, question)
        reason = decided.reason
        if reason == "different" and extraction.valid is False:
            reason = "malformed_answer"
        verdict = _verdict(
            reason, decided.how, extraction.answer, refs, extraction, started, decided,
            doubt=decided.doubt or output_doubt(extraction, reason),
        )  # fmt: skip
    if judge is None or verdict.doubt is None:
        return verdict
    return consult(verdict, judge, golds=refs, question=question, choices=spec.choices,
                   started=started)  # fmt: skip


def _nothing_read(
    extraction: Extraction,
    refs: tuple[str, ...],
    spec: AnswerSpec,
    question: str | None,
    started: float,
) -> Verdict:
    """The verdict on an output in which extraction found no answer."""
    if not _gold_readable(refs[0] if refs else "", spec.task, spec.numbers):
        return _verdict("unreadable_gold", _NOTHING, None, (), extraction, started)
    # A short answer stated in a finished first sentence survives a later cut.
    if spec.task == "short_answer" and extraction.unfinished:
        opening = opening_answer(extraction.raw_output, refs, question)
        if opening is not None:
            decided = _decide_golds(opening, refs, spec, question)
            return _verdict(decided.reason, decided.how, opening, refs, extraction, started,
                            decided)  # fmt: skip
    reason: Reason = "unfinished" if extraction.unfinished else "no_answer"
    return _verdict(reason, _NOTHING, None, refs, extraction, started,
                    doubt=output_doubt(extraction, reason))  # fmt: skip


# --- deciding -------------------------------------------------------------------------------------


def _item(
    gold: Golds,
    task: str,
    choices: Sequence[str] | None,
    numbers: Sequence[int | float] | None,
    tolerance: float,
    time_limit_s: float,
) -> tuple[AnswerSpec, tuple[str, ...]]:
    """The item's resolved spec and its cleaned accepted answers; raises for a bad task
    name, too many choices or a non-finite gold before anything is read."""
    checked = check_task(task)  # the name first (did you mean?), as extract does
    if choices is not None and len(choices) > len(OPTION_LETTERS):
        raise InputError(f"at most {len(OPTION_LETTERS)} choices (A-Z), got {len(choices)}")
    check_finite_gold(gold, task=checked)
    refs = clean_golds(gold)
    spec = spec_for(
        checked, gold, refs, choices, numbers, tolerance=tolerance, time_limit_s=time_limit_s
    )
    return spec, refs


@dataclass(frozen=True, slots=True)
class _Decided:
    """A decision over all accepted answers: which one matched, the short-answer scores,
    and why the rules are unsure (None: they are not)."""

    reason: Reason
    how: How
    matched: str | None = None
    scores: ShortAnswerScores | None = None
    doubt: Doubt | None = None


def _decide_golds(
    pred: str, refs: tuple[str, ...], spec: AnswerSpec, question: str | None
) -> _Decided:
    """:func:`_decide` against every accepted answer: the first that matches wins; when
    none does, a timeout (unsure) before a plain difference, before an unreadable gold."""
    task = spec.task
    if task == "short_answer":
        if not refs:
            return _Decided("unreadable_gold", _NOTHING)
        short = decide_short_answer(pred or None, refs, question)
        doubt = cast(Doubt | None, short.doubt)
        return _Decided(
            cast(Reason, short.reason), cast(How, short.how), short.matched, short.scores, doubt
        )
    if len(refs) <= 1:  # one gold: today's single comparison
        ref = refs[0] if refs else ""
        reason, how = _decide(pred, ref, spec)
        matched = ref if reason == "equivalent" else None
        return _Decided(reason, how, matched, doubt=_math_doubt(reason, how, task, refs))
    tried: list[_Decision] = []
    for ref in refs:
        reason, how = _decide(pred, ref, spec)
        if reason == "equivalent":
            return _Decided(reason, how, ref or None)
        tried.append((reason, how))
    reason, how = min(tried, key=lambda d: _UNSURE_FIRST.get(d[0], 1))
    return _Decided(reason, how, doubt=_math_doubt(reason, how, task, refs))


_UNSURE_FIRST: Final = {"timeout": 0, "unreadable_gold": 2}


def _math_doubt(reason: str, how: str, task: str, refs: tuple[str, ...]) -> Doubt | None:
    """A math comparison the rules could not finish: it timed out, or math-verify could
    not read the gold (not plain words) and text decided instead."""
    if reason == "timeout":
        return "comparison_timeout"
    if task == "math" and how == "normalised_text" and reason == "different" and refs:
        return None if _WORDS.fullmatch(refs[0]) else "math_unreadable"
    return None


def _gold_readable(ref: str, task: str, numbers: Sequence[int | float] | None) -> bool:
    if task == "game24":
        return numbers is not None or (bool(ref) and numbers_of(ref) is not None)
    return bool(ref)


def _verdict(
    reason: Reason,
    how: How,
    answer: str | None,
    refs: tuple[str, ...],
    extraction: Extraction | None,
    started: float,
    decided: _Decided | None = None,
    *,
    doubt: Doubt | None = None,
) -> Verdict:
    correct = True if reason == "equivalent" else None if reason == "unreadable_gold" else False
    matched = decided.matched if decided is not None and correct else None
    doubt = doubt if doubt is not None or decided is None else decided.doubt
    # Only the fields that are set: a default costs nothing, a passed value is validated
    # (a verdict is made per item, millions of times in a batch).
    extra: dict[str, Any] = {}
    if matched is not None:
        extra["matched_gold"] = matched
    if decided is not None and decided.scores is not None:
        extra["scores"] = decided.scores
    if doubt is not None:
        extra["doubt"] = doubt
    return Verdict(
        correct=correct,
        reason=reason,
        how=how,
        answer=answer,
        gold=matched or (refs[0] if refs else None),
        extraction=extraction,
        elapsed_s=time.perf_counter() - started,
        **extra,
    )


def _decide(pred: str, ref: str, spec: AnswerSpec) -> _Decision:
    task, choices = spec.task, spec.choices
    if task == "game24":
        numbers: Sequence[int | float] | None = spec.numbers
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
        return _math(pred, ref, spec.time_limit_s)
    if task == "numeric":
        return _numeric(pred, ref, spec.tolerance, spec.time_limit_s)
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
    if choices and OPTION_LETTERS.index(got[0]) >= len(choices):
        return "malformed_answer", got[1]  # "letter K is not an option"
    return _same(got[0] == expected[0], got[1])


# LaTeX beyond a currency sign, a percent or a plain \frac{a}{b}: "\sqrt{25}" or "5^2"
# is a number only math-verify can read (its first digits would be the wrong one).
_LOOKS_MATH = re.compile(r"\\(?![$%]|[dt]?frac\s*(?:\{\d+\}|\d)\s*(?:\{\d+\}|\d))|\^")


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


# The fast rung's own tables of layout and spellings: one reading of LaTeX for both.
_LATEX_NOISE = re.compile(rf"\\(?:{'|'.join(sorted(LAYOUT_COMMANDS))})(?![A-Za-z])|{SPACING}")
_FRACTION = re.compile(
    rf"\\(?:{'|'.join(sorted(k for k, v in SYNONYMS.items() if v == 'frac'))})(?![A-Za-z])"
)
_SPACE = re.compile(r"(?<![A-Za-z])\s+|\s+(?![A-Za-z])")  # keeps "\pi r" from becoming "\pir"


def _normalised_math(text: str) -> str:
    text = _FRACTION.sub(r"\\frac", _LATEX_NOISE.sub("", brace_fractions(text)))
    return _SPACE.sub("", text)


# A gold of plain words ("odd", "Monday"): math-verify would read it as a product of
# symbols, so that "Odd" differed from "odd".
_WORDS = re.compile(r"[A-Za-z]{3,}(?:[ '-]+[A-Za-z]+)*")


def symbolic_then_math(pred: str, ref: str, limit_s: float) -> tuple[bool, How] | MathResult:
    """The math ladder's last two rungs: the fast rung's ``(same, how)`` where it can tell,
    else math-verify's verdict (within ``limit_s``). Where the fast rung needs math-verify's
    patterns and this process leaves them to its grading workers (a file run's batch
    worker), both are made by a worker, with this same function."""
    try:
        decided = decide_symbolic(pred, ref)  # the fast rung: only what it cannot tell goes on
    except ReadingsElsewhere:
        elsewhere = compare_with_rung(pred, ref, limit_s)
        if elsewhere is not None:
            return cast("tuple[bool, How] | MathResult", elsewhere)
        prepare_symbolic()  # no worker could start: the patterns here, and the rung again
        decided = decide_symbolic(pred, ref)
    return decided if decided is not None else compare(pred, ref, limit_s)


def _math(pred: str, ref: str, limit_s: float) -> _Decision:
    if pred == ref:
        return "equivalent", "exact"
    if _WORDS.fullmatch(ref):
        return _text(pred, ref)
    if len(ref) > 1 and ref.isalpha() and pred.lower() == ref.lower():
        return "equivalent", "normalised_text"  # "no" for \text{No}: words, not symbols
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
    result = symbolic_then_math(pred, ref, limit_s)
    if isinstance(result, tuple):
        return _same(*result)
    if result == "unreadable_gold":  # math-verify cannot read the gold at all: compare as text
        return _text(pred, ref)
    if result == "timeout":
        return "timeout", "math_verify"
    if result == "unavailable":  # no math-verify here: the rules cannot tell (never an abort)
        return "timeout", "math_verify_unavailable"
    return _same(result == "equal", "math_verify")
