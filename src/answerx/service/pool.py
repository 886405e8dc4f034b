"""Extraction off the event loop: large inputs go to a pool of worker processes.

Extraction is CPU-bound pure Python (and ``re``, which holds the GIL through a
whole scan), so on the event loop a 1 MB adversarial output holds up every other
request for about a second: eight at once delayed ``/healthz`` by seconds. A
thread pool would not help: the threads and the loop share one GIL. Measured
(``bench/service.py``), a process pool keeps ``/healthz`` answering within
milliseconds while every worker is busy, and spreads big batches over the cores.

Small inputs stay on the loop: a typical extraction costs ~15 µs, less than the
~0.2 ms of a hop to another process (measured: batches of 500 short outputs took
twice the server CPU through the pool). Only outputs longer than
:data:`INLINE_CHARS` go to the pool; the small items of a batch are extracted on
the loop, which is handed back after every :data:`INLINE_CHARS` characters of them,
so that the loop is never held for more than a few milliseconds at a time.

The pool is started on first use the way every answerx pool starts
(:mod:`answerx.support.workerpool`: a fork server where there is one, since forking the
threaded server process itself is not safe) and sized to the CPU cores this
process may use, or ``ANSWERX_EXTRACT_WORKERS``; ``0`` keeps all extraction on the loop. The
workers run at a lower CPU priority (``nice`` 10), so that on a machine short of
cores the event loop still gets the CPU when it needs it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Final

from answerx.errors import AnswerxError
from answerx.extraction import Extraction, extract
from answerx.support.workerpool import default_workers, process_pool

__all__ = ["INLINE_CHARS", "ExtractionJob", "ExtractionPool", "default_workers"]

#: Outputs (or batches) of at most this many characters are extracted on the loop.
INLINE_CHARS: Final = 8192
# A batch sent to the pool is cut into chunks of about this many characters (at
# least one item each), so that every worker gets a share and none holds a whole
# 1 MB batch alone.
_CHUNK_CHARS: Final = 64 * 1024


@dataclass(frozen=True, slots=True)
class ExtractionJob:
    """One extraction's arguments (picklable, for the worker processes)."""

    raw_output: str
    task: str = "auto"
    choices: tuple[str, ...] | None = None
    numbers: tuple[int | float, ...] | None = None

    def run(self) -> Extraction:
        """``extract(...)`` of this job."""
        return extract(
            self.raw_output,
            self.task,
            choices=list(self.choices) if self.choices is not None else None,
            numbers=list(self.numbers) if self.numbers is not None else None,
        )


JobResult = Extraction | AnswerxError


def _run_jobs(jobs: Sequence[ExtractionJob]) -> list[JobResult]:
    """In a worker: each job's extraction, or the AnswerxError it raised."""
    return [_run_one(job) for job in jobs]


def _lower_priority() -> None:
    """In each worker: yield the CPU to the server's event loop when cores are short
    (the loop answers /healthz and small requests; the workers can wait a moment)."""
    with contextlib.suppress(OSError):  # not permitted: run at the same priority
        os.nice(10)


class ExtractionPool:
    """Extraction for the service: small jobs on the loop, large ones in processes."""

    def __init__(self, workers: int | None = None, inline_chars: int = INLINE_CHARS) -> None:
        self.workers = default_workers() if workers is None else workers
        self.inline_chars = inline_chars
        self._executor: ProcessPoolExecutor | None = None

    def __repr__(self) -> str:
        return f"ExtractionPool(workers={self.workers}, inline_chars={self.inline_chars})"

    def inline(self, chars: int) -> bool:
        """Whether work on ``chars`` characters is cheap enough for the event loop."""
        return self.workers == 0 or chars <= self.inline_chars

    async def extract(self, job: ExtractionJob) -> Extraction:
        """One extraction; raises what ``extract`` raises."""
        if self.inline(len(job.raw_output)):
            return job.run()
        [result] = await self._submit([job])
        if isinstance(result, AnswerxError):
            raise result
        return result

    async def extract_many(self, jobs: Sequence[ExtractionJob]) -> list[JobResult]:
        """Every job's extraction (or its AnswerxError), in order: the large ones in the
        pool (spread over the workers), the small ones on the loop meanwhile, handing
        the loop back after every :attr:`inline_chars` characters of them."""
        large = [n for n, job in enumerate(jobs) if not self.inline(len(job.raw_output))]
        pooled = (
            asyncio.ensure_future(self._submit_chunked([jobs[n] for n in large])) if large else None
        )
        results: list[JobResult | None] = [None] * len(jobs)
        try:
            since_yield = 0
            for n, job in enumerate(jobs):
                if pooled is not None and not self.inline(len(job.raw_output)):
                    continue
                if since_yield > self.inline_chars:
                    await asyncio.sleep(0)  # let other requests in
                    since_yield = 0
                since_yield += len(job.raw_output) + 200  # each item costs something
                results[n] = _run_one(job)
            if pooled is not None:
                for n, result in zip(large, await pooled, strict=True):
                    results[n] = result
        finally:
            if pooled is not None and not pooled.done():
                pooled.cancel()
        return [result for result in results if result is not None]

    async def _submit_chunked(self, jobs: Sequence[ExtractionJob]) -> list[JobResult]:
        total = sum(len(job.raw_output) for job in jobs)
        chunks = _chunks(jobs, max(_CHUNK_CHARS, total // (4 * max(self.workers, 1)) + 1))
        parts = await asyncio.gather(*(self._submit(chunk) for chunk in chunks))
        return [result for part in parts for result in part]

    async def _submit(self, jobs: Sequence[ExtractionJob]) -> list[JobResult]:
        executor = self._start()
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(executor, _run_jobs, list(jobs))
        except BrokenProcessPool:
            # A worker died (killed, out of memory): start afresh for the next request.
            self.close()
            raise

    def _start(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = process_pool(self.workers, initializer=_lower_priority)
        return self._executor

    def close(self) -> None:
        """Stop the worker processes (started again on the next large job)."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)


def _run_one(job: ExtractionJob) -> JobResult:
    try:
        return job.run()
    except AnswerxError as exc:  # a bad choices list, say: that item only
        return exc


def _chunks(jobs: Sequence[ExtractionJob], chars: int) -> list[list[ExtractionJob]]:
    chunks: list[list[ExtractionJob]] = [[]]
    size = 0
    for job in jobs:
        if chunks[-1] and size + len(job.raw_output) > chars:
            chunks.append([])
            size = 0
        chunks[-1].append(job)
        size += len(job.raw_output)
    return chunks
