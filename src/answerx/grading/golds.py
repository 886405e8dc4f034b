"""Gold answers as datasets hold them: one value, or a list of accepted answers (aliases).

NQ, TriviaQA and HotpotQA give several accepted answers per question (``["Paris",
"Paris, France", "City of Light"]``); GSM8K gives one number. Grading cleans them
here into one tuple of texts, and reads the task an ``auto`` item needs from all of
them: :func:`infer_task` is the one task inference, :func:`spec_for` the item's
resolved :class:`~answerx.extraction.spec.AnswerSpec`.

A gold that is NaN or ±Infinity (JSON's ``NaN``, a float column's missing value) is
refused with an :class:`~answerx.errors.InputError`: no answer can equal it, and as
text ("nan") it would match an answer that says "nan". So is a text gold that spells
one, in whatever markup (``nan``, ``(nan)``, ``\\{nan\\}``, ``[NaN]``,
``\\mathrm{NaN}``, ``-inf``: :func:`nonfinite_text`), unless the task is ``text`` or
``short_answer``, which ask for the word itself. :func:`check_finite_gold` is the one
check every entry point makes. A missing gold is ``None``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Final

from answerx.errors import InputError
from answerx.extraction import clean_answer
from answerx.extraction.models import Task
from answerx.extraction.spec import DEFAULT_TIME_LIMIT_S, DEFAULT_TOLERANCE, AnswerSpec
from answerx.extraction.tasks import item_task
from answerx.grading.boolean import BOOLEAN_WORD
from answerx.grading.choice import STRICT_LETTER
from answerx.grading.numeric import PLAIN_NUMBER

__all__ = [
    "Gold",
    "Golds",
    "check_finite_gold",
    "clean_golds",
    "infer_task",
    "is_alias_list",
    "nonfinite_spelling",
    "nonfinite_text",
    "spec_for",
]

#: One gold answer: text, or a bare number (GSM8K's ``72``).
Gold = str | int | float | None
#: A gold answer, or a list of accepted answers of which any one is right.
Golds = Gold | Sequence[Gold]

# Longer than this many words, an accepted answer is a sentence, not a short answer.
_SHORT_WORDS: Final = 12
#: Tasks that compare words: there "nan" or "Infinity" is an answer like any other.
WORD_TASKS: Final = ("text", "short_answer")
# What a number can be wrapped in without changing it: math delimiters, brackets
# (escaped or not), LaTeX commands (\mathrm{..}, \text{..}, \left( .. \right)), spacing.
# \infty and \inf are commands too: stripped to nothing, they are never refused.
_MARKUP = re.compile(r"\\[A-Za-z]+|\\[^A-Za-z]|[$()\[\]{}\s~]")
# Python's float() spellings of a non-finite number (JSON's NaN/Infinity among them).
_NONFINITE_WORD = re.compile(r"[+-]?(nan|inf|infinity)", re.IGNORECASE)


def is_alias_list(gold: object) -> bool:
    """True when ``gold`` is a list (or tuple) of accepted answers rather than one answer."""
    if isinstance(gold, list | tuple):  # the usual lists, without the ABC's check
        return True
    return isinstance(gold, Sequence) and not isinstance(gold, str | bytes)


def nonfinite_spelling(value: object) -> str | None:
    """``NaN``, ``Infinity`` or ``-Infinity`` (as JSON writes them) when ``value`` is a
    float that is not finite; else None."""
    if not isinstance(value, float) or math.isfinite(value):
        return None
    return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"


def nonfinite_text(text: str) -> str | None:
    """``NaN``, ``Infinity`` or ``-Infinity`` when ``text``, without its markup, spells
    a number that is not finite as Python's ``float`` reads it; else None.

    >>> [nonfinite_text(t) for t in ("(nan)", r"\\{nan\\}", r"\\mathrm{NaN}", "-inf", r"\\infty")]
    ['NaN', 'NaN', 'NaN', '-Infinity', None]
    """
    if len(text) > 64:  # a real answer, not a spelled number: no need to look closer
        return None
    core = _MARKUP.sub("", text)
    if not _NONFINITE_WORD.fullmatch(core):
        return None
    return nonfinite_spelling(float(core))


def check_finite_gold(gold: object, where: str = "the gold answer", task: str = "auto") -> None:
    """Raise :class:`InputError` when ``gold``, or an answer of a gold list, is NaN or
    ±Infinity: a float that is, or (unless ``task`` is ``text`` or ``short_answer``) a
    text that spells one (:func:`nonfinite_text`). ``where`` names it in the message.

    >>> try:
    ...     check_finite_gold(["Paris", float("nan")])
    ... except InputError as exc:
    ...     print(str(exc)[:43])
    the gold answer (item 1 of its list) is NaN
    >>> check_finite_gold("[NaN]", task="text")  # the word itself: accepted
    """
    if isinstance(gold, int) or gold is None:  # the usual cases, at once
        return
    words = task in WORD_TASKS
    if isinstance(gold, str) and (words or len(gold) > 64):
        return
    listed = is_alias_list(gold)
    for i, value in enumerate(_answers(gold)):
        spelled = nonfinite_spelling(value)
        if spelled is None and isinstance(value, str) and not words:
            spelled = nonfinite_text(value)
        if spelled is not None:
            item = f" (item {i} of its list)" if listed else ""
            raise InputError(
                f"{where}{item} is {spelled}: a gold answer must be text or a finite number "
                "(a missing one is None, JSON null); for the word itself, task text or "
                "short_answer; for an infinite limit in math, \\infty"
            )


def _answers(gold: object) -> list[object]:
    """The accepted answers of ``gold``: its items when it is a list, else itself."""
    return list(gold) if is_alias_list(gold) else [gold]  # type: ignore[call-overload]


def _clean_one(gold: object) -> str:
    if gold is None or isinstance(gold, bool):
        return ""
    if isinstance(gold, int | float):
        check_finite_gold(gold)
        gold = repr(gold) if isinstance(gold, float) else str(gold)
    if not isinstance(gold, str):
        raise InputError(
            f"a gold answer must be text or a number, not {type(gold).__name__}: {gold!r}"
        )
    return clean_answer(gold) if gold.strip() else ""


def clean_golds(gold: object) -> tuple[str, ...]:
    """The accepted answers, cleaned, empty ones and repeats dropped, in order.

    >>> clean_golds(["Paris", " $Paris$ ", "", "City of Light"]), clean_golds(72)
    (('Paris', 'City of Light'), ('72',))
    """
    if isinstance(gold, str):  # the usual case, without the list's bookkeeping
        one = clean_answer(gold) if gold.strip() else ""
        return (one,) if one else ()
    check_finite_gold(gold)  # names the list's item, which _clean_one cannot
    cleaned = (_clean_one(v) for v in _answers(gold))
    return tuple(dict.fromkeys(c for c in cleaned if c))


def infer_task(
    gold: str | Sequence[str] | None,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    *,
    open_domain: bool = False,
) -> Task:
    """The task an ``auto`` item most likely is: the one task inference of answerx.

    The item first (``multiple_choice`` with choices, ``game24`` with numbers), then the
    gold, cleaned: one answer (a string) by its shape — ``boolean``, ``numeric``, a
    ``multiple_choice`` letter, ``math`` for digits or LaTeX, else ``text``; a *list* of
    accepted answers is ``short_answer`` when they are short texts or plain numbers (a
    list of aliases is an open-domain QA item: ``["1989"]``, ``["3", "three"]``, ``June
    28, 1919``, ``330 m``), else the task all of them share, else the first one's.
    ``open_domain`` (experiment runs, whose items are questions of search agents) reads
    one short text as a list of one: ``short_answer``, while one number stays
    ``numeric``. Pass ``task="numeric"`` for numbers within a tolerance.

    >>> infer_task("$1,234"), infer_task(r"\\frac{3}{4}"), infer_task("(C)"), infer_task("Paris")
    ('numeric', 'math', 'multiple_choice', 'text')
    >>> infer_task(("Paris", "City of Light")), infer_task((r"\\frac12", "0.5"))
    ('short_answer', 'math')
    >>> infer_task("Paris", open_domain=True), infer_task("72", open_domain=True)
    ('short_answer', 'numeric')
    """
    task = item_task("auto", choices, numbers)
    if task != "auto":
        return task
    if gold is None or isinstance(gold, str):
        one = (gold or "").strip()
        if not open_domain or not one:
            return _one_task(one)
        golds: Sequence[str] = (one,)
    else:
        golds = gold
    if not golds:
        return "text"
    kinds = {_kind(g) for g in golds}
    # A letter or a yes beside names is a short answer too ("H" beside "Hydrogen").
    if "text" in kinds or kinds == {"numeric"}:
        short = all(len(g.split()) <= _SHORT_WORDS for g in golds)
        if open_domain and isinstance(gold, str) and kinds == {"numeric"}:
            return "numeric"  # one number (GSM8K's 72) keeps its numeric rules
        return "short_answer" if short else "text"
    if len(kinds) == 1:
        return kinds.pop()
    return _one_task(golds[0].strip())


def spec_for(
    task: str,
    gold: Golds,
    golds: tuple[str, ...],
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    time_limit_s: float = DEFAULT_TIME_LIMIT_S,
    open_domain: bool = False,
) -> AnswerSpec:
    """The resolved spec of an item: ``task`` checked (an unknown name is
    :class:`~answerx.errors.UnknownName`, with did-you-mean), and ``auto`` read from the
    item and from ``golds``, the cleaned accepted answers of ``gold`` (a list reads as
    a list: :func:`infer_task`).

    >>> spec_for("auto", ["Paris", "Lutetia"], ("Paris", "Lutetia")).task
    'short_answer'
    """
    task = item_task(task, choices, numbers)
    if task == "auto":
        listed = is_alias_list(gold)
        one = golds[0] if golds else None
        task = infer_task(golds if listed else one, choices, numbers, open_domain=open_domain)
    # Built as given, not through AnswerSpec.of's checks: grading compares whatever
    # sequences it is handed (a trainer's numpy values, an option list of any type).
    return AnswerSpec(
        task,
        tuple(choices) if choices else None,
        tuple(numbers) if numbers else None,
        tolerance,
        time_limit_s,
    )


_MATH_HINT = re.compile(r"[\\^_{}=+*/<>()\[\]]|\d")
# Mathematics beyond digits: LaTeX, operators, brackets. "June 28, 1919" and "330 m"
# hold digits but are short texts.
_MATH_SYNTAX = re.compile(r"[\\^_{}=+*/<>()\[\]]")


def _one_task(g: str) -> Task:
    """The task one gold answer's shape calls for."""
    if BOOLEAN_WORD.fullmatch(g):
        return "boolean"
    if PLAIN_NUMBER.fullmatch(g):
        return "numeric"
    if STRICT_LETTER.fullmatch(g):
        return "multiple_choice"
    if _MATH_HINT.search(g):
        return "math"
    return "text"


def _kind(gold: str) -> Task:
    task = _one_task(gold.strip())
    return "text" if task == "math" and not _MATH_SYNTAX.search(gold) else task
