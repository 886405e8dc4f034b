"""The processes a file run's batches go to: this one, or a pool of workers.

A small file needs no pool: one batch runs in this process (:data:`INLINE`), and
so does every batch of a one-worker run. Once a second batch exists the run starts
the pool (:class:`PoolStarter`) and from then on this process only hands batches
out and writes results: a run's CPU per row does not grow with its workers, and
the one process that cannot be multiplied does as little as it can. Batches and
results too big for the pool's pipe travel as files of a spool directory in
shared memory (:func:`spool_dir`, see :mod:`answerx.batch._jobs`).

A verify run's workers grade with math-verify: the fork server loads it once
(:mod:`answerx.batch._preload_grading`) and each worker forks its grading worker
from itself (:func:`answerx.grading.pool.fork_workers`).
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from functools import partial
from typing import Any

from answerx.batch._jobs import ignore_sigint
from answerx.workerpool import process_pool, start_method

__all__ = ["INLINE", "PoolStarter", "spool_dir"]


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


INLINE: Executor = _InlineExecutor()


def init_worker(grading: bool) -> None:
    """Pool initializer: Ctrl-C is the parent's to handle; a verify run's worker forks
    its grading worker from itself (it runs one thread, math-verify loaded)."""
    ignore_sigint()
    if grading:
        from answerx.grading.pool import fork_workers

        # Warmed when the fork server preloaded grading (not when it was already up).
        fork_workers(warmed="answerx.batch._preload_grading" in sys.modules)


class PoolStarter:
    """Starts the worker pool in a thread, while the calling process goes on reading
    the input: the workers' start (a fresh interpreter importing answerx, about half
    a second) overlaps the reading. ``grading``: the workers verify (math-verify is
    loaded in the fork server, and each worker's grading worker forked from it)."""

    def __init__(self, workers: int, *, grading: bool = False) -> None:
        self.workers = workers
        self.grading = grading
        self.pool: ProcessPoolExecutor | None = None
        self.started: ProcessPoolExecutor | None = None
        self.error: BaseException | None = None
        _start_fork_server(grading)  # here, on the calling thread: it may set signal handlers
        self.thread = threading.Thread(target=self._start, name="answerx-pool", daemon=True)
        self.thread.start()

    def _start(self) -> None:
        try:
            initializer = partial(init_worker, self.grading)
            self.pool = process_pool(self.workers, initializer=initializer)
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

    def wait(self) -> ProcessPoolExecutor:
        """The pool, once its workers are up (raises what stopped it from starting)."""
        self.thread.join()
        if self.error is not None:
            raise self.error
        assert self.started is not None
        return self.started

    def shutdown(self) -> None:
        """Wait for the pool's start, then stop it (jobs not started are cancelled)."""
        self.thread.join()
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


def _start_fork_server(grading: bool = False) -> None:
    """Start the pool's fork server (where there is one) with Ctrl-C ignored.

    The server inherits that, and so do the workers it forks: a Ctrl-C while it
    imports answerx (the first second of a run) cannot kill it with a traceback,
    and the run alone decides what stops. It also loads ``__main__`` (as
    multiprocessing does by default), so a worker does not import the main script
    again (the CLI: typer, rich, ...). ``grading``: it loads math-verify too, when it
    is started for a verify run (a server already running is used as it is).
    """
    if start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    preload = ["__main__", "answerx.batch._preload"]
    if grading:
        preload.append("answerx.batch._preload_grading")
    forkserver.set_forkserver_preload(preload)
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals are the application's
        forkserver.ensure_running()
        return
    try:
        forkserver.ensure_running()  # spawns the server; does not wait for its imports
    finally:
        signal.signal(signal.SIGINT, previous)


def spool_dir() -> str:
    """A new directory for the files that carry batches between processes: in shared
    memory (``/dev/shm``) where there is one, so they never reach a disk."""
    shm = "/dev/shm"
    base = shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None
    return tempfile.mkdtemp(prefix="answerx-batch-", dir=base)
