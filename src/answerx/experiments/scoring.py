"""Scoring: is an extracted answer right? The experiments' view of :mod:`answerx.grading`.

:func:`score` compares one predicted answer with its gold answer and says how
it decided (``ScoreResult.method``, the names stored with every experiment
item); :func:`score_items` fills ``correct`` and ``score_method`` of stored
items; :func:`score_run` re-scores a stored run. The comparisons themselves
(math-verify in a time-limited worker process, numbers, letters, booleans,
text, Game of 24) are :func:`answerx.grading.grade`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, get_args

from pydantic import BaseModel, ConfigDict

from answerx.experiments.records import ItemKey, ItemRecord, ScoreMethod
from answerx.grading import Verdict, check_game24, grade, infer_task, normalize_text
from answerx.grading.tasks import check_task

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "SCORE_METHODS",
    "ScoreMethod",
    "ScoreResult",
    "check_game24",
    "infer_task",
    "normalize_text",
    "score",
    "score_item",
    "score_items",
    "score_run",
]

SCORE_METHODS: tuple[str, ...] = get_args(ScoreMethod)

#: Seconds math-verify may spend on one item (its own default).
MATH_TIMEOUT_S = 5


class ScoreResult(BaseModel):
    """The verdict on one answer: ``correct`` is None when it cannot be judged (no gold)."""

    model_config = ConfigDict(frozen=True)

    correct: bool | None
    method: ScoreMethod


def score(
    predicted: str | None,
    gold: str | None,
    task: str = "auto",
    *,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    tolerance: float = 1e-6,
    math_timeout_s: int = MATH_TIMEOUT_S,
) -> ScoreResult:
    """Compare ``predicted`` with ``gold`` the way ``task`` says.

    Both answers are cleaned first (``clean_answer``: "The answer is $4$." is
    ``4``). A missing prediction is wrong (``no_answer``); a missing gold
    answer cannot be judged (``correct=None``, ``no_gold``), except for
    ``game24``, which checks the expression against ``numbers``. ``tolerance``
    is relative to the gold value and absolute below 1 (numeric task).
    Raises ConfigError for an unknown task name; never raises for any answer text.

    >>> score("\\\\frac{1}{2}", "0.5", "math")
    ScoreResult(correct=True, method='math_verify')
    >>> score("$1,234.50", "1234.5", "numeric")
    ScoreResult(correct=True, method='numeric')
    """
    task = check_task(task)
    verdict = grade(
        predicted,
        gold,
        task,
        choices=choices,
        numbers=numbers,
        tolerance=tolerance,
        time_limit_s=math_timeout_s,
    )
    used = infer_task(verdict.gold, choices, numbers) if task == "auto" else task
    return ScoreResult(correct=verdict.correct, method=_method(verdict, used))


_BY_REASON: dict[str, ScoreMethod] = {
    "unreadable_gold": "no_gold",
    "no_answer": "no_answer",
    "unfinished": "no_answer",
    "timeout": "math_verify_timeout",
}
_BY_HOW: dict[str, ScoreMethod] = {
    "normalised_text": "text",
    "game24": "game24",
    "letter": "choice_letter",
    "option_text": "choice_text",
    "boolean": "boolean",
}


def _method(verdict: Verdict, task: str) -> ScoreMethod:
    """The stored method name of a verdict: math items say ``math_verify`` whichever of the
    math predicates decided, numeric items ``numeric`` (the names runs have always stored)."""
    method = _BY_REASON.get(verdict.reason) or _BY_HOW.get(verdict.how)
    if method is not None:
        return method
    return "math_verify" if task == "math" else "numeric"


def score_item(item: ItemRecord, *, math_timeout_s: int = MATH_TIMEOUT_S) -> ItemRecord:
    """``item`` with ``correct`` and ``score_method`` filled in (a new record)."""
    result = score(
        item.extracted_answer,
        item.gold,
        item.task,
        choices=item.choices,
        numbers=item.numbers,
        math_timeout_s=math_timeout_s,
    )
    return item.model_copy(update={"correct": result.correct, "score_method": result.method})


def score_items(
    items: Iterable[ItemRecord], *, math_timeout_s: int = MATH_TIMEOUT_S
) -> list[ItemRecord]:
    """Every item scored (see :func:`score_item`); calls no model."""
    return [score_item(item, math_timeout_s=math_timeout_s) for item in items]


class ScoreStore(Protocol):
    """The part of the results store that :func:`score_run` needs."""

    def items(self, run_id: str) -> Iterator[ItemRecord]: ...

    def update_scores(self, run_id: str, scores: Sequence[tuple[ItemKey, bool | None, str]]) -> Any:
        """Store ``(key, correct, score_method)`` for items of ``run_id``."""
        ...


def score_run(
    store: ScoreStore, run_id: str, *, math_timeout_s: int = MATH_TIMEOUT_S
) -> list[ItemRecord]:
    """Re-score every item of a stored run and save the verdicts; returns the scored items."""
    scored = score_items(store.items(run_id), math_timeout_s=math_timeout_s)
    store.update_scores(
        run_id, [(item.key, item.correct, item.score_method or "no_gold") for item in scored]
    )
    return scored
