"""An answerx run as a Weights & Biases run (``answerx runs log RUN_ID --to wandb``,
``log_to: [wandb]``).

W&B's own settings apply: ``WANDB_MODE=offline`` writes the run under ``WANDB_DIR``
(``wandb sync`` uploads it later), ``WANDB_PROJECT`` names the project (else the run's
name), ``WANDB_ENTITY`` the team. The W&B run's id is the answerx run's id and it is
resumed when logged again (a resumed or re-scored run), so one answerx run is one W&B
run. ``reinit="create_new"`` leaves the caller's own W&B run alone, and the console is
not captured (a run's output is answerx's business, not W&B's).

W&B is imported when a run is opened: the module imports without it. Needs the
``answerx[wandb]`` extra; what is logged is described in
:mod:`answerx.integrations.tracker_data`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal, get_args

from answerx.experiments.records import RunRecord, RunStatus
from answerx.integrations.tracker_data import ITEM_COLUMNS, RunLog
from answerx.redactor import redact_keys_deep

__all__ = ["ITEMS_KEY", "WandbRun"]

#: The key the item table is logged under.
ITEMS_KEY = "items"

# W&B run and artifact ids: letters, digits, "-", "_" and ".".
_ID_UNSAFE = re.compile(r"[^\w.\-]")
_Mode = Literal["online", "offline", "disabled", "shared"]
_MODES: dict[str, _Mode] = {mode: mode for mode in get_args(_Mode)}


class WandbRun:
    """The W&B run of one answerx run (created, or resumed when logged before)."""

    def __init__(self, run: RunRecord) -> None:
        import wandb

        self._id = _ID_UNSAFE.sub("-", run.run_id)
        # W&B reads its environment once per process; passed here, WANDB_DIR and WANDB_MODE
        # are their values now (a long-lived process: a notebook, the service). The folder
        # is made absolute: a child process joins its parent's W&B service (WANDB_SERVICE),
        # which would read a relative one from its own working directory.
        folder = os.environ.get("WANDB_DIR")
        self._run = wandb.init(
            dir=os.path.abspath(folder) if folder else None,
            mode=_MODES.get(os.environ.get("WANDB_MODE", "")),
            project=os.environ.get("WANDB_PROJECT") or _ID_UNSAFE.sub("-", run.name),
            id=self._id,
            name=f"{run.name} {run.run_id}",
            resume="allow",
            reinit="create_new",
            config={
                **redact_keys_deep(run.config),
                "answerx": {"run_id": run.run_id, "version": run.answerx_version},
            },
            settings=wandb.Settings(console="off", save_code=False, silent=True),
        )

    @property
    def where(self) -> str:
        """The run's page, or its directory when offline."""
        if self._run.offline:
            return str(Path(self._run.dir).parent)
        return str(self._run.url)

    def log_progress(self, metrics: Mapping[str, float], step: int) -> None:
        """The running counts, at ``step`` (answers stored)."""
        self._run.log(dict(metrics), step=step)

    def log_run(self, log: RunLog, files: Sequence[Path]) -> None:
        """Summary metrics, the item table, the plots and the report as an artifact."""
        import wandb

        for name, value in log.metrics.items():
            self._run.summary[name] = value
        table = wandb.Table(
            columns=list(ITEM_COLUMNS), data=[[row[c] for c in ITEM_COLUMNS] for row in log.rows]
        )
        media: dict[str, object] = {ITEMS_KEY: table}
        for path in files:
            if path.suffix == ".png":
                media[f"plots/{path.stem}"] = wandb.Image(str(path))
        self._run.log(media)
        report = wandb.Artifact(f"report-{self._id}", type="answerx-report")
        for path in files:
            report.add_file(str(path))
        self._run.log_artifact(report)

    def end(self, status: RunStatus) -> None:
        """Finish the W&B run: exit code 0 when the answerx run finished, 1 otherwise."""
        self._run.finish(exit_code=0 if status == "finished" else 1)
