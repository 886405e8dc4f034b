"""The shape an item's answer must have: :class:`AnswerSpec` (task, choices, numbers,
and how grading compares it: tolerance and time limit).

The one value that travels with an item from the caller through the approaches, the
final attempt, the structured models and grading's one decision
(:func:`answerx.grading.decide`), instead of loose parameters. Task-bound structured
models (:func:`answerx.structured.get_extraction_model`) are cached per spec.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from answerx.errors import ConfigError
from answerx.extraction.models import OPTION_LETTERS, Task, option_letters
from answerx.extraction.tasks import Acceptor, check_task, item_task, make_acceptor

__all__ = ["DEFAULT_TIME_LIMIT_S", "DEFAULT_TOLERANCE", "AnswerSpec"]

#: Seconds one item's math-verify comparison may take (math-verify's own default).
DEFAULT_TIME_LIMIT_S: Final = 5.0
#: Numeric task: relative to the gold value, absolute below 1.
DEFAULT_TOLERANCE: Final = 1e-6
_MAX_VALUE_IN_MESSAGE: Final = 80


@dataclass(frozen=True, slots=True)
class AnswerSpec:
    """The expected shape of ``answer_value``: a task name plus its choices or numbers,
    and how grading compares an answer of it (``tolerance`` for numbers, ``time_limit_s``
    for one math-verify comparison).

    Hashable, so it keys the caches of acceptors and task-bound models. Build one
    with :meth:`of` from lists; an unknown task raises :class:`ConfigError`.
    """

    task: Task
    choices: tuple[str, ...] | None = None
    numbers: tuple[int | float, ...] | None = None
    tolerance: float = DEFAULT_TOLERANCE
    time_limit_s: float = DEFAULT_TIME_LIMIT_S

    def __post_init__(self) -> None:
        check_task(self.task)
        if self.choices is not None and len(self.choices) > len(OPTION_LETTERS):
            most, got = len(OPTION_LETTERS), len(self.choices)
            raise ConfigError(f"at most {most} choices (A–Z) are supported, got {got}")

    @classmethod
    def of(
        cls,
        task: str,
        choices: Sequence[str] | None = None,
        numbers: Sequence[int | float] | None = None,
        *,
        tolerance: float = DEFAULT_TOLERANCE,
        time_limit_s: float = DEFAULT_TIME_LIMIT_S,
    ) -> AnswerSpec:
        """Build a spec from plain sequences (empty ones count as absent)."""
        if isinstance(choices, str) or (
            choices is not None and not all(isinstance(c, str) for c in choices)
        ):
            raise ConfigError(f"choices must be a list of option texts, got {choices!r}")
        if isinstance(numbers, str | bytes) or (
            numbers is not None
            and not all(isinstance(n, int | float) and not isinstance(n, bool) for n in numbers)
        ):
            raise ConfigError(f"numbers must be a list of numbers, got {numbers!r}")
        return cls(
            check_task(task),
            tuple(choices) if choices else None,
            _numbers(numbers),
            tolerance,
            time_limit_s,
        )

    @classmethod
    def for_item(
        cls,
        task: str = "auto",
        choices: Sequence[str] | None = None,
        numbers: Sequence[int | float] | None = None,
        *,
        tolerance: float = DEFAULT_TOLERANCE,
        time_limit_s: float = DEFAULT_TIME_LIMIT_S,
    ) -> AnswerSpec:
        """The spec of one item: as :meth:`of`, with ``auto`` resolved as
        :func:`~answerx.extraction.extract` resolves it (``multiple_choice`` when the
        item has choices, ``game24`` when it has numbers: :func:`item_task`). Grading,
        which also has the gold, resolves the rest (``answerx.grading.golds.spec_for``).

        >>> AnswerSpec.for_item("auto", ["red", "blue"]).task
        'multiple_choice'
        """
        task = item_task(task, choices, numbers)
        return cls.of(task, choices, numbers, tolerance=tolerance, time_limit_s=time_limit_s)

    @classmethod
    def given(
        cls,
        spec: AnswerSpec | None,
        task: str = "auto",
        choices: Sequence[str] | None = None,
        numbers: Sequence[int | float] | None = None,
    ) -> AnswerSpec:
        """``spec`` when the caller passed one, else the item spec of ``task``, ``choices``
        and ``numbers`` (:meth:`for_item`): the rule of every function that takes both
        ``spec=`` and the convenience keywords. Passing ``spec`` with choices or numbers
        raises :class:`ConfigError` (which should win would be a guess)."""
        if spec is None:
            return cls.for_item(task, choices, numbers)
        if choices or numbers:
            raise ConfigError("pass spec= or choices=/numbers=, not both")
        return spec

    @property
    def bound_task(self) -> Task | None:
        """The task a structured model is bound to: None for ``auto`` (no shape to enforce)."""
        return None if self.task == "auto" else self.task

    @classmethod
    def from_context(cls, context: object) -> AnswerSpec | None:
        """The spec named by a validation context ``{"task", "choices", "numbers"}``.

        None when ``context`` is not a mapping or has no ``task``; other keys are
        ignored. A malformed one raises :class:`ConfigError`.
        """
        if not isinstance(context, Mapping):
            return None
        task = context.get("task")
        if task is None:
            return None
        if not isinstance(task, str):
            raise ConfigError(f"context task must be a task name, got {task!r}")
        return cls.of(task, context.get("choices"), context.get("numbers"))

    @property
    def hint(self) -> str:
        """The expected shape as a noun phrase, for prompts and validation messages."""
        if self.task == "numeric":
            # No example values: small models copy them as the answer (issue 18).
            return "a single number in digits: an integer, a decimal or a fraction with a slash"
        if self.task == "multiple_choice":
            letters = option_letters(self.choices)
            listed = (
                letters if len(letters) == 1 else ", ".join(letters[:-1]) + " or " + letters[-1]
            )
            return f"one option letter: {listed}"
        if self.task == "boolean":
            return "yes or no"
        if self.task == "game24":
            uses = ""
            if self.numbers:
                uses = f" that uses each of {', '.join(map(_number_text, self.numbers))} once"
            return (
                f"one arithmetic expression{uses}, with only numbers, + - * / and parentheses, "
                "without '= 24'"
            )
        if self.task == "math":
            return "the final mathematical value or expression only, at most 400 characters"
        return "the final answer only (a value, word or short phrase), at most 400 characters"

    def normalise(self, candidate: str) -> str | None:
        """``candidate`` written as deterministic extraction writes it, or None if it
        does not have this shape."""
        accepted = _acceptor(self)(candidate)
        return accepted[0] if accepted else None

    def rejection(self, value: str) -> str:
        """A validation message telling the model how to fix ``value``."""
        shown = value[:_MAX_VALUE_IN_MESSAGE] + ("…" if len(value) > _MAX_VALUE_IN_MESSAGE else "")
        return (
            f"answer_value {shown!r} is not {self.hint}. Put only the final answer into "
            f"answer_value, written as {self.hint}; keep the reasoning in full_reasoning_text."
        )


def _numbers(numbers: Sequence[int | float] | None) -> tuple[int | float, ...] | None:
    return tuple(numbers) if numbers else None


def _number_text(n: int | float) -> str:
    return str(int(n)) if isinstance(n, float) and n.is_integer() else str(n)


@functools.lru_cache(maxsize=256)
def _acceptor(spec: AnswerSpec) -> Acceptor:
    return make_acceptor(spec.task, spec.choices, spec.numbers)
