"""What a file run did (:class:`BatchSummary`) and where it is (:class:`RunProgress`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from answerx.extraction.files import FileSummary
from answerx.support.confidence import wilson_interval

__all__ = ["Accuracy", "BatchSummary", "LLMTotals", "RunProgress", "ShortAnswerMeans"]


class LLMTotals(BaseModel):
    """What the LLM asked about a file run's residue did and cost: the judge (verify) or
    the LLM extraction (extract). Summed over every part of a continued run."""

    kind: Literal["judge", "extraction"]
    name: str = Field(default="", description="provider/model.")
    asked: int = Field(default=0, description="Residue records put to the LLM.")
    ruled: int = Field(
        default=0, description="Answered: a judge's verdict, or an LLM extraction used."
    )
    changed: int = Field(
        default=0,
        description="Records it changed: a verdict's correctness overturned, an answer "
        "found or replaced.",
    )
    not_ruled: int = Field(
        default=0, description="Asked but not answered: budget spent, provider error, unsure."
    )
    cached: int = Field(default=0, description="Answered from the response cache (free).")
    calls: int = Field(default=0, description="Requests paid for.")
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = Field(default=0.0, description="None when no price is known.")
    stopped: str | None = Field(default=None, description="Why it stopped asking, if it did.")

    def add_call(
        self, calls: int, tokens_in: int, tokens_out: int, cost: float | None, cached: bool
    ) -> None:
        """Count one answer's calls, tokens and cost."""
        self.calls += calls
        self.input_tokens += tokens_in
        self.output_tokens += tokens_out
        self.cached += cached
        if calls and cost is None:
            self.cost_usd = None
        elif self.cost_usd is not None and cost is not None:
            self.cost_usd += cost


@dataclass(frozen=True, slots=True)
class ShortAnswerMeans:
    """The mean of the short-answer measures over the records that have them."""

    items: int
    em: float
    f1: float
    cover: float


@dataclass(frozen=True, slots=True)
class Accuracy:
    """The share of judged records that were correct, with its Wilson interval."""

    correct: int
    judged: int
    low: float
    high: float
    confidence: float

    @property
    def rate(self) -> float:
        """``correct / judged`` (0 when nothing was judged)."""
        return self.correct / self.judged if self.judged else 0.0


class BatchSummary(FileSummary):
    """What a :func:`~answerx.batch.run_file` run did (over all its resumed parts)."""

    consumed: int = Field(default=0, description="Input lines (JSONL) or rows read and done.")
    last_written: int | None = Field(
        default=None, description="Number of the last input line/row whose record was written."
    )
    interrupted: bool = Field(default=False, description="The run stopped before the end.")
    resumed_from: int | None = Field(
        default=None, description="Input lines/rows a resumed run skipped (done before)."
    )
    workers: int = Field(default=1, description="Worker processes used.")
    by_reason: dict[str, int] = Field(
        default_factory=dict, description="Verify mode: records written, by verdict reason."
    )
    correct: int = Field(default=0, description="Verify mode: records judged correct.")
    judged: int = Field(
        default=0, description="Verify mode: records judged at all (their gold was readable)."
    )
    doubtful: int = Field(
        default=0,
        description="Verify mode: records the rules were unsure of (a judge is asked about "
        "these, when one is given).",
    )
    short_answers: int = Field(
        default=0, description="Verify mode: records with short-answer measures (em, f1, cover)."
    )
    em_sum: float = Field(default=0.0, description="Their exact-match scores, summed.")
    f1_sum: float = Field(default=0.0, description="Their token-F1 scores, summed.")
    cover_sum: float = Field(default=0.0, description="Their cover-match scores, summed.")
    llm: LLMTotals | None = Field(
        default=None, description="What the judge or the LLM extraction did and cost."
    )

    def short_answer_means(self) -> ShortAnswerMeans | None:
        """Verify mode: mean em, f1 and cover over the short-answer records; None for none."""
        n = self.short_answers
        if not n:
            return None
        return ShortAnswerMeans(n, self.em_sum / n, self.f1_sum / n, self.cover_sum / n)

    def accuracy(self, confidence: float = 0.95) -> Accuracy | None:
        """Verify mode: the accuracy over the judged records and its Wilson interval;
        None when no record could be judged."""
        if not self.judged:
            return None
        low, high = wilson_interval(self.correct, self.judged, confidence)
        return Accuracy(self.correct, self.judged, low, high, confidence)


@dataclass(frozen=True, slots=True)
class RunProgress:
    """Where a run is, after each batch written."""

    rows: int
    """Input lines (JSONL) or rows done."""
    written: int
    done: int
    """Units done out of ``total``: bytes for JSONL and CSV, rows for Parquet."""
    total: int | None
