"""A table's rows on worker processes: what ``extract_table`` and ``verify_table`` run
with ``workers=N``.

The file run's design (:mod:`answerx.batch.files`), for a table already in memory: the
workers are the same pool (:class:`answerx.batch.workers.PoolStarter`: forked warm, at
most one per core; verifying, their grading workers are copies of the run's one grading
template), and the calling process does no per-row work. It cuts the table into slices,
writes each slice's needed columns to a spool file in shared memory (Arrow IPC, which
the worker maps without a copy), and puts the columns the workers add back together in
order; the input's other columns never leave it. A worker returns only what it adds.
"""

from __future__ import annotations

import shutil
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future

import pyarrow as pa

from answerx.batch._jobs import Spooled, spool, unspool
from answerx.batch.workers import PoolStarter, spool_dir, workers_for

__all__ = ["SLICE_ROWS", "added_on_workers"]

SLICE_ROWS = 2_048
"""Rows per slice: enough that a slice's hand-over is a small part of its work, few
enough that every worker gets many (they finish at different times)."""

#: What runs on a slice: the added columns for its rows, in order (a picklable function).
Work = Callable[[pa.Table], list[pa.Array]]


def added_on_workers(
    data: pa.Table, needed: list[str], work: Work, workers: int, *, grading: bool
) -> list[pa.ChunkedArray] | None:
    """The columns ``work`` adds for every row of ``data``, its slices run on up to
    ``workers`` processes, each given only the ``needed`` columns; ``grading``: the work
    verifies. None where one process is the better choice (one worker or core, or a table
    of one slice): the caller runs ``work`` itself."""
    workers = workers_for(workers)
    if workers < 2 or data.num_rows <= SLICE_ROWS:
        return None
    directory = spool_dir()
    starter: PoolStarter | None = None
    try:
        starter = PoolStarter(workers, grading=grading, arrow=True, directory=directory)
        pool = starter.wait()
        columns = data.select(needed)
        in_flight: deque[Future[Spooled]] = deque()
        parts: list[pa.Table] = []
        for start in range(0, data.num_rows, SLICE_ROWS):
            while len(in_flight) >= 2 * workers:  # a bounded window: memory stays flat
                parts.append(unspool(in_flight.popleft().result()))
            piece = spool(columns.slice(start, SLICE_ROWS), directory)
            in_flight.append(pool.submit(_run_slice, piece, work, directory))
        parts.extend(unspool(future.result()) for future in in_flight)
    finally:
        if starter is not None:
            starter.shutdown()
        shutil.rmtree(directory, ignore_errors=True)
    # Arrays, not the parts' chunked columns: pyarrow would read those value by value.
    return [
        pa.chunked_array(
            [chunk for part in parts for chunk in part.column(i).chunks],
            parts[0].schema.field(i).type,
        )
        for i in range(parts[0].num_columns)
    ]


def _run_slice(piece: Spooled, work: Work, directory: str) -> Spooled:
    """In a worker: one slice's added columns, spooled back."""
    arrays = work(unspool(piece))
    return spool(pa.table({str(i): array for i, array in enumerate(arrays)}), directory)
