"""The one result type every reasoning approach returns: :class:`StandardResponse`."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from answerx.agent.termination import Termination
from answerx.extraction.models import Extraction
from answerx.structured.callinfo import Usage
from answerx.structured.models import Approach

__all__ = ["ApproachName", "ResponseMetadata", "Stage", "StandardResponse", "Strategy"]

#: How an approach reads its answer (``BaseReasoning``'s ``strategy``): the one Strategy type.
Strategy = Literal["structured", "two_stage"]
#: Every approach's name, as :data:`answerx.reasoning.APPROACHES` registers them (the
#: eight reasoning approaches, then the five search loops); a test keeps the two equal.
ApproachName = Literal[
    Approach,  # those with a structured extraction model (answerx.structured)
    "search_r1",
    "r1_searcher",
    "search_o1",
    "ircot",
    "iter_retgen",
]
# Which step produced the answer: the structured call itself, the deterministic
# extractor on free text, the structured LLM extraction of free text, the code the
# model wrote (program_of_thought with execute_code), or a final attempt after a budget hit.
Stage = Literal["structured", "deterministic", "structured_llm", "code_execution", "final_attempt"]


class ResponseMetadata(BaseModel):
    """How the answer was reached: enough to audit one response without the raw calls."""

    model_config = ConfigDict(frozen=True, extra="allow")

    reasoning_type: ApproachName
    strategy: Strategy
    stage: Stage | None = Field(default=None, description="Which step produced the answer.")
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    instructor_mode: str | None = Field(
        default=None, description="The Instructor mode actually used by the last structured call."
    )
    modes_tried: tuple[str, ...] = ()
    attempts: int = Field(default=0, description="HTTP requests over every call of the approach.")
    fallbacks: int = Field(default=0, description="Calls that fell back to a later mode.")
    calls: int = Field(default=0, description="Manager calls the approach made.")
    termination: Termination = Field(
        default=Termination.ANSWER, description="Why the approach stopped."
    )
    finish_reason: str | None = Field(
        default=None,
        description="The provider's finish reason of the last free-text reply ('length': cut off).",
    )


class StandardResponse(BaseModel):
    """What :meth:`execute` returns for every approach and strategy (DESIGN.md)."""

    model_config = ConfigDict(frozen=True)

    question: str
    text: str = Field(description="The reasoning text, or the structured reply as JSON.")
    extracted_answer: str | None
    extraction: Extraction
    provider: str
    model: str
    usage: Usage = Field(description="Real tokens summed over every call of the approach.")
    generation_time: float = Field(description="Seconds from the first call to the answer.")
    parameters: dict[str, Any] = Field(default_factory=dict)
    metadata: ResponseMetadata
