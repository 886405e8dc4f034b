"""Scoring: the verdict on each answer of a run, in grading's own words.

:func:`judge` asks :func:`answerx.grading.grade` about one answer, together with
what extraction found about it (a malformed answer, an unfinished output), and
returns grading's :class:`~answerx.grading.Verdict` unchanged: its ``reason`` and
``how`` are what runs store and reports group by. :func:`score_item` fills an
item's verdict fields, :func:`score_items` many, :func:`score_run` re-scores a
stored run (no model is called).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from answerx.experiments.records import ItemRecord
from answerx.grading import DEFAULT_TOLERANCE, Verdict, grade

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "MATH_TIMEOUT_S",
    "judge",
    "score_item",
    "score_items",
    "score_run",
    "verdict_fields",
]

#: Seconds math-verify may spend on one item (its own default).
MATH_TIMEOUT_S = 5


def judge(
    answer: str | None,
    gold: str | None,
    task: str = "auto",
    *,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    valid: bool | None = None,
    unfinished: bool = False,
    tolerance: float = DEFAULT_TOLERANCE,
    math_timeout_s: float = MATH_TIMEOUT_S,
) -> Verdict:
    """The verdict on ``answer`` against ``gold``, as :func:`answerx.verify` would give it
    for an output whose extraction found ``answer``, ``valid`` and ``unfinished``.

    A run's answer may come from an LLM's structured reply rather than from
    ``extract``, so the extraction's findings are passed in, not found again: no
    answer from an unfinished output is ``unfinished``, and a wrong answer that is not
    well formed (``valid=False``) is ``malformed_answer``, as ``verify`` says them.
    Raises ConfigError for an unknown task; never raises for any answer text.

    >>> judge("K", "B", "multiple_choice", choices=["x", "y"], valid=False).reason
    'malformed_answer'
    """
    verdict = grade(
        answer,
        gold,
        task,
        choices=choices,
        numbers=numbers,
        tolerance=tolerance,
        time_limit_s=math_timeout_s,
    )
    if verdict.reason == "no_answer" and unfinished:
        return verdict.model_copy(update={"reason": "unfinished"})
    if verdict.reason == "different" and valid is False:
        return verdict.model_copy(update={"reason": "malformed_answer"})
    return verdict


def verdict_fields(verdict: Verdict) -> dict[str, Any]:
    """The :data:`~answerx.experiments.records.VERDICT_FIELDS` of an item judged ``verdict``
    (``grade`` says nothing beyond reason and how: no detail)."""
    return {
        "correct": verdict.correct,
        "reason": verdict.reason,
        "how": verdict.how,
        "verdict_detail": None,
    }


def score_item(item: ItemRecord, *, math_timeout_s: float = MATH_TIMEOUT_S) -> ItemRecord:
    """``item`` with its verdict filled in (a new record)."""
    verdict = judge(
        item.extracted_answer,
        item.gold,
        item.task,
        choices=item.choices,
        numbers=item.numbers,
        valid=item.valid,
        unfinished=item.unfinished,
        math_timeout_s=math_timeout_s,
    )
    return item.model_copy(update=verdict_fields(verdict))


def score_items(
    items: Iterable[ItemRecord], *, math_timeout_s: float = MATH_TIMEOUT_S
) -> list[ItemRecord]:
    """Every item scored (see :func:`score_item`); calls no model."""
    return [score_item(item, math_timeout_s=math_timeout_s) for item in items]


class ScoreStore(Protocol):
    """The part of the results store that :func:`score_run` needs."""

    def items(self, run_id: str) -> Iterator[ItemRecord]: ...

    def update_verdicts(self, run_id: str, items: Iterable[ItemRecord]) -> Any:
        """Store the verdict fields of ``items`` (found by key) in run ``run_id``."""
        ...


def score_run(
    store: ScoreStore, run_id: str, *, math_timeout_s: float = MATH_TIMEOUT_S
) -> list[ItemRecord]:
    """Re-score every item of a stored run and save the verdicts; returns the scored items."""
    scored = score_items(store.items(run_id), math_timeout_s=math_timeout_s)
    store.update_verdicts(run_id, scored)
    return scored
