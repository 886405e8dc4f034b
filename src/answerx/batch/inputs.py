"""A file run's input as pieces: each a batch to run (JSONL lines or Arrow rows) and the
records the reader itself found malformed, committed as a whole and in order.

The records are read by :mod:`answerx.recordfiles`: JSONL as raw lines (parsed in
the workers, so JSON decoding is spread over the cores too), CSV in blocks that
pyarrow parses (a malformed record named with its row and line), Parquet in
record batches. A path is opened exactly once, so a named pipe or a shell's
``<(…)`` is read as the stream it is.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import IO

import pyarrow as pa

from answerx.batch._jobs import Job, Settings
from answerx.errors import ConfigError
from answerx.extraction.files import MalformedLine
from answerx.recordfiles.csvfile import CsvReader
from answerx.recordfiles.lines import MAX_LINE_BYTES, READ_BYTES, line_blocks, skip_line, too_long
from answerx.recordfiles.parquetfile import open_parquet, parquet_batches
from answerx.recordfiles.streams import Source, name_of, size_of, tell

__all__ = ["Piece", "Reader", "open_reader"]


@dataclass(frozen=True, slots=True)
class Piece:
    """One step through an input, committed as a whole (in input order)."""

    job: Job | None
    """The batch to run; None when the step holds only malformed records."""
    consumed: int
    """Input lines or records it covers, valid or not: what a resumed run skips."""
    position: int
    """Progress: bytes read (JSONL, CSV) or rows (Parquet)."""
    malformed: tuple[MalformedLine, ...] = ()
    """Records the reader itself found malformed (CSV), all before the job's rows."""


class Reader(ABC):
    """The pieces of an input."""

    total: int | None = None
    """What :attr:`Piece.position` counts up to, when known."""
    parses: bool = True
    """Whether reading is per-row work (CSV, Parquet: worth a process of its own, see
    :mod:`answerx.batch.feed`); JSONL's blocks of lines are cut without parsing."""

    @abstractmethod
    def __iter__(self) -> Iterator[Piece]:
        """The input's pieces, from where :meth:`skip` left it."""

    @abstractmethod
    def skip(self, n: int) -> None:
        """Skip the first ``n`` lines/records (done by the run being resumed)."""


class _LinesReader(Reader):
    """JSONL as blocks of raw lines (parsed in the workers); a line over the maximum
    is a malformed record of its own, read past (:mod:`answerx.recordfiles.lines`)."""

    parses = False

    def __init__(self, stream: IO[bytes], batch_size: int, max_line: int, where: str) -> None:
        self.stream = stream
        self.batch_size = batch_size
        self.max_line = max_line
        self.where = where
        self.line = 0
        self.total = size_of(stream)

    def skip(self, n: int) -> None:
        for _ in range(n):
            start = self.stream.readline(READ_BYTES)  # bounded, as every read here
            if not start:
                raise ConfigError(f"cannot continue: the input has fewer than {n:,} lines")
            self.line += 1
            if not start.endswith(b"\n"):
                skip_line(self.stream, self.max_line, self.where, self.line)

    def __iter__(self) -> Iterator[Piece]:
        blocks = line_blocks(
            self.stream, max_lines=self.batch_size, max_line_bytes=self.max_line,
            where=self.where, first_line=self.line + 1,
        )  # fmt: skip
        for block in blocks:
            first = self.line + 1
            self.line += block.lines
            position = tell(self.stream)
            if block.too_long:
                bad = MalformedLine(line=first, reason=too_long(self.max_line))
                yield Piece(None, 1, position, (bad,))
            else:
                yield Piece(Job(first=first, lines=block.data), block.lines, position)


class _ArrowReader(Reader):
    def __init__(self, batches: Iterator[pa.RecordBatch], total: int | None) -> None:
        self.batches = batches
        self.total = total
        self.row = 0
        self.skip_rows = 0

    def skip(self, n: int) -> None:
        self.skip_rows = n

    def __iter__(self) -> Iterator[Piece]:
        for batch in self.batches:
            if self.skip_rows:
                cut = min(self.skip_rows, batch.num_rows)
                self.skip_rows -= cut
                self.row += cut
                batch = batch.slice(cut)
            if batch.num_rows == 0:
                continue
            job = Job(first=self.row + 1, batch=batch)
            self.row += batch.num_rows
            yield Piece(job, batch.num_rows, self.row)
        if self.skip_rows:
            raise ConfigError("cannot continue: the input has fewer rows than the run had done")


class _CsvPieces(Reader):
    """A :class:`~answerx.recordfiles.csvfile.CsvReader`'s blocks as pieces; a malformed
    record is reported by its number, the reason naming its line."""

    def __init__(self, reader: CsvReader) -> None:
        self.reader = reader
        self.total = reader.total

    def skip(self, n: int) -> None:
        self.reader.skip(n)

    def __iter__(self) -> Iterator[Piece]:
        for block in self.reader:
            job = Job(block.first, batch=block.rows) if block.rows is not None else None
            bad = tuple(
                MalformedLine(line=b.number, reason=f"{b.problem} (line {b.line})")
                for b in block.bad
            )
            yield Piece(job, block.records, block.position, bad)


class open_reader:
    """``with open_reader(src, fmt, batch_size, settings) as reader``: the pieces of
    ``src`` (a path, opened here exactly once, or a binary stream, left open);
    ``max_line``: the longest line (bytes) of JSONL or CSV held, longer ones malformed."""

    def __init__(
        self,
        src: Source,
        fmt: str,
        batch_size: int,
        settings: Settings,
        max_line: int = MAX_LINE_BYTES,
    ) -> None:
        self.src, self.fmt, self.batch_size, self.settings = src, fmt, batch_size, settings
        self.max_line = max_line
        self.stack = ExitStack()

    def __enter__(self) -> Reader:
        if isinstance(self.src, str | os.PathLike):
            # Reads of a megabyte: a line read past (see recordfiles.lines) takes one
            # system call per megabyte, not one per 8 KiB.
            stream: IO[bytes] = self.stack.enter_context(open(self.src, "rb", buffering=READ_BYTES))
        else:
            stream = self.src
        where = name_of(self.src) or "stdin"
        try:
            return self._reader(stream, where)
        except BaseException:
            self.stack.close()
            raise

    def _reader(self, stream: IO[bytes], where: str) -> Reader:
        if self.fmt == "parquet":
            parquet = open_parquet(stream, where)
            _check_columns(parquet.schema_arrow.names, self.settings, where)
            batches = parquet_batches(parquet, where, self.batch_size)
            return _ArrowReader(batches, parquet.metadata.num_rows)
        if self.fmt == "csv":
            reader = CsvReader(
                stream, where=where, batch_size=self.batch_size, max_line=self.max_line
            )
            _check_columns(reader.names, self.settings, where)
            return _CsvPieces(reader)
        return _LinesReader(stream, self.batch_size, self.max_line, where)

    def __exit__(self, *exc: object) -> None:
        self.stack.close()


def _check_columns(names: list[str], s: Settings, where: str) -> None:
    needed = [s.field] + ([s.gold] if s.mode == "verify" else [])
    for name in needed:
        if name not in names:
            raise ConfigError(f"{where}: no column {name!r} (columns: {', '.join(names)})")
