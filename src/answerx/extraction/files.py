"""Extraction over JSONL files, streamed one line at a time.

:func:`extract_file` reads a JSONL file of raw outputs and writes the same
records back with ``answer``, ``method``, ``confidence``, ``valid``,
``unfinished``, ``span_start`` and ``span_end`` added. It never holds
more than one line in memory, so a file of any length runs in flat memory.

A malformed line (bad JSON, not an object, a missing or non-string field, an
unknown task) never stops the run: it is reported with its 1-based line number,
skipped, and counted in the returned :class:`FileSummary`.

Each record may carry its own ``task``, ``choices`` and ``numbers`` (field names
configurable); a record's ``task`` overrides the default one.

JSON has no NaN or Infinity: a record that holds them (Python's ``json`` reads
them) is written back with null in their place, valid JSON, and counted in
:attr:`FileSummary.nonfinite_nulled`.

This is the single-core form, for the library, of the per-record steps
(:func:`parse_record`, :func:`output_record`) that :func:`answerx.batch.run_file`
runs in batches on every core for JSONL, CSV and Parquet, and that the command
line always uses; extraction sits below the batch layer, so it cannot call it.
Reading and writing the records is :mod:`answerx.recordfiles`'s.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import IO, Any

from pydantic import BaseModel, Field

from answerx.errors import AnswerxError, InputError
from answerx.extraction.engine import extract
from answerx.extraction.models import Extraction
from answerx.extraction.tasks import check_task
from answerx.recordfiles.jsonl import dumps_record, finite, json_object, json_type
from answerx.support.nofollow import open_output

__all__ = [
    "MAX_REPORTED",
    "ExtractedRecord",
    "FileSummary",
    "MalformedLine",
    "dumps_record",
    "extract_file",
    "iter_extract",
    "json_line_writer",
    "output_record",
    "parse_record",
]

Source = str | os.PathLike[str] | IO[bytes] | IO[str]
"""A path, or an open binary or text stream of JSONL."""

Sink = str | os.PathLike[str] | IO[bytes] | IO[str]
"""A path (created or truncated), or an open binary or text stream."""

ErrorCallback = Callable[["MalformedLine"], None]
ProgressCallback = Callable[[int, int], None]
"""Called after each physical line with (lines read, bytes read) so far."""

MAX_REPORTED = 1000
"""Malformed lines kept in :attr:`FileSummary.malformed`; later ones are only
counted (and still passed to ``on_error``), so a file of bad lines cannot make
memory grow."""

ADDED_FIELDS = (
    "answer",
    "method",
    "confidence",
    "valid",
    "unfinished",
    "span_start",
    "span_end",
)
"""The fields added to each record (before the prefix); the same as answerx.batch's columns."""


class MalformedLine(BaseModel):
    """A line that was skipped, and why."""

    line: int = Field(ge=1, description="1-based line number in the input.")
    reason: str = Field(description="What is wrong with it, for a person to read.")


class FileSummary(BaseModel):
    """What a run over a file did. ``read == written + malformed_count`` always."""

    read: int = Field(default=0, description="Records (non-blank lines) read.")
    written: int = Field(default=0, description="Records extracted and passed on.")
    malformed_count: int = Field(default=0, description="Records skipped as malformed.")
    malformed: list[MalformedLine] = Field(
        default_factory=list, description=f"The first {MAX_REPORTED} malformed lines."
    )
    by_method: dict[str, int] = Field(
        default_factory=dict, description="Records written, by extraction method."
    )
    replaced_fields: list[str] = Field(
        default_factory=list,
        description="Input fields that the added answer/method/confidence fields replaced.",
    )
    nonfinite_nulled: int = Field(
        default=0,
        description="Records written with null for a NaN or Infinity (not valid JSON).",
    )

    @property
    def ok(self) -> bool:
        """True when no line was malformed."""
        return self.malformed_count == 0


@dataclass(frozen=True, slots=True)
class ExtractedRecord:
    """One input record and what extraction found in it."""

    line: int
    record: dict[str, Any]
    extraction: Extraction


def output_record(
    item: ExtractedRecord, prefix: str = "", summary: FileSummary | None = None
) -> dict[str, Any]:
    """The input record (updated in place) with the :data:`ADDED_FIELDS` added.

    The added fields are named ``prefix + name``; an input field of the same name
    is replaced (its position in the record is kept) and, when ``summary`` is
    given, its name is noted in ``summary.replaced_fields``.
    """
    out = item.record
    if summary is not None:
        for name in ADDED_FIELDS:
            key = prefix + name
            if key in out and key not in summary.replaced_fields:
                summary.replaced_fields.append(key)
    e = item.extraction
    out[prefix + "answer"] = e.answer
    out[prefix + "method"] = e.method
    out[prefix + "confidence"] = e.confidence
    out[prefix + "valid"] = e.valid
    out[prefix + "unfinished"] = e.unfinished
    out[prefix + "span_start"] = e.span[0] if e.span else None
    out[prefix + "span_end"] = e.span[1] if e.span else None
    return out


def iter_extract(
    src: Source,
    *,
    field: str = "raw_output",
    task: str = "auto",
    task_field: str | None = "task",
    choices_field: str | None = "choices",
    numbers_field: str | None = "numbers",
    summary: FileSummary | None = None,
    on_error: ErrorCallback | None = None,
    on_progress: ProgressCallback | None = None,
) -> Iterator[ExtractedRecord]:
    """Extract from each JSONL record of ``src``, lazily, one line at a time.

    Yields an :class:`ExtractedRecord` per good line. Malformed lines are passed
    to ``on_error`` and skipped. ``summary``, when given, is updated in place as
    lines are read. A path is opened only when iteration starts and closed when
    it ends; a stream is read but never closed.

    Raises :class:`~answerx.errors.ConfigError` at once for an unknown ``task``.
    Set ``task_field``, ``choices_field`` or ``numbers_field`` to None to ignore
    those per-record fields.
    """
    check_task(task)  # here, not in the generator, so a bad name fails before any I/O
    return _iter_extract(
        src,
        field,
        task,
        task_field,
        choices_field,
        numbers_field,
        summary if summary is not None else FileSummary(),
        on_error,
        on_progress,
    )


def extract_file(
    src: Source,
    dst: Sink,
    *,
    field: str = "raw_output",
    task: str = "auto",
    task_field: str | None = "task",
    choices_field: str | None = "choices",
    numbers_field: str | None = "numbers",
    prefix: str = "",
    on_error: ErrorCallback | None = None,
    on_progress: ProgressCallback | None = None,
) -> FileSummary:
    """Stream JSONL from ``src`` to ``dst``, adding ``answer``, ``method``, ``confidence``.

    Every input field is kept. Memory stays flat whatever the file's length.
    Paths are opened here (``src`` before ``dst``, so a missing input never
    truncates the output) and closed at the end; streams are left open.

    >>> import io, json
    >>> out = io.StringIO()
    >>> extract_file(io.StringIO('{"id": 7, "raw_output": "The answer is 4."}\\n'), out).written
    1
    >>> record = json.loads(out.getvalue())
    >>> record["id"], record["answer"], record["method"], record["confidence"]
    (7, '4', 'final_answer_phrase', 0.9)

    Raises :class:`~answerx.errors.ConfigError` for an unknown ``task`` and
    :class:`OSError` when a file cannot be opened, read or written
    (:class:`~answerx.errors.SymlinkRefused` when ``dst`` is a symbolic link).
    """
    check_task(task)  # before opening anything: a bad name must not truncate the output
    summary = FileSummary()
    with ExitStack() as stack:
        # Input first, so that a missing input never creates or truncates the output.
        if isinstance(src, str | os.PathLike):
            src = stack.enter_context(open(src, "rb"))
        if isinstance(dst, str | os.PathLike):
            # Never through a symbolic link planted at the output's path.
            dst = stack.enter_context(open_output(dst, "w", encoding="utf-8", newline="\n"))
        write = json_line_writer(dst, summary=summary)
        for item in iter_extract(
            src,
            field=field,
            task=task,
            task_field=task_field,
            choices_field=choices_field,
            numbers_field=numbers_field,
            summary=summary,
            on_error=on_error,
            on_progress=on_progress,
        ):
            write(output_record(item, prefix, summary))
        dst.flush()
    return summary


def json_line_writer(
    dst: IO[Any], end: str = "\n", summary: FileSummary | None = None
) -> Callable[[dict[str, Any]], None]:
    """A function that writes one record to ``dst`` (text or binary) as UTF-8 JSON + ``end``.

    NaN and Infinity become null (and count in ``summary.nonfinite_nulled``).
    """
    binary = _is_binary(dst)

    def write(record: dict[str, Any]) -> None:
        text, nulled = dumps_record(record)
        if nulled and summary is not None:
            summary.nonfinite_nulled += 1
        text += end
        try:
            dst.write(text.encode("utf-8") if binary else text)
        except UnicodeEncodeError:
            # A sink whose encoding cannot hold the text: ASCII-escaped JSON is the same record.
            ascii_text = json.dumps(finite(record) if nulled else record) + end
            dst.write(ascii_text.encode("ascii") if binary else ascii_text)

    return write


# --------------------------------------------------------------------------- internals
def _iter_extract(
    src: Source,
    field: str,
    task: str,
    task_field: str | None,
    choices_field: str | None,
    numbers_field: str | None,
    summary: FileSummary,
    on_error: ErrorCallback | None,
    on_progress: ProgressCallback | None,
) -> Iterator[ExtractedRecord]:
    with ExitStack() as stack:
        if isinstance(src, str | os.PathLike):
            stream: IO[Any] = stack.enter_context(open(src, "rb"))
        else:
            stream = src
        consumed = 0
        for line_no, raw in enumerate(_lines(stream), start=1):
            consumed += len(raw)
            if on_progress is not None:
                on_progress(line_no, consumed)
            if not raw.strip():
                continue  # blank lines (a trailing newline, spacing) are not records
            summary.read += 1
            try:
                record, options = parse_record(
                    raw, line_no, field, task, task_field, choices_field, numbers_field
                )
                extraction = extract(
                    record[field],
                    options[0],
                    choices=options[1],
                    numbers=options[2],
                    finish_reason=options[3],
                )
            except AnswerxError as exc:
                bad = MalformedLine(line=line_no, reason=str(exc))
                summary.malformed_count += 1
                if len(summary.malformed) < MAX_REPORTED:
                    summary.malformed.append(bad)
                if on_error is not None:
                    on_error(bad)
                continue
            summary.written += 1
            summary.by_method[extraction.method] = summary.by_method.get(extraction.method, 0) + 1
            yield ExtractedRecord(line_no, record, extraction)


def _lines(stream: IO[Any]) -> Iterable[bytes | str]:
    # Iterating a file object reads one buffered line at a time, never the whole file.
    return stream


def _is_binary(stream: IO[Any]) -> bool:
    if isinstance(stream, io.TextIOBase):
        return False
    if isinstance(stream, io.RawIOBase | io.BufferedIOBase):
        return True
    return "b" in getattr(stream, "mode", "")


_Options = tuple[str, Sequence[str] | None, Sequence[int | float] | None, str | None]


def parse_record(
    raw: bytes | str,
    line_no: int,
    field: str,
    task: str,
    task_field: str | None,
    choices_field: str | None,
    numbers_field: str | None,
) -> tuple[dict[str, Any], _Options]:
    """The record of one JSONL line and its (task, choices, numbers, finish_reason);
    InputError when malformed.

    ``line_no`` 1 may start with a byte-order mark.
    """
    record = json_object(raw, first=line_no == 1)
    if field not in record:
        raise InputError(f"no {field!r} field")
    if not isinstance(record[field], str):
        raise InputError(f"field {field!r} is {json_type(record[field])}, not a string")

    record_task = task
    if task_field is not None and record.get(task_field) is not None:
        record_task = record[task_field]
        if not isinstance(record_task, str):
            raise InputError(f"field {task_field!r} is {json_type(record_task)}, not a string")
        check_task(record_task)  # ConfigError names the valid tasks; reported as the reason
    choices = _list_field(record, choices_field, (str,), "strings")
    numbers = _list_field(record, numbers_field, (int, float), "numbers")
    finish = record.get("finish_reason")
    if finish is not None and not isinstance(finish, str):
        raise InputError(f"field 'finish_reason' is {json_type(finish)}, not a string")
    return record, (record_task, choices, numbers, finish or None)


def _list_field(
    record: dict[str, Any], name: str | None, types: tuple[type, ...], what: str
) -> list[Any] | None:
    value = record.get(name) if name is not None else None
    if value is None:
        return None
    # bool is an int subclass, but `true` is not a number a Game of 24 can use.
    if not isinstance(value, list) or not all(
        isinstance(v, types) and not isinstance(v, bool) for v in value
    ):
        raise InputError(f"field {name!r} must be a list of {what}")
    return value
