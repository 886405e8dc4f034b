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
    run_finished: int | None = None
    """A run many workers share (``answerx run --join``, ``answerx runs work``): answers
    every worker has stored, earlier sessions' included, as last read from the store;
    None for a run of one worker."""

    @property
    def finished(self) -> int:
        """Answers stored, out of :attr:`total`: the whole run's when workers share it."""
        own = self.skipped + self.done
        return own if self.run_finished is None else max(own, self.run_finished)


#: What ``run_experiment(on_progress=...)`` calls.
ExperimentProgressCallback = Callable[[ExperimentProgress], None]
