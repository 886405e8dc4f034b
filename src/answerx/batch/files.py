"""Files of any size on every core: JSONL, CSV or Parquet in, and out in the same or
another format (or to a sink, such as the command line's table).

:func:`run_file` reads the input in batches (JSONL lines, or Arrow record
batches from CSV and Parquet; :mod:`answerx.batch.inputs`), runs them on a pool
of worker processes (:mod:`answerx.batch.workers`), and writes the results in
input order (:mod:`answerx.batch.outputs`). Only ``2 × workers`` batches are in
flight at once, so memory stays flat whatever the file's length (while a verify run's
math-verify warms, up to ``8 × workers``: done batches behind one whose rows wait for it
are held, and the workers kept busy, see :func:`answerx.batch._jobs.run_job`).

A malformed record is reported (``on_error``) with its line (JSONL) or row
number, skipped and counted; it never stops the run. A CSV row is malformed
when it has more or fewer fields than the header, bytes that are not UTF-8, or
a quote out of place (one that never closes costs only its own row); its number
counts the records after the header (malformed ones too), and its reason names
the line it starts on. An input that cannot be read at all (not Parquet, cut
short) raises :class:`~answerx.errors.UnreadableFile`.

Stopping (``stop()`` returning true, which the CLI wires to Ctrl-C) ends the
run between two batches: the output is closed as a valid file holding every
batch before that point, and a small progress record next to it
(``OUT.answerx-progress``, :mod:`answerx.batch.resume`) lets ``resume=True``
continue where it stopped. The record goes away when a run finishes.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from contextlib import ExitStack
from dataclasses import replace
from typing import IO, TYPE_CHECKING, Any, Literal

import pyarrow as pa

from answerx.batch._jobs import (
    Done,
    Job,
    Payload,
    Settings,
    Spooled,
    add_counts,
    merge_columns,
    needed_columns,
    run_job,
    spool,
)
from answerx.batch.feed import Feed
from answerx.batch.inputs import Piece, Reader, open_reader
from answerx.batch.outputs import RowSink, open_output
from answerx.batch.resume import ProgressRecord, progress_path
from answerx.batch.settle import settle
from answerx.batch.summary import BatchSummary, LLMTotals, RunProgress
from answerx.batch.workers import INLINE, PoolStarter, can_fork_here, spool_dir, workers_for
from answerx.errors import ConfigError
from answerx.extraction.files import MAX_REPORTED, MalformedLine
from answerx.extraction.tasks import check_task
from answerx.recordfiles.formats import INPUT_FORMATS, OUTPUT_FORMATS, format_of
from answerx.recordfiles.lines import MAX_LINE_BYTES, check_max_line
from answerx.recordfiles.streams import Source, name_of
from answerx.support.workerpool import default_workers

if TYPE_CHECKING:
    from answerx.grading.judgement import Judge
    from answerx.judge import LLMExtractor

__all__ = [
    "BatchSummary",
    "RowSink",
    "RunProgress",
    "default_workers",
    "progress_path",
    "run_file",
]

Sink = str | os.PathLike[str] | IO[bytes] | RowSink
"""A path (created, or continued), a binary stream, or a :class:`RowSink`."""
ProgressCallback = Callable[[RunProgress], None]


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
    question_field: str | None = "question",
    judge: Judge | None = None,
    llm: LLMExtractor | None = None,
    llm_concurrency: int = 4,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> BatchSummary:
    """Extract (or verify) every record of ``src`` into ``dst`` on ``workers`` processes.

    Formats come from the file extensions (``in_format``/``out_format`` override
    them; a stream is JSONL). Each record keeps every input field and gains the
    columns of :func:`answerx.batch.extract_table` (named ``prefix + name``).
    A record's ``task``, ``choices`` and ``numbers`` fields are used for it. A
    path is opened exactly once, so a named pipe is read as a stream. ``dst`` may
    be a :class:`RowSink`, which takes each result row in input order. In verify mode
    a gold field may hold a list of accepted answers (JSON text in CSV), and the
    ``question_field`` (when a record has it) is the question grading sees.

    ``judge`` (verify mode) is asked about the records the rules were unsure of, and
    ``llm`` (an :class:`~answerx.judge.LLMExtractor`, extract mode) reads the outputs the
    rules could not read; both in this process, ``llm_concurrency`` calls at a time, a
    batch's records written once they are answered. ``BatchSummary.llm`` says what
    they did and cost.

    ``max_line_bytes`` bounds a JSONL or CSV line (64 MiB by default): a longer one is
    a malformed record, read past without being held; a line with no end for 16 times
    that (``/dev/zero``) makes the input unreadable.

    Raises :class:`~answerx.errors.ConfigError` for a bad option, a missing
    column or an unusable progress record,
    :class:`~answerx.errors.UnreadableFile` for an input that cannot be read at
    all, and :class:`OSError` for I/O.
    """
    check_task(task)
    fin = _check_format(in_format or format_of(name_of(src), "jsonl"), INPUT_FORMATS, "input")
    sink = not isinstance(dst, str | os.PathLike) and hasattr(dst, "add")
    if sink:
        fout = "rows"
    else:
        fout = _check_format(
            out_format or format_of(name_of(dst), "jsonl"), OUTPUT_FORMATS, "output"
        )
    if batch_size < 1:
        raise ConfigError("batch_size must be at least 1")
    if judge is not None and mode != "verify":
        raise ConfigError("a judge rules on verdicts: it needs mode='verify'")
    if llm is not None and mode != "extract":
        raise ConfigError("an LLM extractor reads outputs: it needs mode='extract'")
    if llm_concurrency < 1:
        raise ConfigError("llm_concurrency must be at least 1")
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise ConfigError("workers must be at least 1")
    workers = workers_for(workers)
    settings = Settings(
        mode=mode, field=field, gold=gold, task=task, prefix=prefix, payload=_payload(fin, fout),
        question_field=question_field, judging=judge is not None,
        llm_below=llm.min_confidence if llm is not None else None,
    )  # fmt: skip
    record = ProgressRecord.for_run(src, fin, fout, settings)
    summary = BatchSummary(workers=workers)
    asker = judge if judge is not None else llm
    with ExitStack() as stack:
        # Input first: a missing input must not create or truncate the output.
        reader = stack.enter_context(
            open_reader(src, fin, batch_size, settings, check_max_line(max_line_bytes))
        )
        if resume:
            summary, resume = record.resume_from(dst, summary)
            reader.skip(summary.consumed)
        if asker is not None and summary.llm is None:
            summary.llm = LLMTotals(
                kind="judge" if judge is not None else "extraction",
                name=str(getattr(asker, "name", type(asker).__name__)),
            )
        opened = open_output(dst, fout, resume=resume, record=record)
        output = stack.enter_context(opened)
        residue = _Residue(asker, llm_concurrency) if asker is not None else None
        summary = _pump(
            reader, opened, settings, workers, summary, on_error, on_progress, stop, residue
        )
        if not summary.interrupted:
            output.finish()
            record.clear(dst)
    return summary


def _payload(fin: str, fout: str) -> Payload:
    """What the jobs return for this output: JSON is encoded in the workers; Arrow
    output gets the added columns (from JSONL, tables of its records); a sink, rows."""
    if fout in ("jsonl", "json", "rows"):
        return fout  # type: ignore[return-value]  # the three are payloads of that name
    return "records" if fin == "jsonl" else "columns"


# --------------------------------------------------------------------------- the loop
class _Residue:
    """Who is asked about each job's residue, and how many at a time."""

    def __init__(self, asker: Judge | LLMExtractor, concurrency: int) -> None:
        self.asker = asker
        self.concurrency = concurrency

    def settle(
        self, done: Done, settings: Settings, summary: BatchSummary, stop: Callable[[], bool]
    ) -> bool:
        assert summary.llm is not None
        return settle(
            done, mode=settings.mode, prefix=settings.prefix, totals=summary.llm,
            asker=self.asker, concurrency=self.concurrency, stop=stop,
        )  # fmt: skip


def _pump(
    reader: Reader,
    opened: open_output,
    settings: Settings,
    workers: int,
    summary: BatchSummary,
    on_error: Callable[[MalformedLine], None] | None,
    on_progress: ProgressCallback | None,
    stop: Callable[[], bool] | None,
    residue: _Residue | None = None,
) -> BatchSummary:
    stopped = stop or (lambda: False)
    output = opened.output
    assert output is not None
    # [the job's future (or its follow-up's), the piece, the input the parent keeps]
    in_flight: deque[list[Any]] = deque()
    pieces = _Lookahead(iter(reader))
    starter: PoolStarter | None = None
    pool: Executor | None = None
    spooling: str | None = None
    feed: Feed | None = None
    limit = 2 * workers

    def commit(done: Done, piece: Piece, kept: pa.RecordBatch | None) -> None:
        if kept is not None:
            done.replaced = [name for name in settings.added if name in kept.schema.names]
            done.payload = merge_columns(kept, done.payload)
        if piece.job is not None:
            output.write(done.payload)  # read back (or sent on) by the output
        # The reader's malformed records come before the job's rows: reported in order,
        # and only now, with the piece, so a resumed run reports each exactly once.
        _count(summary, done, piece, on_error)
        output.checkpoint(summary)
        if on_progress is not None:
            on_progress(
                RunProgress(summary.consumed, summary.written, piece.position, reader.total)
            )

    def room() -> bool:
        if len(in_flight) < limit:
            return True
        if starter is None or starter.template is None:
            return False
        # Workers whose rows wait for math-verify to warm leave finished batches behind
        # the first one that waits: the workers stay fed while fewer than ``limit`` jobs
        # run or wait for one, up to 4 × ``limit`` batches held.
        running = sum(not entry[0].done() for entry in in_flight)
        return running < limit and len(in_flight) < 4 * limit

    def follow_ups() -> None:
        # Once math-verify is warm, each job's rows left for later go to a follow-up job.
        if starter is None or pool is None or not starter.grading_ready():
            return
        for entry in in_flight:
            if _left_for_later(entry[0]):
                job = Job(0, follow=entry[0].result(), spool=spooling)
                entry[0] = pool.submit(run_job, job, settings)

    try:
        exhausted = False
        while True:
            while not exhausted and room() and not stopped():
                piece = next(pieces, None)
                if piece is None:
                    exhausted = True
                    break
                if piece.job is None:  # malformed records only: nothing to run
                    nothing: Future[Done] = Future()
                    nothing.set_result(Done())
                    in_flight.append([nothing, piece, None])
                    continue
                job = piece.job
                if starter is None and workers > 1 and (in_flight or pieces.more()):
                    # Started only once a second batch exists: a small file needs no pool.
                    spooling = spool_dir()
                    if reader.parses and can_fork_here():
                        # Forked before the pool (whose threads would make forking unsafe):
                        # from here on CSV or Parquet is parsed there, not in this process.
                        feed = Feed(pieces.pieces, spooling, limit)
                        pieces.pieces = iter(feed)
                    if can_fork_here():
                        # Likewise Parquet or CSV out: encoded there (see batch.writer).
                        opened.hand_over(limit, spooling)
                    starter = PoolStarter(
                        workers,
                        grading=settings.mode == "verify",
                        arrow=job.lines is None or settings.payload not in ("jsonl", "json"),
                        directory=spooling,
                    )
                if pool is None and starter is not None:
                    # This process only hands out and writes once there are workers: the
                    # batches it would run while they start would be its CPU, added to
                    # the one process every row passes through (and, verifying, its own
                    # math-verify start on top of theirs).
                    pool = starter.wait()
                executor = pool or INLINE
                kept = None
                if settings.payload == "columns" and isinstance(job.batch, pa.RecordBatch):
                    # Only the columns extraction reads go to the worker; the rest wait here.
                    kept = job.batch
                    job = Job(
                        job.first, batch=kept.select(needed_columns(kept.schema.names, settings))
                    )
                elif settings.payload == "columns" and isinstance(job.batch, Spooled):
                    job = replace(job, merge=True)  # read by the feed: not held here
                if spooling is not None and pool is not None:
                    job = _spooled(job, spooling)
                future = executor.submit(run_job, job, settings)
                in_flight.append([future, piece, kept])
            if not in_flight or stopped():
                break
            if starter is not None and starter.template is not None:
                # Verifying with math-verify warming apart: wait for any job, so that the
                # window refills, and send the follow-ups once it is warm.
                running = [entry[0] for entry in in_flight if not entry[0].done()]
                if running:
                    wait(running, timeout=0.2, return_when=FIRST_COMPLETED)
                elif not starter.grading_ready():
                    starter.template.ready.wait(0.2)
                follow_ups()
                if not in_flight[0][0].done() or _left_for_later(in_flight[0][0]):
                    continue
            future, piece, kept = in_flight[0]
            while not wait([future], timeout=0.2).done:
                if stopped():
                    break
            if not future.done():
                break
            done = future.result()
            # The LLM's answers go in before the batch is written; stopped while it was
            # being asked, the batch is not written (a continued run asks again, the
            # answers given so far from the cache).
            if residue is not None and not residue.settle(done, settings, summary, stopped):
                break
            in_flight.popleft()
            commit(done, piece, kept)
    finally:
        for future, *_ in in_flight:
            future.cancel()
        if starter is not None:
            starter.shutdown()
        if feed is not None:
            feed.close()
        if spooling is not None:
            with contextlib.suppress(Exception):  # a failure there is raised by its close
                output.sync()  # the writer process has read every spool file it was sent
            shutil.rmtree(spooling, ignore_errors=True)  # what stopped or failed jobs left
    summary.interrupted = bool(in_flight) or not exhausted
    return summary


def _left_for_later(future: Future[Done]) -> bool:
    """Whether ``future``'s job finished with rows left for a follow-up job."""
    return future.done() and future.exception() is None and future.result().pending is not None


class _Lookahead:
    """An iterator of pieces that can tell whether another piece follows."""

    def __init__(self, pieces: Iterator[Piece]) -> None:
        self.pieces = pieces
        self.peeked: list[Piece] = []

    def __iter__(self) -> _Lookahead:
        return self

    def __next__(self) -> Piece:
        if self.peeked:
            return self.peeked.pop()
        return next(self.pieces)

    def more(self) -> bool:
        """Whether a next piece exists (read ahead, and kept for :meth:`__next__`)."""
        if not self.peeked:
            piece = next(self.pieces, None)
            if piece is None:
                return False
            self.peeked.append(piece)
        return True


def _count(
    summary: BatchSummary,
    done: Done,
    piece: Piece,
    on_error: Callable[[MalformedLine], None] | None,
) -> None:
    """Add what one piece's job did to ``summary``."""
    malformed = [*piece.malformed, *done.malformed]
    summary.read += done.read + len(piece.malformed)
    add_counts(summary, done)
    summary.malformed_count += len(malformed)
    for bad in malformed:
        if len(summary.malformed) < MAX_REPORTED:
            summary.malformed.append(bad)
        if on_error is not None:
            on_error(bad)
    for name in done.replaced:
        if name not in summary.replaced_fields:
            summary.replaced_fields.append(name)
    summary.nonfinite_nulled += done.nonfinite
    summary.consumed += piece.consumed
    if done.last is not None:
        summary.last_written = done.last


def _spooled(job: Job, directory: str) -> Job:
    """``job`` with its bulk in a spool file and a place for its result's."""
    if job.lines is not None and not isinstance(job.lines, Spooled):
        return replace(job, lines=spool(job.lines, directory), spool=directory)
    if isinstance(job.batch, pa.RecordBatch | pa.Table):
        return replace(job, batch=spool(job.batch, directory), spool=directory)
    return replace(job, spool=directory)


def _check_format(fmt: str, allowed: tuple[str, ...], what: str) -> str:
    if fmt not in allowed:
        raise ConfigError(f"unknown {what} format {fmt!r}; one of: {', '.join(allowed)}")
    return str(fmt)
