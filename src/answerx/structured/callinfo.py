"""What one structured call cost and how it went: :class:`CallInfo` (defined in the bottom
layer, :mod:`answerx.callinfo`), and reading usage and finish reason off SDK responses."""

from __future__ import annotations

from typing import Any

from answerx.callinfo import CallInfo, ModeAttempt, Usage

__all__ = ["CallInfo", "ModeAttempt", "Usage", "finish_reason_of", "usage_of"]


def usage_of(response: Any) -> Usage:
    """Usage from an OpenAI, Anthropic or Cohere v2 response (zero when absent)."""
    usage = getattr(response, "usage", None)
    if usage is None:
        return Usage()
    if hasattr(usage, "prompt_tokens"):  # OpenAI
        return Usage(
            input_tokens=usage.prompt_tokens or 0, output_tokens=usage.completion_tokens or 0
        )
    if hasattr(usage, "input_tokens") and not hasattr(usage, "tokens"):  # Anthropic
        return Usage(input_tokens=usage.input_tokens or 0, output_tokens=usage.output_tokens or 0)
    for part in ("tokens", "billed_units"):  # Cohere v2
        counts = getattr(usage, part, None)
        if counts is not None and getattr(counts, "input_tokens", None) is not None:
            return Usage(
                input_tokens=int(counts.input_tokens or 0),
                output_tokens=int(counts.output_tokens or 0),
            )
    return Usage()


def finish_reason_of(response: Any) -> str | None:
    """The finish reason of an OpenAI (``choices[0].finish_reason``), Anthropic
    (``stop_reason``) or Cohere v2 (``finish_reason``) response; None when absent."""
    choices = getattr(response, "choices", None)
    if choices:
        reason = getattr(choices[0], "finish_reason", None)
    else:
        reason = getattr(response, "stop_reason", None) or getattr(response, "finish_reason", None)
    if reason is None:
        return None
    return str(getattr(reason, "value", reason))  # an enum member: its value
