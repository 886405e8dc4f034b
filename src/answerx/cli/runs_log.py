"""``answerx runs log RUN_ID --to mlflow|wandb``: a stored run logged to experiment trackers."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer
from rich.markup import escape

from answerx.cli._common import command_boundary, stderr
from answerx.cli.options import DbOption, existing_store

__all__ = ["LOG_HELP", "Tracker", "log_command"]

LOG_HELP = """Log a stored run to MLflow or Weights & Biases: its config as parameters,
accuracy per arm with its 95% interval, tokens, cost, terminations and extraction methods
as metrics, the report's plots as artifacts, and the item table (question, answer, gold,
verdict, how, confidence, the output with the answer's span).

Each tracker is set up by its own variables: MLFLOW_TRACKING_URI (e.g. sqlite:///mlflow.db,
or a team's server) and MLFLOW_EXPERIMENT_NAME; WANDB_MODE (offline: a run folder under
WANDB_DIR for `wandb sync`), WANDB_PROJECT. Logging the same run again updates its
tracker run. Needs pip install 'answerx[mlflow]' / 'answerx[wandb]'."""


class Tracker(StrEnum):
    """The trackers ``--to`` takes."""

    mlflow = "mlflow"
    wandb = "wandb"


def log_command(
    run_id: Annotated[str, typer.Argument(help="The run to log (an id or its prefix).")],
    to: Annotated[
        list[Tracker],
        typer.Option("--to", help="A tracker to log to (repeat for both).", show_default=False),
    ],
    db: DbOption = None,
) -> None:
    """Log a stored run to MLflow or Weights & Biases."""
    from answerx.experiments.store import ResultStore
    from answerx.integrations.trackers import log_stored_run

    path = existing_store(db)
    with command_boundary(), ResultStore.for_reading(path) as store:
        places = log_stored_run(store, run_id, [t.value for t in dict.fromkeys(to)])
    for place in places:
        stderr().print(f"logged to {escape(place)}")
