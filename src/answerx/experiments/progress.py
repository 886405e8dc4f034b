"""Where an experiment run is: what :func:`~answerx.experiments.runner.run_experiment` tells
its ``on_progress`` callback, once before the first answer and after each one.

Plain data, so the runner knows nothing of how progress is shown: the command line
draws a bar from it (``answerx run``), a notebook or a service may log it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["ExperimentProgress", "ExperimentProgressCallback"]


@dataclass(frozen=True, slots=True)
class ExperimentProgress:
    """A run's progress: answers to get, answers got, and what they cost so far."""

    run_id: str
    total: int
    """Answers the whole run gets (those stored before a resume included)."""
    skipped: int
    """Answers already stored when this part of the run started (a resumed run)."""
    done: int
    """Answers got by this part of the run so far, failed ones included."""
    errors: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    """None when unknown (a model without a price), never a made-up $0."""
    elapsed_s: float

    @property
    def finished(self) -> int:
        """Answers stored, out of :attr:`total`."""
        return self.skipped + self.done


#: What ``run_experiment(on_progress=...)`` calls.
ExperimentProgressCallback = Callable[[ExperimentProgress], None]
