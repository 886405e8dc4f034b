"""The small bundled item sets the plug-ins' offline tasks run on (no Hub, no network).

Twelve items written for answerx, four of each kind, in the shapes of the datasets they
stand for: GSM8K (``question``, ``answer`` ending in ``#### N``), MATH-500 (``problem``,
``solution``, ``answer``) and a four-option multiple choice (``question``, ``choices``,
``answer`` letter). The lm-eval, inspect-ai and lighteval ``answerx_local`` tasks read
them, so a first run of a plug-in needs nothing but the package.
"""

from __future__ import annotations

import json
from typing import Any, Final, Literal, get_args

from answerx.errors import ConfigError

__all__ = ["LOCAL_SETS", "TASK_OF", "LocalSet", "local_dataset", "local_path", "local_rows"]

LocalSet = Literal["gsm8k", "math", "multiple_choice"]
LOCAL_SETS: Final[tuple[str, ...]] = get_args(LocalSet)

#: The answerx task each set is graded with.
TASK_OF: Final[dict[str, str]] = {
    "gsm8k": "numeric",
    "math": "math",
    "multiple_choice": "multiple_choice",
}


def local_path(name: str) -> Any:
    """The bundled JSONL file of set ``name`` (``gsm8k``, ``math``, ``multiple_choice``)."""
    from answerx.support.resources import data_file

    if name not in LOCAL_SETS:
        raise ConfigError(f"unknown local set {name!r}; valid: {', '.join(LOCAL_SETS)}")
    return data_file(f"config/integrations/data/{name}/test.jsonl")


def local_rows(name: str) -> list[dict[str, Any]]:
    """The items of set ``name``, in file order."""
    with local_path(name).open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def local_dataset(name: str = "gsm8k", split: str = "test", **_: Any) -> Any:
    """Set ``name`` as a ``datasets.DatasetDict`` with the one split ``split``.

    lm-eval's ``custom_dataset`` hook: it calls this with the task's ``metadata`` and
    ``dataset_kwargs`` as keyword arguments (the ones not named here are ignored).
    """
    import datasets

    return datasets.DatasetDict({split: datasets.Dataset.from_list(local_rows(name))})
