"""Budgets for multi-call approaches and agent loops: calls, tokens, context, wall clock."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from answerx.agent.termination import Termination
from answerx.structured.callinfo import CallInfo, Usage

__all__ = ["Budget", "BudgetTracker", "estimate_tokens"]


class Budget(BaseModel):
    """Limits for one question, and what happens at them. ``None`` means no limit of that
    kind."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_calls: int | None = Field(default=None, ge=1, description="LLM calls (manager calls).")
    max_tokens: int | None = Field(
        default=None, ge=1, description="Provider-reported tokens, input and output, summed."
    )
    max_context_tokens: int | None = Field(
        default=None, ge=1, description="Tokens of the next request (count_tokens counts them)."
    )
    time_limit_s: float | None = Field(default=None, gt=0, description="Wall-clock seconds.")
    # A Python function: not in the JSON schema (experiment configs, the service) nor dumps.
    count_tokens: SkipJsonSchema[Callable[[Any], int] | None] = Field(
        default=None,
        exclude=True,
        description="Counts a request's tokens (its messages) for max_context_tokens, such "
        "as a model's own tokenizer (DeepResearch's count_tokens); None: estimate_tokens.",
    )
    # Written out (run parameters, configs) only when off: a budget dumps as it did before.
    final_attempt: bool = Field(
        default=True,
        exclude_if=lambda on: on is True,
        description="At a call, token or time limit, or when the steps stop, ask once more "
        "for the best answer (tinyAgent's ReactAgent). False stops there, as DeepResearch "
        "does: 'answer not found' or 'exceed available llm calls'. The forced answer at "
        "max_context_tokens is made either way.",
    )


def estimate_tokens(messages: str | Iterable[Mapping[str, Any]]) -> int:
    """A provider-free token estimate, characters/4, for context checks before a call.

    Real tokenizers differ per model and need downloads; /4 is the usual rule of
    thumb for English and LaTeX and errs on the side of stopping early.
    """
    if isinstance(messages, str):
        return (len(messages) + 3) // 4
    chars = 0
    for message in messages:
        content = message.get("content", "")
        if isinstance(content, str):
            chars += len(content)
        else:  # content blocks: [{"type": "text", "text": ...}, ...]
            chars += sum(len(str(block.get("text", ""))) for block in content)
    return (chars + 3) // 4


class BudgetTracker:
    """Counts what a question has used so far against its :class:`Budget`.

    >>> tracker = BudgetTracker(Budget(max_calls=2))
    >>> tracker.exhausted() is None
    True
    """

    def __init__(self, budget: Budget, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.budget = budget
        self._clock = clock
        self.started = clock()
        self.calls = 0
        self.usage = Usage()
        self.infos: list[CallInfo] = []

    def record(self, info: CallInfo) -> None:
        """Count one finished manager call."""
        self.calls += 1
        self.usage = self.usage + info.usage
        self.infos.append(info)

    @property
    def elapsed_s(self) -> float:
        return self._clock() - self.started

    @property
    def calls_left(self) -> int | None:
        return None if self.budget.max_calls is None else self.budget.max_calls - self.calls

    def exhausted(self) -> Termination | None:
        """The termination a new call would cause, or None while budget remains.

        Calls and provider tokens both count as "exceed available llm calls"
        (no more calls may be made); the wall clock as "timeout".
        """
        b = self.budget
        if b.time_limit_s is not None and self.elapsed_s >= b.time_limit_s:
            return Termination.TIMEOUT
        if b.max_calls is not None and self.calls >= b.max_calls:
            return Termination.EXCEED_CALLS
        if b.max_tokens is not None and self.usage.total_tokens >= b.max_tokens:
            return Termination.EXCEED_CALLS
        return None

    def context_exceeded(self, messages: str | Iterable[Mapping[str, Any]]) -> bool:
        """True when the size of ``messages`` (``count_tokens``, else the characters/4
        estimate) passes ``max_context_tokens``."""
        limit = self.budget.max_context_tokens
        if limit is None:
            return False
        count = self.budget.count_tokens or estimate_tokens
        return count(messages) > limit
