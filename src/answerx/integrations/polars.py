"""polars: extraction as an expression whose value is one struct per row.

>>> # import polars as pl
>>> # from answerx.integrations.polars import extract_expr
>>> # df.with_columns(extract_expr("raw_output").alias("x")).unnest("x")

The work is done by :func:`answerx.batch.extract_table` on the Arrow data
behind each polars batch (``map_batches``), so a lazy query over many Parquet
files streams through it batch by batch. polars is imported only when an
expression is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from answerx.batch.table_calls import extract_table
from answerx.batch.tables import result_struct, result_type

if TYPE_CHECKING:
    import polars as pl

__all__ = ["extract_expr", "extract_series"]


def extract_series(
    series: pl.Series,
    *,
    task: str = "auto",
    choices: str | None = None,
    numbers: str | None = None,
) -> pl.Series:
    """One struct per row (answer, method, confidence, valid, unfinished, span_start,
    span_end, error) for a series of outputs, or for a struct series whose fields are
    the output (first field) and the columns ``task``/``choices``/``numbers`` name."""
    import polars as pl

    arrow = series.to_arrow()
    if isinstance(arrow, pa.ChunkedArray):
        arrow = arrow.combine_chunks()
    if pa.types.is_struct(arrow.type):
        names = [arrow.type.field(i).name for i in range(arrow.type.num_fields)]
        table = pa.table({name: arrow.field(name) for name in names})
        column = names[0]
    else:
        table, column = pa.table({"raw_output": arrow}), "raw_output"
    out = extract_table(table, column=column, task=task, choices=choices, numbers=numbers)
    return pl.Series(series.name, result_struct(out))


def extract_expr(
    column: str = "raw_output",
    *,
    task: str = "auto",
    choices: str | None = None,
    numbers: str | None = None,
) -> pl.Expr:
    """An expression extracting from ``column``; ``task`` (a task name or a column),
    ``choices`` and ``numbers`` (columns) are read per row when they name columns."""
    import polars as pl

    per_row = [name for name in (task, choices, numbers) if name is not None and name != "auto"]
    from answerx.extraction import TASKS

    per_row = [name for name in per_row if name not in TASKS]
    source: pl.Expr = pl.struct([column, *per_row]) if per_row else pl.col(column)
    return source.map_batches(
        lambda s: extract_series(s, task=task, choices=choices, numbers=numbers),
        return_dtype=pl.from_arrow(pa.array([], result_type())).dtype,  # type: ignore[union-attr]
    )
