"""A file run's output: a file or stream of one record format, or a sink of result rows.

A file is checkpointed after every batch (its progress record says where it
stands), so that an interrupted run can be continued: JSONL, JSON and CSV are cut
back to their last checkpoint and appended to; Parquet, which cannot be appended
to, is rewritten from its first rows. Parquet also fixes each column's type with its
first rows: a column all null there (and of no type the run declares) holds those
batches back until a later one types it (:data:`HOLD_ROWS`). A sink
(:class:`RowSink`) takes each result row as it comes, in input order: the command
line's table is one.

A path is opened, continued, cut back or rewritten without following a symbolic
link (:mod:`answerx.support.nofollow`): a link planted at ``--out`` is refused.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol, cast

import pyarrow as pa
import pyarrow.parquet as pq

from answerx.batch._jobs import ResultRow, unspool
from answerx.batch.resume import ProgressRecord
from answerx.batch.summary import BatchSummary
from answerx.batch.tables import added_columns
from answerx.errors import ConfigError
from answerx.recordfiles.streams import tell
from answerx.recordfiles.writers import ArrowWriter, RecordWriter, open_writer
from answerx.support.nofollow import OutputDir, output_dir

if TYPE_CHECKING:
    from answerx.batch.writer import WriterProcess

__all__ = ["HOLD_ROWS", "Output", "ResultRow", "RowSink", "open_output"]

HOLD_ROWS = 65_536
"""Rows a Parquet output holds back at most while a column of its first batches is all
null: Parquet fixes every column's type with the first rows written, and a column that
holds only nulls so far has none (a JSONL run's ``choices`` absent from its first
records). A later batch's values give it its type; past this many rows (a row group's
worth) the column is written as it is (text, or the type the run declares for it)."""


class RowSink(Protocol):
    """Where a run's result rows go, one at a time and in input order, instead of a file."""

    def add(self, row: ResultRow) -> None:
        """Take one result row."""


class Output:
    """Where a run writes: a record writer (with its progress record when it writes a
    path), or a sink; Parquet or CSV maybe by a process of its own (:meth:`hand_over`)."""

    def __init__(
        self, writer: RecordWriter | RowSink, record: ProgressRecord, path: Path | None
    ) -> None:
        self.writer, self.record, self.path = writer, record, path
        self.remote: WriterProcess | None = None
        self.held: list[pa.Table] = []
        self.deferred: BatchSummary | None = None
        """The last checkpoint asked for while rows were held (saved once they are written)."""

    def write(self, payload: Any) -> None:
        """One batch's output, as its job made it for this output (maybe spooled)."""
        if self.remote is not None:
            self.remote.write(payload)
            return
        payload = unspool(payload)
        if self._held_back(payload):
            return
        if isinstance(self.writer, RecordWriter):
            self.writer.write(payload)
            return
        for row in payload:
            self.writer.add(row)

    def checkpoint(self, summary: BatchSummary) -> None:
        """Record how far the run is (a file written to a path only)."""
        if self.remote is not None:
            self.remote.checkpoint(summary)
        elif self.held:
            self.deferred = summary  # the file does not hold those rows yet
        elif self.path is not None and isinstance(self.writer, RecordWriter):
            self.record.save(self.path, summary, self.writer.state())

    def finish(self) -> None:
        """The input is done: end the file."""
        if self.remote is not None:
            self.remote.finish()
        elif isinstance(self.writer, RecordWriter):
            self.release()
            self.writer.finish()

    def release(self) -> None:
        """Write the rows held back (the input ended, or the run stops), each column typed
        by the first batch that has values in it, and the checkpoint they waited for."""
        held, self.held = self.held, []
        if not held:
            return
        held[0] = _typed_like(held)
        for table in held:
            self.writer.write(table)  # type: ignore[union-attr]  # held only for an ArrowWriter
        if self.deferred is not None:
            summary, self.deferred = self.deferred, None
            self.checkpoint(summary)

    def _held_back(self, table: Any) -> bool:
        """Whether ``table`` waits (with those before it) until its all-null columns can be
        typed: a Parquet file's first rows, for at most :data:`HOLD_ROWS` rows."""
        writer = self.writer
        if not (isinstance(writer, ArrowWriter) and writer.fmt == "parquet"):
            return False
        if table is None or table.num_rows == 0:
            return bool(self.held)  # nothing to write; nothing to hold either
        if writer.schema is not None:  # the file's types are set (written, or resumed)
            return False
        self.held.append(table)
        untyped = _untyped(_typed_like(self.held), declared=writer.types)
        if untyped and sum(t.num_rows for t in self.held) < HOLD_ROWS:
            return True
        # Typed (or held long enough): the held batches go out now; the checkpoint waits
        # for the call that follows this write, which counts this batch too.
        self.deferred = None
        self.release()
        return True

    def can_hand_over(self) -> bool:
        """Whether encoding is per-row work worth a process (Parquet, CSV) and nothing is
        written yet (the process takes the file over from its first byte)."""
        writer = self.writer
        return isinstance(writer, ArrowWriter) and writer.inner is None and not self.held

    def sync(self) -> None:
        """Wait until every batch sent is written (their spool files read)."""
        if self.remote is not None:
            self.remote.sync()


class open_output:
    """``with open_output(dst, fmt, resume=…, record=…) as output``: ``dst`` a path
    (created, or continued with ``resume``), a binary stream, or a :class:`RowSink`
    (``fmt`` ``rows``)."""

    def __init__(self, dst: object, fmt: str, *, resume: bool, record: ProgressRecord) -> None:
        self.dst, self.fmt, self.resume, self.record = dst, fmt, resume, record
        self.stack = ExitStack()
        self.writer: RecordWriter | None = None
        self.path: Path | None = None
        self.output: Output | None = None

    def __enter__(self) -> Output:
        if self.fmt == "rows":
            self.output = Output(cast(RowSink, self.dst), self.record, None)
            return self.output
        self.path = path = Path(self.dst) if isinstance(self.dst, str | os.PathLike) else None
        state = self.record.state if self.resume else {}
        schema = None
        old: Iterator[pa.RecordBatch] | None = None
        if path is None:
            stream: IO[bytes] = self.dst  # type: ignore[assignment]
        else:
            # The folder as the user gave it; the file itself never through a link.
            folder = self.stack.enter_context(output_dir(path.parent, create=False, follow=True))
            if self.resume and self.fmt == "parquet":
                schema, old = _reopen_parquet(folder, path.name, int(state.get("rows", 0)))
                stream = self.stack.enter_context(folder.open(path.name, "wb"))
            elif self.resume:
                stream = self.stack.enter_context(folder.open(path.name, "r+b"))
                stream.truncate(int(state.get("offset", 0)))
                stream.seek(0, os.SEEK_END)
            else:
                stream = self.stack.enter_context(folder.open(path.name, "wb"))
        settings = self.record.run["settings"]
        columns = added_columns(settings["mode"], bool(settings.get("judging")))
        self.writer = open_writer(
            stream,
            self.fmt,
            count=int(self.record.summary.get("written", 0)) if self.resume else 0,
            schema=schema,
            header=not (self.resume and tell(stream) > 0),
            types={settings["prefix"] + name: type_ for name, type_ in columns},
        )
        if old is not None:
            for batch in old:
                self.writer.write(pa.Table.from_batches([batch], schema=schema))
        self.output = Output(self.writer, self.record, path)
        return self.output

    def hand_over(self, ahead: int, spooling: str) -> bool:
        """Have a forked process write the output from now on, where it can
        (:meth:`Output.can_hand_over`); whether it does."""
        from answerx.batch.writer import WriterProcess

        output = self.output
        if output is None or not output.can_hand_over():
            return False
        output.remote = WriterProcess(output, self._close_here, ahead, spooling)
        return True

    def __exit__(self, *exc: object) -> None:
        remote = self.output.remote if self.output is not None else None
        if remote is not None:
            try:
                remote.close()  # the file is closed there, and whole (or valid) once it is
            finally:
                self.stack.close()  # this process's copies: nothing was written through them
            return
        self._close_here()

    def _close_here(self) -> None:
        try:
            try:
                if self.output is not None:
                    self.output.release()  # a stopped run's held rows: batches it committed
            finally:
                if self.writer is not None:
                    self.writer.close()
        finally:
            self.stack.close()
        # Parquet with not one row and no schema to write an empty file with (stopped
        # before the first batch, or every row malformed): no file, not 0 invalid bytes.
        writer = self.writer
        if (
            isinstance(writer, ArrowWriter)
            and writer.fmt == "parquet"
            and writer.inner is None
            and self.path is not None
            and self.path.stat().st_size == 0
        ):
            self.path.unlink()


def _untyped(table: pa.Table, declared: dict[str, pa.DataType]) -> bool:
    """Whether a column of ``table`` is all null and has no ``declared`` type (the run's
    added columns have theirs)."""
    return any(pa.types.is_null(f.type) and f.name not in declared for f in table.schema)


def _typed_like(tables: list[pa.Table]) -> pa.Table:
    """The first of ``tables`` with each of its all-null columns given the type that
    column has in the first later table where it holds values (left as it is when none)."""
    first = tables[0]
    for i, f in enumerate(first.schema):
        if not pa.types.is_null(f.type):
            continue
        for later in tables[1:]:
            index = later.schema.get_field_index(f.name)
            if index >= 0 and not pa.types.is_null(later.schema.field(index).type):
                type_ = later.schema.field(index).type
                first = first.set_column(i, pa.field(f.name, type_), first.column(i).cast(type_))
                break
    return first


def _reopen_parquet(
    folder: OutputDir, name: str, rows: int
) -> tuple[pa.Schema, Iterator[pa.RecordBatch] | None]:
    """The schema and the first ``rows`` rows of an interrupted run's Parquet output
    ``name`` in ``folder``.

    A Parquet file cannot be appended to: the rows are copied into a new one,
    from a side copy that is deleted as soon as it is read.
    """
    side = name + ".resuming"
    folder.replace(name, side)  # refuses a link at name
    handle = folder.open(side, "rb")
    try:
        old = pq.ParquetFile(handle)
    except pa.ArrowInvalid:
        handle.close()
        folder.replace(side, name)
        raise ConfigError(
            f"cannot continue: {folder.path / name} is not a complete Parquet file (the run "
            "was killed before it could close it); run again without --continue"
        ) from None
    schema = old.schema_arrow

    def batches() -> Iterator[pa.RecordBatch]:
        left = rows
        try:
            for batch in old.iter_batches(batch_size=65536):
                if left <= 0:
                    break
                yield batch.slice(0, left)
                left -= batch.num_rows
        finally:
            old.close()
            handle.close()
            folder.unlink(side)

    return schema, batches()
