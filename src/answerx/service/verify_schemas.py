"""Request and response bodies of ``/v1/verify``, ``/v1/verify/batch`` and ``/v1/reward``.

Only pydantic, :mod:`answerx.grading` and :mod:`answerx.service.schemas` here, so
that :mod:`answerx.client` imports them without FastAPI or the provider SDKs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, ValidationError

from answerx.errors import ConfigError
from answerx.extraction.models import Task
from answerx.grading import Verdict
from answerx.grading.residue import JudgeTotals
from answerx.grading.rewards import LabelFields
from answerx.service.schemas import MAX_CHOICES, ErrorDetail, Name, Text

__all__ = [
    "MAX_GOLDS",
    "REWARD_ENV_VARS",
    "VERIFY_EXAMPLE",
    "RewardRequest",
    "RewardResponse",
    "RewardSettings",
    "VerifyBatchItem",
    "VerifyBatchRequest",
    "VerifyBatchResponse",
    "VerifyRequest",
]

#: Most accepted answers one item may list (TriviaQA's longest alias lists hold ~100).
MAX_GOLDS: Final = 256

#: A request of ``POST /v1/verify`` (also the OpenAPI example).
VERIFY_EXAMPLE: Final[dict[str, Any]] = {
    "raw_output": "Each box holds 12 eggs, so 3 boxes hold 36. The answer is 36.",
    "gold": "36",
    "task": "numeric",
}


#: An open-domain QA request: several accepted answers and the question.
VERIFY_ALIASES_EXAMPLE: Final[dict[str, Any]] = {
    "raw_output": "It was written by Shakespeare.",
    "gold": ["William Shakespeare", "Shakespeare"],
    "question": "Who wrote Hamlet?",
}


class VerifyRequest(BaseModel):
    """One raw output and the gold answer it should state."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [VERIFY_EXAMPLE, VERIFY_ALIASES_EXAMPLE]}
    )

    raw_output: Text = Field(description="The model's output, verbatim.")
    gold: (
        Text
        | StrictInt
        | StrictFloat
        | Annotated[list[Text | StrictInt | StrictFloat], Field(max_length=MAX_GOLDS)]
        | None
    ) = Field(
        description="The gold answer, or a list of accepted answers (any one is right: "
        "the verdict's matched_gold names it; a list of short texts is graded as "
        "short_answer under 'auto'); null when there is none (the verdict is then undecided)."
    )
    question: Text | None = Field(
        default=None,
        description="The question the output answers: a short answer is graded against it "
        "(a surname for a person), and the judge sees it.",
    )
    judge: bool = Field(
        default=True,
        description="Ask the server's LLM judge (when it has one) about an item the rules "
        "cannot decide; false: the rules' verdict alone. The judge and its budget are the "
        "server's; a request cannot choose them.",
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


class VerifyBatchRequest(BaseModel):
    """Many verifications in one request. Each item has the shape of ``POST /v1/verify``'s
    body and is checked on its own, so one malformed item gets its own error."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"items": [VERIFY_EXAMPLE, {"raw_output": "So x = \\frac{1}{2}.", "gold": "0.5"}]}
            ]
        },
    )

    items: list[Any] = Field(description="Objects shaped like POST /v1/verify's body.")


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
    judge: JudgeTotals | None = Field(
        default=None,
        description="What the server's judge did and cost for this batch (null: no judge).",
    )


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
    labels: list[
        Text
        | StrictInt
        | StrictFloat
        | dict[str, Any]
        | list[Text | StrictInt | StrictFloat]
        | None
    ] = Field(
        description="The gold answer of each rollout (OpenRLHF's --label_key column), or a "
        "label object holding it with the row's own task, choices and numbers "
        '(e.g. {"answer": "B", "task": "multiple_choice", "choices": [...]}).'
    )
    task: Task | None = Field(
        default=None,
        description="The kind of answer for every rollout; null: the server's --reward-task "
        "('auto' unless set: read from each label). A label object's task overrides it.",
    )
    metas: list[dict[str, Any] | None] | None = Field(
        default=None,
        description="Per-rollout metadata (OpenRLHF's optional metas): a row's task, "
        "choices and numbers, overridden by its label object.",
    )


class RewardResponse(BaseModel):
    """OpenRLHF's remote reward answer."""

    model_config = ConfigDict(frozen=True)

    rewards: list[float] = Field(description="1.0 for a correct answer, else 0.0.")
    scores: list[float] = Field(description="The same values, for OpenRLHF's dynamic filtering.")
    extra_logs: dict[str, float] = Field(
        description="Extraction rate and the share of each verdict reason (to wandb)."
    )


#: RewardSettings field -> the environment variable that sets it (``answerx serve``'s
#: ``--reward-*`` options go over them, in ``ServiceSettings.reward``).
REWARD_ENV_VARS: Final[Mapping[str, str]] = {
    "task": "ANSWERX_REWARD_TASK",
    "gold_field": "ANSWERX_REWARD_GOLD_FIELD",
    "task_field": "ANSWERX_REWARD_TASK_FIELD",
    "choices_field": "ANSWERX_REWARD_CHOICES_FIELD",
    "numbers_field": "ANSWERX_REWARD_NUMBERS_FIELD",
}


class RewardSettings(BaseModel):
    """How ``POST /v1/reward`` reads its rollouts when a request does not say."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: Task = Field(default="auto", description="The task of every rollout by default.")
    gold_field: Name | None = Field(
        default=None,
        description="The label-object field with the gold answer (None: answer, "
        "ground_truth, gold, solution, label, target).",
    )
    task_field: Name = Field(default="task", description="The label-object field with a task.")
    choices_field: Name = Field(default="choices", description="... with the option texts.")
    numbers_field: Name = Field(default="numbers", description="... with game24's numbers.")

    @property
    def fields(self) -> LabelFields:
        """The label-object field names, as the reward rows read them."""
        return LabelFields(
            gold=self.gold_field,
            task=self.task_field,
            choices=self.choices_field,
            numbers=self.numbers_field,
        )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RewardSettings:
        """Settings from the ``ANSWERX_REWARD_*`` variables (``os.environ`` by default);
        a bad value is a ConfigError naming the variable."""
        env = os.environ if environ is None else environ
        values = {f: env[var] for f, var in REWARD_ENV_VARS.items() if env.get(var, "").strip()}
        return cls._checked(values)

    def updated(self, **fields: str | None) -> RewardSettings:
        """These settings with ``fields`` over them (None leaves one as it is), checked:
        ``answerx serve``'s ``--reward-*`` options."""
        return self._checked({**dict(self), **{k: v for k, v in fields.items() if v is not None}})

    @classmethod
    def _checked(cls, values: Mapping[str, object]) -> RewardSettings:
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            problems = "; ".join(
                f"{REWARD_ENV_VARS.get(str(e['loc'][0]), e['loc'][0])}: {e['msg']}"
                for e in exc.errors(include_input=False, include_url=False)
            )
            raise ConfigError(f"invalid reward settings: {problems}") from None
