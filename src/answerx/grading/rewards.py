"""Verdicts as RL rewards: prompt stripping and per-batch logs, shared by the reward endpoints.

Trainers such as OpenRLHF hand over the whole rollout text — chat template,
prompt, response and special tokens — where grading needs the response alone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from answerx.extraction.models import Task
from answerx.grading.batch import verify_batch
from answerx.grading.models import REASONS, Verdict
from answerx.grading.tasks import check_task

__all__ = ["reward_logs", "reward_verdicts", "strip_prompt"]

# Chat-template tokens: <|im_end|>, <|eot_id|>, <|endoftext|>, DeepSeek's <｜end▁of▁sentence｜>,
# Llama 2's </s> and [INST], Gemma's <end_of_turn>. <think> and <answer> are not among them.
_SPECIAL = re.compile(
    r"<[|｜][^<>\n]{1,60}?[|｜]>|</?s>|<(?:eos|bos|pad|unk)>|<(?:start|end)_of_turn>(?:model|user)?"
    r"|\[/?INST\]"
)
_ROLE_HEADER = re.compile(r"\A(?:assistant|model)\s*\n")


def strip_prompt(query: str, prompt: str) -> str:
    """The response part of a rollout: what follows the prompt, special tokens out.

    >>> strip_prompt("<|im_start|>user\\nWhat is 2+2?<|im_end|>\\n<|im_start|>assistant\\n"
    ...              "It is 4.<|im_end|>", "<|im_start|>user\\nWhat is 2+2?<|im_end|>\\n")
    'It is 4.'
    """
    if prompt and query.startswith(prompt):
        query = query[len(prompt) :]
    elif prompt and prompt in query:  # a tokenizer round trip may change the text before it
        query = query[query.rindex(prompt) + len(prompt) :]
    return _ROLE_HEADER.sub("", _SPECIAL.sub("", query).strip())


def reward_verdicts(
    queries: Sequence[str],
    prompts: Sequence[str],
    labels: Sequence[Any],
    *,
    task: Task | str = "auto",
) -> list[Verdict]:
    """The verdict on the response of each rollout against its label, in order."""
    check_task(task)
    responses = [strip_prompt(q, p) for q, p in zip(queries, prompts, strict=True)]
    return verify_batch(responses, list(labels), task=task)


def reward_logs(verdicts: Sequence[Verdict]) -> dict[str, float]:
    """``answerx_extraction_rate`` and ``answerx_<reason>`` (the share of each reason)."""
    n = max(len(verdicts), 1)
    counts = Counter[str](v.reason for v in verdicts)
    logs = {"answerx_extraction_rate": sum(v.answer is not None for v in verdicts) / n}
    logs.update({f"answerx_{reason}": counts.get(reason, 0) / n for reason in REASONS})
    return logs
