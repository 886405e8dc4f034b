"""Request and response bodies of ``/v1/verify``, ``/v1/verify/batch`` and ``/v1/reward``.

Only pydantic, :mod:`answerx.grading` and :mod:`answerx.service.schemas` here, so
that :mod:`answerx.client` imports them without FastAPI or the provider SDKs.
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt

from answerx.extraction.models import Task
from answerx.grading import Verdict
from answerx.service.schemas import MAX_CHOICES, ErrorDetail, Name, Text

__all__ = [
    "VERIFY_EXAMPLE",
    "RewardRequest",
    "RewardResponse",
    "VerifyBatchItem",
    "VerifyBatchResponse",
    "VerifyRequest",
]

#: A request of ``POST /v1/verify`` (also the OpenAPI example).
VERIFY_EXAMPLE: Final[dict[str, Any]] = {
    "raw_output": "Each box holds 12 eggs, so 3 boxes hold 36. The answer is 36.",
    "gold": "36",
    "task": "numeric",
}


class VerifyRequest(BaseModel):
    """One raw output and the gold answer it should state."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [VERIFY_EXAMPLE]})

    raw_output: Text = Field(description="The model's output, verbatim.")
    gold: Text | StrictInt | StrictFloat | None = Field(
        description="The gold answer; null when there is none (the verdict is then undecided)."
    )
    task: Task = Field(default="auto", description="The kind of answer; 'auto' reads the gold.")
    choices: list[Text] | None = Field(
        default=None, max_length=MAX_CHOICES, description="Option texts of a multiple-choice item."
    )
    numbers: list[StrictInt | StrictFloat] | None = Field(
        default=None, description="The numbers a game24 expression must use."
    )
    finish_reason: Name | None = Field(
        default=None, description="The provider's finish reason ('length': the output was cut off)."
    )


class VerifyBatchItem(BaseModel):
    """The verdict of one batch item, or the error that item alone met."""

    model_config = ConfigDict(frozen=True)

    verdict: Verdict | None = None
    error: ErrorDetail | None = None


class VerifyBatchResponse(BaseModel):
    """One result per request item, in the order of the items."""

    model_config = ConfigDict(frozen=True)

    results: list[VerifyBatchItem]
    succeeded: int = Field(description="Items judged (whatever the verdict).")
    failed: int = Field(description="Items that got an error instead.")


class RewardRequest(BaseModel):
    """OpenRLHF's remote reward request: the rollouts, their prompts and gold labels."""

    model_config = ConfigDict(
        extra="ignore",  # OpenRLHF may add fields; they do not change the verdicts
        json_schema_extra={
            "examples": [
                {
                    "query": ["<|im_start|>user\nWhat is 6 * 7?<|im_end|>\n<|im_start|>assistant\n"
                              "6 * 7 = 42. The answer is \\boxed{42}.<|im_end|>"],
                    "prompts": ["<|im_start|>user\nWhat is 6 * 7?<|im_end|>\n"
                                "<|im_start|>assistant\n"],
                    "labels": ["42"],
                }
            ]
        },
    )  # fmt: skip

    query: list[Text] = Field(description="Prompt and response as one text, per rollout.")
    prompts: list[Text] | None = Field(
        default=None, description="The prompt of each rollout (stripped from its query)."
    )
    labels: list[Text | StrictInt | StrictFloat | None] = Field(
        description="The gold answer of each rollout (OpenRLHF's --label_key column)."
    )
    task: Task = Field(default="auto", description="The kind of answer; 'auto' reads each label.")


class RewardResponse(BaseModel):
    """OpenRLHF's remote reward answer."""

    model_config = ConfigDict(frozen=True)

    rewards: list[float] = Field(description="1.0 for a correct answer, else 0.0.")
    scores: list[float] = Field(description="The same values, for OpenRLHF's dynamic filtering.")
    extra_logs: dict[str, float] = Field(
        description="Extraction rate and the share of each verdict reason (to wandb)."
    )
