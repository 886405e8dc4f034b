"""A verify run's accuracy comes with its Wilson interval from the library, and the file
runs and the service start their worker processes the one way."""

from __future__ import annotations

import answerx.batch
import answerx.experiments.stats
import answerx.service.pool
from answerx.batch.summary import BatchSummary
from answerx.support.confidence import wilson_interval
from answerx.support.workerpool import default_workers, start_method


def test_the_accuracy_of_a_verify_run_has_its_wilson_interval() -> None:
    summary = BatchSummary(correct=8, judged=10)

    accuracy = summary.accuracy()

    assert accuracy is not None
    assert (accuracy.rate, accuracy.correct, accuracy.judged) == (0.8, 8, 10)
    assert (accuracy.low, accuracy.high) == wilson_interval(8, 10)
    assert BatchSummary().accuracy() is None  # nothing judged: no interval to give


def test_one_wilson_interval_for_the_file_runs_and_the_reports() -> None:
    assert answerx.experiments.stats.wilson_interval is wilson_interval


def test_the_file_runs_and_the_service_count_their_workers_the_same_way() -> None:
    assert answerx.batch.default_workers is default_workers
    assert answerx.service.pool.default_workers is default_workers
    assert default_workers() >= 1
    assert start_method() in ("forkserver", "spawn")
