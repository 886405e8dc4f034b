"""The rows of an experiment: one :class:`RunRecord` per run, one :class:`ItemRecord` per answer.

These models are the contract between the runner (writes), the store (keeps),
scoring (fills the verdict) and reports (read).

An item's verdict is grading's own (:class:`answerx.grading.Verdict`), in its words:
``correct``, ``reason`` (one of :data:`answerx.grading.REASONS`) and ``how`` (the
predicate that decided, one of :data:`answerx.grading.HOWS`), each a column of its own
that reports group by and readers filter on; ``em``, ``f1`` and ``cover`` (the three
measures open-domain QA reports, for short-answer and text items) are columns too,
since reports average them as they count ``correct``; ``verdict_detail`` holds what a
grader says beyond them (JSON: the accepted answer that matched, why the rules were
unsure, the LLM judge's ruling), so a grader that says more needs no new layout.

What a reader needs to audit an item is kept with it: ``candidate`` and ``span`` (the
text the answer was read from and where it sits in ``raw_output``), and
``conversation``, every call the item made as :class:`CallRecord` rows (JSON text, read
back with :func:`calls_of`), so a viewer can show the whole exchange and highlight the
answer where the rule found it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from answerx.agent.termination import Termination
from answerx.callinfo import CallInfo
from answerx.extraction.models import Method, Task
from answerx.grading.models import Reason
from answerx.reasoning.response import ApproachName, Stage, Strategy

__all__ = [
    "VERDICT_FIELDS",
    "CallRecord",
    "ItemKey",
    "ItemRecord",
    "RunRecord",
    "RunStatus",
    "calls_json",
    "calls_of",
]

RunStatus = Literal["running", "finished", "interrupted", "failed"]

#: The fields of an :class:`ItemRecord` that hold its verdict (what scoring writes).
VERDICT_FIELDS: tuple[str, ...] = (
    "correct",
    "reason",
    "how",
    "em",
    "f1",
    "cover",
    "verdict_detail",
)


class RunRecord(BaseModel):
    """One experiment run: its configuration and how it ended."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    name: str
    config: dict[str, Any] = Field(description="The validated run configuration, as JSON.")
    config_hash: str = Field(description="sha256 of the canonical config JSON (resume check).")
    answerx_version: str
    started_at: datetime
    finished_at: datetime | None = None
    status: RunStatus = "running"


class CallRecord(BaseModel):
    """One call an item made to its model, as sent and as answered."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["text", "structured"] = Field(
        description="A free-text completion, or a structured (Instructor) call."
    )
    response_model: str | None = Field(
        default=None, description="The structured call's response model (its class name)."
    )
    messages: list[dict[str, Any]] = Field(description="The messages sent, as the SDK got them.")
    reply: str | None = Field(
        default=None,
        description="The reply's text, or the structured object as JSON; None when it failed.",
    )
    error: str | None = Field(default=None, description="Why the call failed (no secrets).")
    cached: bool = Field(default=False, description="Answered from the response cache.")
    info: CallInfo | None = Field(
        default=None,
        description="How it went: mode used, modes tried and why they failed, attempts, "
        "repairs, usage, latency, finish reason.",
    )


_CALLS = TypeAdapter(list[CallRecord])


def calls_json(calls: list[CallRecord]) -> str:
    """``calls`` as the JSON text :attr:`ItemRecord.conversation` keeps."""
    return _CALLS.dump_json(calls).decode()


def calls_of(conversation: str) -> list[CallRecord] | None:
    """The calls an :attr:`ItemRecord.conversation` holds; None when none were recorded
    (an item stored before answerx kept them) or the text is not a list of calls."""
    if not conversation:
        return None
    try:
        return _CALLS.validate_json(conversation)
    except ValidationError:
        return None


# (approach, strategy, provider, model, item_id, repetition): what makes an item unique
# inside a run, so a resumed run knows what is already done.
ItemKey = tuple[str, str, str, str, str, int]


class ItemRecord(BaseModel):
    """One question answered by one approach and model: everything needed to score and audit it."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    approach: ApproachName
    strategy: Strategy
    provider: str
    model: str
    item_id: str
    repetition: int = 0
    dataset: str = ""
    task: Task = "auto"
    question: str
    gold: str | None = Field(
        default=None, description="The gold answer (the first, when there are several)."
    )
    answers: list[str] | None = Field(
        default=None, description="Every accepted answer (aliases); None: gold alone."
    )
    choices: list[str] | None = None
    numbers: list[int] | None = None
    prompt: str = Field(default="", description="The first request's messages, as JSON.")
    raw_output: str = ""
    extracted_answer: str | None = None
    candidate: str | None = Field(
        default=None,
        description="The text the rule read the answer from, before cleaning "
        "(Extraction.candidate).",
    )
    span: tuple[int, int] | None = Field(
        default=None,
        description="[start, end) of candidate in raw_output; None when the answer was not "
        "read from raw_output's text (a structured reply) or was stored before answerx kept it.",
    )
    conversation: str = Field(
        default="",
        description="Every call the item made, in the order sent (JSON list of CallRecord; "
        "calls_of reads it); empty when not recorded.",
    )
    extraction: dict[str, Any] | None = Field(
        default=None,
        description="What extraction found, whole (Extraction.model_dump(mode='json')): what "
        "scoring decides the verdict from. None when no reply was read (a failed call) or "
        "for items stored before answerx kept it.",
    )
    method: Method = "none"
    confidence: float = 0.0
    valid: bool | None = Field(
        default=None,
        description="Whether the stated answer has the task's shape (Extraction.valid); "
        "None when there is no answer or nothing checked it.",
    )
    problem: str | None = Field(
        default=None, description="Why the answer is not well formed (Extraction.problem)."
    )
    unfinished: bool = Field(
        default=False, description="The output was cut off or never finished (Extraction)."
    )
    stage: Stage | None = None
    mode: str | None = Field(default=None, description="Instructor mode actually used.")
    attempts: int = 0
    fallbacks: int = 0
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = Field(default=None, description="None when the model has no price.")
    latency_s: float = 0.0
    termination: Termination = Termination.ANSWER
    finish_reason: str | None = Field(
        default=None,
        description="The provider's finish reason of the last reply ('length': cut off).",
    )
    error: str | None = Field(default=None, description="Why the item failed (no secrets).")
    cached: bool = Field(default=False, description="Served from the response cache.")
    correct: bool | None = Field(
        default=None, description="The verdict; None when unscored or the gold is unreadable."
    )
    reason: Reason | None = Field(
        default=None,
        description="Why the verdict is what it is (answerx.grading.REASONS); None: unscored.",
    )
    how: str | None = Field(
        default=None,
        description="The predicate that decided (answerx.grading.HOWS); None: unscored, or "
        "not recorded (scored before answerx stored it).",
    )
    em: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Normalised exact match (short-answer and text items); None: not measured.",
    )
    f1: float | None = Field(default=None, ge=0.0, le=1.0, description="Token F1 (as em).")
    cover: float | None = Field(
        default=None, ge=0.0, le=1.0, description="Cover match: an accepted answer in the reply."
    )
    verdict_detail: dict[str, Any] | None = Field(
        default=None,
        description="What the grader says beyond reason, how and the measures (JSON: "
        "matched_gold, doubt, judge); None when nothing.",
    )
    finished_at: datetime | None = None

    @property
    def golds(self) -> str | list[str] | None:
        """What grading compares with: every accepted answer, or the one gold answer."""
        return self.answers if self.answers else self.gold

    @property
    def key(self) -> ItemKey:
        return (
            self.approach,
            self.strategy,
            self.provider,
            self.model,
            self.item_id,
            self.repetition,
        )
