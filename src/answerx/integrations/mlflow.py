"""An answerx run as an MLflow run (``answerx runs log RUN_ID --to mlflow``, ``log_to: [mlflow]``).

Through :class:`mlflow.MlflowClient` only, never MLflow's fluent API: logging a run
neither starts nor ends the caller's own active MLflow run. The tracking URI and the
experiment are MLflow's own settings (``MLFLOW_TRACKING_URI``, e.g. ``sqlite:///mlflow.db``
or a team's server; ``MLFLOW_EXPERIMENT_NAME``, else the run's name). The MLflow run
is tagged ``answerx.run_id``: logging the same answerx run again (a resumed run, a
re-scored one) updates that MLflow run instead of adding another.

MLflow is imported when a run is opened: the module imports without it. Needs the
``answerx[mlflow]`` extra (mlflow-skinny, with SQLAlchemy and Alembic for a
local ``sqlite:`` store); what is logged is described in :mod:`answerx.integrations.tracker_data`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from answerx.experiments.records import RunRecord, RunStatus
from answerx.integrations.tracker_data import ITEM_COLUMNS, RunLog

if TYPE_CHECKING:
    from mlflow import MlflowClient
    from mlflow.entities import Run

__all__ = ["ITEMS_TABLE", "RUN_TAG", "MlflowRun", "find_run"]

#: The tag that names the answerx run an MLflow run logs.
RUN_TAG = "answerx.run_id"
#: The item table's artifact (read back with ``MlflowClient().load_table(...)``).
ITEMS_TABLE = "items.json"

# MLflow's limits on one log_batch call.
_PARAMS_PER_BATCH = 100
_METRICS_PER_BATCH = 1000

_STATUS = {
    "finished": "FINISHED",
    "interrupted": "KILLED",
    "failed": "FAILED",
    "running": "RUNNING",
}


def _chunks(values: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def find_run(client: MlflowClient, experiment_id: str, run_id: str) -> Run | None:
    """The MLflow run of experiment ``experiment_id`` that logs answerx run ``run_id``."""
    found = client.search_runs(
        [experiment_id], filter_string=f"tags.`{RUN_TAG}` = '{run_id}'", max_results=1
    )
    return found[0] if found else None


class MlflowRun:
    """The MLflow run of one answerx run (created, or the earlier one reopened)."""

    def __init__(self, run: RunRecord, *, tracking_uri: str | None = None) -> None:
        from mlflow import MlflowClient

        self._client = MlflowClient(tracking_uri)
        name = os.environ.get("MLFLOW_EXPERIMENT_NAME") or run.name
        experiment = self._client.get_experiment_by_name(name)
        experiment_id = (
            experiment.experiment_id if experiment else self._client.create_experiment(name)
        )
        earlier = find_run(self._client, experiment_id, run.run_id)
        if earlier is not None:
            self.run_id = earlier.info.run_id
            self._client.update_run(self.run_id, status="RUNNING")
        else:
            tags = {RUN_TAG: run.run_id, "answerx.version": run.answerx_version}
            created = self._client.create_run(
                experiment_id, run_name=f"{run.name} {run.run_id}", tags=tags
            )
            self.run_id = created.info.run_id
        self._logged_params = earlier.data.params if earlier is not None else {}

    @property
    def where(self) -> str:
        """The MLflow run id and tracking URI."""
        return f"run {self.run_id} at {self._client.tracking_uri}"

    def log_progress(self, metrics: Mapping[str, float], step: int) -> None:
        """The running counts, at ``step`` (answers stored)."""
        self._metrics(metrics, step)

    def log_run(self, log: RunLog, files: Sequence[Path]) -> None:
        """Parameters, metrics, the item table, config.json and the report's files."""
        from mlflow.entities import Param, RunTag

        # A parameter cannot change once logged: a reopened run logs only new ones.
        params = [Param(k, v) for k, v in log.params.items() if k not in self._logged_params]
        for chunk in _chunks(params, _PARAMS_PER_BATCH):
            self._client.log_batch(self.run_id, params=list(chunk))
        self._metrics(log.metrics, 0)
        self._log_table(log)
        self._client.log_dict(self.run_id, log.config, "config.json")
        for path in files:
            self._client.log_artifact(self.run_id, str(path), artifact_path="report")
        tags = [RunTag("answerx.status", log.run.status)]
        self._client.log_batch(self.run_id, tags=tags)

    def _log_table(self, log: RunLog) -> None:
        import pandas as pd

        frame = pd.DataFrame(log.rows, columns=list(ITEM_COLUMNS))
        logged = {a.path for a in self._client.list_artifacts(self.run_id)}
        if ITEMS_TABLE not in logged:
            self._client.log_table(self.run_id, data=frame, artifact_file=ITEMS_TABLE)
            return
        # log_table appends to a table logged before: a run logged again (re-scored, or
        # resumed) would list its items twice. The file is replaced instead, in the format
        # log_table writes, and the run keeps the tag that makes it a table.
        table = frame.to_json(orient="split", index=False, date_format="iso")
        self._client.log_text(self.run_id, table, ITEMS_TABLE)

    def end(self, status: RunStatus) -> None:
        """Close the MLflow run: FINISHED, KILLED (interrupted) or FAILED."""
        self._client.set_terminated(self.run_id, status=_STATUS[status])

    def _metrics(self, metrics: Mapping[str, float], step: int) -> None:
        from mlflow.entities import Metric

        stamp = int(time.time() * 1000)
        entries = [Metric(k, float(v), stamp, step) for k, v in metrics.items()]
        for chunk in _chunks(entries, _METRICS_PER_BATCH):
            self._client.log_batch(self.run_id, metrics=list(chunk))
