"""What every harness plug-in shares: one call into answerx per response, options checked once.

The plug-ins differ only in where they find the response, the choices and the gold; the
extraction and grading calls, and the check of the options a user writes in a harness's
config file, live here so each plug-in passes the same arguments the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, get_args

from answerx.errors import ConfigError
from answerx.extraction import TASKS, Extraction, extract

if TYPE_CHECKING:
    from answerx.grading import Verdict
    from answerx.grading.golds import Golds

__all__ = [
    "FALLBACKS",
    "Fallback",
    "answer_of",
    "check_fallback",
    "check_task",
    "choices_from",
    "grade_answer",
    "question_text",
    "verify_output",
]

Fallback = Literal["auto", "always", "never"]
FALLBACKS: tuple[str, ...] = get_args(Fallback)

# Field names the harnesses' own datasets keep the option texts under (lm-eval's gpqa
# and arc "choices", MMLU-Pro "options"), tried in this order when none is named.
_CHOICE_FIELDS = ("choices", "options")


def check_task(task: str) -> str:
    """``task`` when answerx knows it; a ConfigError naming the valid ones otherwise."""
    if task not in TASKS:
        raise ConfigError(f"unknown answerx task {task!r}; valid tasks: {', '.join(TASKS)}")
    return task


def check_fallback(fallback: str) -> Fallback:
    """``fallback`` when valid; a ConfigError naming the valid values otherwise."""
    if fallback not in FALLBACKS:
        raise ConfigError(f"unknown fallback {fallback!r}; valid values: {', '.join(FALLBACKS)}")
    return fallback  # type: ignore[return-value]


def choices_from(doc: Mapping[str, Any], field: str | Sequence[str] | None) -> list[str] | None:
    """The option texts of one dataset row.

    ``field`` names one field holding the list of options, or several fields holding one
    option each (GPQA's ``choice1`` … ``choice4``); None tries ``choices`` then ``options``.
    A ``{"text": [...], "label": [...]}`` mapping (ARC) gives its texts. A field that was
    named but is missing is an error: silently grading without choices would change the
    answers.
    """
    if field is None:
        value = next((doc[name] for name in _CHOICE_FIELDS if name in doc), None)
    elif isinstance(field, str):
        if field not in doc:
            raise ConfigError(f"choices_field {field!r} is not in the document: {sorted(doc)}")
        value = doc[field]
    else:
        missing = [name for name in field if name not in doc]
        if missing:
            raise ConfigError(f"choices_field names {missing} not in the document: {sorted(doc)}")
        value = [doc[name] for name in field]
    if isinstance(value, Mapping):
        value = value.get("text")
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Sequence):
        if field is None:
            return None  # a "choices" field that is not a list of options: not options
        raise ConfigError(f"choices must be a list of option texts, not {type(value).__name__}")
    return [str(option) for option in value] or None


def answer_of(
    raw_output: str,
    task: str = "auto",
    *,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    fallback: Fallback = "auto",
    finish_reason: str | None = None,
) -> Extraction:
    """``answerx.extract`` with the harness's arguments; the options left at their default
    are not passed, so the call stays the one a user would write by hand."""
    options: dict[str, Any] = {}
    if fallback != "auto":
        options["fallback"] = fallback
    if finish_reason is not None:
        options["finish_reason"] = finish_reason
    return extract(raw_output, task, choices=choices, numbers=numbers, **options)


def verify_output(
    raw_output: str,
    gold: Golds,
    task: str = "auto",
    *,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    finish_reason: str | None = None,
    question: str | None = None,
) -> Verdict:
    """``answerx.grading.verify`` (imported here: grading sits one layer above extraction);
    ``gold`` may be a list of accepted answers."""
    from answerx.grading import verify

    return verify(
        raw_output, gold, task, choices=choices, numbers=numbers, finish_reason=finish_reason,
        question=question,
    )  # fmt: skip


def grade_answer(
    answer: str,
    gold: Golds,
    task: str = "auto",
    *,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    question: str | None = None,
) -> Verdict:
    """``answerx.grading.grade`` on an answer already extracted."""
    from answerx.grading import grade

    return grade(answer, gold, task, choices=choices, numbers=numbers, question=question)


def question_text(value: Any) -> str | None:
    """A question as a harness holds it (a string, or anything else: None); blank is None."""
    return value if isinstance(value, str) and value.strip() else None
