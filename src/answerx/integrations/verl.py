"""A verl reward function: ``custom_reward_function.path=pkg://answerx.integrations.verl``.

verl's reward manager calls ``compute_score(data_source, solution_str,
ground_truth, extra_info)`` for each response (its batch manager
``compute_score_batch`` with lists). A dict result gives the reward as
``"score"``; every other key lands in verl's ``reward_extra_info`` and its
validation metrics, so answerx's reason and predicate are logged there. The
task comes from ``extra_info["task"]`` when given, else from the data source's
name (GSM8K → numeric, MATH → math), else from the gold answer. Nothing here
imports verl.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from answerx.extraction.models import TASKS
from answerx.grading import Verdict, verify, verify_batch

__all__ = ["compute_score", "compute_score_batch", "task_for"]

# Lower-cased fragments of verl's data_source names and the task they mean.
_SOURCES = (
    ("gsm8k", "numeric"),
    ("math", "math"),  # lighteval/MATH, DigitalLearningGmbH/MATH-lighteval, math500, ...
    ("aime", "math"),
    ("amc", "math"),
    ("mmlu", "multiple_choice"),
    ("gpqa", "multiple_choice"),
    ("arc", "multiple_choice"),
    ("game24", "game24"),
)


def task_for(data_source: str | None, extra_info: Mapping[str, Any] | None = None) -> str:
    """The answerx task of a verl row: ``extra_info["task"]``, else its data source's kind."""
    if extra_info and extra_info.get("task") in TASKS:
        return str(extra_info["task"])
    source = (data_source or "").lower()
    return next((task for fragment, task in _SOURCES if fragment in source), "auto")


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """``{"score": 1.0 or 0.0, "correct", "reason", "how", "answer", "method"}`` for one
    response. ``extra_info`` may carry ``task``, ``choices``, ``numbers`` and
    ``finish_reason``.

    >>> compute_score("openai/gsm8k", "48 / 2 = 24 clips.\\n#### 24", "24")["score"]
    1.0
    """
    info = extra_info or {}
    verdict = verify(
        solution_str,
        _gold(ground_truth),
        task_for(data_source, info),
        choices=info.get("choices"),
        numbers=info.get("numbers"),
        finish_reason=info.get("finish_reason"),
    )
    return _result(verdict)


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
    **kwargs: Any,
) -> list[dict[str, Any]]:
    """:func:`compute_score` for verl's ``BatchRewardManager``: one dict per response."""
    infos = [i or {} for i in (extra_infos or [None] * len(solution_strs))]
    verdicts = verify_batch(
        list(solution_strs),
        [_gold(g) for g in ground_truths],
        task=[task_for(s, i) for s, i in zip(data_sources, infos, strict=True)],
        choices=[i.get("choices") for i in infos],
        numbers=[i.get("numbers") for i in infos],
        finish_reasons=[i.get("finish_reason") for i in infos],
    )
    return [_result(v) for v in verdicts]


def _gold(ground_truth: Any) -> Any:
    # Some verl datasets keep the reward-model dict ({"ground_truth": ...}) or a list of
    # accepted answers; the first is the gold answer.
    if isinstance(ground_truth, Mapping):
        ground_truth = ground_truth.get("ground_truth")
    if isinstance(ground_truth, list | tuple) and ground_truth:
        ground_truth = ground_truth[0]
    return ground_truth


def _result(verdict: Verdict) -> dict[str, Any]:
    # Same keys and types on every row: verl stacks each key into one array per batch.
    return {
        "score": verdict.reward,
        "acc": bool(verdict.correct),
        "reason": verdict.reason,
        "how": verdict.how,
        "answer": verdict.answer or "",
        "method": verdict.extraction.method if verdict.extraction is not None else "none",
    }
