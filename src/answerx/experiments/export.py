"""Exporting a run's items as CSV, JSONL or Parquet files, for analysis elsewhere.

Columns are the :class:`~answerx.experiments.records.ItemRecord` fields. In
CSV, lists and objects (``verdict_detail``) are JSON, booleans ``true``/``false``
and missing values empty; in JSONL each line is an ItemRecord
(``ItemRecord.model_validate_json`` reads it back); Parquet keeps the types (lists,
booleans, UTC timestamps; ``verdict_detail`` is JSON text).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from answerx.errors import ConfigError
from answerx.experiments.records import ItemRecord

__all__ = ["ExportFormat", "export_items", "utc_iso"]

ExportFormat = Literal["csv", "jsonl", "parquet"]

_ITEM_COLUMNS: tuple[str, ...] = tuple(ItemRecord.model_fields)
_SUFFIX_FORMATS: Mapping[str, ExportFormat] = {
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
}
_PAGE = 500  # rows per Parquet row group write


def utc_iso(value: datetime) -> str:
    """``value`` as ISO 8601 in UTC (a naive datetime is taken as UTC)."""
    aware = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return aware.isoformat()


def export_items(
    items: Iterable[ItemRecord], path: str | Path, format: ExportFormat | None = None
) -> int:
    """Write ``items`` to ``path`` as CSV, JSONL or Parquet; returns the row count.

    The format defaults to the file's suffix (``.csv``, ``.jsonl``, ``.parquet``).
    """
    target = Path(path)
    fmt = format or _SUFFIX_FORMATS.get(target.suffix.lower())
    if fmt not in ("csv", "jsonl", "parquet"):
        raise ConfigError(
            f"cannot tell the export format of {str(target)!r}: "
            "use a .csv, .jsonl or .parquet file or give the format"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    write = {"csv": _export_csv, "jsonl": _export_jsonl, "parquet": _export_parquet}[fmt]
    # Written beside the target and renamed at the end: an export that fails half-way
    # (a damaged page, a full disk) leaves no half file, and an earlier export intact.
    partial = target.with_name(f".{target.name}.partial")
    try:
        count = write(items, partial)
        partial.replace(target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return count


def _csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | dict):
        return json.dumps(value)
    if isinstance(value, datetime):
        return utc_iso(value)
    return str(value)


def _export_csv(rows: Iterable[ItemRecord], target: Path) -> int:
    count = 0
    with target.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(_ITEM_COLUMNS)
        for item in rows:
            writer.writerow([_csv_cell(getattr(item, c)) for c in _ITEM_COLUMNS])
            count += 1
    return count


def _export_jsonl(rows: Iterable[ItemRecord], target: Path) -> int:
    count = 0
    with target.open("w", encoding="utf-8") as f:
        for item in rows:
            f.write(item.model_dump_json() + "\n")
            count += 1
    return count


def _parquet_schema() -> Any:
    import pyarrow as pa

    types: dict[str, Any] = {
        "repetition": pa.int64(),
        "answers": pa.list_(pa.string()),
        "choices": pa.list_(pa.string()),
        "numbers": pa.list_(pa.int64()),
        "confidence": pa.float64(),
        "attempts": pa.int64(),
        "fallbacks": pa.int64(),
        "calls": pa.int64(),
        "input_tokens": pa.int64(),
        "output_tokens": pa.int64(),
        "cost_usd": pa.float64(),
        "em": pa.float64(),
        "f1": pa.float64(),
        "cover": pa.float64(),
        "latency_s": pa.float64(),
        "cached": pa.bool_(),
        "correct": pa.bool_(),
        "valid": pa.bool_(),
        "unfinished": pa.bool_(),
        "finished_at": pa.timestamp("us", tz="UTC"),
    }
    return pa.schema([(c, types.get(c, pa.string())) for c in _ITEM_COLUMNS])


def _parquet_row(item: ItemRecord) -> dict[str, Any]:
    row = item.model_dump()
    if row["verdict_detail"] is not None:  # free-form JSON: a string column
        row["verdict_detail"] = json.dumps(row["verdict_detail"])
    return row


def _export_parquet(rows: Iterable[ItemRecord], target: Path) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = _parquet_schema()
    count = 0
    batch: list[dict[str, Any]] = []
    with pq.ParquetWriter(target, schema) as writer:
        for item in rows:
            batch.append(_parquet_row(item))
            if len(batch) >= _PAGE:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                count, batch = count + len(batch), []
        # Always one write, so even an empty run gives a file with the schema.
        writer.write_table(pa.Table.from_pylist(batch, schema=schema))
        count += len(batch)
    return count
