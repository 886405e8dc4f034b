"""The result type of deterministic extraction and the names of tasks and methods."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "FALLBACKS",
    "GUESS_METHODS",
    "LETTER_CLASS",
    "METHODS",
    "OPTION_LETTERS",
    "TASKS",
    "UNLISTED_LETTERS",
    "Extraction",
    "Fallback",
    "Method",
    "Task",
    "option_letters",
]

Task = Literal[
    "auto", "math", "numeric", "multiple_choice", "boolean", "game24", "text", "short_answer"
]
TASKS: tuple[str, ...] = get_args(Task)

#: The option letters of a multiple-choice item, one per choice: the one table every
#: module reads. Twenty-six, as harnesses letter options: MMLU-Pro has ten, BIG-Bench
#: Hard up to eighteen (A-R), inspect_ai's multiple choice up to twenty-six.
OPTION_LETTERS: Final = string.ascii_uppercase
#: The letters read as options when an item lists no choices: the first ten (MMLU-Pro's).
#: Without the list, a lone K, S or X is a unit, a name or a variable far more often than
#: the eleventh option.
UNLISTED_LETTERS: Final = OPTION_LETTERS[:10]
#: Every option letter as a regex class, for the patterns that find candidate letters;
#: the task's acceptor then keeps only the item's own (:func:`option_letters`).
LETTER_CLASS: Final = f"[{OPTION_LETTERS[0]}-{OPTION_LETTERS[-1]}]"


def option_letters(choices: Sequence[str] | None) -> str:
    """The letters of an item's options: one per choice, or :data:`UNLISTED_LETTERS`.

    >>> option_letters(["red", "green", "blue"]), option_letters(None)
    ('ABC', 'ABCDEFGHIJ')
    """
    return OPTION_LETTERS[: len(choices)] if choices else UNLISTED_LETTERS


Method = Literal[
    "answer_block",
    "boxed",
    "json_answer",
    "final_answer_phrase",
    "output_line",
    "choice_phrase",
    "whole_output",
    "leading_answer",
    "choice_letter",
    "choice_text",
    "last_expression",
    "last_number",
    "number_guess",
    "bottom_scan",
    "truth_predicate",
    "structured_llm",
    "none",
]
METHODS: tuple[str, ...] = get_args(Method)
#: The fallback rules: they pick an answer out of text that marks none (the last number,
#: the last expression, a lone choice letter, an option's text ending a short reply, a
#: bottom-up line scan). What they read is a guess; every other method is a statement.
GUESS_METHODS: frozenset[str] = frozenset(
    {
        "choice_letter",
        "choice_text",
        "last_expression",
        "last_number",
        "number_guess",
        "bottom_scan",
    }
)

#: When the task's fallback rules (last number, last expression, choice letter, bottom
#: scan) may answer: ``auto`` only on a finished output, ``always`` (answerx < 0.2
#: behaviour), ``never`` (explicit markers only).
Fallback = Literal["auto", "always", "never"]
FALLBACKS: tuple[str, ...] = get_args(Fallback)


class Extraction(BaseModel):
    """What :func:`answerx.extract` found in one raw output, and how.

    "No answer" is a value, not an exception: ``answer is None`` and
    ``method == "none"`` with ``confidence == 0.0``. The answer is what the output
    *stated*, even a wrong or malformed one; ``valid`` and ``problem`` say whether it
    has the task's shape. ``unfinished`` says the output was cut off (or never
    finished); then no fallback guesses an answer (see README, "How extraction decides").
    """

    model_config = ConfigDict(frozen=True)

    answer: str | None = Field(description="The cleaned final answer; None when nothing was found.")
    method: Method = Field(description="Name of the rule that found the answer.")
    confidence: float = Field(ge=0.0, le=1.0, description="Rule-based confidence (see README).")
    task: Task = Field(description="The task used: the caller's, or the one detected for 'auto'.")
    candidate: str | None = Field(
        default=None,
        description=(
            "The text the rule found, before cleaning (for audit logs). With method 'none' "
            "on an unfinished output: the answer a fallback rule would have guessed."
        ),
    )
    span: tuple[int, int] | None = Field(
        default=None, description="[start, end) of the candidate in raw_output."
    )
    reasoning: str = Field(
        default="", description="raw_output with the answer marker removed and nothing else lost."
    )
    raw_output: str = Field(description="The input, verbatim.")
    valid: bool | None = Field(
        default=None,
        description=(
            "Whether the stated answer has the task's shape (a single number, an option's "
            "letter, a Game-of-24 expression using each number once that makes 24); None "
            "when there is no answer."
        ),
    )
    problem: str | None = Field(
        default=None,
        description=(
            "Why the answer is not well-formed, e.g. 'uses 4 twice', 'evaluates to 28', "
            "'not a single number', 'letter K is not an option'; None when valid."
        ),
    )
    unfinished: bool = Field(
        default=False,
        description=(
            "The output was cut off or never finished (token limit, unclosed <think> or "
            "JSON string, cut mid-sentence or mid-formula, looping text)."
        ),
    )
    value_count: int = Field(
        default=1,
        ge=0,
        description=(
            "How many values the answer states: 1 for a number, an expression, a letter, "
            "an interval or one ordered pair; 3 for '-1, 0, 1' or '\\{-1, 0, 1\\}'; 2 for "
            "'(1, 3), (4, 0)' or 'a = 7, b = 3'; 0 when there is no answer."
        ),
    )

    @property
    def found(self) -> bool:
        """True when an answer was found."""
        return self.answer is not None
