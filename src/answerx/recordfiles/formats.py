"""The record-file formats answerx reads and writes, and the file suffixes that name them.

The one table of formats: the file runs (``answerx extract|verify --file``), the
experiment data sets and the run exports all look a suffix up here.
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Literal, overload

__all__ = [
    "INPUT_FORMATS",
    "OUTPUT_FORMATS",
    "SUFFIXES",
    "InputFormat",
    "InputFormatName",
    "RecordFormat",
    "format_of",
]


class RecordFormat(StrEnum):
    """A file of records: JSON Lines, one JSON array, CSV with a header, or Parquet."""

    jsonl = "jsonl"
    json = "json"
    csv = "csv"
    parquet = "parquet"


class InputFormat(StrEnum):
    """The formats records are read from (a ``.json`` input is read as JSON Lines)."""

    jsonl = "jsonl"
    csv = "csv"
    parquet = "parquet"


InputFormatName = Literal["jsonl", "csv", "parquet"]
""":class:`InputFormat` as a type for settings files (a data set's ``format:``)."""

INPUT_FORMATS: tuple[str, ...] = tuple(InputFormat)
OUTPUT_FORMATS: tuple[str, ...] = tuple(RecordFormat)

SUFFIXES: dict[str, RecordFormat] = {
    ".jsonl": RecordFormat.jsonl,
    ".ndjson": RecordFormat.jsonl,
    ".json": RecordFormat.json,
    ".csv": RecordFormat.csv,
    ".parquet": RecordFormat.parquet,
    ".pq": RecordFormat.parquet,
}
"""File suffix (lower case) -> the format it names."""


@overload
def format_of(path: str | os.PathLike[str] | None, default: str) -> str: ...
@overload
def format_of(path: str | os.PathLike[str] | None, default: None = None) -> str | None: ...
def format_of(path: str | os.PathLike[str] | None, default: str | None = None) -> str | None:
    """The format ``path``'s suffix names (case-insensitive); ``default`` when none does,
    and for no path or ``-`` (a stream).

    >>> format_of("answers.PQ"), format_of("notes.txt", "jsonl"), format_of("-", "jsonl")
    (<RecordFormat.parquet: 'parquet'>, 'jsonl', 'jsonl')
    """
    if path is None or str(path) == "-":
        return default
    return SUFFIXES.get(Path(path).suffix.lower(), default)
