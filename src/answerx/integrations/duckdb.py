"""DuckDB: ``answerx_extract(output)`` as a vectorised (Arrow) SQL function.

>>> # import duckdb
>>> # from answerx.integrations import duckdb as answerx_duckdb
>>> # con = duckdb.connect(); answerx_duckdb.register(con)
>>> # con.sql("SELECT answerx_extract(raw_output).answer FROM 'rollouts/*.parquet'")

DuckDB hands each vector of rows to :func:`answerx.batch.extract_table` as
Arrow and gets a struct back: ``answer``, ``method``, ``confidence``,
``valid``, ``unfinished``, ``span_start``, ``span_end``, ``error``. A null
output gives a null struct. ``answerx_extract_as(output, task)`` takes a task
name (or NULL for auto) per row.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from answerx.batch.table_calls import extract_table
from answerx.batch.tables import result_struct, result_type

__all__ = ["register"]

_SQL_TYPES = {
    pa.string(): "VARCHAR",
    pa.float64(): "DOUBLE",
    pa.bool_(): "BOOLEAN",
    pa.int64(): "BIGINT",
}


def register(con: Any, *, name: str = "answerx_extract") -> Any:
    """Add ``name(output)`` and ``name_as(output, task)`` to the DuckDB connection ``con``.

    Returns ``con``. Raises the DuckDB error when the names are already taken.
    """
    struct = con.struct_type({field.name: _SQL_TYPES[field.type] for field in result_type()})
    # "special": nulls reach the function, so a NULL task means auto (a NULL output
    # still gives a NULL result, from extract_table).
    for sql_name, function, parameters in (
        (name, _extract, ["VARCHAR"]),
        (f"{name}_as", _extract_as, ["VARCHAR", "VARCHAR"]),
    ):
        con.create_function(
            sql_name, function, parameters, struct, type="arrow", null_handling="special"
        )
    return con


def _extract(outputs: pa.ChunkedArray | pa.Array) -> pa.StructArray:
    return result_struct(extract_table(pa.table({"raw_output": outputs})))


def _extract_as(
    outputs: pa.ChunkedArray | pa.Array, tasks: pa.ChunkedArray | pa.Array
) -> pa.StructArray:
    table = pa.table({"raw_output": outputs, "task": tasks})
    return result_struct(extract_table(table, task="task"))
