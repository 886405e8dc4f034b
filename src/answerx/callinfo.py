"""What one LLM call cost and how it went: :class:`CallInfo`, :class:`Usage`.

A bottom-layer module (pydantic only) so that :class:`answerx.errors.ProviderError`
can carry a failed call's ``CallInfo`` with its real type. The manager
(:mod:`answerx.structured.manager`) fills these; ``answerx.structured`` re-exports them.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CallInfo", "ModeAttempt", "Usage"]


class Usage(BaseModel):
    """Token usage as the provider reported it."""

    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
        )


class ModeAttempt(BaseModel):
    """One mode of the chain: whether it produced the object, and if not, why."""

    model_config = ConfigDict(frozen=True)

    mode: str
    ok: bool
    reason: str | None = Field(default=None, description="Why this mode failed (None if ok).")
    requests: int = Field(default=0, description="HTTP requests made in this mode.")


class CallInfo(BaseModel):
    """The record of one manager call: who answered, in which mode, at what cost."""

    model_config = ConfigDict(frozen=True)

    provider: str
    model: str
    mode: str | None = Field(description="The mode that produced the result (None if none did).")
    modes_tried: tuple[ModeAttempt, ...] = ()
    attempts: int = Field(description="HTTP requests in all: re-asks, retries and fallbacks.")
    fallback_reason: str | None = Field(
        default=None, description="Why the first mode failed, when a later one was used."
    )
    usage: Usage = Usage()
    latency_s: float = 0.0
    finish_reason: str | None = Field(
        default=None,
        description=(
            "Why the provider stopped its last response, as its SDK says it ('stop', "
            "'length', 'end_turn', 'max_tokens', ...); None when unknown."
        ),
    )
    repairs: tuple[str, ...] = Field(
        default=(),
        description="What was repaired in the replies before validation, each prefixed with "
        "its mode: raw control characters escaped inside JSON strings, a confidence outside "
        "[0, 1] after the re-asks recorded as missing.",
    )

    @property
    def fell_back(self) -> bool:
        return len(self.modes_tried) > 1
