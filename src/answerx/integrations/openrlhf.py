"""OpenRLHF rewards: its reward-function file mode and its remote reward protocol.

OpenRLHF sends each rollout as ``queries`` (the prompt and the response as one
text, chat template and special tokens included), ``prompts`` and ``labels``
(the ``--label_key`` column: a gold answer, or a JSON object with the gold
under ``answer`` and the row's ``task``, ``choices``, ``numbers``). File mode
(``--remote_rm_url reward_func.py``) calls ``reward_func(queries, prompts,
labels)``; remote mode POSTs ``{"query": [...], "prompts": [...], "labels":
[...]}`` to a URL: ``answerx serve --reward-task math`` and
``--remote_rm_url http://HOST:8000/v1/reward``. Both answer ``rewards`` (for advantages), ``scores``
(0-1, for dynamic filtering) and ``extra_logs`` (to wandb).
``answerx reward-func write PATH`` writes the file for file mode. Nothing here
imports OpenRLHF; torch only when OpenRLHF's file mode needs tensors.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from answerx.extraction.models import TASKS, Task
from answerx.extraction.tasks import check_task
from answerx.grading import Verdict
from answerx.grading.rewards import reward_logs, reward_verdicts, strip_prompt

__all__ = ["reward_file", "reward_func", "reward_response", "rewards", "strip_prompt"]


def rewards(
    queries: Sequence[str],
    prompts: Sequence[str] | None,
    labels: Sequence[Any],
    *,
    task: Task | str = "auto",
    metas: Sequence[Any] | None = None,
) -> dict[str, Any]:
    """``{"rewards", "scores", "extra_logs"}`` as plain lists (the remote protocol's JSON).

    A label is the gold answer, or a label object (a JSON object in the label column)
    with the gold under ``answer`` and the row's own ``task``, ``choices`` and
    ``numbers``; ``metas`` (one dict per rollout, where OpenRLHF sends them) may carry
    those too. A row whose label cannot be read scores 0.0 (OpenRLHF has no "skip this
    row"). ``extra_logs`` holds ``answerx_extraction_rate``, ``answerx_unfinished_rate``
    and the share of each reason.
    """
    return reward_response(reward_verdicts(queries, prompts, labels, task=task, metas=metas))


def reward_response(verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """The remote protocol's answer for ``verdicts``."""
    scores = [v.reward for v in verdicts]
    return {"rewards": scores, "scores": scores, "extra_logs": reward_logs(verdicts)}


def reward_func(
    queries: Sequence[str],
    prompts: Sequence[str],
    labels: Sequence[Any],
    task: Task | str = "auto",
    metas: Sequence[Any] | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """OpenRLHF's file-mode reward function: :func:`rewards` as torch tensors.

    (Lists when torch is not installed, as in answerx's own tests.)
    """
    result = rewards(queries, prompts, labels, task=task, metas=metas)
    try:
        torch = importlib.import_module("torch")  # untyped here; present wherever OpenRLHF is
    except ImportError:
        return result
    values = torch.tensor(result["rewards"], dtype=torch.float)
    logs = {k: torch.tensor(v, dtype=torch.float) for k, v in result["extra_logs"].items()}
    return {"rewards": values, "scores": values.clone(), "extra_logs": logs}


_FILE = '''\
"""OpenRLHF reward function (file mode): answerx's verdict on each response.

Written by `answerx reward-func write`. Use it with
    --remote_rm_url {name} --label_key <the column with the gold answers>
"""

from answerx.integrations.openrlhf import reward_func as _answerx_reward_func

TASK = {task!r}  # one of: {tasks}


def reward_func(queries, prompts, labels, **kwargs):
    return _answerx_reward_func(queries, prompts, labels, task=TASK, **kwargs)
'''


def reward_file(name: str = "reward_func.py", task: Task | str = "auto") -> str:
    """The text of a reward-function file for OpenRLHF's file mode."""
    return _FILE.format(name=name, task=check_task(task), tasks=", ".join(TASKS))
