"""Runs logged to the experiment trackers researchers look at: MLflow and Weights & Biases.

``answerx runs log RUN_ID --to mlflow`` logs a stored run; ``log_to: [mlflow]`` in an
experiment config logs the run as it goes (:class:`TrackerObserver`, a
:class:`~answerx.experiments.observers.RunObserver`): its progress after each item,
then everything below when it ends. What a tracker gets (:class:`RunLog`):

- the run's config as parameters (nested keys dotted) and as ``config.json``;
- per arm (target × approach × strategy): accuracy with its Wilson 95% interval,
  items, errors, tokens, cost, and the counts of each termination and extraction
  method, as metrics; the run's totals beside them;
- the report's plots, ``report.md`` and ``report.json`` as artifacts;
- the item table: question, answer, gold, verdict, how, confidence, and the output
  with the span the answer was read from.

Each tracker is set up the way its own users set it up (MLflow: ``MLFLOW_TRACKING_URI``,
``MLFLOW_EXPERIMENT_NAME``; W&B: ``WANDB_MODE``, ``WANDB_PROJECT``, ``WANDB_DIR``), and
imported only when it is asked for (the ``answerx[mlflow]`` and ``answerx[wandb]``
extras). Every string sent is passed through the key redactor first.
"""

from __future__ import annotations

import importlib
import logging
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal, get_args

from answerx.errors import ConfigError
from answerx.experiments.progress import ExperimentProgress
from answerx.experiments.records import ItemRecord, RunRecord, RunStatus
from answerx.experiments.report import ReportStore
from answerx.experiments.report_files import write_report
from answerx.integrations.tracker_data import (
    ITEM_COLUMNS,
    RunLog,
    TrackerRun,
    progress_metrics,
    run_log,
)
from answerx.redactor import describe_failure, redact_keys

__all__ = [
    "ITEM_COLUMNS",
    "TRACKERS",
    "RunLog",
    "TrackerName",
    "TrackerObserver",
    "TrackerRun",
    "log_stored_run",
    "open_tracker",
    "run_log",
    "tracker_class",
]

_log = logging.getLogger(__name__)

TrackerName = Literal["mlflow", "wandb"]
#: The trackers answerx logs to (``--to``, ``log_to:``).
TRACKERS: tuple[TrackerName, ...] = get_args(TrackerName)


def tracker_class(name: str) -> Callable[[RunRecord], TrackerRun]:
    """What opens a run in tracker ``name``, its package imported now: an unknown name or
    a missing package is a :class:`~answerx.errors.ConfigError` that says what to do."""
    if name not in TRACKERS:
        raise ConfigError(f"unknown tracker {name!r}: choose from {', '.join(TRACKERS)}")
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != name:
            raise  # the tracker is there but broken: its own error says why
        raise ConfigError(
            f"logging to {name} needs its package: pip install 'answerx[{name}]'"
        ) from None
    if name == "mlflow":
        from answerx.integrations.mlflow import MlflowRun

        return MlflowRun
    from answerx.integrations.wandb import WandbRun

    return WandbRun


def open_tracker(name: str, run: RunRecord) -> TrackerRun:
    """``run`` opened (or reopened, when it was logged before) in tracker ``name``."""
    return tracker_class(name)(run)


def _log_ended_run(tracker: TrackerRun, log: RunLog, status: RunStatus) -> None:
    # The report's files are written to a temporary folder the tracker copies from.
    with tempfile.TemporaryDirectory(prefix="answerx-tracker-") as folder:
        files = write_report(log.report, Path(folder) / "report")
        tracker.log_run(log, files)
    tracker.end(status)


def log_stored_run(store: ReportStore, run_id: str, to: Iterable[str]) -> list[str]:
    """Log stored run ``run_id`` to each tracker of ``to``; where each put it."""
    run = store.get_run(run_id)
    log = run_log(run, list(store.items(run.run_id)))
    places = []
    for name in to:
        tracker = open_tracker(name, run)
        _log_ended_run(tracker, log, run.status)
        places.append(f"{name}: {tracker.where}")
    return places


class TrackerObserver:
    """Logs a run to trackers as it goes (``log_to:``): its config when it starts, its
    running counts after items (at most every ``every_s`` seconds), and the whole
    :class:`RunLog` when it ends.

    A tracker that fails is reported (a warning naming it, no secret) and dropped; the
    run goes on, and ``answerx runs log RUN_ID --to NAME`` logs it again later.
    """

    def __init__(self, to: Iterable[str], *, every_s: float = 1.0) -> None:
        # Imported now: an unknown name or a missing package fails before the run starts.
        self._opens = {name: tracker_class(name) for name in dict.fromkeys(to)}
        self._every_s = every_s
        self._trackers: dict[str, TrackerRun] = {}
        self._last = float("-inf")
        self._scored = 0
        self._correct = 0
        #: Where each tracker logged the run (filled as the run starts).
        self.places: list[str] = []

    def run_started(self, run: RunRecord, progress: ExperimentProgress) -> None:
        """Open the run in each tracker; a tracker that cannot be opened is dropped."""
        for name, open_run in self._opens.items():
            try:
                tracker = open_run(run)
            except Exception as exc:
                self._failed(name, exc)
                continue
            self._trackers[name] = tracker
            self.places.append(f"{name}: {tracker.where}")

    def item_stored(self, item: ItemRecord, progress: ExperimentProgress) -> None:
        """Count the item; log the running counts when ``every_s`` has passed."""
        if item.correct is not None:
            self._scored += 1
            self._correct += item.correct
        now = time.monotonic()
        if now - self._last < self._every_s and progress.finished < progress.total:
            return
        self._last = now
        metrics = progress_metrics(progress, self._scored, self._correct)
        self._each(lambda tracker: tracker.log_progress(metrics, progress.finished))

    def run_ended(self, store: ReportStore, run_id: str, status: RunStatus) -> None:
        """Log the whole run (metrics, item table, report files) and close it everywhere."""
        if not self._trackers:
            return
        try:
            run = store.get_run(run_id)
            log = run_log(run, list(store.items(run.run_id)))
        except Exception as exc:
            for name in list(self._trackers):
                self._failed(name, exc)
            return
        self._each(lambda tracker: _log_ended_run(tracker, log, status))

    def _each(self, action: Any) -> None:
        for name, tracker in list(self._trackers.items()):
            try:
                action(tracker)
            except Exception as exc:  # a tracker's failure never stops the run
                self._failed(name, exc)

    def _failed(self, name: str, error: BaseException) -> None:
        self._trackers.pop(name, None)
        _log.warning(
            "logging to %s stopped: %s; the run goes on (log it later: answerx runs log RUN_ID"
            " --to %s)",
            name,
            redact_keys(describe_failure(error)),
            name,
        )
