"""Request and response bodies of the LLM endpoints: ``/v1/extract/structured`` and ``/v1/ask``.

Kept apart from :mod:`answerx.service.schemas` because they import
:mod:`answerx.structured` (Instructor and the provider SDKs, about two seconds):
the client imports them only when one of these endpoints is called. No field
takes a credential or a base URL: the server uses its own environment's.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt

from answerx.extraction.models import Task
from answerx.reasoning.response import Strategy
from answerx.service.schemas import (
    EXTRACT_EXAMPLE,
    MAX_CHOICES,
    ErrorDetail,
    Name,
    NonBlankText,
    Text,
)
from answerx.structured.callinfo import CallInfo, Usage
from answerx.structured.models import AnyReasoningExtraction, Approach

__all__ = [
    "AskRequest",
    "ProviderErrorDetail",
    "ProviderErrorResponse",
    "StructuredRequest",
    "StructuredResponse",
]

_PROVIDER_DESCRIPTION = (
    "A provider of the server's config/providers.yaml (GET /v1/approaches lists them); "
    "its API key comes from the server's environment, never from the request."
)


class StructuredRequest(BaseModel):
    """A raw output for the LLM to split into reasoning and final answer."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    **EXTRACT_EXAMPLE,
                    "approach": "chain_of_thought",
                    "provider": "openai",
                    "model": "gpt-4o-mini",
                    "question": "How many eggs are in 3 boxes of 12?",
                }
            ]
        },
    )

    raw_output: Text = Field(description="The model's output, verbatim.")
    approach: Approach = Field(
        default="none", description="The reasoning approach that produced raw_output."
    )
    provider: Name = Field(description=_PROVIDER_DESCRIPTION)
    model: Name | None = Field(default=None, description="None: the provider's default model.")
    question: Text | None = Field(default=None, description="The question, as context only.")
    task: Task | None = Field(
        default=None,
        description="Bind the answer's expected shape (a wrong shape is re-asked); "
        "None: no binding, or multiple_choice when choices are given.",
    )
    choices: list[Text] | None = Field(
        default=None, max_length=MAX_CHOICES, description="Option texts for multiple_choice."
    )


class StructuredResponse(BaseModel):
    """The approach's extraction model as the LLM filled it, and how the call went."""

    model_config = ConfigDict(frozen=True)

    extraction: AnyReasoningExtraction = Field(
        description="The approach's model; reasoning_type tells which one."
    )
    call_info: CallInfo = Field(description="Mode used, attempts, fallbacks, tokens, latency.")


class AskRequest(BaseModel):
    """A question for a reasoning approach to answer through a provider."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "question": "Which planet is largest? A) Mars B) Jupiter C) Venus",
                    "approach": "chain_of_thought",
                    "strategy": "structured",
                    "provider": "openai",
                    "model": "gpt-4o-mini",
                    "task": "multiple_choice",
                    "choices": ["Mars", "Jupiter", "Venus"],
                }
            ]
        },
    )

    question: NonBlankText = Field(description="The question to answer.")
    approach: Approach = Field(default="chain_of_thought", description="The reasoning approach.")
    strategy: Strategy = Field(
        default="structured",
        description="structured: one call returns reasoning and answer; two_stage: free text, "
        "then deterministic extraction, then an LLM extraction only if that found nothing.",
    )
    provider: Name = Field(description=_PROVIDER_DESCRIPTION)
    model: Name | None = Field(default=None, description="None: the provider's default model.")
    task: Task = Field(default="auto", description="The expected answer's kind.")
    choices: list[Text] | None = Field(
        default=None, max_length=MAX_CHOICES, description="Option texts for multiple_choice."
    )
    numbers: list[StrictInt | StrictFloat] | None = Field(
        default=None, description="The numbers a game24 expression must use."
    )


class ProviderErrorDetail(ErrorDetail):
    """An error of an LLM endpoint. When the provider call failed after requests were
    made, also what they cost: tokens are billed whether or not the call succeeded."""

    model_config = ConfigDict(frozen=True)

    attempts: int | None = Field(
        default=None,
        description="HTTP requests the failed provider call made (retries and fallbacks "
        "included). For /v1/ask: that call's, not the approach's earlier calls'.",
    )
    usage: Usage | None = Field(default=None, description="Tokens those requests used.")


class ProviderErrorResponse(BaseModel):
    """The body of an error of ``/v1/extract/structured`` and ``/v1/ask``."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_extra={
            "examples": [
                {
                    "error": {
                        "type": "provider_error",
                        "message": "openai/gpt-4o-mini is unavailable after every retry "
                        "(HTTP 503); the server's log has the provider's message",
                        "attempts": 3,
                        "usage": {"input_tokens": 0, "output_tokens": 0},
                    }
                }
            ]
        },
    )

    error: ProviderErrorDetail
