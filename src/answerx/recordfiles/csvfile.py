"""CSV with a header row: records read in blocks, each malformed one named with its line.

Records are numbered from 1 after the header, malformed ones included, so a
record's number is its place in the file; blank lines are not records. Every
cell is read as text, as written.

The input is cut into blocks of whole records (at a newline outside quotes)
that pyarrow parses in C. pyarrow skips a row with the wrong number of fields
without saying which it was once values may hold newlines, stops at bytes that
are not UTF-8, and reads a quote out of place (``6,"unclosed``, ``"a"b``) into
whatever follows it: a block where any of these happens (rare) is parsed again
by the standard library's ``csv`` reader in strict mode, which knows each
record's line. Each malformed record is then reported (:class:`BadRow`) with its
number, its line and what is wrong, and the records around it are kept: a quote
that never closes costs only the record it opens, whose lines after the first
are read again as records of their own. A line that runs past the maximum
(``max_line``, 64 MiB by default) without an end is a malformed record of its
own, read past in bounded memory (:mod:`answerx.recordfiles.lines`). Rows are handed out in
:class:`RowBlock` s of at most ``batch_size`` records, cut at a malformed
record so that the rows of a block stay numbered ``first + i``.
"""

from __future__ import annotations

import csv
import io
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

import pyarrow as pa
import pyarrow.csv as pacsv

from answerx.errors import ConfigError, UnreadableFile
from answerx.recordfiles.jsonl import BOM, not_utf8
from answerx.recordfiles.lines import MAX_LINE_BYTES, check_max_line, skip_line, too_long
from answerx.recordfiles.streams import size_of

__all__ = ["BadRow", "CsvReader", "RowBlock"]

BLOCK_BYTES = 1 << 22
"""About how many bytes are read at a time (a block ends after a whole record)."""
PENDING_BLOCKS = 64
"""A record still open after this many blocks (256 MiB) is taken for a quote that never
closes: the block is cut at a line end, so that memory stays bounded."""

_UNDECODABLE = re.compile("[\udc80-\udcff]")  # bytes that were not UTF-8 (surrogateescape)
# Text without quotes, and whole quoted cells (an opening quote at a cell's start,
# doubled quotes inside, a closing quote at its end), in any order. Possessive: it never
# backtracks, so a block is matched (or refused) in one pass.
_QUOTED_CELLS = re.compile(rb'(?:[^"]++|(?<![^,\r\n])"[^"]*+(?:""[^"]*+)*+"(?=[,\r\n]|\Z))*+')
_UNCLOSED = (
    "a quoted cell opened in this row is never closed (the lines after it are read as rows "
    'of their own): close the quote, and write a quote inside a cell as two ("")'
)


@dataclass(frozen=True, slots=True)
class BadRow:
    """A malformed record, skipped."""

    number: int
    """Its place among the records after the header (malformed ones counted), from 1."""
    line: int
    """The line it starts on (the file's first line is 1)."""
    problem: str
    """What is wrong with it, for a person to read."""


@dataclass(frozen=True, slots=True)
class RowBlock:
    """Consecutive records of a file: the malformed ones (``bad``) first, then ``rows``."""

    first: int
    """The number of the first of ``rows``."""
    rows: pa.RecordBatch | None
    bad: tuple[BadRow, ...]
    position: int
    """Bytes of the file read so far."""
    lines: tuple[int, ...] | None = None
    """The line each of ``rows`` starts on, when the reader was asked to number them."""

    @property
    def records(self) -> int:
        """The records this block covers, valid or not (what a resumed run skips)."""
        return len(self.bad) + (self.rows.num_rows if self.rows is not None else 0)


class CsvReader:
    """The records of a CSV stream after its header, as :class:`RowBlock` s.

    ``numbered``: every block is read by the ``csv`` module, so that each row's
    line is known (:attr:`RowBlock.lines`), for callers that name the line of a
    row they refuse later (a data set); slower, for files of thousands of rows.
    ``max_line``: the longest line held (bytes). Raises
    :class:`~answerx.errors.UnreadableFile` for a header that is not UTF-8 or has no end
    within ``max_line``.
    """

    def __init__(
        self,
        stream: IO[bytes],
        *,
        where: str,
        batch_size: int = 1024,
        numbered: bool = False,
        max_line: int = MAX_LINE_BYTES,
    ) -> None:
        self.stream = stream
        self.where = where
        self.max_line = check_max_line(max_line)
        self.names, (self.rest, self.offset, self.lines) = _read_header(stream, where, max_line)
        self.width = len(self.names)
        self.schema = pa.schema([pa.field(name, pa.string()) for name in self.names])
        self.batch_size = batch_size
        self.numbered = numbered
        self.total = size_of(stream)
        """Bytes in the file, when known (not for a pipe)."""
        self.record = 0  # records read so far
        self.skip_to = 0  # records before this one were done by the run being resumed
        _allow_long_fields()

    def skip(self, n: int) -> None:
        """Hand out nothing of the first ``n`` records (a resumed run did them)."""
        self.skip_to = n

    def __iter__(self) -> Iterator[RowBlock]:
        for block in _record_blocks(self.stream, self.rest, self.max_line, self.where):
            if isinstance(block, int):  # a line over the maximum, read past
                self.offset += block
                self.lines += 1
                self.record += 1
                if self.record > self.skip_to:
                    bad = BadRow(self.record, self.lines, too_long(self.max_line))
                    yield RowBlock(self.record + 1, None, (bad,), self.offset)
                continue
            self.offset += len(block)
            table = None if self.numbered or not self.width else self._parsed(block)
            if table is None:
                yield from self._checked(block)
            else:
                yield from self._fast(table)
            self.lines += block.count(b"\n")
        if self.record < self.skip_to:
            raise ConfigError(f"cannot continue: the input has fewer than {self.skip_to:,} records")

    def _parsed(self, block: bytes) -> pa.Table | None:
        """``block`` parsed by pyarrow; None when a row is malformed, not UTF-8, or a
        quote is out of place."""
        if not _well_quoted(block):
            return None
        bad = False

        def invalid(row: pacsv.InvalidRow) -> str:
            nonlocal bad
            bad = True
            return "skip"

        try:
            table = pacsv.read_csv(
                pa.py_buffer(block),
                read_options=pacsv.ReadOptions(
                    column_names=self.names, use_threads=False, block_size=len(block) + 1
                ),
                parse_options=pacsv.ParseOptions(
                    newlines_in_values=True, invalid_row_handler=invalid
                ),
                # Every column as text: a CSV round trip keeps each cell as written.
                convert_options=pacsv.ConvertOptions(
                    column_types=dict.fromkeys(self.names, pa.string()),
                    strings_can_be_null=False,
                ),
            )
        except pa.ArrowInvalid:  # not UTF-8, or anything else: the csv module says where
            return None
        return None if bad else table

    def _fast(self, table: pa.Table) -> Iterator[RowBlock]:
        cut = max(0, min(self.skip_to - self.record, table.num_rows))
        self.record += cut
        for batch in table.slice(cut).to_batches(max_chunksize=self.batch_size):
            if batch.num_rows:
                first = self.record + 1
                self.record += batch.num_rows
                yield RowBlock(first, batch, (), self.offset)

    def _checked(self, block: bytes) -> Iterator[RowBlock]:
        """``block``'s records as the ``csv`` module reads them, malformed ones named."""
        text = block.decode("utf-8", "surrogateescape")  # bad bytes: found per row below
        bad: list[BadRow] = []  # malformed records before ``rows``
        rows: list[list[str]] = []
        lines: list[int] = []  # the line each of ``rows`` starts on
        for start, row in _strict_records(text, self.lines + 1):
            if self.record < self.skip_to:
                self.record += 1
                continue
            problem = row if isinstance(row, str) else self._problem(row)
            if problem is None and not isinstance(row, str):
                self.record += 1
                rows.append(row)
                lines.append(start)
                if len(rows) == self.batch_size:
                    yield self._block(bad, rows, lines)
                    bad, rows, lines = [], [], []
                continue
            assert problem is not None
            if rows:  # a block's malformed records come before its rows
                yield self._block(bad, rows, lines)
                bad, rows, lines = [], [], []
            self.record += 1
            bad.append(BadRow(self.record, start, problem))
        if rows or bad:
            yield self._block(bad, rows, lines)

    def _problem(self, row: list[str]) -> str | None:
        if len(row) != self.width:
            cells = f"{len(row)} cell{'s' * (len(row) != 1)}"
            return f"{cells}, but the header has {self.width} columns"
        undecodable = _UNDECODABLE.search("".join(row))
        if undecodable is not None:
            return not_utf8(ord(undecodable.group()) - 0xDC00)
        return None

    def _block(self, bad: list[BadRow], rows: list[list[str]], lines: list[int]) -> RowBlock:
        first = self.record - len(rows) + 1
        batch = None
        if rows:
            arrays = [pa.array(column, pa.string()) for column in zip(*rows, strict=True)]
            batch = pa.RecordBatch.from_arrays(arrays, schema=self.schema)
        return RowBlock(first, batch, tuple(bad), self.offset, tuple(lines))


def _strict_records(text: str, first_line: int) -> Iterator[tuple[int, list[str] | str]]:
    """Each record of ``text`` (blank lines left out) with the line it starts on: its
    cells, or what is wrong with it.

    Strict: a quote out of place is an error, not text that swallows the lines after
    it. The record where it happens is given up, and its lines after the first are
    read again: only the record that opened the quote is lost.
    """
    source = iter(io.StringIO(text, newline=""))
    replay: deque[str] = deque()  # lines to read again
    taken: list[str] = []  # the lines of the record being read
    last = [first_line - 1]  # the number of the last line handed to the reader

    def feed() -> Iterator[str]:
        while True:
            line = replay.popleft() if replay else next(source, None)
            if line is None:
                return
            last[0] += 1
            taken.append(line)
            yield line

    while True:
        reader = csv.reader(feed(), strict=True)
        try:
            for row in reader:
                start = last[0] - len(taken) + 1
                taken.clear()
                if row:
                    yield start, row
            return
        except csv.Error as exc:
            start = last[0] - len(taken) + 1
            yield start, _csv_problem(exc)
            replay.extendleft(reversed(taken[1:]))
            last[0] = start
            taken.clear()


def _csv_problem(exc: csv.Error) -> str:
    if "unexpected end of data" in str(exc):
        return _UNCLOSED
    return f'not valid CSV ({exc}); a quote inside a quoted cell is written as two ("")'


def _well_quoted(block: bytes) -> bool:
    """Whether every quote of ``block`` opens or closes a whole quoted cell (or is one
    of a doubled pair inside one): then pyarrow reads it as the ``csv`` module does.

    One match in C over the block, which takes text without quotes and whole quoted
    cells in turn: a quote out of place (``"a"b``, ``ab"c``) or one that never closes
    stops it.
    """
    return b'"' not in block or _QUOTED_CELLS.fullmatch(block) is not None


def _allow_long_fields() -> None:
    # The csv module refuses fields over 128 KiB by default; a model's output can be
    # longer. The limit is process-wide: it is only ever raised, never lowered.
    limit = 2**31 - 1  # the C long that every platform's csv module accepts
    if csv.field_size_limit() < limit:
        csv.field_size_limit(limit)


def _record_blocks(
    stream: IO[bytes], rest: bytes, max_line: int = MAX_LINE_BYTES, where: str = "input"
) -> Iterator[bytes | int]:
    """The input as blocks of about :data:`BLOCK_BYTES`, each ending after a whole record
    (or at a line end, once :data:`PENDING_BLOCKS` blocks hold no record's end).

    Only the bytes read last are searched for a record's end (what was carried over
    holds none), so a long record costs one pass, not one per read. A line still
    without its end after ``max_line`` bytes is read past: the lines before it come as
    a block, then the number of bytes of the long line (an int) in its place.
    """
    carry = bytearray(rest)
    quotes = rest.count(b'"')  # in ``carry``: odd while it ends inside a quoted value
    open_line = len(rest) - (rest.rfind(b"\n") + 1)  # bytes of the line not yet ended
    while data := stream.read(BLOCK_BYTES):
        newline = data.rfind(b"\n")
        open_line = len(data) - newline - 1 if newline >= 0 else open_line + len(data)
        if open_line > max_line:
            carry += data
            start = len(carry) - open_line  # where the long line begins
            if start:
                yield bytes(carry[:start])
            skipped = skip_line(stream, max_line, where)
            yield open_line + skipped
            carry, quotes, open_line = bytearray(), 0, 0
            continue
        end = _records_end(data, quotes)
        if not end:
            carry += data
            quotes += data.count(b'"')
            if len(carry) > PENDING_BLOCKS * BLOCK_BYTES and (cut := carry.rfind(b"\n") + 1):
                # No record ends in this much: a quote that never closes. Cut at a line
                # anyway, so memory stays bounded; the strict re-read reports the record
                # that opened it and reads its other lines as records of their own.
                yield bytes(carry[:cut])
                del carry[:cut]
                quotes = carry.count(b'"')
            continue
        carry += data[:end]
        yield bytes(carry)
        carry = bytearray(data[end:])
        quotes = carry.count(b'"')
    if carry:
        yield bytes(carry)


def _records_end(data: bytes, before: int) -> int:
    """Where the last whole record in ``data`` ends, ``before`` quotes having come
    before it: after its last newline outside quotes (a quote inside a value is
    doubled, so "outside" is "after an even number of quotes"); 0 when there is none."""
    # Counting quotes in C keeps this at memory speed. Only a bare quote inside an
    # unquoted value (``ab"c``, not CSV) can mislead it: it then cuts more rarely,
    # or, with a multi-line quoted value later in the same block, inside a record.
    quotes = before + data.count(b'"')
    end = len(data)
    while (newline := data.rfind(b"\n", 0, end)) >= 0:
        quotes -= data.count(b'"', newline, end)
        if quotes % 2 == 0:
            return newline + 1
        end = newline
    return 0


def _first_record_end(data: bytes | bytearray) -> int:
    """Where the first whole record in ``data`` ends (see :func:`_records_end`)."""
    quotes = start = 0
    while (newline := data.find(b"\n", start)) >= 0:
        quotes += data.count(b'"', start, newline)
        if quotes % 2 == 0:
            return newline + 1
        start = newline + 1
    return 0


def _read_header(
    stream: IO[bytes], where: str, max_line: int = MAX_LINE_BYTES
) -> tuple[list[str], tuple[bytes, int, int]]:
    """The column names, and what follows them: (bytes read past the header, the
    position and the number of lines where the records start)."""
    # A bytearray grows in place: a header that never ends is held once, not copied.
    data, offset, lines = bytearray(), 0, 0
    while True:
        end = _first_record_end(data)
        if not end:
            if len(data) > max_line:
                raise UnreadableFile(
                    f"{where}: no CSV header: its first {len(data):,} bytes hold no record's "
                    f"end (the maximum line is {max_line:,} bytes)",
                    path=where,
                )
            more = stream.read(BLOCK_BYTES)
            if more:
                data += more
                continue
            end = len(data)
        record, data = bytes(data[:end]), data[end:]
        offset += len(record)
        lines += record.count(b"\n")
        if offset == len(record) and record.startswith(BOM):
            record = record[len(BOM) :]
        if record.strip(b"\r\n") or not data:  # a blank line is not the header
            break
    try:
        text = record.decode("utf-8")
    except UnicodeDecodeError:
        raise UnreadableFile(f"{where}: the CSV header is not UTF-8 text", path=where) from None
    names = next(csv.reader(io.StringIO(text, newline="")), [])
    return names, (bytes(data), offset, lines)
