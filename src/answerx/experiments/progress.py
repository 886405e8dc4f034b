"""The progress bar of a run: done/total, rate, ETA, tokens and cost so far (rich)."""

from __future__ import annotations

from types import TracebackType
from typing import Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

__all__ = ["RunProgress"]


class _Totals(Protocol):
    done: int
    errors: int
    input_tokens: int
    output_tokens: int

    @property
    def cost(self) -> float | None: ...


class RunProgress:
    """A rich progress bar that is a no-op when disabled (tests, ``--quiet``, no TTY)."""

    def __init__(
        self, *, total: int, skipped: int, enabled: bool, console: Console | None = None
    ) -> None:
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._skipped = skipped
        if enabled:
            self._progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                TextColumn("{task.fields[stats]}"),
                console=console,
                transient=False,
            )
            self._task = self._progress.add_task(
                "answering", total=total, completed=skipped, rate="", stats=""
            )

    def __enter__(self) -> RunProgress:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.stop()

    def advance(self, totals: _Totals) -> None:
        if self._progress is None or self._task is None:
            return
        task = self._progress.tasks[0]
        elapsed = task.elapsed or 0.0
        rate = f"{totals.done / elapsed:.1f} items/s" if elapsed > 0 else ""
        cost = "unknown" if totals.cost is None else f"${totals.cost:.4f}"
        stats = (
            f"tokens {totals.input_tokens:,} in / {totals.output_tokens:,} out · cost {cost}"
            + (f" · errors {totals.errors}" if totals.errors else "")
        )
        self._progress.update(self._task, advance=1, rate=rate, stats=stats)
