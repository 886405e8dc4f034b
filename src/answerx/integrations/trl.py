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

from answerx.errors import ConfigError, InputError
from answerx.extraction.models import Task
from answerx.extraction.tasks import check_task
from answerx.grading import Verdict
from answerx.grading.rewards import (
    judge_rows,
    prompt_question,
    reward_logs,
    row_from_label,
    rows_of,
)

__all__ = [
    "RewardFunction",
    "answerx_reward",
    "completion_text",
    "finish_reason",
    "make_reward",
    "rewards_of",
]

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
    max_completion_length: int | None = None,
    eos_token_id: int | Sequence[int] | None = None,
    name: str | None = None,
) -> RewardFunction:
    """A TRL reward function reading the gold answer from dataset column ``gold``.

    ``task`` is one task for every row (``auto`` reads it from each gold answer); a gold
    cell holding a list is the row's accepted answers (any one is right: TriviaQA's
    aliases). ``choices`` and ``numbers`` name optional columns with a row's options and
    Game-of-24 numbers. Each row's question is its prompt (the last user message of a
    conversational one), so a short answer is graded against what was asked.
    ``max_completion_length`` is the trainer's (``GRPOConfig.max_completion_length``): a
    completion whose ``completion_ids`` reached it was cut off, and is graded as
    ``finish_reason="length"`` (no answer guessed from the clipped text: reason
    ``unfinished`` unless it had already marked one), and one that stopped short of it,
    or ended on ``eos_token_id`` (the tokenizer's, one id or several), as
    ``finish_reason="stop"``: the model ended it, so a last sentence without a period is
    a finished answer. Left None, the limit is read from what TRL passes where it holds
    it (a ``max_completion_length`` keyword, ``args`` or ``trainer_state`` with that
    attribute); TRL 1.16 passes neither, so give it here. Without a limit or an EOS id,
    nothing is assumed about how a completion ended.

    Each call logs, when TRL passes the loggers, the columns ``answerx_answer``,
    ``answerx_reason``, ``answerx_how`` and ``answerx_matched_gold`` to the completions
    table and the metrics ``answerx/extraction_rate``, ``answerx/unfinished_rate`` (the share of
    completions cut off, at the limit or inside ``<think>``, whatever their verdict) and
    ``answerx/<reason>`` (the share of each reason in the batch). The reward's own name
    (``answerx_<gold>``, or ``name``) is never one of those columns: TRL keeps each
    reward's values in a column of the reward's name.
    """
    check_task(task)
    if max_completion_length is not None and max_completion_length < 1:
        raise ConfigError(f"max_completion_length must be positive, not {max_completion_length}")
    eos = _eos_ids(eos_token_id)
    reward_name = name or f"answerx_{gold}"
    if reward_name in _LOG_COLUMNS:
        # TRL's completions table has one column per name: the reward's values would be
        # overwritten by the logged column (make_reward(gold="answer") did exactly that).
        reward_name = f"{reward_name}_reward"

    def reward(completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
        if gold not in kwargs:
            columns = sorted(k for k in kwargs if k not in _TRL_KWARGS)
            raise InputError(
                f"the dataset has no column {gold!r} with the gold answers (its columns: "
                f"{columns}); name the right one with make_reward(gold=...)"
            )
        n = len(completions)
        limit = max_completion_length or _limit_from(kwargs)
        ids = kwargs.get("completion_ids")
        ends = [finish_reason(ids[i] if ids is not None else None, limit, eos) for i in range(n)]
        option_rows = _column(kwargs, choices, n)
        number_rows = _column(kwargs, numbers, n)
        prompts = _column(kwargs, "prompts", n)
        rows = [
            row_from_label(
                {"answer": g, "choices": option_rows[i], "numbers": number_rows[i]},
                task=task,
                finish_reason=ends[i],
                question=prompt_question(prompts[i]),
            )
            for i, g in enumerate(rows_of(kwargs[gold], n, f"column {gold!r}"))
        ]
        verdicts = judge_rows([completion_text(c) for c in completions], rows)
        _log(verdicts, kwargs.get("log_extra"), kwargs.get("log_metric"))
        return rewards_of(verdicts)

    reward.__name__ = reward.__qualname__ = reward_name
    reward.__doc__ = f"answerx's verdict on each completion against column {gold!r} (1.0/0.0)."
    return reward


def finish_reason(
    ids: Sequence[int] | None, limit: int | None, eos: frozenset[int] = frozenset()
) -> str | None:
    """How one completion ended, from its token ids: ``stop`` when it ends on an EOS id or
    stopped short of the generation limit, ``length`` when it reached the limit, None
    when neither the limit nor the EOS ids are known (or there are no ids).

    >>> finish_reason([5, 6, 0], limit=512)
    'stop'
    >>> finish_reason([5, 6, 7], limit=3), finish_reason([5, 6, 0], limit=3, eos=frozenset({0}))
    ('length', 'stop')
    """
    if ids is None:
        return None
    tokens = list(ids)
    if eos and tokens and int(tokens[-1]) in eos:
        return "stop"
    if limit is None:
        return None
    return "length" if len(tokens) >= limit else "stop"


def _eos_ids(eos_token_id: int | Sequence[int] | None) -> frozenset[int]:
    if eos_token_id is None:
        return frozenset()
    if isinstance(eos_token_id, int):
        return frozenset({eos_token_id})
    return frozenset(int(i) for i in eos_token_id)


#: The completions-table columns the reward logs (a reward must not share their names).
_LOG_COLUMNS = frozenset(
    {"answerx_answer", "answerx_reason", "answerx_how", "answerx_matched_gold"}
)

_TRL_KWARGS = frozenset(
    {"prompts", "completion_ids", "trainer_state", "log_extra", "log_metric", "environments"}
)


def _limit_from(kwargs: Mapping[str, Any]) -> int | None:
    # Wherever a trainer keeps its generation limit: a keyword of its own, its args, its
    # state (TRL 1.16 passes none of them; other GRPO trainers and later releases may).
    for value in (
        kwargs.get("max_completion_length"),
        getattr(kwargs.get("args"), "max_completion_length", None),
        getattr(kwargs.get("trainer_state"), "max_completion_length", None),
    ):
        if isinstance(value, int) and value > 0:
            return value
    return None


def _column(kwargs: Mapping[str, Any], name: str | None, n: int) -> list[Any]:
    if name is None or name not in kwargs:
        return [None] * n
    values = list(kwargs[name])
    return values if len(values) == n else [None] * n


def _log(verdicts: Sequence[Verdict], log_extra: Any, log_metric: Any) -> None:
    if callable(log_extra):
        log_extra("answerx_answer", [v.answer for v in verdicts])
        log_extra("answerx_reason", [v.reason for v in verdicts])
        log_extra("answerx_how", [v.how for v in verdicts])
        log_extra("answerx_matched_gold", [v.matched_gold for v in verdicts])
    if callable(log_metric) and verdicts:
        logs = reward_logs(verdicts)
        log_metric("answerx/extraction_rate", logs["answerx_extraction_rate"])
        log_metric("answerx/unfinished_rate", logs["answerx_unfinished_rate"])
        for reason, count in Counter(v.reason for v in verdicts).items():
            log_metric(f"answerx/{reason}", count / len(verdicts))


_DEFAULT = make_reward(gold="solution", name="answerx_reward")


def answerx_reward(completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
    """answerx's verdict on each completion against the ``solution`` column: 1.0 right,
    0.0 wrong (an unfinished ``<think>`` is 0.0, reason ``unfinished``), None where the
    solution cannot be read. ``make_reward`` builds one for another column or task, or
    with the trainer's ``max_completion_length`` so that clipped completions count as
    cut off.

    >>> answerx_reward(["So the answer is 4.", "It is 5."], solution=["4", "4"])
    [1.0, 0.0]
    """
    return _DEFAULT(completions, **kwargs)
