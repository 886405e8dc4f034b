"""What a run tells the code that watches it: its start, each stored item, its end.

:func:`~answerx.experiments.runner.run_experiment` takes ``observers``; each is told
the three moments of the run below. The runner knows nothing of what an observer
does with them: the experiment trackers (``log_to: [mlflow, wandb]``,
:mod:`answerx.integrations.trackers`) live above this layer and log the run live.

An observer is called from the run's event loop, between items: it must be quick
(or hand its work to a thread) and must not raise for its own failures (a tracker
that cannot be reached must not stop a run whose items are being stored).
"""

from __future__ import annotations

from typing import Protocol

from answerx.experiments.progress import ExperimentProgress
from answerx.experiments.records import ItemRecord, RunRecord, RunStatus
from answerx.experiments.report import ReportStore

__all__ = ["RunObserver"]


class RunObserver(Protocol):
    """Told what a run does as it goes."""

    def run_started(self, run: RunRecord, progress: ExperimentProgress) -> None:
        """The run is created (or resumed) and about to ask its first item."""

    def item_stored(self, item: ItemRecord, progress: ExperimentProgress) -> None:
        """``item`` is scored and stored; ``progress`` counts it."""

    def run_ended(self, store: ReportStore, run_id: str, status: RunStatus) -> None:
        """The run ended (``status``); every item it stored can be read from ``store``."""
