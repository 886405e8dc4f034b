"""Which comparison an ``auto`` item needs, read from its gold answer, choices and numbers."""

from __future__ import annotations

import re
from collections.abc import Sequence

from answerx.errors import ConfigError
from answerx.extraction.models import TASKS, Task
from answerx.grading.boolean import BOOLEAN_WORD
from answerx.grading.choice import STRICT_LETTER
from answerx.grading.numeric import PLAIN_NUMBER

__all__ = ["check_task", "infer_task"]

_MATH_HINT = re.compile(r"[\\^_{}=+*/<>()\[\]]|\d")


def check_task(task: str) -> Task:
    """``task`` if it is a task name; otherwise ConfigError naming the valid ones."""
    if task not in TASKS:
        raise ConfigError(f"unknown task {task!r}; valid tasks: {', '.join(TASKS)}")
    return task  # type: ignore[return-value]


def infer_task(
    gold: str | None,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
) -> Task:
    """The task an ``auto`` item most likely is, from its gold answer, choices and numbers.

    >>> infer_task("$1,234"), infer_task(r"\\frac{3}{4}"), infer_task("(C)"), infer_task("Paris")
    ('numeric', 'math', 'multiple_choice', 'text')
    """
    if choices:
        return "multiple_choice"
    if numbers:
        return "game24"
    g = (gold or "").strip()
    if BOOLEAN_WORD.fullmatch(g):
        return "boolean"
    if PLAIN_NUMBER.fullmatch(g):
        return "numeric"
    if STRICT_LETTER.fullmatch(g):
        return "multiple_choice"
    if _MATH_HINT.search(g):
        return "math"
    return "text"
