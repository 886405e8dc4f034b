"""Reward functions for TRL's ``GRPOTrainer`` (and trainers with its calling convention).

TRL calls each reward function with keyword arguments: ``prompts``,
``completions`` (plain strings, or for a conversational dataset a list of
messages per completion), ``completion_ids``, ``trainer_state``, ``log_extra``,
``log_metric`` and one list per dataset column (``solution``, ``answer``, ...).
It expects one float per completion, or None to leave a row out of this
reward. Nothing here imports TRL::

    from trl import GRPOTrainer
    from answerx.integrations.trl import answerx_reward, make_reward

    trainer = GRPOTrainer(model=..., reward_funcs=[answerx_reward], train_dataset=dataset)
    # a dataset whose gold column is "answer", GSM8K-style numbers:
    gsm8k_reward = make_reward(gold="answer", task="numeric")
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from answerx.errors import InputError
from answerx.extraction.models import Task
from answerx.grading import Verdict, verify_batch
from answerx.grading.tasks import check_task

__all__ = ["RewardFunction", "answerx_reward", "completion_text", "make_reward", "rewards_of"]

#: What TRL calls: keyword arguments in, one reward (or None) per completion out.
RewardFunction = Callable[..., list[float | None]]


def completion_text(completion: Any) -> str:
    """The text of one completion: a string as it is; for a conversation, the assistant's
    messages joined (a tool-using turn ends with the message that states the answer)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return _content(completion.get("content"))
    if isinstance(completion, Sequence):
        messages = [m for m in completion if isinstance(m, Mapping)]
        spoken = [m for m in messages if m.get("role", "assistant") == "assistant"] or messages
        return "\n".join(_content(m.get("content")) for m in spoken)
    raise InputError(f"a completion is text or a list of messages, not {type(completion).__name__}")


def _content(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    # Multimodal messages: a list of parts, the text ones {"type": "text", "text": ...}.
    return "".join(part.get("text", "") for part in content if isinstance(part, Mapping))


def rewards_of(verdicts: Sequence[Verdict]) -> list[float | None]:
    """1.0 for a correct answer, 0.0 otherwise; None (TRL: leave this row out) where the
    gold answer cannot be read."""
    return [None if v.correct is None else 1.0 if v.correct else 0.0 for v in verdicts]


def make_reward(
    gold: str = "solution",
    task: Task | str = "auto",
    *,
    choices: str | None = "choices",
    numbers: str | None = "numbers",
    name: str | None = None,
) -> RewardFunction:
    """A TRL reward function reading the gold answer from dataset column ``gold``.

    ``task`` is one task for every row (``auto`` reads it from each gold answer);
    ``choices`` and ``numbers`` name optional columns with a row's options and
    Game-of-24 numbers. Each call logs, when TRL passes the loggers, the
    columns ``answerx_answer``, ``answerx_reason`` and ``answerx_how`` to the
    completions table and the metrics ``answerx/extraction_rate`` and
    ``answerx/<reason>`` (the share of each reason in the batch).
    """
    check_task(task)

    def reward(completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
        if gold not in kwargs:
            columns = sorted(k for k in kwargs if k not in _TRL_KWARGS)
            raise InputError(
                f"no dataset column {gold!r} with the gold answers (columns: {columns}); "
                f"make_reward(gold=...) names it"
            )
        verdicts = verify_batch(
            [completion_text(c) for c in completions],
            list(kwargs[gold]),
            task=task,
            choices=_column(kwargs, choices, len(completions)),
            numbers=_column(kwargs, numbers, len(completions)),
        )
        _log(verdicts, kwargs.get("log_extra"), kwargs.get("log_metric"))
        return rewards_of(verdicts)

    reward.__name__ = reward.__qualname__ = name or f"answerx_{gold}"
    reward.__doc__ = f"answerx's verdict on each completion against column {gold!r} (1.0/0.0)."
    return reward


_TRL_KWARGS = frozenset(
    {"prompts", "completion_ids", "trainer_state", "log_extra", "log_metric", "environments"}
)


def _column(kwargs: Mapping[str, Any], name: str | None, n: int) -> list[Any] | None:
    if name is None or name not in kwargs:
        return None
    values = list(kwargs[name])
    return values if len(values) == n else None


def _log(verdicts: Sequence[Verdict], log_extra: Any, log_metric: Any) -> None:
    if callable(log_extra):
        log_extra("answerx_answer", [v.answer for v in verdicts])
        log_extra("answerx_reason", [v.reason for v in verdicts])
        log_extra("answerx_how", [v.how for v in verdicts])
    if callable(log_metric) and verdicts:
        n = len(verdicts)
        log_metric("answerx/extraction_rate", sum(v.answer is not None for v in verdicts) / n)
        for reason, count in Counter(v.reason for v in verdicts).items():
            log_metric(f"answerx/{reason}", count / n)


_DEFAULT = make_reward(gold="solution", name="answerx_reward")


def answerx_reward(
    completions: Sequence[Any], solution: Sequence[Any], **kwargs: Any
) -> list[float | None]:
    """answerx's verdict on each completion against the ``solution`` column: 1.0 right,
    0.0 wrong (an unfinished ``<think>`` is 0.0, reason ``unfinished``), None where the
    solution cannot be read. ``make_reward`` builds one for another column or task.

    >>> answerx_reward(["So the answer is 4.", "It is 5."], solution=["4", "4"])
    [1.0, 0.0]
    """
    return _DEFAULT(completions, solution=solution, **kwargs)
