"""How experiment runs look on a terminal: the progress bar of ``answerx run`` and the
report tables of ``answerx runs report`` (rich). The library hands over plain data
(:class:`~answerx.experiments.progress.ExperimentProgress`,
:func:`~answerx.experiments.render.report_tables`); drawing it is the command line's.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from answerx.experiments.progress import ExperimentProgress
from answerx.experiments.render import report_tables
from answerx.experiments.report import Report

__all__ = ["ExperimentBar", "print_report"]


class ExperimentBar:
    """The progress bar of a run: done/total, rate, ETA, tokens and cost so far.

    Use it as ``run_experiment``'s ``on_progress``, inside ``with``. The first call
    (before the first answer) prints the run's id, its answers to get and the store,
    then draws the bar; ``enabled=False`` (``--quiet``) draws nothing.
    """

    def __init__(self, console: Console, *, name: str, db: str | Path, enabled: bool) -> None:
        self._console = console
        self._name = name
        self._db = str(db)
        self._enabled = enabled
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> ExperimentBar:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.stop()

    def __call__(self, at: ExperimentProgress) -> None:
        if not self._enabled:
            return
        if self._progress is None or self._task is None:
            self._start(at)
            return
        rate = f"{at.done / at.elapsed_s:.1f} items/s" if at.elapsed_s > 0 and at.done else ""
        self._progress.update(self._task, completed=at.finished, rate=rate, stats=_stats(at))

    def _start(self, at: ExperimentProgress) -> None:
        self._console.print(
            f"run [bold]{at.run_id}[/] ({escape(self._name)}): {at.total} answers to get"
            + (f", {at.skipped} already stored" if at.skipped else "")
            + f" — {escape(self._db)}",
            highlight=False,
        )
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[stats]}"),
            console=self._console,
            transient=False,
        )
        self._task = self._progress.add_task(
            "answering", total=at.total, completed=at.finished, rate="", stats=_stats(at)
        )
        self._progress.start()


def _stats(at: ExperimentProgress) -> str:
    cost = "unknown" if at.cost_usd is None else f"${at.cost_usd:.4f}"
    errors = f" · errors {at.errors}" if at.errors else ""
    return f"tokens {at.input_tokens:,} in / {at.output_tokens:,} out · cost {cost}{errors}"


def print_report(report: Report, console: Console) -> None:
    """Print the report as rich tables, then its notes."""
    for spec in report_tables(report):
        table = Table(title=spec.title, title_justify="left", header_style="bold")
        for i, column in enumerate(spec.columns):
            table.add_column(column, justify="right" if i in spec.right else "left")
        for row in spec.rows:
            table.add_row(*row)
        console.print(table)
    for note in report.notes:
        console.print(f"[yellow]Note:[/] {note}", highlight=False)
