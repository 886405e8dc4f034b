"""Records out: JSON Lines, one JSON array, CSV or Parquet on a binary stream.

A writer takes its records in pieces (already encoded JSON for the JSON formats,
Arrow tables for CSV and Parquet) and leaves a valid file once closed, whenever
that happens: a JSON array is closed, a Parquet footer written. CSV has no lists
or structs: such columns are written as JSON text, as CSV input reads them.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import IO, Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from answerx.errors import ConfigError, InputError
from answerx.recordfiles.formats import OUTPUT_FORMATS
from answerx.recordfiles.jsonl import dumps_record
from answerx.recordfiles.streams import tell

__all__ = [
    "ArrowWriter",
    "JsonArrayWriter",
    "JsonlWriter",
    "RecordWriter",
    "encode_jsonl",
    "flat_for_csv",
    "open_writer",
]


class RecordWriter(ABC):
    """One output format on a binary stream."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream

    @abstractmethod
    def write(self, payload: Any) -> None:
        """Append records: JSON bytes for the JSON formats, an Arrow table for the others."""

    def state(self) -> dict[str, Any]:
        """Where the file stands (for a run to continue it): its length in bytes."""
        self.stream.flush()
        return {"offset": tell(self.stream)}

    def finish(self) -> None:  # noqa: B027 - most formats need no ending
        """Finish the file after the last records (nothing more will come)."""

    def close(self) -> None:
        """Leave a valid file, finished or not."""
        self.stream.flush()


class JsonlWriter(RecordWriter):
    """JSON Lines: each payload is whole lines (:func:`encode_jsonl`)."""

    def write(self, payload: Any) -> None:
        self.stream.write(payload)


class JsonArrayWriter(RecordWriter):
    """One JSON array: each payload is JSON values joined by ``",\\n"``; ``count`` values
    are in the file already (a run continued)."""

    def __init__(self, stream: IO[bytes], count: int = 0) -> None:
        super().__init__(stream)
        self.count = count
        if count == 0 and not tell(stream):
            stream.write(b"[")

    def write(self, payload: Any) -> None:
        if payload:
            self.stream.write((b"\n" if self.count == 0 else b",\n") + payload)
            self.count += 1

    def close(self) -> None:
        # Closed at every end, Ctrl-C included, so the file is always one valid array;
        # a continued run cuts the closing bracket off again (its recorded offset).
        self.stream.write(b"\n]\n")
        self.stream.flush()


class ArrowWriter(RecordWriter):
    """CSV or Parquet from Arrow tables.

    The file's columns are ``schema``'s, or else the first table's, where a column
    that is all null takes its type from ``types`` (else text), so that later
    tables with values in it still fit. A later table is fitted to them: its
    columns in that order, missing ones null, others dropped.
    """

    def __init__(
        self,
        stream: IO[bytes],
        fmt: str,
        *,
        schema: pa.Schema | None = None,
        header: bool = True,
        types: dict[str, pa.DataType] | None = None,
    ) -> None:
        super().__init__(stream)
        self.fmt, self.schema, self.header, self.types = fmt, schema, header, types or {}
        self.rows = 0
        self.inner: Any = None

    def write(self, payload: Any) -> None:
        if payload is None or payload.num_rows == 0:
            return
        table: pa.Table = flat_for_csv(payload) if self.fmt == "csv" else payload
        if self.schema is None:
            self.schema = pa.schema(
                [
                    pa.field(f.name, self.types.get(f.name, pa.string()))
                    if pa.types.is_null(f.type)
                    else f
                    for f in table.schema
                ]
            )
        if self.inner is None:
            self._open()
        self.inner.write_table(self._fit(table))
        self.rows += table.num_rows

    def _open(self) -> None:
        if self.fmt == "parquet":
            self.inner = pq.ParquetWriter(self.stream, self.schema)
        else:
            options = pacsv.WriteOptions(include_header=self.header)
            self.inner = pacsv.CSVWriter(self.stream, self.schema, write_options=options)

    def _fit(self, table: pa.Table) -> pa.Table:
        assert self.schema is not None
        if table.schema == self.schema:
            return table
        columns = []
        for f in self.schema:
            if f.name not in table.column_names:
                columns.append(pa.nulls(table.num_rows, f.type))
                continue
            column = table.column(f.name)
            try:
                columns.append(column if column.type == f.type else column.cast(f.type))
            except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
                raise InputError(
                    f"a JSONL batch does not fit the {self.fmt} schema of the first batch "
                    f"(field {f.name!r}: {exc}); write JSONL, or give every record the same "
                    "field types"
                ) from None
        return pa.Table.from_arrays(columns, schema=self.schema)

    def state(self) -> dict[str, Any]:
        if self.fmt == "parquet":
            return {"rows": self.rows}
        return super().state()

    def finish(self) -> None:
        if self.inner is None and self.schema is not None:
            # No rows at all: still a valid file with the columns (a Parquet footer,
            # a CSV header line).
            self._open()

    def close(self) -> None:
        if self.inner is not None:
            self.inner.close()
        self.stream.flush()


def open_writer(
    stream: IO[bytes],
    fmt: str,
    *,
    count: int = 0,
    schema: pa.Schema | None = None,
    header: bool = True,
    types: dict[str, pa.DataType] | None = None,
) -> RecordWriter:
    """The writer of format ``fmt`` (``jsonl``, ``json``, ``csv``, ``parquet``) on ``stream``.

    ``count``: JSON values already in a JSON array being continued; ``header``:
    whether a CSV starts with its header (not when continued); ``schema`` and
    ``types``: see :class:`ArrowWriter`.
    """
    if fmt == "jsonl":
        return JsonlWriter(stream)
    if fmt == "json":
        return JsonArrayWriter(stream, count)
    if fmt in ("csv", "parquet"):
        return ArrowWriter(stream, fmt, schema=schema, header=header, types=types)
    raise ConfigError(f"unknown output format {fmt!r}; one of: {', '.join(OUTPUT_FORMATS)}")


def encode_jsonl(records: Iterable[dict[str, Any]]) -> tuple[bytes, int]:
    """``records`` as JSON Lines (UTF-8), and how many had a NaN/Infinity written as null."""
    lines: list[str] = []
    nulled = 0
    for record in records:
        text, was_nulled = dumps_record(record)
        nulled += was_nulled
        lines.append(text)
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b"", nulled


def flat_for_csv(table: pa.Table) -> pa.Table:
    """``table`` with its list, struct and all-null columns as JSON text (CSV has none)."""
    for i, f in enumerate(table.schema):
        if pa.types.is_nested(f.type) or pa.types.is_null(f.type):
            values = [None if v is None else json.dumps(v) for v in table.column(i).to_pylist()]
            table = table.set_column(
                i, pa.field(f.name, pa.string()), pa.array(values, pa.string())
            )
    return table
