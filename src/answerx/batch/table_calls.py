"""The public calls over Arrow tables: :func:`extract_table` and :func:`verify_table`.

A table (a ``pyarrow.Table`` or ``RecordBatch``, a pandas or polars DataFrame, anything
``pyarrow.table()`` reads) in, the same table with flat result columns out: the one
function behind ``datasets``, polars, DuckDB and Ray Data plug-ins. The rows are read and
graded by :mod:`answerx.batch.tables`, in this process, or with ``workers=N`` on the file
run's worker pool (:mod:`answerx.batch.table_workers`); this module sits above both, since
the pool's jobs run that module's functions.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from answerx.batch.table_workers import added_on_workers
from answerx.batch.tables import (
    RowOptions,
    TableLike,
    add_columns,
    added_columns,
    as_table,
    extract_arrays,
    missing_column,
    verify_arrays,
)
from answerx.errors import ConfigError, InputError

if TYPE_CHECKING:
    from answerx.grading.judgement import Judge

__all__ = ["extract_table", "verify_table"]


def extract_table(
    table: TableLike,
    *,
    column: str = "raw_output",
    task: str = "auto",
    choices: str | None = None,
    numbers: str | None = None,
    finish_reason: str | None = None,
    prefix: str = "",
    workers: int = 1,
) -> pa.Table:
    """``table`` with the extraction of each row's ``column`` added as flat columns.

    Added (each named ``prefix + name``, replacing an input column of that name):
    ``answer``, ``method``, ``confidence``, ``valid``, ``unfinished``,
    ``span_start``, ``span_end`` and ``error`` (why a row has no result; null
    when it has one, or when its output is null).

    ``task`` is a task name (one for every row) or the name of a column of
    task names (a null there means ``"auto"``). ``choices`` and ``numbers``
    name list columns (or JSON-list strings, as CSV holds them) for multiple
    choice and Game of 24; ``finish_reason`` names a column of the provider's
    finish reasons (``"length"`` marks a cut-off output ``unfinished``).

    ``workers=N`` runs the rows on up to N processes (at most one per core), as a file
    run does (:mod:`answerx.batch.table_workers`); the result is the same table.

    >>> import pyarrow as pa
    >>> out = extract_table(pa.table({"raw_output": ["The answer is 4.", None]}))
    >>> out.column("answer").to_pylist(), out.column("method").to_pylist()
    (['4', None], ['final_answer_phrase', None])

    Raises :class:`~answerx.errors.ConfigError` for a missing column or an
    unknown task name: a mistake in the call, not in a row.
    """
    data = as_table(table)
    options = RowOptions.of(data, column, task, choices, numbers, finish_reason)
    work = partial(_extract_slice, options)
    arrays = _on_workers(data, options.columns, work, workers, grading=False)
    if arrays is None:
        arrays = extract_arrays(data, options)
    return add_columns(data, arrays, prefix, verify=False)


def _on_workers(
    data: pa.Table, needed: list[str], work: Callable[[pa.Table], list[pa.Array]],
    workers: int, *, grading: bool,
) -> list[pa.ChunkedArray] | None:  # fmt: skip
    """The added columns, made on ``workers`` processes; None: make them here."""
    if workers < 1:
        raise InputError(f"workers must be at least 1, not {workers}")
    if workers == 1:
        return None
    return added_on_workers(data, needed, work, workers, grading=grading)


def _extract_slice(options: RowOptions, data: pa.Table) -> list[pa.Array]:
    """In a worker: one slice's extraction columns."""
    return extract_arrays(data, options)


def verify_table(
    table: TableLike,
    *,
    output: str = "raw_output",
    gold: str = "gold",
    task: str = "auto",
    choices: str | None = None,
    numbers: str | None = None,
    finish_reason: str | None = None,
    question: str | None = None,
    prefix: str = "",
    judge: Judge | None = None,
    judge_concurrency: int = 4,
    workers: int = 1,
) -> pa.Table:
    """``table`` with each row's ``output`` graded against its ``gold`` as flat columns.

    Added (each named ``prefix + name``): ``correct``, ``reason``, ``how``,
    ``matched_gold``, ``doubt``, ``em``, ``f1``, ``cover`` and the extraction columns of
    :func:`extract_table`, then ``error``. A gold cell may hold a list of accepted
    answers (an Arrow list column, or JSON text such as ``'["Paris", "City of
    Light"]'``, as CSV holds it): any one is right, ``matched_gold`` names it. A null
    output or gold gives a null result; ``task``, ``choices``, ``numbers`` and
    ``finish_reason`` work as in :func:`extract_table`; ``question`` names a column of
    questions (a short answer is graded against what was asked).

    ``judge`` (:class:`answerx.judge.LLMJudge`, or any
    :class:`~answerx.grading.judgement.Judge`) is asked about the rows the rules were
    unsure of (``doubt``), ``judge_concurrency`` at a time, and adds the columns
    ``judge_verdict`` and ``judge_reason``; the other rows never reach it.

    ``workers=N`` grades the rows on up to N processes (at most one per core), as a
    file run does (:mod:`answerx.batch.table_workers`); the judge is asked here, about
    the rows they found in doubt. The result is the same table.

    Raises :class:`~answerx.errors.ConfigError` for a missing column or an
    unknown task name.
    """
    data = as_table(table)
    if judge is not None and judge_concurrency < 1:
        raise InputError(f"judge_concurrency must be at least 1, not {judge_concurrency}")
    options = RowOptions.of(data, output, task, choices, numbers, finish_reason, question=question)
    if gold not in data.column_names:
        raise ConfigError(missing_column(gold, data))
    judging = judge is not None
    work = partial(_verify_slice, options, gold, judging)
    arrays = _on_workers(data, [*options.columns, gold], work, workers, grading=True)
    if arrays is None:
        arrays = verify_arrays(
            data, options, gold, judging=judging, judge=judge, judge_concurrency=judge_concurrency
        )
    elif judge is not None:
        arrays = _judge_doubts(data, arrays, options, gold, judge, judge_concurrency)
    return add_columns(data, arrays, prefix, verify=True)


def _verify_slice(options: RowOptions, gold: str, judging: bool, data: pa.Table) -> list[pa.Array]:
    """In a worker: one slice's verdict columns (the judge's left null)."""
    return verify_arrays(data, options, gold, judging=judging)


def _judge_doubts(
    data: pa.Table,
    arrays: list[pa.ChunkedArray],
    options: RowOptions,
    gold: str,
    judge: Judge,
    concurrency: int,
) -> list[pa.ChunkedArray]:
    """The workers' columns with the rows they found in doubt graded again here, where
    ``judge`` is asked about them (a judge is a client of this process)."""
    names = [name for name, _ in added_columns("verify", True)]
    doubts = pc.indices_nonzero(pc.is_valid(arrays[names.index("doubt")]))
    if len(doubts) == 0:
        return arrays
    judged = verify_arrays(
        data.take(doubts), options, gold, judging=True, judge=judge, judge_concurrency=concurrency
    )
    # Row i is the workers' row i, or the k-th judged row (n + k) where it was in doubt.
    n = data.num_rows
    where = list(range(n))
    for k, i in enumerate(doubts.to_pylist()):
        where[i] = n + k
    return [
        pa.chunked_array([pa.concat_arrays([column.combine_chunks(), again]).take(where)])
        for column, again in zip(arrays, judged, strict=True)
    ]
