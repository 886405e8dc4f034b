"""Arrow-native batches: extraction and verification over tables, files and clusters.

- :func:`extract_table` / :func:`verify_table`: a ``pyarrow.Table`` (or RecordBatch,
  pandas DataFrame) in, the same table with flat result columns out; the one
  function behind ``datasets``, polars, DuckDB and Ray Data plug-ins.
- :func:`run_file`: JSONL, CSV or Parquet in and out across worker processes,
  streamed in bounded memory, in order, resumable after an interruption.
"""

from answerx.batch.files import BatchSummary, default_workers, run_file
from answerx.batch.table_calls import extract_table, verify_table
from answerx.batch.tables import (
    ERROR_COLUMN,
    EXTRACT_COLUMNS,
    JUDGE_COLUMNS,
    VERIFY_COLUMNS,
    as_table,
    result_struct,
    result_type,
)

__all__ = [
    "ERROR_COLUMN",
    "EXTRACT_COLUMNS",
    "JUDGE_COLUMNS",
    "VERIFY_COLUMNS",
    "BatchSummary",
    "as_table",
    "default_workers",
    "extract_table",
    "result_struct",
    "result_type",
    "run_file",
    "verify_table",
]
