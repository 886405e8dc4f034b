"""A verl reward function: ``custom_reward_function.path=pkg://answerx.integrations.verl``.

verl's reward manager calls ``compute_score(data_source, solution_str,
ground_truth, extra_info)`` for each response (verl 0.9's ``naive`` and ``dapo``
reward-loop managers; the legacy batch manager of earlier releases calls
``compute_score_batch`` with lists and numpy object arrays). A dict result gives
the reward as ``"score"``; every other key lands in verl's ``reward_extra_info``
and its validation metrics, so answerx's reason and predicate are logged there.
The task comes from ``extra_info["task"]`` when given, else from the data
source's name (GSM8K → numeric, MATH → math), else from the gold answer. An
``extra_info`` key answerx does not read, and verl's preprocessing does not
write, is named in a warning once (a misspelt ``"tsak"`` would otherwise be
ignored), as is a task name answerx does not know. Nothing here imports verl;
:mod:`answerx.integrations.verl_manager` is a reward manager of answerx's own
that also knows how each response ended.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Mapping
from typing import Any, Final

from answerx.didyoumean import suggest
from answerx.extraction.models import TASKS
from answerx.grading import Verdict
from answerx.grading.rewards import judge_rows, plain, row_from_label, rows_of

__all__ = [
    "EXTRA_INFO_KEYS",
    "check_extra_info",
    "compute_score",
    "compute_score_batch",
    "task_for",
]

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


#: The ``extra_info`` keys answerx reads.
EXTRA_INFO_KEYS: Final = ("task", "choices", "numbers", "finish_reason", "question")
# What verl itself and its example preprocessing scripts keep there (never warned about).
_VERL_KEYS: Final = frozenset(
    {"split", "index", "answer", "question", "num_turns", "rollout_reward_scores",
     "tools_kwargs", "interaction_kwargs", "need_tools_kwargs", "reward_scores",
     "data_source", "ability", "level", "type", "subject", "unique_id", "solution", "problem"}
)  # fmt: skip
_warned: set[str] = set()
_warned_lock = threading.Lock()


def _warn_once(key: str, message: str) -> None:
    with _warned_lock:
        if key in _warned:
            return
        _warned.add(key)
    warnings.warn(message, UserWarning, stacklevel=3)


def check_extra_info(extra_info: Mapping[str, Any]) -> None:
    """Warn, once per name, of an ``extra_info`` key answerx does not read (nor verl
    writes) and of a ``task`` answerx does not know: a misspelling would otherwise change
    the grading silently."""
    for key in extra_info:
        if key in EXTRA_INFO_KEYS or key in _VERL_KEYS or not isinstance(key, str):
            continue
        near = suggest(key, EXTRA_INFO_KEYS)
        hint = f" (did you mean {near!r}?)" if near else ""
        _warn_once(
            f"key:{key}",
            f"answerx ignores extra_info[{key!r}]{hint}; it reads {', '.join(EXTRA_INFO_KEYS)}",
        )
    task = extra_info.get("task")
    if task is not None and task not in TASKS:
        near = suggest(str(task), TASKS)
        hint = f" (did you mean {near!r}?)" if near else ""
        _warn_once(
            f"task:{task}",
            f"extra_info['task'] {task!r} is not an answerx task{hint}; graded with the data "
            f"source's task instead. Valid tasks: {', '.join(TASKS)}",
        )


def task_for(data_source: str | None, extra_info: Mapping[str, Any] | None = None) -> str:
    """The answerx task of a verl row: ``extra_info["task"]``, else its data source's kind."""
    if extra_info and extra_info.get("task") in TASKS:
        return str(extra_info["task"])
    source = str(plain(data_source) or "").lower()
    return next((task for fragment, task in _SOURCES if fragment in source), "auto")


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """``{"score", "acc", "reason", "how", "answer", "matched_gold", "method"}`` for one
    response: ``score`` 1.0 or 0.0, ``acc`` whether it is right, ``matched_gold`` the
    accepted answer it matched (``""`` when none). ``ground_truth`` may be a list of
    accepted answers (any one is right). ``extra_info`` may carry ``task``, ``choices``,
    ``numbers``, ``finish_reason`` and ``question`` (numpy values are read as Python
    ones): verl's data preprocessing keeps the question there.

    >>> compute_score("openai/gsm8k", "48 / 2 = 24 clips.\\n#### 24", "24")["score"]
    1.0
    """
    (result,) = compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info])
    return result


def compute_score_batch(
    data_sources: Any,
    solution_strs: Any,
    ground_truths: Any,
    extra_infos: Any = None,
    **kwargs: Any,
) -> list[dict[str, Any]]:
    """:func:`compute_score` for verl's ``BatchRewardManager``: one dict per response.

    verl passes ``data_sources`` and ``extra_infos`` as numpy object arrays (the
    non-tensor batch), the others as lists; any sequence is taken, and
    ``extra_infos`` may be None or hold None for a row without one.
    """
    responses = [plain(s) for s in solution_strs]
    n = len(responses)
    sources = rows_of(data_sources, n, "data_sources")
    infos = [i if isinstance(i, Mapping) else {} for i in rows_of(extra_infos, n, "extra_infos")]
    for info in infos:
        check_extra_info(info)
    rows = [
        row_from_label(
            _label(gold, info),
            task=task_for(source, info),
            finish_reason=info.get("finish_reason"),
            question=_question(info),
        )
        for gold, source, info in zip(
            rows_of(ground_truths, n, "ground_truths"), sources, infos, strict=True
        )
    ]
    return [_result(v) for v in judge_rows(responses, rows)]


def _label(ground_truth: Any, info: Mapping[str, Any]) -> Any:
    # The row's options and numbers ride in extra_info; the gold may be a reward-model
    # dict ({"ground_truth": ...}) or a list of accepted answers (reward_gold reads both).
    label = {"answer": ground_truth}
    label.update({k: info[k] for k in ("choices", "numbers") if k in info})
    return label


def _question(info: Mapping[str, Any]) -> str | None:
    question = info.get("question")
    return question if isinstance(question, str) and question.strip() else None


def _result(verdict: Verdict) -> dict[str, Any]:
    # Same keys and types on every row: verl stacks each key into one array per batch.
    return {
        "score": verdict.reward,
        "acc": bool(verdict.correct),
        "reason": verdict.reason,
        "how": verdict.how,
        "answer": verdict.answer or "",
        "matched_gold": verdict.matched_gold or "",
        "method": verdict.extraction.method if verdict.extraction is not None else "none",
    }
