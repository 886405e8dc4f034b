"""Why an agent loop or multi-call approach stopped (DESIGN.md, "Agent loops and budgets")."""

from __future__ import annotations

from enum import StrEnum

from answerx.errors import StepLimitReached  # one exception tree: errors.py draws it

__all__ = ["StepLimitReached", "Termination"]


class Termination(StrEnum):
    """Why an agent stopped: answerx's typed reasons. All but ``TIMEOUT`` are spelled as
    DeepResearch's result files spell them; its time-limit string is
    :func:`answerx.agent.timeout_termination` (``No answer found after 2h30mins``), which
    records write beside ``stopped_by="timeout"``."""

    ANSWER = "answer"
    ANSWER_NOT_FOUND = "answer not found"
    EXCEED_CALLS = "exceed available llm calls"
    TOKEN_LIMIT_ANSWER = "generate an answer as token limit reached"
    TOKEN_LIMIT_FORMAT_ERROR = "format error: generate an answer as token limit reached"
    TIMEOUT = "timeout"
