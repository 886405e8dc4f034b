"""Why an agent loop or multi-call approach stopped (DESIGN.md, "Agent loops and budgets")."""

from __future__ import annotations

from enum import StrEnum

from answerx.errors import StepLimitReached  # one exception tree: errors.py draws it

__all__ = ["StepLimitReached", "Termination"]


class Termination(StrEnum):
    """The termination reasons, spelled exactly as DeepResearch-style result files spell them."""

    ANSWER = "answer"
    ANSWER_NOT_FOUND = "answer not found"
    EXCEED_CALLS = "exceed available llm calls"
    TOKEN_LIMIT_ANSWER = "generate an answer as token limit reached"
    TOKEN_LIMIT_FORMAT_ERROR = "format error: generate an answer as token limit reached"
    TIMEOUT = "timeout"
