"""Exporting a run's items as CSV, JSONL or Parquet files, for analysis elsewhere.

Columns are the :class:`~answerx.experiments.records.ItemRecord` fields. In CSV, lists
and objects (``verdict_detail``, ``extraction``) are JSON, booleans ``true``/``false``,
times ISO 8601 in UTC and missing values empty; in JSONL each line is an ItemRecord
(``ItemRecord.model_validate_json`` reads it back); Parquet keeps the types (lists,
booleans, UTC timestamps; ``verdict_detail`` and ``extraction`` are JSON text). The files
are written by :mod:`answerx.recordfiles`' writers, the ones ``answerx extract --file`` uses, into a
hidden file renamed into place at the end, never through a symbolic link
(:mod:`answerx.support.nofollow`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Literal

from answerx.errors import ConfigError
from answerx.experiments.records import ItemRecord
from answerx.recordfiles.formats import format_of
from answerx.support.nofollow import output_dir

__all__ = ["ExportFormat", "export_items", "utc_iso", "write_items"]

ExportFormat = Literal["csv", "jsonl", "parquet"]

_ITEM_COLUMNS: tuple[str, ...] = tuple(ItemRecord.model_fields)
_PAGE = 500  # items per write (a Parquet row group)
_OBJECTS = ("verdict_detail", "extraction")  # JSON objects, written as JSON text


def utc_iso(value: datetime) -> str:
    """``value`` as ISO 8601 in UTC (a naive datetime is taken as UTC)."""
    aware = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return aware.isoformat()


def export_items(
    items: Iterable[ItemRecord], path: str | Path, format: ExportFormat | None = None
) -> int:
    """Write ``items`` to ``path`` as CSV, JSONL or Parquet; returns the row count.

    The format defaults to the file's suffix (``.csv``, ``.jsonl``, ``.parquet``,
    ``.pq``). The file's folder is created when missing; a symbolic link at ``path``
    raises :class:`~answerx.errors.SymlinkRefused`, and nothing is written through it.
    """
    target = Path(path)
    fmt = format or format_of(target)
    if fmt not in ("csv", "jsonl", "parquet"):
        raise ConfigError(
            f"cannot tell the export format of {str(target)!r}: "
            "use a .csv, .jsonl or .parquet file or give the format"
        )
    # Written beside the target and renamed at the end: an export that fails half-way
    # (a damaged page, a full disk) leaves no half file, and an earlier export intact.
    with output_dir(target.parent, follow=True) as folder, folder.replacing(target.name) as out:
        return write_items(items, out, str(fmt))


def write_items(items: Iterable[ItemRecord], stream: IO[bytes], fmt: str) -> int:
    """Write ``items`` to ``stream`` as ``fmt`` (``csv``, ``jsonl``, ``parquet``) a page
    at a time, as :func:`export_items` writes a file (the viewer streams an export so);
    returns the row count."""
    # pyarrow: only an export needs it, not the runs.
    import pyarrow as pa

    from answerx.recordfiles.writers import encode_jsonl, flat_for_csv, open_writer

    schema = _schema(csv=fmt == "csv")
    # CSV has no lists: the writer writes list columns as JSON text.
    columns = flat_for_csv(schema.empty_table()).schema if fmt == "csv" else schema
    count = 0
    writer = open_writer(stream, fmt, schema=columns)
    try:
        for page in _pages(items):
            if fmt == "jsonl":
                writer.write(encode_jsonl(item.model_dump(mode="json") for item in page)[0])
            else:
                rows = [_row(item, csv=fmt == "csv") for item in page]
                writer.write(pa.Table.from_pylist(rows, schema=schema))
            count += len(page)
        writer.finish()  # even an empty run: a CSV header, a Parquet file with the schema
    finally:
        writer.close()
    return count


def _pages(items: Iterable[ItemRecord]) -> Iterator[list[ItemRecord]]:
    page: list[ItemRecord] = []
    for item in items:
        page.append(item)
        if len(page) == _PAGE:
            yield page
            page = []
    if page:
        yield page


def _row(item: ItemRecord, *, csv: bool) -> dict[str, Any]:
    row = item.model_dump()
    for column in _OBJECTS:  # free-form JSON: a string column
        if row[column] is not None:
            row[column] = json.dumps(row[column])
    if csv and row["finished_at"] is not None:
        row["finished_at"] = utc_iso(row["finished_at"])
    return row


def _schema(*, csv: bool) -> Any:
    import pyarrow as pa

    types: dict[str, Any] = {
        "repetition": pa.int64(),
        "answers": pa.list_(pa.string()),
        "choices": pa.list_(pa.string()),
        "numbers": pa.list_(pa.int64()),
        "span": pa.list_(pa.int64()),
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
        "finished_at": pa.string() if csv else pa.timestamp("us", tz="UTC"),
    }
    return pa.schema([(c, types.get(c, pa.string())) for c in _ITEM_COLUMNS])
