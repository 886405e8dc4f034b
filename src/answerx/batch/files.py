"""Files of any size on every core: JSONL, CSV or Parquet in and out.

:func:`run_file` reads the input in batches (JSONL lines, or Arrow record
batches from CSV and Parquet), runs them on a pool of worker processes, and
writes the results in input order. Only ``2 × workers`` batches are in flight
at once, so memory stays flat whatever the file's length.

A malformed row is reported (``on_error``) with its line (JSONL) or row
number, skipped and counted; it never stops the run. A CSV row is malformed
when it has more or fewer fields than the header or bytes that are not UTF-8;
its number counts the records after the header (malformed ones too), and its
reason names the line it starts on.

Stopping (``stop()`` returning true, which the CLI wires to Ctrl-C) ends the
run between two batches: the output is closed as a valid file holding every
batch before that point, and a small progress record next to it
(``OUT.answerx-progress``) lets ``resume=True`` continue where it stopped.
The record goes away when a run finishes.
"""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
import os
import shutil
import signal
import tempfile
import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, wait
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any, Literal

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
from pydantic import Field

from answerx.batch._jobs import (
    Done,
    Job,
    Payload,
    Settings,
    Spooled,
    ignore_sigint,
    merge_columns,
    needed_columns,
    run_job,
    spool,
    unspool,
)
from answerx.batch.tables import EXTRACT_COLUMNS, VERIFY_COLUMNS
from answerx.errors import ConfigError, InputError
from answerx.extraction.files import MAX_REPORTED, FileSummary, MalformedLine
from answerx.extraction.tasks import check_task

__all__ = [
    "INPUT_FORMATS",
    "OUTPUT_FORMATS",
    "BatchSummary",
    "default_workers",
    "format_of",
    "progress_path",
    "run_file",
]

InputFormat = Literal["jsonl", "csv", "parquet"]
OutputFormat = Literal["jsonl", "json", "csv", "parquet"]
INPUT_FORMATS: tuple[str, ...] = ("jsonl", "csv", "parquet")
OUTPUT_FORMATS: tuple[str, ...] = ("jsonl", "json", "csv", "parquet")
_EXTENSIONS = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".csv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
}
_PROGRESS_SUFFIX = ".answerx-progress"
_PROGRESS_VERSION = 1
_BOM = b"\xef\xbb\xbf"

Source = str | os.PathLike[str] | IO[bytes]
Sink = str | os.PathLike[str] | IO[bytes]
ProgressCallback = Callable[["RunProgress"], None]


class BatchSummary(FileSummary):
    """What a :func:`run_file` run did (over all its resumed parts)."""

    consumed: int = Field(default=0, description="Input lines (JSONL) or rows read and done.")
    last_written: int | None = Field(
        default=None, description="Number of the last input line/row whose record was written."
    )
    interrupted: bool = Field(default=False, description="The run stopped before the end.")
    resumed_from: int | None = Field(
        default=None, description="Input lines/rows a resumed run skipped (done before)."
    )
    workers: int = Field(default=1, description="Worker processes used.")
    by_reason: dict[str, int] = Field(
        default_factory=dict, description="Verify mode: records written, by verdict reason."
    )
    correct: int = Field(default=0, description="Verify mode: records judged correct.")
    judged: int = Field(
        default=0, description="Verify mode: records judged at all (their gold was readable)."
    )


@dataclass(frozen=True, slots=True)
class RunProgress:
    """Where a run is, after each batch written."""

    rows: int
    """Input lines (JSONL) or rows done."""
    written: int
    done: int
    """Units done out of ``total``: bytes for JSONL and CSV, rows for Parquet."""
    total: int | None


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def format_of(path: str | os.PathLike[str] | None, default: str = "jsonl") -> str:
    """The file format that ``path``'s extension names; ``default`` when none does."""
    if path is None or str(path) == "-":
        return default
    return _EXTENSIONS.get(Path(path).suffix.lower(), default)


def progress_path(out: str | os.PathLike[str]) -> Path:
    """Where the progress record of a run writing ``out`` is kept."""
    return Path(str(out) + _PROGRESS_SUFFIX)


def run_file(
    src: Source,
    dst: Sink,
    *,
    mode: Literal["extract", "verify"] = "extract",
    in_format: str | None = None,
    out_format: str | None = None,
    workers: int | None = None,
    batch_size: int = 1024,
    field: str = "raw_output",
    gold: str = "gold",
    task: str = "auto",
    prefix: str = "",
    resume: bool = False,
    on_error: Callable[[MalformedLine], None] | None = None,
    on_progress: ProgressCallback | None = None,
    stop: Callable[[], bool] | None = None,
) -> BatchSummary:
    """Extract (or verify) every record of ``src`` into ``dst`` on ``workers`` processes.

    Formats come from the file extensions (``in_format``/``out_format`` override
    them; a stream is JSONL). Each record keeps every input field and gains the
    columns of :func:`answerx.batch.extract_table` (named ``prefix + name``).
    A record's ``task``, ``choices`` and ``numbers`` fields are used for it.

    Raises :class:`~answerx.errors.ConfigError` for a bad option, a missing
    column or an unusable progress record, :class:`~answerx.errors.InputError`
    for an input that cannot be read at all, and :class:`OSError` for I/O.
    """
    check_task(task)
    fin = _check_format(in_format or format_of(_name(src)), INPUT_FORMATS, "input")
    fout = _check_format(out_format or format_of(_name(dst)), OUTPUT_FORMATS, "output")
    if batch_size < 1:
        raise ConfigError("batch_size must be at least 1")
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise ConfigError("workers must be at least 1")
    # JSON is encoded in the workers; Arrow output gets the added columns (from JSONL,
    # tables of its records).
    encoded: dict[str, Payload] = {"jsonl": "jsonl", "json": "json"}
    payload = encoded.get(fout) or ("records" if fin == "jsonl" else "columns")
    settings = Settings(
        mode=mode, field=field, gold=gold, task=task, prefix=prefix, payload=payload
    )
    record = _ProgressRecord.for_run(src, fin, fout, settings)
    summary = BatchSummary(workers=workers)
    with ExitStack() as stack:
        # Input first: a missing input must not create or truncate the output.
        reader = stack.enter_context(_open_reader(src, fin, batch_size, settings))
        if resume:
            summary, resume = record.resume_from(dst, summary)
            reader.skip(summary.consumed)
        writer = stack.enter_context(_open_writer(dst, fout, resume=resume, record=record))
        summary = _pump(reader, writer, settings, workers, summary, on_error, on_progress, stop)
        if not summary.interrupted:
            writer.finish()
            record.clear(dst)
    return summary


# --------------------------------------------------------------------------- the loop
def _pump(
    reader: _Reader,
    writer: _Writer,
    settings: Settings,
    workers: int,
    summary: BatchSummary,
    on_error: Callable[[MalformedLine], None] | None,
    on_progress: ProgressCallback | None,
    stop: Callable[[], bool] | None,
) -> BatchSummary:
    stopped = stop or (lambda: False)
    in_flight: deque[tuple[Future[Done], _Piece, pa.RecordBatch | None]] = deque()
    pieces = iter(reader)
    starter: _PoolStarter | None = None
    pool: Executor | None = None
    spool_dir: str | None = None
    limit = 2 * workers

    def commit(done: Done, piece: _Piece, kept: pa.RecordBatch | None) -> None:
        if kept is not None:
            done.replaced = [name for name in settings.added if name in kept.schema.names]
            done.payload = merge_columns(kept, done.payload)
        if piece.job is not None:
            writer.write(unspool(done.payload))
        # The reader's malformed records come before the job's rows: reported in order,
        # and only now, with the piece, so a resumed run reports each exactly once.
        malformed = [*piece.malformed, *done.malformed]
        summary.read += done.read + len(piece.malformed)
        summary.written += done.written
        summary.malformed_count += len(malformed)
        for bad in malformed:
            if len(summary.malformed) < MAX_REPORTED:
                summary.malformed.append(bad)
            if on_error is not None:
                on_error(bad)
        for method, n in done.by_method.items():
            summary.by_method[method] = summary.by_method.get(method, 0) + n
        for reason, n in done.by_reason.items():
            summary.by_reason[reason] = summary.by_reason.get(reason, 0) + n
        summary.correct += done.correct
        summary.judged += done.judged
        for name in done.replaced:
            if name not in summary.replaced_fields:
                summary.replaced_fields.append(name)
        summary.nonfinite_nulled += done.nonfinite
        summary.consumed += piece.consumed
        if done.last is not None:
            summary.last_written = done.last
        writer.checkpoint(summary)
        if on_progress is not None:
            on_progress(
                RunProgress(summary.consumed, summary.written, piece.position, reader.total)
            )

    try:
        exhausted = False
        while True:
            while not exhausted and len(in_flight) < limit and not stopped():
                piece = next(pieces, None)
                if piece is None:
                    exhausted = True
                    break
                if piece.job is None:  # malformed records only: nothing to run
                    nothing: Future[Done] = Future()
                    nothing.set_result(Done())
                    in_flight.append((nothing, piece, None))
                    continue
                job = piece.job
                if starter is None and workers > 1 and (in_flight or summary.consumed):
                    # Started only once a second batch exists: a small file needs no pool.
                    starter = _PoolStarter(workers)
                    spool_dir = _spool_dir()
                if pool is None and starter is not None:
                    pool = starter.ready()
                executor = pool or _INLINE
                kept = None
                if settings.payload == "columns" and isinstance(job.batch, pa.RecordBatch):
                    # Only the columns extraction reads go to the worker; the rest wait here.
                    kept = job.batch
                    job = Job(
                        job.first, batch=kept.select(needed_columns(kept.schema.names, settings))
                    )
                if spool_dir is not None and pool is not None:
                    job = _spooled(job, spool_dir)
                future = executor.submit(run_job, job, settings)
                in_flight.append((future, piece, kept))
            if not in_flight or stopped():
                break
            future, piece, kept = in_flight[0]
            while not wait([future], timeout=0.2).done:
                if stopped():
                    break
            if not future.done():
                break
            in_flight.popleft()
            commit(future.result(), piece, kept)
    finally:
        for future, *_ in in_flight:
            future.cancel()
        if starter is not None:
            starter.shutdown()
        if spool_dir is not None:
            shutil.rmtree(spool_dir, ignore_errors=True)  # what stopped or failed jobs left
    summary.interrupted = bool(in_flight) or not exhausted
    return summary


def _spooled(job: Job, directory: str) -> Job:
    """``job`` with its bulk in a spool file and a place for its result's."""
    if job.lines is not None and not isinstance(job.lines, Spooled):
        return Job(job.first, lines=spool(job.lines, directory), spool=directory)
    if isinstance(job.batch, pa.RecordBatch | pa.Table):
        return Job(job.first, batch=spool(job.batch, directory), spool=directory)
    return Job(job.first, lines=job.lines, batch=job.batch, spool=directory)


def _spool_dir() -> str:
    """A new directory for the files that carry batches between processes: in shared
    memory (``/dev/shm``) where there is one, so they never reach a disk."""
    shm = "/dev/shm"
    base = shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None
    return tempfile.mkdtemp(prefix="answerx-batch-", dir=base)


class _InlineExecutor(Executor):
    """Runs each job at once in this process (one worker, the first batch, or batches
    while the pool starts)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            future.set_exception(exc)
        return future


_INLINE = _InlineExecutor()


class _PoolStarter:
    """Starts the worker pool in a thread, while the calling process goes on running
    batches itself: the workers' start (a fresh interpreter importing answerx, about
    half a second) overlaps useful work instead of holding up the run."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.pool: ProcessPoolExecutor | None = None
        self.started: ProcessPoolExecutor | None = None
        self.error: BaseException | None = None
        _start_fork_server()  # here, on the calling thread: it may set signal handlers
        self.thread = threading.Thread(target=self._start, name="answerx-pool", daemon=True)
        self.thread.start()

    def _start(self) -> None:
        try:
            self.pool = _start_pool(self.workers)
            # One call per worker makes the pool start them all now, not on demand.
            for future in [self.pool.submit(os.getpid) for _ in range(self.workers)]:
                future.result()
            self.started = self.pool
        except BaseException as exc:  # raised in the caller's thread by ready()
            self.error = exc

    def ready(self) -> ProcessPoolExecutor | None:
        """The pool once its workers are up; None before."""
        if self.error is not None:
            raise self.error
        return self.started

    def shutdown(self) -> None:
        self.thread.join()
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


def _start_method() -> str:
    # forkserver: workers fork from a clean server that has imported answerx once,
    # not from this process and its threads (a progress bar, a web server).
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


def _start_fork_server() -> None:
    """Start the pool's fork server (where there is one) with Ctrl-C ignored.

    The server inherits that, and so do the workers it forks: a Ctrl-C while it
    imports answerx (the first second of a run) cannot kill it with a traceback,
    and the run alone decides what stops. It also loads ``__main__`` (as
    multiprocessing does by default), so a worker does not import the main script
    again (the CLI: typer, rich, ...).
    """
    if _start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    forkserver.set_forkserver_preload(["__main__", "answerx.batch._preload"])
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals are the application's
        forkserver.ensure_running()
        return
    try:
        forkserver.ensure_running()  # spawns the server; does not wait for its imports
    finally:
        signal.signal(signal.SIGINT, previous)


def _start_pool(workers: int) -> ProcessPoolExecutor:
    context = multiprocessing.get_context(_start_method())
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=ignore_sigint)


# --------------------------------------------------------------------------- readers
@dataclass(frozen=True, slots=True)
class _Piece:
    """One step through an input, committed as a whole (in input order)."""

    job: Job | None
    """The batch to run; None when the step holds only malformed records."""
    consumed: int
    """Input lines or records it covers, valid or not: what a resumed run skips."""
    position: int
    """Progress: bytes read (JSONL, CSV) or rows (Parquet)."""
    malformed: tuple[MalformedLine, ...] = ()
    """Records the reader itself found malformed (CSV), all before the job's rows."""


class _Reader(ABC):
    """The pieces of an input."""

    total: int | None = None

    @abstractmethod
    def __iter__(self) -> Iterator[_Piece]:
        """The input's pieces, from where :meth:`skip` left it."""

    @abstractmethod
    def skip(self, n: int) -> None:
        """Skip the first ``n`` lines/records (done by the run being resumed)."""


class _LinesReader(_Reader):
    def __init__(self, stream: IO[bytes], batch_size: int) -> None:
        self.stream = stream
        self.batch_size = batch_size
        self.line = 0
        self.total = _size(stream)

    def skip(self, n: int) -> None:
        for _ in range(n):
            if not self.stream.readline():
                raise ConfigError(f"cannot resume: the input has fewer than {n:,} lines")
        self.line = n

    def __iter__(self) -> Iterator[_Piece]:
        lines: list[bytes] = []
        for raw in self.stream:  # one buffered line at a time, never the whole file
            lines.append(raw)
            if len(lines) == self.batch_size:
                yield self._job(lines)
                lines = []
        if lines:
            yield self._job(lines)

    def _job(self, lines: list[bytes]) -> _Piece:
        job = Job(first=self.line + 1, lines=b"".join(lines))
        self.line += len(lines)
        return _Piece(job, len(lines), _tell(self.stream))


class _ArrowReader(_Reader):
    def __init__(self, batches: Iterator[pa.RecordBatch], total: int | None) -> None:
        self.batches = batches
        self.total = total
        self.row = 0
        self.skip_rows = 0

    def skip(self, n: int) -> None:
        self.skip_rows = n

    def __iter__(self) -> Iterator[_Piece]:
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
            yield _Piece(job, batch.num_rows, self.row)
        if self.skip_rows:
            raise ConfigError("cannot resume: the input has fewer rows than the run had done")


class _CsvReader(_Reader):
    """CSV records as Arrow batches of text columns, each cell as written.

    Records are numbered from 1 after the header, malformed ones included, so a
    row's number is its place in the file; blank lines are not records.

    The input is cut into blocks of whole records (at a newline outside quotes)
    that pyarrow parses in C. pyarrow skips a row with the wrong number of fields
    without saying which it was once values may hold newlines, and stops at bytes
    that are not UTF-8: a block where either happens (rare) is parsed again by the
    standard library's ``csv`` reader, which knows each record's line, so each
    malformed record is reported with its number and line. A batch is cut at a
    malformed record so that its rows stay numbered ``first + i``.
    """

    def __init__(
        self, stream: IO[bytes], names: list[str], head: tuple[bytes, int, int], batch_size: int
    ) -> None:
        self.stream = stream
        self.names = names
        self.width = len(names)
        self.schema = pa.schema([pa.field(name, pa.string()) for name in names])
        self.rest, self.offset, self.lines = head  # after the header: bytes, position, lines
        self.batch_size = batch_size
        self.total = _size(stream)
        self.record = 0  # records read so far
        self.skip_to = 0  # records before this one were done by the run being resumed

    def skip(self, n: int) -> None:
        self.skip_to = n

    def __iter__(self) -> Iterator[_Piece]:
        for block in _record_blocks(self.stream, self.rest):
            self.offset += len(block)
            table = self._parsed(block)
            if table is None:
                yield from self._checked(block)
            else:
                yield from self._fast(table)
            self.lines += block.count(b"\n")
        if self.record < self.skip_to:
            raise ConfigError(f"cannot resume: the input has fewer than {self.skip_to:,} records")

    def _parsed(self, block: bytes) -> pa.Table | None:
        """``block`` parsed by pyarrow; None when a row is malformed or not UTF-8."""
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

    def _fast(self, table: pa.Table) -> Iterator[_Piece]:
        cut = max(0, min(self.skip_to - self.record, table.num_rows))
        self.record += cut
        for batch in table.slice(cut).to_batches(max_chunksize=self.batch_size):
            if batch.num_rows:
                job = Job(self.record + 1, batch=batch)
                self.record += batch.num_rows
                yield _Piece(job, batch.num_rows, self.offset)

    def _checked(self, block: bytes) -> Iterator[_Piece]:
        """``block``'s pieces, its malformed records found by the ``csv`` module."""
        text = block.decode("utf-8", "surrogateescape")  # bad bytes: found per row below
        records = csv.reader(io.StringIO(text, newline=""))
        width, size = self.width, self.batch_size
        bad: list[MalformedLine] = []  # malformed records before ``rows``
        rows: list[list[str]] = []
        lines: list[int] = []  # the line each of ``rows`` starts on
        end = self.lines  # the last line read
        for row in records:
            start, end = end + 1, self.lines + records.line_num
            if not row:
                continue
            if self.record < self.skip_to:
                self.record += 1
                continue
            if len(row) == width:
                self.record += 1
                rows.append(row)
                lines.append(start)
                if len(rows) == size:
                    yield from self._pieces(bad, rows, lines)
                    bad, rows, lines = [], [], []
                continue
            if rows:
                yield from self._pieces(bad, rows, lines)
                bad, rows, lines = [], [], []
            self.record += 1
            reason = f"{len(row)} field{'s' * (len(row) != 1)}, not {width} (line {start})"
            bad.append(MalformedLine(line=self.record, reason=reason))
        if rows or bad:
            yield from self._pieces(bad, rows, lines)

    def _pieces(
        self, bad: list[MalformedLine], rows: list[list[str]], lines: list[int]
    ) -> Iterator[_Piece]:
        """``bad`` then ``rows`` (which end with record ``self.record``) as one piece,
        or as several around rows that are not UTF-8."""
        first = self.record - len(rows) + 1
        try:
            job = Job(first, batch=self._batch(rows)) if rows else None
        except UnicodeEncodeError:
            pass
        else:
            yield _Piece(job, len(bad) + len(rows), self.offset, tuple(bad))
            return
        good: list[list[str]] = []
        for i, row in enumerate(rows):
            if _is_utf8(row):
                good.append(row)
                continue
            if good:
                job = Job(first + i - len(good), batch=self._batch(good))
                yield _Piece(job, len(bad) + len(good), self.offset, tuple(bad))
                bad, good = [], []
            reason = f"not UTF-8 text (line {lines[i]})"
            bad.append(MalformedLine(line=first + i, reason=reason))
        job = Job(first + len(rows) - len(good), batch=self._batch(good)) if good else None
        yield _Piece(job, len(bad) + len(good), self.offset, tuple(bad))

    def _batch(self, rows: list[list[str]]) -> pa.RecordBatch:
        arrays = [pa.array(column, pa.string()) for column in zip(*rows, strict=True)]
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)


_CSV_BLOCK = 1 << 22


def _record_blocks(stream: IO[bytes], rest: bytes) -> Iterator[bytes]:
    """The input as blocks of about 4 MiB, each ending after a whole record."""
    carry = rest
    while data := stream.read(_CSV_BLOCK):
        carry += data
        end = _records_end(carry)
        if end:
            yield carry[:end]
            carry = carry[end:]
    if carry:
        yield carry


def _records_end(data: bytes) -> int:
    """Where the last whole record in ``data`` ends: after its last newline outside
    quotes (a quote inside a value is doubled, so "outside" is "after an even
    number of quotes"); 0 when there is none."""
    # Counting quotes in C keeps this at memory speed. Only a bare quote inside an
    # unquoted value (``ab"c``, not CSV) can mislead it: it then cuts more rarely,
    # or, with a multi-line quoted value later in the same block, inside a record.
    quotes = data.count(b'"')
    end = len(data)
    while (newline := data.rfind(b"\n", 0, end)) >= 0:
        quotes -= data.count(b'"', newline, end)
        if quotes % 2 == 0:
            return newline + 1
        end = newline
    return 0


def _first_record_end(data: bytes) -> int:
    """Where the first whole record in ``data`` ends (see :func:`_records_end`)."""
    quotes = start = 0
    while (newline := data.find(b"\n", start)) >= 0:
        quotes += data.count(b'"', start, newline)
        if quotes % 2 == 0:
            return newline + 1
        start = newline + 1
    return 0


def _read_header(stream: IO[bytes], where: str) -> tuple[list[str], tuple[bytes, int, int]]:
    """The column names, and what follows them: (bytes read past the header, the
    position and the line number where the records start)."""
    data, offset, lines = b"", 0, 0
    while True:
        end = _first_record_end(data)
        if not end:
            more = stream.read(_CSV_BLOCK)
            if more:
                data += more
                continue
            end = len(data)
        record, data = data[:end], data[end:]
        offset += len(record)
        lines += record.count(b"\n")
        if offset == len(record) and record.startswith(_BOM):
            record = record[len(_BOM) :]
        if record.strip(b"\r\n") or not data:  # a blank line is not the header
            break
    try:
        text = record.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{where}: the CSV header is not UTF-8 text") from None
    names = next(csv.reader(io.StringIO(text, newline="")), [])
    return names, (data, offset, lines)


class _open_reader:
    def __init__(self, src: Source, fmt: str, batch_size: int, settings: Settings) -> None:
        self.src, self.fmt, self.batch_size, self.settings = src, fmt, batch_size, settings
        self.stack = ExitStack()

    def __enter__(self) -> _Reader:
        src = self.src
        if isinstance(src, str | os.PathLike):
            if self.fmt == "parquet":
                return self._parquet(str(src))
            stream: IO[bytes] = self.stack.enter_context(open(src, "rb"))
        else:
            stream = src
        if self.fmt == "parquet":
            raise ConfigError("Parquet input must be a file, not a stream")
        if self.fmt == "csv":
            return self._csv(stream)
        return _LinesReader(stream, self.batch_size)

    def __exit__(self, *exc: object) -> None:
        self.stack.close()

    def _parquet(self, path: str) -> _Reader:
        try:
            # pre_buffer (the default) keeps every row group it has read cached until the
            # file is closed: memory grows with the file. A 1 MB read buffer stays flat.
            parquet = self.stack.enter_context(
                pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20)
            )
        except pa.ArrowInvalid as exc:
            raise InputError(f"{path}: not a Parquet file ({exc})") from None
        names = parquet.schema_arrow.names
        _check_columns(names, self.settings, path)
        return _ArrowReader(
            parquet.iter_batches(batch_size=self.batch_size), parquet.metadata.num_rows
        )

    def _csv(self, stream: IO[bytes]) -> _Reader:
        where = _name(stream) or "stdin"
        names, head = _read_header(stream, where)
        _check_columns(names, self.settings, where)
        _allow_long_fields()
        return _CsvReader(stream, names, head, self.batch_size)


def _allow_long_fields() -> None:
    # The csv module refuses fields over 128 KiB by default; a model's output can be
    # longer. The limit is process-wide: it is only ever raised, never lowered.
    limit = 2**31 - 1  # the C long that every platform's csv module accepts
    if csv.field_size_limit() < limit:
        csv.field_size_limit(limit)


def _is_utf8(row: list[str]) -> bool:
    try:
        "".join(row).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_columns(names: list[str], s: Settings, where: str) -> None:
    needed = [s.field] + ([s.gold] if s.mode == "verify" else [])
    for name in needed:
        if name not in names:
            raise ConfigError(f"{where}: no column {name!r} (columns: {', '.join(names)})")


# --------------------------------------------------------------------------- writers
class _Writer(ABC):
    """One output format: batches' payloads in, a valid file at every checkpoint."""

    def __init__(self, stream: IO[bytes], record: _ProgressRecord, path: Path | None) -> None:
        self.stream, self.record, self.path = stream, record, path

    @abstractmethod
    def write(self, payload: Any) -> None:
        """Append one batch's payload (as its job made it for this format)."""

    def state(self) -> dict[str, Any]:
        self.stream.flush()
        return {"offset": self.stream.tell()}

    def checkpoint(self, summary: BatchSummary) -> None:
        if self.path is not None:
            self.record.save(self.path, summary, self.state())

    def finish(self) -> None:  # noqa: B027 - most formats need no ending
        """Finish the file after the last batch (nothing more will come)."""

    def close(self) -> None:
        """Leave a valid file, finished or interrupted."""
        self.stream.flush()


class _JsonlWriter(_Writer):
    def write(self, payload: Any) -> None:
        self.stream.write(payload)


class _JsonArrayWriter(_Writer):
    def __init__(self, stream: IO[bytes], record: _ProgressRecord, path: Path | None, n: int):
        super().__init__(stream, record, path)
        self.count = n
        if n == 0 and not _tell(stream):
            stream.write(b"[")

    def write(self, payload: Any) -> None:
        if payload:
            self.stream.write((b"\n" if self.count == 0 else b",\n") + payload)
            self.count += 1

    def close(self) -> None:
        # Closed at every end, Ctrl-C included, so the file is always one valid array;
        # a resumed run cuts the closing bracket off again (the recorded offset).
        self.stream.write(b"\n]\n")
        self.stream.flush()


class _ArrowWriter(_Writer):
    """CSV or Parquet from Arrow tables (for JSONL input, tables of its records)."""

    def __init__(
        self,
        stream: IO[bytes],
        record: _ProgressRecord,
        path: Path | None,
        fmt: str,
        schema: pa.Schema | None,
        header: bool,
        types: dict[str, pa.DataType],
    ) -> None:
        super().__init__(stream, record, path)
        self.fmt, self.schema, self.header, self.types = fmt, schema, header, types
        self.rows = 0
        self.inner: Any = None

    def write(self, payload: Any) -> None:
        if payload is None or payload.num_rows == 0:
            return
        table: pa.Table = _flat_for_csv(payload) if self.fmt == "csv" else payload
        if self.inner is None:
            if self.schema is None:
                # A column that is all null in the first batch is taken as text, so that
                # later batches with values in it still fit.
                self.schema = pa.schema(
                    [
                        pa.field(f.name, self.types.get(f.name, pa.string()))
                        if pa.types.is_null(f.type)
                        else f
                        for f in table.schema
                    ]
                )
            if self.fmt == "parquet":
                self.inner = pq.ParquetWriter(self.stream, self.schema)
            else:
                options = pacsv.WriteOptions(include_header=self.header)
                self.inner = pacsv.CSVWriter(self.stream, self.schema, write_options=options)
        self.inner.write_table(self._fit(table))
        self.rows += table.num_rows

    def _fit(self, table: pa.Table) -> pa.Table:
        if self.schema is None or table.schema == self.schema:
            return table
        # JSONL records: each batch's table has its own inferred schema; it takes the
        # first batch's (its columns, in its order; others dropped, missing ones null).
        # Arrow input: a column that was all null in the first batch takes its type.
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
        if self.inner is None and self.schema is not None and self.fmt == "parquet":
            # No rows at all: still a valid (empty) Parquet file with the input's columns.
            self.inner = pq.ParquetWriter(self.stream, self.schema)

    def close(self) -> None:
        if self.inner is not None:
            self.inner.close()
        self.stream.flush()


def _flat_for_csv(table: pa.Table) -> pa.Table:
    # CSV has no lists or structs: such columns become JSON text, as CSV input reads them.
    for i, f in enumerate(table.schema):
        if pa.types.is_nested(f.type) or pa.types.is_null(f.type):
            values = [None if v is None else json.dumps(v) for v in table.column(i).to_pylist()]
            table = table.set_column(
                i, pa.field(f.name, pa.string()), pa.array(values, pa.string())
            )
    return table


class _open_writer:
    def __init__(self, dst: Sink, fmt: str, *, resume: bool, record: _ProgressRecord) -> None:
        self.dst, self.fmt, self.resume, self.record = dst, fmt, resume, record
        self.stack = ExitStack()
        self.writer: _Writer | None = None

    def __enter__(self) -> _Writer:
        path = Path(self.dst) if isinstance(self.dst, str | os.PathLike) else None
        state = self.record.state if self.resume else {}
        schema = None
        old: Iterator[pa.RecordBatch] | None = None
        if path is None:
            stream: IO[bytes] = self.dst  # type: ignore[assignment]
        elif self.resume and self.fmt == "parquet":
            schema, old = _reopen_parquet(path, int(state.get("rows", 0)))
            stream = self.stack.enter_context(open(path, "wb"))
        elif self.resume:
            stream = self.stack.enter_context(open(path, "r+b"))
            stream.truncate(int(state.get("offset", 0)))
            stream.seek(0, os.SEEK_END)
        else:
            stream = self.stack.enter_context(open(path, "wb"))
        written = int(self.record.summary.get("written", 0)) if self.resume else 0
        if self.fmt == "jsonl":
            self.writer = _JsonlWriter(stream, self.record, path)
        elif self.fmt == "json":
            self.writer = _JsonArrayWriter(stream, self.record, path, written)
        else:
            header = not (self.resume and _tell(stream) > 0)
            settings = self.record.run["settings"]
            columns = VERIFY_COLUMNS if settings["mode"] == "verify" else EXTRACT_COLUMNS
            types = {settings["prefix"] + name: type_ for name, type_ in columns}
            self.writer = _ArrowWriter(stream, self.record, path, self.fmt, schema, header, types)
        if old is not None:
            for batch in old:
                self.writer.write(pa.Table.from_batches([batch], schema=schema))
        return self.writer

    def __exit__(self, *exc: object) -> None:
        try:
            if self.writer is not None:
                self.writer.close()
        finally:
            self.stack.close()
        # Parquet with not one row and no schema to write an empty file with (stopped
        # before the first batch, or every row malformed): no file, not 0 invalid bytes.
        writer = self.writer
        if (
            isinstance(writer, _ArrowWriter)
            and writer.fmt == "parquet"
            and writer.inner is None
            and writer.path is not None
            and writer.path.stat().st_size == 0
        ):
            writer.path.unlink()


def _reopen_parquet(path: Path, rows: int) -> tuple[pa.Schema, Iterator[pa.RecordBatch] | None]:
    """The schema and the first ``rows`` rows of an interrupted run's Parquet output.

    A Parquet file cannot be appended to: the rows are copied into a new one,
    from a side copy that is deleted as soon as it is read.
    """
    side = path.with_name(path.name + ".resuming")
    os.replace(path, side)
    try:
        old = pq.ParquetFile(side)
    except pa.ArrowInvalid:
        os.replace(side, path)
        raise ConfigError(
            f"cannot resume: {path} is not a complete Parquet file (the run was killed before "
            "it could close it); run again without --resume"
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
            side.unlink(missing_ok=True)

    return schema, batches()


# --------------------------------------------------------------------------- progress record
@dataclass(slots=True)
class _ProgressRecord:
    """What ``OUT.answerx-progress`` holds: enough to check and continue a run."""

    run: dict[str, Any]
    summary: dict[str, Any]
    state: dict[str, Any]

    @classmethod
    def for_run(cls, src: Source, fin: str, fout: str, settings: Settings) -> _ProgressRecord:
        name = _name(src)
        run = {
            "version": _PROGRESS_VERSION,
            "input": os.path.abspath(name) if name else None,
            "in_format": fin,
            "out_format": fout,
            "settings": asdict(settings),
        }
        return cls(run, {}, {})

    def save(self, path: Path, summary: BatchSummary, state: dict[str, Any]) -> None:
        data = {
            "run": self.run,
            "summary": summary.model_dump(mode="json"),
            "state": state,
        }
        target = progress_path(path)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, target)  # atomic: a kill leaves the old record or the new one

    def clear(self, dst: Sink) -> None:
        if isinstance(dst, str | os.PathLike):
            progress_path(dst).unlink(missing_ok=True)

    def resume_from(self, dst: Sink, fresh: BatchSummary) -> tuple[BatchSummary, bool]:
        """The summary of the run to continue (after checking it is this run), and
        whether there is one (no output yet: a resume is a first run)."""
        if not isinstance(dst, str | os.PathLike):
            raise ConfigError("--resume needs --out FILE: a stream cannot be continued")
        target = progress_path(dst)
        if not Path(dst).exists():
            return fresh, False
        try:
            saved = json.loads(target.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(
                f"nothing to resume: {dst} has no progress record ({target.name}); "
                "it finished, or was not written by answerx; run again without --resume"
            ) from None
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"cannot resume: {target} is unreadable ({exc})") from None
        if saved.get("run") != self.run:
            raise ConfigError(
                f"cannot resume: {dst} was written by a different run "
                f"(recorded: {json.dumps(saved.get('run'))}); give the same input and options"
            )
        self.summary, self.state = saved["summary"], saved["state"]
        summary = BatchSummary.model_validate(saved["summary"])
        summary.interrupted = False
        summary.resumed_from = summary.consumed
        summary.workers = fresh.workers
        return summary, True


# --------------------------------------------------------------------------- helpers
def _check_format(fmt: str, allowed: tuple[str, ...], what: str) -> str:
    if fmt not in allowed:
        raise ConfigError(f"unknown {what} format {fmt!r}; one of: {', '.join(allowed)}")
    return fmt


def _name(stream: object) -> str | None:
    if isinstance(stream, str | os.PathLike):
        return None if str(stream) == "-" else str(stream)
    name = getattr(stream, "name", None)
    return name if isinstance(name, str) and not name.startswith("<") else None


def _size(stream: IO[bytes]) -> int | None:
    try:
        size = os.fstat(stream.fileno()).st_size
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return None  # not a real file (a pipe, a test stream)
    return size or None


def _tell(stream: Any) -> int:
    try:
        return int(stream.tell())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return 0
