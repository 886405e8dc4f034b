"""What a file run did (:class:`BatchSummary`) and where it is (:class:`RunProgress`)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from answerx.extraction.files import FileSummary
from answerx.intervals import wilson_interval

__all__ = ["Accuracy", "BatchSummary", "RunProgress"]


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
